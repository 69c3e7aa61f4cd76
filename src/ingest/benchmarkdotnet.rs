//! BenchmarkDotNet JSON export (`JsonExporter.Full`/`Brief`, `*-report-full.json`,
//! `*-report-brief.json`; 0.9.x's older schema too): `{Title, HostEnvironmentInfo,
//! Benchmarks: [{Namespace, Type, Method, Parameters, DisplayInfo, Statistics, Memory?}]}`.
//!
//! Each benchmark is one trial. The arm is `Namespace.Type.Method` (the parts given); its
//! `Parameters` (`N=10&M=2`, or `, `-separated) become params, and the job (the part of
//! `DisplayInfo` after `: `, e.g. `DefaultJob`, `ShortRun(IterationCount=3, …)`) param `job`.
//! From `Statistics` (already ns per operation): `mean_time`, `median_time`, `min_time`,
//! `max_time`, `std_dev_time`, `std_error_time` (ns, lower is better). The per-iteration
//! `OriginalValues`/`Measurements` are not stored (the statistics are BenchmarkDotNet's own
//! summary of them). From `Memory` ([MemoryDiagnoser]): `bytes_allocated_per_op` (B) and
//! `gen0_collections_per_1k_op`, `gen1_…`, `gen2_…` (collections per 1000 operations, as
//! BenchmarkDotNet's summary table shows them: `GenNCollections × 1000 / TotalOperations`),
//! all lower is better. A benchmark without `Statistics` (it failed) lands as a failed trial.

use std::path::Path;

use serde_json::Value;

use super::text::{field_error, json_error, metric, no_benchmarks};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

pub fn sniff(doc: &Value) -> bool {
    doc.get("HostEnvironmentInfo").is_some() && doc.get("Benchmarks").is_some_and(Value::is_array)
}

/// `N=10&M=2`, `N=10, M=2` → pairs.
fn parameters(s: &str) -> Vec<(String, String)> {
    let sep = if s.contains('&') { "&" } else { ", " };
    s.split(sep)
        .filter(|p| !p.trim().is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
            None => ("parameters".to_string(), p.trim().to_string()),
        })
        .collect()
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| json_error(path, &e, "a BenchmarkDotNet JSON export"))?;
    let benches = doc
        .get("Benchmarks")
        .and_then(Value::as_array)
        .ok_or_else(|| field_error(path, "Benchmarks", "an array of benchmarks"))?;
    let mut trials = Vec::new();
    for (i, b) in benches.iter().enumerate() {
        let mut t = named_trial(path, i, b)?;
        match b.get("Statistics").filter(|v| v.is_object()) {
            Some(st) => t.metrics.extend(statistics(st)),
            None => t.failed = true,
        }
        if let Some(m) = b.get("Memory").filter(|v| v.is_object()) {
            t.metrics.extend(memory(m));
        }
        trials.push(t);
    }
    if trials.is_empty() {
        return Err(no_benchmarks(
            path,
            "a BenchmarkDotNet export with `Benchmarks`",
        ));
    }
    Ok(trials)
}

/// The trial of benchmark `i`: its arm `Namespace.Type.Method`, params its parameters and
/// job.
fn named_trial(path: &Path, i: usize, b: &Value) -> Result<ParsedTrial, IngestError> {
    let s = |k: &str| b.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    let arm = [s("Namespace"), s("Type"), s("Method")]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(".");
    if arm.is_empty() {
        return Err(field_error(
            path,
            format!("Benchmarks[{i}].Method"),
            "the benchmark's method name",
        ));
    }
    let mut t = ParsedTrial {
        arm: Some(arm),
        ..Default::default()
    };
    for (k, v) in parameters(s("Parameters").unwrap_or("")) {
        t.params.insert(k, v);
    }
    if let Some((_, job)) = s("DisplayInfo").and_then(|d| d.split_once(": ")) {
        t.params.insert("job".to_string(), job.to_string());
    }
    Ok(t)
}

/// The time statistics of a benchmark, in ns.
fn statistics(st: &Value) -> Vec<Metric> {
    let mut metrics = Vec::new();
    for (key, name) in [
        ("Mean", "mean_time"),
        ("Median", "median_time"),
        ("Min", "min_time"),
        ("Max", "max_time"),
        ("StandardDeviation", "std_dev_time"),
        ("StandardError", "std_error_time"),
    ] {
        if let Some(v) = st.get(key).and_then(Value::as_f64) {
            metrics.push(metric("benchmarkdotnet", name, v, "ns", Better::Lower));
        }
    }
    metrics
}

/// The memory diagnoser's figures: bytes allocated per operation, and each generation's
/// collections per 1,000 operations.
fn memory(m: &Value) -> Vec<Metric> {
    let mut metrics = Vec::new();
    let f = |k: &str| m.get(k).and_then(Value::as_f64);
    if let Some(v) = f("BytesAllocatedPerOperation") {
        let name = "bytes_allocated_per_op";
        metrics.push(metric("benchmarkdotnet", name, v, "B", Better::Lower));
    }
    if let Some(ops) = f("TotalOperations").filter(|o| *o > 0.0) {
        for g in 0..3 {
            if let Some(n) = f(&format!("Gen{g}Collections")) {
                metrics.push(metric(
                    "benchmarkdotnet",
                    &format!("gen{g}_collections_per_1k_op"),
                    n * 1000.0 / ops,
                    "collections/1k op",
                    Better::Lower,
                ));
            }
        }
    }
    metrics
}

/// BenchmarkDotNet JSON as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::json_document!(
    "benchmarkdotnet",
    "BenchmarkDotNet JSON export: each benchmark (method × parameters × job) is a trial",
    "BenchmarkDotNet JSON"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_job_memory_and_failed() {
        let text = r#"{"HostEnvironmentInfo":{},"Benchmarks":[
          {"Namespace":null,"Type":"T","Method":"M","Parameters":"N=10&Mode=fast","DisplayInfo":"T.M: ShortRun(IterationCount=3)",
           "Statistics":{"Mean":12.5,"Median":12.0},
           "Memory":{"Gen0Collections":184,"TotalOperations":8388608,"BytesAllocatedPerOperation":368}},
          {"Namespace":"X","Type":"T","Method":"F","Statistics":null}]}"#;
        let t = parse(Path::new("x"), text).unwrap();
        assert_eq!(t[0].arm.as_deref(), Some("T.M"));
        assert_eq!(t[0].params["N"], "10");
        assert_eq!(t[0].params["Mode"], "fast");
        assert_eq!(t[0].params["job"], "ShortRun(IterationCount=3)");
        let m: Vec<_> = t[0]
            .metrics
            .iter()
            .map(|m| (m.name.as_str(), m.value))
            .collect();
        assert_eq!(
            m,
            [
                ("mean_time", 12.5),
                ("median_time", 12.0),
                ("bytes_allocated_per_op", 368.0),
                ("gen0_collections_per_1k_op", 0.02193450927734375)
            ]
        );
        assert!(t[1].failed && t[1].metrics.is_empty());
    }
}
