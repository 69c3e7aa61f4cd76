//! GuideLLM `benchmarks.json` (a real GuideLLM 0.8.1 concurrency sweep against the Dynamo
//! frontend + mocker: tests/fixtures/guidellm/README.md): one trial per benchmark, its saved
//! requests as request rows, its own distributions as metrics value for value, and the figures
//! perfhouse recomputes from the rows equal GuideLLM's where the definitions agree.

use crate::common;

use std::collections::BTreeMap;

use common::*;

#[test]
fn guidellm_benchmarks_ingest_value_for_value_and_recompute_from_requests() {
    let wh = tempfile::tempdir().unwrap();
    let path = fixture("guidellm/benchmarks.json");
    ok(wh.path(), &["ingest", "--suite", "gl", &path]);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let benchmarks = doc["benchmarks"].as_array().unwrap();
    assert_eq!(benchmarks.len(), 3);
    let mut checked = 0;
    for b in benchmarks {
        let streams = b["config"]["strategy"]["streams"].as_i64().unwrap();
        let params = format!("{{\"concurrency\":\"{streams}\",\"strategy\":\"concurrent\"}}");
        let trial = query(
            wh.path(),
            &format!(
                "select trial_id, requests, completed, ttft_p50_ms from trial_figures where params = '{params}'"
            ),
        );
        assert_eq!(trial.len(), 1, "{params}");
        let t = &trial[0];
        let id = t["trial_id"].as_i64().unwrap();
        let totals = &b["metrics"]["request_totals"];
        assert_eq!(t["requests"], totals["total"]);
        assert_eq!(t["completed"], totals["successful"]);
        // Its own figures, value for value.
        let stored: BTreeMap<String, f64> = query(
            wh.path(),
            &format!("select name, value from metrics where trial_id = {id} and origin = 'guidellm-summary'"),
        )
        .into_iter()
        .map(|r| (r["name"].as_str().unwrap().to_string(), r["value"].as_f64().unwrap()))
        .collect();
        for (name, m) in b["metrics"].as_object().unwrap() {
            let Some(dist) = m.get("successful").filter(|d| d.is_object()) else {
                continue;
            };
            for (stat, v) in [
                ("mean", &dist["mean"]),
                ("median", &dist["median"]),
                ("p90", &dist["percentiles"]["p90"]),
                ("p99", &dist["percentiles"]["p99"]),
            ] {
                let Some(v) = v.as_f64() else { continue };
                assert_eq!(
                    stored[&format!("guidellm.{name}.{stat}")],
                    v,
                    "{name}.{stat}"
                );
                checked += 1;
            }
        }
        // Recomputed from the request rows: the mean TTFT is GuideLLM's mean; its percentiles
        // are nearest-rank (the ⌈p·n⌉-th smallest), perfhouse's interpolate between ranks.
        let mut ttft: Vec<f64> = query(
            wh.path(),
            &format!("select ttft_ns from requests where trial_id = {id} and run_id = (select max(run_id) from runs)"),
        )
        .iter()
        .map(|r| r["ttft_ns"].as_f64().unwrap() / 1e6)
        .collect();
        ttft.sort_by(f64::total_cmp);
        let n = ttft.len();
        let dist = &b["metrics"]["time_to_first_token_ms"]["successful"];
        let mean = ttft.iter().sum::<f64>() / n as f64;
        assert!(
            (mean - dist["mean"].as_f64().unwrap()).abs() < 1e-5,
            "mean TTFT {mean} vs {dist}"
        );
        for (p, key) in [(0.5, "p50"), (0.9, "p90"), (0.99, "p99")] {
            let rank = ((p * n as f64).ceil() as usize).max(1) - 1;
            let theirs = dist["percentiles"][key].as_f64().unwrap();
            assert!(
                (ttft[rank] - theirs).abs() < 1e-5,
                "{key}: {} vs {theirs}",
                ttft[rank]
            );
        }
        let ours = t["ttft_p50_ms"].as_f64().unwrap();
        assert!(ttft[n / 2 - 1] <= ours && ours <= ttft[n / 2], "{ours}");
    }
    assert!(checked >= 100, "{checked}");
    // GuideLLM's own figures restate the records: history and compare use the records.
    let restating = scalar(
        wh.path(),
        "select count(*) from trial_metrics where origin = 'guidellm-summary' and not restates_requests",
    );
    assert_eq!(restating, 0);
    // A sweep over concurrency: `perfhouse sweep` reads it like any other.
    let s: serde_json::Value =
        serde_json::from_str(&ok(wh.path(), &["sweep", "--format", "json"])).unwrap();
    let loads: Vec<f64> = s["arms"][0]["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["load"].as_f64().unwrap())
        .collect();
    assert_eq!(loads, [1.0, 4.0, 16.0]);
}
