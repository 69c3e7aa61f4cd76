//! aiperf's summaries of a profiling run: `profile_export_aiperf.json`, `profile_export_aiperf.csv`
//! and `phase_manifest.json`, all → metrics of the trial whose artifact directory holds them.
//!
//! Upstream definitions (github.com/ai-dynamo/aiperf):
//! - JSON: `aiperf/exporters/json_exporter.py`. Two layouts: the old one nests metric blocks
//!   under `"records"` (each with `tag`, `header`, `unit`, `avg`…`p99`, `std`, `count`); the
//!   current one (`schema_version` "1.0") puts the blocks at top level keyed by tag. Statistics
//!   may be `null` (a count has only `avg`).
//! - CSV: `aiperf/exporters/csv_exporter.py`, written by Python's `csv` (CRLF). Sections are
//!   separated by a blank line; each starts with a header row whose first cell is `Metric`.
//!   Columns are read by header name (`p10` and `sum` exist only in newer versions). A metric
//!   cell is `Header (unit)`; its tag is the header in snake case, as the JSON's.
//! - `phase_manifest.json`: `aiperf/exporters/exporter_manager.py` (`_phase_manifest_entry`):
//!   per phase, start/end ns and request counts.
//!
//! Names: `aiperf.<tag>.<stat>` (`aiperf.request_latency.p99`, unit as aiperf gives it); a
//! CSV `Value` is the JSON's `avg`, so both files of one run give the same names. Phases:
//! `aiperf.phase.<name>.<count>` and `.duration` in seconds.

use std::path::Path;

use serde::Deserialize;

use super::IngestError;
use super::text::json_error;
use crate::model::{Better, Metric};

/// Statistics a metric block may carry, in the order aiperf writes them.
pub(crate) const STATS: &[&str] = &[
    "avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std", "sum",
];

/// Which way is better for an aiperf metric, by its tag.
pub(crate) fn better(tag: &str) -> Better {
    if tag.contains("throughput") || tag.starts_with("good") {
        Better::Higher
    } else {
        Better::Lower
    }
}

fn metric(tag: &str, stat: &str, value: f64, unit: &str) -> Metric {
    Metric {
        trial_id: 0,
        name: format!("aiperf.{tag}.{stat}"),
        value,
        unit: unit.to_string(),
        better: better(tag),
        origin: "aiperf-summary".to_string(),
        version: None,
    }
}

/// `Time to First Token` → `time_to_first_token`.
fn snake(header: &str) -> String {
    let mut out = String::new();
    for c in header.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

/// Whether a parsed JSON document is an aiperf summary (either layout).
pub fn sniff_json(doc: &serde_json::Value) -> bool {
    let Some(obj) = doc.as_object() else {
        return false;
    };
    if obj.contains_key("aiperf_version") {
        return true;
    }
    obj.get("records")
        .and_then(|r| r.as_object())
        .is_some_and(|r| {
            r.values()
                .any(|b| b.get("tag").is_some() && b.get("unit").is_some())
        })
}

/// Whether a parsed JSON document is aiperf's `phase_manifest.json`.
pub fn sniff_manifest(doc: &serde_json::Value) -> bool {
    doc.get("phases")
        .and_then(|p| p.as_array())
        .is_some_and(|p| p.iter().all(|e| e.get("phase_name").is_some()))
}

/// Whether the first line is the header of aiperf's CSV summary.
pub fn sniff_csv(first_line: &str) -> bool {
    first_line.trim_end().starts_with("Metric,avg,")
}

/// Any of the three files, told apart by content.
pub fn parse(path: &Path, text: &str) -> Result<(Vec<Metric>, Vec<String>), IngestError> {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if !body.starts_with('{') {
        return Ok((parse_csv(path, text)?, Vec::new()));
    }
    let is_manifest = serde_json::from_str::<serde_json::Value>(body)
        .map(|d| sniff_manifest(&d))
        .unwrap_or(false);
    if is_manifest {
        parse_manifest(path, text)
    } else {
        Ok((parse_json(path, text)?, Vec::new()))
    }
}

pub fn parse_json(path: &Path, text: &str) -> Result<Vec<Metric>, IngestError> {
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| json_error(path, &e, "aiperf's profile_export_aiperf.json"))?;
    if !sniff_json(&doc) {
        return Err(IngestError::Field {
            path: path.to_path_buf(),
            line: 1,
            field: "records".to_string(),
            expected: "aiperf metric blocks (`records` of {tag, unit, avg…}, or top-level blocks beside `aiperf_version`)".to_string(),
        });
    }
    let blocks = doc
        .get("records")
        .and_then(|r| r.as_object())
        .or(doc.as_object())
        .expect("sniffed as an object");
    let mut out = Vec::new();
    for (key, block) in blocks {
        // Top-level scalars (schema_version, benchmark_id) and other sections are not metrics.
        let Some(unit) = block.get("unit").and_then(|u| u.as_str()) else {
            continue;
        };
        let tag = block.get("tag").and_then(|t| t.as_str()).unwrap_or(key);
        for stat in STATS {
            match block.get(*stat) {
                None | Some(serde_json::Value::Null) => {}
                Some(v) => {
                    let value = v.as_f64().ok_or_else(|| IngestError::Field {
                        path: path.to_path_buf(),
                        line: 1,
                        field: format!("{key}.{stat}"),
                        expected: "a number or null".to_string(),
                    })?;
                    out.push(metric(tag, stat, value, unit));
                }
            }
        }
    }
    Ok(out)
}

/// One CSV record split into cells (RFC 4180 quoting, as Python's csv writes).
fn cells(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// `Request Latency (ms)` → (`request_latency`, `ms`).
fn split_header(cell: &str) -> (String, String) {
    match cell.trim().rsplit_once(" (") {
        Some((name, unit)) if unit.ends_with(')') => {
            (snake(name), unit.trim_end_matches(')').to_string())
        }
        _ => (snake(cell), String::new()),
    }
}

pub fn parse_csv(path: &Path, text: &str) -> Result<Vec<Metric>, IngestError> {
    let mut out = Vec::new();
    let mut header: Option<Vec<String>> = None;
    for (i, raw) in text.split('\n').enumerate() {
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() {
            header = None;
            continue;
        }
        let row = cells(line);
        if row[0] == "Metric" {
            header = Some(row.iter().map(|c| c.trim().to_string()).collect());
            continue;
        }
        let Some(cols) = &header else {
            return Err(IngestError::Parse {
                path: path.to_path_buf(),
                line: i + 1,
                message: "row outside a section: expected a header row starting with `Metric`"
                    .to_string(),
            });
        };
        if row.len() != cols.len() {
            return Err(IngestError::Parse {
                path: path.to_path_buf(),
                line: i + 1,
                message: format!(
                    "{} cells, the section's header has {}",
                    row.len(),
                    cols.len()
                ),
            });
        }
        let (tag, unit) = split_header(&row[0]);
        for (col, cell) in cols.iter().zip(&row).skip(1) {
            let cell = cell.trim();
            if cell.is_empty() {
                continue;
            }
            let stat = if col == "Value" { "avg" } else { col.as_str() };
            let value = cell.parse::<f64>().map_err(|_| IngestError::Field {
                path: path.to_path_buf(),
                line: i + 1,
                field: format!("{} / {col}", row[0]),
                expected: format!("a number, found `{cell}`"),
            })?;
            out.push(metric(&tag, stat, value, &unit));
        }
    }
    if out.is_empty() {
        return Err(IngestError::Parse {
            path: path.to_path_buf(),
            line: 1,
            message:
                "no metric rows (expected aiperf's CSV: `Metric,avg,min,…` then one row per metric)"
                    .to_string(),
        });
    }
    Ok(out)
}

#[derive(Deserialize)]
struct Manifest {
    phases: Vec<Phase>,
}

/// One entry of `phase_manifest.json`.
#[derive(Deserialize)]
struct Phase {
    phase_name: String,
    start_ns: Option<i64>,
    end_ns: Option<i64>,
    #[serde(default)]
    was_cancelled: bool,
    successful_request_count: Option<i64>,
    error_request_count: Option<i64>,
    total_request_count: Option<i64>,
}

/// Metrics of `phase_manifest.json`, and a warning per cancelled phase.
pub fn parse_manifest(path: &Path, text: &str) -> Result<(Vec<Metric>, Vec<String>), IngestError> {
    let m: Manifest = serde_json::from_str(text).map_err(|e| {
        json_error(
            path,
            &e,
            "aiperf's phase_manifest.json: {\"phases\": [{\"phase_name\", …}]}",
        )
    })?;
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for p in m.phases {
        let name = snake(&p.phase_name);
        let count = |stat: &str, v: Option<i64>, out: &mut Vec<Metric>| {
            if let Some(v) = v {
                out.push(Metric {
                    better: if stat.starts_with("error") {
                        Better::Lower
                    } else {
                        Better::Higher
                    },
                    ..metric(&format!("phase.{name}"), stat, v as f64, "requests")
                });
            }
        };
        count(
            "successful_request_count",
            p.successful_request_count,
            &mut out,
        );
        count("error_request_count", p.error_request_count, &mut out);
        count("total_request_count", p.total_request_count, &mut out);
        if let (Some(s), Some(e)) = (p.start_ns, p.end_ns) {
            out.push(metric(
                &format!("phase.{name}"),
                "duration",
                (e - s) as f64 / 1e9,
                "s",
            ));
        }
        if p.was_cancelled {
            warnings.push(format!(
                "{}: phase `{}` was cancelled before it finished",
                path.display(),
                p.phase_name
            ));
        }
    }
    Ok((out, warnings))
}

/// aiperf summaries as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::Document {
    name: "aiperf-summary",
    description: "aiperf's summaries (profile_export_aiperf.json/.csv, phase_manifest.json) as metrics of their artifact directory's trial",
    hint: "profile_export_aiperf.json/.csv, phase_manifest.json",
    claims: |_, name| super::is_aiperf_summary(name),
    walks: |_, name| super::is_aiperf_summary(name),
    sniff: |input| {
        sniff_csv(input.first_line())
            || input
                .doc()
                .is_some_and(|d| sniff_json(d) || sniff_manifest(d))
    },
    parse: super::adapter::Reader::Text(|path, text| {
        let (metrics, warnings) = parse(path, text)?;
        Ok(super::adapter::Parsed {
            trials: vec![super::ParsedTrial {
                metrics,
                ..Default::default()
            }],
            warnings,
            commit: None,
        })
    }),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_become_the_json_tags() {
        assert_eq!(
            split_header("Time to First Token (ms)"),
            ("time_to_first_token".into(), "ms".into())
        );
        assert_eq!(
            split_header("Output Token Throughput Per User (tokens/sec/user)"),
            (
                "output_token_throughput_per_user".into(),
                "tokens/sec/user".into()
            )
        );
        assert_eq!(
            split_header("Error Request Count"),
            ("error_request_count".into(), String::new())
        );
        assert_eq!(cells("\"a,b\",1,\"x\"\"y\""), vec!["a,b", "1", "x\"y"]);
    }

    #[test]
    fn manifest_phases_become_counts_and_durations() {
        let text = r#"{"schema_version":1,"phases":[{"phase_index":0,"profiling_index":0,"phase_name":"profiling","phase_kind":"profiling","start_ns":1000000000,"end_ns":3500000000,"was_cancelled":true,"successful_request_count":90,"error_request_count":10,"total_request_count":100,"error_summary":[]}]}"#;
        let (m, w) = parse_manifest(Path::new("phase_manifest.json"), text).unwrap();
        let got: Vec<_> = m.iter().map(|m| (m.name.as_str(), m.value)).collect();
        assert_eq!(
            got,
            vec![
                ("aiperf.phase.profiling.successful_request_count", 90.0),
                ("aiperf.phase.profiling.error_request_count", 10.0),
                ("aiperf.phase.profiling.total_request_count", 100.0),
                ("aiperf.phase.profiling.duration", 2.5),
            ]
        );
        assert_eq!(w.len(), 1);
        assert!(parse_manifest(Path::new("m.json"), "{\"phases\": 3}").is_err());
    }
}
