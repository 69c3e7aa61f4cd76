//! JMH JSON results (`-rf json`, `org.openjdk.jmh.results.format.JSONResultFormat`): an array
//! with one object per benchmark × params × mode.
//!
//! Each object is one trial: the arm is `benchmark` (the method's fully qualified name); its
//! `params` become params, with `mode` (`thrpt`, `avgt`, `sample`, `ss`) and `threads`.
//! The primary score (JMH's mean over all measurement iterations of all forks) is kept as
//! `throughput` in ops/s (higher is better) when its unit is `ops/<time>`, else as
//! `time_per_op` in ns (lower is better), with its `scoreError` as `throughput_error` /
//! `time_per_op_error` in the same unit. The per-iteration `rawData` are not stored (the score
//! is what JMH reports; they are not separate trials). Each of `secondaryMetrics` (profilers:
//! `·gc.alloc.rate.norm` in B/op, `·gc.alloc.rate` in MB/sec, `·gc.count`…) is kept with its
//! own unit under its name without the leading `·`, higher is better only for a rate of
//! operations (`ops/…`). Units other than time and `ops/<time>` are kept as written.

use std::path::Path;

use serde_json::Value;

use super::text::{field_error, json_error, metric, no_benchmarks};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

pub fn sniff(doc: &Value) -> bool {
    doc.as_array()
        .and_then(|a| a.first())
        .is_some_and(|r| r.get("benchmark").is_some() && r.get("primaryMetric").is_some())
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

/// The primary or a secondary metric `{score, scoreError, scoreUnit}` as metrics.
fn score(
    path: &Path,
    field: &str,
    name: Option<&str>,
    m: &Value,
) -> Result<Vec<Metric>, IngestError> {
    let unit = m
        .get("scoreUnit")
        .and_then(Value::as_str)
        .ok_or_else(|| field_error(path, format!("{field}.scoreUnit"), "a unit string"))?;
    let value = m
        .get("score")
        .and_then(num)
        .ok_or_else(|| field_error(path, format!("{field}.score"), "a number"))?;
    let error = m.get("scoreError").and_then(num).filter(|e| e.is_finite());
    let (per, time) = unit.split_once('/').unwrap_or((unit, ""));
    let ns = super::text::ns_per(time.trim_end_matches("ec"));
    let ns_op = super::text::ns_per(per);
    let (base, scale, unit_out, better) = match (per, ns, ns_op, time) {
        ("ops", Some(ns), _, _) => ("throughput", 1e9 / ns, "ops/s".to_string(), Better::Higher),
        (_, _, Some(ns), "op") => ("time_per_op", ns, "ns".to_string(), Better::Lower),
        _ => (
            "score",
            1.0,
            unit.to_string(),
            if per == "ops" {
                Better::Higher
            } else {
                Better::Lower
            },
        ),
    };
    let base = name.unwrap_or(base);
    // A unit JMH writes in ns or ops/s is kept exactly as written.
    let conv = |v: f64| if scale == 1.0 { v } else { v * scale };
    let mut out = vec![metric("jmh", base, conv(value), &unit_out, better)];
    if let Some(e) = error {
        out.push(metric(
            "jmh",
            &format!("{base}_error"),
            conv(e),
            &unit_out,
            Better::Lower,
        ));
    }
    Ok(out)
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let sanitized = super::text::sanitize(text);
    let doc: Value = serde_json::from_str(&sanitized)
        .map_err(|e| json_error(path, &e, "a JMH JSON result array"))?;
    let runs = doc
        .as_array()
        .ok_or_else(|| field_error(path, "(top level)", "an array of JMH results"))?;
    let mut trials = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let bench = r
            .get("benchmark")
            .and_then(Value::as_str)
            .ok_or_else(|| field_error(path, format!("[{i}].benchmark"), "the benchmark's name"))?;
        let primary = r
            .get("primaryMetric")
            .ok_or_else(|| field_error(path, format!("[{i}].primaryMetric"), "an object"))?;
        let mut metrics = score(path, &format!("[{i}].primaryMetric"), None, primary)?;
        if let Some(sec) = r.get("secondaryMetrics").and_then(Value::as_object) {
            for (k, m) in sec {
                let name = k.trim_start_matches('·').trim_start_matches('\u{b7}');
                metrics.extend(score(
                    path,
                    &format!("[{i}].secondaryMetrics.{k}"),
                    Some(name),
                    m,
                )?);
            }
        }
        let mut t = ParsedTrial {
            arm: Some(bench.to_string()),
            metrics,
            ..Default::default()
        };
        if let Some(p) = r.get("params").and_then(Value::as_object) {
            for (k, v) in p {
                let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                t.params.insert(k.clone(), v);
            }
        }
        if let Some(m) = r.get("mode").and_then(Value::as_str) {
            t.params.insert("mode".to_string(), m.to_string());
        }
        if let Some(n) = r.get("threads").and_then(Value::as_i64) {
            t.params.insert("threads".to_string(), n.to_string());
        }
        trials.push(t);
    }
    if trials.is_empty() {
        return Err(no_benchmarks(
            path,
            "JMH results `[{\"benchmark\", \"primaryMetric\"…}]`",
        ));
    }
    Ok(trials)
}

/// JMH JSON as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::json_document!(
    "jmh",
    "JMH JSON results (-rf json): each benchmark × params × mode is a trial",
    "JMH JSON"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_modes_and_gc_profiler() {
        let text = r#"[{"benchmark":"a.B.c","mode":"avgt","threads":2,"params":{"n":"10"},
          "primaryMetric":{"score":1.5,"scoreError":"NaN","scoreUnit":"us/op"},
          "secondaryMetrics":{"·gc.alloc.rate.norm":{"score":24.0,"scoreError":0.001,"scoreUnit":"B/op"}}},
          {"benchmark":"a.B.d","mode":"thrpt","primaryMetric":{"score":2.5,"scoreError":0.5,"scoreUnit":"ops/ms"}}]"#;
        let t = parse(Path::new("x"), text).unwrap();
        assert_eq!(t[0].metrics[0].name, "time_per_op");
        assert_eq!(t[0].metrics[0].value, 1500.0);
        assert_eq!(t[0].metrics.len(), 3, "NaN error left out");
        assert_eq!(t[0].metrics[1].name, "gc.alloc.rate.norm");
        assert_eq!(
            (t[0].metrics[1].value, t[0].metrics[1].unit.as_str()),
            (24.0, "B/op")
        );
        assert_eq!(
            (t[0].params["n"].as_str(), t[0].params["mode"].as_str()),
            ("10", "avgt")
        );
        assert_eq!(t[1].metrics[0].value, 2500.0);
        assert_eq!(t[1].metrics[0].better, Better::Higher);
        assert_eq!(t[1].metrics[1].value, 500.0);
    }
}
