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
//!
//! The same report written as YAML (`--output-path benchmarks.yaml`) is read the same
//! (serde_norway, into the JSON tree). Reports of GuideLLM 0.3–0.4 (no `metadata`; each
//! benchmark `type_: generative_benchmark`) map onto the same trials: the strategy from
//! `args.strategy` (not `config.strategy`), request totals from the benchmark's
//! `request_totals` (not `metrics.request_totals`), request records' `start_time` /
//! `end_time` and `scheduler_info.targeted_start_time`; their distributions have no `p50`
//! (the `median` stands) and their records no `cached_tokens`, so neither lands.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::text::{field_error, json_error, metric};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric, Request};

pub fn sniff(doc: &Value) -> bool {
    doc.pointer("/metadata/guidellm_version").is_some()
        && doc.get("benchmarks").is_some_and(Value::is_array)
        || is_v03(doc)
}

/// A report of GuideLLM 0.3–0.4 (before report schema 2): `{"benchmarks": [...]}` alone, no
/// `metadata`, each benchmark `type_: generative_benchmark` with its `args`.
fn is_v03(doc: &Value) -> bool {
    doc.get("metadata").is_none()
        && doc
            .get("benchmarks")
            .and_then(Value::as_array)
            .is_some_and(|b| {
                !b.is_empty()
                    && b.iter().all(|b| {
                        b["type_"] == "generative_benchmark" && b.get("args").is_some()
                    })
            })
}

/// Whether text is GuideLLM's YAML report (`--output-path benchmarks.yaml`): a YAML document
/// whose top-level `benchmarks:` holds GuideLLM benchmarks. Only text that is not JSON and has a
/// `benchmarks:` line at the top level is parsed as YAML.
pub fn sniff_yaml(text: &str) -> bool {
    text.lines().any(|l| l.starts_with("benchmarks:")) && yaml(text).is_ok_and(|d| sniff(&d))
}

fn yaml(text: &str) -> Result<Value, serde_norway::Error> {
    serde_norway::from_str(text)
}

/// The report as JSON, from its JSON or YAML text (GuideLLM writes the same tree as either).
fn document(path: &Path, text: &str) -> Result<Value, IngestError> {
    let json = serde_json::from_str(text);
    if let Ok(doc) = json {
        return Ok(doc);
    }
    if text.trim_start().starts_with(['{', '[']) {
        let e = json.unwrap_err();
        return Err(json_error(path, &e, "GuideLLM's benchmarks.json"));
    }
    yaml(text).map_err(|e| IngestError::Parse {
        path: path.to_path_buf(),
        line: e.location().map_or(1, |l| l.line()),
        message: format!("{e} (expected GuideLLM's benchmarks.json or benchmarks.yaml)"),
    })
}

#[derive(Deserialize)]
struct Req {
    /// `start_time` / `end_time` in 0.3-era reports.
    #[serde(alias = "start_time")]
    request_start_time: Option<f64>,
    #[serde(alias = "end_time")]
    request_end_time: Option<f64>,
    request_latency: Option<f64>,
    time_to_first_token_ms: Option<f64>,
    inter_token_latency_ms: Option<f64>,
    prompt_tokens: Option<i64>,
    output_tokens: Option<i64>,
    #[serde(default)]
    info: Value,
    /// 0.3-era: the scheduler's timings (`targeted_start_time`).
    #[serde(default)]
    scheduler_info: Value,
    /// 0.3-era: an errored request's error text.
    #[serde(default)]
    error: Value,
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
    let doc = document(path, text)?;
    let v03 = is_v03(&doc);
    if !v03 && doc.pointer("/metadata/version").and_then(Value::as_i64) != Some(2) {
        return Err(field_error(
            path,
            "metadata.version",
            "GuideLLM report schema version 2 (GuideLLM ≥ 0.5), or a GuideLLM 0.3/0.4 report \
             (`benchmarks` of `type_: generative_benchmark`)",
        ));
    }
    let Some(benchmarks) = doc["benchmarks"].as_array() else {
        return Err(field_error(path, "benchmarks", "a list of GuideLLM benchmarks"));
    };
    let mut trials = Vec::new();
    for (i, b) in benchmarks.iter().enumerate() {
        trials.push(ParsedTrial {
            params: strategy_params(path, i, b, v03)?,
            repeat: None,
            requests: requests(path, i, b)?,
            metrics: metrics(b),
            ..Default::default()
        });
    }
    Ok(trials)
}

/// The params of benchmark `i`'s scheduling strategy: `strategy`, and `concurrency` or
/// `request_rate`.
fn strategy_params(
    path: &Path,
    i: usize,
    b: &Value,
    v03: bool,
) -> Result<crate::model::Params, IngestError> {
    // Schema 2 keeps the strategy under `config`, 0.3 under `args`.
    let at = if v03 { "args" } else { "config" };
    let strategy = b.pointer(&format!("/{at}/strategy")).ok_or_else(|| {
        field_error(
            path,
            format!("benchmarks[{i}].{at}.strategy"),
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
                field_error(
                    path,
                    format!("benchmarks[{i}].{at}.strategy.streams"),
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
    Ok(params)
}

/// The saved requests of benchmark `i`: successful, errored (as errors) and incomplete (as
/// cancelled); a request without a start time is left out.
fn requests(path: &Path, i: usize, b: &Value) -> Result<Vec<Request>, IngestError> {
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
                field_error(
                    path,
                    format!("benchmarks[{i}].requests.{status}[{j}]"),
                    &format!("a request ({e})"),
                )
            })?;
            requests.extend(request(r, error, cancelled));
        }
    }
    Ok(requests)
}

/// One saved request as a request row (none without a start time).
fn request(r: Req, error: bool, cancelled: bool) -> Option<Request> {
    let ns = |s: Option<f64>| s.map(|s| (s * 1e9).round() as i64);
    let ms = |s: Option<f64>| s.map(|s| (s * 1e6).round() as i64);
    let start_ns = ns(r.request_start_time)?;
    Some(Request {
        trial_id: 0,
        phase: None,
        credit_ns: ns(r
            .info
            .pointer("/timings/targeted_start")
            .or_else(|| r.scheduler_info.get("targeted_start_time"))
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
                .or_else(|| r.error.as_str())
                .unwrap_or("errored")
                .to_string()
        }),
        cancelled,
        worker_id: None,
    })
}

/// The metrics of one benchmark: its distributions, request totals, duration and token
/// sums, each where the file gives a finite figure.
fn metrics(b: &Value) -> Vec<Metric> {
    let mut metrics = Vec::new();
    let mut put = |name: String, value: Option<f64>, unit: &str, better: Better| {
        if let Some(value) = value.filter(|v| v.is_finite()) {
            metrics.push(metric("guidellm-summary", &name, value, unit, better));
        }
    };
    // Schema 2 counts requests in `metrics.request_totals`, 0.3 in `request_totals`.
    let totals = b.get("request_totals").map(|t| ("request_totals", t));
    if let Some(m) = b["metrics"].as_object() {
        for (name, v) in m.iter().map(|(k, v)| (k.as_str(), v)).chain(totals) {
            if name == "request_totals" {
                for k in ["successful", "errored", "incomplete", "total"] {
                    let name = format!("guidellm.requests.{k}");
                    put(name, v[k].as_f64(), "count", Better::Higher);
                }
                continue;
            }
            let Some(dist) = v.get("successful").filter(|d| d.is_object()) else {
                continue;
            };
            let (unit, better) = unit_and_better(name);
            for s in STATS {
                put(format!("guidellm.{name}.{s}"), dist[*s].as_f64(), unit, better);
            }
            for p in PERCENTILES {
                let value = dist["percentiles"][*p].as_f64();
                put(format!("guidellm.{name}.{p}"), value, unit, better);
            }
        }
    }
    let duration = b["duration"].as_f64();
    put("guidellm.duration".into(), duration, "s", Better::Lower);
    // Prompt tokens the server reported read from its prefix cache (`cached_tokens`) and
    // all prompt tokens, over the saved successful requests: the prefix-cache check. A sum
    // lands only where some request holds the value (0.3-era reports have no
    // `cached_tokens`): a sum over nothing is not a figure the file gives.
    if let Some(list) = b.pointer("/requests/successful").and_then(Value::as_array) {
        let sum = |k: &str| {
            let values: Vec<f64> = list.iter().filter_map(|r| r[k].as_f64()).collect();
            (!values.is_empty()).then(|| values.iter().fold(0.0, |a, b| a + b))
        };
        for k in ["prompt_tokens", "cached_tokens"] {
            put(format!("guidellm.{k}.sum"), sum(k), "tokens", Better::Lower);
        }
    }
    metrics
}

/// For "unrecognised input": a JSON document with `benchmarks` that is neither report form.
fn near(input: &super::adapter::Sniff) -> Option<String> {
    let doc = input.doc()?;
    doc.get("benchmarks")?;
    Some(
        "has `benchmarks`, but no `metadata.guidellm_version` (report schema 2) and its \
         benchmarks are not `type_: generative_benchmark` with `args` (GuideLLM 0.3/0.4)"
            .to_string(),
    )
}

/// GuideLLM's report as an [`super::adapter::Adapter`]: `benchmarks.json`, or the same report
/// as `benchmarks.yaml`.
pub static ADAPTER: super::adapter::Near = super::adapter::Near {
    document: super::adapter::Document {
        name: "guidellm",
        description: "GuideLLM benchmarks.json / benchmarks.yaml (report schema 2, and 0.3–0.4 reports): one trial per benchmark, its saved requests and distributions",
        hint: "benchmarks.json",
        claims: super::adapter::no_name,
        walks: |_, name| [".json", ".yaml", ".yml"].iter().any(|e| name.ends_with(e)),
        sniff: |input| match input.doc() {
            Some(doc) => sniff(doc),
            None => input.text().is_some_and(sniff_yaml),
        },
        parse: super::adapter::Reader::Text(|path, text| {
            Ok(super::adapter::Parsed::trials(parse(path, text)?))
        }),
    },
    near,
};
