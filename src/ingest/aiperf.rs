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

#[path = "aiperf_fast.rs"]
mod fast;
use crate::model::{Phase, Request};

#[derive(Deserialize, Debug)]
struct Record {
    metadata: Metadata,
    #[serde(default)]
    metrics: Metrics,
    #[serde(default)]
    error: Option<ErrorDetails>,
}

#[derive(Deserialize, Debug)]
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

#[derive(Deserialize, Debug)]
struct ErrorDetails {
    code: Option<i32>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

/// A metric's value when it is a scalar; lists (`inter_chunk_latency`) are skipped.
#[derive(Debug)]
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
#[derive(Default, Debug)]
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

/// A rounded value as i64, where it fits (below 2^63 in magnitude); `as` would clamp.
fn as_i64(v: f64) -> Option<i64> {
    const BOUND: f64 = 9_223_372_036_854_775_808.0; // 2^63
    (v.is_finite() && v.abs() < BOUND).then_some(v as i64)
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

/// Where in the file a record is, to name it in an error.
struct At<'p> {
    path: &'p Path,
    line: usize,
}

impl At<'_> {
    fn field(&self, field: &str, expected: &str) -> IngestError {
        IngestError::Field {
            path: self.path.to_path_buf(),
            line: self.line,
            field: field.to_string(),
            expected: expected.to_string(),
        }
    }

    /// The first of the metrics `names` that the record holds, as a time in ns.
    fn duration(&self, metrics: &Metrics, names: &[&'static str]) -> Result<Option<i64>, IngestError> {
        let Some((name, MetricEntry { value: Some(v), unit })) = metrics.get(names) else {
            return Ok(None);
        };
        let scale = ns_per_unit(unit).ok_or_else(|| {
            self.field(
                &format!("metrics.{name}.unit"),
                "a time unit (ns, us, ms or s)",
            )
        })?;
        // A time past ±2^63 ns (292 years) would be stored as the largest integer:
        // refused, naming the field, rather than landed wrong.
        let ns = as_i64((v * scale).round()).ok_or_else(|| {
            self.field(
                &format!("metrics.{name}.value"),
                &format!(
                    "a time that fits in 64-bit nanoseconds (under 9.2e18 ns, 292 years), found {v} {unit}"
                ),
            )
        })?;
        Ok(Some(ns))
    }

    /// The first of the metrics `names` that the record holds, as a count.
    fn count(&self, metrics: &Metrics, names: &[&'static str]) -> Result<Option<i64>, IngestError> {
        let Some((name, MetricEntry { value: Some(v), .. })) = metrics.get(names) else {
            return Ok(None);
        };
        as_i64(v.round()).map(Some).ok_or_else(|| {
            self.field(
                &format!("metrics.{name}.value"),
                &format!("a count that fits in a 64-bit integer, found {v}"),
            )
        })
    }

    /// The record's phase: warmup or measured (`profiling`).
    fn phase(&self, md: &Metadata) -> Result<Option<Phase>, IngestError> {
        match md.benchmark_phase.as_deref().or(md.credit_phase.as_deref()) {
            None => Ok(None),
            Some("warmup") => Ok(Some(Phase::Warmup)),
            Some("profiling") => Ok(Some(Phase::Measured)),
            Some(other) => Err(self.field(
                "metadata.benchmark_phase",
                &format!("`warmup` or `profiling`, found `{other}`"),
            )),
        }
    }
}

fn record_to_request(rec: Record, path: &Path, line: usize) -> Result<Request, IngestError> {
    let at = At { path, line };
    let md = rec.metadata;
    let start_ns = md.request_start_ns.or(md.timestamp_ns).ok_or_else(|| {
        at.field(
            "metadata.request_start_ns",
            "a start time in ns (or the old `timestamp_ns`)",
        )
    })?;
    let phase = at.phase(&md)?;
    let latency_ns = at.duration(&rec.metrics, &["request_latency"])?;
    let (error_code, error_type) = match rec.error {
        Some(e) => (e.code, e.kind),
        None => (None, None),
    };
    let cancelled = md.was_cancelled.unwrap_or(
        error_code == Some(499) && error_type.as_deref() == Some("RequestCancellationError"),
    );
    let end_ns = match (md.request_end_ns, latency_ns) {
        (Some(end), _) => Some(end),
        (None, Some(l)) => Some(start_ns.checked_add(l).ok_or_else(|| {
            at.field(
                "metrics.request_latency.value",
                "a latency whose end (start + latency) fits in 64-bit nanoseconds",
            )
        })?),
        (None, None) => None,
    };
    let m = &rec.metrics;
    Ok(Request {
        trial_id: 0,
        phase,
        credit_ns: md.credit_issued_ns,
        start_ns,
        end_ns,
        ttft_ns: at.duration(m, &["time_to_first_token", "ttft"])?,
        itl_ns: at.duration(m, &["inter_token_latency"])?,
        latency_ns,
        input_tokens: at.count(m, &["input_sequence_length", "error_isl"])?,
        output_tokens: at.count(m, &["output_sequence_length", "output_token_count"])?,
        error_code,
        error_type,
        cancelled,
        worker_id: md.worker_id,
    })
}

/// Whether a line that does not parse ends where the writer stopped: JSON cut at its end
/// (`{"a": 39`, `…"value":3951.`), which is a cut-short last line if nothing follows it,
/// rather than a malformed record (an error in its middle).
fn cut_short(e: &serde_json::Error, text: &str) -> bool {
    e.classify() == serde_json::error::Category::Eof || e.column() >= text.trim_end().len()
}

/// One record: by [`fast::record`] when the line is as aiperf writes it, else by serde_json
/// (which then also phrases the error of a line that is wrong).
fn parse_record(text: &str) -> Result<Record, serde_json::Error> {
    match fast::record(text) {
        Some(rec) => Ok(rec),
        None => serde_json::from_str(text),
    }
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
///
/// With `PERFHOUSE_PARSE_THREADS=N` (N ≥ 2) the lines are parsed on N threads: this thread
/// reads line-aligned blocks of 4 MiB, workers parse them, and the results are taken back in
/// file order ([`stream_blocks`]), so the sink sees the requests, and the caller the errors
/// and warnings, exactly as one thread would give them ([`stream_jsonl_serial`]; a proptest
/// holds the two equal).
pub fn stream_jsonl(
    path: &Path,
    reader: impl BufRead,
    chunk: usize,
    sink: &mut dyn FnMut(Vec<Request>) -> Result<(), IngestError>,
) -> Result<StreamSummary, IngestError> {
    // One thread unless asked: on this project's 2-core VM the other core hashes and copies
    // the input, and block parsing was slower (BENCHMARKS.md, "Parsing on more threads").
    let workers = std::env::var("PERFHOUSE_PARSE_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1)
        .clamp(1, 16);
    if workers == 1 {
        return stream_jsonl_serial(path, reader, chunk, sink);
    }
    stream_blocks(path, reader, chunk, sink, workers, 4 << 20)
}

/// What one worker made of one block of lines (line numbers counted from the block's start).
struct Block {
    /// The block's bytes, handed back to be filled again (fresh pages cost the kernel time).
    bytes: Vec<u8>,
    requests: Vec<Request>,
    /// The block's lines.
    lines: usize,
    /// Whether any line of it is not blank (before an error that ended it).
    nonempty: bool,
    /// Its last non-blank line, cut short: an error only if anything follows.
    pending: Option<(usize, String)>,
    error: Option<IngestError>,
}

/// The lines of `bytes` parsed as [`stream_jsonl_serial`] parses them, numbered from 1.
fn parse_block(path: &Path, bytes: Vec<u8>) -> Block {
    let mut out = Block {
        bytes: Vec::new(),
        requests: Vec::new(),
        lines: 0,
        nonempty: false,
        pending: None,
        error: None,
    };
    out.parse_lines(path, &bytes);
    out.bytes = bytes;
    out
}

impl Block {
    fn parse_lines(&mut self, path: &Path, bytes: &[u8]) {
        let out = self;
        for raw in bytes.split_inclusive(|b| *b == b'\n') {
            out.lines += 1;
            let line_no = out.lines;
            let Ok(text) = std::str::from_utf8(raw) else {
                out.error = Some(IngestError::Parse {
                    path: path.to_path_buf(),
                    line: line_no,
                    message:
                        "not UTF-8 text (expected one aiperf record as a JSON object per line)"
                            .to_string(),
                });
                return;
            };
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            out.nonempty = true;
            if let Some((line, message)) = out.pending.take() {
                out.error = Some(IngestError::Parse {
                    path: path.to_path_buf(),
                    line,
                    message,
                });
                return;
            }
            match parse_record(text) {
                Ok(rec) => match record_to_request(rec, path, line_no) {
                    Ok(r) => out.requests.push(r),
                    Err(e) => {
                        out.error = Some(e);
                        return;
                    }
                },
                Err(e) if cut_short(&e, text) => out.pending = Some((line_no, e.to_string())),
                Err(e) => {
                    out.error = Some(IngestError::Parse {
                        path: path.to_path_buf(),
                        line: line_no,
                        message: format!(
                            "{e} (expected one aiperf record as a JSON object per line)"
                        ),
                    });
                    return;
                }
            }
        }
    }
}

/// An error of a block, its line counted in the file.
fn shifted(e: IngestError, offset: usize) -> IngestError {
    match e {
        IngestError::Parse {
            path,
            line,
            message,
        } => IngestError::Parse {
            path,
            line: line + offset,
            message,
        },
        IngestError::Field {
            path,
            line,
            field,
            expected,
        } => IngestError::Field {
            path,
            line: line + offset,
            field,
            expected,
        },
        other => other,
    }
}

/// Reads on until `buf` holds whole lines, or the input ended (`eof`): where to cut it,
/// after its last newline. A line longer than the block grows it by another block.
fn cut_point(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    block: usize,
    eof: &mut bool,
) -> std::io::Result<usize> {
    loop {
        *eof = *eof || fill(reader, buf, block)?;
        if *eof {
            return Ok(buf.len());
        }
        if let Some(i) = buf.iter().rposition(|b| *b == b'\n') {
            return Ok(i + 1);
        }
        let more = buf.len() + block;
        *eof = fill(reader, buf, more)?;
    }
}

/// The blocks sent to the workers, and those taken back, merged in file order.
#[derive(Default)]
struct InFlight {
    sent: usize,
    merged: usize,
    /// Blocks taken back ahead of their turn, by index.
    done: std::collections::BTreeMap<usize, Block>,
    /// Buffers of merged blocks, for the next blocks read.
    spare: Vec<Vec<u8>>,
    blocks: Merged,
}

impl InFlight {
    /// Takes back one parsed block and merges every block whose turn has come.
    fn take_back(
        &mut self,
        path: &Path,
        results: &std::sync::mpsc::Receiver<(usize, Block)>,
        chunk: usize,
        sink: &mut dyn FnMut(Vec<Request>) -> Result<(), IngestError>,
    ) -> Result<(), IngestError> {
        let (index, b) = results.recv().expect("a worker answers every block");
        self.done.insert(index, b);
        while let Some(mut b) = self.done.remove(&self.merged) {
            self.merged += 1;
            self.spare.push(std::mem::take(&mut b.bytes));
            self.blocks.add(path, b, chunk, sink)?;
        }
        Ok(())
    }
}

/// [`stream_jsonl`] on `workers` threads, over blocks of about `block` bytes.
fn stream_blocks(
    path: &Path,
    mut reader: impl BufRead,
    chunk: usize,
    sink: &mut dyn FnMut(Vec<Request>) -> Result<(), IngestError>,
    workers: usize,
    block: usize,
) -> Result<StreamSummary, IngestError> {
    use std::sync::mpsc;
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (to_workers, from_reader) = mpsc::sync_channel::<(usize, Vec<u8>)>(workers);
    let from_reader = std::sync::Mutex::new(from_reader);
    let (to_merge, results) = mpsc::channel::<(usize, Block)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (from_reader, to_merge) = (&from_reader, to_merge.clone());
            scope.spawn(move || {
                loop {
                    let next = from_reader.lock().expect("a worker panicked").recv();
                    let Ok((index, bytes)) = next else { return };
                    if to_merge.send((index, parse_block(path, bytes))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(to_merge);
        let mut flight = InFlight::default();
        let mut buf: Vec<u8> = Vec::with_capacity(block);
        let mut eof = false;
        let result = (|| -> Result<(), IngestError> {
            loop {
                let cut = cut_point(&mut reader, &mut buf, block, &mut eof).map_err(io)?;
                if cut > 0 {
                    let mut next = flight.spare.pop().unwrap_or_else(|| Vec::with_capacity(block));
                    next.clear();
                    next.extend_from_slice(&buf[cut..]);
                    buf.truncate(cut);
                    let full = std::mem::replace(&mut buf, next);
                    to_workers
                        .send((flight.sent, full))
                        .expect("workers wait for blocks");
                    flight.sent += 1;
                }
                // At most two blocks a worker in flight: memory stays bounded.
                let last = eof && buf.is_empty();
                while flight.merged < flight.sent
                    && (flight.sent - flight.merged >= 2 * workers || last)
                {
                    flight.take_back(path, &results, chunk, sink)?;
                }
                if last {
                    return Ok(());
                }
            }
        })();
        drop(to_workers);
        result?;
        let Merged {
            out,
            batch,
            pending,
            lines,
        } = flight.blocks;
        finish(path, out, batch, pending.map(|(l, _)| l), lines, sink)
    })
}

/// Reads from `reader` until `buf` holds `upto` bytes; whether the input ended first.
fn fill(reader: &mut impl BufRead, buf: &mut Vec<u8>, upto: usize) -> std::io::Result<bool> {
    while buf.len() < upto {
        let have = reader.fill_buf()?;
        if have.is_empty() {
            return Ok(true);
        }
        let n = have.len().min(upto - buf.len());
        buf.extend_from_slice(&have[..n]);
        reader.consume(n);
    }
    Ok(false)
}

/// The blocks taken back so far, in file order, as the serial loop would have met their lines.
#[derive(Default)]
struct Merged {
    out: StreamSummary,
    batch: Vec<Request>,
    /// A line cut short (file line, message): an error if any non-blank line follows.
    pending: Option<(usize, String)>,
    lines: usize,
}

impl Merged {
    fn add(
        &mut self,
        path: &Path,
        b: Block,
        chunk: usize,
        sink: &mut dyn FnMut(Vec<Request>) -> Result<(), IngestError>,
    ) -> Result<(), IngestError> {
        if b.nonempty
            && let Some((line, message)) = self.pending.take()
        {
            return Err(IngestError::Parse {
                path: path.to_path_buf(),
                line,
                message,
            });
        }
        for r in b.requests {
            take(r, &mut self.out, &mut self.batch, chunk, sink)?;
        }
        if let Some(e) = b.error {
            return Err(shifted(e, self.lines));
        }
        if let Some((line, message)) = b.pending {
            self.pending = Some((line + self.lines, message));
        }
        self.lines += b.lines;
        Ok(())
    }
}

/// [`stream_jsonl`] on this thread alone.
pub fn stream_jsonl_serial(
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
        match parse_record(text) {
            Ok(rec) => {
                let r = record_to_request(rec, path, line_no)?;
                take(r, &mut out, &mut batch, chunk, sink)?;
            }
            Err(e) if cut_short(&e, text) => pending = Some((line_no, e)),
            Err(e) => {
                return Err(IngestError::Parse {
                    path: path.to_path_buf(),
                    line: line_no,
                    message: format!("{e} (expected one aiperf record as a JSON object per line)"),
                });
            }
        }
    }
    finish(path, out, batch, pending.map(|(l, _)| l), line_no, sink)
}

/// The end of a stream: an export with no complete record is an error (a run that measured
/// nothing, not a trial of zero requests); the last chunk goes to the sink; a last line cut
/// short (`cut_short`) is a warning.
fn finish(
    path: &Path,
    mut out: StreamSummary,
    batch: Vec<Request>,
    cut_short: Option<usize>,
    lines: usize,
    sink: &mut dyn FnMut(Vec<Request>) -> Result<(), IngestError>,
) -> Result<StreamSummary, IngestError> {
    if out.count == 0 {
        return Err(IngestError::Parse {
            path: path.to_path_buf(),
            line: cut_short.unwrap_or(lines.max(1)),
            message: "no complete aiperf record in the file (expected one JSON object per line)"
                .to_string(),
        });
    }
    if !batch.is_empty() {
        sink(batch)?;
    }
    if let Some(line) = cut_short {
        out.warnings.push(format!(
            "{}:{line}: last line is cut short (the writer was probably killed); kept the {} complete records before it",
            path.display(),
            out.count
        ));
    }
    Ok(out)
}

/// Counts `r` into `out` and `batch`, handing `batch` to the sink once it holds `chunk`.
fn take(
    r: Request,
    out: &mut StreamSummary,
    batch: &mut Vec<Request>,
    chunk: usize,
    sink: &mut dyn FnMut(Vec<Request>) -> Result<(), IngestError>,
) -> Result<(), IngestError> {
    out.count += 1;
    out.first_start_ns = Some(out.first_start_ns.map_or(r.start_ns, |f| f.min(r.start_ns)));
    if let Some(e) = r.end_ns {
        out.last_end_ns = Some(out.last_end_ns.map_or(e, |l| l.max(e)));
    }
    batch.push(r);
    if batch.len() >= chunk {
        sink(std::mem::take(batch))?;
    }
    Ok(())
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

/// The registered adapter (`super::registry!`).
pub static ADAPTER: Adapter = Adapter;

impl super::adapter::Adapter for Adapter {
    fn name(&self) -> &'static str {
        "aiperf"
    }

    fn description(&self) -> &'static str {
        "aiperf profile_export.jsonl (per-request records, both schema generations)"
    }

    fn hint(&self) -> &'static str {
        "profile_export.jsonl"
    }

    fn streams(&self) -> bool {
        true
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

    #[test]
    fn a_block_is_cut_after_its_last_newline_and_grows_for_a_long_line() {
        let mut reader = std::io::Cursor::new(b"ab\ncd\nef".to_vec());
        let (mut buf, mut eof) = (Vec::new(), false);
        // 4 bytes read (`ab\nc`): cut after the newline at index 2.
        assert_eq!(cut_point(&mut reader, &mut buf, 4, &mut eof).unwrap(), 3);
        assert!(!eof);
        let mut reader = std::io::Cursor::new(b"abcdefg\nh".to_vec());
        let mut buf = Vec::new();
        // No newline in 4 bytes: grows to 8 (`abcdefg\n`), cut after it.
        assert_eq!(cut_point(&mut reader, &mut buf, 4, &mut eof).unwrap(), 8);
        let mut reader = std::io::Cursor::new(b"ab".to_vec());
        let mut buf = Vec::new();
        // The input ends first: all of it.
        assert_eq!(cut_point(&mut reader, &mut buf, 4, &mut eof).unwrap(), 2);
        assert!(eof);
    }
    use proptest::prelude::*;

    /// Chunks the sink saw, and the outcome (summary or error text), of one way of streaming.
    type Streamed = (Vec<Vec<Request>>, Result<String, String>);

    fn streamed(
        input: &[u8],
        chunk: usize,
        run: impl FnOnce(
            &[u8],
            &mut dyn FnMut(Vec<Request>) -> Result<(), IngestError>,
        ) -> Result<StreamSummary, IngestError>,
    ) -> Streamed {
        let mut chunks = Vec::new();
        let outcome = run(input, &mut |c| {
            assert!(c.len() <= chunk);
            chunks.push(c);
            Ok(())
        });
        (
            chunks,
            outcome.map(|s| format!("{s:?}")).map_err(|e| e.to_string()),
        )
    }

    /// Lines a writer leaves: records, blank lines, a record cut short, broken JSON, a record
    /// missing its start, bytes that are not UTF-8.
    fn line() -> impl Strategy<Value = Vec<u8>> {
        let record = (0i64..1_000_000, 1u32..5000, any::<bool>()).prop_map(|(start, lat, ok)| {
            format!(
                r#"{{"metadata":{{"request_start_ns":{start},"benchmark_phase":"profiling","worker_id":"w"}},"metrics":{{"request_latency":{{"value":{lat},"unit":"ms"}},"inter_chunk_latency":{{"value":[1,2,3],"unit":"ms"}}}},"error":{}}}"#,
                if ok { "null" } else { r#"{"code":500,"type":"x"}"# }
            )
            .into_bytes()
        });
        prop_oneof![
            6 => record.clone(),
            1 => Just(Vec::new()),
            1 => Just(b"   ".to_vec()),
            1 => (record, 1usize..200).prop_map(|(r, n)| r[..n.min(r.len() - 1)].to_vec()),
            1 => Just(b"{\"metadata\": 5}".to_vec()),
            1 => Just(br#"{"metadata":{"benchmark_phase":"profiling"}}"#.to_vec()),
            1 => Just(b"not json".to_vec()),
            1 => Just(vec![b'{', 0xff, 0xfe, b'}']),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// The parallel block parser gives what the one-thread parser gives, line for line:
        /// the same chunks to the sink, the same summary and warnings, the same FILE:LINE error.
        #[test]
        fn blocks_on_many_threads_stream_as_one_thread_does(
            lines in prop::collection::vec(line(), 0..40),
            newline_at_end in any::<bool>(),
            block in 1usize..400,
            workers in 2usize..4,
            chunk in prop_oneof![Just(1usize), Just(3), Just(usize::MAX)],
        ) {
            let mut input = lines.join(&b'\n');
            if newline_at_end {
                input.push(b'\n');
            }
            let p = Path::new("t.jsonl");
            let serial = streamed(&input, chunk, |i, sink| stream_jsonl_serial(p, i, chunk, sink));
            let blocks =
                streamed(&input, chunk, |i, sink| stream_blocks(p, i, chunk, sink, workers, block));
            prop_assert_eq!(blocks, serial);
        }
    }

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

    /// A writer killed inside a number leaves `…"value":3951.`: invalid JSON, not an early end
    /// to serde_json, but cut where the line ends, so a cut-short last line all the same; the
    /// same bytes with a record after them are an error, naming the line.
    #[test]
    fn a_last_line_cut_inside_a_number_is_cut_short() {
        let good = r#"{"metadata":{"request_start_ns":1},"metrics":{}}"#;
        let cut = r#"{"metadata":{"request_start_ns":2},"metrics":{"request_latency":{"value":3951."#;
        let ok = parse(&format!("{good}\n{cut}")).unwrap();
        assert_eq!((ok.requests.len(), ok.warnings.len()), (1, 1));
        assert!(ok.warnings[0].starts_with("t.jsonl:2: last line is cut short"));
        let e = parse(&format!("{good}\n{cut}\n{good}\n")).unwrap_err().to_string();
        assert!(e.starts_with("t.jsonl:2: "), "{e}");
        let bad = r#"{"metadata":{"request_start_ns":2},"metrics":{"x":1.2.3},"y":1}"#;
        let e = parse(&format!("{good}\n{bad}")).unwrap_err().to_string();
        assert!(e.starts_with("t.jsonl:2: ") && e.contains("expected one aiperf record"), "{e}");
    }
}
