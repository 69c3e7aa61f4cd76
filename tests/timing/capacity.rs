//! `perfhouse run PLAN --find-capacity` on real processes: a server with a known capacity
//! (`tests/fixtures/capacity/server.py`: SLOTS requests served at once, SERVICE_MS each, or one
//! that thrashes past THRASH requests inside) under a closed-loop load generator
//! (`client.py`, aiperf's record format), started fresh for every trial. The capacities are
//! known by construction: with 100 ms services and `p99(latency_ms)<=150`, a level meets the
//! SLO exactly up to SLOTS clients (one more client makes some requests wait a whole service);
//! the thrashing server's throughput peaks at THRASH clients. The search's answers are checked
//! against them, its probes against the doubling-then-bisection by hand, and against a dense
//! sweep of the same plan in the same warehouse.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;

/// The plan of a two-command system: the server in setup, the load generator as the command.
fn plan(dir: &Path, slo: &str, capacity: &str, arms: &str, matrix: &str, repeats: u32) -> PathBuf {
    let fixtures = repo().join("tests/fixtures/capacity");
    let text = format!(
        r#"
suite = "capacity"
slo = ["{slo}"]

[run]
repeats = {repeats}
setup = "python3 {server} \"$PERFHOUSE_TRIAL_DIR/s.sock\" > \"$PERFHOUSE_TRIAL_DIR/server.log\" 2>&1 &"
ready = "test -S \"$PERFHOUSE_TRIAL_DIR/s.sock\""
ready_interval = "20ms"
ready_timeout = "30s"
command = "python3 {client} \"$PERFHOUSE_TRIAL_DIR/s.sock\""
timeout = "60s"

{arms}

[[collect]]
format = "aiperf"
path = "profile_export.jsonl"

{matrix}

[capacity]
load = "concurrency"
{capacity}
"#,
        server = fixtures.join("server.py").display(),
        client = fixtures.join("client.py").display(),
    );
    let p = dir.join("plan.toml");
    fs::write(&p, text).unwrap();
    p
}

fn sweep_json(wh: &Path, run: &str) -> serde_json::Value {
    let o = ok(
        wh,
        &["sweep", run, "--load", "concurrency", "--format", "json"],
    );
    serde_json::from_str(&o).unwrap()
}

fn arm<'a>(sweep: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    sweep["arms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["arm"] == name)
        .unwrap_or_else(|| panic!("no arm {name} in {sweep:#}"))
}

fn loads(arm: &serde_json::Value) -> Vec<f64> {
    arm["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["load"].as_f64().unwrap())
        .collect()
}

#[test]
fn find_capacity_brackets_the_known_capacity_and_agrees_with_a_dense_sweep() {
    let _g = crate::runner::SERIAL
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    // Capacity 3 and 6 clients; the plan's matrix is the dense sweep (1 … 8) of a plain run.
    let plan = plan(
        dir.path(),
        "p99(latency_ms)<=150",
        "max = 64\nresolution = \"10%\"",
        "[[arm]]\nname = \"k3\"\nenv = { SLOTS = \"3\", SERVICE_MS = \"100\" }\n\
         [[arm]]\nname = \"k6\"\nenv = { SLOTS = \"6\", SERVICE_MS = \"100\" }",
        "[matrix]\nconcurrency = [1, 2, 3, 4, 5, 6, 7, 8]",
        2,
    );
    let out = ok(&wh, &["run", plan.to_str().unwrap(), "--find-capacity"]);
    // k3: 1, 2 meet, 4 misses; 3 meets; 3–4 holds no integer between: capacity 3.
    // k6: 1, 2, 4 meet, 8 misses; 6 meets, 7 misses: capacity 6.
    assert!(
        out.contains("k3: capacity 3 concurrency (bracket 3 … 4"),
        "{out}"
    );
    assert!(
        out.contains("k6: capacity 6 concurrency (bracket 6 … 7"),
        "{out}"
    );
    assert!(
        out.contains("4 probes, 8 trials") && out.contains("6 probes, 12 trials"),
        "{out}"
    );
    let run = scalar(&wh, "select run_id from runs")
        .as_str()
        .unwrap()
        .to_string();
    let labels = scalar(&wh, "select labels from runs");
    let labels: serde_json::Value = serde_json::from_str(labels.as_str().unwrap()).unwrap();
    assert_eq!(labels["find_capacity"], "concurrency");
    assert_eq!(labels["slo"], "p99(latency_ms)<=150");
    // Every probe is a stored trial: two repeats, the arms interleaved in each round; k3's
    // search ends after round 4, k6's after round 6.
    let trials: Vec<String> = query(
        &wh,
        "select arm, concurrency, repeat from trials where phase = 'measured' order by seq",
    )
    .iter()
    .map(|r| {
        format!(
            "{}@{}#{}",
            r["arm"].as_str().unwrap(),
            r["concurrency"],
            r["repeat"]
        )
    })
    .collect();
    let rounds = [
        (Some(1), 1),
        (Some(2), 2),
        (Some(4), 4),
        (Some(3), 8),
        (None, 6),
        (None, 7),
    ];
    let mut expected = Vec::new();
    for (k3, k6) in rounds {
        for r in 0..2 {
            if let Some(c) = k3 {
                expected.push(format!("k3@{c}#{r}"));
            }
            expected.push(format!("k6@{k6}#{r}"));
        }
    }
    assert_eq!(trials, expected);
    // The answers are stored with the run, and the sweep analysis reads the probes as levels;
    // its interpolated capacity lies in the search's bracket.
    let notes = scalar(&wh, "select text from annotations");
    assert!(
        notes
            .as_str()
            .unwrap()
            .contains("k6: capacity 6 concurrency (bracket 6 … 7"),
        "{notes}"
    );
    let probes = sweep_json(&wh, &run);
    assert_eq!(probes["slo"], "p99(latency_ms)<=150");
    assert_eq!(loads(arm(&probes, "k3")), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(loads(arm(&probes, "k6")), [1.0, 2.0, 4.0, 6.0, 7.0, 8.0]);
    for (name, lo) in [("k3", 3.0), ("k6", 6.0)] {
        let c = &arm(&probes, name)["capacity"];
        assert_eq!(c["kind"], "within", "{c}");
        let load = c["load"].as_f64().unwrap();
        assert!((lo..=lo + 1.0).contains(&load), "{name}: {c}");
    }

    // The dense sweep of the same plan (every concurrency 1 … 8, same repeats and SLO): the
    // last level that meets before the first that misses is the search's capacity, and its
    // interpolated capacity is in the search's bracket, within the resolution of the answer.
    ok(&wh, &["run", plan.to_str().unwrap()]);
    let dense_run = scalar(
        &wh,
        "select run_id from runs where labels not like '%find_capacity%'",
    );
    let dense = sweep_json(&wh, dense_run.as_str().unwrap());
    for (name, capacity) in [("k3", 3.0), ("k6", 6.0)] {
        let a = arm(&dense, name);
        assert_eq!(loads(a), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        let levels = a["levels"].as_array().unwrap();
        let first_miss = levels
            .iter()
            .position(|l| l["meets"] == false)
            .expect("a level misses");
        assert_eq!(
            levels[first_miss - 1]["load"].as_f64(),
            Some(capacity),
            "{a:#}"
        );
        let load = a["capacity"]["load"].as_f64().unwrap();
        assert!((capacity..=capacity + 1.0).contains(&load), "{a:#}");
    }
    // In fewer trials: 20 against 32.
    let count = |run: &str| {
        scalar(
            &wh,
            &format!("select count(*) from trials where run_id = '{run}'"),
        )
    };
    assert_eq!(count(&run), 20);
    assert_eq!(count(dense_run.as_str().unwrap()), 32);
}

#[test]
fn find_capacity_stops_at_over_saturation_before_the_slo_misses() {
    let _g = crate::runner::SERIAL
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    // Services of 50 ms (+5 ms settle), cubed past 4 inside: throughput 72.7 req/s at 4
    // clients, 48.7 at 5, 35.5 at 6, 19.8 at 8 (all far below 90 % of 72.7) while latency
    // climbs to 405 ms, well inside the SLO of 2 s.
    let plan = plan(
        dir.path(),
        "p99(latency_ms)<=2000",
        "max = 64\nresolution = \"1\"",
        "[[arm]]\nname = \"thrash\"\nenv = { THRASH = \"4\", SERVICE_MS = \"50\" }",
        "",
        1,
    );
    let out = ok(&wh, &["run", plan.to_str().unwrap(), "--find-capacity"]);
    assert!(
        out.contains(
            "thrash: capacity 4 concurrency (bracket 4 … 5: 4 is good; 5 over-saturated (less throughput than at 4, more latency))"
        ),
        "{out}"
    );
    // 1, 2, 4 good, 8 over-saturated; then 6 and 5 over-saturated; 4–5 is within 1.
    let probes: Vec<i64> = query(
        &wh,
        "select concurrency from trials where phase = 'measured' order by seq",
    )
    .iter()
    .map(|r| r["concurrency"].as_i64().unwrap())
    .collect();
    assert_eq!(probes, [1, 2, 4, 8, 6, 5]);
    // The sweep analysis of the probes judges the SLO only: every level meets it (capacity at
    // least 8), and its knee is where throughput stops scaling: 4 (every step after it loses
    // throughput, and latency at 8 is above latency at 4).
    let run = scalar(&wh, "select run_id from runs");
    let s = sweep_json(&wh, run.as_str().unwrap());
    let a = arm(&s, "thrash");
    assert_eq!(loads(a), [1.0, 2.0, 4.0, 5.0, 6.0, 8.0]);
    assert_eq!(a["capacity"]["kind"], "at_least", "{a:#}");
    assert_eq!(a["knee"]["load"].as_f64(), Some(4.0), "{a:#}");
}

#[test]
fn find_capacity_needs_a_capacity_section_and_prints_its_first_round() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let p = dir.path().join("plain.toml");
    fs::write(&p, "suite = \"s\"\n[run]\ncommand = \"true\"\n").unwrap();
    let o = perfhouse(&wh, &["run", p.to_str().unwrap(), "--find-capacity"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("plain.toml: --find-capacity needs a [capacity] section"),
        "{}",
        stderr(&o)
    );
    let plan = plan(
        dir.path(),
        "p99(latency_ms)<=150",
        "start = 2\nmax = 8",
        "[[arm]]\nname = \"a\"\n[[arm]]\nname = \"b\"",
        "",
        2,
    );
    let out = ok(
        &wh,
        &[
            "run",
            plan.to_str().unwrap(),
            "--find-capacity",
            "--dry-run",
        ],
    );
    let rows: Vec<&str> = out.lines().skip(1).take(4).collect();
    assert_eq!(
        rows,
        [
            "0  a  concurrency=2  0  measured",
            "1  b  concurrency=2  0  measured",
            "2  a  concurrency=2  1  measured",
            "3  b  concurrency=2  1  measured"
        ],
        "{out}"
    );
    assert!(out.contains("the first round of --find-capacity"), "{out}");
}
