//! Fixtures made here (tests/fixtures/*/README.md, "## Made here"): real outputs of criterion
//! 0.8.2, libtest (nightly `#[bench]`), pytest-benchmark 5.3.1, asv 0.6.6 and perf 6.1 run on
//! benchmarks of our own. Every expected value was read from the files by hand (python3's json,
//! awk over the perf script text), not by perfhouse.

use std::path::Path;

use crate::common;

use common::*;

/// (arm, params JSON, metric, value, unit) of every metric row, ordered by arm, params, metric.
fn rows(wh: &Path) -> Vec<(String, String, String, f64, String)> {
    query(
        wh,
        "select t.arm, t.params, m.name, m.value, m.unit from metrics m \
         join trials t using (run_id, trial_id) order by t.arm, t.params, m.name",
    )
    .iter()
    .map(|r| {
        (
            r["arm"].as_str().unwrap().to_string(),
            r["params"].as_str().unwrap().to_string(),
            r["name"].as_str().unwrap().to_string(),
            r["value"].as_f64().unwrap(),
            r["unit"].as_str().unwrap().to_string(),
        )
    })
    .collect()
}

/// `rows` as (arm, params, metric, value) with borrowed strings, for comparing with literals.
fn values(rows: &[(String, String, String, f64, String)]) -> Vec<(&str, &str, &str, f64)> {
    rows.iter()
        .map(|(a, p, n, v, _)| (a.as_str(), p.as_str(), n.as_str(), *v))
        .collect()
}

const CRIT: &str = "criterion-bare/made-here";

#[test]
fn made_here_criterion_0_8_new_estimates_with_spaces_in_names() {
    // A directory walk takes new/ only (base/, v1/ and change/ sit beside it).
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &[
            "ingest",
            "--format",
            "criterion",
            &fixture(CRIT),
            "--suite",
            "s",
        ],
    );
    let r = rows(wh.path());
    assert!(r.iter().all(|x| x.4 == "ns"), "{r:?}");
    let to_upper = r#"{"group":"text ops"}"#; // value_str null: no `value`
    let push_str = r#"{"group":"join words","value":"64"}"#;
    assert_eq!(
        values(&r),
        [
            ("push str", push_str, "mean_ns", 1273.2727130345354),
            ("push str", push_str, "median_abs_dev_ns", 133.3985461218786),
            ("push str", push_str, "median_ns", 1246.47748843495),
            ("push str", push_str, "slope_ns", 1233.9978776875705),
            ("push str", push_str, "std_dev_ns", 112.86180597160087),
            ("to upper", to_upper, "mean_ns", 35.42348273554812),
            (
                "to upper",
                to_upper,
                "median_abs_dev_ns",
                2.3065632427847045
            ),
            ("to upper", to_upper, "median_ns", 31.539803048183757),
            ("to upper", to_upper, "slope_ns", 31.82606342710309),
            ("to upper", to_upper, "std_dev_ns", 6.976842837510184),
        ]
    );
}

#[test]
fn made_here_criterion_0_8_baselines_by_path_and_change_refused() {
    // base/ (run 2) and the named baseline v1/ (run 3), each given by path.
    for (dir, mean) in [("base", 1145.9301158347557), ("v1", 1273.2727130345354)] {
        let wh = tempfile::tempdir().unwrap();
        let file = fixture(&format!(
            "{CRIT}/join words/push str/64/{dir}/estimates.json"
        ));
        ok(
            wh.path(),
            &["ingest", "--format", "criterion", &file, "--suite", "s"],
        );
        let r = rows(wh.path());
        let params = format!(r#"{{"baseline":"{dir}","group":"join words","value":"64"}}"#);
        assert_eq!(r.len(), 5, "{r:?}");
        assert!(
            r.iter().all(|x| x.0 == "push str" && x.1 == params),
            "{r:?}"
        );
        let m: Vec<f64> = r.iter().filter(|x| x.2 == "mean_ns").map(|x| x.3).collect();
        assert_eq!(m, [mean], "{dir}");
    }
    let wh = tempfile::tempdir().unwrap();
    let change = fixture(&format!("{CRIT}/text ops/to upper/change/estimates.json"));
    let o = perfhouse(
        wh.path(),
        &["ingest", "--format", "criterion", &change, "--suite", "s"],
    );
    assert!(!o.status.success(), "change/estimates.json landed");
    assert!(stderr(&o).contains("relative changes"), "{}", stderr(&o));
}

#[test]
fn made_here_libtest_nightly_bench_ignored_lands_nothing() {
    // test benches::bench_fib_20    ... bench:      25,364.72 ns/iter (+/- 11,798.63)
    // test benches::bench_ignored   ... ignored
    for (file, expected) in [
        (
            "libtest-bench/made-here_libtest-nightly1.97_bench.txt",
            [
                ("benches::bench_fib_10", 386.19, 371.14),
                ("benches::bench_fib_20", 25364.72, 11798.63),
                ("benches::bench_sort_1000", 372.11, 2469.49),
            ],
        ),
        // cargo's Compiling/Finished/Running lines (stderr) around libtest's stdout.
        (
            "libtest-bench/made-here_libtest-nightly1.97_bench_merged.txt",
            [
                ("benches::bench_fib_10", 100.91, 7.74),
                ("benches::bench_fib_20", 13411.88, 295.73),
                ("benches::bench_sort_1000", 532.16, 473.24),
            ],
        ),
    ] {
        let wh = tempfile::tempdir().unwrap();
        ok(
            wh.path(),
            &[
                "ingest",
                "--format",
                "libtest-bench",
                &fixture(file),
                "--suite",
                "s",
            ],
        );
        let r = rows(wh.path());
        let want: Vec<(&str, &str, &str, f64)> = expected
            .iter()
            .flat_map(|(arm, t, range)| {
                [
                    (*arm, "{}", "time_per_iter", *t),
                    (*arm, "{}", "time_per_iter_range", *range),
                ]
            })
            .collect();
        assert_eq!(values(&r), want, "{file}");
        assert!(r.iter().all(|x| x.4 == "ns"), "{r:?}");
    }
}

#[test]
fn made_here_pytest_benchmark_5_3_params_and_stats() {
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &[
            "ingest",
            "--format",
            "pytest-benchmark",
            &fixture("samples/pytest-benchmark/made-here_pytest-benchmark5.3.1.json"),
            "--suite",
            "s",
        ],
    );
    let r = rows(wh.path());
    assert_eq!(r.len(), 3 * 11, "{r:?}");
    let arms: std::collections::BTreeSet<(&str, &str)> =
        r.iter().map(|x| (x.0.as_str(), x.1.as_str())).collect();
    assert_eq!(
        arms.into_iter().collect::<Vec<_>>(),
        [
            ("test_join_words", r#"{"n":"100"}"#),
            ("test_join_words", r#"{"n":"1000"}"#),
            ("test_sorted_list", "{}"),
        ]
    );
    let one = |arm: &str, params: &str, name: &str| -> (f64, String) {
        let f: Vec<_> = r
            .iter()
            .filter(|x| x.0 == arm && x.1 == params && x.2 == name)
            .collect();
        assert_eq!(f.len(), 1, "{arm} {params} {name}");
        (f[0].3, f[0].4.clone())
    };
    let s = ("test_sorted_list", "{}");
    let n100 = ("test_join_words", r#"{"n":"100"}"#);
    let n1000 = ("test_join_words", r#"{"n":"1000"}"#);
    let expect = [
        (s, "min", 1.4921999991202028e-05, "s"),
        (s, "max", 0.0160792620000052, "s"),
        (s, "mean", 7.843705905594199e-05, "s"),
        (s, "median", 1.5152999992551486e-05, "s"),
        (s, "stddev", 0.0010079494929900914, "s"),
        (s, "iqr", 1.3100000728627492e-07, "s"),
        (s, "q1", 1.509199998395161e-05, "s"),
        (s, "q3", 1.5222999991237884e-05, "s"),
        (s, "ops", 12749.075654236236, "ops/s"),
        (s, "rounds", 254.0, "count"),
        (s, "iterations", 1.0, "count"),
        (n100, "min", 8.061999977826417e-06, "s"),
        (n100, "median", 8.202000003620924e-06, "s"),
        (n100, "mean", 3.91051326521485e-05, "s"),
        (n100, "ops", 25572.09072515596, "ops/s"),
        (n100, "rounds", 196.0, "count"),
        (n1000, "min", 8.171199999651435e-05, "s"),
        (n1000, "max", 8.441599999287064e-05, "s"),
        (n1000, "mean", 8.251728124708535e-05, "s"),
        (n1000, "median", 8.239299999956984e-05, "s"),
        (n1000, "stddev", 5.57402917202993e-07, "s"),
        (n1000, "q3", 8.281349998640053e-05, "s"),
        (n1000, "ops", 12118.673626747994, "ops/s"),
        (n1000, "rounds", 32.0, "count"),
    ];
    for ((arm, params), name, value, unit) in expect {
        assert_eq!(
            one(arm, params, name),
            (value, unit.to_string()),
            "{arm} {params} {name}"
        );
    }
}

#[test]
fn made_here_asv_0_6_6_one_run_failed_benchmark_left_out() {
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &[
            "ingest",
            "--format",
            "asv",
            &fixture("asv/made-here-results"),
            "--suite",
            "s",
        ],
    );
    let runs = query(
        wh.path(),
        "select git_commit, host, status, cast(started_at as bigint) as at from runs",
    );
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(
        runs[0]["git_commit"],
        "cc8f05eeeba81950b3d44a8304157c7a9a7c97c7"
    );
    assert_eq!(runs[0]["host"], "vm");
    // benchmarks.TimeSuite.time_fails is null: left out, the run partial.
    assert_eq!(runs[0]["status"], "partial");
    assert_eq!(runs[0]["at"], 1796425800000i64 * 1000);
    let r = rows(wh.path());
    let got: Vec<(&str, &str, f64, &str)> = r
        .iter()
        .map(|(_, p, n, v, u)| (p.as_str(), n.as_str(), *v, u.as_str()))
        .collect();
    // Ordered by params as strings: `{"n":"10"}` < `{"n":"1000"}` < `{}`.
    assert_eq!(
        got,
        [
            (
                r#"{"n":"10"}"#,
                "benchmarks.Squares.time_squares",
                8.190008699581897e-07,
                "s"
            ),
            (
                r#"{"n":"1000"}"#,
                "benchmarks.Squares.time_squares",
                4.525690646852275e-05,
                "s"
            ),
            (
                "{}",
                "benchmarks.TimeSuite.time_word_counts",
                1.2318499983621223e-05,
                "s"
            ),
            ("{}", "benchmarks.mem_squares_list", 8056.0, "B"),
            ("{}", "benchmarks.track_word_count", 3.0, "words"),
        ]
    );
}

/// The stacks a fixture lands as, by `format`: (stack, weight, kind), ordered by stack.
fn landed_stacks(format: &str, file: &str) -> Vec<(String, f64, String)> {
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &["ingest", "--format", format, &fixture(file), "--suite", "s"],
    );
    query(
        wh.path(),
        "select stack, weight, kind from stacks order by stack",
    )
    .iter()
    .map(|r| {
        (
            r["stack"].as_str().unwrap().to_string(),
            r["weight"].as_f64().unwrap(),
            r["kind"].as_str().unwrap().to_string(),
        )
    })
    .collect()
}

/// 98 samples of period 1001001 (awk over the perf script: 16 end in hash_loop, 70 in mix, 12
/// in sum_loop; offsets dropped, the comm first, as inferno-collapse-perf does).
const SPIN_STACKS: [(&str, f64); 3] = [
    ("spin;__libc_start_call_main;main;hash_loop", 16016016.0),
    ("spin;__libc_start_call_main;main;mix", 70070070.0),
    ("spin;__libc_start_call_main;main;sum_loop", 12012012.0),
];

#[test]
fn made_here_perf_script_cpu_clock_collapses_to_three_stacks() {
    let got = landed_stacks(
        "perf-script",
        "samples/perf-script/made-here_perf6.1_cpu-clock_spin.txt",
    );
    assert_eq!(
        got,
        SPIN_STACKS.map(|(s, w)| (s.to_string(), w, "oncpu".to_string()))
    );
}

#[test]
fn made_here_inferno_collapse_perf_folded_matches_the_perf_script() {
    // inferno-collapse-perf 0.12.8 of the same perf script text: the same three stacks.
    let got = landed_stacks(
        "folded",
        "samples/folded/made-here_inferno0.12.8_collapse-perf_spin.folded",
    );
    assert_eq!(
        got,
        SPIN_STACKS.map(|(s, w)| (s.to_string(), w, "oncpu".to_string()))
    );
}
