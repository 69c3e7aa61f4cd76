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
