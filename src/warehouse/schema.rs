//! The one place where the warehouse's Arrow schemas live (schema v1).
//!
//! Every table is Hive-partitioned by `suite`; the partition column lives in the path only, so
//! none of these schemas carries it. New columns must be nullable so old files stay readable.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};

/// Written into every `runs` row.
pub const SCHEMA_VERSION: i32 = 1;

/// The tables of the warehouse, in the order a run's files are written (`runs` last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    Trials,
    Metrics,
    Requests,
    CpuSamples,
    /// Samples of the servers' Prometheus metrics (`[[scrape]]`).
    ScrapeSamples,
    Stacks,
    Artifacts,
    Annotations,
    /// Triage events of alerts (a change point's state: new → acknowledged, invalid, fixed,
    /// accepted); see `query::alerts`.
    Alerts,
    Runs,
}

impl Table {
    /// Every table, `runs` last: the order appends write them in (a run is visible only once
    /// its `runs` row lands).
    pub const ALL: [Table; 10] = [
        Table::Trials,
        Table::Metrics,
        Table::Requests,
        Table::CpuSamples,
        Table::ScrapeSamples,
        Table::Stacks,
        Table::Artifacts,
        Table::Annotations,
        Table::Alerts,
        Table::Runs,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Table::Runs => "runs",
            Table::Trials => "trials",
            Table::Metrics => "metrics",
            Table::Requests => "requests",
            Table::CpuSamples => "cpu_samples",
            Table::ScrapeSamples => "scrape_samples",
            Table::Stacks => "stacks",
            Table::Artifacts => "artifacts",
            Table::Annotations => "annotations",
            Table::Alerts => "alerts",
        }
    }

    /// The schema of the Parquet files (without the `suite` partition column).
    pub fn schema(self) -> SchemaRef {
        let fields = match self {
            Table::Runs => runs_fields(),
            Table::Trials => trials_fields(),
            Table::Metrics => metrics_fields(),
            Table::Requests => requests_fields(),
            Table::CpuSamples => cpu_samples_fields(),
            Table::ScrapeSamples => scrape_samples_fields(),
            Table::Stacks => stacks_fields(),
            Table::Artifacts => artifacts_fields(),
            Table::Annotations => annotations_fields(),
            Table::Alerts => alerts_fields(),
        };
        Arc::new(Schema::new(fields))
    }
}

/// A column of a table: its name, type and whether it may be NULL.
fn f(name: &str, data_type: DataType, nullable: bool) -> Field {
    Field::new(name, data_type, nullable)
}

/// A timestamp column's type: microseconds, UTC.
fn ts() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

/// The columns of `runs`, in the order its files hold them.
fn runs_fields() -> Vec<Field> {
    vec![
        f("run_id", DataType::Utf8, false),
        f("started_at", ts(), false),
        f("finished_at", ts(), false),
        f("ingested_at", ts(), false),
        f("source", DataType::Utf8, false),
        f("git_commit", DataType::Utf8, true),
        f("git_branch", DataType::Utf8, true),
        f("git_dirty", DataType::Boolean, true),
        f("host", DataType::Utf8, true),
        f("env_fingerprint", DataType::Utf8, true),
        f("env", DataType::Utf8, false),
        f("labels", DataType::Utf8, false),
        f("input_digest", DataType::Utf8, false),
        f("status", DataType::Utf8, false),
        f("schema_version", DataType::Int32, false),
    ]
}

/// The columns of `trials`, in the order its files hold them.
fn trials_fields() -> Vec<Field> {
    vec![
        f("run_id", DataType::Utf8, false),
        f("trial_id", DataType::Int32, false),
        f("arm", DataType::Utf8, false),
        f("params", DataType::Utf8, false),
        f("repeat", DataType::Int32, false),
        f("seq", DataType::Int32, false),
        f("phase", DataType::Utf8, false),
        f("discarded", DataType::Boolean, false),
        f("discard_reason", DataType::Utf8, true),
        f("concurrency", DataType::Int64, true),
        f("exit_code", DataType::Int32, true),
        f("status", DataType::Utf8, false),
        f("stderr_tail", DataType::Utf8, true),
        f("started_at", ts(), true),
        f("finished_at", ts(), true),
        f("wall_ns", DataType::Int64, true),
        // Added after v1; files written before it lack it and read it as NULL.
        f("containment", DataType::Utf8, true),
        // Added after v1 (nullable; older files and ingested trials read NULL): the
        // measured command's resource usage (`model::Usage`): `wait4`'s rusage and the
        // trial cgroup's memory.peak.
        f("peak_rss_bytes", DataType::Int64, true),
        f("cgroup_memory_peak_bytes", DataType::Int64, true),
        f("user_cpu_ns", DataType::Int64, true),
        f("system_cpu_ns", DataType::Int64, true),
        f("voluntary_ctx_switches", DataType::Int64, true),
        f("involuntary_ctx_switches", DataType::Int64, true),
        f("major_faults", DataType::Int64, true),
        f("minor_faults", DataType::Int64, true),
    ]
}

/// The columns of `metrics`, in the order its files hold them.
fn metrics_fields() -> Vec<Field> {
    vec![
        f("run_id", DataType::Utf8, false),
        f("trial_id", DataType::Int32, false),
        f("name", DataType::Utf8, false),
        f("value", DataType::Float64, false),
        f("unit", DataType::Utf8, false),
        f("better", DataType::Utf8, false),
        f("origin", DataType::Utf8, false),
        // Added after v1 (nullable; older files read NULL): the benchmark code version.
        f("version", DataType::Utf8, true),
    ]
}

/// The columns of `requests`, in the order its files hold them.
fn requests_fields() -> Vec<Field> {
    vec![
        f("run_id", DataType::Utf8, false),
        f("trial_id", DataType::Int32, false),
        f("phase", DataType::Utf8, true),
        f("credit_ns", DataType::Int64, true),
        f("start_ns", DataType::Int64, false),
        f("end_ns", DataType::Int64, true),
        f("ttft_ns", DataType::Int64, true),
        f("itl_ns", DataType::Int64, true),
        f("latency_ns", DataType::Int64, true),
        f("input_tokens", DataType::Int64, true),
        f("output_tokens", DataType::Int64, true),
        f("error_code", DataType::Int32, true),
        f("error_type", DataType::Utf8, true),
        f("cancelled", DataType::Boolean, false),
        f("worker_id", DataType::Utf8, true),
    ]
}

/// The columns of `cpu_samples`, in the order its files hold them.
fn cpu_samples_fields() -> Vec<Field> {
    vec![
        f("run_id", DataType::Utf8, false),
        f("trial_id", DataType::Int32, false),
        f("t_ns", DataType::Int64, false),
        f("scope", DataType::Utf8, false),
        f("user_ticks", DataType::Int64, false),
        f("system_ticks", DataType::Int64, false),
        f("idle_ticks", DataType::Int64, false),
        f("total_ticks", DataType::Int64, false),
    ]
}

/// The columns of `scrape_samples`, in the order its files hold them.
fn scrape_samples_fields() -> Vec<Field> {
    vec![
        f("run_id", DataType::Utf8, false),
        f("trial_id", DataType::Int32, false),
        f("t_ns", DataType::Int64, false),
        f("target", DataType::Utf8, false),
        f("family", DataType::Utf8, false),
        f("kind", DataType::Utf8, false),
        f("name", DataType::Utf8, false),
        f("labels", DataType::Utf8, false),
        f("le", DataType::Float64, true),
        f("value", DataType::Float64, false),
    ]
}

/// The columns of `stacks`, in the order its files hold them.
fn stacks_fields() -> Vec<Field> {
    vec![
        f("run_id", DataType::Utf8, false),
        f("trial_id", DataType::Int32, false),
        f("target", DataType::Utf8, false),
        f("kind", DataType::Utf8, false),
        f("stack", DataType::Utf8, false),
        f("weight", DataType::Float64, false),
    ]
}

/// The columns of `artifacts`, in the order its files hold them.
fn artifacts_fields() -> Vec<Field> {
    vec![
        f("run_id", DataType::Utf8, false),
        f("trial_id", DataType::Int32, true),
        f("name", DataType::Utf8, false),
        f("sha256", DataType::Utf8, false),
        f("bytes", DataType::Int64, false),
        f("stored_path", DataType::Utf8, false),
    ]
}

/// The columns of `annotations`, in the order its files hold them.
fn annotations_fields() -> Vec<Field> {
    vec![
        f("run_id", DataType::Utf8, false),
        f("at", ts(), false),
        f("text", DataType::Utf8, false),
    ]
}

/// The columns of `alerts`, in the order its files hold them.
fn alerts_fields() -> Vec<Field> {
    vec![
        f("alert_id", DataType::Utf8, false),
        // The first run at the new level.
        f("run_id", DataType::Utf8, false),
        f("metric", DataType::Utf8, false),
        f("arm", DataType::Utf8, false),
        f("params", DataType::Utf8, false),
        f("git_commit", DataType::Utf8, true),
        f("magnitude", DataType::Float64, false),
        f("regression", DataType::Boolean, false),
        f("state", DataType::Utf8, false),
        f("note", DataType::Utf8, false),
        f("at", ts(), false),
    ]
}
