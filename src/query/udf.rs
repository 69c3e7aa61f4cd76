//! `quantile_cont(x, p)`: the exact continuous quantile with linear interpolation between the
//! closest ranks, as DuckDB's `quantile_cont` and numpy's default `percentile` compute it:
//! `v[⌊h⌋] + (h − ⌊h⌋)·(v[⌈h⌉] − v[⌊h⌋])` with `h = p·(n − 1)` over the sorted values.
//!
//! Why not DataFusion's `percentile_cont`: it quantises the interpolation weight to 1e-6 and
//! truncates (p99 of 100, 200, 300, 400 ms gives 396.9999 ms, DuckDB 397), so published
//! percentiles would not match the tools engineers check them against.

use std::sync::Arc;

use crate::stats::quantile_cont;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, Float64Array, ListArray};
use datafusion::arrow::buffer::{BooleanBuffer, OffsetBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Float64Type, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{Result, ScalarValue, plan_err};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, ColumnarValue, EmitTo, GroupsAccumulator,
    Signature, Volatility,
};

#[derive(Debug, PartialEq, Eq, Hash)]
struct QuantileCont {
    signature: Signature,
}

pub fn quantile_cont_udaf() -> AggregateUDF {
    AggregateUDF::from(QuantileCont {
        signature: Signature::uniform(2, vec![DataType::Float64], Volatility::Immutable),
    })
}

impl AggregateUDFImpl for QuantileCont {
    fn name(&self) -> &str {
        "quantile_cont"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }
    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(values_state(&args))
    }
    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(QuantileAcc {
            p: percentile(&args)?,
            values: Vec::new(),
        }))
    }
    fn groups_accumulator_supported(&self, _: AccumulatorArgs) -> bool {
        true
    }
    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(HolisticGroups::new(Holistic::Quantile(
            percentile(&args)?,
        ))))
    }
}

/// The state of a holistic aggregate: every value, as one list of `f64`.
fn values_state(args: &StateFieldsArgs) -> Vec<FieldRef> {
    let item = Field::new_list_field(DataType::Float64, true);
    vec![
        Field::new(
            format!("{}[values]", args.name),
            DataType::List(Arc::new(item)),
            true,
        )
        .into(),
    ]
}

/// The constant `p` of `quantile_cont(x, p)`.
fn percentile(args: &AccumulatorArgs) -> Result<f64> {
    // A constant evaluates without input rows; a column would not.
    let empty = RecordBatch::new_empty(Arc::new(Schema::empty()));
    let p = args
        .exprs
        .get(1)
        .and_then(|e| match e.evaluate(&empty).ok()? {
            ColumnarValue::Scalar(ScalarValue::Float64(Some(p))) => Some(p),
            _ => None,
        });
    match p {
        Some(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => plan_err!("quantile_cont(x, p): p must be a constant between 0 and 1"),
    }
}

/// A list array of f64 lists: list `i` is `flat[offsets[i]..offsets[i + 1]]`.
fn list_from(offsets: Vec<i32>, flat: Vec<f64>) -> ListArray {
    ListArray::new(
        Arc::new(Field::new_list_field(DataType::Float64, true)),
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Arc::new(Float64Array::from(flat)),
        None,
    )
}

fn list_of(values: Vec<f64>) -> ListArray {
    list_from(vec![0, values.len() as i32], values)
}

/// Every group's values in one arena of 1 MiB blocks, each group a list of segments of it.
/// A `Vec` per group doubles and copies as it grows, so 10,000 values sit in room for 16,384
/// after 8 copies: at 100 million rows, gigabytes of fresh pages the kernel must zero. Here a
/// value takes its 8 bytes and is written once; rows of a group arrive in runs (tables are
/// written run by run), so a segment usually spans a whole batch.
#[derive(Debug, Default)]
struct Arena {
    blocks: Vec<Vec<f64>>,
    groups: Vec<Vec<Segment>>,
}

#[derive(Debug, Clone, Copy)]
struct Segment {
    block: u32,
    start: u32,
    len: u32,
}

impl Arena {
    const BLOCK: usize = 1 << 17;

    fn resize(&mut self, groups: usize) {
        self.groups.resize_with(groups, Vec::new);
    }

    fn extend(&mut self, group: usize, mut values: &[f64]) {
        while !values.is_empty() {
            if self.blocks.last().is_none_or(|b| b.len() == b.capacity()) {
                self.blocks.push(Vec::with_capacity(Self::BLOCK));
            }
            let block = self.blocks.len() - 1;
            let b = &mut self.blocks[block];
            let start = b.len();
            let n = (b.capacity() - start).min(values.len());
            b.extend_from_slice(&values[..n]);
            values = &values[n..];
            let segments = &mut self.groups[group];
            match segments.last_mut() {
                Some(s) if s.block as usize == block && (s.start + s.len) as usize == start => {
                    s.len += n as u32
                }
                _ => segments.push(Segment {
                    block: block as u32,
                    start: start as u32,
                    len: n as u32,
                }),
            }
        }
    }

    /// The first groups `emit` asks for, each as a list of segments into `self.blocks`; for
    /// `EmitTo::First` the groups left are copied into fresh blocks first (the emitted ones'
    /// blocks must stay until the caller has read them), so memory follows what is kept.
    fn take(&mut self, emit: EmitTo) -> (Vec<Vec<f64>>, Vec<Vec<Segment>>) {
        let taken = emit.take_needed(&mut self.groups);
        let left = std::mem::take(&mut self.groups);
        let blocks = std::mem::take(&mut self.blocks);
        self.resize(left.len());
        for (g, segments) in left.iter().enumerate() {
            for run in segment_values(&blocks, segments) {
                self.extend(g, run);
            }
        }
        (blocks, taken)
    }

    fn size(&self) -> usize {
        self.blocks.len() * Self::BLOCK * std::mem::size_of::<f64>()
            + self.groups.capacity() * std::mem::size_of::<Vec<Segment>>()
            + self
                .groups
                .iter()
                .map(|g| g.capacity() * std::mem::size_of::<Segment>())
                .sum::<usize>()
    }
}

/// The values of a group's `segments` in `blocks`, run by run.
fn segment_values<'a>(
    blocks: &'a [Vec<f64>],
    segments: &'a [Segment],
) -> impl Iterator<Item = &'a [f64]> {
    segments.iter().map(|s| {
        let start = s.start as usize;
        &blocks[s.block as usize][start..start + s.len as usize]
    })
}

/// What a holistic groups accumulator computes from a group's values.
#[derive(Debug, Clone, Copy)]
enum Holistic {
    Quantile(f64),
    /// DataFusion's `median`, to the last bit: the middle value, or the mean of the two.
    Median,
}

impl Holistic {
    fn of(self, values: &mut [f64]) -> Option<f64> {
        match self {
            Holistic::Quantile(p) => quantile_cont(values, p),
            Holistic::Median => median(values),
        }
    }
}

/// DataFusion 55's `calculate_median` for `f64` (median.rs): the value at `len / 2` by
/// selection under `total_cmp`, and for an even count `(max of the lower half + it) / 2`.
fn median(values: &mut [f64]) -> Option<f64> {
    let len = values.len();
    if len == 0 {
        return None;
    }
    let (low, &mut high, _) = values.select_nth_unstable_by(len / 2, |x, y| x.total_cmp(y));
    if len % 2 == 1 {
        return Some(high);
    }
    let left_max = low
        .iter()
        .copied()
        .max_by(|x, y| x.total_cmp(y))
        .expect("an even count has a lower half");
    Some((left_max + high) / 2.0)
}

/// All groups' values in one place: DataFusion hands each batch over once with a group index
/// per row, instead of slicing it per group as it must for a plain `Accumulator`.
/// With more than one statistic (`SharedHolistic`) the result is a struct of them, fields
/// `"0"`, `"1"`, …: several quantiles of one column share one copy of its values.
#[derive(Debug)]
struct HolisticGroups {
    stats: Vec<Holistic>,
    arena: Arena,
    run: Vec<f64>,
}

impl HolisticGroups {
    fn new(stat: Holistic) -> Self {
        Self::shared(vec![stat])
    }

    fn shared(stats: Vec<Holistic>) -> Self {
        HolisticGroups {
            stats,
            arena: Arena::default(),
            run: Vec::new(),
        }
    }
}

/// The struct fields of a shared holistic aggregate's result: one `Float64` per statistic.
fn shared_fields(n: usize) -> datafusion::arrow::datatypes::Fields {
    (0..n)
        .map(|i| Field::new(i.to_string(), DataType::Float64, true))
        .collect()
}

impl GroupsAccumulator for HolisticGroups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.arena.resize(total_num_groups);
        let v = values[0].as_primitive::<Float64Type>();
        let dense = v.null_count() == 0 && opt_filter.is_none();
        let raw = v.values();
        let mut row = 0;
        while row < group_indices.len() {
            let g = group_indices[row];
            let mut end = row + 1;
            while end < group_indices.len() && group_indices[end] == g {
                end += 1;
            }
            if dense {
                self.arena.extend(g, &raw[row..end]);
            } else {
                self.run.clear();
                self.run.extend(
                    (row..end)
                        .filter(|&r| {
                            v.is_valid(r) && opt_filter.is_none_or(|f| f.is_valid(r) && f.value(r))
                        })
                        .map(|r| v.value(r)),
                );
                self.arena.extend(g, &self.run);
            }
            row = end;
        }
        Ok(())
    }
    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let (blocks, taken) = self.arena.take(emit_to);
        let mut scratch = std::mem::take(&mut self.run);
        let mut out: Vec<Vec<Option<f64>>> =
            vec![Vec::with_capacity(taken.len()); self.stats.len()];
        for segments in &taken {
            scratch.clear();
            for run in segment_values(&blocks, segments) {
                scratch.extend_from_slice(run);
            }
            // Selection reorders the values, which leaves every order statistic where it was.
            for (stat, out) in self.stats.iter().zip(&mut out) {
                out.push(stat.of(&mut scratch));
            }
        }
        scratch.clear();
        self.run = scratch;
        let mut columns: Vec<ArrayRef> = out
            .into_iter()
            .map(|c| Arc::new(Float64Array::from(c)) as ArrayRef)
            .collect();
        if columns.len() == 1 {
            return Ok(columns.pop().expect("one column"));
        }
        let fields = shared_fields(columns.len());
        Ok(Arc::new(datafusion::arrow::array::StructArray::new(
            fields, columns, None,
        )))
    }
    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let (blocks, taken) = self.arena.take(emit_to);
        let mut offsets = Vec::with_capacity(taken.len() + 1);
        offsets.push(0i32);
        let total = taken.iter().flatten().map(|s| s.len as usize).sum();
        let mut flat = Vec::with_capacity(total);
        for segments in &taken {
            for run in segment_values(&blocks, segments) {
                flat.extend_from_slice(run);
            }
            offsets.push(flat.len() as i32);
        }
        Ok(vec![Arc::new(list_from(offsets, flat))])
    }
    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.arena.resize(total_num_groups);
        let lists = values[0].as_list::<i32>();
        for (row, &g) in group_indices.iter().enumerate() {
            if lists.is_valid(row) {
                let items = lists.value(row);
                let items = items.as_primitive::<Float64Type>();
                self.run.clear();
                self.run.extend(items.iter().flatten());
                self.arena.extend(g, &self.run);
            }
        }
        Ok(())
    }
    /// Each input row as a state of its own: a one-value list (empty when NULL or filtered).
    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let v = values[0].as_primitive::<Float64Type>();
        let mut offsets = Vec::with_capacity(v.len() + 1);
        offsets.push(0i32);
        let mut flat = Vec::with_capacity(v.len());
        for row in 0..v.len() {
            if v.is_valid(row) && opt_filter.is_none_or(|f| f.is_valid(row) && f.value(row)) {
                flat.push(v.value(row));
            }
            offsets.push(flat.len() as i32);
        }
        Ok(vec![Arc::new(list_from(offsets, flat))])
    }
    fn size(&self) -> usize {
        self.arena.size() + self.run.capacity() * std::mem::size_of::<f64>()
    }
}

/// Several holistic statistics of one column in one aggregate: what
/// `holistic::ShareHolistic` makes of `median(x)`, `quantile_cont(x, 0.9)`,
/// `quantile_cont(x, 0.99)` in one `GROUP BY`. It returns a struct with one field per statistic
/// (fields `"0"`, `"1"`, …), and its state is the values once, not once per statistic.
#[derive(Debug)]
pub struct SharedHolistic {
    signature: Signature,
    stats: Vec<Holistic>,
}

impl PartialEq for SharedHolistic {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl Eq for SharedHolistic {}
impl std::hash::Hash for SharedHolistic {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state)
    }
}

impl SharedHolistic {
    pub const NAME: &'static str = "holistic";

    fn key(&self) -> Vec<u64> {
        self.stats
            .iter()
            .map(|s| match s {
                Holistic::Quantile(p) => p.to_bits(),
                Holistic::Median => u64::MAX,
            })
            .collect()
    }

    /// The shared aggregate of `stats`, each `Some(p)` for `quantile_cont(x, p)` and `None`
    /// for `median(x)`.
    pub fn udaf(stats: &[Option<f64>]) -> AggregateUDF {
        AggregateUDF::from(SharedHolistic {
            signature: Signature::exact(vec![DataType::Float64], Volatility::Immutable),
            stats: stats
                .iter()
                .map(|s| s.map_or(Holistic::Median, Holistic::Quantile))
                .collect(),
        })
    }
}

impl AggregateUDFImpl for SharedHolistic {
    fn name(&self) -> &str {
        Self::NAME
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Struct(shared_fields(self.stats.len())))
    }
    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(values_state(&args))
    }
    fn accumulator(&self, _: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        // The rule rewrites grouped aggregates only, which use the groups accumulator.
        plan_err!("holistic(x) is only planned for GROUP BY")
    }
    fn groups_accumulator_supported(&self, _: AccumulatorArgs) -> bool {
        true
    }
    fn create_groups_accumulator(&self, _: AccumulatorArgs) -> Result<Box<dyn GroupsAccumulator>> {
        Ok(Box::new(HolisticGroups::shared(self.stats.clone())))
    }
}

/// DataFusion's `median` with [`HolisticGroups`] for `f64` input (integers are coerced to
/// `f64` by its signature, so that is every `median` over latencies and counts); every other
/// type, DISTINCT, and the ungrouped case stay DataFusion's.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Median(datafusion::functions_aggregate::median::Median);

pub fn median_udaf() -> AggregateUDF {
    AggregateUDF::from(Median(
        datafusion::functions_aggregate::median::Median::new(),
    ))
}

impl AggregateUDFImpl for Median {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn signature(&self) -> &Signature {
        self.0.signature()
    }
    fn return_type(&self, args: &[DataType]) -> Result<DataType> {
        self.0.return_type(args)
    }
    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        self.0.state_fields(args)
    }
    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        self.0.accumulator(args)
    }
    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        self.0.groups_accumulator_supported(args)
    }
    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        if args.expr_fields[0].data_type() == &DataType::Float64 {
            Ok(Box::new(HolisticGroups::new(Holistic::Median)))
        } else {
            self.0.create_groups_accumulator(args)
        }
    }
    fn documentation(&self) -> Option<&datafusion::logical_expr::Documentation> {
        self.0.documentation()
    }
}

#[derive(Debug)]
struct QuantileAcc {
    p: f64,
    values: Vec<f64>,
}

impl Accumulator for QuantileAcc {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let v = values[0].as_primitive::<Float64Type>();
        self.values.extend(v.iter().flatten());
        Ok(())
    }
    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        for list in states[0].as_list::<i32>().iter().flatten() {
            self.values
                .extend(list.as_primitive::<Float64Type>().iter().flatten());
        }
        Ok(())
    }
    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![ScalarValue::List(Arc::new(list_of(std::mem::take(
            &mut self.values,
        ))))])
    }
    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::Float64(quantile_cont(
            &mut self.values,
            self.p,
        )))
    }
    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.values.capacity() * std::mem::size_of::<f64>()
    }
}

/// `committed(run_id)`: whether the run is in the session's snapshot of `raw_runs`, read once
/// when the session opens (`Query::open`). perfhouse evaluates the committed-runs views'
/// `t.run_id IN (SELECT run_id FROM raw_runs)` through it: the same rows (the snapshot is also
/// what `raw_runs` reads in that session), without a hash join that probes and copies every
/// row. Rows of one run come in runs of their own, so a row whose id is the previous row's
/// (for `Utf8View`, the same 16 view bytes) reuses its answer.
#[derive(Debug)]
pub struct Committed {
    signature: Signature,
    runs: Arc<std::collections::HashSet<String>>,
}

impl PartialEq for Committed {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.runs, &other.runs)
    }
}
impl Eq for Committed {}
impl std::hash::Hash for Committed {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (Arc::as_ptr(&self.runs) as usize).hash(state)
    }
}

pub fn committed_udf(
    runs: std::collections::HashSet<String>,
) -> datafusion::logical_expr::ScalarUDF {
    datafusion::logical_expr::ScalarUDF::from(Committed {
        signature: Signature::uniform(
            1,
            vec![DataType::Utf8View, DataType::Utf8],
            Volatility::Immutable,
        ),
        runs: Arc::new(runs),
    })
}

impl datafusion::logical_expr::ScalarUDFImpl for Committed {
    fn name(&self) -> &str {
        "committed"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Boolean)
    }
    fn invoke_with_args(
        &self,
        args: datafusion::logical_expr::ScalarFunctionArgs,
    ) -> Result<ColumnarValue> {
        Ok(membership(&args.args[0], |id| self.runs.contains(id)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::Int64Array;
    use datafusion::prelude::SessionContext;

    /// Seeded values with repeats, both signs, and a spread of magnitudes.
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) % 1000) as f64 * 0.37 - 120.0 + ((x >> 13) % 7) as f64 * 1e-9
            })
            .collect()
    }

    fn groups(values: &[f64], indices: &[usize], n: usize, stat: Holistic) -> Vec<Option<f64>> {
        let mut acc = HolisticGroups::new(stat);
        let array: ArrayRef = Arc::new(Float64Array::from(values.to_vec()));
        acc.update_batch(&[array], indices, None, n).unwrap();
        let out = acc.evaluate(EmitTo::All).unwrap();
        out.as_primitive::<Float64Type>().iter().collect()
    }

    /// Grouped `median` (ours) and ungrouped `median` (DataFusion's own accumulator) agree to
    /// the bit, for odd and even counts and with NULLs.
    #[tokio::test]
    async fn grouped_median_is_datafusions_median_to_the_bit() {
        for n in [1usize, 2, 7, 10, 1001, 4096] {
            let v = values(n, n as u64);
            let ctx = SessionContext::new();
            ctx.register_udaf(median_udaf());
            let x: Float64Array = v
                .iter()
                .enumerate()
                .map(|(i, &x)| (i % 5 != 3).then_some(x))
                .collect();
            let batch = RecordBatch::try_from_iter([
                ("g", Arc::new(Int64Array::from(vec![1; n])) as ArrayRef),
                ("x", Arc::new(x) as ArrayRef),
            ])
            .unwrap();
            ctx.register_batch("t", batch).unwrap();
            let one = |sql: &'static str| {
                let ctx = ctx.clone();
                async move {
                    let b = ctx.sql(sql).await.unwrap().collect().await.unwrap();
                    let col = b[0].column_by_name("m").unwrap().clone();
                    col.as_primitive::<Float64Type>().value(0)
                }
            };
            let grouped = one("SELECT g, median(x) AS m FROM t GROUP BY g").await;
            let whole = one("SELECT median(x) AS m FROM t").await;
            assert_eq!(grouped.to_bits(), whole.to_bits(), "n = {n}");
        }
    }

    /// Groups interleaved row by row and in long runs, across the arena's block boundary, give
    /// each group's own quantile; `EmitTo::First` hands out the first groups and keeps the rest.
    #[test]
    fn arena_keeps_each_groups_values_across_blocks_and_partial_emits() {
        let n = Arena::BLOCK + 5000;
        let v = values(n, 3);
        // Rows 0..1000 alternate between groups 0 and 1; the rest go in runs of 777 to 0, 1, 2.
        let idx: Vec<usize> = (0..n)
            .map(|i| if i < 1000 { i % 2 } else { (i / 777) % 3 })
            .collect();
        let by_hand = |g: usize, p: f64| {
            let mut mine: Vec<f64> = (0..n).filter(|&i| idx[i] == g).map(|i| v[i]).collect();
            quantile_cont(&mut mine, p)
        };
        let all = groups(&v, &idx, 3, Holistic::Quantile(0.9));
        for (g, got) in all.iter().enumerate() {
            assert_eq!(*got, by_hand(g, 0.9), "group {g}");
        }
        let mut acc = HolisticGroups::new(Holistic::Median);
        let array: ArrayRef = Arc::new(Float64Array::from(v.clone()));
        acc.update_batch(&[array], &idx, None, 3).unwrap();
        let first = acc.evaluate(EmitTo::First(1)).unwrap();
        let rest = acc.evaluate(EmitTo::All).unwrap();
        let median_of = |g| {
            let mut mine: Vec<f64> = (0..n).filter(|&i| idx[i] == g).map(|i| v[i]).collect();
            median(&mut mine)
        };
        assert_eq!(
            first.as_primitive::<Float64Type>().value(0),
            median_of(0).unwrap()
        );
        let rest: Vec<_> = rest.as_primitive::<Float64Type>().iter().collect();
        assert_eq!(rest, vec![median_of(1), median_of(2)]);
        // The state of the groups left holds exactly their values, in order.
        let mut acc = HolisticGroups::new(Holistic::Median);
        let array: ArrayRef = Arc::new(Float64Array::from(v.clone()));
        acc.update_batch(&[array], &idx, None, 3).unwrap();
        acc.evaluate(EmitTo::First(2)).unwrap();
        let state = acc.state(EmitTo::All).unwrap();
        let list = state[0].as_list::<i32>().value(0);
        let got: Vec<f64> = list.as_primitive::<Float64Type>().values().to_vec();
        let want: Vec<f64> = (0..n).filter(|&i| idx[i] == 2).map(|i| v[i]).collect();
        assert_eq!(got, want);
    }

    /// `committed(run_id)` answers from its set, for `Utf8View` and `Utf8` alike, NULL for NULL.
    #[test]
    fn committed_answers_from_the_snapshot() {
        use datafusion::arrow::array::{StringArray, StringViewArray};
        use datafusion::logical_expr::{ScalarFunctionArgs, ScalarUDF};
        let udf: ScalarUDF = committed_udf(["a".to_string(), "c".repeat(40)].into());
        let ids = [
            Some("a"),
            Some("a"),
            None,
            Some("b"),
            Some(&*"c".repeat(40)),
            Some("a"),
        ];
        let want = vec![
            Some(true),
            Some(true),
            None,
            Some(false),
            Some(true),
            Some(true),
        ];
        for array in [
            Arc::new(StringViewArray::from(ids.to_vec())) as ArrayRef,
            Arc::new(StringArray::from(ids.to_vec())) as ArrayRef,
        ] {
            let field = Arc::new(Field::new("run_id", array.data_type().clone(), true));
            let out = udf
                .invoke_with_args(ScalarFunctionArgs {
                    args: vec![ColumnarValue::Array(array)],
                    arg_fields: vec![field],
                    number_rows: ids.len(),
                    return_field: Arc::new(Field::new("c", DataType::Boolean, true)),
                    config_options: Arc::new(Default::default()),
                })
                .unwrap();
            let ColumnarValue::Array(out) = out else {
                panic!("an array in, an array out")
            };
            assert_eq!(out.as_boolean().iter().collect::<Vec<_>>(), want);
        }
    }

    /// `run_in(x, 'a', 'b')` through SQL, on `Utf8View` rows with NULLs, and `runs_in`'s range.
    #[tokio::test]
    async fn run_in_keeps_the_listed_ids() {
        use datafusion::arrow::array::StringViewArray;
        let ctx = SessionContext::new();
        ctx.register_udf(run_in_udf());
        let ids = StringViewArray::from(vec![
            Some("r1"),
            Some("r1"),
            None,
            Some("r2"),
            Some("a-much-longer-run-id-than-twelve-bytes"),
            Some("r3"),
        ]);
        let batch = RecordBatch::try_from_iter([("run_id", Arc::new(ids) as ArrayRef)]).unwrap();
        ctx.register_batch("t", batch).unwrap();
        let keep = ["r1", "a-much-longer-run-id-than-twelve-bytes", "zz"];
        let sql = format!(
            "SELECT count(*) AS n FROM t WHERE {}",
            crate::query::runs_in("run_id", &keep)
        );
        let b = ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        let n = b[0]
            .column(0)
            .as_primitive::<datafusion::arrow::datatypes::Int64Type>();
        assert_eq!(n.value(0), 3, "{sql}");
        assert_eq!(crate::query::runs_in("run_id", &[]), "false");
    }
}

/// Whether the string (or each string of the array) is a member, by `contains`.
fn membership(value: &ColumnarValue, contains: impl Fn(&str) -> bool) -> ColumnarValue {
    match value {
        ColumnarValue::Scalar(s) => {
            let id = match s {
                ScalarValue::Utf8(v) | ScalarValue::Utf8View(v) => v.as_deref(),
                _ => None,
            };
            ColumnarValue::Scalar(ScalarValue::Boolean(id.map(contains)))
        }
        ColumnarValue::Array(a) => ColumnarValue::Array(Arc::new(member_bits(a, contains))),
    }
}

/// Whether each string of `array` is a member, by `contains`; NULL stays NULL. Rows of one run
/// come in runs of their own, so a row whose id is the previous row's (for `Utf8View`, the
/// same 16 view bytes) reuses its answer.
fn member_bits(array: &ArrayRef, contains: impl Fn(&str) -> bool) -> BooleanArray {
    match array.data_type() {
        DataType::Utf8View => {
            let ids = array.as_string_view();
            let views = ids.views();
            let mut last: Option<(u128, bool)> = None;
            let bits = BooleanBuffer::collect_bool(ids.len(), |i| match last {
                Some((view, hit)) if view == views[i] => hit,
                _ => {
                    let hit = contains(ids.value(i));
                    last = Some((views[i], hit));
                    hit
                }
            });
            BooleanArray::new(bits, ids.nulls().cloned())
        }
        DataType::Utf8 => {
            let ids = array.as_string::<i32>();
            let mut last: Option<(&str, bool)> = None;
            let bits = BooleanBuffer::collect_bool(ids.len(), |i| {
                let id = ids.value(i);
                match last {
                    Some((l, hit)) if l == id => hit,
                    _ => {
                        let hit = contains(id);
                        last = Some((id, hit));
                        hit
                    }
                }
            });
            BooleanArray::new(bits, ids.nulls().cloned())
        }
        // The optimizer probes filters with a column of NULLs (`DataType::Null`); any other
        // type is read as text.
        _ => match datafusion::arrow::compute::cast(array, &DataType::Utf8) {
            Ok(text) => member_bits(&text, contains),
            Err(_) => BooleanArray::new_null(array.len()),
        },
    }
}

/// `run_in(run_id, 'id', …)`: whether `run_id` is one of the constant ids that follow (see
/// `query::runs_in`, which pairs it with a range that prunes files by their statistics).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct RunIn {
    signature: Signature,
}

pub fn run_in_udf() -> datafusion::logical_expr::ScalarUDF {
    datafusion::logical_expr::ScalarUDF::from(RunIn {
        signature: Signature::variadic_any(Volatility::Immutable),
    })
}

impl datafusion::logical_expr::ScalarUDFImpl for RunIn {
    fn name(&self) -> &str {
        "run_in"
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(DataType::Boolean)
    }
    fn invoke_with_args(
        &self,
        args: datafusion::logical_expr::ScalarFunctionArgs,
    ) -> Result<ColumnarValue> {
        let mut ids = std::collections::HashSet::new();
        for a in &args.args[1..] {
            match a {
                ColumnarValue::Scalar(ScalarValue::Utf8(Some(id)))
                | ColumnarValue::Scalar(ScalarValue::Utf8View(Some(id))) => {
                    ids.insert(id.as_str());
                }
                ColumnarValue::Scalar(ScalarValue::Utf8(None))
                | ColumnarValue::Scalar(ScalarValue::Utf8View(None)) => {}
                _ => return plan_err!("run_in(run_id, 'id', …): the ids must be string constants"),
            }
        }
        Ok(membership(&args.args[0], |id| ids.contains(id)))
    }
}
