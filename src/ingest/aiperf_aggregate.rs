//! aiperf's aggregate summary of a multi-run profile (`--num-profile-runs N`):
//! `aggregate/<variation>/profile_export_aiperf_aggregate.json`, the mean, std, min, max, CV,
//! standard error and t-based confidence interval of every summary metric over the N runs.
//! Upstream definition (github.com/ai-dynamo/aiperf): `schema_version` "1.0", `metadata`
//! (`aggregation_type`, `num_profile_runs`, `num_successful_runs`, `failed_runs`,
//! `confidence_level`, `variation_values`) and `metrics` keyed `<tag>_<stat>`
//! (`request_latency_p99`), each `{mean, std, min, max, cv, se, ci_low, ci_high, t_critical,
//! unit}`.
//!
//! One trial per file: params from `variation_values` (`phases.profiling.concurrency` →
//! `concurrency`) and `confidence_level`; metrics named so they cannot be taken for one run's
//! figures: `aiperf_aggregate.<tag>.<stat>.<mean|std|min|max|cv|se|ci_low|ci_high>`
//! (`aiperf_aggregate.request_latency.p99.ci_high`, in the metric's unit; `cv` a ratio) and
//! `aiperf_aggregate.runs` (the successful runs aggregated). `null` statistics (a CV of a
//! zero mean) land nothing. The per-run directories (`profile_runs/trial_000N/…`) give more:
//! every request, and perfhouse's own statistics over the runs; a directory walk takes the
//! aggregate only where they are not beside it, and every ingest of one says so.

use std::path::Path;

use serde::Deserialize;

use super::adapter::{Parsed, Sniff};
use super::text::{field_error, json_error, left_out, metric};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

/// The file name aiperf gives it.
const NAME: &str = "profile_export_aiperf_aggregate.json";

/// The statistics kept of each metric, as aiperf names them.
const AGGREGATES: &[&str] = &["mean", "std", "min", "max", "cv", "se", "ci_low", "ci_high"];

#[derive(Deserialize)]
struct Aggregate {
    metadata: Metadata,
    metrics: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(default)]
    num_profile_runs: Option<u64>,
    num_successful_runs: u64,
    #[serde(default)]
    failed_runs: Vec<serde_json::Value>,
    #[serde(default)]
    confidence_level: Option<f64>,
    #[serde(default)]
    variation_values: serde_json::Map<String, serde_json::Value>,
}

/// Whether a parsed JSON document is an aggregate summary.
fn sniff(doc: &serde_json::Value) -> bool {
    doc.get("metadata")
        .is_some_and(|m| m.get("aggregation_type").is_some() && m.get("num_successful_runs").is_some())
        && doc.get("metrics").is_some_and(|m| m.is_object())
}

/// `request_latency_p99` → (`request_latency`, `p99`), by aiperf's statistic names.
fn split_key(key: &str) -> (&str, &str) {
    match key.rsplit_once('_') {
        Some((tag, stat)) if super::aiperf_summary::STATS.contains(&stat) => (tag, stat),
        _ => (key, "value"),
    }
}

pub fn parse(path: &Path, text: &str) -> Result<Parsed, IngestError> {
    let doc: Aggregate = serde_json::from_str(text).map_err(|e| {
        json_error(path, &e, "aiperf's profile_export_aiperf_aggregate.json")
    })?;
    let mut metrics = aggregate_metrics(path, &doc)?;
    let m = &doc.metadata;
    let runs = m.num_successful_runs as f64;
    metrics.push(metric(ORIGIN, "aiperf_aggregate.runs", runs, "runs", Better::Higher));
    let trial = ParsedTrial {
        params: params(m),
        metrics,
        ..Default::default()
    };
    Ok(Parsed::with_warnings(vec![trial], warnings(path, m)))
}

const ORIGIN: &str = "aiperf-aggregate";

/// Each aggregate of each metric (`aiperf_aggregate.<tag>.<stat>.<agg>`): its spread
/// (`std`, `se`, `cv`) lower-is-better, the rest as the metric is.
fn aggregate_metrics(path: &Path, doc: &Aggregate) -> Result<Vec<Metric>, IngestError> {
    let mut metrics = Vec::new();
    for (key, block) in &doc.metrics {
        let (tag, stat) = split_key(key);
        let unit = block.get("unit").and_then(|u| u.as_str()).unwrap_or("");
        let better = super::aiperf_summary::better(tag);
        for agg in AGGREGATES {
            let Some(v) = block.get(*agg).filter(|v| !v.is_null()) else {
                continue;
            };
            let value = v.as_f64().ok_or_else(|| {
                field_error(path, format!("metrics.{key}.{agg}"), "a number or null")
            })?;
            let (unit, better) = match *agg {
                "cv" => ("ratio", Better::Lower),
                "std" | "se" => (unit, Better::Lower),
                _ => (unit, better),
            };
            let name = format!("aiperf_aggregate.{tag}.{stat}.{agg}");
            metrics.push(metric(ORIGIN, &name, value, unit, better));
        }
    }
    if metrics.is_empty() {
        return Err(field_error(
            path,
            "metrics",
            "aiperf's aggregated metrics ({mean, std, ci_low, ci_high, …, unit} per metric)",
        ));
    }
    Ok(metrics)
}

/// The values the runs varied (`concurrency`…) and the confidence level, as params.
fn params(m: &Metadata) -> crate::model::Params {
    let mut params = crate::model::Params::new();
    for (k, v) in &m.variation_values {
        // `phases.profiling.concurrency` is the per-run layout's `concurrency_16`: `concurrency`.
        let k = k.rsplit('.').next().unwrap_or(k);
        let v = match v {
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        params.insert(k.to_string(), v);
    }
    if let Some(level) = m.confidence_level {
        params.insert("confidence_level".to_string(), level.to_string());
    }
    params
}

/// That the per-run directories give more, and which runs failed.
fn warnings(path: &Path, m: &Metadata) -> Vec<String> {
    let runs = m.num_profile_runs.unwrap_or(m.num_successful_runs);
    let mut warnings = vec![format!(
        "{}: aiperf's aggregate over {} of {runs} runs landed as aiperf_aggregate.* (mean, std, CI per metric); \
         the per-run directories (profile_runs/trial_000N/…) give more: every request, and perfhouse's own statistics over the runs. Ingest them where they were kept",
        path.display(),
        m.num_successful_runs,
    )];
    let failed: Vec<String> = m.failed_runs.iter().map(|r| r.to_string()).collect();
    let what = "run(s) failed and are not in the aggregate";
    warnings.extend(left_out(path, what, &failed));
    warnings
}

/// Whether the per-run directories are beside the aggregate (`<artifacts>/aggregate/…` and
/// `<artifacts>/profile_runs/`): then a walk takes them, not it.
fn runs_beside(path: &Path) -> bool {
    path.ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "aggregate"))
        .and_then(Path::parent)
        .is_some_and(|artifacts| artifacts.join("profile_runs").is_dir())
}

/// aiperf's aggregate summary as an [`super::adapter::Adapter`].
pub struct Adapter;

/// The registered adapter (`super::registry!`).
pub static ADAPTER: Adapter = Adapter;

impl super::adapter::Adapter for Adapter {
    fn name(&self) -> &'static str {
        "aiperf-aggregate"
    }

    fn description(&self) -> &'static str {
        "aiperf's aggregate over a multi-run profile (profile_export_aiperf_aggregate.json): one trial of its mean, std and CI per metric"
    }

    fn hint(&self) -> &'static str {
        "profile_export_aiperf_aggregate.json"
    }

    fn claims_name(&self, _path: &Path, name: &str) -> bool {
        name == NAME
    }

    fn walk_auto(&self, path: &Path, name: &str) -> bool {
        name == NAME && !runs_beside(path)
    }

    fn walks(&self, _path: &Path, name: &str) -> bool {
        name == NAME
    }

    fn sniff(&self, input: &Sniff) -> bool {
        input.doc().is_some_and(sniff)
    }

    fn parse(
        &self,
        path: &Path,
        input: Box<dyn std::io::BufRead>,
        _sink: Option<super::RequestSink>,
    ) -> Result<Parsed, IngestError> {
        parse(path, &super::adapter::read_text(path, input)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_splits_at_aiperfs_statistic() {
        assert_eq!(split_key("request_latency_p99"), ("request_latency", "p99"));
        assert_eq!(
            split_key("output_token_throughput_per_user_avg"),
            ("output_token_throughput_per_user", "avg")
        );
        assert_eq!(split_key("goodput"), ("goodput", "value"));
    }
}
