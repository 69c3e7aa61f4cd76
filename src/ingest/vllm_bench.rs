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
//! A file is one trial: params `concurrency` (`max_concurrency`) and `request_rate` where
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

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| IngestError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        message: format!("{e} (expected vllm bench serve --save-result JSON)"),
    })?;
    let Some(obj) = doc.as_object().filter(|_| sniff(&doc)) else {
        return Err(IngestError::Field {
            path: path.to_path_buf(),
            line: 1,
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
    Ok(vec![ParsedTrial {
        params,
        metrics,
        failed,
        ..Default::default()
    }])
}

/// vLLM's saved result as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document =
    super::adapter::json_document!(
        "vllm-bench",
        "vllm bench serve --save-result JSON: one trial of vLLM's own figures (no per-request times)",
        "vllm bench serve --save-result"
    );
