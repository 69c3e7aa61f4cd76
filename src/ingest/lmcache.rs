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

use super::text::line_error;
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
        let (t, end) = block(path, &lines, i + 1)?;
        out.push(t);
        i = end;
    }
    if out.is_empty() {
        return Err(line_error(
            path,
            1,
            format!(
                "no `{HEADER}` block (expected the client's output of `lmcache tool transfer-channel-benchmark`)"
            ),
        ));
    }
    Ok(out)
}

/// The trial of the block whose lines begin at `start` (at most six, up to a blank line or
/// the next header), and the index of the line after it.
fn block(path: &Path, lines: &[&str], start: usize) -> Result<(ParsedTrial, usize), IngestError> {
    let mut t = ParsedTrial::default();
    let mut seen = [false; 3];
    let mut j = start;
    while j < lines.len() && j < start + 6 {
        let line = lines[j];
        let end = block_line(line, &mut t, &mut seen).map_err(|expected| IngestError::Field {
            path: path.to_path_buf(),
            line: j + 1,
            field: line.split(':').next().unwrap_or("").trim().to_string(),
            expected: expected.to_string(),
        })?;
        if end {
            break;
        }
        j += 1;
    }
    if seen != [true; 3] {
        return Err(line_error(
            path,
            start,
            "transfer channel block without its best, median and mean lines (the client was cut short?)",
        ));
    }
    Ok((t, j))
}

/// Reads one line of a block into `t` (`seen`: its best, median and mean lines were read);
/// whether the block ended there. An error is what the line should have held.
fn block_line(line: &str, t: &mut ParsedTrial, seen: &mut [bool; 3]) -> Result<bool, &'static str> {
    if let Some(v) = field(line, "channel type") {
        t.params.insert("channel_type".to_string(), v.to_string());
    } else if let Some(v) = field(line, "payload per read") {
        // `1.074 GB (256 objs x 4.0 MiB)`
        let inner = v
            .split_once('(')
            .and_then(|(_, r)| r.strip_suffix(')'))
            .ok_or("`<GB> GB (<n> objs x <MiB> MiB)`")?;
        let (objs, size) = inner
            .split_once(" objs x ")
            .ok_or("`(<n> objs x <MiB> MiB)`")?;
        t.params
            .insert("num_objects".to_string(), objs.trim().to_string());
        t.params.insert(
            "object_size_mib".to_string(),
            size.trim().trim_end_matches("MiB").trim().to_string(),
        );
    } else if let Some(v) = field(line, "iterations") {
        let n = v.split_whitespace().next().unwrap_or("");
        let n: f64 = n.parse().map_err(|_| "`<n> (warmup <m>)`")?;
        t.metrics.push(metric("iterations", n, "", Better::Higher));
    } else if let Some((stat, v, slot)) = [("best", 0), ("median", 1), ("mean", 2)]
        .iter()
        .find_map(|(k, s)| field(line, k).map(|v| (*k, v, *s)))
    {
        // `   81.40 ms     13.19 GB/s`
        let toks: Vec<&str> = v.split_whitespace().collect();
        let nums = match toks.as_slice() {
            [ms, "ms", gbps, "GB/s"] => ms.parse::<f64>().ok().zip(gbps.parse::<f64>().ok()),
            _ => None,
        };
        let (ms, gbps) = nums.ok_or("`<ms> ms   <GB/s> GB/s`")?;
        let (read_ms, read_gbps) = (format!("read_ms.{stat}"), format!("read_gbps.{stat}"));
        t.metrics.push(metric(&read_ms, ms, "ms", Better::Lower));
        t.metrics.push(metric(&read_gbps, gbps, "GB/s", Better::Higher));
        seen[slot] = true;
    } else if line.trim().is_empty() || line.trim() == HEADER {
        return Ok(true);
    }
    Ok(false)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_line_lands_its_figures_or_names_what_it_lacks() {
        let (mut t, mut seen) = (ParsedTrial::default(), [false; 3]);
        assert_eq!(block_line("  median:   81.40 ms     13.19 GB/s", &mut t, &mut seen), Ok(false));
        assert_eq!(seen, [false, true, false]);
        assert_eq!(t.metrics[0].name, "read_ms.median");
        assert_eq!(t.metrics[1].value, 13.19);
        let payload = "  payload per read: 1.074 GB (256 objs x 4.0 MiB)";
        assert_eq!(block_line(payload, &mut t, &mut seen), Ok(false));
        assert_eq!(t.params["num_objects"], "256");
        assert_eq!(t.params["object_size_mib"], "4.0");
        assert_eq!(
            block_line("  payload per read: 1.074 GB", &mut t, &mut seen),
            Err("`<GB> GB (<n> objs x <MiB> MiB)`")
        );
        assert_eq!(block_line("", &mut t, &mut seen), Ok(true));
    }
}

