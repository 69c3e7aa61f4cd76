//! pytest-benchmark `--benchmark-json` / `--benchmark-autosave` files. Upstream definition:
//! `BenchmarkSession.handle_saving` / `Metadata.as_dict` in ionelmc/pytest-benchmark
//! (`src/pytest_benchmark/session.py`, `stats.py`).
//!
//! Each benchmark is a trial. The arm is the test name without its parametrisation
//! (`test_parse[64]` → `test_parse`); `params` (newer versions) become params, else the
//! bracketed id becomes `param`. The statistics land as metrics in seconds, value for value:
//! `min`, `max`, `mean`, `median`, `stddev`, `iqr`, `q1`, `q3` (lower is better) and `ops`
//! (higher); `rounds` and `iterations` are kept as counts.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::text::json_error;
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

#[derive(Deserialize)]
struct Saved {
    benchmarks: Vec<Bench>,
}

#[derive(Deserialize)]
struct Bench {
    name: String,
    #[serde(default)]
    params: Option<BTreeMap<String, serde_json::Value>>,
    #[serde(default)]
    group: Option<String>,
    stats: BTreeMap<String, serde_json::Value>,
}

pub fn sniff(doc: &serde_json::Value) -> bool {
    doc.get("benchmarks")
        .and_then(|b| b.as_array())
        .and_then(|b| b.first())
        .is_some_and(|b| b.get("stats").is_some_and(|s| s.get("rounds").is_some()))
}

const TIMES: &[&str] = &["min", "max", "mean", "median", "stddev", "iqr", "q1", "q3"];

/// The `commit_info` pytest-benchmark records (id, branch, dirty), when present.
pub fn commit_info(text: &str) -> Option<super::CommitInfo> {
    let doc: serde_json::Value = serde_json::from_str(text).ok()?;
    let c = doc.get("commit_info")?;
    Some(super::CommitInfo {
        id: c.get("id")?.as_str()?.to_string(),
        branch: c.get("branch").and_then(|b| b.as_str()).map(String::from),
        dirty: c.get("dirty").and_then(|d| d.as_bool()),
    })
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let saved: Saved = serde_json::from_str(text).map_err(|e| json_error(path, &e, "a pytest-benchmark JSON file"))?;
    let mut trials = Vec::new();
    for b in saved.benchmarks {
        let (arm, id) = match b.name.split_once('[') {
            Some((base, rest)) => (
                base.to_string(),
                Some(rest.trim_end_matches(']').to_string()),
            ),
            None => (b.name.clone(), None),
        };
        let mut params: BTreeMap<String, String> = match &b.params {
            Some(p) if !p.is_empty() => p
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| v.to_string()),
                    )
                })
                .collect(),
            _ => id
                .map(|id| BTreeMap::from([("param".to_string(), id)]))
                .unwrap_or_default(),
        };
        if let Some(g) = b.group {
            params.insert("group".to_string(), g);
        }
        let num = |k: &str| b.stats.get(k).and_then(|v| v.as_f64());
        let metric = |name: &str, value: f64, unit: &str, better| Metric {
            trial_id: 0,
            name: name.to_string(),
            value,
            unit: unit.to_string(),
            better,
            origin: "pytest-benchmark".to_string(),
            version: None,
        };
        let mut metrics: Vec<Metric> = TIMES
            .iter()
            .filter_map(|k| num(k).map(|v| metric(k, v, "s", Better::Lower)))
            .collect();
        if let Some(v) = num("ops") {
            metrics.push(metric("ops", v, "ops/s", Better::Higher));
        }
        for k in ["rounds", "iterations"] {
            if let Some(v) = num(k) {
                metrics.push(metric(k, v, "count", Better::Higher));
            }
        }
        trials.push(ParsedTrial {
            arm: Some(arm),
            params,
            metrics,
            ..Default::default()
        });
    }
    Ok(trials)
}

/// pytest-benchmark JSON as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::Document {
    name: "pytest-benchmark",
    description: "pytest-benchmark JSON: one trial per benchmark, its statistics as metrics",
    hint: "--benchmark-json",
    claims: super::adapter::no_name,
    walks: super::adapter::json_file,
    sniff: |input| input.doc().is_some_and(sniff),
    parse: super::adapter::Reader::Text(|path, text| {
        Ok(super::adapter::Parsed {
            trials: parse(path, text)?,
            warnings: Vec::new(),
            commit: commit_info(text),
        })
    }),
};
