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
    // An interval that spans no change is called inconclusive, first thing.
    let (lo, hi) = (
        shift["ci"][0].as_f64().unwrap(),
        shift["ci"][1].as_f64().unwrap(),
    );
    assert_eq!(
        shift["text"]
            .as_str()
            .unwrap()
            .starts_with("Inconclusive: "),
        lo <= 1.0 && hi >= 1.0,
        "{shift:#}"
    );

    // The sweep page: both arms, their knees and capacities, the shift; linked from the run.
    let run = s["run_id"].as_str().unwrap();
    let page = fs::read_to_string(out.path().join(format!("runs/{run}/sweep.html"))).unwrap();
    for a in arms {
        assert!(page.contains(&format!("<h2>{}</h2>", a["arm"].as_str().unwrap())));
    }
    // Each arm's table lists its levels by value (1, 2, 4 … 64).
    for table in page.split("<tbody>").skip(1) {
        let table = &table[..table.find("</tbody>").unwrap()];
        let loads: Vec<u64> = table
            .split("<tr><td class=\"num\">")
            .skip(1)
            .map(|c| c[..c.find('<').unwrap()].parse().unwrap())
            .collect();
        assert_eq!(loads, [1, 2, 4, 8, 16, 32, 64]);
    }
    assert!(page.contains("<figcaption>Latency–throughput</figcaption>"));
    // The charts carry the finding: load on a log₂ axis, a marker per level, the p99 TTFT
    // bound of the suite's SLOs as a dashed line, each arm's knee and capacity marked.
    assert!(page.contains("concurrency (log₂ scale)"));
    assert!(
        page.contains("<title>SLO p99(ttft_ms)&lt;=100</title>"),
        "{page}"
    );
    for a in arms {
        let arm = a["arm"].as_str().unwrap();
        if let Some(k) = a["knee"]["load"].as_f64() {
            assert!(page.contains(&format!("<title>{arm} knee: concurrency {k}</title>")));
        }
    }
    assert!(page.contains("class=\"knee\"") && page.contains("class=\"mark\""));
    // A level the client paced (Little's law ratio < 0.9) is flagged above the charts, per arm
    // (issue 40 item 3).
    for a in arms {
        let paced = a["levels"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["littles_law_ratio"].as_f64().is_some_and(|r| r < 0.9));
        let flagged = page.contains(&format!(
            "Client-bound</a> — {}: at concurrency",
            a["arm"].as_str().unwrap()
        ));
        assert_eq!(paced, flagged, "{}: {page}", a["arm"]);
        if paced {
            assert!(page.find("class=\"warning\"") < page.find("<figure"));
        }
    }
    // The Pareto frontier of per-user against total output tokens/s is drawn with the arms.
    assert!(
        page.contains("Per-user against total output tokens/s"),
        "{page}"
    );
    assert!(page.contains("Pareto frontier"));
    assert!(!s["frontier"].as_array().unwrap().is_empty());
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

/// `n` aiperf records: `c` in flight at a time, each `latency_ms` long with `tokens` output
/// tokens (so throughput c/latency req/s, exactly).
fn closed_loop(c: u64, latency_ms: u64, tokens: u64) -> String {
    let mut text = String::new();
    for i in 0..40u64 {
        let start = 1_700_000_000_000_000_000u64 + (i / c) * latency_ms * 1_000_000;
        text.push_str(&format!(
            r#"{{"metadata":{{"request_start_ns":{start},"request_end_ns":{},"benchmark_phase":"profiling"}},"metrics":{{"request_latency":{{"value":{latency_ms},"unit":"ms"}},"output_sequence_length":{{"value":{tokens},"unit":"tokens"}}}},"error":null}}"#,
            start + latency_ms * 1_000_000
        ));
        text.push('\n');
    }
    text
}

/// The Pareto frontier of per-user against total output tokens/s, and cost per million
/// tokens, on a sweep whose figures are known exactly. Arm `a`: 10 ms, 5 tokens at every
/// level (per user 500 tok/s; total 500, 1000, 2000). Arm `b`: 5, 8, 16 ms at 1, 2, 4 in
/// flight, 5 tokens (per user 1000, 625, 312.5; total 1000, 1250, 1250). By hand: a@4 (2000
/// total), b@2 (625 per user, 1250) and b@1 (1000 per user) are the frontier; b@4 is dominated by
/// b@2, a@2 by b@1 (equal total, more per user), a@1 by b@1. With `cost_per_hour=36` the
/// cost per million tokens is 36 / (tok/s × 3600) × 10⁶ = 10,000 / tok/s; `gpus=2` halves the
/// totals reported.
#[test]
fn the_frontier_and_cost_per_million_tokens_match_a_hand_computation() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (arm, c, ms) in [
        ("a", 1, 10),
        ("a", 2, 10),
        ("a", 4, 10),
        ("b", 1, 5),
        ("b", 2, 8),
        ("b", 4, 16),
    ] {
        let d = dir.path().join(format!("arm={arm}/concurrency={c}"));
        fs::create_dir_all(&d).unwrap();
        let f = d.join("profile_export.jsonl");
        fs::write(&f, closed_loop(c, ms, 5)).unwrap();
        files.push(f.to_string_lossy().into_owned());
    }
    let mut args = vec![
        "ingest",
        "--suite",
        "frontier",
        "--label",
        "slo=latency_ms<=1000",
        "--label",
        "cost_per_hour=36",
        "--label",
        "gpus=2",
    ];
    args.extend(files.iter().map(String::as_str));
    ok(wh.path(), &args);
    let s: serde_json::Value =
        serde_json::from_str(&ok(wh.path(), &["sweep", "--format", "json"])).unwrap();
    assert_eq!(s["gpus"], 2.0);
    assert_eq!(s["cost_per_hour"], 36.0);
    let close = |v: &serde_json::Value, want: f64| {
        let got = v.as_f64().unwrap_or(f64::NAN);
        assert!(
            (got - want).abs() < 1e-6 * want.abs().max(1.0),
            "{got} vs {want}"
        );
    };
    let points: Vec<(String, f64, f64, f64, bool)> = s["frontier"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["arm"].as_str().unwrap().to_string(),
                p["load"].as_f64().unwrap(),
                p["per_user_tps"].as_f64().unwrap(),
                p["output_tps"].as_f64().unwrap(),
                p["dominated"].as_bool().unwrap(),
            )
        })
        .collect();
    let want = [
        ("a", 4.0, 500.0, 1000.0, false),
        ("b", 2.0, 625.0, 625.0, false),
        ("b", 1.0, 1000.0, 500.0, false),
        ("b", 4.0, 312.5, 625.0, true),
        ("a", 2.0, 500.0, 500.0, true),
        ("a", 1.0, 500.0, 250.0, true),
    ];
    assert_eq!(points.len(), want.len(), "{points:?}");
    for (got, want) in points.iter().zip(want) {
        assert_eq!(
            (got.0.as_str(), got.1, got.4),
            (want.0, want.1, want.4),
            "{points:?}"
        );
        assert!(
            (got.2 - want.2).abs() < 1e-6 && (got.3 - want.3).abs() < 1e-6,
            "{points:?}"
        );
    }
    // Cost per million output tokens at each level (all GPUs' tokens) and at capacity.
    let arms = s["arms"].as_array().unwrap();
    for (a, costs) in [(&arms[0], [20.0, 10.0, 5.0]), (&arms[1], [10.0, 8.0, 8.0])] {
        for (l, want) in a["levels"].as_array().unwrap().iter().zip(costs) {
            close(&l["cost_per_mtok"], want);
        }
    }
    // Every level meets the SLO: capacity is at least the highest level, 400 and 250 req/s of
    // 5 tokens each.
    close(&arms[0]["capacity"]["cost_per_mtok"], 5.0);
    close(&arms[1]["capacity"]["cost_per_mtok"], 8.0);
    // The text and the sweep page show the same: a cost column, and the cost at capacity.
    let text = ok(wh.path(), &["sweep"]);
    assert!(text.contains("$ per M output tok"), "{text}");
    assert!(text.contains("at $5.00 per M output tokens"), "{text}");
    let out = tempfile::tempdir().unwrap();
    ok(wh.path(), &["site", "--out", out.path().to_str().unwrap()]);
    let run = s["run_id"].as_str().unwrap();
    let page = fs::read_to_string(out.path().join(format!("runs/{run}/sweep.html"))).unwrap();
    assert!(page.contains("<th>$ per M output tok</th>"), "{page}");
    for cost in ["20.00", "10.00", "5.00", "8.00"] {
        assert!(
            page.contains(&format!("<td class=\"num\">{cost}</td>")),
            "{cost}"
        );
    }
    assert!(page.contains("at $8.00 per M output tokens"));
}

/// An open-loop (request-rate) sweep gets the same analysis plus achieved ÷ offered rate: a
/// level whose generator fell behind (the system saturated at 120 req/s here, so 200 offered
/// became ~121 achieved) is marked.
#[test]
fn a_rate_sweep_compares_achieved_with_offered_rate() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for rate in [50.0f64, 100.0, 200.0] {
        let sent = rate.min(120.0);
        let d = dir.path().join(format!("request_rate={rate}"));
        fs::create_dir_all(&d).unwrap();
        let mut text = String::new();
        for i in 0..60u64 {
            let start = 1_700_000_000_000_000_000u64 + (i as f64 / sent * 1e9).round() as u64;
            text.push_str(&format!(
                r#"{{"metadata":{{"request_start_ns":{start},"request_end_ns":{},"benchmark_phase":"profiling"}},"metrics":{{"request_latency":{{"value":5,"unit":"ms"}}}},"error":null}}"#,
                start + 5_000_000
            ));
            text.push('\n');
        }
        let f = d.join("profile_export.jsonl");
        fs::write(&f, text).unwrap();
        files.push(f.to_string_lossy().into_owned());
    }
    let mut args = vec!["ingest", "--suite", "open"];
    args.extend(files.iter().map(String::as_str));
    ok(wh.path(), &args);
    let s: serde_json::Value =
        serde_json::from_str(&ok(wh.path(), &["sweep", "--format", "json"])).unwrap();
    assert_eq!(s["load"], "request_rate");
    let levels = s["arms"][0]["levels"].as_array().unwrap();
    for (l, rate) in levels.iter().zip([50.0f64, 100.0, 200.0]) {
        let sent = rate.min(120.0);
        // 60 requests: first start to last end is 59 gaps of 1/sent s plus one 5 ms latency.
        let achieved = 60.0 / ((59.0 / sent * 1e9).round() / 1e9 + 0.005);
        let ratio = l["achieved_ratio"].as_f64().unwrap();
        assert!(
            (ratio - achieved / rate).abs() < 1e-6,
            "{ratio} vs {}",
            achieved / rate
        );
        assert_eq!(l["behind"], achieved / rate < 0.95, "{l:#}");
    }
    assert_eq!(levels[2]["behind"], true);
    assert_eq!(levels[0]["behind"], false);
}

/// The frontier across the runs of one suite (`sweep --suite`), on two runs whose figures are
/// known exactly (20 output tokens a request; per user 20,000 / latency ms, total that × the
/// concurrency; `closed_loop`):
///
/// * run #1 (commit `c0ffee…`), concurrency 1, 2, 4 at 16, 25, 40 ms: per user 1250, 800, 500;
///   total 1250, 1600, 2000;
/// * run #2 (`gpus=2`: totals per GPU), concurrency 2, 4, 8 at 20, 25, 32 ms: per user 1000,
///   800, 625; total 4000, 6400, 10000 → per GPU 1000, 1600, 2500.
///
/// Each run alone is all frontier. Together, by hand: #2@8 (625, 2500) has the highest total;
/// #1@4 and #2@4 tie at (800, 1600), and equal points dominate neither, so both stay (run
/// order); #1@1 (1250, 1250) has the highest per-user rate. Dominated: #1@4 (500, 2000) by
/// #2@8 (625 ≥ 500, 2500 ≥ 2000), and #2@2 (1000, 1000) by #1@1 (1250, 1250) — a point of
/// each run by the other's. Run #3 sweeps request_rate: left out, and said. Run #4 is no
/// sweep (one level): not part of it.
#[test]
fn the_frontier_across_a_suites_runs_matches_a_hand_computation() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let commit = "c0ffee0000000000000000000000000000000001";
    let ingest = |name: &str, levels: &[(&str, u64, u64, u64)], extra: &[&str]| {
        let mut files = Vec::new();
        for (key, load, c, ms) in levels {
            let d = dir.path().join(format!("{name}/{key}={load}"));
            fs::create_dir_all(&d).unwrap();
            let f = d.join("profile_export.jsonl");
            fs::write(&f, closed_loop(*c, *ms, 20)).unwrap();
            files.push(f.to_string_lossy().into_owned());
        }
        let mut args = vec!["ingest", "--suite", "across", "--arm", "serve"];
        args.extend(extra);
        args.extend(files.iter().map(String::as_str));
        ok(wh.path(), &args);
    };
    let cc = "concurrency";
    ingest(
        "one",
        &[(cc, 1, 1, 16), (cc, 2, 2, 25), (cc, 4, 4, 40)],
        &["--commit", commit],
    );
    ingest(
        "two",
        &[(cc, 2, 2, 20), (cc, 4, 4, 25), (cc, 8, 8, 32)],
        &["--label", "gpus=2"],
    );
    let rr = "request_rate";
    ingest(
        "three",
        &[(rr, 10, 1, 10), (rr, 20, 2, 10), (rr, 40, 4, 10)],
        &[],
    );
    ingest("four", &[(cc, 1, 1, 10)], &[]);

    let s: serde_json::Value = serde_json::from_str(&ok(
        wh.path(),
        &["sweep", "--suite", "across", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(s["suite"], "across");
    assert_eq!(s["load"], "concurrency");
    let runs: Vec<(u64, serde_json::Value, serde_json::Value)> = s["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["run_no"].as_u64().unwrap(),
                r["commit"].clone(),
                r["gpus"].clone(),
            )
        })
        .collect();
    assert_eq!(
        runs,
        [
            (1, serde_json::json!(commit), serde_json::Value::Null),
            (2, serde_json::Value::Null, serde_json::json!(2.0)),
        ],
        "{s:#}"
    );
    let left: Vec<(u64, &str)> = s["left_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["run_no"].as_u64().unwrap(), l["load"].as_str().unwrap()))
        .collect();
    assert_eq!(left, [(3, "request_rate")], "{s:#}");
    let run_ids: Vec<&str> = s["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap())
        .collect();
    let points: Vec<(u64, &str, &str, f64, f64, f64, bool)> = s["frontier"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["run_no"].as_u64().unwrap(),
                p["run_id"].as_str().unwrap(),
                p["arm"].as_str().unwrap(),
                p["load"].as_f64().unwrap(),
                p["per_user_tps"].as_f64().unwrap(),
                p["output_tps"].as_f64().unwrap(),
                p["dominated"].as_bool().unwrap(),
            )
        })
        .collect();
    // (run, load, per user, total per GPU, dominated): frontier by total, then dominated.
    let want = [
        (2, 8.0, 625.0, 2500.0, false),
        (1, 2.0, 800.0, 1600.0, false),
        (2, 4.0, 800.0, 1600.0, false),
        (1, 1.0, 1250.0, 1250.0, false),
        (1, 4.0, 500.0, 2000.0, true),
        (2, 2.0, 1000.0, 1000.0, true),
    ];
    assert_eq!(points.len(), want.len(), "{points:?}");
    for (got, want) in points.iter().zip(want) {
        assert_eq!(
            (got.0, got.1, got.2, got.3, got.6),
            (
                want.0,
                run_ids[want.0 as usize - 1],
                "serve",
                want.1,
                want.4
            ),
            "{points:?}"
        );
        assert!(
            (got.4 - want.2).abs() < 1e-6 && (got.5 - want.3).abs() < 1e-6,
            "{points:?}"
        );
    }
    // The points name their run's commit where it is known.
    for p in s["frontier"].as_array().unwrap() {
        let want = if p["run_no"] == 1 {
            serde_json::json!(commit)
        } else {
            serde_json::Value::Null
        };
        assert_eq!(p["commit"], want, "{p:#}");
    }

    // The table: frontier points first, then the dominated; the left-out run named.
    let text = ok(wh.path(), &["sweep", "--suite", "across"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("across: Pareto frontier across 2 run(s) that sweep concurrency"),
        "{text}"
    );
    assert!(
        lines[0].ends_with("4 point(s) on the frontier of 6"),
        "{text}"
    );
    let rows: Vec<Vec<&str>> = lines[3..9]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0][0], "#2", "{text}");
    assert_eq!(rows[1][..3], ["#1", run_ids[0], &commit[..12]], "{text}");
    assert_eq!(rows[4].last(), Some(&"dominated"), "{text}");
    assert_eq!(rows[3].last(), Some(&"yes"), "{text}");
    assert_eq!(
        lines.last().copied(),
        Some(
            format!(
                "left out (they sweep another load parameter than concurrency; not mixed): #3 ({}, sweeps request_rate)",
                s["left_out"][0]["run_id"].as_str().unwrap()
            )
            .as_str()
        ),
        "{text}"
    );

    // CSV: one row per point, the same order.
    let csv = ok(
        wh.path(),
        &["sweep", "--suite", "across", "--format", "csv"],
    );
    let mut csv_lines = csv.lines();
    assert_eq!(
        csv_lines.next(),
        Some("run,run_id,commit,gpus,arm,load,per_user_tps,output_tps,frontier")
    );
    let csv_rows: Vec<Vec<&str>> = csv_lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(
        csv_rows[0],
        [
            "#2", run_ids[1], "", "2", "serve", "8", "625", "2500", "yes"
        ]
    );
    assert_eq!(
        csv_rows[5],
        [
            "#2",
            run_ids[1],
            "",
            "2",
            "serve",
            "2",
            "1000",
            "1000",
            "dominated"
        ]
    );
    assert_eq!(csv_rows.len(), 6);
}

/// `sweep --suite` names the suite and what it needs when there is nothing to show (exit 1),
/// and takes no run id beside it (a usage error, exit 2).
#[test]
fn a_suite_without_a_sweep_run_has_no_frontier_and_says_why() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("concurrency=1");
    fs::create_dir_all(&d).unwrap();
    let f = d.join("profile_export.jsonl");
    fs::write(&f, closed_loop(1, 10, 5)).unwrap();
    ok(
        wh.path(),
        &["ingest", "--suite", "flat", f.to_str().unwrap()],
    );
    let o = perfhouse(wh.path(), &["sweep", "--suite", "flat"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("suite flat: none of its 1 run(s) sweeps load")
            && err.contains("three or more values of concurrency, request_rate, rate, qps"),
        "{err}"
    );
    let o = perfhouse(wh.path(), &["sweep", "--suite", "nosuch"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("suite nosuch: no such suite"),
        "{}",
        stderr(&o)
    );
    let o = perfhouse(wh.path(), &["sweep", "RUN", "--suite", "flat"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}
