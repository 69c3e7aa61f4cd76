//! Every derived-figure view against values computed by hand on a small fixture.
#![allow(clippy::field_reassign_with_default)] // the fixture reads best built field by field

use std::collections::BTreeMap;

use perfhouse::model::*;
use perfhouse::query::Query;
use perfhouse::warehouse::Warehouse;
use serde::Deserialize;

const MS: i64 = 1_000_000;
const S: i64 = 1_000_000_000;

fn trial(id: i32, arm: &str, repeat: i32, discarded: bool) -> Trial {
    let params = BTreeMap::from([("concurrency".to_string(), "2".to_string())]);
    Trial {
        discarded,
        discard_reason: discarded.then(|| "cold start".to_string()),
        concurrency: Some(2),
        exit_code: Some(0),
        ..Trial::measured(id, arm, params, repeat)
    }
}

fn req(trial_id: i32, start: i64, latency: i64, ttft: i64, itl: i64) -> Request {
    Request {
        trial_id,
        phase: Some(Phase::Measured),
        credit_ns: Some(start - MS),
        start_ns: start,
        end_ns: Some(start + latency),
        ttft_ns: Some(ttft),
        itl_ns: Some(itl),
        latency_ns: Some(latency),
        input_tokens: Some(200),
        output_tokens: Some(40),
        ..Default::default()
    }
}

fn cpu(
    trial_id: i32,
    t_ns: i64,
    scope: &str,
    user: i64,
    system: i64,
    idle: i64,
    total: i64,
) -> CpuSample {
    CpuSample {
        trial_id,
        t_ns,
        scope: scope.into(),
        user_ticks: user,
        system_ticks: system,
        idle_ticks: idle,
        total_ticks: total,
    }
}

fn run(id: &str, started_at_us: i64) -> Run {
    Run {
        finished_at_us: started_at_us + 1,
        ingested_at_us: started_at_us + 2,
        ..Run::new(id, "fx", "test", started_at_us, format!("digest-{id}"))
    }
}

/// Trial 1 (arm A, kept), by hand:
/// * measured requests: four completed (latency 100/200/300/400 ms, TTFT 20/30/40/50 ms,
///   ITL 2/4/6/8 ms, 40 output tokens each, sent 1 ms after credit), one error ending at 2.0 s,
///   one cancelled; one warmup request outside the window.
/// * window 1.0 s → 2.0 s = 1 s; throughput 4 req/s; output 160 tok/s; mean latency 250 ms;
///   p50 250, p90 370, p99 397 (linear interpolation); Little's law 4 × 0.25 / 2 = 0.5.
/// * cpu0 1 − 50/100 = 0.5 busy, cpu1 1 − 10/100 = 0.9 busy → cores_busy 1.4 (scope `cpu`,
///   the aggregate, is not a core).
/// * frontend pids 100 (50 ticks) + 101 (10 ticks) over 1 s → 0.6 cores, 600 ms / 4 = 150 ms/req.
///
/// Trial 2 (arm A, kept): two requests from 0: 100 ms and 300 ms → window 0.3 s, 6.667 req/s,
/// p50 200 ms, mean 200 ms → Little's law 6.667 × 0.2 / 2 = 0.667.
/// Trial 0 (arm A, discarded cold start): one 1000 ms request; must not enter medians.
fn fixture() -> (Run, RunData) {
    let mut d = RunData::default();
    d.trials = vec![
        trial(0, "A", 0, true),
        trial(1, "A", 1, false),
        trial(2, "A", 2, false),
    ];
    d.requests.push(req(0, 0, 1000 * MS, 10 * MS, MS));
    let mut warm = req(1, 0, 10 * MS, MS, MS);
    warm.phase = Some(Phase::Warmup);
    d.requests.push(warm);
    for (i, start) in [1000 * MS, 1050 * MS, 1200 * MS, 1300 * MS]
        .into_iter()
        .enumerate()
    {
        let k = i as i64 + 1;
        d.requests
            .push(req(1, start, 100 * k * MS, (10 + 10 * k) * MS, 2 * k * MS));
    }
    let mut err = req(1, 1400 * MS, 600 * MS, 0, 0);
    err.error_code = Some(500);
    err.error_type = Some("HTTPError".into());
    d.requests.push(err);
    let mut cancel = req(1, 1500 * MS, 100 * MS, 0, 0);
    cancel.cancelled = true;
    cancel.error_code = Some(499);
    d.requests.push(cancel);
    d.requests.push(req(2, 0, 100 * MS, 10 * MS, MS));
    d.requests.push(req(2, 0, 300 * MS, 10 * MS, MS));
    // Samples at the trial's measured window (1.0 s to 2.0 s) and, for two scopes, one more
    // during the load generator's wind-down, outside the window: it must not count.
    d.cpu_samples = vec![
        cpu(1, S, "cpu0", 0, 0, 100, 200),
        cpu(1, 2 * S, "cpu0", 0, 0, 150, 300),
        cpu(1, 3 * S, "cpu0", 0, 0, 151, 400),
        cpu(1, S, "cpu1", 0, 0, 0, 0),
        cpu(1, 2 * S, "cpu1", 0, 0, 10, 100),
        cpu(1, S, "cpu", 0, 0, 0, 0),
        cpu(1, 2 * S, "cpu", 0, 0, 999, 1000),
        cpu(1, S, "proc:frontend:100", 0, 0, 0, 0),
        cpu(1, 2 * S, "proc:frontend:100", 30, 20, 0, 0),
        cpu(1, 3 * S, "proc:frontend:100", 90, 20, 0, 0),
        cpu(1, S, "proc:frontend:101", 10, 0, 0, 0),
        cpu(1, 2 * S, "proc:frontend:101", 20, 0, 0, 0),
    ];
    let metric = |trial_id, value| Metric {
        trial_id,
        name: "gbps".into(),
        value,
        unit: "GB/s".into(),
        better: Better::Higher,
        origin: "test".into(),
        version: None,
    };
    d.metrics = vec![metric(0, 1.0), metric(1, 10.0), metric(2, 12.0)];
    d.notes = vec!["first note".into()];
    (run("r-late", 2_000), d)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}

macro_rules! assert_close {
    ($a:expr, $b:expr) => {
        assert!(
            close($a, $b),
            "{} = {} but expected {}",
            stringify!($a),
            $a,
            $b
        )
    };
}

async fn setup() -> (tempfile::TempDir, Query) {
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    let (r, d) = fixture();
    wh.append_run(&r, &d).unwrap();
    // An earlier run of the same suite: numbered #1 although it landed second.
    let mut early = RunData::default();
    early.trials = vec![trial(0, "B", 0, false)];
    wh.append_run(&run("r-early", 1_000), &early).unwrap();
    let q = Query::open(&wh).await.unwrap();
    (dir, q)
}

#[derive(Deserialize, Debug)]
struct TrialFig {
    trial_id: i32,
    requests: Option<i64>,
    completed: Option<i64>,
    errors: Option<i64>,
    cancelled: Option<i64>,
    window_s: Option<f64>,
    throughput_rps: Option<f64>,
    output_tps: Option<f64>,
    latency_mean_ms: Option<f64>,
    latency_p50_ms: Option<f64>,
    latency_p90_ms: Option<f64>,
    latency_p99_ms: Option<f64>,
    ttft_p50_ms: Option<f64>,
    itl_p50_ms: Option<f64>,
    client_delay_p50_ms: Option<f64>,
    cores_busy: Option<f64>,
    littles_law_ratio: Option<f64>,
}

#[tokio::test]
async fn trial_figures_match_hand_computed_values() {
    let (_dir, q) = setup().await;
    let rows: Vec<TrialFig> = q
        .rows("SELECT * FROM trial_figures WHERE run_id = 'r-late' ORDER BY trial_id")
        .await
        .unwrap();
    assert_eq!(rows.len(), 3);
    let t1 = &rows[1];
    assert_eq!(t1.trial_id, 1);
    assert_eq!(
        (t1.requests, t1.completed, t1.errors, t1.cancelled),
        (Some(6), Some(4), Some(1), Some(1))
    );
    assert_close!(t1.window_s.unwrap(), 1.0);
    assert_close!(t1.throughput_rps.unwrap(), 4.0);
    assert_close!(t1.output_tps.unwrap(), 160.0);
    assert_close!(t1.latency_mean_ms.unwrap(), 250.0);
    assert_close!(t1.latency_p50_ms.unwrap(), 250.0);
    assert_close!(t1.latency_p90_ms.unwrap(), 370.0);
    assert_close!(t1.latency_p99_ms.unwrap(), 397.0);
    assert_close!(t1.ttft_p50_ms.unwrap(), 35.0);
    assert_close!(t1.itl_p50_ms.unwrap(), 5.0);
    assert_close!(t1.client_delay_p50_ms.unwrap(), 1.0);
    assert_close!(t1.cores_busy.unwrap(), 1.4);
    assert_close!(t1.littles_law_ratio.unwrap(), 0.5);
    let t2 = &rows[2];
    assert_close!(t2.window_s.unwrap(), 0.3);
    assert_close!(t2.throughput_rps.unwrap(), 2.0 / 0.3);
    assert_close!(t2.latency_p50_ms.unwrap(), 200.0);
    assert_close!(t2.littles_law_ratio.unwrap(), (2.0 / 0.3) * 0.2 / 2.0);
    assert_eq!(t2.cores_busy, None, "no CPU samples, no figure");
}

#[derive(Deserialize, Debug)]
struct Proc {
    process: String,
    cpu_s: f64,
    proc_cores: f64,
    cpu_ms_per_req: f64,
}

#[tokio::test]
async fn process_cpu_per_request() {
    let (_dir, q) = setup().await;
    let rows: Vec<Proc> = q.rows("SELECT * FROM trial_proc").await.unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].process, "frontend");
    assert_close!(rows[0].cpu_s, 0.6);
    assert_close!(rows[0].proc_cores, 0.6);
    assert_close!(rows[0].cpu_ms_per_req, 150.0);

    #[derive(Deserialize, Debug)]
    struct ProcMedian {
        arm: String,
        process: String,
        n_trials: i64,
        proc_cores: f64,
        cpu_ms_per_req: f64,
    }
    let m: Vec<ProcMedian> = q.rows("SELECT * FROM arm_proc_medians").await.unwrap();
    assert_eq!(m.len(), 1, "{m:?}");
    assert_eq!(
        (m[0].arm.as_str(), m[0].process.as_str(), m[0].n_trials),
        ("A", "frontend", 1)
    );
    assert_close!(m[0].proc_cores, 0.6);
    assert_close!(m[0].cpu_ms_per_req, 150.0);
}

#[tokio::test]
async fn cpu_over_time_gives_each_interval_by_hand() {
    // Trial 1's samples (all of them, not only the window's):
    // at 2 s: cpu0 1 − 50/100 = 0.5 plus cpu1 1 − 10/100 = 0.9 → 1.4 cores busy;
    //         frontend (50 + 10) ticks / 100 / 1 s = 0.6 cores;
    // at 3 s: cpu0 1 − 1/100 = 0.99 (cpu1 has no sample); frontend pid 100 60 ticks → 0.6.
    let (_dir, q) = setup().await;
    #[derive(Deserialize, Debug)]
    struct Point {
        t_ns: i64,
        series: String,
        cores: f64,
    }
    let rows: Vec<Point> = q
        .rows("SELECT t_ns, series, cores FROM cpu_over_time WHERE trial_id = 1 ORDER BY series, t_ns")
        .await
        .unwrap();
    let got: Vec<(i64, &str)> = rows
        .iter()
        .map(|r| (r.t_ns / S, r.series.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (2, "cores busy"),
            (3, "cores busy"),
            (2, "frontend"),
            (3, "frontend")
        ]
    );
    assert_close!(rows[0].cores, 1.4);
    assert_close!(rows[1].cores, 0.99);
    assert_close!(rows[2].cores, 0.6);
    assert_close!(rows[3].cores, 0.6);
}

#[derive(Deserialize, Debug)]
struct Median {
    arm: String,
    params: String,
    n_trials: i64,
    throughput_rps: f64,
    latency_p50_ms: f64,
    littles_law_ratio: f64,
}

#[tokio::test]
async fn arm_medians_skip_discarded_trials() {
    let (_dir, q) = setup().await;
    let rows: Vec<Median> = q
        .rows("SELECT * FROM arm_medians WHERE run_id = 'r-late'")
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    let m = &rows[0];
    assert_eq!(
        (m.arm.as_str(), m.params.as_str(), m.n_trials),
        ("A", r#"{"concurrency":"2"}"#, 2)
    );
    assert_close!(m.throughput_rps, (4.0 + 2.0 / 0.3) / 2.0);
    assert_close!(m.latency_p50_ms, (250.0 + 200.0) / 2.0);
    assert_close!(m.littles_law_ratio, (0.5 + (2.0 / 0.3) * 0.2 / 2.0) / 2.0);

    #[derive(Deserialize)]
    struct M {
        name: String,
        n_trials: i64,
        median: f64,
    }
    let ms: Vec<M> = q.rows("SELECT * FROM metric_medians").await.unwrap();
    assert_eq!(ms.len(), 1);
    assert_eq!((ms[0].name.as_str(), ms[0].n_trials), ("gbps", 2));
    assert_close!(ms[0].median, 11.0);
}

#[tokio::test]
async fn runs_are_numbered_by_start_time_within_suite() {
    let (_dir, q) = setup().await;
    #[derive(Deserialize)]
    struct R {
        run_id: String,
        run_no: u64,
        suite: String,
    }
    let rows: Vec<R> = q
        .rows("SELECT run_id, run_no, suite FROM runs ORDER BY run_no")
        .await
        .unwrap();
    let got: Vec<_> = rows
        .iter()
        .map(|r| (r.run_id.as_str(), r.run_no, r.suite.as_str()))
        .collect();
    assert_eq!(got, vec![("r-early", 1, "fx"), ("r-late", 2, "fx")]);
    #[derive(Deserialize)]
    struct N {
        text: String,
    }
    let notes: Vec<N> = q
        .rows("SELECT text FROM annotations WHERE run_id = 'r-late'")
        .await
        .unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].text, "first note");
}

/// A writer that dies after the trials file and before the runs file leaves nothing visible.
#[tokio::test]
async fn half_written_run_is_invisible() {
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    let (r, d) = fixture();
    wh.append_run(&r, &d).unwrap();
    let batch = perfhouse::warehouse::batch::trials("r-dead", &d.trials).unwrap();
    let part = dir.path().join("trials/suite=fx");
    perfhouse::warehouse::write_atomic(&part, "r-dead-0.parquet", &[batch]).unwrap();
    let q = Query::open(&wh).await.unwrap();
    #[derive(Deserialize)]
    struct C {
        n: i64,
    }
    let visible: Vec<C> = q.rows("SELECT count(*) AS n FROM trials").await.unwrap();
    let raw: Vec<C> = q
        .rows("SELECT count(*) AS n FROM raw_trials")
        .await
        .unwrap();
    assert_eq!((visible[0].n, raw[0].n), (3, 6));
}

/// A run id that is already there is refused, and nothing on disk changes.
#[tokio::test]
async fn existing_files_are_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    let (r, d) = fixture();
    wh.append_run(&r, &d).unwrap();
    let part = dir.path().join("requests/suite=fx");
    let listing = || {
        let mut l: Vec<_> = std::fs::read_dir(&part)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        l.sort();
        l
    };
    let landed = listing();
    assert_eq!(landed.len(), 1, "{landed:?}");
    let before = std::fs::read(&landed[0]).unwrap();
    let mut again = r.clone();
    again.input_digest = "another digest".into();
    let err = wh
        .append_run(&again, &RunData::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("run r-late is already in the warehouse"),
        "{err}"
    );
    // Even a writer that skips that check cannot rename over a landed file: the same bytes
    // land under the same name (their checksum's), and are refused.
    let batch = perfhouse::warehouse::batch::requests("r-late", &d.requests).unwrap();
    let err = perfhouse::warehouse::write_atomic(&part, "r-late-0.parquet", &[batch])
        .unwrap_err()
        .to_string();
    assert!(err.contains("already exists"), "{err}");
    // Other bytes under the same stem land beside it, under their own checksum.
    let batch = perfhouse::warehouse::batch::trials("x", &d.trials).unwrap();
    let other = perfhouse::warehouse::write_atomic(&part, "r-late-0.parquet", &[batch]).unwrap();
    assert_ne!(other, landed[0]);
    assert_eq!(std::fs::read(&landed[0]).unwrap(), before);
    assert!(
        listing()
            .iter()
            .all(|p| p.extension().unwrap() == "parquet")
    );
}

/// A session reads one set of committed runs, the one there when it opened: a run that lands
/// while it is open shows in none of its views (not in `runs`, none of its rows), and shows in
/// the next session. (perfhouse evaluates the views' committed-runs clause over a snapshot of
/// `raw_runs`: `query::COMMITTED_SQL`.)
#[tokio::test]
async fn a_session_sees_the_runs_committed_when_it_opened() {
    let dir = tempfile::tempdir().unwrap();
    let wh = Warehouse::open(dir.path()).unwrap();
    let (r, d) = fixture();
    wh.append_run(&r, &d).unwrap();
    let q = Query::open(&wh).await.unwrap();
    let n = d.requests.len() as i64;
    let mut late = r.clone();
    late.run_id = "r-later".into();
    late.input_digest = "another input".into();
    wh.append_run(&late, &d).unwrap();
    // The session's first look at the requests files comes after the commit: it lists the new
    // run's file (raw_requests), and still counts none of its rows.
    assert_eq!(counts(&q).await, (1, n, d.trials.len() as i64, 2 * n));
    drop(q);
    let q = Query::open(&wh).await.unwrap();
    assert_eq!(
        counts(&q).await,
        (2, 2 * n, 2 * d.trials.len() as i64, 2 * n)
    );
}

/// Committed runs, their requests and trials, and the request rows on disk, as one session
/// sees them.
async fn counts(q: &Query) -> (i64, i64, i64, i64) {
    #[derive(Deserialize)]
    struct C {
        runs: i64,
        requests: i64,
        trials: i64,
        raw: i64,
    }
    let sql = "SELECT (SELECT count(*) FROM runs) AS runs, \
               (SELECT count(*) FROM requests) AS requests, \
               (SELECT count(*) FROM trials) AS trials, \
               (SELECT count(*) FROM raw_requests) AS raw";
    let rows: Vec<C> = q.rows(sql).await.unwrap();
    let c = &rows[0];
    (c.runs, c.requests, c.trials, c.raw)
}

/// Every view named after a table keeps committed runs with the one clause perfhouse swaps
/// for its snapshot (`query::COMMITTED_SQL`): a view whose text drifted from it would still be
/// right, but would fall back to a hash join over every row.
#[test]
fn table_views_use_the_committed_clause() {
    use perfhouse::query::{COMMITTED_SQL, VIEWS};
    let tables: Vec<&str> = perfhouse::warehouse::Table::ALL
        .iter()
        .map(|t| t.name())
        .filter(|t| *t != "runs")
        .collect();
    for table in &tables {
        let (_, sql) = VIEWS
            .iter()
            .find(|(v, _)| v == table)
            .unwrap_or_else(|| panic!("no view named {table}"));
        assert!(sql.contains(COMMITTED_SQL), "view {table}: {sql}");
    }
}
