//! airspeed velocity's console output (`asv run`, `asv continuous`, `asv run --quick
//! --dry-run`), for CI jobs that keep the log but not asv's `results/` (Bencher reads the
//! same). Upstream definition: `asv/runner.py` (`log_benchmark_result`), `asv/results.py`
//! (`format_benchmark_result`, `_format_benchmark_result`), `asv/util.py`
//! (`human_value`, `human_file_size`, `format_text_table`) and `asv_runner/util.py`
//! (`human_time`, `human_float`).
//!
//! A result is a progress line `[ 80.00%] ··· <benchmark>   <value>`: `12.3±0.3μs` for a
//! `time_*` benchmark (→ s, as the results adapter `super::asv` stores it), `8.06k` for a
//! `mem_*`/`peakmem_*` one (decimal prefixes → B), a number for `track_*` and others (no
//! unit: the console does not print it), `failed`, or `n/a` (skipped). A parameterised
//! benchmark prints `ok` (or `1/4 failed`, `failed`) and a table below: one row per
//! combination of its row parameters, one result column per combination of its column
//! parameters (named in the table's top header, `m / k`).
//!
//! One trial per result (per line, and per table cell), arm `default`, params the
//! benchmark's parameter combination as the table shows it (string values without their
//! quotes), one metric named after the benchmark: the series the results directory of the
//! same run gives (`super::asv`), to the 3 significant digits the console prints. asv's `±`
//! (half the interquartile range) is not kept, as the results import keeps none. A failed
//! benchmark (or combination) is a failed trial with param `benchmark` naming it, all named
//! in one warning; `n/a` lands nothing. The commit (`For <project> commit <hash> <branch>:`)
//! is the run's when the log holds one; a log of several commits or environments (`··
//! Benchmarking <env>`) gives each trial param `commit` or `asv_env`. Tracebacks
//! (`--show-stderr`), build output and asv's other lines are read past.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::adapter::Parsed;
use super::text::{left_out, line_error, metric, no_benchmarks, scaled, strip_ansi};
use super::{CommitInfo, IngestError, ParsedTrial};
use crate::model::{Better, Params};

/// `[ 80.00%] ··· rest`: asv's progress prefix and indentation dots.
static STEP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\[\s*\d+(?:\.\d+)?%\]\s+(·+)\s+(.*?)\s*$").unwrap());
/// `benchmarks.TimeSuite.time_keys      11.2±0.01μs`: a dotted benchmark name, its result.
static RESULT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([A-Za-z_]\w*(?:\.\w+)+)\s+(\S.*)$").unwrap());
static COMMIT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^For .+ commit ([0-9a-fA-F]{4,40})(?: <([^>]*)>)?:$").unwrap());
static ENV: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^Benchmarking (\S+)").unwrap());
/// A value as `human_value` writes it: a number, an optional `±err`, a suffix.
static VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)(?:±\d+(?:\.\d+)?(?:e[+-]?\d+)?)?(\S*?)(?:;\.\.\.)?$")
        .unwrap()
});
static PARTLY_FAILED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d+/\d+ failed$").unwrap());

/// What a benchmark measures, by its name as asv types it (`time_`, `mem_`…).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Time,
    Bytes,
    Other,
}

fn kind_of(name: &str) -> Kind {
    let method = name.rsplit('.').next().unwrap_or(name);
    if method.starts_with("time_") || method.starts_with("timeraw_") {
        Kind::Time
    } else if method.starts_with("mem_") || method.starts_with("peakmem_") {
        Kind::Bytes
    } else {
        Kind::Other
    }
}

/// A `human_time` unit: the power of ten of a second (`μs` → -6) where it is one, else the
/// seconds it holds.
fn time_unit(unit: &str) -> Option<Result<i32, f64>> {
    const WEEK: f64 = 60.0 * 60.0 * 24.0 * 7.0;
    Some(match unit {
        "ns" => Ok(-9),
        "μs" | "µs" | "us" => Ok(-6),
        "ms" => Ok(-3),
        "s" => Ok(0),
        "m" => Err(60.0),
        "h" => Err(3600.0),
        "d" => Err(86400.0),
        "w" => Err(WEEK),
        // asv's month, quarter, year and century are whole seconds of 52-week years.
        "M" => Err((WEEK * 52.0 / 12.0).trunc()),
        "q" => Err((WEEK * 52.0 / 4.0).trunc()),
        "y" => Err(WEEK * 52.0),
        "C" => Err(WEEK * 52.0 * 100.0),
        _ => return None,
    })
}

/// One shown result: a value and its unit, failed, or skipped (`n/a`).
#[derive(Debug, PartialEq)]
enum Shown {
    Value(f64, &'static str),
    Failed,
    Skipped,
}

/// A result as `human_value` printed it, in the unit the results import stores (s, B; none
/// for a number without a suffix), rounded once.
fn read_value(kind: Kind, text: &str) -> Option<Shown> {
    match text {
        "failed" => return Some(Shown::Failed),
        "n/a" => return Some(Shown::Skipped),
        _ => {}
    }
    let c = VALUE.captures(text)?;
    let digits = &c[1];
    Some(match (kind, &c[2]) {
        (Kind::Time, "") => Shown::Value(digits.parse().ok()?, "s"),
        (Kind::Bytes, "") => Shown::Value(digits.parse().ok()?, "B"),
        (_, "") => Shown::Value(digits.parse().ok()?, ""),
        (Kind::Bytes, s) => {
            let i = " kMGTPEH".find(s).filter(|_| s.len() == 1)?;
            Shown::Value(scaled(digits, 3 * i as i32)?, "B")
        }
        (_, s) => match time_unit(s)? {
            Ok(exp) => Shown::Value(scaled(digits, exp)?, "s"),
            Err(seconds) => Shown::Value(digits.parse::<f64>().ok()? * seconds, "s"),
        },
    })
}

/// A table `_format_benchmark_result` drew: its lines with the progress prefix's width cut
/// off, the first the `=` rule.
struct Table {
    lines: Vec<String>,
    /// Line number of its first line.
    line: usize,
}

impl Table {
    /// Whether its closing `=` rule was read: the second `=` rule, or the third below a top
    /// header (`--  m / k`). What follows it (`--show-stderr`'s traceback of a failed
    /// combination) is not the table's.
    fn closed(&self) -> bool {
        let rule = |l: &String| !l.is_empty() && l.chars().all(|c| c == '=' || c == ' ');
        let rules = self.lines.iter().filter(|l| rule(l)).count();
        let top = self
            .lines
            .get(1)
            .is_some_and(|l| l.starts_with("--") && !l.chars().all(|c| c == '-' || c == ' '));
        rules >= if top { 3 } else { 2 }
    }
}

/// The chars of `line` at `span` (char positions), trimmed.
fn cell(line: &[char], span: &(usize, usize)) -> String {
    let end = span.1.min(line.len());
    let start = span.0.min(end);
    line[start..end].iter().collect::<String>().trim().to_string()
}

/// Each combination of a table and what it shows: (params, result text).
fn read_table(path: &Path, t: &Table) -> Result<Vec<(Params, String)>, IngestError> {
    let bad = |what: &str| {
        let message = format!("expected asv's table of a parameterised benchmark ({what})");
        line_error(path, t.line, message)
    };
    let rows: Vec<Vec<char>> = t.lines.iter().map(|l| l.chars().collect()).collect();
    let is_rule = |l: &[char], c: char| !l.is_empty() && l.iter().all(|x| *x == c || *x == ' ');
    let rules: Vec<usize> = (0..rows.len())
        .filter(|&i| is_rule(&rows[i], '=') || is_rule(&rows[i], '-'))
        .collect();
    if rules.len() < 3 || !is_rule(&rows[0], '=') {
        return Err(bad("three rules"));
    }
    // Columns: the runs of `=` of the first rule.
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in rows[0].iter().chain(std::iter::once(&' ')).enumerate() {
        match (c, start) {
            ('=', None) => start = Some(i),
            (' ', Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    let n = rules.len();
    let header = rules[n - 3] + 1;
    if header >= rules[n - 2] {
        return Err(bad("a header row"));
    }
    let header: Vec<String> = spans.iter().map(|s| cell(&rows[header], s)).collect();
    // With column parameters, a top header (`--  m / k`) names them, and the rule below it
    // joins the row parameters' columns by `-`, then a space, then the result columns.
    let top = rows[1..rules[1]]
        .iter()
        .find(|l| l.starts_with(&['-', '-']) && !is_rule(l, '-'));
    let (row_params, column_names): (usize, Vec<String>) = match top {
        Some(top) => {
            let text: String = top[2..].iter().collect();
            let span_rule: String = rows[rules[1]].iter().collect();
            let left = span_rule.trim_end().split(' ').next().unwrap_or("").len();
            let row_params = spans.iter().filter(|s| s.1 <= left).count();
            let names = text.trim().split(" / ").map(str::to_string).collect();
            (row_params, names)
        }
        None => (header.iter().take_while(|h| !h.is_empty()).count(), Vec::new()),
    };
    if row_params == 0 || row_params >= spans.len() {
        return Err(bad("its parameter columns"));
    }
    let mut out = Vec::new();
    for row in &rows[rules[n - 2] + 1..rules[n - 1]] {
        let cells: Vec<String> = spans.iter().map(|s| cell(row, s)).collect();
        for (j, shown) in cells.iter().enumerate().skip(row_params) {
            let mut params: Params = header[..row_params]
                .iter()
                .cloned()
                .zip(cells[..row_params].iter().cloned())
                .collect();
            if !column_names.is_empty() {
                let values: Vec<&str> = header[j].split(" / ").collect();
                if values.len() != column_names.len() {
                    return Err(bad("a value per column parameter"));
                }
                params.extend(
                    column_names
                        .iter()
                        .cloned()
                        .zip(values.iter().map(|v| v.to_string())),
                );
            }
            out.push((params, shown.clone()));
        }
    }
    Ok(out)
}

/// One result as it lands, before the log's commits and environments are known.
struct Found {
    name: String,
    params: Params,
    shown: Shown,
    env: Option<String>,
    commit: Option<(String, Option<String>)>,
}

pub fn sniff(text: &str) -> bool {
    text.lines().any(|l| {
        STEP.captures(strip_ansi(l).trim_end_matches('\r'))
            .is_some_and(|c| c[1].chars().count() >= 3 && RESULT.is_match(&c[2]))
    })
}

/// A result line just read: its table, if it has one, may follow.
struct Pending {
    name: String,
    shown: String,
    line: usize,
}

/// Where the reading of a console log stands: the results found so far, the commit and
/// environment being benchmarked, a result line waiting for its table, a table being read.
struct Scan<'p> {
    path: &'p Path,
    found: Vec<Found>,
    env: Option<String>,
    commit: Option<(String, Option<String>)>,
    pending: Option<Pending>,
    /// A table being read, and the width of the progress prefix its lines are indented by.
    table: Option<(Table, usize)>,
}

impl<'p> Scan<'p> {
    fn new(path: &'p Path) -> Scan<'p> {
        Scan {
            path,
            found: Vec::new(),
            env: None,
            commit: None,
            pending: None,
            table: None,
        }
    }

    /// Lands one result of the benchmark `name` as shown at `line`.
    fn push(&mut self, name: &str, params: Params, shown: &str, line: usize) -> Result<(), IngestError> {
        let shown = read_value(kind_of(name), shown).ok_or_else(|| {
            line_error(
                self.path,
                line,
                format!(
                    "`{shown}`: expected a result as asv prints it (`12.3±0.3μs`, `8.06k`, `3`, `failed`, `n/a`)"
                ),
            )
        })?;
        self.found.push(Found {
            name: name.to_string(),
            params,
            shown,
            env: self.env.clone(),
            commit: self.commit.clone(),
        });
        Ok(())
    }

    /// Lands the cells of the table being read, under the result line it belongs to.
    fn close_table(&mut self) -> Result<(), IngestError> {
        let Some((t, _)) = self.table.take() else {
            return Ok(());
        };
        let p = self.pending.take().expect("a table follows its result line");
        for (params, shown) in read_table(self.path, &t)? {
            self.push(&p.name, params, &shown, t.line)?;
        }
        Ok(())
    }

    /// Whether line `line` was taken into the table being read (indented to where its first
    /// rule began, up to its closing rule).
    fn in_table(&mut self, line: &str) -> bool {
        let Some((t, indent)) = self.table.as_mut() else {
            return false;
        };
        let body: String = line.chars().skip(*indent).collect();
        let lead: String = line.chars().take(*indent).collect();
        let taken = !t.closed() && !body.trim().is_empty() && lead.trim().is_empty();
        if taken {
            t.lines.push(body.trim_end().to_string());
        }
        taken
    }

    /// Reads line `n` (1-based).
    fn line(&mut self, n: usize, line: &str) -> Result<(), IngestError> {
        if self.in_table(line) {
            return Ok(());
        }
        self.close_table()?;
        let Some(c) = STEP.captures(line) else {
            return Ok(());
        };
        let dots = c[1].chars().count();
        let rest = c[2].to_string();
        if rest.starts_with('=') && self.pending.is_some() {
            let indent = line.chars().count() - rest.chars().count();
            let lines = vec![rest];
            self.table = Some((Table { lines, line: n }, indent));
            return Ok(());
        }
        // The last result line had no table: it showed its value.
        if let Some(p) = self.pending.take() {
            self.push(&p.name, Params::new(), &p.shown, p.line)?;
        }
        if let Some(m) = COMMIT.captures(&rest) {
            self.commit = Some((m[1].to_string(), m.get(2).map(|b| b.as_str().to_string())));
        } else if let Some(m) = ENV.captures(&rest).filter(|_| dots == 2) {
            self.env = Some(m[1].trim_end_matches('.').to_string());
        } else if let Some(m) = RESULT.captures(&rest).filter(|_| dots >= 3) {
            let (name, shown) = (m[1].to_string(), m[2].trim().to_string());
            self.pending = Some(Pending { name, shown, line: n });
        }
        Ok(())
    }

    /// The results found, once the log's end closed what was still open.
    fn finish(mut self) -> Result<Vec<Found>, IngestError> {
        self.close_table()?;
        if let Some(p) = self.pending.take() {
            // `ok` or `1/4 failed` promised a table the log does not hold.
            if p.shown == "ok" || PARTLY_FAILED.is_match(&p.shown) {
                let message = format!("{}: expected its table of results below `{}`", p.name, p.shown);
                return Err(line_error(self.path, p.line, message));
            }
            self.push(&p.name, Params::new(), &p.shown, p.line)?;
        }
        Ok(self.found)
    }
}

pub fn parse(path: &Path, text: &str) -> Result<Parsed, IngestError> {
    let mut scan = Scan::new(path);
    for (i, line) in text.lines().enumerate() {
        scan.line(i + 1, strip_ansi(line).trim_end_matches('\r'))?;
    }
    let found = scan.finish()?;
    if found.is_empty() {
        return Err(no_benchmarks(
            path,
            "asv result lines `[ 50.00%] ··· benchmarks.Suite.time_x   11.2±0.01μs`",
        ));
    }
    Ok(assemble(path, found))
}

/// The trials of the results found: params `asv_env` and `commit` where the log holds
/// several, failed results as failed trials named in one warning, and the commit when the
/// log holds one.
fn assemble(path: &Path, found: Vec<Found>) -> Parsed {
    let envs: BTreeSet<_> = found.iter().map(|f| f.env.clone()).collect();
    let commits: BTreeSet<_> = found.iter().map(|f| f.commit.clone()).collect();
    let mut trials = Vec::new();
    let mut failed = Vec::new();
    for f in found {
        let mut params = f.params;
        if envs.len() > 1
            && let Some(e) = &f.env
        {
            params.insert("asv_env".to_string(), e.clone());
        }
        if commits.len() > 1
            && let Some((c, _)) = &f.commit
        {
            params.insert("commit".to_string(), c.clone());
        }
        match f.shown {
            Shown::Skipped => {}
            Shown::Failed => {
                failed.push(if params.is_empty() {
                    f.name.clone()
                } else {
                    format!("{}{params:?}", f.name)
                });
                params.insert("benchmark".to_string(), f.name);
                trials.push(ParsedTrial {
                    params,
                    failed: true,
                    ..Default::default()
                });
            }
            Shown::Value(value, unit) => trials.push(ParsedTrial {
                params,
                metrics: vec![metric("asv", &f.name, value, unit, Better::Lower)],
                ..Default::default()
            }),
        }
    }
    let what = "asv benchmark result(s) failed (failed trials, no figure)";
    let mut parsed = Parsed::with_warnings(trials, left_out(path, what, &failed));
    parsed.commit = match commits.into_iter().collect::<Vec<_>>().as_slice() {
        [Some((id, branch))] => Some(CommitInfo {
            id: id.clone(),
            branch: branch.clone(),
            dirty: None,
        }),
        _ => None,
    };
    parsed
}

/// asv's console output as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::text_document!(
    "asv-console",
    "airspeed velocity's `asv run` console output: each result (and table cell) is a trial",
    "`asv run` console output",
    parse
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_as_asv_prints_them() {
        let v = |k, s| read_value(k, s).unwrap();
        assert_eq!(v(Kind::Time, "12.3±0.3μs"), Shown::Value(12.3e-6, "s"));
        assert_eq!(v(Kind::Time, "819±200ns"), Shown::Value(819e-9, "s"));
        assert_eq!(v(Kind::Time, "1.05s"), Shown::Value(1.05, "s"));
        assert_eq!(v(Kind::Time, "2.00m"), Shown::Value(120.0, "s"));
        assert_eq!(v(Kind::Bytes, "8.06k"), Shown::Value(8060.0, "B"));
        assert_eq!(v(Kind::Bytes, "2.42±0.1M"), Shown::Value(2.42e6, "B"));
        assert_eq!(v(Kind::Bytes, "256"), Shown::Value(256.0, "B"));
        assert_eq!(v(Kind::Other, "3"), Shown::Value(3.0, ""));
        assert_eq!(v(Kind::Other, "0.5±0.01"), Shown::Value(0.5, ""));
        assert_eq!(v(Kind::Other, "failed"), Shown::Failed);
        assert_eq!(v(Kind::Time, "n/a"), Shown::Skipped);
        assert_eq!(v(Kind::Time, "1.00ms;..."), Shown::Value(1e-3, "s"));
        assert!(read_value(Kind::Time, "12 apples").is_none());
        assert!(read_value(Kind::Bytes, "3.1Q").is_none());
    }

    #[test]
    fn a_log_of_two_environments_gives_each_trial_its_environment() {
        // Synthetic, in the shape asv 0.5 printed a run over two environments (as Bencher's
        // asv test file is): the same benchmarks twice, one failed in the second.
        let text = "· Running 4 total benchmarks (1 commits * 2 environments * 2 benchmarks)\n\
            [  0.00%] · For project commit 4238c44d <master>:\n\
            [  0.00%] ·· Building for virtualenv-py2.7.\n\
            [  0.00%] ·· Benchmarking virtualenv-py2.7\n\
            [ 10.00%] ··· Running (benchmarks.TimeSuite.time_keys--)....\n\
            [ 25.00%] ··· benchmarks.MemSuite.mem_list                                 2.42k\n\
            [ 50.00%] ··· benchmarks.TimeSuite.time_keys                         11.2±0.01μs\n\
            [ 50.00%] ·· Building for virtualenv-py3.6..\n\
            [ 50.00%] ·· Benchmarking virtualenv-py3.6\n\
            [ 75.00%] ··· benchmarks.MemSuite.mem_list                                 2.11k\n\
            [100.00%] ··· benchmarks.TimeSuite.time_keys                              failed\n";
        assert!(sniff(text));
        let p = parse(Path::new("six.txt"), text).unwrap();
        let got: Vec<(String, Option<f64>, bool)> = p
            .trials
            .iter()
            .map(|t| {
                (
                    format!("{:?}", t.params),
                    t.metrics.first().map(|m| m.value),
                    t.failed,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (r#"{"asv_env": "virtualenv-py2.7"}"#.to_string(), Some(2420.0), false),
                (r#"{"asv_env": "virtualenv-py2.7"}"#.to_string(), Some(11.2e-6), false),
                (r#"{"asv_env": "virtualenv-py3.6"}"#.to_string(), Some(2110.0), false),
                (
                    r#"{"asv_env": "virtualenv-py3.6", "benchmark": "benchmarks.TimeSuite.time_keys"}"#
                        .to_string(),
                    None,
                    true
                ),
            ]
        );
        assert_eq!(
            p.commit,
            Some(CommitInfo {
                id: "4238c44d".to_string(),
                branch: Some("master".to_string()),
                dirty: None
            })
        );
        // A table promised (`ok`) but cut off is an error naming the line.
        let e = parse(
            Path::new("cut.txt"),
            "[ 10.00%] ··· benchmarks.Squares.time_squares                                 ok\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "cut.txt:1: benchmarks.Squares.time_squares: expected its table of results below `ok`"
        );
    }
}
