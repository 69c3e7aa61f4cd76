//! One aggregation phase for holistic aggregates (`quantile_cont`, `median`).
//!
//! DataFusion aggregates in two phases: each input partition aggregates what it reads
//! (`Partial`), the partial states are hash-repartitioned by group, and a `FinalPartitioned`
//! phase merges them. For a sum that is cheap; for a quantile the "state" is every value, so
//! two phases hold each value up to three times (the partial accumulators, the state lists in
//! flight, the final accumulators) and copy it twice. Over 100 million request rows that was
//! 2.7 GB and 5.7 s for one `quantile_cont`, and `trial_requests` (12 quantiles) failed.
//!
//! This rule rewrites `FinalPartitioned ← Repartition(hash) ← Partial ← input` into
//! `SinglePartitioned ← Repartition(hash of the group keys) ← input` wherever an aggregate of
//! the pair is holistic: the rows are repartitioned instead of the states (the same hash, the
//! same parallelism), and each value is held once. The answers are the same (tests/it/views.rs
//! and the interop tests check them against DuckDB); what changes is memory and time.

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::Partitioning;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode};
use datafusion::physical_plan::repartition::RepartitionExec;

use super::udf::SharedHolistic;

/// Aggregates whose state is every value.
const HOLISTIC: [&str; 3] = ["quantile_cont", "median", SharedHolistic::NAME];

#[derive(Debug, Default)]
pub struct SinglePhaseHolistic;

impl PhysicalOptimizerRule for SinglePhaseHolistic {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(rewritten) = rewrite(&node)? else {
                return Ok(Transformed::no(node));
            };
            Ok(Transformed::yes(rewritten))
        })
        .data()
    }

    fn name(&self) -> &str {
        "single_phase_holistic"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

fn rewrite(node: &Arc<dyn ExecutionPlan>) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let Some(last) = node.downcast_ref::<AggregateExec>() else {
        return Ok(None);
    };
    if *last.mode() != AggregateMode::FinalPartitioned || last.limit_options().is_some() {
        return Ok(None);
    }
    let Some(shuffle) = last.input().downcast_ref::<RepartitionExec>() else {
        return Ok(None);
    };
    let &Partitioning::Hash(_, n) = shuffle.partitioning() else {
        return Ok(None);
    };
    let Some(first) = shuffle.input().downcast_ref::<AggregateExec>() else {
        return Ok(None);
    };
    let holistic = first
        .aggr_expr()
        .iter()
        .any(|a| HOLISTIC.contains(&a.fun().name()));
    if *first.mode() != AggregateMode::Partial
        || !holistic
        || first.group_expr().is_empty()
        || first.group_expr().has_grouping_set()
        || first.limit_options().is_some()
    {
        return Ok(None);
    }
    let rows = Arc::new(RepartitionExec::try_new(
        Arc::clone(first.input()),
        Partitioning::Hash(first.group_expr().input_exprs(), n),
    )?);
    let single = AggregateExec::try_new(
        AggregateMode::SinglePartitioned,
        first.group_expr().clone(),
        first.aggr_expr().to_vec(),
        first.filter_expr().to_vec(),
        rows,
        first.input_schema(),
    )?;
    Ok(Some(Arc::new(single)))
}

/// The logical rule: several holistic aggregates of one `f64` column (and one FILTER) in a
/// grouped aggregate share one [`SharedHolistic`].
#[derive(Debug, Default)]
pub struct ShareHolistic;

impl datafusion::optimizer::OptimizerRule for ShareHolistic {
    fn name(&self) -> &str {
        "share_holistic"
    }

    fn apply_order(&self) -> Option<datafusion::optimizer::ApplyOrder> {
        Some(datafusion::optimizer::ApplyOrder::BottomUp)
    }

    fn supports_rewrite(&self) -> bool {
        true
    }

    fn rewrite(
        &self,
        plan: datafusion::logical_expr::LogicalPlan,
        _config: &dyn datafusion::optimizer::OptimizerConfig,
    ) -> Result<Transformed<datafusion::logical_expr::LogicalPlan>> {
        use datafusion::logical_expr::LogicalPlan;
        let LogicalPlan::Aggregate(agg) = plan else {
            return Ok(Transformed::no(plan));
        };
        match share(&agg)? {
            Some(shared) => Ok(Transformed::yes(shared)),
            None => Ok(Transformed::no(LogicalPlan::Aggregate(agg))),
        }
    }
}

/// What holistic aggregates share: their column and their FILTER.
type Key = (
    datafusion::logical_expr::Expr,
    Option<Box<datafusion::logical_expr::Expr>>,
);
/// The aggregates of one key: each one's position, and its quantile (`None` for the median).
type Members = Vec<(usize, Option<f64>)>;

/// `(column, filter)` and statistic of a holistic aggregate that may be shared: `median(x)` or
/// `quantile_cont(x, p)` with a constant `p` in [0, 1], over `f64`, not DISTINCT, unordered.
fn holistic_of(
    e: &datafusion::logical_expr::Expr,
    schema: &datafusion::common::DFSchema,
) -> Result<Option<(Key, Option<f64>)>> {
    use datafusion::common::ScalarValue;
    use datafusion::logical_expr::{Expr, ExprSchemable, expr::AggregateFunction};
    // Common subexpression elimination may have aliased it (a FILTER it rewrote).
    let e = match e {
        Expr::Alias(a) => a.expr.as_ref(),
        e => e,
    };
    let Expr::AggregateFunction(AggregateFunction { func, params }) = e else {
        return Ok(None);
    };
    if params.distinct || !params.order_by.is_empty() || params.null_treatment.is_some() {
        return Ok(None);
    }
    let stat = match (func.name(), params.args.as_slice()) {
        ("median", [_]) => None,
        ("quantile_cont", [_, Expr::Literal(ScalarValue::Float64(Some(p)), _)])
            if (0.0..=1.0).contains(p) =>
        {
            Some(*p)
        }
        _ => return Ok(None),
    };
    let x = &params.args[0];
    if x.get_type(schema)? != datafusion::arrow::datatypes::DataType::Float64 {
        return Ok(None);
    }
    Ok(Some(((x.clone(), params.filter.clone()), stat)))
}

fn share(
    agg: &datafusion::logical_expr::Aggregate,
) -> Result<Option<datafusion::logical_expr::LogicalPlan>> {
    use datafusion::common::Column;
    use datafusion::logical_expr::expr::AggregateFunction;
    use datafusion::logical_expr::{Aggregate, Expr, LogicalPlan, Projection};
    if agg.group_expr.is_empty()
        || agg
            .group_expr
            .iter()
            .any(|e| matches!(e, Expr::GroupingSet(_)))
    {
        return Ok(None);
    }
    // Each shareable aggregate's key, and the members of each key.
    let mut keys: Vec<(Key, Members)> = Vec::new();
    for (i, e) in agg.aggr_expr.iter().enumerate() {
        if let Some((key, stat)) = holistic_of(e, agg.input.schema())? {
            match keys.iter_mut().find(|(k, _)| *k == key) {
                Some((_, members)) => members.push((i, stat)),
                None => keys.push((key, vec![(i, stat)])),
            }
        }
    }
    keys.retain(|(_, members)| members.len() > 1);
    if keys.is_empty() {
        return Ok(None);
    }
    // Original aggregate i → (shared aggregate k, its field j).
    let mut shared_as: Vec<Option<(usize, usize)>> = vec![None; agg.aggr_expr.len()];
    let mut aggr: Vec<Expr> = Vec::new();
    for (i, e) in agg.aggr_expr.iter().enumerate() {
        if !keys.iter().any(|(_, m)| m.iter().any(|(j, _)| *j == i)) {
            aggr.push(e.clone());
        }
    }
    let kept = aggr.len();
    for (k, ((x, filter), members)) in keys.iter().enumerate() {
        let stats: Vec<Option<f64>> = members.iter().map(|(_, s)| *s).collect();
        for (field, (i, _)) in members.iter().enumerate() {
            shared_as[*i] = Some((k, field));
        }
        aggr.push(Expr::AggregateFunction(AggregateFunction::new_udf(
            Arc::new(SharedHolistic::udaf(&stats)),
            vec![x.clone()],
            false,
            filter.clone(),
            vec![],
            None,
        )));
    }
    let groups = agg.group_expr.len();
    let inner = Aggregate::try_new(Arc::clone(&agg.input), agg.group_expr.clone(), aggr)?;
    let inner_schema = Arc::clone(&inner.schema);
    let column = |schema: &datafusion::common::DFSchema, i: usize| {
        let (q, f) = schema.qualified_field(i);
        Expr::Column(Column::new(q.cloned(), f.name()))
    };
    let mut exprs: Vec<Expr> = (0..groups).map(|i| column(&agg.schema, i)).collect();
    for (i, shared) in shared_as.iter().enumerate() {
        let (q, f) = agg.schema.qualified_field(groups + i);
        exprs.push(match shared {
            None => column(&agg.schema, groups + i),
            Some((k, field)) => datafusion::functions::core::expr_fn::get_field(
                column(&inner_schema, groups + kept + k),
                field.to_string(),
            )
            .alias_qualified(q.cloned(), f.name()),
        });
    }
    let projection = Projection::try_new(exprs, Arc::new(LogicalPlan::Aggregate(inner)))?;
    Ok(Some(LogicalPlan::Projection(projection)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array, RecordBatch};
    use datafusion::execution::SessionStateBuilder;
    use datafusion::prelude::SessionContext;

    fn context(share: bool) -> SessionContext {
        let mut state = SessionStateBuilder::new().with_default_features();
        if share {
            state = state.with_optimizer_rule(Arc::new(ShareHolistic));
        }
        let ctx = SessionContext::new_with_state(state.build());
        ctx.register_udaf(crate::query::udf::quantile_cont_udaf());
        ctx.register_udaf(crate::query::udf::median_udaf());
        let n = 5000;
        let g: Vec<i64> = (0..n).map(|i| (i * 7 % 13) as i64).collect();
        let x: Vec<Option<f64>> = (0..n)
            .map(|i| (i % 11 != 4).then(|| ((i * 7919) % 1009) as f64 * 0.5 + 1e-7 * i as f64))
            .collect();
        let y: Vec<f64> = (0..n).map(|i| ((i * 31) % 97) as f64).collect();
        let batch = RecordBatch::try_from_iter([
            ("g", Arc::new(Int64Array::from(g)) as ArrayRef),
            ("x", Arc::new(Float64Array::from(x)) as ArrayRef),
            ("y", Arc::new(Float64Array::from(y)) as ArrayRef),
        ])
        .unwrap();
        ctx.register_batch("t", batch).unwrap();
        ctx
    }

    /// Shared and unshared plans give the same columns, names and values to the bit; only the
    /// shareable aggregates (same column, same FILTER, f64, constant p) are merged.
    #[tokio::test]
    async fn shared_quantiles_equal_unshared_ones() {
        let sql = "SELECT g, median(x) AS m, quantile_cont(x, 0.9) AS q90, count(*) AS n, \
                   quantile_cont(x, 0.99), median(y), quantile_cont(y, 0.5) AS qy, \
                   quantile_cont(x, 0.5) FILTER (WHERE y > 10) AS qf, \
                   median(x) FILTER (WHERE y > 10) AS mf, sum(y) AS s \
                   FROM t GROUP BY g ORDER BY g";
        let run = |share| async move {
            let ctx = context(share);
            let df = ctx.sql(sql).await.unwrap();
            let plan = format!("{}", df.logical_plan().display_indent());
            let batches = df.collect().await.unwrap();
            (plan, batches)
        };
        let (plain_plan, plain) = run(false).await;
        let (shared_plan, shared) = run(true).await;
        assert!(!plain_plan.contains("holistic("), "{plain_plan}");
        let optimized = context(true)
            .sql(sql)
            .await
            .unwrap()
            .into_optimized_plan()
            .unwrap();
        let text = format!("{}", optimized.display_indent());
        let aggregate = text.lines().find(|l| l.contains("Aggregate:")).unwrap();
        // x, y, and x under the FILTER: three shared aggregates, and nothing else holistic.
        assert_eq!(
            aggregate.matches("holistic(").count(),
            3,
            "{shared_plan}\n{text}"
        );
        assert!(
            !aggregate.contains("median") && !aggregate.contains("quantile"),
            "{text}"
        );
        assert_eq!(plain[0].schema(), shared[0].schema());
        let (a, b) = (
            datafusion::arrow::compute::concat_batches(&plain[0].schema(), &plain).unwrap(),
            datafusion::arrow::compute::concat_batches(&shared[0].schema(), &shared).unwrap(),
        );
        assert_eq!(a.num_rows(), 13);
        for c in 0..a.num_columns() {
            assert_eq!(a.column(c).to_data(), b.column(c).to_data(), "column {c}");
        }
    }
}
