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
//! same parallelism), and each value is held once. The answers are the same (tests/views.rs
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

/// Aggregates whose state is every value.
const HOLISTIC: [&str; 2] = ["quantile_cont", "median"];

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
