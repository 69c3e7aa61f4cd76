//! aiperf's multi-run output (`--num-profile-runs 3 --concurrency 4,16`): each run under
//! `profile_runs/trial_000N/concurrency_C/` is one trial (repeat N−1, param concurrency = C),
//! and the per-run summaries perfhouse stores agree with aiperf's own aggregate over the runs.

use crate::common;

use common::*;

#[test]
fn multirun_trials_and_aiperfs_aggregate_agree_value_for_value() {
    let wh = tempfile::tempdir().unwrap();
    let dir = fixture("aiperf-multirun");
    ok(wh.path(), &["ingest", "--suite", "mr", &dir]);
    let trials = query(
        wh.path(),
        "select params, repeat, requests from trial_figures order by params, repeat",
    );
    let keys: Vec<(String, i64)> = trials
        .iter()
        .map(|t| {
            (
                t["params"].as_str().unwrap().to_string(),
                t["repeat"].as_i64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, i64)> = ["16", "4"]
        .iter()
        .flat_map(|c| (0..3).map(move |r| (format!("{{\"concurrency\":\"{c}\"}}"), r)))
        .collect();
    assert_eq!(
        keys, want,
        "one trial per run, the aggregates are not trials"
    );
    assert!(trials.iter().all(|t| t["requests"] == 60));

    let mut checked = 0;
    for c in [4, 16] {
        let path = format!("{dir}/aggregate/concurrency_{c}/profile_export_aiperf_aggregate.json");
        let agg: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(agg["metadata"]["num_successful_runs"], 3);
        assert_eq!(
            agg["metadata"]["variation_values"]["phases.profiling.concurrency"],
            c
        );
        let ours = query(
            wh.path(),
            &format!(
                "select m.name, m.value from metrics m join trials t on m.run_id = t.run_id \
                 and m.trial_id = t.trial_id where m.origin = 'aiperf-summary' \
                 and t.params = '{{\"concurrency\":\"{c}\"}}' order by m.name, t.repeat"
            ),
        );
        let mut by_name: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
        for r in &ours {
            by_name
                .entry(r["name"].as_str().unwrap().to_string())
                .or_default()
                .push(r["value"].as_f64().unwrap());
        }
        for (key, stats) in agg["metrics"].as_object().unwrap() {
            // aiperf's `request_latency_p99` is perfhouse's `aiperf.request_latency.p99`.
            let (base, stat) = key.rsplit_once('_').unwrap();
            let Some(v) = by_name.get(&format!("aiperf.{base}.{stat}")) else {
                continue;
            };
            assert_eq!(v.len(), 3, "{key}");
            let mean = v.iter().sum::<f64>() / 3.0;
            let std = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-9);
            assert!(
                close(mean, stats["mean"].as_f64().unwrap()),
                "{key}: mean {mean} vs {stats}"
            );
            assert!(
                close(std, stats["std"].as_f64().unwrap())
                    || stats["std"].as_f64().unwrap() < 1e-12,
                "{key}: std {std} vs {stats}"
            );
            let lo = v.iter().cloned().fold(f64::MAX, f64::min);
            assert!(close(lo, stats["min"].as_f64().unwrap()), "{key}: min");
            checked += 1;
        }
    }
    assert!(checked >= 400, "{checked} aggregate metrics checked");
}

/// Issue 41: aiperf's aggregate summary alone (the per-run directories not kept) lands its
/// figures as aggregate metrics, named so, with a note that the runs give more.
#[test]
fn aiperfs_aggregate_summary_lands_as_aggregate_metrics_with_a_note() {
    let dir = fixture("aiperf-multirun");
    let path = format!("{dir}/aggregate/concurrency_16/profile_export_aiperf_aggregate.json");
    let agg: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let wh = tempfile::tempdir().unwrap();
    let o = perfhouse(wh.path(), &["ingest", "--suite", "agg", &path]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("aiperf's aggregate over 3 of 3 runs landed as aiperf_aggregate.*")
            && stderr(&o).contains("the per-run directories (profile_runs/trial_000N/…) give more"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        scalar(wh.path(), "select params from trials"),
        r#"{"concurrency":"16","confidence_level":"0.95"}"#
    );
    let got = |name: &str| {
        scalar(
            wh.path(),
            &format!("select value || ' ' || unit from metrics where name = '{name}'"),
        )
    };
    let p99 = &agg["metrics"]["request_latency_p99"];
    for stat in ["mean", "std", "min", "max", "se", "ci_low", "ci_high"] {
        assert_eq!(
            got(&format!("aiperf_aggregate.request_latency.p99.{stat}")),
            format!("{} ms", p99[stat].as_f64().unwrap()),
            "{stat}"
        );
    }
    assert_eq!(got("aiperf_aggregate.runs"), "3.0 runs");
    // Every statistic aiperf computed lands, but the null ones (a CV of a zero mean).
    let want: usize = agg["metrics"]
        .as_object()
        .unwrap()
        .values()
        .map(|m| {
            ["mean", "std", "min", "max", "cv", "se", "ci_low", "ci_high"]
                .iter()
                .filter(|s| !m[**s].is_null())
                .count()
        })
        .sum();
    assert_eq!(
        scalar(wh.path(), "select count(*) from metrics")
            .as_u64()
            .unwrap() as usize,
        want + 1
    );

    // A walk takes the aggregates only where the runs are not beside them.
    let copy = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp")
        .args([
            "-r",
            &format!("{dir}/aggregate"),
            copy.path().to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(status.success());
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &["ingest", "--suite", "agg", copy.path().to_str().unwrap()],
    );
    assert_eq!(
        scalar(
            wh.path(),
            "select string_agg(params, ' ' order by params) from trials"
        ),
        r#"{"concurrency":"16","confidence_level":"0.95"} {"concurrency":"4","confidence_level":"0.95"}"#
    );
}
