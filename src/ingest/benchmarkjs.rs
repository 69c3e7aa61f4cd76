//! benchmark.js console output, as `Benchmark#toString` prints it:
//! `<name> x <ops> ops/sec ±<rme>% (<n> runs sampled)`.
//!
//! Each result line is one trial; the arm is the name (which may itself hold ` x `: the last
//! ` x <number> ops/sec` ends it). Metrics: `ops_per_sec` (ops/s, higher is better, `,`
//! separators read) and `rme` (the relative margin of error, %, lower is better). The sample
//! count is not kept. Every other line (`Running…`, `Done!`, `Fastest is …`) is ignored.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::text::{line_error, metric, no_benchmarks, number};
use super::{IngestError, ParsedTrial};
use crate::model::Better;

static LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(.+) x ([\d,]+(?:\.\d+)?) ops/sec (?:±|\+/-)\s*([\d.]+)% \((\d+) runs? sampled\)\s*$",
    )
    .unwrap()
});

pub fn sniff(text: &str) -> bool {
    text.lines()
        .any(|l| LINE.is_match(l.trim_end_matches('\r')))
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let mut trials = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let Some(c) = LINE.captures(raw.trim_end_matches('\r')) else {
            continue;
        };
        let bad = |what: &str| line_error(path, i + 1, format!("expected a number for {what}"));
        let ops = number(&c[2]).ok_or_else(|| bad("ops/sec"))?;
        let rme = number(&c[3]).ok_or_else(|| bad("the ± margin"))?;
        trials.push(ParsedTrial {
            arm: Some(c[1].trim().to_string()),
            metrics: vec![
                metric("benchmarkjs", "ops_per_sec", ops, "ops/s", Better::Higher),
                metric("benchmarkjs", "rme", rme, "%", Better::Lower),
            ],
            ..Default::default()
        });
    }
    if trials.is_empty() {
        return Err(no_benchmarks(
            path,
            "benchmark.js lines `<name> x <n> ops/sec ±<n>% (<n> runs sampled)`",
        ));
    }
    Ok(trials)
}

/// benchmark.js output as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::text_document!(
    "benchmarkjs",
    "benchmark.js console output: each `x … ops/sec` line is a trial",
    "benchmark.js console text"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_with_x_and_separators() {
        let text = "benchmark with x 2 many things x 50 ops/sec ±0.10% (96 runs sampled)\n\
                    this x line should be ignored\nfib(10) x 1,431,759 ops/sec ±0.74% (93 runs sampled)\n";
        let t = parse(Path::new("x"), text).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].arm.as_deref(), Some("benchmark with x 2 many things"));
        assert_eq!(t[1].metrics[0].value, 1431759.0);
        assert_eq!(t[1].metrics[1].value, 0.74);
    }
}
