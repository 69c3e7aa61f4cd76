//! The benchmark formats of issue 30 item 1 (go test -bench, libtest, Catch2, JMH,
//! BenchmarkDotNet, benchmark.js, BenchmarkTools, iai/gungraun, github-action-benchmark
//! custom JSON, BMF): every real fixture of every format is detected as its own format, and
//! each format's fixtures land the values the files hold (read by hand).

use std::path::Path;

use crate::common;

use common::*;

/// What detection must say of one fixture file (`rel`: its path under tests/fixtures/).
enum Expect {
    /// Detected as this format.
    Format(&'static str),
    /// A real output of this format whose detection another part of issue 30 (item 2) fixes,
    /// or a file read only as part of its directory (asv's per-commit results, criterion's
    /// side files): it must be this format or not detected, never another format.
    Pending(&'static str),
    /// Not a tool output (a README says so, a helper script, /proc captures).
    Skip,
}

fn expect(rel: &str) -> Expect {
    use Expect::*;
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let top = rel.split('/').next().unwrap_or("");
    let criterion_side = || name != "estimates.json" || rel.contains("/change/");
    if rel.contains("/made-here-src/") {
        // The benchmark programs we ran to make the made-here outputs: code, not outputs.
        return Skip;
    }
    match top {
        "go-bench" => Format("go-bench"),
        "libtest-bench" if name.starts_with("made-here_criterion") => Format("criterion-bencher"),
        "libtest-bench" => Format("libtest-bench"),
        "asv-console" => Format("asv-console"),
        "catch2" if name.ends_with(".xml") => Format("catch2-xml"),
        "catch2" => Format("catch2"),
        "jmh" => Format("jmh"),
        "benchmarkdotnet" => Format("benchmarkdotnet"),
        "benchmarkjs" => Format("benchmarkjs"),
        "julia-benchmarktools" => Format("julia-benchmarktools"),
        "iai" => Format("iai"),
        "gab-custom" => Format("gab-custom"),
        // bmf/README.md: the schema "Not tool output; included as the format's reference".
        "bmf" if name == "bencher_bmf_schema.json" => Skip,
        "bmf" => Format("bmf"),
        "hyperfine" => Format("hyperfine"),
        "guidellm" => Format("guidellm"),
        "vllm-bench" => Format("vllm-bench"),
        "lmcache" if name.ends_with(".log") => Format("lmcache-transfer"),
        "asv" if name == "benchmarks.json" => Format("asv"),
        // Read through their results directory, never alone.
        "asv" => Pending("asv"),
        "criterion" | "criterion-bare" if criterion_side() => Pending("criterion"),
        "criterion" => Format("criterion"),
        "criterion-bare" if rel.contains("/new/") => Format("criterion"),
        "criterion-bare" => Pending("criterion"),
        "aiperf-multirun" if name.starts_with("profile_export.jsonl") => Format("aiperf"),
        "aiperf-multirun" if name == "profile_export_aiperf.json" => Format("aiperf-summary"),
        "aiperf-multirun" if name == "profile_export_aiperf_aggregate.json" => {
            Format("aiperf-aggregate")
        }
        "aiperf-multirun" => Pending("aiperf-summary"),
        "perf-script-old" => Format("perf-script"),
        "perf-stat" => Format("perf-stat"),
        "folded-comments" => Format("folded"),
        "guidellm-extra" => Format("guidellm"),
        "gab-data-js" => Format("gab-data-js"),
        "vllm-append-result" if name.ends_with(".json") => Format("vllm-bench"),
        "samples" => {
            let sub = rel.split('/').nth(1).unwrap_or("");
            match sub {
                // Google Benchmark's console table, kept beside the JSON it printed with: no
                // format of perfhouse's (the JSON reporter is).
                "google-benchmark" if name.ends_with("_console.txt") => Skip,
                "google-benchmark" => Format("gbench"),
                "pytest-benchmark" => Format("pytest-benchmark"),
                "perf-script" => Format("perf-script"),
                "folded" => Format("folded"),
                "aiperf" if name.ends_with(".jsonl") => Format("aiperf"),
                "aiperf" => Format("aiperf-summary"),
                "criterion" if criterion_side() => Pending("criterion"),
                "criterion" => Format("criterion"),
                // /proc captures for the runner's sampler, not a benchmark tool's output.
                _ => Skip,
            }
        }
        // An asv project's configuration, read beside its results directory.
        "asv-conf" => Skip,
        // burn.c, github-api/server.py, lmcache/make.py: code, not outputs.
        _ => Skip,
    }
}

/// The formats of issue 30 item 1.
const NEW: [&str; 11] = [
    "go-bench",
    "libtest-bench",
    "catch2",
    "catch2-xml",
    "jmh",
    "benchmarkdotnet",
    "benchmarkjs",
    "julia-benchmarktools",
    "iai",
    "gab-custom",
    "bmf",
];

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every fixture file, by its path under tests/fixtures/: the repository's own and, when the
/// folder is beside the clone, the third-party ones (`../shared/fixtures/tests/fixtures/`).
fn every_fixture() -> std::collections::BTreeMap<String, std::path::PathBuf> {
    let mut roots = vec![repo().join("tests/fixtures")];
    roots.extend(
        perfhouse::fixtures::third_party_fixtures(&repo()).map(|d| d.join("tests/fixtures")),
    );
    let mut all = std::collections::BTreeMap::new();
    for root in roots {
        let mut found = Vec::new();
        files(&root, &mut found);
        for path in found {
            let rel = path.strip_prefix(&root).unwrap().to_string_lossy();
            all.insert(rel.replace('\\', "/"), path.clone());
        }
    }
    all
}

#[test]
fn every_fixture_is_detected_as_its_own_format() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (rel, path) in &every_fixture() {
        let path = path.as_path();
        let name = rel.rsplit('/').next().unwrap();
        if name == "README.md" || name == "NEW_FORMATS.md" {
            continue;
        }
        let got = perfhouse::ingest::detect(path).map(|f| f.name().to_string());
        match expect(rel) {
            Expect::Skip => continue,
            Expect::Format(f) => {
                checked += 1;
                if got.as_deref().ok() != Some(f) {
                    wrong.push(format!("{rel}: expected {f}, detected {got:?}"));
                } else if NEW.contains(&f) {
                    // Every real file of the new formats also parses (the one without a
                    // benchmark is refused, saying so).
                    let parsed =
                        perfhouse::ingest::parse_file(path, perfhouse::ingest::Format::AUTO);
                    match parsed {
                        Ok(p) if !p.trials.is_empty() => {}
                        Err(e) if name == "bencher_zero.txt" => {
                            assert!(e.to_string().contains("no benchmark lines found"), "{e}")
                        }
                        other => wrong.push(format!("{rel}: does not parse: {:?}", other.err())),
                    }
                }
            }
            Expect::Pending(f) => {
                if let Ok(g) = &got
                    && g != f
                {
                    wrong.push(format!(
                        "{rel}: expected {f} (or not yet detected), detected {g}"
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked} misdetected:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // 100 and more with the third-party fixtures; the made-here ones alone on a bare clone.
    let least = if cfg!(shared_fixtures) { 100 } else { 10 };
    assert!(checked >= least, "only {checked} fixtures checked");
}

/// One metric row of a warehouse.
struct Row {
    arm: String,
    params: serde_json::Value,
    repeat: i64,
    name: String,
    value: f64,
    unit: String,
    better: String,
}

/// Ingests `files` (under tests/fixtures/) as one run of suite `s`; every metric row.
fn ingest(wh: &Path, files: &[&str]) -> Vec<Row> {
    let mut args = vec!["ingest".to_string(), "--suite".to_string(), "s".to_string()];
    args.extend(files.iter().map(|f| fixture(f)));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(wh, &args);
    query(
        wh,
        "select t.arm, t.params, t.repeat, m.name, m.value, m.unit, m.better \
         from metrics m join trials t using (run_id, trial_id) order by t.trial_id, m.name",
    )
    .into_iter()
    .map(|r| Row {
        arm: r["arm"].as_str().unwrap().to_string(),
        params: serde_json::from_str(r["params"].as_str().unwrap_or("{}")).unwrap(),
        repeat: r["repeat"].as_i64().unwrap(),
        name: r["name"].as_str().unwrap().to_string(),
        value: r["value"].as_f64().unwrap(),
        unit: r["unit"].as_str().unwrap().to_string(),
        better: r["better"].as_str().unwrap().to_string(),
    })
    .collect()
}

/// Rows of `arm` and `metric` whose params include `params`.
fn find<'a>(rows: &'a [Row], arm: &str, params: &[(&str, &str)], metric: &str) -> Vec<&'a Row> {
    rows.iter()
        .filter(|r| {
            r.arm == arm
                && r.name == metric
                && params
                    .iter()
                    .all(|(k, v)| r.params[*k].as_str() == Some(*v))
        })
        .collect()
}

/// The one value of `arm`/`metric` with `params`.
fn one(rows: &[Row], arm: &str, params: &[(&str, &str)], metric: &str) -> f64 {
    let f = find(rows, arm, params, metric);
    assert_eq!(f.len(), 1, "{arm} {params:?} {metric}: {} rows", f.len());
    f[0].value
}

fn refused(file: &str, message: &str) {
    let wh = tempfile::tempdir().unwrap();
    let o = perfhouse(wh.path(), &["ingest", "--suite", "s", &fixture(file)]);
    assert!(!o.status.success(), "{file} landed");
    assert!(stderr(&o).contains(message), "{}", stderr(&o));
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn go_bench_lines_procs_benchmem_and_count_repeats() {
    let wh = tempfile::tempdir().unwrap();
    // BenchmarkFib10-8   5604217   210.2 ns/op
    let r = ingest(wh.path(), &["go-bench/bencher_three.txt"]);
    assert_eq!(
        one(
            &r,
            "BenchmarkFib10",
            &[("procs", "8"), ("pkg", "bencher.dev")],
            "time_per_op"
        ),
        210.2
    );
    assert_eq!(
        one(&r, "BenchmarkFib20WithAuxMetric", &[], "auxmetricunits"),
        4.0
    );
    assert_eq!(find(&r, "BenchmarkFib20", &[], "time_per_op")[0].unit, "ns");

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["go-bench/gab_go_output.txt"]);
    // BenchmarkFib11-16  4587789  262.7 ns/op  3.000 auxMetricUnits
    assert_eq!(
        one(&r, "BenchmarkFib11", &[("procs", "16")], "time_per_op"),
        262.7
    );
    assert_eq!(one(&r, "BenchmarkFib11", &[], "auxmetricunits"), 3.0);
    // BenchmarkFib20 (no -N suffix)  30000  40537.123 ns/op
    let f = find(&r, "BenchmarkFib20", &[], "time_per_op");
    assert_eq!((f[0].value, f[0].params.get("procs")), (40537.123, None));
    // BenchmarkFib/my_tabled_benchmark_-_10-8: only the final -8 is GOMAXPROCS.
    assert_eq!(
        one(
            &r,
            "BenchmarkFib",
            &[("arg0", "my_tabled_benchmark_-_10"), ("procs", "8")],
            "time_per_op"
        ),
        325.0
    );

    // -count 10 -benchmem: ten repeats of one arm × params.
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["go-bench/golang-perf_suffixarray.bench"]);
    let p = [
        ("text", "opticks"),
        ("size", "100K"),
        ("bits", "32"),
        ("procs", "8"),
    ];
    let t = find(&r, "BenchmarkNew", &p, "time_per_op");
    assert_eq!(t.len(), 10);
    assert_eq!(
        t.iter().map(|r| r.repeat).collect::<Vec<_>>(),
        (0..10).collect::<Vec<_>>()
    );
    // First line: 295  4052123 ns/op  24.68 MB/s  401490 B/op  2 allocs/op; last: 4775885 ns/op.
    assert_eq!((t[0].value, t[9].value), (4052123.0, 4775885.0));
    let mb = find(&r, "BenchmarkNew", &p, "mb_per_s");
    assert_eq!(
        (mb[0].value, mb[0].unit.as_str(), mb[0].better.as_str()),
        (24.68, "MB/s", "higher")
    );
    let b = find(&r, "BenchmarkNew", &p, "bytes_per_op");
    assert_eq!(
        (b[0].value, b[0].unit.as_str(), b[0].better.as_str()),
        (401490.0, "B", "lower")
    );
    assert_eq!(find(&r, "BenchmarkNew", &p, "allocs_per_op")[0].value, 2.0);

    // The same name in two packages stays two series.
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(
        wh.path(),
        &["go-bench/gab_go_fiber_duplicate_names_output.txt"],
    );
    let cache = [("pkg", "github.com/gofiber/fiber/v3/middleware/cache")];
    let csrf = [("pkg", "github.com/gofiber/fiber/v3/middleware/csrf")];
    assert_eq!(
        one(&r, "BenchmarkAppendMsgitem", &cache, "time_per_op"),
        55.76
    );
    assert_eq!(
        one(&r, "BenchmarkAppendMsgitem", &csrf, "time_per_op"),
        0.3733
    );
    assert_eq!(
        one(&r, "BenchmarkAppendMsgitem", &csrf, "mb_per_s"),
        2678.46
    );
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn libtest_bench_times_in_ns_with_ranges() {
    let wh = tempfile::tempdir().unwrap();
    // test bench_fib_20 ... bench:      18,149 ns/iter (+/- 755)
    let r = ingest(wh.path(), &["libtest-bench/gab_cargo_output.txt"]);
    assert_eq!(one(&r, "bench_fib_10", &[], "time_per_iter"), 135.0);
    assert_eq!(one(&r, "bench_fib_20", &[], "time_per_iter"), 18149.0);
    assert_eq!(one(&r, "bench_fib_20", &[], "time_per_iter_range"), 755.0);

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["libtest-bench/bencher_issue_390.txt"]);
    // 13,967,756.30 ns/iter (+/- 266,769.64)
    assert_eq!(
        one(
            &r,
            "bleu::benchmark::bench_batch_bleu",
            &[],
            "time_per_iter"
        ),
        13967756.3
    );
    assert_eq!(
        one(
            &r,
            "bleu::benchmark::bench_batch_bleu",
            &[],
            "time_per_iter_range"
        ),
        266769.64
    );
    assert_eq!(
        r.len(),
        8,
        "4 benches × 2 metrics; ignored tests land nothing"
    );

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["libtest-bench/bencher_many.txt"]);
    assert_eq!(one(&r, "tests::one_digit", &[], "time_per_iter"), 1000.0); // 1 μs
    assert_eq!(one(&r, "tests::two_digit", &[], "time_per_iter"), 22e6); // 22 ms
    assert_eq!(one(&r, "tests::three_digit", &[], "time_per_iter"), 333e9); // 333 s

    refused("libtest-bench/bencher_zero.txt", "no benchmark lines found");
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn libtest_bench_failed_tests_land_nothing_and_are_said_once() {
    // bencher_failed.txt: benchmark_a and _c measured, benchmark_b FAILED (line 5), then its
    // panic under `failures:` and `error: bench failed`.
    let wh = tempfile::tempdir().unwrap();
    let o = perfhouse(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "s",
            &fixture("libtest-bench/bencher_failed.txt"),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].ends_with(
            "bencher_failed.txt: 1 test(s) FAILED and land nothing (their failure output is skipped): tests::benchmark_b (line 5)"
        ),
        "{err}"
    );
    let r = query(
        wh.path(),
        "select t.arm, m.name, m.value from metrics m join trials t using (run_id, trial_id) \
         order by t.arm, m.name",
    );
    let got: Vec<(String, String, f64)> = r
        .iter()
        .map(|r| {
            (
                r["arm"].as_str().unwrap().to_string(),
                r["name"].as_str().unwrap().to_string(),
                r["value"].as_f64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("tests::benchmark_a", "time_per_iter", 3296.0), // 3,296 ns/iter
        ("tests::benchmark_a", "time_per_iter_range", 521.0), // (+/- 521)
        ("tests::benchmark_c", "time_per_iter", 3215.0),
        ("tests::benchmark_c", "time_per_iter_range", 356.0),
    ];
    let want: Vec<(String, String, f64)> = want
        .iter()
        .map(|(a, n, v)| (a.to_string(), n.to_string(), *v))
        .collect();
    assert_eq!(got, want);
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn catch2_console_means_and_std_devs_in_ns() {
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["catch2/gab_catch2_output_v2.txt"]);
    // Fibonacci 20 … 41.731 us  41.25 us  42.622 us / 3.256 us  2.163 us  5.353 us
    let p = [("test_case", "Fibonacci")];
    assert_eq!(one(&r, "Fibonacci 20", &p, "mean_time"), 41731.0);
    assert_eq!(one(&r, "Fibonacci 20", &p, "mean_time_low"), 41250.0);
    assert_eq!(one(&r, "Fibonacci 20", &p, "mean_time_high"), 42622.0);
    assert_eq!(one(&r, "Fibonacci 20", &p, "std_dev_time"), 3256.0);
    assert_eq!(
        one(
            &r,
            "Fibonacci~ 5!",
            &[("test_case", "More Fibonacci")],
            "mean_time"
        ),
        36.0
    );

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["catch2/bencher_issue_351.txt"]);
    let long = [("test_case", "Even More Fibonacci / With a long name")];
    assert_eq!(
        one(&r, "Fibonacci 10 with a long name", &long, "mean_time"),
        344.0
    );
    assert_eq!(
        one(
            &r,
            "Fibonacci 10",
            &[("test_case", "Unit_assignment / Construction")],
            "std_dev_time_high"
        ),
        29.0
    );
    assert_eq!(
        find(&r, "Fibonacci 20", &[], "mean_time").len(),
        2,
        "two test cases"
    );

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["catch2/gab_catch2_output_v3.txt"]);
    assert_eq!(one(&r, "Fibonacci-15_bench", &[], "mean_time"), 3789.0);
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn catch2_xml_means_std_devs_and_samples_in_ns() {
    // Catch2 3.15.3, Linux (JohT/convolution-benchmarks): 36 benchmarks in one test case.
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["catch2/convolution_gnu_linux_avx2.xml"]);
    let tc = [("test_case", "Convolution Implementation Benchmarks")];
    // <mean value="123208" lowerBound="122840" upperBound="123701" ci="0.95"/>
    // <standardDeviation value="2161.91" lowerBound="1698.48" upperBound="2614.73" ci="0.95"/>
    let a = "(JohT) kernelPerInputValue Transposed((kernel size 16))";
    assert_eq!(one(&r, a, &tc, "mean_time"), 123208.0);
    assert_eq!(one(&r, a, &tc, "mean_time_low"), 122840.0);
    assert_eq!(one(&r, a, &tc, "mean_time_high"), 123701.0);
    assert_eq!(one(&r, a, &tc, "std_dev_time"), 2161.91);
    assert_eq!(one(&r, a, &tc, "std_dev_time_low"), 1698.48);
    assert_eq!(one(&r, a, &tc, "std_dev_time_high"), 2614.73);
    assert_eq!(one(&r, a, &tc, "samples"), 100.0);
    // `Inner&amp;OuterLoopUnrolled`, mean value="2.60851e+06" (ns, as written: no scaling).
    let b = "(JohT) inputPerKernelValue Transposed Inner&OuterLoopUnrolled((kernel size 512))";
    assert_eq!(one(&r, b, &tc, "mean_time"), 2608510.0);
    assert_eq!(one(&r, b, &tc, "std_dev_time_high"), 53420.7);
    let m = find(&r, a, &tc, "mean_time")[0];
    assert_eq!((m.unit.as_str(), m.better.as_str()), ("ns", "lower"));
    assert_eq!(r.iter().filter(|r| r.name == "mean_time").count(), 36);
    assert_eq!(r.len(), 36 * 7, "6 timings and the sample count each");

    // Catch2 3.4.0, MSVC on Windows (`D:\a\…` file names), same project.
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["catch2/convolution_msvc_windows_avx2.xml"]);
    assert_eq!(one(&r, a, &tc, "mean_time"), 138122.0);
    assert_eq!(one(&r, a, &tc, "std_dev_time_low"), 2328.06);

    // Catch2 3.9.0 (Dv-Senna/voxlet): sub-microsecond means, a skewed one.
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["catch2/voxlet_benchmark.xml"]);
    let tc = [("test_case", "string - benchmark")];
    let v = "[construct from char8_t*] vx::String - size=4";
    // <mean value="183.353" lowerBound="140.541" upperBound="354.6" ci="0.95"/>
    // <standardDeviation value="425.366" lowerBound="0.95772" upperBound="931.786" ci="0.95"/>
    assert_eq!(one(&r, v, &tc, "mean_time"), 183.353);
    assert_eq!(one(&r, v, &tc, "mean_time_low"), 140.541);
    assert_eq!(one(&r, v, &tc, "mean_time_high"), 354.6);
    assert_eq!(one(&r, v, &tc, "std_dev_time"), 425.366);
    assert_eq!(one(&r, v, &tc, "std_dev_time_low"), 0.95772);
    assert_eq!(
        one(
            &r,
            "[construct from char8_t*] std::u8string - size=0",
            &tc,
            "mean_time"
        ),
        53.376
    );
    assert_eq!(r.iter().filter(|r| r.name == "mean_time").count(), 12);
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn jmh_scores_params_and_modes() {
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["jmh/gab_jmh_output_2.json"]);
    let arm = "org.openjdk.jmh.samples.JMHSample_01_HelloWorld.wellHelloThere";
    let p = [
        ("paramA", "17"),
        ("paramB", "33"),
        ("mode", "thrpt"),
        ("threads", "1"),
    ];
    assert_eq!(one(&r, arm, &p, "throughput"), 3.3762388731228185E9);
    assert_eq!(one(&r, arm, &p, "throughput_error"), 1.4287985743935993E7);
    let f = find(&r, arm, &p, "throughput");
    assert_eq!(
        (f[0].unit.as_str(), f[0].better.as_str()),
        ("ops/s", "higher")
    );

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["jmh/bencher_six.json"]);
    assert_eq!(r.len(), 12, "6 benchmarks × score and error");
    assert_eq!(
        one(
            &r,
            "com.github.caffeine.caffeine.cache.ComputeBenchmark.compute_sameKey",
            &[("computeType", "Caffeine")],
            "throughput"
        ),
        152520132.34402195
    );

    // A time-per-operation unit lands as ns, lower is better.
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["jmh/bencher_latency.json"]);
    let f = find(&r, arm, &[], "time_per_op");
    assert_eq!((f[0].unit.as_str(), f[0].better.as_str()), ("ns", "lower"));
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn benchmarkdotnet_statistics_memory_and_job() {
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["benchmarkdotnet/gab_benchmarkdotnet.json"]);
    let p = [("job", "DefaultJob")];
    assert_eq!(
        one(&r, "Sample.Benchmarks.Fib10", &p, "mean_time"),
        24.4202085009643
    );
    assert_eq!(
        one(&r, "Sample.Benchmarks.Fib20", &p, "mean_time"),
        51.52008151549559
    );

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["benchmarkdotnet/bencher_memory.json"]);
    let arm = "BenchmarkDotNet.Samples.Memory.AllocEmptyList";
    let p = [(
        "job",
        "ShortRun(IterationCount=3, LaunchCount=1, WarmupCount=3)",
    )];
    assert_eq!(one(&r, arm, &p, "mean_time"), 77.49449412027995);
    assert_eq!(one(&r, arm, &p, "bytes_allocated_per_op"), 368.0);
    // Gen0Collections 184 over TotalOperations 8388608, per 1000 operations (= its Metrics' Gen0Collects).
    assert_eq!(
        one(&r, arm, &p, "gen0_collections_per_1k_op"),
        0.02193450927734375
    );
    assert_eq!(
        one(
            &r,
            "BenchmarkDotNet.Samples.Memory.AllocExactList",
            &[],
            "bytes_allocated_per_op"
        ),
        184.0
    );

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["benchmarkdotnet/bencher_two.json"]);
    assert_eq!(
        one(
            &r,
            "BenchmarkDotNet.Samples.Intro.IntroJsonExport.Sleep10",
            &[],
            "mean_time"
        ),
        10362283.085796878
    );
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn benchmarkjs_ops_per_sec() {
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["benchmarkjs/gab_benchmarkjs_output.txt"]);
    assert_eq!(one(&r, "fib(10)", &[], "ops_per_sec"), 1431759.0);
    assert_eq!(one(&r, "fib(10)", &[], "rme"), 0.74);
    assert_eq!(
        one(
            &r,
            "createObjectBuffer with 200 comments",
            &[],
            "ops_per_sec"
        ),
        81.61
    );
    assert_eq!(find(&r, "fib(20)", &[], "ops_per_sec")[0].better, "higher");
    assert_eq!(r.len(), 6);

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["benchmarkjs/bencher_issue_506.txt"]);
    assert_eq!(
        one(&r, "sha512 wasm from string utf16", &[], "ops_per_sec"),
        19.23
    );
    assert_eq!(one(&r, "text encoder utf16", &[], "rme"), 16.6);
    assert_eq!(r.len(), 12);
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn julia_benchmarktools_estimates() {
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["julia-benchmarktools/gab_julia_output.json"]);
    // "fib" → "20": TrialEstimate time 31028.0, "10": 246.03846153846155.
    assert_eq!(one(&r, "fib", &[("arg0", "20")], "time"), 31028.0);
    assert_eq!(
        one(&r, "fib", &[("arg0", "10")], "time"),
        246.03846153846155
    );
    assert_eq!(one(&r, "fib", &[("arg0", "10")], "memory"), 0.0);
    assert_eq!(find(&r, "fib", &[], "time")[0].unit, "ns");
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn iai_and_gungraun_text_and_json() {
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["iai/bencher_iai_two.txt"]);
    assert_eq!(
        one(&r, "bench_fibonacci_short", &[], "instructions"),
        1735.0
    );
    assert_eq!(
        one(&r, "bench_fibonacci_long", &[], "estimated_cycles"),
        35638668.0
    );
    assert_eq!(
        one(&r, "bench_fibonacci_long", &[], "l1_accesses"),
        35638623.0
    );

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(
        wh.path(),
        &["iai/bencher_gungraun_with-summary-and-regressions.txt"],
    );
    let arm = "rust_iai_callgrind::bench_fibonacci_group::bench_fibonacci";
    // `Instructions:  1734|1650`: this run's value is left of `|`.
    assert_eq!(
        one(&r, arm, &[("id", "short"), ("args", "10")], "instructions"),
        1734.0
    );
    assert_eq!(
        one(
            &r,
            arm,
            &[("id", "long"), ("args", "30")],
            "total_read_write"
        ),
        35638622.0
    );
    assert_eq!(r.len(), 12);

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["iai/bencher_gungraun_dhat-then-callgrind.txt"]);
    let f = find(&r, arm, &[("id", "short")], "dhat.total_bytes");
    assert_eq!((f[0].value, f[0].unit.as_str()), (29499.0, "B"));
    assert_eq!(
        one(&r, arm, &[("id", "long")], "dhat.writes_bytes"),
        37733810.0
    );
    assert_eq!(one(&r, arm, &[("id", "long")], "instructions"), 26214734.0);

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["iai/bencher_gungraun_ansi-escapes.txt"]);
    assert_eq!(one(&r, arm, &[("id", "long")], "l1_hits"), 35638619.0);

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(
        wh.path(),
        &["iai/bencher_gungraun_json_multiple_benchmarks.txt"],
    );
    let arm = "play_game::bench_play_game_group::bench_play_game_100";
    assert_eq!(one(&r, arm, &[("id", "first_id")], "d1mr"), 6.0);
    assert_eq!(one(&r, arm, &[("id", "second_id")], "memcheck.errors"), 1.0);

    // Second source: iai-callgrind's own docs. show_intermediate: three thread parts
    // (27305, 0, 0 instructions) then `## Total` 27305; only the total lands, once.
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(
        wh.path(),
        &["iai/iai-callgrind-docs_threads_and_subprocesses.from-html.txt"],
    );
    let arm = "lib_bench_threads::my_group::bench_threads";
    let p = [("id", "two_threads"), ("args", "2")];
    assert_eq!(one(&r, arm, &p, "instructions"), 27305.0);
    assert_eq!(one(&r, arm, &p, "l1_hits"), 66353.0);
    assert_eq!(one(&r, arm, &p, "ll_hits"), 341.0);
    assert_eq!(one(&r, arm, &p, "ram_hits"), 539.0);
    assert_eq!(one(&r, arm, &p, "total_read_write"), 67233.0);
    assert_eq!(one(&r, arm, &p, "estimated_cycles"), 86923.0);
    assert_eq!(r.len(), 6);

    // compare_by_id: six benchmarks of 6 metrics; a worst case's `Comparison with` block
    // (63|66 for case_2) is the best case's figure, not the worst case's 66.
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(
        wh.path(),
        &["iai/iai-callgrind-docs_compare_by_id.from-html.txt"],
    );
    let worst = "my_benchmark::bubble_sort_group::bubble_sort_worst_case";
    let best = "my_benchmark::bubble_sort_group::bubble_sort_best_case";
    let case_2 = [("id", "case_2"), ("args", "vec! [2, 1]")];
    assert_eq!(one(&r, worst, &case_2, "instructions"), 66.0);
    assert_eq!(one(&r, worst, &case_2, "estimated_cycles"), 236.0);
    assert_eq!(
        one(&r, worst, &[("id", "multiple_1")], "total_read_write"),
        209.0
    );
    assert_eq!(
        one(
            &r,
            best,
            &[("id", "multiple_1"), ("args", "vec! [1, 2, 3, 4]")],
            "instructions"
        ),
        136.0
    );
    assert_eq!(r.len(), 36);
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn gab_custom_direction_from_the_tool_name() {
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(
        wh.path(),
        &["gab-custom/gab_customBiggerIsBetter_output.json"],
    );
    let f = find(
        &r,
        "My Custom Bigger Is Better Benchmark - Throughput",
        &[],
        "value",
    );
    assert_eq!(
        (f[0].value, f[0].unit.as_str(), f[0].better.as_str()),
        (70.0, "req/s", "higher")
    );
    let arm = "My Custom Bigger Is Better Benchmark - Free Memory";
    assert_eq!(one(&r, arm, &[], "value"), 150.0);
    assert_eq!(one(&r, arm, &[], "range"), 3.0);
    assert_eq!(find(&r, arm, &[], "value")[0].better, "higher");

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(
        wh.path(),
        &["gab-custom/gab_customSmallerIsBetter_output2.json"],
    );
    let f = find(&r, "Binary file", &[], "value");
    assert_eq!(
        (f[0].value, f[0].unit.as_str(), f[0].better.as_str()),
        (3886.75, "ns", "lower")
    );
    assert_eq!(one(&r, "Binary file", &[], "range"), 87.1657);
    assert_eq!(one(&r, "No instrumentation", &[], "value"), 90.9439);

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(
        wh.path(),
        &["gab-custom/gab_customSmallerIsBetter_output.json"],
    );
    // "range": "5%" of 50.
    assert_eq!(
        one(
            &r,
            "My Custom Smaller Is Better Benchmark - CPU Load",
            &[],
            "range"
        ),
        2.5
    );
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn bmf_measures_and_bounds() {
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["bmf/bencher_report_latency.json"]);
    let f = find(&r, "tests::benchmark_a", &[], "latency");
    assert_eq!(
        (f[0].value, f[0].unit.as_str(), f[0].better.as_str()),
        (3247.0, "ns", "lower")
    );
    assert_eq!(one(&r, "tests::benchmark_a", &[], "latency_lower"), 1044.0);
    assert_eq!(one(&r, "tests::benchmark_c", &[], "latency_upper"), 1093.0);

    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &["bmf/bencher_report_dhat.json"]);
    assert_eq!(one(&r, "bench_play_game", &[], "total_bytes"), 662.0);
    assert_eq!(one(&r, "bench_play_game", &[], "max_blocks"), 1.0);
    assert_eq!(r.len(), 6);
}

/// Issue 41: criterion's `--output-format bencher` lines (what github-action-benchmark's
/// `cargo` tool reads): ids with spaces and `/`, cargo's and criterion's warnings between
/// them, `+/-` criterion's standard deviation (made-here outputs of criterion 0.8.2).
#[test]
fn criterion_bencher_output_lands_ids_with_spaces_and_std_devs() {
    for (file, want) in [
        // stdout alone: `test text ops/to upper ... bench:          40 ns/iter (+/- 2)`
        (
            "libtest-bench/made-here_criterion0.8.2_bencher.txt",
            [(40.0, 2.0), (23.0, 4.0), (253.0, 37.0), (1654.0, 172.0)],
        ),
        // with cargo's stderr: a compiler warning block, `Finished`, `Running`
        (
            "libtest-bench/made-here_criterion0.8.2_bencher_merged.txt",
            [(27.0, 4.0), (18.0, 3.0), (197.0, 31.0), (1265.0, 97.0)],
        ),
        // criterion's `Warning: Unable to complete 10 samples in 10.0µs…` before the last
        (
            "libtest-bench/made-here_criterion0.8.2_bencher_warning.txt",
            [(20.0, 9.0), (12.0, 3.0), (140.0, 69.0), (851.0, 38.0)],
        ),
    ] {
        assert_eq!(
            perfhouse::ingest::detect(&fixture_path(&format!("tests/fixtures/{file}")))
                .unwrap()
                .name(),
            "criterion-bencher",
            "{file}"
        );
        let wh = tempfile::tempdir().unwrap();
        let r = ingest(wh.path(), &[file]);
        assert_eq!(r.len(), 8, "{file}: 4 benchmarks × 2 metrics");
        let ids = [
            "text ops/to upper",
            "text ops/split count",
            "join words/push str/8",
            "join words/push str/64",
        ];
        for (id, (median, std_dev)) in ids.iter().zip(want) {
            assert_eq!(one(&r, id, &[], "time_per_iter"), median, "{file} {id}");
            assert_eq!(
                one(&r, id, &[], "time_per_iter_std_dev"),
                std_dev,
                "{file} {id}"
            );
        }
        assert!(r.iter().all(|m| m.unit == "ns" && m.better == "lower"));
        assert_eq!(
            scalar(
                wh.path(),
                "select distinct source || ' ' || m.origin from runs join metrics m using (run_id)"
            ),
            "ingest:criterion-bencher criterion"
        );
    }
}

/// libtest's own output (made-here, nightly 1.97: `running 4 tests` … `test result:`) is
/// libtest-bench, its `+/-` the range of its samples; in one log of both harnesses (a crate
/// with a `#[bench]` target and a criterion one, as `cargo bench` prints them one after the
/// other: here the two made-here logs joined), each line is its harness's.
#[test]
fn criterion_and_libtest_lines_are_told_apart() {
    let libtest = "libtest-bench/made-here_libtest-nightly1.97_bench_merged.txt";
    let criterion = "libtest-bench/made-here_criterion0.8.2_bencher_merged.txt";
    let detect = |f: &str| {
        perfhouse::ingest::detect(&fixture_path(&format!("tests/fixtures/{f}")))
            .unwrap()
            .name()
    };
    assert_eq!(detect(libtest), "libtest-bench");
    assert_eq!(detect(criterion), "criterion-bencher");
    let wh = tempfile::tempdir().unwrap();
    let r = ingest(wh.path(), &[libtest]);
    // test benches::bench_fib_20    ... bench:      13,411.88 ns/iter (+/- 295.73)
    assert_eq!(
        one(&r, "benches::bench_fib_20", &[], "time_per_iter"),
        13411.88
    );
    assert_eq!(
        one(&r, "benches::bench_fib_20", &[], "time_per_iter_range"),
        295.73
    );
    assert_eq!(r.len(), 6, "3 benches × 2; the ignored one lands nothing");

    let dir = tempfile::tempdir().unwrap();
    let both = dir.path().join("cargo-bench.log");
    let text = std::fs::read_to_string(fixture(libtest)).unwrap()
        + &std::fs::read_to_string(fixture(criterion)).unwrap();
    std::fs::write(&both, text).unwrap();
    assert_eq!(
        perfhouse::ingest::detect(&both).unwrap().name(),
        "libtest-bench"
    );
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &["ingest", "--suite", "s", both.to_str().unwrap()],
    );
    let rows = query(
        wh.path(),
        "select t.arm, m.origin, m.name, m.value from metrics m join trials t using (run_id, trial_id) \
         where m.name <> 'time_per_iter' order by t.trial_id",
    );
    let got: Vec<(&str, &str, &str, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["arm"].as_str().unwrap(),
                r["origin"].as_str().unwrap(),
                r["name"].as_str().unwrap(),
                r["value"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "benches::bench_fib_10",
                "libtest",
                "time_per_iter_range",
                7.74
            ),
            (
                "benches::bench_fib_20",
                "libtest",
                "time_per_iter_range",
                295.73
            ),
            (
                "benches::bench_sort_1000",
                "libtest",
                "time_per_iter_range",
                473.24
            ),
            (
                "text ops/to upper",
                "criterion",
                "time_per_iter_std_dev",
                4.0
            ),
            (
                "text ops/split count",
                "criterion",
                "time_per_iter_std_dev",
                3.0
            ),
            (
                "join words/push str/8",
                "criterion",
                "time_per_iter_std_dev",
                31.0
            ),
            (
                "join words/push str/64",
                "criterion",
                "time_per_iter_std_dev",
                97.0
            ),
        ]
    );
}
