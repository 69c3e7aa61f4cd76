//! LMCache `transfer-channel-benchmark` client output: the block its `_report` prints
//! (github.com/LMCache/LMCache, `lmcache/tools/transfer_channel_benchmark/benchmark.py`):
//!
//! ```text
//! ==== Transfer channel read throughput ====
//!   channel type     : nixl
//!   payload per read : 1.074 GB (256 objs x 4.0 MiB)
//!   iterations       : 20 (warmup 3)
//!   best   :    81.40 ms     13.19 GB/s
//!   median :    84.02 ms     12.78 GB/s
//!   mean   :    84.77 ms     12.67 GB/s
//! ```
//!
//! Each block (a log may hold several) is one trial: `read_ms.{best,median,mean}` (ms, lower
//! is better) and `read_gbps.{best,median,mean}` (GB/s = 1e9 bytes/s, higher is better); the
//! channel type, object count and object size (MiB) become params, so `object_size`,
//! `page_size` and `numa` given with `--param` or path segments sit beside them. Other lines
//! of the log (the client's progress, `verify OK`) are ignored.

use std::path::Path;

use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

pub const HEADER: &str = "==== Transfer channel read throughput ====";

pub fn sniff(text: &str) -> bool {
    text.lines().any(|l| l.trim() == HEADER)
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let (k, v) = line.split_once(':')?;
    (k.trim() == key).then_some(v.trim())
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != HEADER {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut t = ParsedTrial::default();
        let mut seen = [false; 3];
        let mut j = start;
        while j < lines.len() && j < start + 6 {
            let line = lines[j];
            let bad = |expected: &str| IngestError::Field {
                path: path.to_path_buf(),
                line: j + 1,
                field: line.split(':').next().unwrap_or("").trim().to_string(),
                expected: expected.to_string(),
            };
            if let Some(v) = field(line, "channel type") {
                t.params.insert("channel_type".to_string(), v.to_string());
            } else if let Some(v) = field(line, "payload per read") {
                // `1.074 GB (256 objs x 4.0 MiB)`
                let inner = v
                    .split_once('(')
                    .and_then(|(_, r)| r.strip_suffix(')'))
                    .ok_or_else(|| bad("`<GB> GB (<n> objs x <MiB> MiB)`"))?;
                let (objs, size) = inner
                    .split_once(" objs x ")
                    .ok_or_else(|| bad("`(<n> objs x <MiB> MiB)`"))?;
                t.params
                    .insert("num_objects".to_string(), objs.trim().to_string());
                t.params.insert(
                    "object_size_mib".to_string(),
                    size.trim().trim_end_matches("MiB").trim().to_string(),
                );
            } else if let Some(v) = field(line, "iterations") {
                let n = v.split_whitespace().next().unwrap_or("");
                let n: f64 = n.parse().map_err(|_| bad("`<n> (warmup <m>)`"))?;
                t.metrics.push(metric("iterations", n, "", Better::Higher));
            } else if let Some((k, slot)) = [("best", 0), ("median", 1), ("mean", 2)]
                .iter()
                .find_map(|(k, s)| field(line, k).map(|v| ((*k, v), *s)))
            {
                let (stat, v) = k;
                // `   81.40 ms     13.19 GB/s`
                let toks: Vec<&str> = v.split_whitespace().collect();
                let nums = match toks.as_slice() {
                    [ms, "ms", gbps, "GB/s"] => {
                        ms.parse::<f64>().ok().zip(gbps.parse::<f64>().ok())
                    }
                    _ => None,
                };
                let (ms, gbps) = nums.ok_or_else(|| bad("`<ms> ms   <GB/s> GB/s`"))?;
                t.metrics
                    .push(metric(&format!("read_ms.{stat}"), ms, "ms", Better::Lower));
                t.metrics.push(metric(
                    &format!("read_gbps.{stat}"),
                    gbps,
                    "GB/s",
                    Better::Higher,
                ));
                seen[slot] = true;
            } else if line.trim().is_empty() || line.trim() == HEADER {
                break;
            }
            j += 1;
        }
        if seen != [true; 3] {
            return Err(IngestError::Parse {
                path: path.to_path_buf(),
                line: start,
                message: "transfer channel block without its best, median and mean lines (the client was cut short?)".to_string(),
            });
        }
        out.push(t);
        i = j;
    }
    if out.is_empty() {
        return Err(IngestError::Parse {
            path: path.to_path_buf(),
            line: 1,
            message: format!(
                "no `{HEADER}` block (expected the client's output of `lmcache tool transfer-channel-benchmark`)"
            ),
        });
    }
    Ok(out)
}

fn metric(name: &str, value: f64, unit: &str, better: Better) -> Metric {
    super::text::metric("lmcache", name, value, unit, better)
}

/// LMCache transfer output as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::Document {
    name: "lmcache-transfer",
    description: "LMCache transfer-channel-benchmark client output: one trial per result block",
    hint: "transfer-channel-benchmark output",
    claims: super::adapter::no_name,
    walks: super::adapter::text_file,
    sniff: |input| input.doc().is_none() && input.text().is_some_and(sniff),
    parse: super::adapter::Reader::Text(|path, text| {
        Ok(super::adapter::Parsed::trials(parse(path, text)?))
    }),
};
