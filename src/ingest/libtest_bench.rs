//! Rust libtest `cargo bench` text output (`#[bench]`, libtest's `fmt_bench_samples`):
//! `test <name> ... bench:  <n> ns/iter (+/- <n>)`.
//!
//! Each bench line is one trial; the arm is the test's full path (`tests::benchmark`). Times
//! (`ns`, `μs`/`µs`, `ms`, `s` before `/iter`) are normalised to ns: `time_per_iter` (the
//! median per iteration, lower is better) and `time_per_iter_range` (libtest's `+/-`, the
//! max − min of its samples). A custom harness's other unit before `/iter` (`cycles/iter`)
//! is kept as `<unit>_per_iter` in that unit; a unit without `/iter` (`MS/s`) is kept as
//! `slug(unit)`, higher is better when it ends in `/s`. Thousands separators are read.
//! `ignored`/`FAILED` tests, `running N tests`, `test result:` and cargo's lines are skipped.
//! A name met again (a second bench target) is a further repeat.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::text::{metric, no_benchmarks, ns_exp, number, scaled, slug};
use super::{IngestError, ParsedTrial};
use crate::model::Better;

static BENCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^test\s+(\S+)\s+\.\.\.\s+bench:\s+([\d,]+(?:\.\d+)?)\s+(\S+?)(/iter)?\s+\(\+/-\s+([\d,]+(?:\.\d+)?)\)\s*$")
        .unwrap()
});
static RESULT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^test result: \w+\. \d+ passed; \d+ failed;").unwrap());

pub fn sniff(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_end_matches('\r');
        BENCH.is_match(l) || RESULT.is_match(l)
    })
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let mut trials = Vec::new();
    let mut seen: std::collections::BTreeMap<String, i32> = Default::default();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        let Some(c) = BENCH.captures(line) else {
            if line.starts_with("test ") && line.contains(" ... bench:") {
                return Err(IngestError::Parse {
                    path: path.to_path_buf(),
                    line: i + 1,
                    message: "expected `test <name> ... bench: <n> <unit>/iter (+/- <n>)`"
                        .to_string(),
                });
            }
            continue;
        };
        let bad = |what: &str| IngestError::Parse {
            path: path.to_path_buf(),
            line: i + 1,
            message: format!("expected a number for the {what}"),
        };
        let value = number(&c[2]).ok_or_else(|| bad("time"))?;
        let range = number(&c[5]).ok_or_else(|| bad("+/- range"))?;
        let unit = &c[3];
        let per_iter = c.get(4).is_some();
        let metrics = match (ns_exp(unit), per_iter) {
            (Some(exp), true) => vec![
                metric(
                    "libtest",
                    "time_per_iter",
                    scaled(&c[2], exp).ok_or_else(|| bad("time"))?,
                    "ns",
                    Better::Lower,
                ),
                metric(
                    "libtest",
                    "time_per_iter_range",
                    scaled(&c[5], exp).ok_or_else(|| bad("+/- range"))?,
                    "ns",
                    Better::Lower,
                ),
            ],
            _ => {
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
                vec![
                    metric("libtest", &name, value, unit, better),
                    metric(
                        "libtest",
                        &format!("{name}_range"),
                        range,
                        unit,
                        Better::Lower,
                    ),
                ]
            }
        };
        let name = c[1].to_string();
        let r = seen.entry(name.clone()).or_insert(0);
        trials.push(ParsedTrial {
            arm: Some(name),
            repeat: Some(*r),
            metrics,
            ..Default::default()
        });
        *r += 1;
    }
    if trials.is_empty() {
        return Err(no_benchmarks(
            path,
            "libtest lines `test <name> ... bench: <n> ns/iter (+/- <n>)`",
        ));
    }
    Ok(trials)
}

/// libtest bench output as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::text_document!(
    "libtest-bench",
    "Rust libtest `cargo bench` output: each `bench:` line is a trial",
    "`cargo bench` libtest text"
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
        let t = parse(Path::new("x"), text).unwrap();
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
}
