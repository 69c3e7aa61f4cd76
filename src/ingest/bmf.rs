//! Bencher Metric Format (BMF) JSON (https://bencher.dev/docs/reference/bencher-metric-format/):
//! `{"<benchmark>": {"<measure>": {"value": n, "lower_value"?: n, "upper_value"?: n}}}`.
//!
//! Each benchmark is one trial whose arm is its name; each measure is a metric named by its
//! slug (`latency`, `throughput`, `Total Bytes` → `total_bytes`) with `<slug>_lower` /
//! `<slug>_upper` for the bounds. Units as Bencher's built-in measures define them: `latency`
//! in ns, `throughput` in ops/s (the only higher-is-better one); any other measure has no unit
//! in the file and is stored with an empty unit, lower is better.

use std::path::Path;

use serde_json::Value;

use super::text::{field_error, json_error, metric, no_benchmarks, slug};
use super::{IngestError, ParsedTrial};
use crate::model::Better;

fn is_measure(v: &Value) -> bool {
    v.as_object().is_some_and(|o| {
        o.get("value").is_some_and(Value::is_number)
            && o.keys()
                .all(|k| matches!(k.as_str(), "value" | "lower_value" | "upper_value"))
    })
}

pub fn sniff(doc: &Value) -> bool {
    doc.as_object().is_some_and(|o| {
        !o.is_empty()
            && o.values().all(|b| {
                b.as_object()
                    .is_some_and(|m| !m.is_empty() && m.values().all(is_measure))
            })
    })
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| json_error(path, &e, "Bencher Metric Format JSON"))?;
    let benches = doc
        .as_object()
        .ok_or_else(|| field_error(path, "(top level)", "an object of benchmarks"))?;
    let mut trials = Vec::new();
    for (name, measures) in benches {
        let measures = measures
            .as_object()
            .ok_or_else(|| field_error(path, name.clone(), "an object of measures"))?;
        let mut t = ParsedTrial {
            arm: Some(name.clone()),
            ..Default::default()
        };
        for (measure, v) in measures {
            let get = |k: &str| v.get(k).and_then(Value::as_f64);
            let value = get("value")
                .ok_or_else(|| field_error(path, format!("{name}.{measure}.value"), "a number"))?;
            let s = slug(measure);
            let (unit, better) = match s.as_str() {
                "latency" => ("ns", Better::Lower),
                "throughput" => ("ops/s", Better::Higher),
                _ => ("", Better::Lower),
            };
            t.metrics.push(metric("bmf", &s, value, unit, better));
            for (k, suffix) in [("lower_value", "lower"), ("upper_value", "upper")] {
                if let Some(b) = get(k) {
                    t.metrics
                        .push(metric("bmf", &format!("{s}_{suffix}"), b, unit, better));
                }
            }
        }
        trials.push(t);
    }
    if trials.is_empty() {
        return Err(no_benchmarks(
            path,
            "BMF `{\"<benchmark>\": {\"<measure>\": {\"value\": n}}}`",
        ));
    }
    Ok(trials)
}

/// BMF JSON as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::json_document!(
    "bmf",
    "Bencher Metric Format JSON: each benchmark is a trial, each measure a metric",
    "Bencher Metric Format JSON"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_and_bounds() {
        let text = r#"{"a::b":{"latency":{"value":3247.0,"lower_value":1044.0},"Total Bytes":{"value":662}}}"#;
        let doc: Value = serde_json::from_str(text).unwrap();
        assert!(sniff(&doc));
        assert!(!sniff(
            &serde_json::json!({"mean": {"point_estimate": 1.0}})
        ));
        let t = parse(Path::new("x"), text).unwrap();
        let m: Vec<_> = t[0]
            .metrics
            .iter()
            .map(|m| (m.name.as_str(), m.value, m.unit.as_str()))
            .collect();
        assert_eq!(
            m,
            [
                ("total_bytes", 662.0, ""),
                ("latency", 3247.0, "ns"),
                ("latency_lower", 1044.0, "ns")
            ]
        );
    }
}
