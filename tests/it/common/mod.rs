//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod s3;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A real tool output of the team's sample collection (tests/fixtures/samples/README.md): most
/// were written by other projects and are read from `../shared/fixtures/` (`fixture_path`).
pub fn sample(name: &str) -> PathBuf {
    fixture_path(&format!("tests/fixtures/samples/{name}"))
}

/// An aiperf per-request export this project made (tests/fixtures/aiperf-made-here/README.md:
/// the first 20 records of a bundled Dynamo capture, 16 warm-up and 4 measured, no errors), in
/// the repository: for tests that need "an aiperf file", so they run on any clone. Its facts,
/// counted with jq over the file: 20 records, 4 of them `profiling`, none with an error.
pub fn our_aiperf() -> PathBuf {
    let p = repo().join("tests/fixtures/aiperf-made-here/profile_export.jsonl");
    assert!(p.is_file(), "{}: missing from the repository", p.display());
    p
}

/// A repository-relative fixture path (`tests/fixtures/…`, `datasets/kedro-asv/…`), from the
/// third-party fixtures folder beside the clone when it holds it, else from the repository
/// (`perfhouse::fixtures::resolve_fixture`, the one resolver). A test reading a third-party file
/// carries `#[cfg_attr(not(shared_fixtures), ignore = "needs ../shared/fixtures: a clone without it")]`;
/// one that does not, on a clone without the folder, fails here saying so.
pub fn fixture_path(rel: &str) -> PathBuf {
    let p = perfhouse::fixtures::resolve_fixture(&repo(), rel);
    assert!(
        p.exists(),
        "{rel}: not in the repository nor in the third-party fixtures folder ({} or \
         $PERFHOUSE_FIXTURES): a test that reads it is marked \
         #[cfg_attr(not(shared_fixtures), ignore = …)]",
        perfhouse::fixtures::BESIDE_THE_CLONE
    );
    p
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The data a series page's script reads (`site::trend::data`): `points` ([run_no, value]),
/// `changes`, `breaks`, `levels`, … as JSON.
pub fn trend_data(html: &str) -> serde_json::Value {
    let at = html
        .find("id=\"trend-points\">")
        .expect("a series page's data")
        + "id=\"trend-points\">".len();
    let end = at + html[at..].find("</script>").unwrap();
    serde_json::from_str(&html[at..end]).expect("the data is JSON")
}

/// Runs the real `perfhouse` binary with a warehouse of its own.
pub fn perfhouse(warehouse: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perfhouse"))
        .arg("--warehouse")
        .arg(warehouse)
        .args(args)
        .env_remove("PERFHOUSE_WAREHOUSE")
        .output()
        .expect("perfhouse runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs and asserts success, returning stdout.
pub fn ok(warehouse: &Path, args: &[&str]) -> String {
    let o = perfhouse(warehouse, args);
    assert!(
        o.status.success(),
        "perfhouse {args:?} failed:\n{}\n{}",
        stdout(&o),
        stderr(&o)
    );
    stdout(&o)
}

/// `perfhouse query SQL --format json` parsed.
pub fn query(warehouse: &Path, sql: &str) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let out = ok(warehouse, &["query", sql, "--format", "json"]);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

pub fn scalar(warehouse: &Path, sql: &str) -> serde_json::Value {
    let rows = query(warehouse, sql);
    assert_eq!(rows.len(), 1, "{sql} gave {rows:?}");
    rows[0].values().next().cloned().expect("one column")
}

/// Says on stderr that a test part was skipped for want of `tool`, and fails instead when the
/// environment requires it (`PERFHOUSE_REQUIRE=chromium,perf`, set by `.ci/run`): CI must not
/// pass green because a tool it should have installed is missing.
pub fn skip(tool: &str, why: &str) {
    let required = std::env::var("PERFHOUSE_REQUIRE").unwrap_or_default();
    if required.split(',').any(|t| t.trim() == tool) {
        panic!("{tool} is required here (PERFHOUSE_REQUIRE={required}) but {why}");
    }
    eprintln!("SKIPPED ({tool}): {why}");
}

/// `datasets/` without the named datasets (a directory of symlinks to the others): for tests
/// of the demo site that check every run's page or that every link is relative, which the
/// Kedro history (343 runs, commits linked to GitHub) is not meant to satisfy.
pub fn datasets_without(skip: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    for entry in std::fs::read_dir(repo().join("datasets")).expect("datasets/") {
        let entry = entry.expect("an entry");
        let name = entry.file_name();
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        std::os::unix::fs::symlink(entry.path(), dir.path().join(&name)).expect("a symlink");
    }
    dir
}

/// A file or directory of `tests/fixtures/` (`fixture_path`), as a string argument.
pub fn fixture(name: &str) -> String {
    fixture_path(&format!("tests/fixtures/{name}"))
        .to_string_lossy()
        .into_owned()
}

/// One run of two arms as metrics-json: `n` metrics × 3 repeats; the candidate's metric 0 is
/// 40 % slower, metric 1 20 % slower, the rest identical up to ±0.5 % noise.
pub fn two_arms(dir: &Path, n: usize) -> std::path::PathBuf {
    let path = dir.join("m.json");
    let mut f = std::fs::File::create(&path).unwrap();
    let mut entries = Vec::new();
    for arm in ["base", "cand"] {
        for r in 0..3 {
            for m in 0..n {
                let slow = match (arm, m) {
                    ("cand", 0) => 1.4,
                    ("cand", 1) => 1.2,
                    _ => 1.0,
                };
                let noise = 1.0 + (r as f64 - 1.0) * 0.005;
                entries.push(format!(
                    "{{\"name\": \"op_{m:04}_latency_with_a_long_descriptive_name\", \"value\": {}, \"unit\": \"ms\", \"better\": \"lower\", \"arm\": \"{arm}\", \"repeat\": {r}}}",
                    100.0 * slow * noise
                ));
            }
        }
    }
    std::io::Write::write_all(
        &mut f,
        format!("{{\"metrics\": [{}]}}", entries.join(",\n")).as_bytes(),
    )
    .unwrap();
    path
}

/// `perfhouse compare --format json` of two selections that must succeed.
#[allow(dead_code)]
pub fn compare_json(wh: &Path, baseline: &str, candidate: &str) -> serde_json::Value {
    let out = ok(
        wh,
        &[
            "compare",
            "--baseline",
            baseline,
            "--candidate",
            candidate,
            "--format",
            "json",
        ],
    );
    serde_json::from_str(&out).unwrap()
}

/// Runs git in `dir` (with a fixed author, so commits work on a machine without a git
/// identity); panics with git's stderr when it fails; returns its stdout.
#[allow(dead_code)]
pub fn git(dir: &Path, args: &[&str]) -> String {
    let o = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Every file under `dir`, recursively (a missing `dir` has none).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A copy of the bundled asv results as a project directory (`DIR/proj/results`), to give
/// it an `asv.conf.json` or stray files.
pub fn asv_project(dir: &Path) -> PathBuf {
    let proj = dir.join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    let copy = Command::new("cp")
        .args(["-r", &fixture("asv/results")])
        .arg(proj.join("results"))
        .status()
        .unwrap();
    assert!(copy.success());
    proj
}
