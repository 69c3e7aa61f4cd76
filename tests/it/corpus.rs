//! Issue 41 item 6: a corpus of real files per format, checked by one table-driven test over
//! the adapter registry. Every registered format must have an entry here: real files (made
//! here by running the tool, in `tests/fixtures/`; or written by other projects, in
//! `../shared/fixtures/`, each with its origin in its folder's README) and values each must
//! yield, read in the file (the check also finds the value's text in it). A format added to
//! the registry without real fixtures fails this test, unless it is listed in [`NO_REAL_FILE`]
//! with the reason none can be had. Where a format has one independent source only, its
//! entry says why.

use crate::common::*;

use perfhouse::ingest::{self, Format};

/// What a file must yield.
enum Yields {
    /// A trial of this arm ("" for any: the format names none) holds this metric with this
    /// value; `text` is how the file writes it (checked to be in the file; "" for a
    /// compressed file).
    Metric {
        arm: &'static str,
        name: &'static str,
        value: f64,
        text: &'static str,
    },
    /// This many request rows in all.
    Requests(usize),
    /// This many distinct stacks in all.
    Stacks(usize),
    /// A history: this many runs.
    Runs(usize),
}

use Yields::*;

/// One real file.
struct Real {
    /// Repository-relative path (`tests/fixtures/…`, `datasets/…`), resolved in the repository
    /// or the third-party fixtures folder.
    path: &'static str,
    /// Who wrote it: `made here: <tool version>`, or the project (its README names the commit
    /// and licence).
    source: &'static str,
    yields: &'static [Yields],
}

/// One format's real files; `one_source`: why there is no second independent one.
struct Entry {
    format: &'static str,
    files: &'static [Real],
    one_source: Option<&'static str>,
}

const fn real(path: &'static str, source: &'static str, yields: &'static [Yields]) -> Real {
    Real {
        path,
        source,
        yields,
    }
}

const fn metric(arm: &'static str, name: &'static str, value: f64, text: &'static str) -> Yields {
    Metric {
        arm,
        name,
        value,
        text,
    }
}

/// Formats no real file of which can be had here, and why.
const NO_REAL_FILE: &[(&str, &str)] = &[
    (
        "vllm-bench",
        "`vllm bench serve` needs vLLM, PyTorch and a model server, which these machines cannot run, \
         and no public repository holds a result file (tests/fixtures/vllm-bench/README.md): \
         its fixture is built from vLLM's source",
    ),
    (
        "lmcache-transfer",
        "LMCache's transfer-channel benchmark needs torch, a GPU and a NIXL transfer channel \
         (tests/fixtures/lmcache/README.md): its fixture is written by our generator",
    ),
    (
        "metrics-json",
        "perfhouse's own format: no other tool writes it (the example plans write it when they run)",
    ),
];

const CORPUS: &[Entry] = &[
    Entry {
        format: "aiperf",
        files: &[
            real(
                "tests/fixtures/aiperf-made-here/profile_export.jsonl",
                "made here: aiperf 0.13.0",
                &[Requests(20)],
            ),
            real(
                "tests/fixtures/aiperf-multirun/profile_runs/trial_0001/concurrency_4/profile_export.jsonl.gz",
                "made here: aiperf 0.13.0 --num-profile-runs 3",
                &[Requests(68)],
            ),
            real(
                "tests/fixtures/samples/aiperf/profile_export.docs-example.jsonl",
                "ai-dynamo/aiperf docs",
                &[Requests(2)],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "aiperf-aggregate",
        files: &[real(
            "tests/fixtures/aiperf-multirun/aggregate/concurrency_4/profile_export_aiperf_aggregate.json",
            "made here: aiperf 0.13.0 --num-profile-runs 3",
            &[metric(
                "",
                "aiperf_aggregate.request_latency.p99.mean",
                90.29529184333332,
                "90.29529184333332",
            )],
        )],
        one_source: Some(
            "aiperf ≥ 0.13 writes it; no public repository holds one (searched for `profile_export_aiperf_aggregate.json`)",
        ),
    },
    Entry {
        format: "aiperf-summary",
        files: &[
            real(
                "tests/fixtures/aiperf-multirun/profile_runs/trial_0001/concurrency_4/profile_export_aiperf.json",
                "made here: aiperf 0.13.0",
                &[metric(
                    "",
                    "aiperf.request_latency.p99",
                    87.08918840999999,
                    "87.08918840999999",
                )],
            ),
            real(
                "tests/fixtures/samples/aiperf/profile_export_aiperf.v0.8.json",
                "an aiperf 0.8 user's run (samples/aiperf/README.md)",
                &[metric(
                    "",
                    "aiperf.request_latency.p99",
                    54340.43933500999,
                    "54340.43933500999",
                )],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "asv",
        files: &[
            real(
                "tests/fixtures/asv/made-here-results",
                "made here: asv 0.6.6",
                &[
                    Runs(1),
                    metric(
                        "",
                        "benchmarks.Squares.time_squares",
                        8.190008699581897e-07,
                        "8.190008699581897e-07",
                    ),
                ],
            ),
            real(
                "tests/fixtures/asv/results",
                "made here: asv 0.6.6 (benches/asv-history.sh)",
                &[Runs(3)],
            ),
            real(
                "datasets/kedro-asv/results",
                "kedro-org/kedro's asv results",
                &[Runs(343)],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "gab-data-js",
        files: &[real(
            "tests/fixtures/gab-data-js/github-action-benchmark_gh-pages_data.js",
            "benchmark-action/github-action-benchmark gh-pages",
            &[
                Runs(1832),
                metric("", "bench_fib_10", 254.0, "\"value\": 254,"),
            ],
        )],
        one_source: Some(
            "a data.js is written by the action on GitHub's runners, never here; a second real history \
             (casbin/casbin's, Apache-2.0) was measured for issue 41 but is another project's file \
             and not kept (docs/src/moving.md)",
        ),
    },
    Entry {
        format: "criterion",
        files: &[
            real(
                "tests/fixtures/criterion/sum/iter/64/new/estimates.json",
                "made here: criterion 0.5.1",
                &[metric(
                    "iter",
                    "mean_ns",
                    11.843664857827502,
                    "11.843664857827502",
                )],
            ),
            real(
                "tests/fixtures/criterion-bare/made-here/text ops/to upper/new/estimates.json",
                "made here: criterion 0.8.2",
                &[metric(
                    "to upper",
                    "mean_ns",
                    35.42348273554812,
                    "35.42348273554812",
                )],
            ),
            real(
                "tests/fixtures/criterion-bare/garypen-deduplicate/criterion/get/moka get/1024/new/estimates.json",
                "garypen/deduplicate (criterion 0.4)",
                &[metric(
                    "moka get",
                    "mean_ns",
                    1926680.888095237,
                    "1926680.888095237",
                )],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "jmh",
        files: &[
            real(
                "tests/fixtures/jmh/gab_jmh_output.json",
                "benchmark-action/github-action-benchmark test data",
                &[metric(
                    "org.openjdk.jmh.samples.JMHSample_01_HelloWorld.wellHelloThere",
                    "throughput",
                    3376238873.1228185,
                    "3.3762388731228185E9",
                )],
            ),
            real(
                "tests/fixtures/jmh/bencher_six.json",
                "bencherdev/bencher test data",
                &[metric(
                    "com.github.caffeine.caffeine.cache.ComputeBenchmark.compute_sameKey",
                    "throughput",
                    152520132.34402195,
                    "1.5252013234402195E8",
                )],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "benchmarkdotnet",
        files: &[
            real(
                "tests/fixtures/benchmarkdotnet/gab_benchmarkdotnet.json",
                "benchmark-action/github-action-benchmark test data",
                &[metric(
                    "Sample.Benchmarks.Fib10",
                    "mean_time",
                    24.4202085009643,
                    "24.4202085009643",
                )],
            ),
            real(
                "tests/fixtures/benchmarkdotnet/bencher_memory.json",
                "bencherdev/bencher test data",
                &[metric(
                    "BenchmarkDotNet.Samples.Memory.AllocEmptyList",
                    "mean_time",
                    77.49449412027995,
                    "77.49449412027995",
                )],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "julia-benchmarktools",
        files: &[real(
            "tests/fixtures/julia-benchmarktools/gab_julia_output.json",
            "benchmark-action/github-action-benchmark test data",
            &[metric("fib", "time", 31028.0, "31028.0")],
        )],
        one_source: Some(
            "no other public repository keeps a BenchmarkTools.save file found in the searches; Julia is not installed here",
        ),
    },
    Entry {
        format: "bmf",
        files: &[real(
            "tests/fixtures/bmf/bencher_report_latency.json",
            "bencherdev/bencher test data",
            &[metric("tests::benchmark_a", "latency", 3247.0, "3247.0")],
        )],
        one_source: Some("Bencher's own format: only Bencher writes it"),
    },
    Entry {
        format: "gab-custom",
        files: &[
            real(
                "tests/fixtures/gab-custom/gab_customSmallerIsBetter_output2.json",
                "benchmark-action/github-action-benchmark test data",
                &[metric("No instrumentation", "value", 90.9439, "90.9439")],
            ),
            real(
                "tests/fixtures/gab-custom/gab_customBiggerIsBetter_output.json",
                "benchmark-action/github-action-benchmark test data",
                &[metric(
                    "My Custom Bigger Is Better Benchmark - Throughput",
                    "value",
                    70.0,
                    "70",
                )],
            ),
        ],
        one_source: Some(
            "the action's own JSON, written by hand by its users: its test data is the one public source",
        ),
    },
    Entry {
        format: "catch2-xml",
        files: &[
            real(
                "tests/fixtures/catch2/made-here_catch2-2.13.10_xml.xml",
                "made here: Catch2 2.13.10",
                &[metric(
                    "fib 10",
                    "mean_time",
                    44.8384,
                    "<mean value=\"44.8384\"",
                )],
            ),
            real(
                "tests/fixtures/catch2/convolution_gnu_linux_avx2.xml",
                "JohT/convolution-benchmarks (Catch2 3.15)",
                &[metric(
                    "(JohT) kernelPerInputValue Transposed((kernel size 16))",
                    "mean_time",
                    123208.0,
                    "<mean value=\"123208\"",
                )],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "iai",
        files: &[
            real(
                "tests/fixtures/iai/bencher_iai_two.txt",
                "bencherdev/bencher test data (iai 0.1)",
                &[metric(
                    "bench_fibonacci_short",
                    "instructions",
                    1735.0,
                    "1735",
                )],
            ),
            real(
                "tests/fixtures/iai/iai-callgrind-docs_threads_and_subprocesses.from-html.txt",
                "iai-callgrind's documentation",
                &[metric(
                    "lib_bench_threads::my_group::bench_threads",
                    "instructions",
                    27305.0,
                    "27305",
                )],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "criterion-bencher",
        files: &[
            real(
                "tests/fixtures/libtest-bench/made-here_criterion0.8.2_bencher.txt",
                "made here: criterion 0.8.2",
                &[metric(
                    "text ops/to upper",
                    "time_per_iter",
                    40.0,
                    "40 ns/iter",
                )],
            ),
            real(
                "tests/fixtures/libtest-bench/made-here_criterion0.8.2_bencher_warning.txt",
                "made here: criterion 0.8.2",
                &[metric(
                    "join words/push str/64",
                    "time_per_iter_std_dev",
                    38.0,
                    "851 ns/iter (+/- 38)",
                )],
            ),
        ],
        one_source: Some(
            "github-action-benchmark's test data holds one (criterion_output.txt) but it is not in \
             the shared fixtures folder; both files here are criterion 0.8.2's",
        ),
    },
    Entry {
        format: "libtest-bench",
        files: &[
            real(
                "tests/fixtures/libtest-bench/made-here_libtest-nightly1.97_bench.txt",
                "made here: libtest of rustc 1.97.0-nightly",
                &[metric(
                    "benches::bench_fib_20",
                    "time_per_iter",
                    25364.72,
                    "25,364.72",
                )],
            ),
            real(
                "tests/fixtures/libtest-bench/gab_cargo_output.txt",
                "benchmark-action/github-action-benchmark test data",
                &[metric("bench_fib_20", "time_per_iter", 18149.0, "18,149")],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "go-bench",
        files: &[
            real(
                "tests/fixtures/go-bench/made-here_go1.19_benchmem_count3.txt",
                "made here: go 1.19",
                &[metric("BenchmarkSum", "time_per_op", 28.56, "28.56 ns/op")],
            ),
            real(
                "tests/fixtures/go-bench/gab_go_output.txt",
                "benchmark-action/github-action-benchmark test data",
                &[metric("BenchmarkFib10", "time_per_op", 325.0, "325 ns/op")],
            ),
            real(
                "tests/fixtures/go-bench/golang-perf_old.txt",
                "golang/perf benchfmt test data",
                &[metric(
                    "BenchmarkEncode",
                    "time_per_op",
                    1726.0,
                    "1726 ns/op",
                )],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "catch2",
        files: &[
            real(
                "tests/fixtures/catch2/made-here_catch2-2.13.10_console.txt",
                "made here: Catch2 2.13.10",
                &[metric("fib 10", "mean_time", 227.755, "227.755 ns")],
            ),
            real(
                "tests/fixtures/catch2/gab_catch2_output_v2.txt",
                "benchmark-action/github-action-benchmark test data",
                &[metric("Fibonacci 10", "mean_time", 344.0, "344 ns")],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "asv-console",
        files: &[
            real(
                "tests/fixtures/asv-console/made-here_asv0.6.6_run.txt",
                "made here: asv 0.6.6",
                &[metric(
                    "",
                    "benchmarks.TimeSuite.time_word_counts",
                    12.3e-6,
                    "12.3±0.3μs",
                )],
            ),
            real(
                "tests/fixtures/asv-console/made-here_asv0.6.6_run-quick-show-stderr_params.txt",
                "made here: asv 0.6.6",
                &[metric("", "grid.Grid.time_join", 5.55e-6, "5.55±0μs")],
            ),
        ],
        one_source: Some(
            "Bencher's test data holds an asv 0.5 log (python/asv/six.txt), not in the shared \
             fixtures folder; its shape is checked by a synthetic unit test (src/ingest/asv_console.rs)",
        ),
    },
    Entry {
        format: "benchmarkjs",
        files: &[
            real(
                "tests/fixtures/benchmarkjs/made-here_benchmarkjs-2.1.4_node20.txt",
                "made here: benchmark.js 2.1.4, Node 20",
                &[metric(
                    "RegExp#test",
                    "ops_per_sec",
                    46455633.0,
                    "46,455,633 ops/sec",
                )],
            ),
            real(
                "tests/fixtures/benchmarkjs/gab_benchmarkjs_output.txt",
                "benchmark-action/github-action-benchmark test data",
                &[metric("fib(20)", "ops_per_sec", 12146.0, "12,146 ops/sec")],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "hyperfine",
        files: &[
            real(
                "tests/fixtures/hyperfine/params.json",
                "made here: hyperfine 1.15.0",
                &[metric(
                    "sleep 0.00{ms}",
                    "wall_time_s",
                    0.001620632,
                    "0.001620632",
                )],
            ),
            real(
                "tests/fixtures/hyperfine/made-here_hyperfine-1.15.0_L_two_lists.json",
                "made here: hyperfine 1.15.0",
                &[metric(
                    "{algo} -{level} -c input.txt > /dev/null",
                    "wall_time_s",
                    0.0010113770400000002,
                    "0.0010113770400000002",
                )],
            ),
        ],
        one_source: Some(
            "hyperfine runs here, so both files are ours: no other project's export was needed",
        ),
    },
    Entry {
        format: "guidellm",
        files: &[
            real(
                "tests/fixtures/guidellm/benchmarks.json",
                "made here: GuideLLM 0.8.1",
                &[metric(
                    "",
                    "guidellm.time_to_first_token_ms.mean",
                    4.299420118331909,
                    "4.299420118331909",
                )],
            ),
            real(
                "tests/fixtures/guidellm-extra/guidellm-v0.3.0_benchmarks_stripped.json",
                "a GuideLLM 0.3.0 user's report (guidellm-extra/README.md)",
                &[metric(
                    "",
                    "guidellm.inter_token_latency_ms.mean",
                    4.941609043733832,
                    "4.941609043733832",
                )],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "gbench",
        files: &[
            real(
                "tests/fixtures/samples/google-benchmark/made-here_gbench-1.7.1_repetitions3.json",
                "made here: Google Benchmark 1.7.1",
                &[metric(
                    "BM_Sum",
                    "real_time",
                    20.284403090192278,
                    "2.0284403090192278e+01",
                )],
            ),
            real(
                "tests/fixtures/samples/google-benchmark/test1_run1.json",
                "google/benchmark's compare.py test data",
                &[metric(
                    "BM_2xFaster",
                    "real_time",
                    50.0,
                    "\"real_time\": 50,",
                )],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "pytest-benchmark",
        files: &[
            real(
                "tests/fixtures/samples/pytest-benchmark/made-here_pytest-benchmark5.3.1.json",
                "made here: pytest-benchmark 5.3.1",
                &[metric(
                    "test_sorted_list",
                    "min",
                    1.4921999991202028e-05,
                    "1.4921999991202028e-05",
                )],
            ),
            real(
                "tests/fixtures/samples/pytest-benchmark/0030_5b78858eb718649a31fb93d8dc96ca2cee41a4cd_20150815_030419_uncommitted-changes.json",
                "ionelmc/pytest-benchmark test data",
                &[metric(
                    "test_xfast_parametrized",
                    "min",
                    2.1795109087242604e-07,
                    "2.1795109087242604e-07",
                )],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "perf-script",
        files: &[
            real(
                "tests/fixtures/samples/perf-script/made-here_perf6.1_cpu-clock_spin.txt",
                "made here: perf 6.1",
                &[Stacks(3)],
            ),
            real(
                "tests/fixtures/samples/perf-script/inferno-collapse-perf_java-inline.txt",
                "jonhoo/inferno test data",
                &[Stacks(13)],
            ),
        ],
        one_source: None,
    },
    Entry {
        format: "perf-stat",
        files: &[
            real(
                "tests/fixtures/perf-stat/made-here_perf-6.1_text.txt",
                "made here: perf 6.1",
                &[metric("", "task_clock", 8540000.0, "8.54 msec task-clock")],
            ),
            real(
                "tests/fixtures/perf-stat/made-here_perf-6.1_x-comma.csv",
                "made here: perf 6.1 -x,",
                &[metric("", "task_clock", 8630000.0, "")],
            ),
        ],
        one_source: Some("perf runs here, so its outputs are ours; no other project's was needed"),
    },
    Entry {
        format: "folded",
        files: &[
            real(
                "tests/fixtures/samples/folded/made-here_inferno0.12.8_collapse-perf_spin.folded",
                "made here: inferno 0.12.8",
                &[Stacks(3)],
            ),
            real(
                "tests/fixtures/samples/folded/bcc-offcputime-f.example.folded",
                "iovisor/bcc's example",
                &[Stacks(47)],
            ),
        ],
        one_source: None,
    },
];

/// Every (arm, metric, value) a file parses into, or its history's runs, requests and stacks.
struct Landed {
    metrics: Vec<(String, String, f64)>,
    requests: usize,
    stacks: usize,
    runs: usize,
}

fn land(
    adapter: &'static dyn ingest::adapter::Adapter,
    path: &std::path::Path,
) -> Result<Landed, String> {
    let mut out = Landed {
        metrics: Vec::new(),
        requests: 0,
        stacks: 0,
        runs: 0,
    };
    let mut take = |trials: Vec<ingest::ParsedTrial>| {
        for t in trials {
            out.requests += t.requests.len();
            out.stacks += t.stacks.len();
            let arm = t.arm.unwrap_or_default();
            out.metrics.extend(
                t.metrics
                    .into_iter()
                    .map(|m| (arm.clone(), m.name, m.value)),
            );
        }
    };
    if adapter.many_runs() {
        let history = adapter.history(path).map_err(|e| e.to_string())?;
        let runs = history.runs.len();
        for r in history.runs {
            take(r.trials);
        }
        out.runs = runs;
    } else {
        let detected = ingest::detect(path).map_err(|e| e.to_string())?;
        if detected.name() != adapter.name() {
            return Err(format!("detected as {}", detected.name()));
        }
        let parsed = ingest::parse_file(path, Format::of(adapter)).map_err(|e| e.to_string())?;
        take(parsed.trials);
    }
    Ok(out)
}

#[test]
fn every_format_has_real_files_that_land_the_values_they_hold() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for adapter in ingest::ADAPTERS {
        let name = adapter.name();
        let entry = CORPUS.iter().find(|e| e.format == name);
        let waived = NO_REAL_FILE.iter().any(|(f, _)| *f == name);
        let Some(entry) = entry else {
            if !waived {
                wrong.push(format!(
                    "{name}: no real file in the corpus (tests/it/corpus.rs): make one with the real tool, or say in NO_REAL_FILE why none can be had"
                ));
            }
            continue;
        };
        if waived || entry.files.is_empty() {
            wrong.push(format!(
                "{name}: both in the corpus and waived, or an empty entry"
            ));
        }
        let sources: std::collections::BTreeSet<&str> = entry
            .files
            .iter()
            .map(|f| f.source.split(':').next().unwrap_or(f.source))
            .collect();
        if sources.len() < 2 && entry.one_source.is_none() {
            wrong.push(format!(
                "{name}: one independent source: say why there is no second"
            ));
        }
        for file in entry.files {
            let path = perfhouse::fixtures::resolve_fixture(&repo(), file.path);
            if !path.exists() {
                // Another project's file, on a clone without the shared folder (CI has it).
                assert!(
                    !file.source.starts_with("made here") && !cfg!(shared_fixtures),
                    "{}: missing",
                    file.path
                );
                continue;
            }
            let landed = match land(*adapter, &path) {
                Ok(l) => l,
                Err(e) => {
                    wrong.push(format!("{name}: {}: {e}", file.path));
                    continue;
                }
            };
            checked += 1;
            let text = if path.is_file() {
                String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()
            } else {
                String::new()
            };
            for y in file.yields {
                let ok = match y {
                    Metric {
                        arm,
                        name: m,
                        value,
                        text: shown,
                    } => {
                        if !shown.is_empty() && !path.is_dir() && !text.contains(shown) {
                            wrong.push(format!(
                                "{name}: {}: `{shown}` is not in the file",
                                file.path
                            ));
                        }
                        landed
                            .metrics
                            .iter()
                            .any(|(a, n, v)| (arm.is_empty() || a == arm) && n == m && v == value)
                    }
                    Requests(n) => landed.requests == *n,
                    Stacks(n) => landed.stacks == *n,
                    Runs(n) => landed.runs == *n,
                };
                if !ok {
                    let yields = match y {
                        Metric {
                            arm, name, value, ..
                        } => format!("{arm:?} {name} = {value}"),
                        Requests(n) => format!("{n} requests (landed {})", landed.requests),
                        Stacks(n) => format!("{n} stacks (landed {})", landed.stacks),
                        Runs(n) => format!("{n} runs (landed {})", landed.runs),
                    };
                    wrong.push(format!("{name}: {}: does not yield {yields}", file.path));
                }
            }
        }
    }
    for e in CORPUS {
        if !ingest::ADAPTERS.iter().any(|a| a.name() == e.format) {
            wrong.push(format!(
                "{}: in the corpus, not a registered format",
                e.format
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every file with the shared folder; the made-here ones alone on a clone without it.
    let files = CORPUS.iter().flat_map(|e| e.files.iter());
    let want = if cfg!(shared_fixtures) {
        files.count()
    } else {
        files.filter(|f| f.source.starts_with("made here")).count()
    };
    assert_eq!(checked, want, "files checked");
}
