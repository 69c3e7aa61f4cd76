//! Catch2 console reporter benchmark output (v2 and v3; `BENCHMARK` in a `TEST_CASE`):
//! under a header `benchmark name  samples  iterations  estimated|est run time` / `mean …` /
//! `std dev …`, each benchmark is three lines: name, samples, iterations, estimated run time;
//! mean, low mean, high mean; std dev, low std dev, high std dev.
//!
//! Each benchmark is one trial; the arm is its name (a long name wrapped onto the second line
//! is joined with a space, and so is one whose start Catch2 2.13 prints alone on the line
//! before the numbers) and param `test_case` is the test case (and its sections, joined
//! with ` / `) it ran in, so one name in two test cases stays two series. Metrics, normalised
//! to ns (lower is better): `mean_time`, `mean_time_low`, `mean_time_high` (Catch2's bootstrap
//! bounds of the mean), `std_dev_time`, `std_dev_time_low`, `std_dev_time_high`. Samples,
//! iterations and the estimated run time are not kept. A benchmark that threw
//! (`<name>  Benchmark failed (<why>)`) is a failed trial without figures. The `-r xml` reporter's output is
//! format `catch2-xml` ([`super::catch2_xml`]), which lands the same figures under the same
//! names.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::text::{line_error, metric, no_benchmarks, to_ns};
use super::{IngestError, ParsedTrial};
use crate::model::Better;

static FIRST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(.*?)\s+(\d+)\s+(\d+)\s+([\d.]+(?:e[-+]?\d+)?) (ns|us|ms|s)\s*$").unwrap()
});
/// `<name>   Benchmark failed (<why>)`: a benchmark that threw, in place of its figures.
static FAILED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(.*?)\s+Benchmark failed \((.*)\)\s*$").unwrap());
static TRIPLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(.*?)\s*([\d.]+(?:e[-+]?\d+)?) (ns|us|ms|s)\s+([\d.]+(?:e[-+]?\d+)?) (ns|us|ms|s)\s+([\d.]+(?:e[-+]?\d+)?) (ns|us|ms|s)\s*$")
        .unwrap()
});

fn is_rule(line: &str, c: char) -> bool {
    line.len() >= 10 && line.chars().all(|x| x == c)
}

fn is_header(lines: &[&str], i: usize) -> bool {
    lines[i].trim_start().starts_with("benchmark name")
        && lines
            .get(i + 1)
            .is_some_and(|l| l.trim_start().starts_with("mean"))
}

pub fn sniff(text: &str) -> bool {
    let lines: Vec<&str> = text.lines().take(10_000).collect();
    (0..lines.len()).any(|i| is_header(&lines, i))
}

/// Three values of a `<v> <unit>  <v> <unit>  <v> <unit>` line, in ns, and the text before.
fn triple(line: &str) -> Option<(String, [f64; 3])> {
    let c = TRIPLE.captures(line)?;
    let v = |n: usize| to_ns(&c[n], &c[n + 1]);
    Some((c[1].trim().to_string(), [v(2)?, v(4)?, v(6)?]))
}

/// The test case (and its sections) of the `....` rule at `i`: the title lines between the
/// `----` rules above it (`----` / title lines / `----` / file:line / `....`).
fn title(lines: &[&str], i: usize) -> String {
    let mut j = i - 2;
    let mut title = Vec::new();
    while j > 0 && !is_rule(lines[j - 1], '-') {
        j -= 1;
        title.push(lines[j].trim());
    }
    title.reverse();
    title.join(" / ")
}

/// Where the reading of a console log stands.
struct Scan<'t> {
    lines: Vec<&'t str>,
    trials: Vec<ParsedTrial>,
    test_case: Option<String>,
    in_table: bool,
    /// The start of a long name that Catch2 printed on a line of its own, before the line
    /// that ends the name and holds samples, iterations and the estimate.
    name_start: Vec<&'t str>,
}

impl<'t> Scan<'t> {
    /// Reads line `i`; the next line to read.
    fn line(&mut self, path: &Path, i: usize) -> Result<usize, IngestError> {
        let line = self.lines[i];
        if is_rule(line, '.') && i >= 3 {
            self.test_case = Some(title(&self.lines, i));
            self.in_table = false;
            return Ok(i + 1);
        }
        if is_header(&self.lines, i) {
            self.in_table = true;
            return Ok(i + 3);
        }
        if !self.in_table || line.trim().is_empty() || is_rule(line, '-') {
            self.name_start.clear();
            return Ok(i + 1);
        }
        if is_rule(line, '=') {
            self.in_table = false;
            return Ok(i + 1);
        }
        if let Some(failed) = FAILED.captures(line) {
            self.name_start
                .push(failed.get(1).map_or("", |m| m.as_str()).trim());
            let t = ParsedTrial {
                arm: Some(std::mem::take(&mut self.name_start).join(" ")),
                failed: true,
                ..Default::default()
            };
            self.push(t);
            return Ok(i + 1);
        }
        let Some(first) = FIRST.captures(line) else {
            self.name_start.push(line.trim());
            return Ok(i + 1);
        };
        let t = self.benchmark(path, i, first[1].trim())?;
        self.push(t);
        Ok(i + 3)
    }

    /// The benchmark whose first line, at `i`, ends its name with `last`: its mean and std
    /// dev from the two lines below.
    fn benchmark(&mut self, path: &Path, i: usize, last: &str) -> Result<ParsedTrial, IngestError> {
        let expected = |n: usize, what: &str| {
            line_error(
                path,
                n + 1,
                format!("expected the benchmark's {what} (three `<value> <ns|us|ms|s>`)"),
            )
        };
        let (more, mean) = self
            .lines
            .get(i + 1)
            .and_then(|l| triple(l))
            .ok_or_else(|| expected(i + 1, "mean, low mean and high mean"))?;
        let (_, sd) = self
            .lines
            .get(i + 2)
            .and_then(|l| triple(l))
            .ok_or_else(|| expected(i + 2, "std dev, low std dev and high std dev"))?;
        let mut name = std::mem::take(&mut self.name_start)
            .into_iter()
            .chain([last])
            .collect::<Vec<_>>()
            .join(" ");
        if !more.is_empty() {
            name = format!("{name} {more}");
        }
        let m = |n: &str, v: f64| metric("catch2", n, v, "ns", Better::Lower);
        Ok(ParsedTrial {
            arm: Some(name),
            metrics: vec![
                m("mean_time", mean[0]),
                m("mean_time_low", mean[1]),
                m("mean_time_high", mean[2]),
                m("std_dev_time", sd[0]),
                m("std_dev_time_low", sd[1]),
                m("std_dev_time_high", sd[2]),
            ],
            ..Default::default()
        })
    }

    /// Lands a trial under the test case it ran in.
    fn push(&mut self, mut t: ParsedTrial) {
        if let Some(tc) = &self.test_case {
            t.params.insert("test_case".to_string(), tc.clone());
        }
        self.trials.push(t);
    }
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let mut scan = Scan {
        lines: text.lines().map(|l| l.trim_end_matches('\r')).collect(),
        trials: Vec::new(),
        test_case: None,
        in_table: false,
        name_start: Vec::new(),
    };
    let mut i = 0;
    while i < scan.lines.len() {
        i = scan.line(path, i)?;
    }
    if scan.trials.is_empty() {
        return Err(no_benchmarks(
            path,
            "Catch2 console benchmark tables under `benchmark name  samples  iterations …`",
        ));
    }
    Ok(scan.trials)
}

/// Catch2 console benchmark output as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::text_document!(
    "catch2",
    "Catch2 console benchmark output (v2/v3): each benchmark is a trial",
    "Catch2 benchmark console text"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_name_mixed_units_and_test_case() {
        let text = "\
-------------------------------------------------------------------------------
Even More Fibonacci
  With a long name
-------------------------------------------------------------------------------
D:\\a\\x\\catch2_bench.cpp(26)
...............................................................................

benchmark name                       samples       iterations    estimated
                                     mean          low mean      high mean
                                     std dev       low std dev   high std dev
-------------------------------------------------------------------------------
Fibonacci 10 with                                         100           208     7.1968 ms 
a long name                                            344 ns        341 ns        349 ns 
                                                        19 ns         11 ns         29 ns 
                                                                                          
Fibonacci 20                                              100             2     8.3712 ms 
                                                    41.731 us      41.25 us     42.622 us 
                                                     3.256 us      2.163 us      5.353 us 
";
        let t = parse(Path::new("x"), text).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].arm.as_deref(), Some("Fibonacci 10 with a long name"));
        assert_eq!(
            t[0].params["test_case"],
            "Even More Fibonacci / With a long name"
        );
        assert_eq!(t[0].metrics[0].value, 344.0);
        assert_eq!(t[1].metrics[0].value, 41731.0);
        assert_eq!(t[1].metrics[4].value, 2163.0);
    }
}
