//! `--find-capacity`'s rounds without processes: a scripted executor (`runner::exec::Executor`)
//! writes each trial's request records (aiperf's format) from a model of the system, so the
//! rounds, their interleaving, the judging of levels by their figures and the answers are
//! checked exactly, in milliseconds. `tests/timing/capacity.rs` runs real processes.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use perfhouse::runner::exec::{Executor, Spec, Step};
use perfhouse::runner::plan::Plan;
use perfhouse::runner::proc::Outcome;
use perfhouse::runner::{RunOptions, RunOutcome, execute_with};
use perfhouse::warehouse::Warehouse;

/// One request: start and latency in ms, and whether it failed.
type Record = (f64, f64, bool);

/// Runs every command by writing the records `model(env)` gives; remembers each command's
/// `arm load` in order.
struct Modelled<F: Fn(&dyn Fn(&str) -> String) -> Vec<Record> + Sync> {
    model: F,
    calls: Mutex<Vec<String>>,
}

impl<F: Fn(&dyn Fn(&str) -> String) -> Vec<Record> + Sync> Executor for Modelled<F> {
    fn begin(&self, _marker: &str) -> String {
        "scripted".to_string()
    }

    fn run(&self, s: &Spec) -> std::io::Result<Outcome> {
        let var = |k: &str| {
            s.env
                .iter()
                .find(|(n, _)| n == k)
                .map_or(String::new(), |(_, v)| v.clone())
        };
        if s.step == Step::Command {
            let load = var("concurrency") + &var("request_rate");
            self.calls
                .lock()
                .unwrap()
                .push(format!("{}@{load}", var("PERFHOUSE_ARM")));
            let base = 1_700_000_000_000_000_000i64;
            let lines: Vec<String> = (self.model)(&var)
                .iter()
                .map(|&(start, latency, failed)| {
                    let s = base + (start * 1e6) as i64;
                    let e = s + (latency * 1e6) as i64;
                    format!(
                        r#"{{"metadata":{{"request_start_ns":{s},"request_end_ns":{e},"benchmark_phase":"profiling"}},"metrics":{{"request_latency":{{"value":{latency},"unit":"ms"}}}},"error":{}}}"#,
                        if failed {
                            r#"{"code":500,"type":"Overloaded"}"#
                        } else {
                            "null"
                        }
                    )
                })
                .collect();
            std::fs::write(
                Path::new(&var("PERFHOUSE_TRIAL_DIR")).join("profile_export.jsonl"),
                lines.join("\n") + "\n",
            )?;
        }
        Ok(Outcome {
            code: Some(0),
            timed_out: false,
            cancelled: false,
            wall: Duration::from_millis(5),
            usage: None,
        })
    }

    fn end(&self, _marker: &str) -> Result<Vec<String>, String> {
        Ok(Vec::new())
    }
}

fn run(dir: &Path, text: &str, exec: &dyn Executor) -> RunOutcome {
    let wh = Warehouse::open(dir.join("wh")).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut plan = Plan::parse(text).unwrap();
    plan.dir = dir.to_path_buf();
    let opts = RunOptions {
        plan: dir.join("plan.toml"),
        quiet: true,
        find_capacity: true,
        ..Default::default()
    };
    execute_with(&wh, rt.handle(), plan, &opts, exec, &AtomicBool::new(false)).unwrap()
}

#[test]
fn rounds_interleave_the_arms_and_each_arm_gets_its_own_bracket() {
    let dir = tempfile::tempdir().unwrap();
    // SLOTS servers of 100 ms under n clients, 5 requests each: up to SLOTS every request takes
    // 100 ms; beyond, the clients past SLOTS wait a whole service (200 ms), so the p99 is
    // 200 ms > 150 exactly from SLOTS + 1 clients.
    let exec = Modelled {
        model: |var: &dyn Fn(&str) -> String| {
            let n: usize = var("concurrency").parse().unwrap();
            let slots: usize = var("SLOTS").parse().unwrap();
            (0..n)
                .flat_map(|c| {
                    let lat = if c < slots { 100.0 } else { 200.0 };
                    (0..5).map(move |j| (j as f64 * lat, lat, false))
                })
                .collect()
        },
        calls: Mutex::new(Vec::new()),
    };
    let out = run(
        dir.path(),
        r#"
suite = "cap"
[run]
repeats = 2
command = "load"
[[arm]]
name = "k3"
env = { SLOTS = "3" }
[[arm]]
name = "k12"
env = { SLOTS = "12" }
[[collect]]
format = "aiperf"
path = "profile_export.jsonl"
[capacity]
load = "concurrency"
slo = ["p99(latency_ms)<=150"]
max = 64
"#,
        &exec,
    );
    // k3: 1, 2 good, 4 bad, 3 good → 3–4. k12: 1 … 8 good, 16 bad, 12 good, 14 bad, 13 bad →
    // 12–13 (1/12 = 8.3 % ≤ 10 %). Each round: both arms, repeat 0 then repeat 1.
    let rounds = [
        ("1", "1"),
        ("2", "2"),
        ("4", "4"),
        ("3", "8"),
        ("", "16"),
        ("", "12"),
        ("", "14"),
        ("", "13"),
    ];
    let mut expected = Vec::new();
    for (k3, k12) in rounds {
        for _ in 0..2 {
            if !k3.is_empty() {
                expected.push(format!("k3@{k3}"));
            }
            expected.push(format!("k12@{k12}"));
        }
    }
    assert_eq!(*exec.calls.lock().unwrap(), expected);
    assert_eq!(out.trials, 8 + 16);
    let c = out.capacity.expect("a capacity report");
    assert_eq!(c.slo, "p99(latency_ms)<=150");
    let answers: Vec<(String, Option<f64>, Option<f64>)> = c
        .series
        .iter()
        .map(|s| {
            let f = s.found.as_ref().unwrap();
            (s.series.clone(), f.lo, f.hi)
        })
        .collect();
    assert_eq!(
        answers,
        [
            ("k3".to_string(), Some(3.0), Some(4.0)),
            ("k12".to_string(), Some(12.0), Some(13.0))
        ]
    );
    // The probes' figures: k3 at 3 clients, 15 requests of 100 ms over 500 ms = 30 req/s.
    let k3 = &c.series[0];
    assert_eq!(
        k3.probes.iter().map(|p| p.load).collect::<Vec<_>>(),
        [1.0, 2.0, 4.0, 3.0]
    );
    assert_eq!(k3.probes[3].throughput, Some(30.0));
    assert_eq!(k3.probes[2].failing, ["p99(latency_ms)<=150"]);
    assert_eq!(k3.trials, 8);
    // The sweep analysis of the same trials interpolates inside the bracket: p99 at 3 is 100,
    // at 4 it is 200 (the 4th client's 5 requests of 20), so 150 is crossed half way: 3.5.
    let sweep = k3.sweep.as_ref().expect("the sweep's capacity");
    assert_eq!(sweep.load, 3.5);
    let text = perfhouse::runner::find_capacity::report_text(&c);
    assert!(
        text.contains(
            "k3: capacity 3 concurrency (bracket 3 … 4: 3 is good; 4 misses p99(latency_ms)<=150); sweep analysis of the probes: 3.50 concurrency"
        ),
        "{text}"
    );
}

#[test]
fn a_request_rate_search_stops_where_throughput_falls() {
    let dir = tempfile::tempdir().unwrap();
    // Open loop, 20 requests at the offered rate r (one every 1/r s). Up to 6 req/s all
    // complete in 50 ms; beyond, only a share (6/r)³ completes (the rest fail) in 80 ms: the
    // throughput falls while latency climbs, and the SLO (p99 of completed ≤ 500 ms) holds.
    let exec = Modelled {
        model: |var: &dyn Fn(&str) -> String| {
            let r: f64 = var("request_rate").parse().unwrap();
            let (lat, ok) = if r <= 6.0 {
                (50.0, 20)
            } else {
                (80.0, (20.0 * (6.0 / r).powi(3)).round() as usize)
            };
            (0..20)
                .map(|i| (i as f64 * 1000.0 / r, lat, i >= ok))
                .collect()
        },
        calls: Mutex::new(Vec::new()),
    };
    let out = run(
        dir.path(),
        r#"
suite = "rate"
[run]
command = "load"
[[collect]]
format = "aiperf"
path = "profile_export.jsonl"
[capacity]
load = "request_rate"
slo = ["p99(latency_ms)<=500"]
max = 64
"#,
        &exec,
    );
    // Throughput = completed ÷ (last start + latency): 4 → 20/4.8 = 4.17; 8 → 8 of 20
    // complete: 8/2.455 = 3.26 < 0.9 × 4.17 (bad); 6 → 20/3.217 = 6.22 (good); 7 → 13/2.794
    // = 4.65 (bad); 6.5 → 16/3.003 = 5.33 < 0.9 × 6.22 = 5.60 (bad); 6–6.5 is within 10 %.
    assert_eq!(
        *exec.calls.lock().unwrap(),
        [
            "default@1",
            "default@2",
            "default@4",
            "default@8",
            "default@6",
            "default@7",
            "default@6.5"
        ]
    );
    let c = out.capacity.unwrap();
    let f = c.series[0].found.as_ref().unwrap();
    assert_eq!((f.capacity, f.lo, f.hi), (Some(6.0), Some(6.0), Some(6.5)));
    assert_eq!(
        f.why,
        Some(perfhouse::runner::capacity::Bad::OverSaturated { than: 6.0 })
    );
    let x = |load: f64| {
        c.series[0]
            .probes
            .iter()
            .find(|p| p.load == load)
            .unwrap()
            .throughput
            .unwrap()
    };
    assert!((x(8.0) - 8.0 / (19.0 / 8.0 + 0.08)).abs() < 1e-6);
    assert!((x(6.5) - 16.0 / (19.0 / 6.5 + 0.08)).abs() < 1e-6);
}
