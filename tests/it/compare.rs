//! `perfhouse compare` on real captures: an A/A run stays undecided, a real slowdown is
//! called a regression (exit 3 with --fail-on-regression), and the figures perfhouse derives
//! from aiperf's per-request records equal aiperf's own summary.

use crate::common;

use std::fs;
use std::path::Path;

use common::*;

fn dataset() -> std::path::PathBuf {
    repo().join("datasets/dynamo-frontend/data")
}

fn demo(wh: &Path) {
    let out = tempfile::tempdir().unwrap();
    let datasets = repo().join("datasets");
    ok(
        wh,
        &[
            "demo",
            "--no-plans",
            "--datasets",
            datasets.to_str().unwrap(),
            "--out",
            out.path().to_str().unwrap(),
        ],
    );
}

#[test]
fn a_a_run_is_never_called_a_regression() {
    let wh = tempfile::tempdir().unwrap();
    demo(wh.path());
    let args = [
        "compare",
        "--baseline",
        "dynamo-frontend#1@default",
        "--candidate",
        "dynamo-frontend#1@fastokens",
        "--format",
        "json",
        "--fail-on-regression",
    ];
    let o = perfhouse(wh.path(), &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let c: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = c["rows"].as_array().unwrap();
    // 2 concurrencies × 9 figures (no CPU samples in ingested aiperf runs: no cores_busy).
    assert_eq!(rows.len(), 16, "{rows:#?}");
    for r in rows {
        assert_eq!(
            (r["n_baseline"].as_u64(), r["n_candidate"].as_u64()),
            (Some(3), Some(3))
        );
        let v = r["verdict"].as_str().unwrap();
        assert!(["inconclusive", "unchanged", "info"].contains(&v), "{r:#?}");
    }
    // The bundled runner run is an A/A in effect too (fastokens falls back to HuggingFace for
    // this model), 2 vs 2 kept trials: its p50 latency at c=8 (−17.8 %, CI −29.7…−3.8 %) was
    // once called improved on the bootstrap CI alone; Welch's t on logs gives p = 0.22.
    let runner: serde_json::Value = serde_json::from_str(&ok(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "dynamo-frontend#2@default",
            "--candidate",
            "dynamo-frontend#2@fastokens",
            "--format",
            "json",
        ],
    ))
    .unwrap();
    let rows2 = runner["rows"].as_array().unwrap();
    assert!(rows2.len() >= 20, "{rows2:#?}");
    for r in rows2 {
        let v = r["verdict"].as_str().unwrap();
        assert!(["inconclusive", "unchanged", "info"].contains(&v), "{r:#?}");
    }
    let p50 = rows2
        .iter()
        .find(|r| {
            r["metric"] == "latency_p50_ms" && r["params"].as_str().unwrap().contains("\"8\"")
        })
        .unwrap();
    assert_eq!(p50["test"], "welch-log");
    assert!(
        (p50["p_value"].as_f64().unwrap() - 0.2197).abs() < 1e-3,
        "{p50:#}"
    );
    // The medians are those of the arm_medians view.
    let tp = rows
        .iter()
        .find(|r| {
            r["metric"] == "throughput_rps" && r["params"].as_str().unwrap().contains("\"8\"")
        })
        .unwrap();
    let view = scalar(
        wh.path(),
        "select throughput_rps from arm_medians where arm = 'default' and params like '%\"concurrency\":\"8\"%' and run_id in (select run_id from runs where run_no = 1 and suite = 'dynamo-frontend')",
    );
    assert_eq!(tp["median_baseline"], view);
    // The capture ran client and server on two cores: Little's law says so.
    let flags = c["flags"].as_array().unwrap();
    assert!(
        flags
            .iter()
            .any(|f| f.as_str().unwrap().contains("client-bound")),
        "{flags:?}"
    );
}

/// Baseline: the c=8 captures of the default arm; candidate: the c=32 captures of the same
/// arm, labelled as one parameter set. Real data, a real 80 % latency increase.
#[test]
fn a_real_slowdown_is_a_regression_and_fails_the_build() {
    let wh = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    for (arm, c) in [("base", 8), ("slow", 32)] {
        for r in 1..=3 {
            let src = dataset().join(format!(
                "arm=default/concurrency={c}/repeat={r}/aiperf/profile_export.jsonl.gz"
            ));
            let dir = root.path().join(format!("arm={arm}/repeat={r}"));
            fs::create_dir_all(&dir).unwrap();
            fs::copy(src, dir.join("profile_export.jsonl.gz")).unwrap();
        }
    }
    ok(
        wh.path(),
        &["ingest", "--suite", "ab", root.path().to_str().unwrap()],
    );
    let o = perfhouse(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "ab/base",
            "--candidate",
            "ab/slow",
            "--format",
            "json",
            "--fail-on-regression",
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("regression(s) found"));
    let c: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let row = |m: &str| {
        c["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["metric"] == m)
            .unwrap()
            .clone()
    };
    let p50 = row("latency_p50_ms");
    assert_eq!(p50["verdict"], "regressed", "{p50:#?}");
    assert!(
        p50["reason"]
            .as_str()
            .unwrap()
            .contains("no rank test can reach p < 0.05")
    );
    // 3 vs 3: the rank test's floor is 0.1, so Welch's t on logs decides (checked against scipy
    // in stats::welch).
    assert_eq!(p50["test"], "welch-log");
    assert!(p50["p_value"].as_f64().unwrap() < 0.05, "{p50:#?}");
    assert!(
        p50["reason"]
            .as_str()
            .unwrap()
            .contains("Welch t on logs p =")
    );
    assert_eq!(row("throughput_rps")["verdict"], "improved");
    assert_eq!(p50["arm"], "base → slow");

    // The Markdown report puts regressions first.
    let md = ok(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "ab/base",
            "--candidate",
            "ab/slow",
            "--format",
            "md",
        ],
    );
    let first_row = md
        .lines()
        .find(|l| {
            l.starts_with("| 🔴")
                || l.starts_with("| 🟢")
                || l.starts_with("| 🟡")
                || l.starts_with("| ⚪")
        })
        .unwrap();
    assert!(first_row.starts_with("| 🔴 regressed"), "{md}");
    // A looser threshold for one metric changes only that metric's verdict.
    let o = perfhouse(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "ab/base",
            "--candidate",
            "ab/slow",
            "--format",
            "json",
            "--metric-threshold",
            "latency_p50_ms=200",
        ],
    );
    let c: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let p50 = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "latency_p50_ms")
        .unwrap();
    assert_eq!(p50["verdict"], "unchanged", "{p50:#?}");
}

#[test]
fn bad_selections_say_what_exists() {
    let wh = tempfile::tempdir().unwrap();
    demo(wh.path());
    let o = perfhouse(
        wh.path(),
        &["compare", "--baseline", "nope", "--candidate", "latest"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("selection \"nope\": matches no run"),
        "{}",
        stderr(&o)
    );
    let o = perfhouse(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "latest@nosuch",
            "--candidate",
            "latest",
        ],
    );
    assert!(
        stderr(&o).contains("has no arm \"nosuch\""),
        "{}",
        stderr(&o)
    );
    let o = perfhouse(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "dynamo-frontend#1@default",
            "--candidate",
            "dynamo-frontend/fastokens",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// aiperf 0.13.0 wrote its own summary (profile_export_aiperf.json) of every bundled trial.
/// Percentiles must agree to the last digits; throughput differs by the window definition
/// (README: "perfhouse vs aiperf").
#[test]
fn figures_match_aiperfs_own_summary() {
    let wh = tempfile::tempdir().unwrap();
    demo(wh.path());
    let mut checked = 0;
    for entry in walkdir::WalkDir::new(dataset()) {
        let entry = entry.unwrap();
        if entry.file_name() != "profile_export_aiperf.json.gz" {
            continue;
        }
        let gz = fs::File::open(entry.path()).unwrap();
        let summary: serde_json::Value =
            serde_json::from_reader(flate2::read::GzDecoder::new(gz)).unwrap();
        let path = entry.path().to_string_lossy().into_owned();
        let key = |k: &str| {
            path.split('/')
                .find_map(|s| s.strip_prefix(&format!("{k}=")))
                .unwrap()
                .to_string()
        };
        let (arm, c, r) = (key("arm"), key("concurrency"), key("repeat"));
        let ours = query(
            wh.path(),
            &format!(
                "select latency_p50_ms, latency_p90_ms, latency_p99_ms, latency_mean_ms, ttft_p50_ms, ttft_p99_ms, \
                 throughput_rps, completed from trial_figures \
                 where arm = '{arm}' and params like '%\"concurrency\":\"{c}\"%' and repeat = {r} \
                 and run_id in (select run_id from runs where source like 'ingest%')"
            ),
        );
        assert_eq!(ours.len(), 1);
        let o = &ours[0];
        let theirs = |m: &str, s: &str| summary[m][s].as_f64().unwrap();
        for (col, metric, stat) in [
            ("latency_p50_ms", "request_latency", "p50"),
            ("latency_p90_ms", "request_latency", "p90"),
            ("latency_p99_ms", "request_latency", "p99"),
            ("latency_mean_ms", "request_latency", "avg"),
            ("ttft_p50_ms", "time_to_first_token", "p50"),
            ("ttft_p99_ms", "time_to_first_token", "p99"),
        ] {
            let (a, b) = (o[col].as_f64().unwrap(), theirs(metric, stat));
            assert!(
                (a - b).abs() <= 1e-9 * b.abs(),
                "{path}: {col} {a} vs aiperf {metric}.{stat} {b}"
            );
        }
        assert_eq!(
            o["completed"].as_f64().unwrap(),
            theirs("request_count", "avg")
        );
        let (a, b) = (
            o["throughput_rps"].as_f64().unwrap(),
            theirs("request_throughput", "avg"),
        );
        assert!(
            a >= b && (a - b) / b < 0.02,
            "{path}: throughput {a} vs aiperf {b}"
        );
        checked += 1;
    }
    assert_eq!(checked, 16);
}

/// Two trials per arm: the comparison says once, up front, that the rank test cannot decide
/// (its smallest two-sided p at 2 vs 2 is 0.33) and what does; the JSON names its
/// multiple-comparison method; no p-value prints as 0.000; an inconclusive row whose CI
/// excludes 0 says why in the row; a median of 0 gets no ratio.
#[test]
fn small_samples_are_said_once_and_p_is_never_zero() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    let mut entries = Vec::new();
    for (arm, slow, up) in [("base", 1.0, 1.0), ("cand", 5.0, 1.02)] {
        for r in 0..2 {
            let wobble = 1.0 + r as f64 * 0.002;
            // `big`: ×5 (a real change); `edge`: about +2 %, its CI (+1 %…+3 %) clear of 0 but
            // reaching inside the ±2 % floor; `zero`: an ITL of 0 on the candidate (tokens in
            // bursts).
            for (name, v) in [
                ("big", 10.0 * slow * wobble),
                ("edge", 50.0 * up * (1.0 + r as f64 * 0.01)),
                ("zero", if arm == "cand" { 0.0 } else { 0.4594 * wobble }),
            ] {
                entries.push(format!(
                    "{{\"name\": \"{name}\", \"value\": {v}, \"unit\": \"ms\", \"better\": \"lower\", \"arm\": \"{arm}\", \"repeat\": {r}}}"
                ));
            }
        }
    }
    fs::write(&path, format!("{{\"metrics\": [{}]}}", entries.join(","))).unwrap();
    ok(
        wh.path(),
        &["ingest", "--suite", "small", path.to_str().unwrap()],
    );
    let c = compare_json(wh.path(), "small#1@base", "small#1@cand");
    assert_eq!(c["overall"]["multiple_comparisons"], "holm");
    let note = c["overall"]["small_samples"].as_str().unwrap();
    assert!(
        note.starts_with("2 trials per arm: too few for the Mann-Whitney rank test (its smallest two-sided p is 0.33)"),
        "{note}"
    );
    let row = |m: &str| {
        c["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["metric"] == m)
            .unwrap()
            .clone()
    };
    let edge = row("edge");
    assert_eq!(edge["verdict"], "inconclusive", "{edge:#}");
    assert!(
        edge["reason"]
            .as_str()
            .unwrap()
            .contains("excludes 0 but reaches inside the ±2% noise band"),
        "{edge:#}"
    );
    let zero = row("zero");
    assert!(zero["ratio"].is_null(), "no ratio against 0: {zero:#}");
    assert_eq!(zero["verdict"], "inconclusive");
    // The table: the note once, before the rows; no p of 0.000 anywhere.
    let table = ok(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "small#1@base",
            "--candidate",
            "small#1@cand",
        ],
    );
    assert_eq!(
        table
            .matches("too few for the Mann-Whitney rank test")
            .count(),
        1,
        "{table}"
    );
    assert!(table.find("note: 2 trials per arm").unwrap() < table.find("metric").unwrap());
    assert!(!table.contains("0.000 "), "{table}");
    let md = ok(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "small#1@base",
            "--candidate",
            "small#1@cand",
            "--format",
            "md",
        ],
    );
    assert!(md.contains("judged: "), "{md}");
    assert!(
        md.contains("regressed,") && md.contains("unchanged,") && md.contains("inconclusive"),
        "{md}"
    );
    assert!(!md.contains("| 0.000 |"), "{md}");
}
