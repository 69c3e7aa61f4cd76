//! Golden outputs: what a reviewer reads. The PR report, `compare --format table`, `history`
//! and `check` are insta snapshots (`tests/snapshots/`, run ids and times filtered, as
//! datafusion-cli does); one run page and one SVG chart are golden files (`tests/golden/`).
//! After an intended change, bless them all with `PERFHOUSE_BLESS=1 tests/run.sh golden` and
//! review the diff.

use crate::common;

use std::fs;
use std::path::Path;

use common::*;

/// Run ids, times and temporary directories vary from run to run; nothing else may.
fn filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "[run-id]",
        ),
        (
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z| UTC|\+00:00)?",
            "[time]",
        ),
        (r"/tmp/\.tmp[A-Za-z0-9]+", "[tmp]"),
    ]
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    for (re, with) in filters() {
        settings.add_filter(re, with);
    }
    settings.bind(|| insta::assert_snapshot!(name, text));
}

/// A golden file of `tests/golden/`, rewritten instead of compared under `PERFHOUSE_BLESS=1`.
fn golden(name: &str, actual: &str) {
    let mut text = actual.to_string();
    for (re, with) in filters() {
        text = regex::Regex::new(re)
            .unwrap()
            .replace_all(&text, with)
            .into_owned();
    }
    let path = repo().join("tests/golden").join(name);
    if std::env::var("PERFHOUSE_BLESS").is_ok_and(|v| v == "1") {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &text).unwrap();
        return;
    }
    let expected = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with PERFHOUSE_BLESS=1)", path.display()));
    if expected != text {
        let first = expected
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(text.lines().count()));
        panic!(
            "{} differs from the output at line {}:\n  golden: {:?}\n  output: {:?}\n(bless with PERFHOUSE_BLESS=1 if intended)",
            path.display(),
            first + 1,
            expected.lines().nth(first),
            text.lines().nth(first)
        );
    }
}

/// Two runs of two arms × 3 repeats × 3 metrics; in run 2 the candidate's p99 is 30 % worse.
fn warehouse(dir: &Path) -> std::path::PathBuf {
    let wh = dir.join("wh");
    for (run, commit) in [(1, "1111111111aaaa"), (2, "2222222222bbbb")] {
        let mut entries = Vec::new();
        for arm in ["base", "cand"] {
            for r in 0..3 {
                let jitter = 1.0 + (r as f64 - 1.0) * 0.004;
                for (name, unit, better, v) in [
                    ("latency_p99", "ms", "lower", 40.0),
                    ("throughput", "req/s", "higher", 900.0),
                    ("rss", "MiB", "lower", 310.0),
                ] {
                    let slow = if run == 2 && arm == "cand" && name == "latency_p99" {
                        1.3
                    } else {
                        1.0
                    };
                    entries.push(format!(
                        r#"{{"name":"{name}","value":{},"unit":"{unit}","better":"{better}","arm":"{arm}","params":{{"payload":64}},"repeat":{r}}}"#,
                        v * slow * jitter
                    ));
                }
            }
        }
        let f = dir.join(format!("run{run}.json"));
        fs::write(&f, format!(r#"{{"metrics":[{}]}}"#, entries.join(","))).unwrap();
        ok(
            &wh,
            &[
                "ingest",
                "--suite",
                "svc",
                "--commit",
                commit,
                f.to_str().unwrap(),
            ],
        );
    }
    wh
}

#[test]
fn reports_tables_and_check_output_match_their_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let wh = warehouse(dir.path());
    let sel = ["--baseline", "svc#2@base", "--candidate", "svc#2@cand"];
    let md = ok(&wh, &[&["report"][..], &sel[..]].concat());
    snapshot("report_markdown", &md);
    let table = ok(
        &wh,
        &[&["compare"][..], &sel[..], &["--format", "table"][..]].concat(),
    );
    snapshot("compare_table", &table);
    snapshot("history_table", &ok(&wh, &["history"]));
    let o = perfhouse(&wh, &["check"]);
    snapshot("check", &format!("{}{}", stdout(&o), stderr(&o)));
}

#[test]
fn a_run_page_and_a_trend_chart_match_their_golden_files() {
    let dir = tempfile::tempdir().unwrap();
    let wh = warehouse(dir.path());
    let site = dir.path().join("site");
    ok(&wh, &["site", "--out", site.to_str().unwrap()]);
    let run = scalar(&wh, "select run_id from runs where run_no = 2");
    let page = fs::read_to_string(site.join(format!("runs/{}/index.html", run.as_str().unwrap())))
        .unwrap();
    golden("run-page.html", &page);

    use perfhouse::site::trend;
    let values = [40.1, 39.8, 40.3, 40.0, 39.9, 52.2, 52.0, 51.7];
    let bands = [
        Some((39.9, 40.4)),
        None,
        Some((40.0, 40.6)),
        Some((39.7, 40.2)),
        Some((39.5, 40.1)),
        Some((51.9, 52.6)),
        Some((51.8, 52.3)),
        Some((51.2, 52.0)),
    ];
    let ids: Vec<String> = (0..values.len()).map(|i| format!("r{i}")).collect();
    let points: Vec<trend::Point> = values
        .iter()
        .zip(bands)
        .enumerate()
        .map(|(i, (v, b))| trend::Point {
            value: *v,
            lo: b.map(|b| b.0),
            hi: b.map(|b| b.1),
            run_no: i as u64 + 1,
            commit: "0123abcd",
            date: "2026-12-01",
            id: &ids[i],
            message: "",
        })
        .collect();
    let svg = trend::svg(&trend::Trend {
        title: "latency p99 (ms) — base",
        description: "per-run median of 8 runs; a regression at run 6",
        unit: "ms",
        points: &points,
        changes: &[(5, true, 0.30)],
        breaks: &[],
        notes: &[2],
        noise_band: Some(0.02),
        bands: &[],
        unstable: &[],
        drifts: &[],
        small: false,
        from: 0,
    });
    golden("trend-chart.svg", &svg);
}
