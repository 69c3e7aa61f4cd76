//! hyperfine and metrics-json ingest: values land digit for digit, failures are recorded as
//! failed trials, and metrics-json feeds a sync-vs-async comparison by payload size.

use crate::common;

use std::fs;

use common::*;

#[test]
fn hyperfine_runs_become_trials_with_exact_times() {
    let wh = tempfile::tempdir().unwrap();
    let out = ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "sleep",
            &fixture("hyperfine/params.json"),
        ],
    );
    assert!(out.contains("10 trials"), "{out}");
    assert_eq!(
        scalar(wh.path(), "select source from runs"),
        "ingest:hyperfine"
    );
    let src: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(fixture("hyperfine/params.json")).unwrap())
            .unwrap();
    for result in src["results"].as_array().unwrap() {
        let ms = result["parameters"]["ms"].as_str().unwrap();
        let rows = query(
            wh.path(),
            &format!(
                "select t.arm, t.repeat, m.value from metrics m join trials t using (run_id, trial_id) \
                 where t.params = '{{\"ms\":\"{ms}\"}}' order by t.repeat"
            ),
        );
        let times: Vec<f64> = result["times"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect();
        let got: Vec<f64> = rows.iter().map(|r| r["value"].as_f64().unwrap()).collect();
        assert_eq!(got, times, "ms={ms}");
        assert!(
            rows.iter().all(|r| r["arm"] == "sleep 0.00{ms}"),
            "{rows:?}"
        );
        let median = scalar(
            wh.path(),
            &format!("select median from metric_medians where params = '{{\"ms\":\"{ms}\"}}'"),
        );
        assert_eq!(median.as_f64().unwrap(), result["median"].as_f64().unwrap());
    }
}

#[test]
fn hyperfine_failed_runs_are_recorded_as_failed() {
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "fails",
            &fixture("hyperfine/failed.json"),
        ],
    );
    let rows = query(
        wh.path(),
        "select status, exit_code, count(*) as n from trials group by status, exit_code order by exit_code",
    );
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(
        (
            rows[0]["status"].as_str(),
            rows[0]["exit_code"].as_i64(),
            rows[0]["n"].as_i64()
        ),
        (Some("failed"), Some(3), Some(3))
    );
    assert_eq!(rows[1]["exit_code"], 137);
    assert_eq!(scalar(wh.path(), "select status from runs"), "failed");
    // Failed trials never enter medians.
    assert_eq!(scalar(wh.path(), "select count(*) from metric_medians"), 0);
}

const PPS: &str = r#"{"metrics": [
  {"name": "pps", "value": 1000000, "unit": "packets/s", "better": "higher", "arm": "sync", "params": {"payload": 64}, "repeat": 0},
  {"name": "pps", "value": 1010000, "unit": "packets/s", "better": "higher", "arm": "sync", "params": {"payload": 64}, "repeat": 1},
  {"name": "pps", "value": 990000, "unit": "packets/s", "better": "higher", "arm": "sync", "params": {"payload": 64}, "repeat": 2},
  {"name": "pps", "value": 1500000, "unit": "packets/s", "better": "higher", "arm": "async", "params": {"payload": 64}, "repeat": 0},
  {"name": "pps", "value": 1520000, "unit": "packets/s", "better": "higher", "arm": "async", "params": {"payload": 64}, "repeat": 1},
  {"name": "pps", "value": 1480000, "unit": "packets/s", "better": "higher", "arm": "async", "params": {"payload": 64}, "repeat": 2},
  {"name": "pps", "value": 500000, "unit": "packets/s", "better": "higher", "arm": "sync", "params": {"payload": 1500}, "repeat": 0},
  {"name": "pps", "value": 505000, "unit": "packets/s", "better": "higher", "arm": "sync", "params": {"payload": 1500}, "repeat": 1},
  {"name": "pps", "value": 495000, "unit": "packets/s", "better": "higher", "arm": "sync", "params": {"payload": 1500}, "repeat": 2},
  {"name": "pps", "value": 450000, "unit": "packets/s", "better": "higher", "arm": "async", "params": {"payload": 1500}, "repeat": 0},
  {"name": "pps", "value": 452000, "unit": "packets/s", "better": "higher", "arm": "async", "params": {"payload": 1500}, "repeat": 1},
  {"name": "pps", "value": 448000, "unit": "packets/s", "better": "higher", "arm": "async", "params": {"payload": 1500}, "repeat": 2}
]}"#;

#[test]
fn metrics_json_gives_a_sync_vs_async_table_by_payload() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("pps.json");
    fs::write(&f, PPS).unwrap();
    let out = ok(
        wh.path(),
        &["ingest", "--suite", "net", f.to_str().unwrap()],
    );
    assert!(out.contains("12 trials"), "{out}");
    let o = perfhouse(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "latest@sync",
            "--candidate",
            "latest@async",
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let c: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let verdict = |payload: &str| {
        rows.iter()
            .find(|r| r["params"].as_str().unwrap().contains(payload))
            .unwrap()["verdict"]
            .clone()
    };
    assert_eq!(verdict("\"64\""), "improved"); // +50 %, fully separated
    assert_eq!(verdict("\"1500\""), "regressed"); // −10 %, fully separated
    let s = &c["summaries"][0];
    assert_eq!(s["metric"], "pps");
    assert!(
        (s["mean_ratio"].as_f64().unwrap() - (1.5 + 0.9) / 2.0).abs() < 1e-12,
        "{s}"
    );
    assert!(
        (s["worst_ratio"].as_f64().unwrap() - 0.9).abs() < 1e-12,
        "{s}"
    );
    assert_eq!(s["worst_params"], r#"{"payload":"1500"}"#);
}

#[test]
fn metrics_json_errors_name_the_entry() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.json");
    fs::write(&f, r#"{"metrics": [{"name": "a", "value": 1, "unit": "", "better": "higher"}, {"name": "b", "value": 2, "unit": "", "better": "faster"}]}"#).unwrap();
    let o = perfhouse(wh.path(), &["ingest", "--suite", "s", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "field `metrics[1].better`: expected \"higher\" or \"lower\", found \"faster\""
        ),
        "{}",
        stderr(&o)
    );
    assert_eq!(scalar(wh.path(), "select count(*) from raw_runs"), 0);
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn gbench_samples_land_value_for_value() {
    let dir = sample("google-benchmark");
    // test1_run1: eleven benchmarks, one in seconds; real_time normalised to ns.
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "g",
            dir.join("test1_run1.json").to_str().unwrap(),
        ],
    );
    let src: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("test1_run1.json")).unwrap()).unwrap();
    let rows = query(
        wh.path(),
        "select t.arm, m.value from metrics m join trials t using (run_id, trial_id) where m.name = 'real_time' order by t.seq",
    );
    let expected: Vec<(String, f64)> = src["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let scale = match b["time_unit"].as_str().unwrap() {
                "ns" => 1.0,
                "us" => 1e3,
                "ms" => 1e6,
                _ => 1e9,
            };
            (
                b["name"].as_str().unwrap().to_string(),
                b["real_time"].as_f64().unwrap() * scale,
            )
        })
        .collect();
    let got: Vec<(String, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["arm"].as_str().unwrap().to_string(),
                r["value"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, expected);
    // test3_run0: BM_Two twice = two repeats of one arm.
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "g",
            dir.join("test3_run0.json").to_str().unwrap(),
        ],
    );
    let reps = query(
        wh.path(),
        "select repeat from trials where arm = 'BM_Two' order by repeat",
    );
    assert_eq!(reps.len(), 2);
    assert_eq!(
        (reps[0]["repeat"].as_i64(), reps[1]["repeat"].as_i64()),
        (Some(0), Some(1))
    );
    assert_eq!(
        scalar(
            wh.path(),
            "select median from metric_medians where arm = 'BM_Two' and name = 'real_time'"
        ),
        8.5
    );
    // test4_run0: aggregates only, a percentage (cv) kept as a ratio.
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "g",
            dir.join("test4_run0.json").to_str().unwrap(),
        ],
    );
    let m = query(
        wh.path(),
        "select name, value, unit from metrics where name like 'real_time%'",
    );
    assert_eq!(m[0]["name"], "real_time_zz");
    assert_eq!(m[0]["value"], 0.01);
    assert_eq!(m[0]["unit"], "ratio");
}

#[test]
fn gbench_nan_literals_are_read_as_missing() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bench.json");
    fs::write(
        &f,
        r#"{"context": {}, "benchmarks": [
  {"name": "BM_x/64", "run_type": "iteration", "iterations": 10, "real_time": 12.5, "cpu_time": NaN, "time_unit": "us"},
  {"name": "BM_x_BigO", "run_type": "aggregate", "cpu_coefficient": Infinity, "big_o": "N"}
]}"#,
    )
    .unwrap();
    ok(wh.path(), &["ingest", "--suite", "g", f.to_str().unwrap()]);
    let rows = query(
        wh.path(),
        "select t.arm, t.params, m.name, m.value from metrics m join trials t using (run_id, trial_id)",
    );
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["arm"], "BM_x");
    assert_eq!(rows[0]["params"], r#"{"arg0":"64"}"#);
    assert_eq!(rows[0]["value"], 12500.0);
    assert_eq!(
        scalar(wh.path(), "select source from runs"),
        "ingest:gbench"
    );
}

#[test]
// The times as the file writes them: 17 significant digits (the reporter's max_digits10).
#[allow(clippy::excessive_precision)]
fn gbench_rows_skipped_with_an_error_or_a_message_land_nothing_and_are_said_once() {
    // skip_with_error.json, written by Google Benchmark v1.9.5 (see its README): BM_test and
    // BM_test_ranged_fo called SkipWithError, BM_needs_avx512 SkipWithMessage; the reporter
    // still wrote `real_time`/`cpu_time` 0 for them. Only the two benchmarks that ran land.
    let wh = tempfile::tempdir().unwrap();
    let f = sample("google-benchmark/skip_with_error.json");
    let o = perfhouse(wh.path(), &["ingest", "--suite", "g", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].ends_with(
            "skip_with_error.json: 3 benchmark row(s) without figures land nothing: \
             `BM_test` (line 56): error \"Resource is not good!\"; \
             `BM_test_ranged_fo` (line 72): error \"Resource is not good!\"; \
             `BM_needs_avx512` (line 88): skipped \"AVX-512 not available on this CPU\""
        ),
        "{err}"
    );
    let rows = query(
        wh.path(),
        "select t.arm, t.params, m.name, m.value from metrics m join trials t using (run_id, trial_id) \
         order by t.seq, m.name",
    );
    let got: Vec<(String, String, String, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["arm"].as_str().unwrap().to_string(),
                r["params"].as_str().unwrap_or("{}").to_string(),
                r["name"].as_str().unwrap().to_string(),
                r["value"].as_f64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("BM_StringCreation", "{}", "cpu_time", 2.4298177768520919),
        ("BM_StringCreation", "{}", "real_time", 3.1127041768030708),
        (
            "BM_StringCopy",
            r#"{"arg0":"8"}"#,
            "cpu_time",
            4.4718198563284028,
        ),
        (
            "BM_StringCopy",
            r#"{"arg0":"8"}"#,
            "real_time",
            5.7466486066668239,
        ),
    ];
    let want: Vec<(String, String, String, f64)> = want
        .iter()
        .map(|(a, p, n, v)| (a.to_string(), p.to_string(), n.to_string(), *v))
        .collect();
    assert_eq!(got, want);
    assert_eq!(scalar(wh.path(), "select count(*) from trials"), 2);
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn gbench_files_without_a_figure_are_refused_naming_their_rows() {
    // all_skipped.json (written by Google Benchmark, see its README): six repetitions, every
    // one skipped; the first, BM_test, opens on line 42.
    let wh = tempfile::tempdir().unwrap();
    let f = sample("google-benchmark/all_skipped.json");
    let o = perfhouse(wh.path(), &["ingest", "--suite", "g", f.to_str().unwrap()]);
    assert!(!o.status.success(), "all_skipped.json landed");
    let err = stderr(&o);
    assert!(
        err.contains(
            "all_skipped.json:42: nothing to land: none of its 6 benchmark row(s) has a figure"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "`BM_test` (line 42): error \"Resource is not good!\"; `BM_test` (line 58): error"
        ) && err.contains(
            "`BM_needs_avx512` (line 122): skipped \"AVX-512 not available on this CPU\""
        ),
        "{err}"
    );
    assert_eq!(scalar(wh.path(), "select count(*) from runs"), 0);

    // test4_run.json (google/benchmark's own compare.py input): 12 rows with names and
    // indices and no time at all — the "12 empty trials" of issue 30. Refused, naming ten of
    // them (the first on line 3) and counting the other two.
    let f = sample("google-benchmark/test4_run.json");
    let o = perfhouse(wh.path(), &["ingest", "--suite", "g", f.to_str().unwrap()]);
    assert!(!o.status.success(), "test4_run.json landed");
    let err = stderr(&o);
    assert!(
        err.contains(
            "test4_run.json:3: nothing to land: none of its 12 benchmark row(s) has a figure"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "`99 family 0 instance 0 repetition 0` (line 3): no real_time, cpu_time, items_per_second or bytes_per_second"
        ) && err.contains("`90 family 1 instance 1 repetition 0` (line 74)")
            && err.contains("; and 2 more"),
        "{err}"
    );
    assert_eq!(scalar(wh.path(), "select count(*) from runs"), 0);
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn pytest_benchmark_statistics_land_value_for_value() {
    let wh = tempfile::tempdir().unwrap();
    let f = sample(
        "pytest-benchmark/0030_5b78858eb718649a31fb93d8dc96ca2cee41a4cd_20150815_030419_uncommitted-changes.json",
    );
    ok(wh.path(), &["ingest", "--suite", "py", f.to_str().unwrap()]);
    assert_eq!(
        scalar(wh.path(), "select source from runs"),
        "ingest:pytest-benchmark"
    );
    // commit_info of the file becomes the run's commit (dirty: the file says so).
    let r = query(wh.path(), "select git_commit, git_dirty from runs");
    assert_eq!(
        r[0]["git_commit"],
        "5b78858eb718649a31fb93d8dc96ca2cee41a4cd"
    );
    assert_eq!(r[0]["git_dirty"], true);
    let t = query(wh.path(), "select arm, params from trials");
    assert_eq!(t[0]["arm"], "test_xfast_parametrized");
    assert_eq!(t[0]["params"], r#"{"param":"0"}"#);
    // Straight from the file's stats.
    assert_eq!(
        scalar(wh.path(), "select value from metrics where name = 'median'"),
        2.2016379230260297e-07
    );
    assert_eq!(
        scalar(wh.path(), "select value from metrics where name = 'mean'"),
        2.61205074138546e-07
    );
    assert_eq!(
        scalar(wh.path(), "select value from metrics where name = 'rounds'"),
        9710.0
    );
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn criterion_legacy_layout_point_estimates() {
    let wh = tempfile::tempdir().unwrap();
    let root = sample("criterion/legacy-book-Fibonacci");
    // A directory: only `new/estimates.json` files are benchmarks (change/ and tukey-only
    // directories are not).
    let out = ok(
        wh.path(),
        &["ingest", "--suite", "fib", root.to_str().unwrap()],
    );
    assert!(out.contains("1 trials"), "{out}");
    assert_eq!(scalar(wh.path(), "select arm from trials"), "Recursive");
    assert_eq!(
        scalar(wh.path(), "select params from trials"),
        r#"{"group":"Fibonacci"}"#
    );
    // Capitalised legacy keys, values straight from estimates.json.
    assert_eq!(
        scalar(
            wh.path(),
            "select value from metrics where name = 'mean_ns'"
        ),
        19284.21673781045
    );
    assert_eq!(
        scalar(
            wh.path(),
            "select value from metrics where name = 'median_ns'"
        ),
        19158.025568181816
    );
    assert_eq!(
        scalar(wh.path(), "select source from runs"),
        "ingest:criterion"
    );
}

#[test]
fn criterion_current_layout_and_an_ab_between_functions() {
    let wh = tempfile::tempdir().unwrap();
    let root = repo().join("tests/fixtures/criterion");
    let out = ok(
        wh.path(),
        &["ingest", "--suite", "sum", root.to_str().unwrap()],
    );
    assert!(out.contains("4 trials"), "{out}");
    let est: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(root.join("sum/iter/4096/new/estimates.json")).unwrap(),
    )
    .unwrap();
    let got = scalar(
        wh.path(),
        "select m.value from metrics m join trials t using (run_id, trial_id) \
         where t.arm = 'iter' and t.params like '%\"4096\"%' and m.name = 'mean_ns'",
    );
    assert_eq!(got, est["mean"]["point_estimate"]);
    let params = scalar(
        wh.path(),
        "select params from trials where arm = 'loop' and params like '%\"64\"%'",
    );
    assert_eq!(params, r#"{"group":"sum","value":"64"}"#);
    // One measurement per side: the comparison runs and says it cannot judge noise.
    let o = perfhouse(
        wh.path(),
        &[
            "compare",
            "--baseline",
            "latest@loop",
            "--candidate",
            "latest@iter",
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let c: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = c["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(
        rows.iter().all(|r| r["verdict"] == "inconclusive"),
        "{rows:#?}"
    );
}
