//! metrics-json: perfhouse's own small format, so a CI job can hand over numbers without a
//! parser (e.g. a sync-vs-async packets-per-second table by payload size):
//!
//! ```json
//! {"metrics": [
//!   {"name": "pps", "value": 1250000, "unit": "packets/s", "better": "higher",
//!    "arm": "async", "params": {"payload": 64}, "repeat": 0}
//! ]}
//! ```
//!
//! `name`, `value` (a number), `unit` (may be empty) and `better` (`higher`/`lower`) are
//! required; `arm`, `params` (values are kept as text) and `repeat` are optional. Entries with
//! the same arm, params and repeat form one trial. A bare array of entries is accepted too.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric, Params};

#[derive(Deserialize)]
#[serde(untagged)]
enum Doc {
    Wrapped { metrics: Vec<serde_json::Value> },
    Bare(Vec<serde_json::Value>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: String,
    value: f64,
    unit: String,
    better: String,
    #[serde(default)]
    arm: Option<String>,
    #[serde(default)]
    params: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    repeat: Option<i32>,
}

pub fn sniff(doc: &serde_json::Value) -> bool {
    let entries = doc.get("metrics").or(Some(doc)).and_then(|m| m.as_array());
    entries.and_then(|e| e.first()).is_some_and(|e| {
        e.get("name").is_some() && e.get("value").is_some() && e.get("better").is_some()
    })
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let doc: Doc = serde_json::from_str(text).map_err(|e| IngestError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        message: format!("{e} (expected {{\"metrics\": [...]}} or a list of metric entries)"),
    })?;
    let entries = match doc {
        Doc::Wrapped { metrics } | Doc::Bare(metrics) => metrics,
    };
    let field = |i: usize, f: &str, expected: String| IngestError::Field {
        path: path.to_path_buf(),
        line: 0,
        field: format!("metrics[{i}]{f}"),
        expected,
    };
    let mut trials: BTreeMap<(Option<String>, Params, Option<i32>), ParsedTrial> = BTreeMap::new();
    let mut order = Vec::new();
    for (i, raw) in entries.into_iter().enumerate() {
        let e: Entry = serde_json::from_value(raw).map_err(|err| {
            field(
                i,
                "",
                format!(
                    "name, value (number), unit, better, and optionally arm, params, repeat: {err}"
                ),
            )
        })?;
        let better = match e.better.as_str() {
            "higher" => Better::Higher,
            "lower" => Better::Lower,
            other => {
                return Err(field(
                    i,
                    ".better",
                    format!("\"higher\" or \"lower\", found {other:?}"),
                ));
            }
        };
        if !e.value.is_finite() {
            return Err(field(i, ".value", "a finite number".to_string()));
        }
        let params: Params = e
            .params
            .into_iter()
            .map(|(k, v)| {
                (
                    k,
                    if let serde_json::Value::String(s) = v {
                        s
                    } else {
                        v.to_string()
                    },
                )
            })
            .collect();
        let key = (e.arm.clone(), params.clone(), e.repeat);
        if !trials.contains_key(&key) {
            order.push(key.clone());
        }
        let t = trials.entry(key).or_insert_with(|| ParsedTrial {
            arm: e.arm,
            params,
            repeat: e.repeat,
            ..Default::default()
        });
        t.metrics.push(Metric {
            trial_id: 0,
            name: e.name,
            value: e.value,
            unit: e.unit,
            better,
            origin: "metrics-json".to_string(),
            version: None,
        });
    }
    Ok(order
        .into_iter()
        .map(|k| trials.remove(&k).expect("inserted above"))
        .collect())
}

/// perfhouse metrics JSON as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document =
    super::adapter::json_document!(
        "metrics-json",
        "perfhouse's own metrics JSON (name, value, unit, better, arm, params, repeat)",
        "perfhouse's metrics JSON"
    );
