//! Google Benchmark `--benchmark_format=json` / `--benchmark_out`. Upstream definition:
//! `JSONReporter` in google/benchmark `src/json_reporter.cc`.
//!
//! Every iteration row (a repetition) is a trial. The arm is the benchmark's family name (the
//! part before the first `/`), and the rest of the name becomes params: `key:value` segments as
//! themselves, bare arguments as `arg0`, `arg1`… (`BM_memcpy/64/threads:2` → arm `BM_memcpy`,
//! `arg0=64 threads=2`). `real_time`/`cpu_time` are normalised from `time_unit` to ns;
//! `items_per_second`/`bytes_per_second` are kept (higher is better).
//! Aggregate rows (mean/median/stddev/cv of repetitions) are derived data: they are skipped
//! when the repetitions are present, and ingested as `real_time_<aggregate>` otherwise
//! (`--benchmark_report_aggregates_only`); a `percentage` aggregate (cv) is kept as a ratio.
//! BigO/RMS rows are skipped. The `NaN`/`Infinity` literals the reporter can write (invalid
//! JSON) are read as missing values.
//!
//! Nothing lands empty: a row the benchmark skipped (`"error_occurred": true` with its
//! `error_message`, from `SkipWithError`; `"skipped": true` with its `skip_message`, from
//! `SkipWithMessage`; the reporter still writes `real_time`/`cpu_time` 0 for them) and a row
//! without a single figure (no `real_time`, `cpu_time`, `items_per_second` or
//! `bytes_per_second`) land nothing; all of them are named, with their line and why, in one
//! warning. A file none of whose rows has a figure is refused, naming them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;

use super::adapter::Parsed;
use super::text::{line_error, metric, sanitize};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

#[derive(Deserialize)]
struct Report {
    benchmarks: Vec<Run>,
}

#[derive(Deserialize)]
struct Run {
    name: String,
    run_name: Option<String>,
    run_type: Option<String>,
    aggregate_name: Option<String>,
    aggregate_unit: Option<String>,
    real_time: Option<f64>,
    cpu_time: Option<f64>,
    time_unit: Option<String>,
    items_per_second: Option<f64>,
    bytes_per_second: Option<f64>,
    error_occurred: Option<bool>,
    error_message: Option<String>,
    skipped: Option<bool>,
    skip_message: Option<String>,
}

impl Run {
    /// A row of statistics over repetitions (`mean`, `stddev`…), not a run.
    fn is_aggregate(&self) -> bool {
        self.run_type.as_deref() == Some("aggregate")
    }

    /// Why the benchmark itself skipped this row (`SkipWithError` / `SkipWithMessage`).
    fn skip_reason(&self) -> Option<String> {
        if self.error_occurred == Some(true) {
            Some(format!(
                "error {:?}",
                self.error_message.as_deref().unwrap_or("")
            ))
        } else if self.skipped == Some(true) {
            Some(format!(
                "skipped {:?}",
                self.skip_message.as_deref().unwrap_or("")
            ))
        } else {
            None
        }
    }
}

pub fn sniff(doc: &serde_json::Value) -> bool {
    doc.get("benchmarks")
        .and_then(|b| b.as_array())
        .is_some_and(|b| {
            b.first().is_some_and(|r| {
                r.get("name").is_some()
                    && (r.get("real_time").is_some() || r.get("run_type").is_some())
            })
        })
}


fn ns_per(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => return None,
    })
}

/// `BM_memcpy/64/threads:2` → (`BM_memcpy`, {arg0: 64, threads: 2}).
fn split_name(name: &str) -> (String, BTreeMap<String, String>) {
    let mut parts = name.split('/');
    let family = parts.next().unwrap_or(name).to_string();
    let mut params = BTreeMap::new();
    let mut arg = 0;
    for p in parts {
        match p.split_once(':') {
            Some((k, v)) => {
                params.insert(k.to_string(), v.to_string());
            }
            None => {
                params.insert(format!("arg{arg}"), p.to_string());
                arg += 1;
            }
        }
    }
    (family, params)
}

/// The line of each object of the top-level `benchmarks` array, in order (the rows'
/// lines for messages; strings and nested values are stepped over).
fn row_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let (mut depth, mut line) = (0usize, 1usize);
    let (mut in_string, mut escaped, mut start) = (false, false, 0);
    // The last string at depth 1 was the key `benchmarks`; inside its array.
    let (mut key, mut rows) = (false, false);
    for (i, c) in text.char_indices() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    in_string = false;
                    if depth == 1 {
                        key = &text[start..i] == "benchmarks";
                    }
                }
                _ => {}
            }
            continue;
        }
        match c {
            '"' => (in_string, start) = (true, i + 1),
            ',' => key = false,
            '[' => {
                rows |= depth == 1 && key;
                depth += 1;
            }
            '{' => {
                if rows && depth == 2 {
                    lines.push(line);
                }
                depth += 1;
            }
            ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 1 && c == ']' {
                    rows = false;
                }
            }
            _ => {}
        }
    }
    lines
}

/// At most this many rows are named in a message; the rest are counted.
const NAMED: usize = 10;

/// `` `name` (line N): why `` for each left-out row, the first [`NAMED`] of them.
fn name_rows(rows: &[LeftOut]) -> String {
    let mut named: Vec<String> = rows
        .iter()
        .take(NAMED)
        .map(|(name, line, why)| match line {
            Some(l) => format!("`{name}` (line {l}): {why}"),
            None => format!("`{name}`: {why}"),
        })
        .collect();
    if rows.len() > NAMED {
        named.push(format!("and {} more", rows.len() - NAMED));
    }
    named.join("; ")
}

/// A row that lands nothing: its name, line (where known) and why.
type LeftOut = (String, Option<usize>, String);

pub fn parse(path: &Path, text: &str) -> Result<Parsed, IngestError> {
    let report: Report = serde_json::from_str(&sanitize(text)).map_err(|e| {
        line_error(
            path,
            e.line(),
            format!("{e} (expected Google Benchmark JSON output)"),
        )
    })?;
    let lines = row_lines(text);
    let line_of = |i: usize| (lines.len() == report.benchmarks.len()).then(|| lines[i]);
    let with_repetitions: BTreeSet<String> = report
        .benchmarks
        .iter()
        .filter(|r| !r.is_aggregate())
        .map(|r| r.run_name.clone().unwrap_or_else(|| r.name.clone()))
        .collect();
    let mut trials = Vec::new();
    let mut left_out: Vec<LeftOut> = Vec::new();
    for (i, r) in report.benchmarks.iter().enumerate() {
        if r.name.ends_with("_BigO") || r.name.ends_with("_RMS") {
            continue;
        }
        if let Some(why) = r.skip_reason() {
            left_out.push((r.name.clone(), line_of(i), why));
            continue;
        }
        let base = r.run_name.clone().unwrap_or_else(|| r.name.clone());
        // An aggregate of a benchmark whose repetitions are rows of their own restates them.
        if r.is_aggregate() && with_repetitions.contains(&base) {
            continue;
        }
        let metrics = row_metrics(path, i, r, line_of(i))?;
        if metrics.is_empty() {
            let why = "no real_time, cpu_time, items_per_second or bytes_per_second";
            left_out.push((r.name.clone(), line_of(i), why.to_string()));
            continue;
        }
        let (arm, params) = split_name(&base);
        trials.push(ParsedTrial {
            arm: Some(arm),
            params,
            metrics,
            ..Default::default()
        });
    }
    finish(path, trials, &left_out)
}

/// The figures of row `i` (at `line`): its times in ns (a ratio in a `percentage`
/// aggregate) and its rates, named with the aggregate's suffix (`real_time_mean`).
fn row_metrics(
    path: &Path,
    i: usize,
    r: &Run,
    line: Option<usize>,
) -> Result<Vec<Metric>, IngestError> {
    let suffix = if r.is_aggregate() {
        format!("_{}", r.aggregate_name.as_deref().unwrap_or("aggregate"))
    } else {
        String::new()
    };
    let unit = r.time_unit.as_deref().unwrap_or("ns");
    let scale = ns_per(unit).ok_or_else(|| IngestError::Field {
        path: path.to_path_buf(),
        line: line.unwrap_or(0),
        field: format!("benchmarks[{i}].time_unit"),
        expected: format!("ns, us, ms or s, found {unit:?}"),
    })?;
    // A `percentage` aggregate (the coefficient of variation) is a ratio, not a time.
    let (scale, time_unit) = if r.aggregate_unit.as_deref() == Some("percentage") {
        (1.0, "ratio")
    } else {
        (scale, "ns")
    };
    let m = |name: &str, value: f64, unit: &str, better| {
        metric("gbench", &format!("{name}{suffix}"), value, unit, better)
    };
    let mut metrics = Vec::new();
    for (name, value) in [("real_time", r.real_time), ("cpu_time", r.cpu_time)] {
        if let Some(v) = value {
            metrics.push(m(name, v * scale, time_unit, Better::Lower));
        }
    }
    // A rate is better higher; its spread across repetitions (stddev, and the cv, a
    // fraction like every figure of a `percentage` row) is better lower.
    let rate = |unit: &'static str| match (time_unit, r.aggregate_name.as_deref()) {
        ("ratio", _) => ("ratio", Better::Lower),
        (_, Some("stddev")) => (unit, Better::Lower),
        _ => (unit, Better::Higher),
    };
    for (name, value, unit) in [
        ("items_per_second", r.items_per_second, "items/s"),
        ("bytes_per_second", r.bytes_per_second, "B/s"),
    ] {
        if let Some(v) = value {
            let (unit, better) = rate(unit);
            metrics.push(m(name, v, unit, better));
        }
    }
    Ok(metrics)
}

/// The trials, refused when none landed, and the one warning naming the rows left out.
fn finish(path: &Path, trials: Vec<ParsedTrial>, left_out: &[LeftOut]) -> Result<Parsed, IngestError> {
    if trials.is_empty() && !left_out.is_empty() {
        return Err(line_error(
            path,
            left_out[0].1.unwrap_or(1),
            format!(
                "nothing to land: none of its {} benchmark row(s) has a figure (expected \
                 `real_time`/`cpu_time` with `time_unit`, or `items_per_second`/`bytes_per_second`, \
                 as `--benchmark_format=json` writes a benchmark that ran; a row skipped with \
                 SkipWithError/SkipWithMessage has none): {}",
                left_out.len(),
                name_rows(left_out)
            ),
        ));
    }
    if trials.is_empty() {
        return Err(line_error(
            path,
            1,
            "no benchmark results (only BigO/RMS rows)",
        ));
    }
    let warning = (!left_out.is_empty()).then(|| {
        format!(
            "{}: {} benchmark row(s) without figures land nothing: {}",
            path.display(),
            left_out.len(),
            name_rows(left_out)
        )
    });
    Ok(Parsed::with_warnings(trials, warning))
}

/// Google Benchmark JSON as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::json_document!(
    "gbench",
    "Google Benchmark JSON: every repetition of every benchmark is a trial",
    "Google Benchmark JSON",
    parse
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_and_inf_become_null_outside_strings() {
        let s = sanitize(
            r#"{"a": NaN, "b": -inf, "c": "NaN inside", "d": Infinity, "e": 1e5, "f": -nan}"#,
        );
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert!(v["a"].is_null() && v["b"].is_null() && v["d"].is_null() && v["f"].is_null());
        assert_eq!(v["c"], "NaN inside");
        assert_eq!(v["e"], 1e5);
    }

    #[test]
    fn a_long_bare_word_passes_through_whole() {
        // A 1 MB word once took minutes (each of its characters rescanned the rest).
        let word = "x".repeat(1 << 20);
        assert_eq!(sanitize(&word), word);
        assert_eq!(sanitize("[-1, nanx, inf]"), "[-1, nanx, null]");
    }

    #[test]
    fn names_split_into_family_and_params() {
        let (arm, p) = split_name("BM_memcpy/64/threads:2");
        assert_eq!(arm, "BM_memcpy");
        assert_eq!(p.get("arg0").map(String::as_str), Some("64"));
        assert_eq!(p.get("threads").map(String::as_str), Some("2"));
    }

    #[test]
    fn rows_are_found_by_line_past_strings_and_nested_values() {
        let text = "{\"context\": {\"caches\": [{\"level\": 1}], \"s\": \"benchmarks\"},\n\
                    \"benchmarks\": [\n  {\"name\": \"a{[\\\"\", \"x\": {\"y\": [1]}},\n\n  {\"name\": \"b\"}\n]}";
        assert_eq!(row_lines(text), vec![3, 5]);
    }

    #[test]
    fn skipped_and_figureless_rows_are_one_warning() {
        let text = r#"{"benchmarks": [
  {"name": "BM_ok", "run_type": "iteration", "real_time": 2.0, "cpu_time": 1.0, "time_unit": "us"},
  {"name": "BM_err", "run_type": "iteration", "error_occurred": true, "error_message": "no file",
   "iterations": 0, "real_time": 0.0, "cpu_time": 0.0, "time_unit": "ns"},
  {"name": "BM_skip", "run_type": "iteration", "skipped": true, "skip_message": "no GPU",
   "iterations": 0, "real_time": 0.0, "cpu_time": 0.0, "time_unit": "ns"},
  {"name": "BM_bare", "run_type": "iteration"}
]}"#;
        let p = parse(Path::new("b.json"), text).unwrap();
        assert_eq!(p.trials.len(), 1);
        assert_eq!(p.trials[0].arm.as_deref(), Some("BM_ok"));
        assert_eq!(p.trials[0].metrics[0].value, 2000.0);
        assert_eq!(
            p.warnings,
            vec![
                "b.json: 3 benchmark row(s) without figures land nothing: `BM_err` (line 3): \
                 error \"no file\"; `BM_skip` (line 5): skipped \"no GPU\"; `BM_bare` (line 7): \
                 no real_time, cpu_time, items_per_second or bytes_per_second"
                    .to_string()
            ]
        );
    }

    #[test]
    fn a_file_without_a_figure_is_refused_naming_its_rows() {
        let rows: Vec<String> = (0..12)
            .map(|i| format!("{{\"name\": \"r{i}\", \"run_type\": \"iteration\"}}"))
            .collect();
        let text = format!("{{\"benchmarks\": [\n{}\n]}}", rows.join(",\n"));
        let e = parse(Path::new("b.json"), &text).unwrap_err().to_string();
        assert!(e.starts_with("b.json:2: nothing to land: none of its 12 benchmark row(s) has a figure"), "{e}");
        assert!(e.contains("`r0` (line 2): no real_time"), "{e}");
        assert!(e.contains("`r9` (line 11)") && !e.contains("`r10`"), "{e}");
        assert!(e.ends_with("; and 2 more"), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in ".{0,300}") {
            let _ = parse(Path::new("fuzz.json"), &text);
            let _ = sanitize(&text);
        }
    }
}
