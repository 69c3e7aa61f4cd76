//! hyperfine `--export-json`. Upstream definition: `BenchmarkResult` in hyperfine's
//! `src/benchmark/benchmark_result.rs` (exported by `src/export/json.rs`).
//!
//! Every timed run becomes a trial with metric `wall_time_s` (seconds, as hyperfine writes
//! them, value for value), so medians, bootstrap CIs and rank tests work over runs as they do
//! over aiperf repeats. The command is the arm; `parameters` (from `-P`/`-L`) are params, and a
//! parameter's value is put back as `{name}` in the arm so a scan compares like with like.
//! A run whose exit code is non-zero or null (killed) is a failed trial.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::text::json_error;
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

#[derive(Deserialize)]
struct Export {
    results: Vec<BenchmarkResult>,
}

#[derive(Deserialize)]
struct BenchmarkResult {
    command: String,
    times: Option<Vec<f64>>,
    #[serde(default)]
    exit_codes: Vec<Option<i32>>,
    #[serde(default)]
    parameters: BTreeMap<String, serde_json::Value>,
}

pub fn sniff(doc: &serde_json::Value) -> bool {
    doc.get("results")
        .and_then(|r| r.as_array())
        .and_then(|r| r.first())
        .is_some_and(|r| r.get("command").is_some() && r.get("times").is_some())
}

fn value_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let export: Export = serde_json::from_str(text).map_err(|e| json_error(path, &e, "hyperfine --export-json output"))?;
    let mut trials = Vec::new();
    for (i, r) in export.results.into_iter().enumerate() {
        let times = r.times.ok_or_else(|| IngestError::Field {
            path: path.to_path_buf(),
            line: 0,
            field: format!("results[{i}].times"),
            expected: "the list of run times (hyperfine ≥ 1.4 exports it)".to_string(),
        })?;
        let params: BTreeMap<String, String> = r
            .parameters
            .iter()
            .map(|(k, v)| (k.clone(), value_text(v)))
            .collect();
        let mut arm = r.command.clone();
        for (k, v) in &params {
            if !v.is_empty() && arm.matches(v.as_str()).count() == 1 {
                arm = arm.replace(v.as_str(), &format!("{{{k}}}"));
            }
        }
        for (run, t) in times.iter().enumerate() {
            let exit = r.exit_codes.get(run).copied().flatten();
            let failed = r.exit_codes.get(run).is_some_and(|c| *c != Some(0));
            trials.push(ParsedTrial {
                arm: Some(arm.clone()),
                params: params.clone(),
                repeat: Some(run as i32),
                metrics: vec![Metric {
                    trial_id: 0,
                    name: "wall_time_s".to_string(),
                    value: *t,
                    unit: "s".to_string(),
                    better: Better::Lower,
                    origin: "hyperfine".to_string(),
                    version: None,
                }],
                exit_code: exit,
                failed,
                ..Default::default()
            });
        }
    }
    Ok(trials)
}

/// hyperfine --export-json as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document =
    super::adapter::json_document!(
        "hyperfine",
        "hyperfine --export-json: every timed run of every command is a trial",
        "--export-json"
    );
