//! Julia BenchmarkTools JSON (`BenchmarkTools.save`): `[{"Julia": v, "BenchmarkTools": v},
//! [value…]]` where a value is a tagged pair `[TypeName, {fields}]`: `BenchmarkGroup`
//! (`data`: key → value, nested), `TrialEstimate` (`time`, `gctime` in ns, `memory` in bytes,
//! `allocs`) or `Trial` (per-sample `times`/`gctimes`, `memory`, `allocs`).
//!
//! The benchmark is the path of group keys (`fib` → `20`); as gbench's names, its first key
//! is the arm and later keys are params (`key=value`-looking keys as themselves, others as
//! `arg0`, `arg1`…). A `TrialEstimate` is one trial with `time` and `gctime` (ns),
//! `memory` (B) and `allocs` (allocs), all lower is better. A raw `Trial` becomes one trial
//! per sample (repeats 0..n-1), each with that sample's `time` and `gctime` and the trial's
//! `memory` and `allocs`. Several top-level values are numbered with param `set`.

use std::path::Path;

use serde_json::Value;

use super::text::{field_error, json_error, metric, name_params, no_benchmarks};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

pub fn sniff(doc: &Value) -> bool {
    doc.as_array()
        .is_some_and(|a| a.len() == 2 && a[0].get("BenchmarkTools").is_some() && a[1].is_array())
}

fn m(name: &str, v: f64, unit: &str) -> Metric {
    metric("julia", name, v, unit, Better::Lower)
}

/// The trial of the benchmark at `keys`: the first key its arm, the rest its params (as
/// gbench splits a name), and the parameter set's index.
fn named_trial(keys: &[String], set: Option<usize>) -> ParsedTrial {
    let (arm, rest) = keys
        .split_first()
        .map_or(("benchmark".to_string(), &[][..]), |(a, r)| (a.clone(), r));
    let parts: Vec<&str> = rest.iter().map(String::as_str).collect();
    let mut params = name_params(&parts);
    if let Some(s) = set {
        params.insert("set".to_string(), s.to_string());
    }
    ParsedTrial {
        arm: Some(arm),
        params,
        ..Default::default()
    }
}

/// The memory and allocation figures of a `TrialEstimate` or `Trial`, where it has them.
fn memory_and_allocs(fields: &Value, t: &mut ParsedTrial) {
    let f = |k: &str| fields.get(k).and_then(Value::as_f64);
    if let Some(v) = f("memory") {
        t.metrics.push(m("memory", v, "B"));
    }
    if let Some(v) = f("allocs") {
        t.metrics.push(m("allocs", v, "allocs"));
    }
}

/// A `TrialEstimate` (at `where_`): one trial of its time, gc time, memory and allocations.
fn estimate(path: &Path, where_: &str, fields: &Value, mut t: ParsedTrial) -> Result<ParsedTrial, IngestError> {
    let f = |k: &str| fields.get(k).and_then(Value::as_f64);
    let time = f("time").ok_or_else(|| field_error(path, format!("{where_}.time"), "a time in ns"))?;
    t.metrics.push(m("time", time, "ns"));
    if let Some(v) = f("gctime") {
        t.metrics.push(m("gctime", v, "ns"));
    }
    memory_and_allocs(fields, &mut t);
    Ok(t)
}

/// A `Trial` (at `where_`): one trial per sample, each a repeat of the benchmark's trial.
fn samples(
    path: &Path,
    where_: &str,
    fields: &Value,
    trial: impl Fn() -> ParsedTrial,
) -> Result<Vec<ParsedTrial>, IngestError> {
    let arr = |k: &str| -> Vec<f64> {
        fields
            .get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    let (times, gctimes) = (arr("times"), arr("gctimes"));
    if times.is_empty() {
        return Err(field_error(
            path,
            format!("{where_}.times"),
            "the samples' times in ns",
        ));
    }
    let mut out = Vec::new();
    for (r, time) in times.iter().enumerate() {
        let mut t = trial();
        t.repeat = Some(r as i32);
        t.metrics.push(m("time", *time, "ns"));
        if let Some(g) = gctimes.get(r) {
            t.metrics.push(m("gctime", *g, "ns"));
        }
        memory_and_allocs(fields, &mut t);
        out.push(t);
    }
    Ok(out)
}

fn walk(
    path: &Path,
    keys: &mut Vec<String>,
    v: &Value,
    set: Option<usize>,
    out: &mut Vec<ParsedTrial>,
) -> Result<(), IngestError> {
    let where_ = format!("/{}", keys.join("/"));
    let pair = v
        .as_array()
        .filter(|a| a.len() == 2)
        .ok_or_else(|| field_error(path, where_.clone(), "a tagged value `[TypeName, {…}]`"))?;
    let (tag, fields) = (pair[0].as_str().unwrap_or(""), &pair[1]);
    match tag {
        "BenchmarkGroup" => {
            let data = fields
                .get("data")
                .and_then(Value::as_object)
                .ok_or_else(|| field_error(path, format!("{where_}.data"), "an object"))?;
            for (k, child) in data {
                keys.push(k.clone());
                walk(path, keys, child, set, out)?;
                keys.pop();
            }
        }
        "TrialEstimate" => out.push(estimate(path, &where_, fields, named_trial(keys, set))?),
        "Trial" => out.extend(samples(path, &where_, fields, || named_trial(keys, set))?),
        other => {
            return Err(field_error(
                path,
                where_,
                &format!("BenchmarkGroup, TrialEstimate or Trial, found {other:?}"),
            ));
        }
    }
    Ok(())
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| json_error(path, &e, "BenchmarkTools JSON `[{…}, [values]]`"))?;
    let values = doc
        .as_array()
        .and_then(|a| a.get(1))
        .and_then(Value::as_array)
        .ok_or_else(|| field_error(path, "[1]", "the list of saved values"))?;
    let mut out = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let set = (values.len() > 1).then_some(i);
        walk(path, &mut Vec::new(), v, set, &mut out)?;
    }
    if out.is_empty() {
        return Err(no_benchmarks(
            path,
            "a TrialEstimate or Trial in the saved groups",
        ));
    }
    Ok(out)
}

/// BenchmarkTools JSON as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::json_document!(
    "julia-benchmarktools",
    "Julia BenchmarkTools JSON (BenchmarkTools.save): each estimate is a trial",
    "BenchmarkTools JSON"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_trial_samples_become_repeats() {
        let text = r#"[{"Julia":"1.9","BenchmarkTools":"1.3"},[["BenchmarkGroup",{"data":{"sum":["BenchmarkGroup",{"data":{"n=10":
            ["Trial",{"times":[10.0,12.0],"gctimes":[0.0,1.0],"memory":16,"allocs":1,"params":["Parameters",{}]}]},"tags":[]}]},"tags":[]}]]]"#;
        let t = parse(Path::new("x"), text).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[1].repeat, Some(1));
        assert_eq!(t[1].params["n"], "10");
        assert_eq!(t[1].metrics[0].value, 12.0);
        assert_eq!(t[1].metrics[1].value, 1.0);
    }
}
