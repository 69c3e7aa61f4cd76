//! `perfhouse history` finds a planted level shift at the first run after it and nothing in
//! noise. The series is synthetic (seeded noise around a level), labelled so.

mod common;

use std::collections::BTreeMap;

use common::*;
use perfhouse::model::*;
use perfhouse::stats::Rng;
use perfhouse::warehouse::Warehouse;

fn run_with_metrics(wh: &Warehouse, i: usize, metrics: &[(&str, f64)]) {
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
        labels: BTreeMap::new(),
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
