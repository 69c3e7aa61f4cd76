//! GuideLLM `benchmarks.json` (report schema version 2, GuideLLM 0.8: `metadata.version = 2`,
//! `benchmarks[]` of `GenerativeBenchmark`). Upstream definitions: `GenerativeBenchmarksReport`,
//! `GenerativeBenchmark`, `GenerativeMetrics` and `GenerativeRequestStats` in guidellm's
//! `src/guidellm/benchmark/schemas/` (0.8.1 on PyPI); the bundled fixture is a real capture.
//!
//! Each benchmark (one strategy: `synchronous`, `concurrent` at N streams, `constant` /
//! `poisson` at a rate, `throughput`) is a trial with params `concurrency` (streams, 1 for
//! synchronous) or `request_rate`, so a GuideLLM sweep is a perfhouse load sweep. Its saved
//! requests (`requests.successful|errored|incomplete`, all of them unless `sample_size` cut
//! them) become request rows: start and end from `request_start_time` / `request_end_time`
//! (epoch s), TTFT, mean ITL and latency, prompt and output tokens, errored as errors and
//! incomplete as cancelled; `credit_ns` is the scheduler's `targeted_start`, so client delay
//! is start − targeted start. Its own distributions become metrics `guidellm.<metric>.<stat>`
//! of the successful requests (mean, median, std_dev, p50, p90, p95, p99) and the request
//! totals, value for value: they restate the records (`restates_requests`), so comparisons use
//! the records.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric, Request};

pub fn sniff(doc: &Value) -> bool {
    doc.pointer("/metadata/guidellm_version").is_some()
        && doc.get("benchmarks").is_some_and(Value::is_array)
}

#[derive(Deserialize)]
struct Req {
    request_start_time: Option<f64>,
    request_end_time: Option<f64>,
    request_latency: Option<f64>,
    time_to_first_token_ms: Option<f64>,
    inter_token_latency_ms: Option<f64>,
    prompt_tokens: Option<i64>,
    output_tokens: Option<i64>,
    #[serde(default)]
    info: Value,
}

const STATS: &[&str] = &["mean", "median", "std_dev"];
const PERCENTILES: &[&str] = &["p50", "p90", "p95", "p99"];

fn unit_and_better(metric: &str) -> (&'static str, Better) {
    if metric.ends_with("_ms") {
        ("ms", Better::Lower)
    } else if metric == "request_latency" {
        ("s", Better::Lower)
    } else if metric == "requests_per_second" {
        ("req/s", Better::Higher)
    } else if metric.ends_with("tokens_per_second") {
        ("tok/s", Better::Higher)
    } else if metric.ends_with("_count") || metric == "request_concurrency" {
        ("count", Better::Higher)
    } else {
        ("", Better::Lower)
    }
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| IngestError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        message: format!("{e} (expected GuideLLM's benchmarks.json)"),
    })?;
    let field = |field: String, expected: &str| IngestError::Field {
        path: path.to_path_buf(),
        line: 0,
        field,
        expected: expected.to_string(),
    };
    if doc.pointer("/metadata/version").and_then(Value::as_i64) != Some(2) {
        return Err(field(
            "metadata.version".into(),
            "GuideLLM report schema version 2 (GuideLLM ≥ 0.5)",
        ));
    }
    let benchmarks = doc["benchmarks"].as_array().expect("sniffed");
    let mut trials = Vec::new();
    for (i, b) in benchmarks.iter().enumerate() {
        let strategy = b.pointer("/config/strategy").ok_or_else(|| {
            field(
                format!("benchmarks[{i}].config.strategy"),
                "the benchmark's scheduling strategy",
            )
        })?;
        let kind = strategy["type_"].as_str().unwrap_or_default();
        let mut params = crate::model::Params::new();
        match kind {
            "synchronous" => {
                params.insert("concurrency".into(), "1".into());
            }
            "concurrent" => {
                let n = strategy["streams"].as_i64().ok_or_else(|| {
                    field(
                        format!("benchmarks[{i}].config.strategy.streams"),
                        "an integer",
                    )
                })?;
                params.insert("concurrency".into(), n.to_string());
            }
            "constant" | "poisson" | "async" => {
                if let Some(r) = strategy["rate"].as_f64() {
                    params.insert("request_rate".into(), r.to_string());
                }
            }
            _ => {}
        }
        params.insert("strategy".into(), kind.to_string());
        let mut requests = Vec::new();
        for (status, error, cancelled) in [
            ("successful", false, false),
            ("errored", true, false),
            ("incomplete", false, true),
        ] {
            let Some(list) = b
                .pointer(&format!("/requests/{status}"))
                .and_then(Value::as_array)
            else {
                continue;
            };
            for (j, r) in list.iter().enumerate() {
                let r: Req = serde_json::from_value(r.clone()).map_err(|e| {
                    field(
                        format!("benchmarks[{i}].requests.{status}[{j}]"),
                        &format!("a request ({e})"),
                    )
                })?;
                let ns = |s: Option<f64>| s.map(|s| (s * 1e9).round() as i64);
                let ms = |s: Option<f64>| s.map(|s| (s * 1e6).round() as i64);
                let Some(start_ns) = ns(r.request_start_time) else {
                    continue;
                };
                requests.push(Request {
                    trial_id: 0,
                    phase: None,
                    credit_ns: ns(r
                        .info
                        .pointer("/timings/targeted_start")
                        .and_then(Value::as_f64)),
                    start_ns,
                    end_ns: ns(r.request_end_time),
                    ttft_ns: ms(r.time_to_first_token_ms),
                    itl_ns: ms(r.inter_token_latency_ms),
                    latency_ns: ns(r.request_latency),
                    input_tokens: r.prompt_tokens,
                    output_tokens: r.output_tokens,
                    error_code: error.then_some(0),
                    error_type: error.then(|| {
                        r.info
                            .pointer("/error")
                            .and_then(Value::as_str)
                            .unwrap_or("errored")
                            .to_string()
                    }),
                    cancelled,
                    worker_id: None,
                });
            }
        }
        let mut metrics = Vec::new();
        let mut put = |name: String, value: Option<f64>, unit: &str, better: Better| {
            if let Some(value) = value.filter(|v| v.is_finite()) {
                metrics.push(Metric {
                    trial_id: 0,
                    name,
                    value,
                    unit: unit.to_string(),
                    better,
                    origin: "guidellm-summary".to_string(),
                    version: None,
                });
            }
        };
        if let Some(m) = b["metrics"].as_object() {
            for (name, v) in m {
                if name == "request_totals" {
                    for k in ["successful", "errored", "incomplete", "total"] {
                        put(
                            format!("guidellm.requests.{k}"),
                            v[k].as_f64(),
                            "count",
                            Better::Higher,
                        );
                    }
                    continue;
                }
                let Some(dist) = v.get("successful").filter(|d| d.is_object()) else {
                    continue;
                };
                let (unit, better) = unit_and_better(name);
                for s in STATS {
                    put(
                        format!("guidellm.{name}.{s}"),
                        dist[*s].as_f64(),
                        unit,
                        better,
                    );
                }
                for p in PERCENTILES {
                    put(
                        format!("guidellm.{name}.{p}"),
                        dist["percentiles"][*p].as_f64(),
                        unit,
                        better,
                    );
                }
            }
        }
        put(
            "guidellm.duration".into(),
            b["duration"].as_f64(),
            "s",
            Better::Lower,
        );
        // Prompt tokens the server reported read from its prefix cache (`cached_tokens`) and
        // all prompt tokens, over the saved successful requests: the prefix-cache check.
        if let Some(list) = b.pointer("/requests/successful").and_then(Value::as_array) {
            let sum = |k: &str| list.iter().filter_map(|r| r[k].as_f64()).sum::<f64>();
            put(
                "guidellm.prompt_tokens.sum".into(),
                Some(sum("prompt_tokens")),
                "tokens",
                Better::Lower,
            );
            put(
                "guidellm.cached_tokens.sum".into(),
                Some(sum("cached_tokens")),
                "tokens",
                Better::Lower,
            );
        }
        trials.push(ParsedTrial {
            params,
            repeat: None,
            requests,
            metrics,
            ..Default::default()
        });
    }
    Ok(trials)
}

/// GuideLLM's report as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document =
    super::adapter::json_document!(
        "guidellm",
        "GuideLLM benchmarks.json (report schema 2): one trial per benchmark, its saved requests and distributions",
        "benchmarks.json"
    );
