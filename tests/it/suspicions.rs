//! What nothing recorded, only suspected (issue 26 item 6): a jump of orders of magnitude where
//! no benchmark version is kept is a suspected break, and triage confirms or rejects it.

use crate::common;

use std::fs;

use common::*;

/// github-action-benchmark's own history with `bench_fib_10` of the Rust group made to read
/// 1,000× from entry #200 on, ingested; returns the warehouse, the commit of entry #200 and
/// the jump's ratio (entry #200 over #199).
fn jumped_history(dir: &std::path::Path) -> (std::path::PathBuf, String, f64) {
    let wh = dir.join("wh");
    let text = fs::read_to_string(fixture(
        "gab-data-js/github-action-benchmark_gh-pages_data.js",
    ))
    .unwrap();
    let (prefix, json) = text.split_once('=').unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(json).unwrap();
    let rust = doc["entries"]["Rust Benchmark"].as_array_mut().unwrap();
    let commit = rust[199]["commit"]["id"].as_str().unwrap().to_string();
    let before = rust[198]["benches"][0]["value"].as_f64().unwrap();
    for entry in rust.iter_mut().skip(199) {
        let b = &mut entry["benches"][0];
        assert_eq!(b["name"], "bench_fib_10");
        b["value"] = serde_json::json!(b["value"].as_f64().unwrap() * 1000.0);
    }
    let after = rust[199]["benches"][0]["value"].as_f64().unwrap();
    let f = dir.join("data.js");
    fs::write(&f, format!("{prefix}= {doc}")).unwrap();
    ok(&wh, &["ingest", "--suite", "gab", f.to_str().unwrap()]);
    (wh, commit, after / before)
}

fn fib10(wh: &std::path::Path) -> serde_json::Value {
    let out = ok(
        wh,
        &[
            "history",
            "--suite",
            "gab.Rust Benchmark",
            "--metric",
            "bench_fib_10",
            "--format",
            "json",
        ],
    );
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    s[0].clone()
}

/// The suspected break is an alert of its own (kind `suspected break`, its magnitude the
/// jump: entry #200 over #199, minus 1). Rejected in triage (`invalid`), the runs on both
/// sides are one segment again and the jump is an ordinary change point at that commit (an
/// alert with another id); confirmed (`accepted`), the split is back and no change is called
/// across it.
#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn triage_confirms_or_rejects_a_suspected_break() {
    let dir = tempfile::tempdir().unwrap();
    let (wh, commit, ratio) = jumped_history(dir.path());
    let s = fib10(&wh);
    assert_eq!(s["suspected_breaks"], serde_json::json!([199]));
    let alerts: Vec<serde_json::Value> = serde_json::from_str(&ok(
        &wh,
        &[
            "alerts",
            "--suite",
            "gab.Rust Benchmark",
            "--format",
            "json",
        ],
    ))
    .unwrap();
    let jump: Vec<&serde_json::Value> = alerts
        .iter()
        .filter(|a| a["kind"] == "suspected_break")
        .collect();
    assert_eq!(jump.len(), 1, "{alerts:?}");
    let jump = jump[0];
    assert_eq!(jump["git_commit"], commit.as_str());
    assert_eq!(jump["metric"], "bench_fib_10");
    let m = jump["magnitude"].as_f64().unwrap();
    assert!((m - (ratio - 1.0)).abs() < 1e-9 * ratio, "{m} vs {ratio}");
    assert_eq!(jump["regression"], true, "ns/iter, 1000× slower");
    let id = jump["alert_id"].as_str().unwrap().to_string();
    // Not part of a commit entry: no change of code or machine.
    let by_commit = ok(&wh, &["alerts", "--by", "commit", "--format", "json"]);
    assert!(!by_commit.contains(&id), "{by_commit}");
    let text = ok(
        &wh,
        &["history", "--suite", "gab.Rust Benchmark", "--changes-only"],
    );
    assert!(
        text.contains(&format!(
            "alert {id}: triage `accepted` confirms, `invalid` rejects"
        )),
        "{text}"
    );

    // Rejected: one segment, the jump a change point.
    ok(
        &wh,
        &["triage", &id, "invalid", "--note", "the code got slower"],
    );
    let s = fib10(&wh);
    assert_eq!(s["suspected_breaks"], serde_json::json!([]));
    assert_eq!(s["rejected_breaks"], serde_json::json!([199]));
    assert!(
        !s["breaks"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!(199)),
        "{}",
        s["breaks"]
    );
    let change: Vec<&serde_json::Value> = s["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["git_commit"] == commit.as_str())
        .collect();
    assert_eq!(change.len(), 1, "{}", s["changes"]);
    assert!(change[0]["magnitude"].as_f64().unwrap() > 100.0);
    let alerts: Vec<serde_json::Value> = serde_json::from_str(&ok(
        &wh,
        &[
            "alerts",
            "--suite",
            "gab.Rust Benchmark",
            "--all",
            "--format",
            "json",
        ],
    ))
    .unwrap();
    let at: Vec<&serde_json::Value> = alerts
        .iter()
        .filter(|a| a["git_commit"] == commit.as_str() && a["metric"] == "bench_fib_10")
        .collect();
    assert_eq!(at.len(), 2, "the rejected break and the change: {at:?}");
    let (brk, chg): (Vec<&&serde_json::Value>, Vec<&&serde_json::Value>) =
        at.iter().partition(|a| a["kind"] == "suspected_break");
    assert_eq!(brk[0]["state"], "invalid");
    assert_eq!(chg[0]["state"], "new");
    assert_ne!(chg[0]["alert_id"], brk[0]["alert_id"]);
    let text = ok(
        &wh,
        &["history", "--suite", "gab.Rust Benchmark", "--changes-only"],
    );
    assert!(
        text.contains(&format!("rejected break at #200 {}", &commit[..10])),
        "{text}"
    );

    // Confirmed: the split is back, no change across it.
    ok(&wh, &["triage", &id, "accepted"]);
    let s = fib10(&wh);
    assert_eq!(s["suspected_breaks"], serde_json::json!([199]));
    assert_eq!(s["rejected_breaks"], serde_json::json!([]));
    assert!(
        s["breaks"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!(199))
    );
    assert!(
        s["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["git_commit"] != commit.as_str()),
        "{}",
        s["changes"]
    );
}

/// github-action-benchmark's own history records no machine: at `da5ac2ec68` (entry #25 of
/// its groups) 19 of the 25 series run there got faster together, across 13 benchmark groups
/// (every tool's fib benchmarks: a new CI runner, not that commit's code). `alerts --by commit`
/// marks it a suspected environment change, and it alone; triage of the entry with `accepted`
/// confirms it.
#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn a_commit_moving_most_unrelated_series_one_way_is_a_suspected_environment_change() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "gab",
            &fixture("gab-data-js/github-action-benchmark_gh-pages_data.js"),
        ],
    );
    let entries = |all: bool| -> Vec<serde_json::Value> {
        let mut a = vec!["alerts", "--by", "commit", "--format", "json"];
        if all {
            a.push("--all");
        }
        serde_json::from_str(&ok(&wh, &a)).unwrap()
    };
    let before = entries(false);
    let env: Vec<&serde_json::Value> = before
        .iter()
        .filter(|e| e["suspected_environment"] == true)
        .collect();
    assert_eq!(env.len(), 1, "{before:#?}");
    let e = env[0];
    assert!(e["git_commit"].as_str().unwrap().starts_with("da5ac2ec68"));
    assert_eq!(e["environment"], "suspected");
    // 18 alerts (17 improved) and 2 minor changes (beyond 2σ, under the series' 2.75σ rule).
    assert_eq!(
        (e["series"].as_u64(), e["improvements"].as_u64()),
        (Some(18), Some(17))
    );
    assert!(
        e["why"].as_str().unwrap().contains(
            "suspected environment change: 19 of the 25 series run here improved together, in 13 benchmark groups"
        ),
        "{}",
        e["why"]
    );
    let csv = ok(&wh, &["alerts", "--by", "commit", "--format", "csv"]);
    assert!(
        csv.lines().next().unwrap().contains(",environment,"),
        "{csv}"
    );
    assert!(
        csv.lines()
            .any(|l| l.starts_with("da5ac2ec68") && l.contains(",open,suspected,")),
        "{csv}"
    );
    ok(
        &wh,
        &[
            "triage",
            "commit:da5ac2ec68",
            "accepted",
            "--note",
            "new runner",
        ],
    );
    let after = entries(true);
    let e = after
        .iter()
        .find(|e| e["git_commit"].as_str().unwrap().starts_with("da5ac2ec68"))
        .unwrap();
    assert_eq!(e["environment"], "confirmed", "{e:#}");
    assert!(
        e["why"]
            .as_str()
            .unwrap()
            .contains("environment change, confirmed in triage"),
        "{}",
        e["why"]
    );
}
