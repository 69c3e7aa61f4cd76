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

use super::text::{json_error, metric};
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

/// The trial an entry belongs to: its arm, params and repeat.
type Key = (Option<String>, Params, Option<i32>);

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let doc: Doc = serde_json::from_str(text).map_err(|e| {
        json_error(
            path,
            &e,
            "{\"metrics\": [...]} or a list of metric entries",
        )
    })?;
    let entries = match doc {
        Doc::Wrapped { metrics } | Doc::Bare(metrics) => metrics,
    };
    let mut trials: BTreeMap<Key, ParsedTrial> = BTreeMap::new();
    let mut order = Vec::new();
    for (i, raw) in entries.into_iter().enumerate() {
        let (key, m) = entry(raw).map_err(|(f, expected)| IngestError::Field {
            path: path.to_path_buf(),
            line: 0,
            field: format!("metrics[{i}]{f}"),
            expected,
        })?;
        if !trials.contains_key(&key) {
            order.push(key.clone());
        }
        let (arm, params, repeat) = key.clone();
        let t = trials.entry(key).or_insert_with(|| ParsedTrial {
            arm,
            params,
            repeat,
            ..Default::default()
        });
        t.metrics.push(m);
    }
    Ok(order
        .into_iter()
        .map(|k| trials.remove(&k).expect("inserted above"))
        .collect())
}

/// One entry: the trial it belongs to and its metric. An error names the field (`.better`,
/// or none for the entry) and what it should have held.
fn entry(raw: serde_json::Value) -> Result<(Key, Metric), (&'static str, String)> {
    let e: Entry = serde_json::from_value(raw).map_err(|err| {
        let expected =
            format!("name, value (number), unit, better, and optionally arm, params, repeat: {err}");
        ("", expected)
    })?;
    let better = match e.better.as_str() {
        "higher" => Better::Higher,
        "lower" => Better::Lower,
        other => {
            return Err((".better", format!("\"higher\" or \"lower\", found {other:?}")));
        }
    };
    if !e.value.is_finite() {
        return Err((".value", "a finite number".to_string()));
    }
    let params: Params = e
        .params
        .into_iter()
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => (k, s),
            v => (k, v.to_string()),
        })
        .collect();
    let m = metric("metrics-json", &e.name, e.value, &e.unit, better);
    Ok(((e.arm, params, e.repeat), m))
}

/// perfhouse metrics JSON as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document =
    super::adapter::json_document!(
        "metrics-json",
        "perfhouse's own metrics JSON (name, value, unit, better, arm, params, repeat)",
        "perfhouse's metrics JSON"
    );
