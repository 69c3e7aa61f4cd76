//! Rust libtest `cargo bench` text output (`#[bench]`, libtest's `fmt_bench_samples`):
//! `test <name> ... bench:  <n> ns/iter (+/- <n>)`, and criterion's imitation of it
//! (`cargo bench -- --output-format bencher`, criterion's `BencherReport`), which
//! github-action-benchmark's `cargo` tool reads the same way.
//!
//! Each bench line is one trial; the arm is the test's full path (`tests::benchmark`), or
//! criterion's benchmark id, which may hold spaces and `/` (`text ops/to upper`). Times (`ns`,
//! `μs`/`µs`, `ms`, `s` before `/iter`) are normalised to ns: `time_per_iter` (the median per
//! iteration, lower is better) and the spread after `+/-`, which the two harnesses mean
//! differently and so name differently: libtest's is the max − min of its samples
//! (`time_per_iter_range`), criterion's the standard deviation of its estimate
//! (`time_per_iter_std_dev`). They are told apart by where the line is: libtest prints its
//! lines inside a `running N tests` … `test result:` block, criterion prints no such block
//! (metric origin `libtest` or `criterion`). A custom harness's other unit before `/iter`
//! (`cycles/iter`) is kept as `<unit>_per_iter` in that unit; a unit without `/iter` (`MS/s`)
//! is kept as `slug(unit)`, higher is better when it ends in `/s`. Thousands separators are
//! read. Whatever else the log holds (cargo's `Compiling`/`Running` lines, compiler warnings,
//! criterion's `Warning: Unable to complete 100 samples…`, blank lines) is read past.
//! `ignored` tests, `running N tests`, `test result:` and cargo's lines are skipped. A test
//! that `FAILED` (a benchmark that panicked, or a plain `#[test]` run by `cargo bench`: the
//! line does not say which) lands nothing; all of them are named in one warning, and the
//! failure output that follows (`failures:`, `---- name stdout ----`, the panic) is read past,
//! never as benchmark lines. A file whose every test failed is refused, saying so. A name met
//! again (a second bench target) is a further repeat.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::adapter::Parsed;
use super::text::{left_out, line_error, metric, no_benchmarks, ns_exp, number, scaled, slug};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

static BENCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^test\s+(.+?)\s+\.\.\.\s+bench:\s+([\d,]+(?:\.\d+)?)\s+(\S+?)(/iter)?\s+\(\+/-\s+([\d,]+(?:\.\d+)?)\)\s*$")
        .unwrap()
});
static RESULT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^test result: \w+\. \d+ passed; \d+ failed;").unwrap());
static RUNNING: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^running \d+ tests?\s*$").unwrap());
static FAILED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^test\s+(.+?)\s+\.\.\.\s+FAILED\s*$").unwrap());

pub fn sniff(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_end_matches('\r');
        BENCH.is_match(l) || RESULT.is_match(l)
    })
}

/// Whether the text is criterion's bencher-style output: bench lines, all of them outside
/// libtest's blocks, and not an excerpt of libtest's output ([`excerpt_of_libtest`]).
pub fn sniff_criterion(text: &str) -> bool {
    let (mut inside, mut outside) = (false, false);
    let mut in_block = false;
    for l in text.lines() {
        let l = l.trim_end_matches('\r');
        if RUNNING.is_match(l) || RESULT.is_match(l) {
            in_block = RUNNING.is_match(l);
        } else if BENCH.is_match(l) {
            *(if in_block { &mut inside } else { &mut outside }) = true;
        }
    }
    outside && !inside && !excerpt_of_libtest(text)
}

/// Whether the bench lines outside a libtest block are libtest's all the same. libtest prints
/// its lines inside `running N tests` … `test result:`; criterion prints no such block, so a
/// line outside one is criterion's. Only an excerpt of libtest's output (no block at all, as
/// github-action-benchmark's and Bencher's test files are) has libtest lines outside: it shows
/// itself by what criterion never prints (names padded to one width, values with decimals
/// (libtest ≥ 1.77), a module path `a::b`, a unit without `/iter`).
fn excerpt_of_libtest(text: &str) -> bool {
    let mut evidence = false;
    for l in text.lines() {
        let l = l.trim_end_matches('\r');
        if RUNNING.is_match(l) || RESULT.is_match(l) {
            return false;
        }
        if let Some(c) = BENCH.captures(l) {
            evidence |= l.contains("  ... bench:")
                || c[2].contains('.')
                || c[1].contains("::")
                || c.get(4).is_none();
        }
    }
    evidence
}

/// Which harness printed a bench line: libtest's own, or criterion's imitation of it.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Harness {
    Libtest,
    Criterion,
}

impl Harness {
    fn origin(self) -> &'static str {
        match self {
            Harness::Libtest => "libtest",
            Harness::Criterion => "criterion",
        }
    }

    /// What its `+/-` is: libtest's max − min, criterion's standard deviation.
    fn spread(self) -> &'static str {
        match self {
            Harness::Libtest => "range",
            Harness::Criterion => "std_dev",
        }
    }
}

/// Where the reading of a libtest log stands, line by line.
struct Scan {
    trials: Vec<ParsedTrial>,
    seen: std::collections::BTreeMap<String, i32>,
    /// Tests that FAILED: `name (line n)`.
    failed: Vec<String>,
    /// Inside libtest's failure report (`failures:` up to `test result:`): captured output
    /// and panics, whatever they print.
    in_failures: bool,
    /// Inside libtest's `running N tests` … `test result:`: its lines are libtest's; outside,
    /// criterion's, unless the file is an excerpt of libtest's output.
    in_block: bool,
    outside: Harness,
}

impl Scan {
    fn new(text: &str) -> Scan {
        Scan {
            trials: Vec::new(),
            seen: Default::default(),
            failed: Vec::new(),
            in_failures: false,
            in_block: false,
            outside: if excerpt_of_libtest(text) {
                Harness::Libtest
            } else {
                Harness::Criterion
            },
        }
    }

    /// Reads line `n` (1-based); an error is the message for that line.
    fn line(&mut self, n: usize, line: &str) -> Result<(), String> {
        if RESULT.is_match(line) || RUNNING.is_match(line) {
            self.in_failures = false;
            self.in_block = RUNNING.is_match(line);
            return Ok(());
        }
        if self.in_failures {
            return Ok(());
        }
        if line.trim_end() == "failures:" {
            self.in_failures = true;
            return Ok(());
        }
        if let Some(c) = FAILED.captures(line) {
            self.failed.push(format!("{} (line {n})", &c[1]));
            return Ok(());
        }
        let Some(c) = BENCH.captures(line) else {
            if line.starts_with("test ") && line.contains(" ... bench:") {
                return Err("expected `test <name> ... bench: <n> <unit>/iter (+/- <n>)`".into());
            }
            return Ok(());
        };
        let harness = if self.in_block {
            Harness::Libtest
        } else {
            self.outside
        };
        let metrics = bench_metrics(&c, harness)?;
        let name = c[1].to_string();
        let r = self.seen.entry(name.clone()).or_insert(0);
        self.trials.push(ParsedTrial {
            arm: Some(name),
            repeat: Some(*r),
            metrics,
            ..Default::default()
        });
        *r += 1;
        Ok(())
    }

    /// The trials, refused when none landed, and the one warning naming the failed tests.
    fn finish(self, path: &Path) -> Result<Parsed, IngestError> {
        if self.trials.is_empty() && !self.failed.is_empty() {
            return Err(line_error(
                path,
                1,
                format!(
                    "no benchmark to land: every test in it FAILED ({}); its `failures:` section says why. Fix them and run `cargo bench` again",
                    self.failed.join(", ")
                ),
            ));
        }
        if self.trials.is_empty() {
            return Err(no_benchmarks(
                path,
                "libtest lines `test <name> ... bench: <n> ns/iter (+/- <n>)`",
            ));
        }
        let what = "test(s) FAILED and land nothing (their failure output is skipped)";
        Ok(Parsed::with_warnings(
            self.trials,
            left_out(path, what, &self.failed),
        ))
    }
}

/// The metrics of one bench line: its time and spread in ns when the unit is a time per
/// iteration, else in the unit it names.
fn bench_metrics(c: &regex::Captures, harness: Harness) -> Result<Vec<Metric>, String> {
    let bad = |what: &str| format!("expected a number for the {what}");
    let (origin, spread) = (harness.origin(), harness.spread());
    let value = number(&c[2]).ok_or_else(|| bad("time"))?;
    let range = number(&c[5]).ok_or_else(|| bad("+/- range"))?;
    let unit = &c[3];
    let per_iter = c.get(4).is_some();
    if let (Some(exp), true) = (ns_exp(unit), per_iter) {
        let time = scaled(&c[2], exp).ok_or_else(|| bad("time"))?;
        let range = scaled(&c[5], exp).ok_or_else(|| bad("+/- range"))?;
        return Ok(vec![
            metric(origin, "time_per_iter", time, "ns", Better::Lower),
            metric(
                origin,
                &format!("time_per_iter_{spread}"),
                range,
                "ns",
                Better::Lower,
            ),
        ]);
    }
    let name = if per_iter {
        format!("{}_per_iter", slug(unit))
    } else {
        slug(unit)
    };
    let better = if !per_iter && unit.ends_with("/s") {
        Better::Higher
    } else {
        Better::Lower
    };
    Ok(vec![
        metric(origin, &name, value, unit, better),
        metric(origin, &format!("{name}_{spread}"), range, unit, Better::Lower),
    ])
}

pub fn parse(path: &Path, text: &str) -> Result<Parsed, IngestError> {
    let mut scan = Scan::new(text);
    for (i, raw) in text.lines().enumerate() {
        scan.line(i + 1, raw.trim_end_matches('\r'))
            .map_err(|message| line_error(path, i + 1, message))?;
    }
    scan.finish(path)
}

/// libtest bench output as an [`super::adapter::Adapter`] (criterion's bencher-style lines
/// in it read as criterion's; criterion's output alone is `super::criterion_bencher`).
pub static ADAPTER: super::adapter::Document = super::adapter::text_document!(
    "libtest-bench",
    "Rust libtest `cargo bench` output: each `bench:` line is a trial",
    "`cargo bench` libtest text",
    parse
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_units_and_custom_units() {
        let text = "test a::b     ... bench:  13,967,756.30 ns/iter (+/- 266,769.64)\n\
                    test one ... bench:   1 μs/iter (+/- 1)\n\
                    test cmov ... bench:        2835 cycles/iter (+/- 14)\n\
                    test upload ... bench:        1911 MS/s (+/- 420)";
        let t = parse(Path::new("x"), text).unwrap().trials;
        assert_eq!(t[0].arm.as_deref(), Some("a::b"));
        assert_eq!(t[0].metrics[0].value, 13967756.3);
        assert_eq!(t[0].metrics[1].value, 266769.64);
        assert_eq!(t[1].metrics[0].value, 1000.0);
        assert_eq!(
            (t[2].metrics[0].name.as_str(), t[2].metrics[0].unit.as_str()),
            ("cycles_per_iter", "cycles")
        );
        assert_eq!(t[3].metrics[0].name, "ms_per_s");
        assert_eq!(t[3].metrics[0].better, Better::Higher);
        let e = parse(
            Path::new("z.txt"),
            "running 0 tests\ntest result: ok. 0 passed; 0 failed;",
        )
        .unwrap_err();
        assert!(e.to_string().contains("no benchmark lines found"), "{e}");
    }

    #[test]
    #[cfg_attr(
        not(shared_fixtures),
        ignore = "needs ../shared/fixtures: a clone without it"
    )]
    fn failed_tests_are_one_warning_and_their_output_is_read_past() {
        // Bencher's failed.txt: benchmark_b FAILED on line 5, its panic under `failures:`.
        let path = crate::fixtures::resolve_fixture(
            Path::new(env!("CARGO_MANIFEST_DIR")),
            "tests/fixtures/libtest-bench/bencher_failed.txt",
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let p = parse(Path::new("failed.txt"), &text).unwrap();
        let got: Vec<(&str, f64, f64)> = p
            .trials
            .iter()
            .map(|t| {
                (
                    t.arm.as_deref().unwrap(),
                    t.metrics[0].value,
                    t.metrics[1].value,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("tests::benchmark_a", 3296.0, 521.0),
                ("tests::benchmark_c", 3215.0, 356.0)
            ]
        );
        assert_eq!(
            p.warnings,
            ["failed.txt: 1 test(s) FAILED and land nothing (their failure output is skipped): tests::benchmark_b (line 5)"]
        );

        // What a failing benchmark prints is never read as a bench line, even one that
        // looks like a malformed one (which outside the failure report is an error).
        let printed = "running 2 tests\n\
            test a ... bench:         10 ns/iter (+/- 1)\n\
            test b ... FAILED\n\
            \n\
            failures:\n\
            \n\
            ---- b stdout ----\n\
            test b ... bench: garbage\n\
            running the setup\n\
            thread 'main' panicked at src/lib.rs:3:5\n\
            \n\
            failures:\n\
            \x20   b\n\
            \n\
            test result: FAILED. 0 passed; 1 failed; 0 ignored; 1 measured; 0 filtered out\n";
        let p = parse(Path::new("p.txt"), printed).unwrap();
        assert_eq!(p.trials.len(), 1);
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].ends_with(": b (line 3)"), "{:?}", p.warnings);
        let e = parse(Path::new("p.txt"), "test b ... bench: garbage\n").unwrap_err();
        assert!(e.to_string().starts_with("p.txt:1: expected `test <name>"), "{e}");
    }

    #[test]
    fn a_file_whose_every_test_failed_is_refused_saying_so() {
        let text = "running 2 tests\n\
            test tests::x ... FAILED\n\
            test tests::y ... FAILED\n\
            \n\
            failures:\n\
            \n\
            failures:\n\
            \x20   tests::x\n\
            \x20   tests::y\n\
            \n\
            test result: FAILED. 0 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out\n";
        let e = parse(Path::new("f.txt"), text).unwrap_err().to_string();
        assert_eq!(
            e,
            "f.txt:1: no benchmark to land: every test in it FAILED (tests::x (line 2), tests::y (line 3)); its `failures:` section says why. Fix them and run `cargo bench` again"
        );
    }
}
