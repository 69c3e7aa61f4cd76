//! github-action-benchmark's custom JSON (tools `customBiggerIsBetter` /
//! `customSmallerIsBetter`): `[{"name", "unit", "value", "range"?, "extra"?}]`.
//!
//! Each entry is one trial: the arm is its `name`, metric `value` in its `unit` (a numeric
//! string is read as its number, as github-action-benchmark does), and `range` (a number,
//! `"3"`, `"±3"` or a percentage of the value, `"5%"`) as `range` in the same unit. The file
//! does not say which way is better (the workflow's `tool:` does): a file name holding
//! `BiggerIsBetter`/`bigger` makes it higher, `SmallerIsBetter`/`smaller` lower; otherwise
//! a unit that is a rate (`…/s`, `…/sec`, `ops`, `per second`) is higher-is-better and any
//! other lower, with a warning naming what was assumed. `extra` is not kept.

use std::path::Path;

use serde_json::Value;

use super::adapter::Parsed;
use super::text::{field_error, json_error, metric, no_benchmarks};
use super::{IngestError, ParsedTrial};
use crate::model::Better;

const KEYS: [&str; 5] = ["name", "unit", "value", "range", "extra"];

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

pub fn sniff(doc: &Value) -> bool {
    doc.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter().all(|e| {
                e.as_object().is_some_and(|o| {
                    o.keys().all(|k| KEYS.contains(&k.as_str()))
                        && o.get("name").is_some_and(Value::is_string)
                        && o.get("unit").is_some_and(Value::is_string)
                        && o.get("value").and_then(num).is_some()
                })
            })
    })
}

fn direction(path: &Path, unit: &str) -> (Better, bool) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.contains("bigger") {
        return (Better::Higher, true);
    }
    if name.contains("smaller") {
        return (Better::Lower, true);
    }
    let u = unit.to_ascii_lowercase();
    let rate = u.ends_with("/s") || u.ends_with("/sec") || u.contains("per second") || u == "ops";
    (if rate { Better::Higher } else { Better::Lower }, false)
}

pub fn parse(path: &Path, text: &str) -> Result<Parsed, IngestError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        json_error(
            path,
            &e,
            "github-action-benchmark custom JSON `[{\"name\", \"unit\", \"value\"}]`",
        )
    })?;
    let entries = doc
        .as_array()
        .ok_or_else(|| field_error(path, "(top level)", "an array of {name, unit, value}"))?;
    let mut parsed = Parsed::default();
    let mut assumed = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let name = e
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| field_error(path, format!("[{i}].name"), "a string"))?;
        let unit = e
            .get("unit")
            .and_then(Value::as_str)
            .ok_or_else(|| field_error(path, format!("[{i}].unit"), "a string"))?;
        let value = e
            .get("value")
            .and_then(num)
            .ok_or_else(|| field_error(path, format!("[{i}].value"), "a number"))?;
        let (better, told) = direction(path, unit);
        if !told {
            assumed.push(format!(
                "`{name}` ({unit}): {}",
                if better == Better::Higher {
                    "higher"
                } else {
                    "lower"
                }
            ));
        }
        let mut metrics = vec![metric("gab-custom", "value", value, unit, better)];
        let range = e.get("range").and_then(|r| match r {
            Value::String(s) => {
                let s = s
                    .trim()
                    .trim_start_matches('±')
                    .trim_start_matches("+/-")
                    .trim();
                match s.strip_suffix('%') {
                    Some(p) => p.trim().parse::<f64>().ok().map(|p| value * p / 100.0),
                    None => s.parse().ok(),
                }
            }
            v => v.as_f64(),
        });
        if let Some(r) = range {
            metrics.push(metric("gab-custom", "range", r, unit, Better::Lower));
        }
        parsed.trials.push(ParsedTrial {
            arm: Some(name.to_string()),
            metrics,
            ..Default::default()
        });
    }
    if parsed.trials.is_empty() {
        return Err(no_benchmarks(
            path,
            "entries `{\"name\", \"unit\", \"value\"}`",
        ));
    }
    if !assumed.is_empty() {
        parsed.warnings.push(format!(
            "{}: the file does not say whether bigger or smaller is better (name it …BiggerIsBetter… or …SmallerIsBetter…); assumed from the unit: {}",
            path.display(),
            assumed.join(", ")
        ));
    }
    Ok(parsed)
}

/// github-action-benchmark custom JSON as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::json_document!(
    "gab-custom",
    "github-action-benchmark customBiggerIsBetter/customSmallerIsBetter JSON: each entry is a trial",
    "github-action-benchmark custom JSON",
    parse
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_from_name_or_unit_and_ranges() {
        let text = r#"[{"name":"a","unit":"req/s","value":"31","range":"5%"},{"name":"b","unit":"ms","value":2,"range":0.5}]"#;
        let p = parse(Path::new("x.json"), text).unwrap();
        assert_eq!(p.trials[0].metrics[0].value, 31.0);
        assert_eq!(p.trials[0].metrics[0].better, Better::Higher);
        assert_eq!(p.trials[0].metrics[1].value, 1.55);
        assert_eq!(p.trials[1].metrics[0].better, Better::Lower);
        assert_eq!(p.warnings.len(), 1);
        let p = parse(Path::new("customSmallerIsBetter.json"), text).unwrap();
        assert_eq!(p.trials[0].metrics[0].better, Better::Lower);
        assert!(p.warnings.is_empty());
        assert!(!sniff(
            &serde_json::json!([{"name":"a","unit":"","value":1,"better":"lower"}])
        ));
    }
}
