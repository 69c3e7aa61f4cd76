//! aiperf `profile_export.jsonl`: one JSON record per request.
//!
//! Upstream definition: `aiperf/common/models/record_models.py` (`MetricRecordInfo`,
//! `MetricRecordMetadata`) in github.com/ai-dynamo/aiperf. Two schema generations exist:
//!
//! | meaning        | current (>= Oct 2025)      | old (early Oct 2025) |
//! |----------------|----------------------------|----------------------|
//! | request start  | `request_start_ns`         | `timestamp_ns`       |
//! | request end    | `request_end_ns`           | start + `request_latency` |
//! | phase          | `benchmark_phase`          | `credit_phase`       |
//! | TTFT           | `time_to_first_token`      | `ttft`               |
//! | cancelled      | `was_cancelled`            | error code 499 `RequestCancellationError` |
//!
//! Durations arrive in the unit each metric names (`ms` in practice) and are normalised to ns.

use std::fmt;
use std::io::BufRead;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};

use super::IngestError;
use crate::model::{Phase, Request};

#[derive(Deserialize)]
struct Record {
    metadata: Metadata,
    #[serde(default)]
    metrics: Metrics,
    #[serde(default)]
    error: Option<ErrorDetails>,
}

#[derive(Deserialize)]
struct Metadata {
    request_start_ns: Option<i64>,
    timestamp_ns: Option<i64>,
    request_end_ns: Option<i64>,
    credit_issued_ns: Option<i64>,
    benchmark_phase: Option<String>,
    credit_phase: Option<String>,
    was_cancelled: Option<bool>,
    worker_id: Option<String>,
}

#[derive(Deserialize)]
struct ErrorDetails {
    code: Option<i32>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// A metric's value when it is a scalar; lists (`inter_chunk_latency`) are skipped.
struct MetricEntry {
    value: Option<f64>,
    unit: String,
}

impl<'de> Deserialize<'de> for MetricEntry {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Scalar(Option<f64>);
        impl<'de> Deserialize<'de> for Scalar {
            fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = Scalar;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a number, a list or null")
                    }
                    fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
                        Ok(Scalar(Some(v)))
                    }
                    fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                        Ok(Scalar(Some(v as f64)))
                    }
                    fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                        Ok(Scalar(Some(v as f64)))
                    }
                    fn visit_unit<E>(self) -> Result<Scalar, E> {
                        Ok(Scalar(None))
                    }
                    fn visit_seq<A: de::SeqAccess<'de>>(
                        self,
                        mut s: A,
                    ) -> Result<Scalar, A::Error> {
                        while s.next_element::<IgnoredAny>()?.is_some() {}
                        Ok(Scalar(None))
                    }
                }
                d.deserialize_any(V)
            }
        }
        #[derive(Deserialize)]
        struct Raw {
            value: Scalar,
            #[serde(default)]
            unit: String,
        }
        let raw = Raw::deserialize(d)?;
        Ok(MetricEntry {
            value: raw.value.0,
            unit: raw.unit,
        })
    }
}

/// The metrics perfhouse reads from a record; every other metric (some 30 of them, and the
/// per-chunk latency lists) is skipped without being decoded: no key or unit copied, no
/// float parsed. Their JSON must still be well formed.
const METRICS: [&str; 8] = [
    "request_latency",
    "time_to_first_token",
    "ttft",
    "inter_token_latency",
    "input_sequence_length",
    "error_isl",
    "output_sequence_length",
    "output_token_count",
];

/// The `metrics` object, by position in [`METRICS`]. aiperf has written the same key twice in
/// one record (its own docs example repeats `time_to_first_token`, the second time with the
/// first inter-chunk latency); the first occurrence is the one consistent with
/// `request_latency`, so the first wins.
#[derive(Default)]
struct Metrics([Option<MetricEntry>; METRICS.len()]);

impl Metrics {
    /// The first of `names` the record has.
    fn get(&self, names: &[&'static str]) -> Option<(&'static str, &MetricEntry)> {
        names.iter().find_map(|&n| {
            let i = METRICS.iter().position(|m| *m == n)?;
            self.0[i].as_ref().map(|e| (n, e))
        })
    }
}

/// A metric's name as its position in [`METRICS`], read without copying it.
struct MetricKey(Option<usize>);

impl<'de> Deserialize<'de> for MetricKey {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MetricKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a metric name")
            }
            fn visit_str<E>(self, v: &str) -> Result<MetricKey, E> {
                Ok(MetricKey(METRICS.iter().position(|m| *m == v)))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Deserialize<'de> for Metrics {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Metrics;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of {value, unit} metrics")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Metrics, A::Error> {
                let mut out = Metrics::default();
                while let Some(MetricKey(key)) = m.next_key()? {
                    match key {
                        Some(i) => {
                            let entry: MetricEntry = m.next_value()?;
                            out.0[i].get_or_insert(entry);
                        }
                        None => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(out)
            }
            fn visit_unit<E>(self) -> Result<Metrics, E> {
                Ok(Metrics::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// What one JSONL file yields.
#[derive(Debug, Default)]
pub struct AiperfRecords {
    pub requests: Vec<Request>,
    /// Non-fatal problems (a truncated final line), already phrased for the user.
    pub warnings: Vec<String>,
}

fn ns_per_unit(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" | "sec" | "seconds" => 1e9,
        _ => return None,
    })
}

fn record_to_request(rec: Record, path: &Path, line: usize) -> Result<Request, IngestError> {
    let field_err = |field: &str, expected: &str| IngestError::Field {
        path: path.to_path_buf(),
        line,
        field: field.to_string(),
        expected: expected.to_string(),
    };
    let md = rec.metadata;
    let start_ns = md.request_start_ns.or(md.timestamp_ns).ok_or_else(|| {
        field_err(
            "metadata.request_start_ns",
            "a start time in ns (or the old `timestamp_ns`)",
        )
    })?;
    let duration = |names: &[&'static str]| -> Result<Option<i64>, IngestError> {
        match rec.metrics.get(names) {
            Some((
                name,
                MetricEntry {
                    value: Some(v),
                    unit,
                },
            )) => {
                let scale = ns_per_unit(unit).ok_or_else(|| {
                    field_err(
                        &format!("metrics.{name}.unit"),
                        "a time unit (ns, us, ms or s)",
                    )
                })?;
                Ok(Some((v * scale).round() as i64))
            }
            _ => Ok(None),
        }
    };
    let count = |names: &[&'static str]| {
        rec.metrics
            .get(names)
            .and_then(|(_, m)| m.value)
            .map(|v| v.round() as i64)
    };
    let phase = match md.benchmark_phase.as_deref().or(md.credit_phase.as_deref()) {
        None => None,
        Some("warmup") => Some(Phase::Warmup),
        Some("profiling") => Some(Phase::Measured),
        Some(other) => {
            return Err(field_err(
                "metadata.benchmark_phase",
                &format!("`warmup` or `profiling`, found `{other}`"),
            ));
        }
    };
    let latency_ns = duration(&["request_latency"])?;
    let (error_code, error_type) = match rec.error {
        Some(e) => (e.code, e.kind),
        None => (None, None),
    };
    let cancelled = md.was_cancelled.unwrap_or(
        error_code == Some(499) && error_type.as_deref() == Some("RequestCancellationError"),
    );
    Ok(Request {
        trial_id: 0,
        phase,
        credit_ns: md.credit_issued_ns,
        start_ns,
        end_ns: md.request_end_ns.or(latency_ns.map(|l| start_ns + l)),
        ttft_ns: duration(&["time_to_first_token", "ttft"])?,
        itl_ns: duration(&["inter_token_latency"])?,
        latency_ns,
        input_tokens: count(&["input_sequence_length", "error_isl"]),
        output_tokens: count(&["output_sequence_length", "output_token_count"]),
        error_code,
        error_type,
        cancelled,
        worker_id: md.worker_id,
    })
}

/// Parses a whole JSONL stream into memory (see [`stream_jsonl`] for the rules).
pub fn parse_jsonl(path: &Path, reader: impl BufRead) -> Result<AiperfRecords, IngestError> {
    let mut requests = Vec::new();
    let summary = stream_jsonl(path, reader, usize::MAX, &mut |chunk| {
        requests.extend(chunk);
        Ok(())
    })?;
    Ok(AiperfRecords {
        requests,
        warnings: summary.warnings,
    })
}

/// What a streamed JSONL file was, once its requests have gone to the sink.
#[derive(Debug, Default, Clone)]
pub struct StreamSummary {
    pub count: usize,
    /// Earliest request start and latest request end (ns since the epoch).
    pub first_start_ns: Option<i64>,
    pub last_end_ns: Option<i64>,
    pub warnings: Vec<String>,
}

/// Parses a JSONL stream, handing requests to `sink` in chunks of at most `chunk` so memory
/// stays bounded however large the file. A malformed line is an error naming file and line,
/// unless it is the last line and merely cut short (aiperf's finalizer is often killed
/// mid-write): then every complete record is kept and one warning says what was dropped.
pub fn stream_jsonl(
    path: &Path,
    mut reader: impl BufRead,
    chunk: usize,
    sink: &mut dyn FnMut(Vec<Request>) -> Result<(), IngestError>,
) -> Result<StreamSummary, IngestError> {
    let mut out = StreamSummary::default();
    let mut batch = Vec::new();
    let mut buf = String::new();
    let mut line_no = 0usize;
    // A cut-short line is only forgivable when nothing follows it.
    let mut pending: Option<(usize, serde_json::Error)> = None;
    loop {
        buf.clear();
        let n = reader.read_line(&mut buf).map_err(|source| {
            if source.kind() == std::io::ErrorKind::InvalidData {
                IngestError::Parse {
                    path: path.to_path_buf(),
                    line: line_no + 1,
                    message:
                        "not UTF-8 text (expected one aiperf record as a JSON object per line)"
                            .to_string(),
                }
            } else {
                IngestError::Io {
                    path: path.to_path_buf(),
                    source,
                }
            }
        })?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let text = buf.trim();
        if text.is_empty() {
            continue;
        }
        if let Some((line, e)) = pending.take() {
            return Err(IngestError::Parse {
                path: path.to_path_buf(),
                line,
                message: e.to_string(),
            });
        }
        match serde_json::from_str::<Record>(text) {
            Ok(rec) => {
                let r = record_to_request(rec, path, line_no)?;
                out.count += 1;
                out.first_start_ns =
                    Some(out.first_start_ns.map_or(r.start_ns, |f| f.min(r.start_ns)));
                if let Some(e) = r.end_ns {
                    out.last_end_ns = Some(out.last_end_ns.map_or(e, |l| l.max(e)));
                }
                batch.push(r);
                if batch.len() >= chunk {
                    sink(std::mem::take(&mut batch))?;
                }
            }
            Err(e) if e.classify() == serde_json::error::Category::Eof => {
                pending = Some((line_no, e))
            }
            Err(e) => {
                return Err(IngestError::Parse {
                    path: path.to_path_buf(),
                    line: line_no,
                    message: format!("{e} (expected one aiperf record as a JSON object per line)"),
                });
            }
        }
    }
    if out.count == 0 {
        // An empty export is a run that measured nothing, not a trial of zero requests.
        return Err(IngestError::Parse {
            path: path.to_path_buf(),
            line: pending.map_or(line_no.max(1), |(l, _)| l),
            message: "no complete aiperf record in the file (expected one JSON object per line)"
                .to_string(),
        });
    }
    if !batch.is_empty() {
        sink(batch)?;
    }
    if let Some((line, _)) = pending {
        out.warnings.push(format!(
            "{}:{line}: last line is cut short (the writer was probably killed); kept the {} complete records before it",
            path.display(),
            out.count
        ));
    }
    Ok(out)
}

/// Whether `first_line` looks like an aiperf record (used by `--format auto`).
pub fn sniff(first_line: &str) -> bool {
    let t = first_line.trim_start();
    // A record's metadata times it (`request_start_ns`, or `timestamp_ns` before aiperf 0.3);
    // other one-line JSON with `metadata` and `metrics` (GuideLLM's report) is not a record.
    t.starts_with('{')
        && t.contains("\"metadata\"")
        && t.contains("\"metrics\"")
        && (t.contains("\"request_start_ns\"") || t.contains("\"timestamp_ns\""))
}

/// aiperf's per-request export as an [`super::adapter::Adapter`].
pub struct Adapter;

impl super::adapter::Adapter for Adapter {
    fn format(&self) -> super::Format {
        super::Format::Aiperf
    }

    fn claims_name(&self, _path: &Path, name: &str) -> bool {
        super::is_aiperf_jsonl(name)
    }

    fn walks(&self, _path: &Path, name: &str) -> bool {
        super::is_aiperf_jsonl(name)
    }

    fn sniff(&self, input: &super::adapter::Sniff) -> bool {
        sniff(input.first_line())
    }

    fn parse(
        &self,
        path: &Path,
        input: Box<dyn std::io::BufRead>,
        sink: Option<super::RequestSink>,
    ) -> Result<super::adapter::Parsed, super::IngestError> {
        let trial = match sink {
            Some(sink) => {
                let summary = stream_jsonl(path, input, super::CHUNK, sink)?;
                let warnings = summary.warnings.clone();
                return Ok(super::adapter::Parsed {
                    trials: vec![super::ParsedTrial {
                        streamed: Some(summary),
                        ..Default::default()
                    }],
                    warnings,
                    commit: None,
                });
            }
            None => parse_jsonl(path, input)?,
        };
        Ok(super::adapter::Parsed {
            trials: vec![super::ParsedTrial {
                requests: trial.requests,
                ..Default::default()
            }],
            warnings: trial.warnings,
            commit: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<AiperfRecords, IngestError> {
        parse_jsonl(Path::new("t.jsonl"), text.as_bytes())
    }

    #[test]
    fn first_duplicate_key_wins_and_units_normalise() {
        let line = r#"{"metadata":{"request_start_ns":10,"benchmark_phase":"warmup"},"metrics":{"time_to_first_token":{"value":1.5,"unit":"ms"},"time_to_first_token":{"value":9,"unit":"ms"},"request_latency":{"value":2,"unit":"s"},"inter_chunk_latency":{"value":[1,2],"unit":"ms"}},"error":null}"#;
        let r = &parse(line).unwrap().requests[0];
        assert_eq!(r.ttft_ns, Some(1_500_000));
        assert_eq!(r.latency_ns, Some(2_000_000_000));
        assert_eq!(r.end_ns, Some(2_000_000_010));
        assert_eq!(r.phase, Some(Phase::Warmup));
    }

    #[test]
    fn unknown_unit_and_phase_are_named() {
        let bad_unit = r#"{"metadata":{"request_start_ns":1},"metrics":{"request_latency":{"value":2,"unit":"fortnights"}}}"#;
        let e = parse(bad_unit).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.jsonl:1: field `metrics.request_latency.unit`: expected a time unit (ns, us, ms or s)"
        );
        let bad_phase =
            r#"{"metadata":{"request_start_ns":1,"benchmark_phase":"cooldown"},"metrics":{}}"#;
        let e = parse(bad_phase).unwrap_err().to_string();
        assert!(
            e.contains("expected `warmup` or `profiling`, found `cooldown`"),
            "{e}"
        );
    }

    #[test]
    fn cut_short_line_in_the_middle_is_an_error() {
        let good = r#"{"metadata":{"request_start_ns":1},"metrics":{}}"#;
        let text = format!("{good}\n{{\"metadata\":{{\"request_st\n{good}\n");
        let e = parse(&text).unwrap_err().to_string();
        assert!(e.starts_with("t.jsonl:2: "), "{e}");
        let text = format!("{good}\n\n{good}\n{{\"metadata\":{{\"request_st");
        let ok = parse(&text).unwrap();
        assert_eq!((ok.requests.len(), ok.warnings.len()), (2, 1));
        assert!(ok.warnings[0].starts_with("t.jsonl:4: last line is cut short"));
    }
}
