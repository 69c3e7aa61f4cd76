//! Decisions over real processes: the same-runner A/B of two git revisions, bisect over a
//! 16-commit repository where one commit makes a C program slower, `--until-decided` turning
//! an inconclusive 3-vs-3 into a decision, and an A/A calibration that calls nothing.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::compare_json as compare;
use common::{git, ok, perfhouse};

fn write_plan(dir: &Path, text: &str) -> std::path::PathBuf {
    let plan = dir.join("plan.toml");
    fs::write(&plan, text).unwrap();
    plan
}

fn rev(dir: &Path, r: &str) -> String {
    let o = Command::new("git")
        .current_dir(dir)
        .args(["rev-parse", r])
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// The C program: times its own work loop with CLOCK_MONOTONIC and prints `work_ms: X`.
/// `ROUNDS` is the work; commit 11 of 16 (index 10) doubles it.
fn program(rounds: u64) -> String {
    format!(
        r#"#include <stdio.h>
#include <time.h>
int main(void) {{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    volatile unsigned long x = 1;
    for (unsigned long i = 0; i < {rounds}UL; i++) x = x * 6364136223846793005UL + 1442695040888963407UL;
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("work_ms: %.3f\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
    return 0;
}}
"#
    )
}

const PLAN: &str = r#"
suite = "cprog"
[run]
repeats = 3
order = "interleaved"
build = "cc -O1 -o prog prog.c"
command = "./prog"
timeout = "60s"

[[arm]]
name = "base"
git = "HEAD~6"

[[arm]]
name = "head"
git = "HEAD"

[[metric]]
name = "work_ms"
regex = 'work_ms: ([0-9.]+)'
unit = "ms"
better = "lower"
"#;

/// A repository of 16 commits; commit index `slow` doubles the loop. Returns the plan path.
fn repo(dir: &Path, slow: usize) -> std::path::PathBuf {
    git(dir, &["init", "-q", "-b", "main"]);
    let base = 20_000_000u64;
    for i in 0..16 {
        let rounds = if i >= slow { base * 2 } else { base };
        fs::write(dir.join("prog.c"), program(rounds)).unwrap();
        fs::write(dir.join("log.txt"), format!("commit {i}\n")).unwrap();
        fs::write(dir.join("plan.toml"), PLAN).unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", &format!("commit {i}")]);
    }
    dir.join("plan.toml")
}

#[test]
fn two_revisions_on_one_runner_and_bisect_finds_the_slow_commit() {
    let wh = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    let plan = repo(src.path(), 10);
    // HEAD~6 is commit 9 (fast), HEAD commit 15 (slow): the PR-style A/B of two revisions.
    ok(wh.path(), &["run", plan.to_str().unwrap(), "-q"]);
    let o = perfhouse(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "cprog#1@base",
            "--candidate",
            "cprog#1@head",
            "--format",
            "json",
            "--fail-on-regression",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let c: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "work_ms")
        .unwrap();
    assert_eq!(row["verdict"], "regressed", "{row:#}");
    let ratio = row["ratio"].as_f64().unwrap();
    assert!(
        (1.5..2.6).contains(&ratio),
        "double the work: ratio {ratio}"
    );
    // The PR report records each regression as an alert, once.
    let md = wh.path().join("report.md");
    for _ in 0..2 {
        let o = perfhouse(
            wh.path(),
            &[
                "report",
                "--baseline",
                "cprog#1@base",
                "--candidate",
                "cprog#1@head",
                "--record-alerts",
                "-o",
                md.to_str().unwrap(),
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let alerts: serde_json::Value =
        serde_json::from_str(&ok(wh.path(), &["alerts", "--format", "json"])).unwrap();
    let from_report: Vec<&serde_json::Value> = alerts
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| {
            a["note"]
                .as_str()
                .unwrap()
                .starts_with("report: cprog #1 @base")
        })
        .collect();
    // Once per regressed row, however often the report runs: the plan's work_ms, and the
    // command's own wall and CPU time where they were called too (the work doubled).
    let metrics: Vec<&str> = from_report
        .iter()
        .map(|a| a["metric"].as_str().unwrap())
        .collect();
    assert!(metrics.contains(&"work_ms"), "{alerts:#}");
    assert!(
        metrics
            .iter()
            .all(|m| ["work_ms", "wall_ms", "cpu_ms"].contains(m)),
        "{alerts:#}"
    );
    assert!(
        from_report.iter().all(|a| a["state"] == "new"),
        "{alerts:#}"
    );
    assert_eq!(
        common::scalar(wh.path(), "select count(*) from alerts"),
        from_report.len()
    );
    // The run records the commit each arm ran.
    let labels = common::scalar(wh.path(), "select labels from runs");
    let labels = labels.as_str().unwrap();
    assert!(labels.contains(&rev(src.path(), "HEAD~6")), "{labels}");
    assert!(labels.contains(&rev(src.path(), "HEAD")), "{labels}");
    // The user's checkout is untouched and no worktree is left registered.
    let wt = Command::new("git")
        .current_dir(src.path())
        .args(["worktree", "list"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&wt.stdout).lines().count(), 1);

    // Bisect from the first commit to the last: the slow one is commit 10.
    let o = perfhouse(
        wh.path(),
        &[
            "bisect",
            plan.to_str().unwrap(),
            "--good",
            "HEAD~15",
            "--bad",
            "HEAD",
            "--metric",
            "work_ms",
            "--format",
            "json",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let b: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(b["ends"], "regressed", "{b:#}");
    assert_eq!(b["candidates"], 15);
    assert_eq!(b["first_bad"], rev(src.path(), "HEAD~5"), "{b:#}");
    assert_eq!(b["first_bad_subject"], "commit 10");
    let steps = b["steps"].as_array().unwrap();
    assert!(
        (3..=5).contains(&steps.len()),
        "binary search over 15: {steps:?}"
    );
    // Every step is a stored run with both ends beside the tested commit.
    let runs = common::scalar(
        wh.path(),
        "select count(*) from runs where labels like '%bisect.step%'",
    );
    assert_eq!(runs.as_i64().unwrap(), steps.len() as i64 + 1);
    for s in steps {
        let bad = s["judged"] == "bad";
        let subject = s["subject"].as_str().unwrap();
        let n: usize = subject.trim_start_matches("commit ").parse().unwrap();
        assert_eq!(bad, n >= 10, "{s:#}");
    }
}

#[test]
fn until_decided_turns_an_inconclusive_three_vs_three_into_a_decision() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Real processes printing prepared values: the candidate is 8 % slower, with noise that
    // leaves 3 vs 3 inconclusive (its CI straddles the band).
    let plan = write_plan(
        dir.path(),
        r#"
suite = "ud"
[run]
repeats = 3
command = "set -- $VALUES; shift $PERFHOUSE_REPEAT; echo \"ms: $1\""

[[arm]]
name = "a"
env = { VALUES = "100 106 94 103 97 100 101 99 104 96 102 98" }

[[arm]]
name = "b"
env = { VALUES = "101 113 110 107 112 105 109 106 111 108 104 110" }

[[metric]]
name = "ms"
regex = 'ms: ([0-9.]+)'
unit = "ms"
better = "lower"
"#,
    );
    // Without confirmation: inconclusive at 3 vs 3.
    ok(wh.path(), &["run", plan.to_str().unwrap(), "-q"]);
    // The plan's metric's row (the commands' own wall time, CPU and peak RSS are rows too).
    let verdict = |run: &str| {
        compare(wh.path(), &format!("ud#{run}@a"), &format!("ud#{run}@b"))["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["metric"] == "ms")
            .unwrap()
            .clone()
    };
    assert_eq!(
        verdict("1")["verdict"],
        "inconclusive",
        "{:#}",
        verdict("1")
    );
    ok(
        wh.path(),
        &[
            "run",
            plan.to_str().unwrap(),
            "-q",
            "--until-decided",
            "ms",
            "--max-repeats",
            "12",
        ],
    );
    let r = verdict("2");
    assert_eq!(r["verdict"], "regressed", "{r:#}");
    let n = r["n_baseline"].as_u64().unwrap();
    assert!(n == 6 || n == 12, "doubled from 3: {n}");
    // The notes record each look and the per-look α (3 planned looks: 0.05/3).
    let notes = common::query(
        wh.path(),
        "select text from annotations a join runs r on a.run_id = r.run_id where r.run_no = 2 and text like '--until-decided%' order by a.at",
    );
    let text = format!("{notes:?}");
    assert!(
        text.contains("look 1 of 3 at 3 repeats (α 0.0167 per look)"),
        "{text}"
    );
    assert!(text.contains("inconclusive"), "{text}");
}

#[test]
fn an_aa_calibration_calls_nothing_and_sets_the_arms_threshold() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(
        dir.path(),
        r#"
suite = "aa"
[run]
repeats = 3
command = "t0=$(date +%s%N); seq 1 200000 | gzip -1 > /dev/null; t1=$(date +%s%N); echo \"us: $(( (t1 - t0) / 1000 ))\""

[[arm]]
name = "gz"

[[metric]]
name = "us"
regex = 'us: ([0-9]+)'
unit = "us"
better = "lower"
"#,
    );
    ok(
        wh.path(),
        &["calibrate", plan.to_str().unwrap(), "--repeats", "10", "-q"],
    );
    let source = common::scalar(wh.path(), "select source from runs");
    assert_eq!(source, "calibrate");
    let c = compare(wh.path(), "aa#1@gz", "aa#1@gz~aa");
    for r in c["rows"].as_array().unwrap() {
        assert!(
            r["verdict"] != "regressed" && r["verdict"] != "improved",
            "A/A called changed: {r:#}"
        );
    }
    let row = &c["rows"][0];
    assert!(
        row["threshold_source"]
            .as_str()
            .unwrap()
            .starts_with("A/A calibration run #1 (10 trials per arm)"),
        "{row:#}"
    );
    // `perfhouse noise` lists the calibrated series; no history (calibrations are no part of
    // it).
    let n: serde_json::Value =
        serde_json::from_str(&ok(wh.path(), &["noise", "--format", "json"])).unwrap();
    let e = n
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["metric"] == "us")
        .unwrap();
    assert_eq!(e["calibration_trials"], 20);
    assert!(e["sigma"].is_null());
    assert!(e["aa_3v3"].as_f64().unwrap() > 0.0);
    let h = ok(wh.path(), &["history", "--format", "json"]);
    assert!(!h.contains("\"us\""), "{h}");
    // Each measure's noise side by side, kept as a note of the calibration run: the command's
    // wall and CPU time and peak RSS (its resource usage) beside the plan's metric.
    let note = common::scalar(
        wh.path(),
        "select text from annotations where text like 'A/A noise per measure%'",
    );
    let note = note.as_str().unwrap();
    assert!(
        note.starts_with("A/A noise per measure at 10 vs 10 trials"),
        "{note}"
    );
    for m in ["wall_ms ", "cpu_ms ", "peak_rss_bytes ", "; us "] {
        assert!(note.contains(m), "{m} in {note}");
    }
}
