//! Fixtures made here (the "## Made here" sections of tests/fixtures/{go-bench,catch2,
//! benchmarkjs,hyperfine,samples/google-benchmark}/README.md): real outputs of `go test -bench`
//! (Go 1.19), Catch2 2.13.10, Google Benchmark 1.7.1, benchmark.js 2.1.4 and hyperfine 1.15.0,
//! run here on benchmarks of our own. Each file is ingested with its `--format`; every metric
//! row must be the one the file holds, converted as the adapter's doc comment says. The
//! expected rows were computed from the files with Python (re, json, decimal, ElementTree),
//! not by perfhouse; values as the files print them (a decimal time in `us` scaled to ns as a
//! decimal, a Google Benchmark time in `us` multiplied by 1e3 in f64, as the adapter does).

#![allow(clippy::excessive_precision)]

use std::path::Path;

use crate::common;

use common::*;

/// (arm, params JSON, repeat, metric, value, unit, better).
type Row = (String, String, i64, String, f64, String, String);

/// A [`Row`] as written below.
type R = (
    &'static str,
    &'static str,
    i64,
    &'static str,
    f64,
    &'static str,
    &'static str,
);

/// Ingests `file` (under tests/fixtures/) with `--format format`, suite `s`, into a fresh
/// warehouse: the warehouse, perfhouse's stderr, and every metric row in trial order, each
/// trial's metrics by name.
fn land(format: &str, file: &str) -> (tempfile::TempDir, String, Vec<Row>) {
    let wh = tempfile::tempdir().unwrap();
    let f = fixture(file);
    let o = perfhouse(
        wh.path(),
        &["ingest", "--format", format, &f, "--suite", "s"],
    );
    assert!(
        o.status.success(),
        "{file} did not land:\n{}\n{}",
        stdout(&o),
        stderr(&o)
    );
    let rows = rows(wh.path());
    (wh, stderr(&o), rows)
}

fn rows(wh: &Path) -> Vec<Row> {
    query(
        wh,
        "select t.arm, t.params, t.repeat, m.name, m.value, m.unit, m.better \
         from metrics m join trials t using (run_id, trial_id) order by t.trial_id, m.name",
    )
    .iter()
    .map(|r| {
        (
            r["arm"].as_str().unwrap().to_string(),
            r["params"].as_str().unwrap_or("{}").to_string(),
            r["repeat"].as_i64().unwrap(),
            r["name"].as_str().unwrap().to_string(),
            r["value"].as_f64().unwrap(),
            r["unit"].as_str().unwrap().to_string(),
            r["better"].as_str().unwrap().to_string(),
        )
    })
    .collect()
}

fn want(rows: &[R]) -> Vec<Row> {
    rows.iter()
        .map(|(a, p, r, n, v, u, b)| {
            (
                a.to_string(),
                p.to_string(),
                *r,
                n.to_string(),
                *v,
                u.to_string(),
                b.to_string(),
            )
        })
        .collect()
}

/// (arm, params JSON, status) of every trial, in order.
fn trials(wh: &Path) -> Vec<(String, String, String)> {
    query(
        wh,
        "select arm, params, status from trials order by trial_id",
    )
    .iter()
    .map(|r| {
        (
            r["arm"].as_str().unwrap().to_string(),
            r["params"].as_str().unwrap_or("{}").to_string(),
            r["status"].as_str().unwrap().to_string(),
        )
    })
    .collect()
}

/// The `warning:` lines of perfhouse's stderr.
fn warnings(err: &str) -> Vec<&str> {
    err.lines().filter(|l| l.starts_with("warning:")).collect()
}

#[test]
fn made_here_go_bench_count3_sub_benchmarks_set_bytes_and_report_metric() {
    // `go test -bench . -count 3`: 3 lines each of BenchmarkSum/size=64-2,
    // BenchmarkSum/size=1024-2 (ns/op, MB/s) and BenchmarkJoin-2 (ns/op, 4.000 parts/op), in
    // that order; `pkg: madehere/gobench` is a param, goos/goarch/cpu are not.
    let (_wh, _, r) = land("go-bench", "go-bench/made-here_go1.19_count3.txt");
    assert_eq!(r, want(GO_COUNT3));
}

#[test]
fn made_here_go_bench_benchmem_count3() {
    // The same with -benchmem: `B/op` and `allocs/op` after the other columns (after the
    // custom `parts/op` on BenchmarkJoin: 24 B/op, 1 allocs/op; 0 and 0 for BenchmarkSum).
    let (_wh, _, r) = land("go-bench", "go-bench/made-here_go1.19_benchmem_count3.txt");
    assert_eq!(r, want(GO_BENCHMEM_COUNT3));
}

/// The one benchmark of the console file whose name Catch2 2.13.10 wrapped: the name's start
/// alone on its line, then `vector  100  305  4.3615 ms` (the numbers after the name's end).
const WRAPPED: &str = "push_back 256 ints into a reserved vector";

#[test]
fn made_here_catch2_v2_console_means_std_devs_and_sections() {
    // Catch2 v2.13.10: test case `Fibonacci`, then `Vectors` with sections `push_back` and
    // `sort` (each section a test-case block of its own); `us` values scaled to ns as decimals
    // (`1.79423 us` → 1794.23). The wrapped benchmark is checked below.
    let (_wh, _, r) = land("catch2", "catch2/made-here_catch2-2.13.10_console.txt");
    let unwrapped: Vec<Row> = r
        .into_iter()
        .filter(|x| x.1 != r#"{"test_case":"Vectors / push_back"}"#)
        .collect();
    assert_eq!(unwrapped, want(CATCH2_CONSOLE));
}

#[test]
fn made_here_catch2_v2_console_name_wrapped_before_its_numbers() {
    // Catch2 2.13.10 prints a name longer than its column alone on one line, and its end on
    // the next, before the samples: `push_back 256 ints into a reserved` / `vector  100  305
    // 4.3615 ms` / mean line / std dev line. One benchmark, under its whole name.
    let (_wh, _, r) = land("catch2", "catch2/made-here_catch2-2.13.10_console.txt");
    let pushed: Vec<Row> = r
        .into_iter()
        .filter(|x| x.1 == r#"{"test_case":"Vectors / push_back"}"#)
        .collect();
    assert_eq!(pushed, want(CATCH2_CONSOLE_WRAPPED));
    assert_eq!(pushed[0].0, WRAPPED);
}

#[test]
fn made_here_catch2_v2_console_failed_benchmark_line() {
    // `fib 5 then throw                     Benchmark failed (deliberate failure) ` is one line
    // without figures; `fib 5` after it lands as it is printed (`0.00841114 ns` after a single
    // space).
    let (_wh, _, r) = land(
        "catch2",
        "catch2/made-here_catch2-2.13.10_failed_console.txt",
    );
    assert_eq!(r, want(CATCH2_FAILED_CONSOLE));
}

#[test]
fn made_here_catch2_v2_xml_catch_group_root_and_sections() {
    // A real Catch2 v2 XML report: `<Catch name="bench">`, `<Group name="bench">`, test case
    // `Vectors` with `<Section>`s around its benchmarks. Values in ns as written.
    let (wh, err, r) = land("catch2-xml", "catch2/made-here_catch2-2.13.10_xml.xml");
    assert_eq!(r, want(CATCH2_XML));
    assert!(warnings(&err).is_empty(), "{err}");
    assert!(trials(wh.path()).iter().all(|t| t.2 == "ok"));
}

#[test]
fn made_here_catch2_v2_xml_failed_benchmark() {
    // `<BenchmarkResults name="fib 5 then throw">` (line 5) holds only `<failed
    // message="deliberate failure"/>`: a failed trial without figures, said in one warning.
    let (wh, err, r) = land("catch2-xml", "catch2/made-here_catch2-2.13.10_failed.xml");
    assert_eq!(r, want(CATCH2_FAILED_XML));
    let tc = r#"{"test_case":"Throws"}"#.to_string();
    assert_eq!(
        trials(wh.path()),
        [
            (
                "fib 5 then throw".to_string(),
                tc.clone(),
                "failed".to_string()
            ),
            ("fib 5".to_string(), tc, "ok".to_string()),
        ]
    );
    let w = warnings(&err);
    assert_eq!(w.len(), 1, "{err}");
    assert!(
        w[0].ends_with(
            "made-here_catch2-2.13.10_failed.xml: 1 benchmark(s) failed in Catch2 and land as \
             failed trials without figures: `fib 5 then throw` (line 5): deliberate failure"
        ),
        "{err}"
    );
}

#[test]
fn made_here_gbench_repetitions_args_family_and_skip_with_error() {
    // --benchmark_repetitions=3: the three repetitions of each benchmark are trials (repeats
    // 0–2), their aggregates (mean, median, stddev, cv) are left out; BM_Sum/64/1 → arm BM_Sum,
    // arg0=64 arg1=1; BM_StringCopy/8 is in `us` (×1e3 to ns). BM_NeedsResource's three rows
    // (SkipWithError, real_time 0) land nothing and are named in one warning.
    let (wh, err, r) = land(
        "gbench",
        "samples/google-benchmark/made-here_gbench-1.7.1_repetitions3.json",
    );
    assert_eq!(r, want(GBENCH_REPETITIONS3));
    assert_eq!(trials(wh.path()).len(), 12);
    let w = warnings(&err);
    assert_eq!(w.len(), 1, "{err}");
    assert!(
        w[0].ends_with(
            "made-here_gbench-1.7.1_repetitions3.json: 3 benchmark row(s) without figures land \
             nothing: `BM_NeedsResource` (line 489): error \"resource not available\"; \
             `BM_NeedsResource` (line 505): error \"resource not available\"; \
             `BM_NeedsResource` (line 521): error \"resource not available\""
        ),
        "{err}"
    );
}

#[test]
fn made_here_gbench_aggregates_only() {
    // --benchmark_report_aggregates_only=true: no repetitions, so each aggregate row lands as
    // `<figure>_<aggregate>`; the cv row (`aggregate_unit: percentage`) is a fraction, kept as
    // written. Names and values here; the cv rows' units below.
    let (_wh, err, r) = land(
        "gbench",
        "samples/google-benchmark/made-here_gbench-1.7.1_aggregates_only.json",
    );
    let got: Vec<(String, String, String, f64)> = r
        .iter()
        .map(|x| (x.0.clone(), x.1.clone(), x.3.clone(), x.4))
        .collect();
    let expected: Vec<(String, String, String, f64)> = GBENCH_AGGREGATES_ONLY
        .iter()
        .map(|(a, p, n, v)| (a.to_string(), p.to_string(), n.to_string(), *v))
        .collect();
    assert_eq!(got, expected);
    for x in r.iter().filter(|x| !x.3.ends_with("_cv")) {
        let unit = if x.3.starts_with("items_per_second") {
            "items/s"
        } else if x.3.starts_with("bytes_per_second") {
            "B/s"
        } else {
            "ns"
        };
        assert_eq!(x.5, unit, "{x:?}");
    }
    let w = warnings(&err);
    assert_eq!(w.len(), 1, "{err}");
    assert!(
        w[0].ends_with(
            "made-here_gbench-1.7.1_aggregates_only.json: 3 benchmark row(s) without figures \
             land nothing: `BM_NeedsResource` (line 303): error \"resource not available\"; \
             `BM_NeedsResource` (line 319): error \"resource not available\"; \
             `BM_NeedsResource` (line 335): error \"resource not available\""
        ),
        "{err}"
    );
}

#[test]
fn made_here_gbench_cv_aggregates_of_counters_are_ratios() {
    // The cv row's `aggregate_unit` is `percentage` for the whole row: its
    // `items_per_second`/`bytes_per_second` are fractions too (0.0084038941633575 for
    // BM_Sum/64/1, the same as its cpu_time cv to 3 digits), not items/s or B/s, and a
    // coefficient of variation is better lower ("a `percentage` aggregate (cv) is kept as a
    // ratio", src/ingest/gbench.rs).
    let (_wh, _, r) = land(
        "gbench",
        "samples/google-benchmark/made-here_gbench-1.7.1_aggregates_only.json",
    );
    let cv: Vec<&Row> = r.iter().filter(|x| x.3.ends_with("_cv")).collect();
    // BM_Sum × 3 args × 4 figures, BM_StringCopy/8 × real and cpu time.
    assert_eq!(cv.len(), 3 * 4 + 2, "{cv:?}");
    for x in cv {
        assert_eq!((x.5.as_str(), x.6.as_str()), ("ratio", "lower"), "{x:?}");
    }
}

#[test]
fn made_here_benchmarkjs_lines() {
    // benchmark.js 2.1.4 on Node 20: five `x … ops/sec ±…% (n runs sampled)` lines, `,`
    // separators, a two-decimal rate under 100 ops/s (`23.23`); `Fastest is …` ignored.
    let (_wh, _, r) = land(
        "benchmarkjs",
        "benchmarkjs/made-here_benchmarkjs-2.1.4_node20.txt",
    );
    assert_eq!(r, want(BENCHMARKJS));
}

#[test]
fn made_here_hyperfine_two_parameter_lists() {
    // -L algo gzip,bzip2 -L level 1,9: four commands, one arm with both values put back as
    // `{algo}`/`{level}`, params both; 3 runs each, seconds as written, all exit codes 0.
    let (wh, _, r) = land(
        "hyperfine",
        "hyperfine/made-here_hyperfine-1.15.0_L_two_lists.json",
    );
    assert_eq!(r, want(HYPERFINE_L));
    let t = trials(wh.path());
    assert_eq!(t.len(), 12);
    assert!(t.iter().all(|t| t.2 == "ok"), "{t:?}");
    assert_eq!(
        scalar(wh.path(), "select count(*) from trials where exit_code = 0"),
        12
    );
}

// The rows each file must land, in trial order, each trial's metrics by name: computed from
// the files with Python (see the module's doc), one row a line.

/// go-bench/made-here_go1.19_count3.txt
#[rustfmt::skip]
const GO_COUNT3: &[R] = &[
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 0, "mb_per_s", 16871.07, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 0, "time_per_op", 30.35, "ns", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 1, "mb_per_s", 15767.14, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 1, "time_per_op", 32.47, "ns", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 2, "mb_per_s", 16405.62, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 2, "time_per_op", 31.21, "ns", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 0, "mb_per_s", 18870.6, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 0, "time_per_op", 434.1, "ns", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 1, "mb_per_s", 19877.68, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 1, "time_per_op", 412.1, "ns", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 2, "mb_per_s", 19790.98, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 2, "time_per_op", 413.9, "ns", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 0, "parts_per_op", 4.0, "parts/op", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 0, "time_per_op", 36.07, "ns", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 1, "parts_per_op", 4.0, "parts/op", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 1, "time_per_op", 45.7, "ns", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 2, "parts_per_op", 4.0, "parts/op", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 2, "time_per_op", 34.4, "ns", "lower"),
];

/// go-bench/made-here_go1.19_benchmem_count3.txt
#[rustfmt::skip]
const GO_BENCHMEM_COUNT3: &[R] = &[
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 0, "allocs_per_op", 0.0, "allocs", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 0, "bytes_per_op", 0.0, "B", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 0, "mb_per_s", 17929.81, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 0, "time_per_op", 28.56, "ns", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 1, "allocs_per_op", 0.0, "allocs", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 1, "bytes_per_op", 0.0, "B", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 1, "mb_per_s", 15568.77, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 1, "time_per_op", 32.89, "ns", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 2, "allocs_per_op", 0.0, "allocs", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 2, "bytes_per_op", 0.0, "B", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 2, "mb_per_s", 16999.06, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"64"}"#, 2, "time_per_op", 30.12, "ns", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 0, "allocs_per_op", 0.0, "allocs", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 0, "bytes_per_op", 0.0, "B", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 0, "mb_per_s", 14980.84, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 0, "time_per_op", 546.8, "ns", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 1, "allocs_per_op", 0.0, "allocs", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 1, "bytes_per_op", 0.0, "B", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 1, "mb_per_s", 13854.8, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 1, "time_per_op", 591.3, "ns", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 2, "allocs_per_op", 0.0, "allocs", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 2, "bytes_per_op", 0.0, "B", "lower"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 2, "mb_per_s", 14049.5, "MB/s", "higher"),
    ("BenchmarkSum", r#"{"pkg":"madehere/gobench","procs":"2","size":"1024"}"#, 2, "time_per_op", 583.1, "ns", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 0, "allocs_per_op", 1.0, "allocs", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 0, "bytes_per_op", 24.0, "B", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 0, "parts_per_op", 4.0, "parts/op", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 0, "time_per_op", 39.79, "ns", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 1, "allocs_per_op", 1.0, "allocs", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 1, "bytes_per_op", 24.0, "B", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 1, "parts_per_op", 4.0, "parts/op", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 1, "time_per_op", 40.56, "ns", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 2, "allocs_per_op", 1.0, "allocs", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 2, "bytes_per_op", 24.0, "B", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 2, "parts_per_op", 4.0, "parts/op", "lower"),
    ("BenchmarkJoin", r#"{"pkg":"madehere/gobench","procs":"2"}"#, 2, "time_per_op", 42.77, "ns", "lower"),
];

/// catch2/made-here_catch2-2.13.10_console.txt
#[rustfmt::skip]
const CATCH2_CONSOLE: &[R] = &[
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time", 227.755, "ns", "lower"),
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time_high", 1129.23, "ns", "lower"),
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time_low", 47.3437, "ns", "lower"),
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time", 1794.23, "ns", "lower"),
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time_high", 3930.21, "ns", "lower"),
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time_low", 1.27875, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time", 562.772, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time_high", 586.144, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time_low", 557.666, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time", 47.5041, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time_high", 112.617, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time_low", 5.15241, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "mean_time", 680.215, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "mean_time_high", 752.344, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "mean_time_low", 651.193, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "std_dev_time", 214.994, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "std_dev_time_high", 376.578, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "std_dev_time_low", 71.8799, "ns", "lower"),
];

/// catch2/made-here_catch2-2.13.10_console.txt
#[rustfmt::skip]
const CATCH2_CONSOLE_WRAPPED: &[R] = &[
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "mean_time", 256.331, "ns", "lower"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "mean_time_high", 921.086, "ns", "lower"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "mean_time_low", 122.233, "ns", "lower"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "std_dev_time", 1322.8, "ns", "lower"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "std_dev_time_high", 2897.66, "ns", "lower"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "std_dev_time_low", 0.742841, "ns", "lower"),
];

/// catch2/made-here_catch2-2.13.10_failed_console.txt
#[rustfmt::skip]
const CATCH2_FAILED_CONSOLE: &[R] = &[
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "mean_time", 8.91368, "ns", "lower"),
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "mean_time_high", 33.5289, "ns", "lower"),
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "mean_time_low", 3.98327, "ns", "lower"),
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "std_dev_time", 48.9964, "ns", "lower"),
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "std_dev_time_high", 107.325, "ns", "lower"),
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "std_dev_time_low", 0.00841114, "ns", "lower"),
];

/// catch2/made-here_catch2-2.13.10_xml.xml
#[rustfmt::skip]
const CATCH2_XML: &[R] = &[
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time", 44.8384, "ns", "lower"),
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time_high", 44.8947, "ns", "lower"),
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time_low", 44.8201, "ns", "lower"),
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "samples", 100.0, "count", "higher"),
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time", 0.149482, "ns", "lower"),
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time_high", 0.329614, "ns", "lower"),
    ("fib 10", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time_low", 0.0579137, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time", 562.14, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time_high", 584.944, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "mean_time_low", 557.229, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "samples", 100.0, "count", "higher"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time", 45.7148, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time_high", 108.456, "ns", "lower"),
    ("fib 15", r#"{"test_case":"Fibonacci"}"#, 0, "std_dev_time_low", 2.04762, "ns", "lower"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "mean_time", 120.455, "ns", "lower"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "mean_time_high", 120.938, "ns", "lower"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "mean_time_low", 120.268, "ns", "lower"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "samples", 100.0, "count", "higher"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "std_dev_time", 1.35319, "ns", "lower"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "std_dev_time_high", 2.49628, "ns", "lower"),
    ("push_back 256 ints into a reserved vector", r#"{"test_case":"Vectors / push_back"}"#, 0, "std_dev_time_low", 0.165007, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "mean_time", 688.337, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "mean_time_high", 797.161, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "mean_time_low", 663.984, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "samples", 100.0, "count", "higher"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "std_dev_time", 223.678, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "std_dev_time_high", 528.245, "ns", "lower"),
    ("sort 256 ints", r#"{"test_case":"Vectors / sort"}"#, 0, "std_dev_time_low", 31.1088, "ns", "lower"),
];

/// catch2/made-here_catch2-2.13.10_failed.xml
#[rustfmt::skip]
const CATCH2_FAILED_XML: &[R] = &[
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "mean_time", 4.22756, "ns", "lower"),
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "mean_time_high", 4.23062, "ns", "lower"),
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "mean_time_low", 4.22648, "ns", "lower"),
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "samples", 100.0, "count", "higher"),
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "std_dev_time", 0.00861991, "ns", "lower"),
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "std_dev_time_high", 0.018416, "ns", "lower"),
    ("fib 5", r#"{"test_case":"Throws"}"#, 0, "std_dev_time_low", 0.00381864, "ns", "lower"),
];

/// samples/google-benchmark/made-here_gbench-1.7.1_repetitions3.json
#[rustfmt::skip]
const GBENCH_REPETITIONS3: &[R] = &[
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 0, "bytes_per_second", 35891204595.26054, "B/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 0, "cpu_time", 14.265333408943597, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 0, "items_per_second", 4486400574.407567, "items/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 0, "real_time", 20.284403090192278, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 1, "bytes_per_second", 35354562098.85476, "B/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 1, "cpu_time", 14.481865128703863, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 1, "items_per_second", 4419320262.356845, "items/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 1, "real_time", 22.465523011238215, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 2, "bytes_per_second", 35128423446.06832, "B/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 2, "cpu_time", 14.57509189918697, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 2, "items_per_second", 4391052930.75854, "items/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, 2, "real_time", 28.837292801444352, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 0, "bytes_per_second", 35082702347.07212, "B/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 0, "cpu_time", 14.594086707882402, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 0, "items_per_second", 4385337793.384015, "items/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 0, "real_time", 29.055061537439233, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 1, "bytes_per_second", 34890857871.59272, "B/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 1, "cpu_time", 14.674331077908457, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 1, "items_per_second", 4361357233.94909, "items/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 1, "real_time", 23.02049511924979, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 2, "bytes_per_second", 34008475254.975304, "B/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 2, "cpu_time", 15.055070718734925, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 2, "items_per_second", 4251059406.871913, "items/s", "higher"),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, 2, "real_time", 22.866737973397793, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 0, "bytes_per_second", 31008710628.937145, "B/s", "higher"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 0, "cpu_time", 264.18383202155053, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 0, "items_per_second", 3876088828.617143, "items/s", "higher"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 0, "real_time", 371.6326517935993, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 1, "bytes_per_second", 32002925568.48521, "B/s", "higher"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 1, "cpu_time", 255.97659759166044, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 1, "items_per_second", 4000365696.0606513, "items/s", "higher"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 1, "real_time", 524.1156470549118, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 2, "bytes_per_second", 32866640403.891266, "B/s", "higher"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 2, "cpu_time", 249.24969206862113, "ns", "lower"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 2, "items_per_second", 4108330050.486408, "items/s", "higher"),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, 2, "real_time", 559.2480583006651, "ns", "lower"),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, 0, "cpu_time", 2.6102647587358048, "ns", "lower"),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, 0, "real_time", 5.366454283553538, "ns", "lower"),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, 1, "cpu_time", 2.325017991059633, "ns", "lower"),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, 1, "real_time", 3.8945954906879017, "ns", "lower"),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, 2, "cpu_time", 2.654888782152875, "ns", "lower"),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, 2, "real_time", 4.002260682118741, "ns", "lower"),
];

/// benchmarkjs/made-here_benchmarkjs-2.1.4_node20.txt
#[rustfmt::skip]
const BENCHMARKJS: &[R] = &[
    ("RegExp#test", r#"{}"#, 0, "ops_per_sec", 46455633.0, "ops/s", "higher"),
    ("RegExp#test", r#"{}"#, 0, "rme", 2.63, "%", "lower"),
    ("String#indexOf", r#"{}"#, 0, "ops_per_sec", 785470832.0, "ops/s", "higher"),
    ("String#indexOf", r#"{}"#, 0, "rme", 4.65, "%", "lower"),
    ("Array#join 4 words", r#"{}"#, 0, "ops_per_sec", 9687831.0, "ops/s", "higher"),
    ("Array#join 4 words", r#"{}"#, 0, "rme", 6.88, "%", "lower"),
    ("sum of 1000 numbers", r#"{}"#, 0, "ops_per_sec", 1623696.0, "ops/s", "higher"),
    ("sum of 1000 numbers", r#"{}"#, 0, "rme", 3.07, "%", "lower"),
    ("sort 200000 numbers", r#"{}"#, 0, "ops_per_sec", 23.23, "ops/s", "higher"),
    ("sort 200000 numbers", r#"{}"#, 0, "rme", 6.73, "%", "lower"),
];

/// hyperfine/made-here_hyperfine-1.15.0_L_two_lists.json
#[rustfmt::skip]
const HYPERFINE_L: &[R] = &[
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"gzip","level":"1"}"#, 0, "wall_time_s", 0.0010113770400000002, "s", "lower"),
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"gzip","level":"1"}"#, 1, "wall_time_s", 0.0009193800400000003, "s", "lower"),
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"gzip","level":"1"}"#, 2, "wall_time_s", 0.00520831704, "s", "lower"),
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"bzip2","level":"1"}"#, 0, "wall_time_s", 0.00745764204, "s", "lower"),
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"bzip2","level":"1"}"#, 1, "wall_time_s", 0.011937994040000002, "s", "lower"),
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"bzip2","level":"1"}"#, 2, "wall_time_s", 0.014681886040000001, "s", "lower"),
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"gzip","level":"9"}"#, 0, "wall_time_s", 0.007035762040000001, "s", "lower"),
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"gzip","level":"9"}"#, 1, "wall_time_s", 0.010800838040000002, "s", "lower"),
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"gzip","level":"9"}"#, 2, "wall_time_s", 0.014917478040000001, "s", "lower"),
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"bzip2","level":"9"}"#, 0, "wall_time_s", 0.008218777040000002, "s", "lower"),
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"bzip2","level":"9"}"#, 1, "wall_time_s", 0.008518984040000002, "s", "lower"),
    ("{algo} -{level} -c input.txt > /dev/null", r#"{"algo":"bzip2","level":"9"}"#, 2, "wall_time_s", 0.02085241904, "s", "lower"),
];

/// samples/google-benchmark/made-here_gbench-1.7.1_aggregates_only.json
#[rustfmt::skip]
const GBENCH_AGGREGATES_ONLY: &[(&str, &str, &str, f64)] = &[
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "bytes_per_second_mean", 34512690871.87147),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "cpu_time_mean", 14.835822413503612),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "items_per_second_mean", 4314086358.983933),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "real_time_mean", 22.081987451864915),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "bytes_per_second_median", 34555896347.819725),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "cpu_time_median", 14.81657413387583),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "items_per_second_median", 4319487043.477466),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "real_time_median", 22.50368068213659),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "bytes_per_second_stddev", 290041001.3798823),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "cpu_time_stddev", 0.12491180458869998),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "items_per_second_stddev", 36255125.172485285),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "real_time_stddev", 0.9050297720151009),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "bytes_per_second_cv", 0.0084038941633575),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "cpu_time_cv", 0.008419607697312747),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "items_per_second_cv", 0.0084038941633575),
    ("BM_Sum", r#"{"arg0":"64","arg1":"1"}"#, "real_time_cv", 0.04098497809528768),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "bytes_per_second_mean", 34219865194.408314),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "cpu_time_mean", 14.962945453114214),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "items_per_second_mean", 4277483149.301039),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "real_time_mean", 23.62781744528301),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "bytes_per_second_median", 34048791801.741394),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "cpu_time_median", 15.037244287000346),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "items_per_second_median", 4256098975.2176743),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "real_time_median", 23.69339410730802),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "bytes_per_second_stddev", 321535944.6421354),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "cpu_time_stddev", 0.13984280141615796),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "items_per_second_stddev", 40191993.08026692),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "real_time_stddev", 1.3755274040414134),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "bytes_per_second_cv", 0.00939617800407571),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "cpu_time_cv", 0.009345940734352721),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "items_per_second_cv", 0.00939617800407571),
    ("BM_Sum", r#"{"arg0":"64","arg1":"4"}"#, "real_time_cv", 0.05821643946703252),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "bytes_per_second_mean", 31352410121.022484),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "cpu_time_mean", 261.29708976892715),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "items_per_second_mean", 3919051265.1278105),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "real_time_mean", 509.64042546352704),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "bytes_per_second_median", 31388408238.226074),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "cpu_time_median", 260.98806724526577),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "items_per_second_median", 3923551029.7782593),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "real_time_median", 517.3846964783606),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "bytes_per_second_stddev", 229649584.86482954),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "cpu_time_stddev", 1.9172083521765757),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "items_per_second_stddev", 28706198.108103693),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "real_time_stddev", 17.06514029065283),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "bytes_per_second_cv", 0.007324782496094117),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "cpu_time_cv", 0.007337274034976893),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "items_per_second_cv", 0.007324782496094117),
    ("BM_Sum", r#"{"arg0":"1024","arg1":"1"}"#, "real_time_cv", 0.03348466769513384),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, "cpu_time_mean", 2.5443251786302525),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, "real_time_mean", 5.03288052772716),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, "cpu_time_median", 2.5921023225120345),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, "real_time_median", 5.224614588123607),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, "cpu_time_stddev", 0.09791488998119165),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, "real_time_stddev", 0.3691727181506456),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, "cpu_time_cv", 0.03848363833505924),
    ("BM_StringCopy", r#"{"arg0":"8"}"#, "real_time_cv", 0.0733521720050373),
];

/// (metric, value, unit) of `rows`, values to 1e-6 relative, against the file read by hand.
fn assert_metrics(rows: &[Row], expected: &[(&str, f64, &str)]) {
    let got: Vec<(&str, f64, &str)> = rows
        .iter()
        .map(|r| (r.3.as_str(), r.4, r.5.as_str()))
        .collect();
    let mut want: Vec<(&str, f64, &str)> = expected.to_vec();
    want.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!((g.0, g.2), (w.0, w.2), "{got:?}");
        assert!(
            (g.1 - w.1).abs() <= 1e-6 * w.1.abs(),
            "{}: {} vs {}",
            g.0,
            g.1,
            w.1
        );
    }
    assert!(rows.iter().all(|r| r.6 == "lower"), "{rows:?}");
}

/// perf 6.1's `-x,` CSV here (no PMU): task-clock `8.63,msec` = 8,630,000 ns, 2
/// context-switches, 152 page-faults; instructions and cycles `<not supported>`: not
/// recorded, named in one warning.
#[test]
fn made_here_perf_stat_csv_counts_what_ran_and_names_what_did_not() {
    let (_wh, err, rows) = land("perf-stat", "perf-stat/made-here_perf-6.1_x-comma.csv");
    assert_metrics(
        &rows,
        &[
            ("task_clock", 8_630_000.0, "ns"),
            ("context_switches", 2.0, "count"),
            ("page_faults", 152.0, "count"),
        ],
    );
    let w = warnings(&err);
    assert_eq!(w.len(), 1, "{err}");
    assert!(
        w[0].contains("instructions, cycles not counted by perf"),
        "{err}"
    );
}

/// `-r 3`: perf's `+- x%` column as `<event>_noise`: 0.56 %, 33.33 %, 0.38 %.
#[test]
fn made_here_perf_stat_csv_of_three_runs_keeps_perfs_noise() {
    let (_wh, _err, rows) = land("perf-stat", "perf-stat/made-here_perf-6.1_r3_x-comma.csv");
    assert_metrics(
        &rows,
        &[
            ("task_clock", 8_630_000.0, "ns"),
            ("task_clock_noise", 0.56, "%"),
            ("context_switches", 1.0, "count"),
            ("context_switches_noise", 33.33, "%"),
            ("page_faults", 153.0, "count"),
            ("page_faults_noise", 0.38, "%"),
        ],
    );
}

/// The text layout, auto-detected: the counters, and the elapsed, user and system seconds.
#[test]
fn made_here_perf_stat_text_with_perfs_default_events() {
    let wh = tempfile::tempdir().unwrap();
    let f = fixture("perf-stat/made-here_perf-6.1_default-events_text.txt");
    let out = ok(wh.path(), &["ingest", &f, "--suite", "s"]);
    assert!(out.contains("1 trial"), "{out}");
    assert_metrics(
        &rows(wh.path()),
        &[
            ("task_clock", 8_660_000.0, "ns"),
            ("context_switches", 2.0, "count"),
            ("cpu_migrations", 1.0, "count"),
            ("page_faults", 153.0, "count"),
            ("elapsed_time", 27_767_515.0, "ns"),
            ("user_time", 9_556_000.0, "ns"),
            ("sys_time", 0.0, "ns"),
        ],
    );
    let (_wh, err, _) = land("perf-stat", "perf-stat/made-here_perf-6.1_text.txt");
    assert!(err.contains("instructions, cycles not counted"), "{err}");
}
