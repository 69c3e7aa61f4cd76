//! Model values → Arrow record batches, one function per table, columns in schema order.

use std::iter::once;
use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, StringArray,
    TimestampMicrosecondArray,
};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;

use super::schema::{SCHEMA_VERSION, Table};
use crate::model::{
    AlertEvent, Annotation, Artifact, CpuSample, Metric, Request, Run, ScrapeSample, Stack, Trial,
    params_json,
};

fn strs<'a>(it: impl Iterator<Item = &'a str>) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(it))
}
fn opt_strs<'a>(it: impl Iterator<Item = Option<&'a str>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(it))
}
fn i32s(it: impl Iterator<Item = i32>) -> ArrayRef {
    Arc::new(Int32Array::from_iter_values(it))
}
fn opt_i32s(it: impl Iterator<Item = Option<i32>>) -> ArrayRef {
    Arc::new(Int32Array::from_iter(it))
}
fn i64s(it: impl Iterator<Item = i64>) -> ArrayRef {
    Arc::new(Int64Array::from_iter_values(it))
}
fn opt_i64s(it: impl Iterator<Item = Option<i64>>) -> ArrayRef {
    Arc::new(Int64Array::from_iter(it))
}
fn f64s(it: impl Iterator<Item = f64>) -> ArrayRef {
    Arc::new(Float64Array::from_iter_values(it))
}
fn bools(it: impl Iterator<Item = bool>) -> ArrayRef {
    Arc::new(BooleanArray::from_iter(it.map(Some)))
}
fn opt_bools(it: impl Iterator<Item = Option<bool>>) -> ArrayRef {
    Arc::new(BooleanArray::from_iter(it))
}
fn ts(it: impl Iterator<Item = Option<i64>>) -> ArrayRef {
    Arc::new(TimestampMicrosecondArray::from_iter(it).with_timezone("UTC"))
}

fn batch(table: Table, columns: Vec<ArrayRef>) -> Result<RecordBatch, ArrowError> {
    RecordBatch::try_new(table.schema(), columns)
}

pub fn runs(run: &Run) -> Result<RecordBatch, ArrowError> {
    let labels = serde_json::to_string(&run.labels).expect("labels serialise");
    batch(
        Table::Runs,
        vec![
            strs(once(run.run_id.as_str())),
            ts(once(Some(run.started_at_us))),
            ts(once(Some(run.finished_at_us))),
            ts(once(Some(run.ingested_at_us))),
            strs(once(run.source.as_str())),
            opt_strs(once(run.git_commit.as_deref())),
            opt_strs(once(run.git_branch.as_deref())),
            opt_bools(once(run.git_dirty)),
            opt_strs(once(run.host.as_deref())),
            opt_strs(once(run.env_fingerprint.as_deref())),
            strs(once(run.env.as_str())),
            strs(once(labels.as_str())),
            strs(once(run.input_digest.as_str())),
            strs(once(run.status.as_str())),
            i32s(once(SCHEMA_VERSION)),
        ],
    )
}

pub fn trials(run_id: &str, rows: &[Trial]) -> Result<RecordBatch, ArrowError> {
    let params: Vec<String> = rows.iter().map(|t| params_json(&t.params)).collect();
    batch(
        Table::Trials,
        vec![
            strs(rows.iter().map(|_| run_id)),
            i32s(rows.iter().map(|t| t.trial_id)),
            strs(rows.iter().map(|t| t.arm.as_str())),
            strs(params.iter().map(String::as_str)),
            i32s(rows.iter().map(|t| t.repeat)),
            i32s(rows.iter().map(|t| t.seq)),
            strs(rows.iter().map(|t| t.phase.as_str())),
            bools(rows.iter().map(|t| t.discarded)),
            opt_strs(rows.iter().map(|t| t.discard_reason.as_deref())),
            opt_i64s(rows.iter().map(|t| t.concurrency)),
            opt_i32s(rows.iter().map(|t| t.exit_code)),
            strs(rows.iter().map(|t| t.status.as_str())),
            opt_strs(rows.iter().map(|t| t.stderr_tail.as_deref())),
            ts(rows.iter().map(|t| t.started_at_us)),
            ts(rows.iter().map(|t| t.finished_at_us)),
            opt_i64s(rows.iter().map(|t| t.wall_ns)),
            opt_strs(rows.iter().map(|t| t.containment.as_deref())),
            opt_i64s(rows.iter().map(|t| t.usage.map(|u| u.peak_rss_bytes))),
            opt_i64s(
                rows.iter()
                    .map(|t| t.usage.and_then(|u| u.cgroup_memory_peak_bytes)),
            ),
            opt_i64s(rows.iter().map(|t| t.usage.map(|u| u.user_cpu_ns))),
            opt_i64s(rows.iter().map(|t| t.usage.map(|u| u.system_cpu_ns))),
            opt_i64s(
                rows.iter()
                    .map(|t| t.usage.map(|u| u.voluntary_ctx_switches)),
            ),
            opt_i64s(
                rows.iter()
                    .map(|t| t.usage.map(|u| u.involuntary_ctx_switches)),
            ),
            opt_i64s(rows.iter().map(|t| t.usage.map(|u| u.major_faults))),
            opt_i64s(rows.iter().map(|t| t.usage.map(|u| u.minor_faults))),
        ],
    )
}

pub fn metrics(run_id: &str, rows: &[Metric]) -> Result<RecordBatch, ArrowError> {
    batch(
        Table::Metrics,
        vec![
            strs(rows.iter().map(|_| run_id)),
            i32s(rows.iter().map(|m| m.trial_id)),
            strs(rows.iter().map(|m| m.name.as_str())),
            f64s(rows.iter().map(|m| m.value)),
            strs(rows.iter().map(|m| m.unit.as_str())),
            strs(rows.iter().map(|m| m.better.as_str())),
            strs(rows.iter().map(|m| m.origin.as_str())),
            opt_strs(rows.iter().map(|m| m.version.as_deref())),
        ],
    )
}

pub fn requests(run_id: &str, rows: &[Request]) -> Result<RecordBatch, ArrowError> {
    batch(
        Table::Requests,
        vec![
            strs(rows.iter().map(|_| run_id)),
            i32s(rows.iter().map(|r| r.trial_id)),
            opt_strs(rows.iter().map(|r| r.phase.map(|p| p.as_str()))),
            opt_i64s(rows.iter().map(|r| r.credit_ns)),
            i64s(rows.iter().map(|r| r.start_ns)),
            opt_i64s(rows.iter().map(|r| r.end_ns)),
            opt_i64s(rows.iter().map(|r| r.ttft_ns)),
            opt_i64s(rows.iter().map(|r| r.itl_ns)),
            opt_i64s(rows.iter().map(|r| r.latency_ns)),
            opt_i64s(rows.iter().map(|r| r.input_tokens)),
            opt_i64s(rows.iter().map(|r| r.output_tokens)),
            opt_i32s(rows.iter().map(|r| r.error_code)),
            opt_strs(rows.iter().map(|r| r.error_type.as_deref())),
            bools(rows.iter().map(|r| r.cancelled)),
            opt_strs(rows.iter().map(|r| r.worker_id.as_deref())),
        ],
    )
}

pub fn cpu_samples(run_id: &str, rows: &[CpuSample]) -> Result<RecordBatch, ArrowError> {
    batch(
        Table::CpuSamples,
        vec![
            strs(rows.iter().map(|_| run_id)),
            i32s(rows.iter().map(|s| s.trial_id)),
            i64s(rows.iter().map(|s| s.t_ns)),
            strs(rows.iter().map(|s| s.scope.as_str())),
            i64s(rows.iter().map(|s| s.user_ticks)),
            i64s(rows.iter().map(|s| s.system_ticks)),
            i64s(rows.iter().map(|s| s.idle_ticks)),
            i64s(rows.iter().map(|s| s.total_ticks)),
        ],
    )
}

pub fn scrape_samples(run_id: &str, rows: &[ScrapeSample]) -> Result<RecordBatch, ArrowError> {
    batch(
        Table::ScrapeSamples,
        vec![
            strs(rows.iter().map(|_| run_id)),
            i32s(rows.iter().map(|s| s.trial_id)),
            i64s(rows.iter().map(|s| s.t_ns)),
            strs(rows.iter().map(|s| s.target.as_str())),
            strs(rows.iter().map(|s| s.family.as_str())),
            strs(rows.iter().map(|s| s.kind.as_str())),
            strs(rows.iter().map(|s| s.name.as_str())),
            strs(rows.iter().map(|s| s.labels.as_str())),
            Arc::new(Float64Array::from_iter(rows.iter().map(|s| s.le))),
            f64s(rows.iter().map(|s| s.value)),
        ],
    )
}

pub fn stacks(run_id: &str, rows: &[Stack]) -> Result<RecordBatch, ArrowError> {
    batch(
        Table::Stacks,
        vec![
            strs(rows.iter().map(|_| run_id)),
            i32s(rows.iter().map(|s| s.trial_id)),
            strs(rows.iter().map(|s| s.target.as_str())),
            strs(rows.iter().map(|s| s.kind.as_str())),
            strs(rows.iter().map(|s| s.stack.as_str())),
            f64s(rows.iter().map(|s| s.weight)),
        ],
    )
}

pub fn artifacts(run_id: &str, rows: &[Artifact]) -> Result<RecordBatch, ArrowError> {
    batch(
        Table::Artifacts,
        vec![
            strs(rows.iter().map(|_| run_id)),
            opt_i32s(rows.iter().map(|a| a.trial_id)),
            strs(rows.iter().map(|a| a.name.as_str())),
            strs(rows.iter().map(|a| a.sha256.as_str())),
            i64s(rows.iter().map(|a| a.bytes)),
            strs(rows.iter().map(|a| a.stored_path.as_str())),
        ],
    )
}

pub fn annotations(rows: &[Annotation]) -> Result<RecordBatch, ArrowError> {
    batch(
        Table::Annotations,
        vec![
            strs(rows.iter().map(|a| a.run_id.as_str())),
            ts(rows.iter().map(|a| Some(a.at_us))),
            strs(rows.iter().map(|a| a.text.as_str())),
        ],
    )
}

pub fn alert_events(rows: &[AlertEvent]) -> Result<RecordBatch, ArrowError> {
    let params: Vec<String> = rows.iter().map(|a| params_json(&a.params)).collect();
    batch(
        Table::Alerts,
        vec![
            strs(rows.iter().map(|a| a.alert_id.as_str())),
            strs(rows.iter().map(|a| a.run_id.as_str())),
            strs(rows.iter().map(|a| a.metric.as_str())),
            strs(rows.iter().map(|a| a.arm.as_str())),
            strs(params.iter().map(String::as_str)),
            Arc::new(StringArray::from(
                rows.iter()
                    .map(|a| a.git_commit.as_deref())
                    .collect::<Vec<_>>(),
            )),
            Arc::new(Float64Array::from(
                rows.iter().map(|a| a.magnitude).collect::<Vec<_>>(),
            )),
            Arc::new(BooleanArray::from(
                rows.iter().map(|a| a.regression).collect::<Vec<_>>(),
            )),
            strs(rows.iter().map(|a| a.state.as_str())),
            strs(rows.iter().map(|a| a.note.as_str())),
            ts(rows.iter().map(|a| Some(a.at_us))),
        ],
    )
}
