//! vLLM `vllm bench serve --save-result` JSON. Upstream definition: the `result` dict of
//! `benchmark()` and the keys `main()` adds before writing it, in `vllm/benchmarks/serve.py`
//! (read at neuralmagic/vllm 32f5573e4e5b1600dd063848c12a602d3148d721): `duration`,
//! `completed`, `failed`, `total_input_tokens`, `total_output_tokens`, `request_throughput`,
//! `request_goodput` (with `--goodput`), `output_throughput`, `total_token_throughput`,
//! `max_output_tokens_per_s`, `max_concurrent_requests`, and per metric in
//! `--percentile-metrics` (`ttft`, `tpot`, `itl`, `e2el`) `mean_…_ms`, `median_…_ms`,
//! `std_…_ms` and `p{N}_…_ms`; `main()` adds `date`, `endpoint_type`, `label`, `model_id`,
//! `tokenizer_id`, `num_prompts`, `request_rate` (`"inf"` when unbounded), `burstiness` and
//! `max_concurrency`. With `--save-detailed` the per-request lists `input_lens`,
//! `output_lens`, `ttfts` (s), `itls` (s, per token), `generated_texts`, `errors` stay in.
//!
//! `--append-result` appends each result to the file as one more line (vLLM writes `\n` and
//! then `json.dump` of the result): such a file is one trial per line, in file order.
//!
//! A result is one trial: params `concurrency` (`max_concurrency`) and `request_rate` where
//! bounded; every number above becomes a metric `vllm.<key>` value for value (ms, s, req/s,
//! tok/s, count). The per-request lists carry no start or end times, so they cannot place a
//! request in time: perfhouse keeps vLLM's own figures for such a trial and derives none from
//! records (no `requests` rows; `trial_figures` has no load figures for it).

use std::path::Path;

use serde_json::Value;

use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

pub fn sniff(doc: &Value) -> bool {
    doc.get("request_throughput").is_some_and(Value::is_number)
        && doc.get("duration").is_some_and(Value::is_number)
        && doc.get("completed").is_some()
}

fn unit_and_better(key: &str) -> Option<(&'static str, Better)> {
    Some(match key {
        k if k.ends_with("_ms") => ("ms", Better::Lower),
        "duration" => ("s", Better::Lower),
        "request_throughput" | "request_goodput" => ("req/s", Better::Higher),
        "output_throughput" | "total_token_throughput" | "max_output_tokens_per_s" => {
            ("tok/s", Better::Higher)
        }
        "completed" | "total_input_tokens" | "total_output_tokens" | "max_concurrent_requests" => {
            ("count", Better::Higher)
        }
        "failed" => ("count", Better::Lower),
        _ => return None,
    })
}

/// The records of a file: one JSON document (`--save-result`), or, as `--append-result`
/// writes, one single-line JSON object per line (blank lines skipped), each with its line.
fn records(path: &Path, text: &str) -> Result<Vec<(usize, Value)>, IngestError> {
    let parse_err = |line: usize, e: serde_json::Error| IngestError::Parse {
        path: path.to_path_buf(),
        line,
        message: format!(
            "{e} (expected vllm bench serve --save-result JSON, or --append-result: one JSON object per line)"
        ),
    };
    match serde_json::from_str(text) {
        Ok(doc) => Ok(vec![(1, doc)]),
        Err(e) if e.is_syntax() && text.lines().filter(|l| !l.trim().is_empty()).count() > 1 => text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                serde_json::from_str(l)
                    .map(|v| (i + 1, v))
                    .map_err(|e| parse_err(i + 1, e))
            })
            .collect(),
        Err(e) => Err(parse_err(e.line(), e)),
    }
}

/// Whether text is an `--append-result` file: its first non-blank line a result object.
pub fn sniff_lines(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .is_some_and(|d| sniff(&d))
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    records(path, text)?
        .into_iter()
        .map(|(line, doc)| parse_one(path, line, &doc))
        .collect()
}

fn parse_one(path: &Path, line: usize, doc: &Value) -> Result<ParsedTrial, IngestError> {
    let Some(obj) = doc.as_object().filter(|_| sniff(doc)) else {
        return Err(IngestError::Field {
            path: path.to_path_buf(),
            line,
            field: "request_throughput".into(),
            expected: "vllm bench serve's result (request_throughput, duration, completed)".into(),
        });
    };
    let mut params = crate::model::Params::new();
    if let Some(c) = obj.get("max_concurrency").and_then(Value::as_i64) {
        params.insert("concurrency".into(), c.to_string());
    }
    if let Some(r) = obj
        .get("request_rate")
        .and_then(Value::as_f64)
        .filter(|r| r.is_finite())
    {
        params.insert("request_rate".into(), r.to_string());
    }
    let metrics = obj
        .iter()
        .filter_map(|(k, v)| {
            let (unit, better) = unit_and_better(k)?;
            Some(Metric {
                trial_id: 0,
                name: format!("vllm.{k}"),
                value: v.as_f64().filter(|v| v.is_finite())?,
                unit: unit.to_string(),
                better,
                origin: "vllm-bench".to_string(),
                version: None,
            })
        })
        .collect();
    let failed = obj.get("completed").and_then(Value::as_i64) == Some(0);
    Ok(ParsedTrial {
        params,
        metrics,
        failed,
        ..Default::default()
    })
}


/// For "unrecognised input": a JSON object with some of vLLM's result keys but not those
/// [`sniff`] requires says which it has and which it lacks.
fn near(input: &super::adapter::Sniff) -> Option<String> {
    let first_line = || {
        let line = input.text()?.lines().find(|l| !l.trim().is_empty())?;
        serde_json::from_str::<Value>(line).ok()
    };
    let doc = input.doc().cloned().or_else(first_line)?;
    let obj = doc.as_object()?;
    let required = ["request_throughput", "duration", "completed"];
    let known = obj
        .keys()
        .filter(|k| unit_and_better(k).is_some() || required.contains(&k.as_str()))
        .count();
    if known < 2 {
        return None;
    }
    let has: Vec<String> = required
        .iter()
        .filter(|k| obj.contains_key(**k))
        .map(|k| format!("`{k}`"))
        .collect();
    let lacks: Vec<String> = required
        .iter()
        .filter(|k| !obj.get(**k).is_some_and(|v| *k == &"completed" || v.is_number()))
        .map(|k| format!("`{k}`"))
        .collect();
    Some(format!(
        "has {} of vLLM's result keys ({}), lacks {} as a number",
        known,
        if has.is_empty() { "none required".to_string() } else { has.join(", ") },
        lacks.join(", ")
    ))
}

/// vLLM's saved result as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Near = super::adapter::Near {
    document: super::adapter::Document {
        name: "vllm-bench",
        description: "vllm bench serve --save-result JSON (or --append-result, one per line): one trial per result of vLLM's own figures (no per-request times)",
        hint: "vllm bench serve --save-result",
        claims: super::adapter::no_name,
        walks: |_, name| name.ends_with(".json") || name.ends_with(".jsonl"),
        sniff: |input| match input.doc() {
            Some(doc) => sniff(doc),
            None => input.text().is_some_and(sniff_lines),
        },
        parse: super::adapter::Reader::Text(|path, text| {
            Ok(super::adapter::Parsed::trials(parse(path, text)?))
        }),
    },
    near,
};
