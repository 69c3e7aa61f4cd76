//! `perfhouse history` finds a planted level shift at the first run after it and nothing in
//! noise. The series is synthetic (seeded noise around a level), labelled so.

use crate::common;

use std::collections::BTreeMap;

use common::*;
use perfhouse::model::*;
use perfhouse::stats::Rng;
use perfhouse::warehouse::Warehouse;

fn run_with_metrics(wh: &Warehouse, i: usize, metrics: &[(&str, f64)]) {
    run_labelled(wh, i, metrics, &[]);
}

fn run_labelled(wh: &Warehouse, i: usize, metrics: &[(&str, f64)], labels: &[(&str, &str)]) {
    let run = Run {
        run_id: format!("run-{i:03}"),
        suite: "synthetic".into(),
        started_at_us: 1_700_000_000_000_000 + i as i64 * 60_000_000,
        finished_at_us: 1_700_000_000_000_000 + i as i64 * 60_000_000 + 1,
        ingested_at_us: 0,
        source: "test:synthetic".into(),
        git_commit: Some(format!("{i:040x}")),
        git_branch: None,
        git_dirty: None,
        host: None,
        env_fingerprint: None,
        env: "{}".into(),
        labels: labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        input_digest: format!("synthetic-{i}"),
        status: perfhouse::model::RunStatus::Ok,
    };
    let data = RunData {
        trials: vec![Trial {
            exit_code: Some(0),
            ..Trial::measured(
                0,
                "main",
                BTreeMap::from([("payload".to_string(), "64".to_string())]),
                0,
            )
        }],
        metrics: metrics
            .iter()
            .map(|(name, value)| Metric {
                trial_id: 0,
                name: name.to_string(),
                value: *value,
                unit: "GB/s".into(),
                better: Better::Higher,
                origin: "test".into(),
                version: None,
            })
            .collect(),
        ..Default::default()
    };
    wh.append_run(&run, &data).unwrap();
}

#[test]
fn planted_regression_is_flagged_at_its_first_run() {
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    let mut rng = Rng::new(11);
    for i in 0..30 {
        // 12.0 GB/s ± 0.1, dropping 8 % from the 21st run on.
        let level = if i < 20 { 12.0 } else { 11.04 };
        let (gbps, noise) = (level + 0.1 * rng.normal(), 5.0 + 0.1 * rng.normal());
        run_with_metrics(&wh, i, &[("gbps", gbps), ("noise", noise)]);
    }
    let out = ok(
        dir.path(),
        &["history", "--suite", "synthetic", "--format", "json"],
    );
    let series: serde_json::Value = serde_json::from_str(&out).unwrap();
    let series = series.as_array().unwrap();
    assert_eq!(series.len(), 2);
    let gbps = series.iter().find(|s| s["metric"] == "gbps").unwrap();
    assert_eq!(gbps["points"].as_array().unwrap().len(), 30);
    let changes = gbps["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert_eq!(changes[0]["run_no"], 21);
    assert_eq!(changes[0]["run_id"], "run-020");
    assert_eq!(changes[0]["regression"], true);
    let m = changes[0]["magnitude"].as_f64().unwrap();
    assert!((m + 0.08).abs() < 0.01, "{m}");
    let noise = series.iter().find(|s| s["metric"] == "noise").unwrap();
    assert!(noise["changes"].as_array().unwrap().is_empty());

    let table = ok(dir.path(), &["history", "--changes-only"]);
    assert!(table.contains("regression at #21"), "{table}");
    assert!(!table.contains("noise"), "{table}");
}

/// `n` runs of three series: `gbps` drops 8 % at run 21 (σ 0.8 %), `noisy` alternates ±4 %
/// around a level that rises 5 % at the middle run (significant to the detector over 50 + 50
/// runs, but its run-to-run deltas of ±8 % give it a σ of 8.4 %: the rise is within its
/// noise), `flat` is noise.
fn three_series(wh: &Warehouse, n: usize) {
    let mut rng = Rng::new(5);
    for i in 0..n {
        let gbps = if i < 20 { 12.0 } else { 11.04 } + 0.1 * rng.normal();
        let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
        let noisy = if i < n / 2 { 100.0 } else { 105.0 } * (1.0 + 0.04 * sign);
        let flat = 5.0 + 0.05 * rng.normal();
        run_with_metrics(wh, i, &[("gbps", gbps), ("noisy", noisy), ("flat", flat)]);
    }
}

#[test]
fn a_significant_change_within_its_series_noise_is_no_alert() {
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    three_series(&wh, 100);
    let series: serde_json::Value = serde_json::from_str(&ok(
        dir.path(),
        &["history", "--suite", "synthetic", "--format", "json"],
    ))
    .unwrap();
    let get = |m: &str| {
        series
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["metric"] == m)
            .unwrap()
            .clone()
    };
    let noisy = get("noisy");
    let values: Vec<f64> = noisy["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .collect();
    // The detector alone calls the 5 % rise (significance) …
    let raw = perfhouse::stats::changepoint::change_points(&values, &Default::default());
    assert!(
        raw.iter().any(|c| (47..=53).contains(&c.index)),
        "the permutation test finds it: {raw:?}"
    );
    // … but it is smaller than the series' change threshold (2.75σ of its run-to-run deltas):
    // deltas +8.33 % / −7.69 % → median |Δ| 8.33 % (of 30: 15 each way, the median between
    // 7.69 and 8.33 is 8.01 %) → σ = 1.4826 · 8.01 % / √2 = 8.4 %, threshold 23.1 %.
    let threshold = noisy["noise"]["threshold"].as_f64().unwrap();
    assert!((threshold - 0.231).abs() < 0.006, "threshold {threshold}");
    let sigma = noisy["noise"]["sigma"].as_f64().unwrap();
    assert!((sigma - 0.084).abs() < 0.002, "σ {sigma}");
    let band = noisy["noise"]["band"].as_f64().unwrap();
    assert!((band / sigma - 2.5758).abs() < 1e-3, "band = z·σ: {band}");
    assert!(noisy["changes"].as_array().unwrap().is_empty(), "{noisy:#}");
    let gbps = get("gbps");
    assert_eq!(gbps["changes"].as_array().unwrap().len(), 1);
    assert!(get("flat")["changes"].as_array().unwrap().is_empty());
}

#[test]
fn triage_states_are_kept_and_accepting_starts_a_new_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    three_series(&wh, 40);
    let alerts = |all: bool| -> Vec<serde_json::Value> {
        let mut args = vec!["alerts", "--format", "json"];
        if all {
            args.push("--all");
        }
        serde_json::from_str::<serde_json::Value>(&ok(dir.path(), &args))
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    };
    let open = alerts(false);
    assert_eq!(open.len(), 1, "{open:#?}");
    let a = &open[0];
    assert_eq!(
        (a["metric"].as_str(), a["state"].as_str()),
        (Some("gbps"), Some("new"))
    );
    assert_eq!(a["run_id"], "run-020");
    assert_eq!(a["regression"], true);
    let id = a["alert_id"].as_str().unwrap().to_string();

    // Bad input is refused by name; nothing is written.
    let o = perfhouse(dir.path(), &["triage", &id, "bogus"]);
    assert!(!o.status.success());
    // (clap refuses it now, from `TriageState`'s value list.)
    assert!(
        stderr(&o).contains("invalid value 'bogus' for '<STATE>'")
            && stderr(&o)
                .contains("[possible values: new, acknowledged, invalid, fixed, accepted]"),
        "{}",
        stderr(&o)
    );
    let o = perfhouse(dir.path(), &["triage", "ffffffffffff", "fixed"]);
    assert!(stderr(&o).contains("no such alert"), "{}", stderr(&o));

    ok(
        dir.path(),
        &["triage", &id[..6], "acknowledged", "--note", "looking"],
    );
    let open = alerts(false);
    assert_eq!(
        (open.len(), open[0]["state"].as_str()),
        (1, Some("acknowledged"))
    );
    assert_eq!(open[0]["note"], "looking");

    ok(
        dir.path(),
        &[
            "triage",
            &id,
            "accepted",
            "--note",
            "new allocator: expected",
        ],
    );
    assert!(alerts(false).is_empty());
    let all = alerts(true);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["state"], "accepted");
    assert_eq!(
        all[0]["detected"], false,
        "an accepted change is a break now"
    );
    // The series has a new segment at run 21 and no change across it.
    let series: serde_json::Value = serde_json::from_str(&ok(
        dir.path(),
        &["history", "--metric", "gbps", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(series[0]["breaks"], serde_json::json!([20]));
    assert!(series[0]["changes"].as_array().unwrap().is_empty());

    // The site lists no open alert and the feed carries the triaged one, in its commit's
    // entry (a run without a commit: the run's).
    let site = dir.path().join("site");
    ok(dir.path(), &["site", "--out", site.to_str().unwrap()]);
    let feed = std::fs::read_to_string(site.join("feed.xml")).unwrap();
    let urn = match all[0]["git_commit"].as_str() {
        Some(sha) => format!("urn:perfhouse:commit:{sha}"),
        None => format!("urn:perfhouse:run:{}", all[0]["run_id"].as_str().unwrap()),
    };
    assert!(feed.contains(&format!("<id>{urn}</id>")), "{feed}");
    assert!(feed.contains(&format!("] alert {id}")), "{feed}");
    assert!(feed.contains("<category term=\"accepted\"/>"), "{feed}");
    assert!(feed.contains("new allocator: expected"));
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(!index.contains("What changed lately"), "no open alert left");
    let page = std::fs::read_to_string(site.join("alerts.html")).unwrap();
    assert!(
        page.contains("No open alerts.") && page.contains("1 alert closed by triage is not listed"),
        "{page}"
    );
    // Compacting keeps every triage event (they are rows like any other).
    ok(dir.path(), &["compact"]);
    assert_eq!(alerts(true)[0]["state"], "accepted");
    let check = ok(dir.path(), &["check"]);
    assert!(check.contains("0 problems"), "{check}");
}

#[test]
fn a_triage_writer_that_died_mid_write_leaves_nothing_a_reader_sees() {
    // The alert write path is create-only: the event is written as `<name>.tmp` and renamed
    // into place. A writer killed before the rename leaves a torn temp file: readers must not
    // see it, `check` lists it as a leftover, `gc` removes it, and the ledger is unchanged.
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    three_series(&wh, 40);
    let list: serde_json::Value =
        serde_json::from_str(&ok(dir.path(), &["alerts", "--format", "json"])).unwrap();
    let id = list[0]["alert_id"].as_str().unwrap().to_string();
    ok(dir.path(), &["triage", &id, "acknowledged"]);
    let part = dir.path().join("alerts").join("suite=synthetic");
    let landed: Vec<_> = std::fs::read_dir(&part).unwrap().flatten().collect();
    assert_eq!(landed.len(), 1, "one event file");
    let bytes = std::fs::read(landed[0].path()).unwrap();
    let torn = part.join(format!(
        "{}-alert-torn.parquet.tmp",
        list[0]["run_id"].as_str().unwrap()
    ));
    std::fs::write(&torn, &bytes[..bytes.len() / 2]).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    std::fs::File::options()
        .write(true)
        .open(&torn)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let after: serde_json::Value =
        serde_json::from_str(&ok(dir.path(), &["alerts", "--format", "json"])).unwrap();
    assert_eq!(
        after[0]["state"], "acknowledged",
        "the torn event is not read"
    );
    let check = ok(dir.path(), &["check"]);
    assert!(check.contains("leftover"), "{check}");
    ok(dir.path(), &["gc"]);
    assert!(!torn.exists(), "gc removes the torn temp file");
    let again: serde_json::Value =
        serde_json::from_str(&ok(dir.path(), &["alerts", "--all", "--format", "json"])).unwrap();
    assert_eq!(again.as_array().unwrap().len(), 1);
    assert_eq!(again[0]["state"], "acknowledged");
}

/// A series that turns bimodal halfway (30 quiet runs at 100 ± 0.3, then runs switching
/// between 100 and 112 every two runs): `history` calls no change point, marks it unstable
/// from run #31 (the first run at 112) to date, once; `noise` says so, and judges its σ from
/// the newest level.
#[test]
fn a_series_turning_bimodal_is_unstable_from_there_and_noise_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    let mut rng = Rng::new(17);
    for i in 0..60 {
        let high = i >= 30 && ((i - 30) / 2) % 2 == 0;
        let lat = if high { 112.0 } else { 100.0 } + 0.3 * rng.normal();
        run_with_metrics(&wh, i, &[("lat", lat)]);
    }
    let series: serde_json::Value = serde_json::from_str(&ok(
        dir.path(),
        &["history", "--suite", "synthetic", "--format", "json"],
    ))
    .unwrap();
    let s = &series[0];
    assert!(s["changes"].as_array().unwrap().is_empty(), "{s:#}");
    let spans = s["unstable"].as_array().unwrap();
    assert_eq!(spans.len(), 1, "{spans:#?}");
    let u = &spans[0];
    assert_eq!(
        (u["run_no"].as_u64(), u["start"].as_u64()),
        (Some(31), Some(30))
    );
    assert_eq!(
        (u["end"].as_u64(), u["ongoing"].as_bool()),
        (Some(60), Some(true))
    );
    // Switches at runs 31, 33, …, 59 (every second run from the 31st): 15.
    assert_eq!(u["switches"], 15);
    // 30 quiet runs and 14 of the 30 after at 100: 44 of 60 low.
    assert!(
        (u["low_share"].as_f64().unwrap() - 44.0 / 60.0).abs() < 1e-12,
        "{u}"
    );
    let table = ok(dir.path(), &["history", "--suite", "synthetic"]);
    assert_eq!(table.matches("unstable from #31").count(), 1, "{table}");
    let noise: serde_json::Value =
        serde_json::from_str(&ok(dir.path(), &["noise", "--format", "json"])).unwrap();
    let e = &noise[0];
    assert_eq!(e["unstable_since"], 31, "{e:#}");
    assert_eq!(e["since_run"], 1, "one level: no change point");
    assert!(ok(dir.path(), &["noise"]).contains("#31"));
}

/// 60 runs of `gbps` at 12 GB/s (σ 0.5 %) stepping +5 % at run 41: the default rule (2.75σ, at
/// least 2 %) calls it. A run labelled `change_threshold=gbps=8%` sets that metric's floor to
/// 8 %: no change any more, and `perfhouse noise` shows the effective threshold and where the
/// rule came from; a suite-wide `2σ/1%` applies to the other series. A label that does not
/// parse is refused at ingest, naming the entry.
#[test]
fn a_suite_sets_its_own_change_rule_and_noise_shows_the_effective_one() {
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    let mut rng = Rng::new(8);
    let mut add = |wh: &Warehouse, i: usize, labels: &[(&str, &str)]| {
        let level = if i < 40 { 12.0 } else { 12.6 };
        let gbps = level * (1.0 + 0.005 * rng.normal());
        let flat = 5.0 * (1.0 + 0.005 * rng.normal());
        run_labelled(wh, i, &[("gbps", gbps), ("flat", flat)], labels);
    };
    for i in 0..60 {
        add(&wh, i, &[]);
    }
    let changes = |dir: &std::path::Path| -> usize {
        let h: serde_json::Value = serde_json::from_str(&ok(
            dir,
            &["history", "--metric", "gbps", "--format", "json"],
        ))
        .unwrap();
        h[0]["changes"].as_array().unwrap().len()
    };
    assert_eq!(changes(dir.path()), 1);
    add(&wh, 60, &[("change_threshold", "2σ/1%, gbps=8%")]);
    assert_eq!(changes(dir.path()), 0, "+5 % is under gbps's own 8 %");
    let noise: Vec<serde_json::Value> =
        serde_json::from_str(&ok(dir.path(), &["noise", "--format", "json"])).unwrap();
    let of = |m: &str| noise.iter().find(|e| e["metric"] == m).unwrap().clone();
    let g = of("gbps");
    assert_eq!(g["change_rule_from"], "metric");
    assert_eq!(g["change_rule"]["floor"], 0.08);
    assert_eq!(g["change_rule"]["sigmas"], 2.0);
    assert_eq!(
        g["change_threshold"], 0.08,
        "2σ of 0.5 % is under the floor"
    );
    let f = of("flat");
    assert_eq!(f["change_rule_from"], "suite");
    assert_eq!(f["change_rule"]["floor"], 0.01);
    let table = ok(dir.path(), &["noise"]);
    assert!(table.contains("2σ, at least 8% (metric)"), "{table}");
    // A value that does not parse is refused, saying which entry and what was expected.
    let file = dir.path().join("m.json");
    std::fs::write(
        &file,
        r#"{"metrics": [{"name": "x", "value": 1, "unit": "ms"}]}"#,
    )
    .unwrap();
    let o = perfhouse(
        dir.path(),
        &[
            "ingest",
            "--suite",
            "synthetic",
            "--label",
            "change_threshold=gbps=eight%",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--label change_threshold=gbps=eight%: \"gbps=eight%\""),
        "{}",
        stderr(&o)
    );
}

/// 40 quiet runs (σ 0.5 %), then one 10 % lower: a pending regression at run 41 in
/// `history` (JSON and table) and `alerts` (kind `pending`, its evidence and what confirms
/// it). Two more runs at the new level confirm it: a change point at run 41 with the same
/// alert id, nothing pending. Two at the old level instead drop it: no change, no alert.
/// A pending change in a suite the runner measured says how to confirm it now: the plan its
/// newest run ran (the run's `plan` label), at that run's commit, as many more times as it
/// needs. Series without a plan (ingested results) say nothing of the kind.
#[test]
fn a_pending_change_of_a_planned_suite_says_which_plan_to_run_again_and_where() {
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    let mut rng = Rng::new(4);
    let plan = [("plan", "plans/transfer.toml")];
    for i in 0..40 {
        run_labelled(
            &wh,
            i,
            &[("gbps", 12.0 * (1.0 + 0.005 * rng.normal()))],
            &plan,
        );
    }
    run_labelled(&wh, 40, &[("gbps", 10.8)], &plan);
    let h: serde_json::Value =
        serde_json::from_str(&ok(dir.path(), &["history", "--format", "json"])).unwrap();
    let commit = format!("{:040x}", 40);
    assert_eq!(
        h[0]["pending"]["rerun"],
        serde_json::json!({"plan": "plans/transfer.toml", "git_commit": commit, "runs": 2})
    );
    let table = ok(dir.path(), &["history", "--changes-only"]);
    assert!(
        table.contains(
            "; confirm now: run `perfhouse run plans/transfer.toml` at 000000000000 2 more times"
        ),
        "{table}"
    );
    // The same history without the label: no rerun.
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    let mut rng = Rng::new(4);
    for i in 0..40 {
        run_with_metrics(&wh, i, &[("gbps", 12.0 * (1.0 + 0.005 * rng.normal()))]);
    }
    run_with_metrics(&wh, 40, &[("gbps", 10.8)]);
    let h: serde_json::Value =
        serde_json::from_str(&ok(dir.path(), &["history", "--format", "json"])).unwrap();
    assert!(
        h[0]["pending"]["run_no"].is_u64() && h[0]["pending"]["rerun"].is_null(),
        "{h}"
    );
}

#[test]
fn a_pending_change_is_confirmed_by_two_more_runs_and_dropped_by_two_at_the_old_level() {
    let quiet = |wh: &Warehouse| {
        let mut rng = Rng::new(4);
        for i in 0..40 {
            run_with_metrics(wh, i, &[("gbps", 12.0 * (1.0 + 0.005 * rng.normal()))]);
        }
        run_with_metrics(wh, 40, &[("gbps", 10.8)]);
    };
    let history = |dir: &std::path::Path| -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(&ok(dir, &["history", "--format", "json"]))
            .unwrap()[0]
            .clone()
    };
    let alerts = |dir: &std::path::Path| -> Vec<serde_json::Value> {
        serde_json::from_str(&ok(dir, &["alerts", "--format", "json"])).unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    quiet(&wh);
    let h = history(dir.path());
    assert!(h["changes"].as_array().unwrap().is_empty());
    let p = &h["pending"];
    assert_eq!(
        (
            p["run_no"].as_u64(),
            p["runs"].as_u64(),
            p["needs"].as_u64()
        ),
        (Some(41), Some(1), Some(2))
    );
    assert_eq!(p["regression"], true);
    assert_eq!(p["evidence"]["after"], 1);
    assert!(
        p["evidence"]["text"]
            .as_str()
            .unwrap()
            .ends_with("40 runs before, 1 after · pending"),
        "{p}"
    );
    let table = ok(dir.path(), &["history", "--changes-only"]);
    assert!(
        table.contains("pending regression at #41")
            && table.contains("confirmed when 2 more runs stay beyond"),
        "{table}"
    );
    let a = alerts(dir.path());
    assert_eq!(a.len(), 1, "{a:#?}");
    assert_eq!(a[0]["kind"], "pending");
    let id = a[0]["alert_id"].as_str().unwrap().to_string();
    assert!(ok(dir.path(), &["alerts"]).contains("pending regression"));
    // Confirmed: two more at the new level.
    run_with_metrics(&wh, 41, &[("gbps", 10.82)]);
    run_with_metrics(&wh, 42, &[("gbps", 10.79)]);
    let h = history(dir.path());
    assert!(h["pending"].is_null(), "{}", h["pending"]);
    let c = h["changes"].as_array().unwrap();
    assert_eq!(c.len(), 1);
    assert_eq!(c[0]["run_no"], 41);
    let a = alerts(dir.path());
    assert_eq!(
        (a[0]["kind"].as_str(), a[0]["alert_id"].as_str()),
        (Some("change"), Some(id.as_str()))
    );
    // Dropped: two back at the old level.
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    quiet(&wh);
    run_with_metrics(&wh, 41, &[("gbps", 12.02)]);
    run_with_metrics(&wh, 42, &[("gbps", 11.97)]);
    let h = history(dir.path());
    assert!(
        h["pending"].is_null() && h["changes"].as_array().unwrap().is_empty(),
        "{h}"
    );
    assert!(alerts(dir.path()).is_empty());
}
