//! Load sweeps on the bundled real capture (`datasets/dynamo-sweep`: Dynamo frontend + mocker
//! under aiperf at concurrency 1 … 64, two mock-worker speeds): knee, capacity at the suite's
//! SLOs with its bootstrap interval, the shift between arms, and the sweep page.

use crate::common;

use std::fs;

use common::*;

#[test]
fn the_bundled_sweep_has_knees_capacities_and_a_frontier_shift() {
    let wh = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let datasets = datasets_without(&["kedro-asv", "plans", "warehouse"]);
    ok(
        wh.path(),
        &[
            "demo",
            "--no-plans",
            "--datasets",
            datasets.path().to_str().unwrap(),
            "--out",
            out.path().to_str().unwrap(),
        ],
    );
    let o = ok(wh.path(), &["sweep", "--format", "json"]);
    let s: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(s["load"], "concurrency");
    // The plan's SLOs, recorded as the run's `slo` label.
    assert_eq!(s["slo"], "ttft_ms<=80,p99(ttft_ms)<=100");
    let arms = s["arms"].as_array().unwrap();
    assert_eq!(arms.len(), 2);
    for a in arms {
        let levels = a["levels"].as_array().unwrap();
        let loads: Vec<f64> = levels.iter().map(|l| l["load"].as_f64().unwrap()).collect();
        assert_eq!(loads, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0], "{a:#}");
        // Capacity, recomputed here from the levels: the first level that misses an SLO
        // (attainment < 99 % or TTFT p99 > 100 ms), interpolated from the one before.
        let c = &a["capacity"];
        let fails = |l: &serde_json::Value| !l["meets"].as_bool().unwrap();
        match levels.iter().position(fails) {
            None => assert_eq!(c["kind"], "at_least", "{a:#}"),
            Some(0) => assert_eq!(c["kind"], "below", "{a:#}"),
            Some(k) => {
                assert_eq!(c["kind"], "within", "{a:#}");
                let (p, f) = (&levels[k - 1], &levels[k]);
                let v = |l: &serde_json::Value, key: &str| l[key].as_f64().unwrap();
                // The fraction of the step where each failing criterion crosses its bound.
                let mut t: f64 = 1.0;
                if v(f, "ttft_p99_ms") > 100.0 {
                    t = t.min(
                        (100.0 - v(p, "ttft_p99_ms")) / (v(f, "ttft_p99_ms") - v(p, "ttft_p99_ms")),
                    );
                }
                if v(f, "slo_attainment_pct") < 99.0 {
                    t = t.min(
                        (99.0 - v(p, "slo_attainment_pct"))
                            / (v(f, "slo_attainment_pct") - v(p, "slo_attainment_pct")),
                    );
                }
                let t = t.clamp(0.0, 1.0);
                let load = v(p, "load") + t * (v(f, "load") - v(p, "load"));
                let x =
                    v(p, "throughput_rps") + t * (v(f, "throughput_rps") - v(p, "throughput_rps"));
                assert!((c["load"].as_f64().unwrap() - load).abs() < 1e-9, "{a:#}");
                assert!(
                    (c["throughput_rps"].as_f64().unwrap() - x).abs() < 1e-9,
                    "{a:#}"
                );
                let ci = c["ci"].as_array().unwrap();
                assert!(
                    ci[0].as_f64().unwrap() <= x && x <= ci[1].as_f64().unwrap(),
                    "{a:#}"
                );
            }
        }
        // Goodput never exceeds throughput.
        for l in levels {
            assert!(
                l["goodput_rps"].as_f64().unwrap() <= l["throughput_rps"].as_f64().unwrap() + 1e-9
            );
        }
    }
    // The knee where the data has one: a level from which throughput stops scaling.
    assert!(arms.iter().any(|a| a["knee"].is_object()), "{s:#}");
    let shift = &s["shift"];
    assert!(
        shift["text"]
            .as_str()
            .unwrap()
            .contains("req/s within the SLOs"),
        "{shift:#}"
    );
    assert!(shift["ci"].is_array(), "{shift:#}");

    // The sweep page: both arms, their knees and capacities, the shift; linked from the run.
    let run = s["run_id"].as_str().unwrap();
    let page = fs::read_to_string(out.path().join(format!("runs/{run}/sweep.html"))).unwrap();
    for a in arms {
        assert!(page.contains(&format!("<h2>{}</h2>", a["arm"].as_str().unwrap())));
    }
    assert!(page.contains("Latency–throughput frontier"));
    assert!(page.contains("Capacity at SLO: "));
    assert!(page.contains(shift["text"].as_str().unwrap().split(" (").next().unwrap()));
    let index = fs::read_to_string(out.path().join(format!("runs/{run}/index.html"))).unwrap();
    assert!(index.contains("href=\"sweep.html\""));
    // `compare` of the two arms states the shift of capacity with its interval.
    let cmp = ok(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "dynamo-sweep#1@speedup-5",
            "--candidate",
            "dynamo-sweep#1@speedup-10",
        ],
    );
    assert!(
        cmp.contains("capacity at SLO (ttft_ms<=80,p99(ttft_ms)<=100)"),
        "{cmp}"
    );
    assert!(cmp.contains(shift["text"].as_str().unwrap()), "{cmp}");
    // The table form pipes.
    let csv = ok(wh.path(), &["sweep", "--format", "csv"]);
    assert_eq!(csv.lines().count(), 1 + 14, "{csv}");
    // A run that does not sweep load is refused by name.
    let o = perfhouse(wh.path(), &["sweep", "no-such-run"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not a load sweep"), "{}", stderr(&o));
}

/// One repeat per level: resampling one value a level gives a zero-width interval ("[145.1,
/// 145.1]"), which claims a certainty the sweep does not have. There is none, and it says so.
#[test]
fn one_repeat_per_level_gives_no_interval_and_says_why() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Three levels, one trial each: 40 requests of 10 ms, `c` in flight at a time.
    let mut files = Vec::new();
    for c in [1u64, 2, 4] {
        let d = dir.path().join(format!("concurrency={c}"));
        fs::create_dir_all(&d).unwrap();
        let mut text = String::new();
        for i in 0..40u64 {
            let start = 1_700_000_000_000_000_000u64 + (i / c) * 10_000_000;
            text.push_str(&format!(
                r#"{{"metadata":{{"request_start_ns":{start},"request_end_ns":{},"benchmark_phase":"profiling"}},"metrics":{{"request_latency":{{"value":10,"unit":"ms"}},"output_sequence_length":{{"value":5,"unit":"tokens"}}}},"error":null}}"#,
                start + 10_000_000
            ));
            text.push('\n');
        }
        let f = d.join("profile_export.jsonl");
        fs::write(&f, text).unwrap();
        files.push(f.to_string_lossy().into_owned());
    }
    let mut args = vec![
        "ingest",
        "--suite",
        "one",
        "--label",
        "slo=latency_ms<=1000",
    ];
    args.extend(files.iter().map(String::as_str));
    ok(wh.path(), &args);
    let s: serde_json::Value =
        serde_json::from_str(&ok(wh.path(), &["sweep", "--format", "json"])).unwrap();
    let a = &s["arms"][0];
    let levels = a["levels"].as_array().unwrap();
    assert!(levels.iter().all(|l| l["trials"] == 1), "{a:#}");
    let c = &a["capacity"];
    assert_eq!(c["kind"], "at_least", "{c:#}");
    assert!(c["ci"].is_null(), "{c:#}");
    assert_eq!(
        c["no_interval"],
        "no interval: 1 repeat at a level, an interval needs at least 2"
    );
}
