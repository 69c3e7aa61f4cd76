//! Issue 30 item 2 (real files of formats perfhouse reads that failed) and item 5 (detection
//! says what it saw). Each test ingests the real fixture that failed before, detected by
//! `--format auto`, and checks what lands against the file (read by hand, or, for perf script,
//! against inferno's collapse-perf run here independently).

use std::collections::BTreeMap;
use std::path::Path;

use crate::common;

use common::*;

/// The run's source (`ingest:<format>`) of the warehouse's only run.
fn source(wh: &Path) -> String {
    scalar(wh, "select source from runs")
        .as_str()
        .unwrap()
        .to_string()
}

/// Stored stacks, weight summed per stack.
fn stacks(wh: &Path) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    for r in query(wh, "select stack, weight from stacks") {
        *m.entry(r["stack"].as_str().unwrap().to_string())
            .or_insert(0.0) += r["weight"].as_f64().unwrap();
    }
    m
}

/// Metrics of one trial, by name.
fn metrics(wh: &Path, trial: i64) -> BTreeMap<String, f64> {
    query(
        wh,
        &format!("select name, value from metrics where trial_id = {trial}"),
    )
    .into_iter()
    .map(|r| {
        (
            r["name"].as_str().unwrap().to_string(),
            r["value"].as_f64().unwrap(),
        )
    })
    .collect()
}

/// The error an ingest fails with (stderr), asserting it fails.
fn refused(wh: &Path, args: &[&str]) -> String {
    let o = perfhouse(wh, args);
    assert!(!o.status.success(), "{args:?} should fail: {}", stdout(&o));
    stderr(&o)
}

/// inferno's collapse-perf (the library, default options) of a file, summed per stack.
fn inferno_collapse(path: &str) -> BTreeMap<String, f64> {
    use inferno::collapse::Collapse;
    let mut options = inferno::collapse::perf::Options::default();
    options.nthreads = 1;
    let mut out = Vec::new();
    inferno::collapse::perf::Folder::from(options)
        .collapse(&std::fs::read(path).unwrap()[..], &mut out)
        .unwrap();
    let mut m = BTreeMap::new();
    for line in String::from_utf8(out).unwrap().lines() {
        let (stack, w) = line.rsplit_once(' ').unwrap();
        *m.entry(stack.to_string()).or_insert(0.0) += w.parse::<f64>().unwrap();
    }
    m
}

/// The last record of FlameGraph's `perf-vertx-stacks-01.txt` (event line 9918, `java  3278
/// cpu-clock: `, 67 frames, the file's end with no blank line after it), root first: line 42
/// of jonhoo/FlameGraph @ 57207afb `test/results/perf-vertx-stacks-01-collapsed-all.txt`
/// without the `_[j]`/`_[k]` annotations of `--all`.
const VERTX_LAST_STACK: [&str; 68] = [
    "java",
    "start_thread",
    "java_start",
    "JavaThread::run",
    "JavaThread::thread_main_inner",
    "thread_entry",
    "JavaCalls::call_virtual",
    "JavaCalls::call_virtual",
    "JavaCalls::call_helper",
    "call_stub",
    "Interpreter",
    "Interpreter",
    "io/netty/channel/nio/NioEventLoop:.run",
    "io/netty/channel/nio/NioEventLoop:.processSelectedKeys",
    "io/netty/channel/nio/NioEventLoop:.processSelectedKeysOptimized",
    "io/netty/channel/nio/NioEventLoop:.processSelectedKey",
    "io/netty/channel/nio/AbstractNioByteChannel$NioByteUnsafe:.read",
    "io/netty/channel/AbstractChannelHandlerContext:.fireChannelReadComplete",
    "io/netty/handler/codec/ByteToMessageDecoder:.channelReadComplete",
    "io/netty/channel/AbstractChannelHandlerContext:.fireChannelReadComplete",
    "org/vertx/java/core/net/impl/VertxHandler:.channelReadComplete",
    "io/netty/channel/AbstractChannelHandlerContext:.flush",
    "io/netty/channel/ChannelDuplexHandler:.flush",
    "io/netty/channel/AbstractChannelHandlerContext:.flush",
    "io/netty/channel/ChannelOutboundHandlerAdapter:.flush",
    "io/netty/channel/AbstractChannelHandlerContext:.flush",
    "io/netty/channel/DefaultChannelPipeline$HeadContext:.flush",
    "io/netty/channel/AbstractChannel$AbstractUnsafe:.flush0",
    "io/netty/channel/nio/AbstractNioByteChannel:.doWrite",
    "io/netty/buffer/PooledUnsafeDirectByteBuf:.readBytes",
    "sun/nio/ch/SocketChannelImpl:.write",
    "sun/nio/ch/FileDispatcherImpl:.write0",
    "write",
    "system_call_fastpath",
    "sys_write",
    "vfs_write",
    "do_sync_write",
    "sock_aio_write",
    "do_sock_write.isra.10",
    "inet_sendmsg",
    "tcp_sendmsg",
    "__tcp_push_pending_frames",
    "tcp_write_xmit",
    "tcp_transmit_skb",
    "ip_queue_xmit",
    "ip_local_out",
    "ip_output",
    "ip_finish_output",
    "dev_queue_xmit",
    "local_bh_enable",
    "do_softirq",
    "call_softirq",
    "__do_softirq",
    "net_rx_action",
    "process_backlog",
    "__netif_receive_skb",
    "ip_rcv",
    "ip_rcv_finish",
    "ip_local_deliver",
    "ip_local_deliver_finish",
    "tcp_v4_rcv",
    "tcp_v4_do_rcv",
    "tcp_rcv_established",
    "tcp_ack",
    "tcp_clean_rtx_queue",
    "__kfree_skb",
    "skb_release_data",
    "skb_release_data.part.45",
];

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn perf_script_of_older_perf_without_timestamps_lands_as_inferno_collapses_it() {
    // (file, samples, one stack read by hand and its weight). Samples: the event lines
    // (`grep -c cpu-clock:` = 2 and 286), which is also the sum of the counts of inferno's own
    // expected collapse (its `flamegraph` submodule, jonhoo/FlameGraph @ 57207afb,
    // `test/results/perf-{js,vertx}-stacks-01-collapsed-*.txt`: 2 and 286). Upstream
    // brendangregg/FlameGraph's results say 285 for vertx: its stackcollapse-perf.pl drops
    // the last record because the file ends without a blank line after it (fixed in
    // jonhoo/FlameGraph f5b296af "Include last stack in perf collapser", which inferno follows).
    let cases = [
        (
            "perf-script-old/perf-js-stacks-01.txt",
            2.0,
            "node-v011;__libc_start_main;node::Start;uv_run;uv__io_poll;uv__async_io;\
             uv__async_event;uv__work_done;node::After;v8::Function::Call;\
             v8::internal::Execution::Call;v8::internal::Invoke;Stub:JSEntryStub;\
             Builtin:A builtin from the snapshot;LazyCompile:_tickDomainCallback node.js:387;\
             LazyCompile:*Async$consumeFunctionBuffer \
             /apps/node/webapp/node_modules/xxxxx/js/main/async.js:39;\
             v8::internal::Execution::Call;LazyCompile:~body_0 evalmachine.<anonymous>:1;\
             RegExp:[&<>\\\"\\']",
            1.0,
        ),
        (
            "perf-script-old/perf-vertx-stacks-01.txt",
            286.0,
            "java;start_thread;java_start;GCTaskThread::run;StealTask::do_it;SpinPause",
            7.0,
        ),
    ];
    let vertx = {
        let wh = tempfile::tempdir().unwrap();
        ok(
            wh.path(),
            &[
                "ingest",
                "--suite",
                "p",
                &fixture("perf-script-old/perf-vertx-stacks-01.txt"),
            ],
        );
        stacks(wh.path())
    };
    // 199 distinct stacks in FlameGraph's 285-sample result, 200 with the last record.
    assert_eq!(vertx.len(), 200);
    assert_eq!(vertx.get(&VERTX_LAST_STACK.join(";")), Some(&1.0));
    for (file, samples, stack, weight) in cases {
        let wh = tempfile::tempdir().unwrap();
        let path = fixture(file);
        ok(wh.path(), &["ingest", "--suite", "p", &path]);
        assert_eq!(source(wh.path()), "ingest:perf-script", "{file}");
        let stored = stacks(wh.path());
        assert_eq!(stored.values().sum::<f64>(), samples, "{file}");
        assert_eq!(stored.get(stack), Some(&weight), "{file}: {stored:#?}");
        assert_eq!(stored, inferno_collapse(&path), "{file}");
    }
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn folded_comment_lines_are_not_stacks_and_do_not_defeat_detection() {
    // (file, sample lines, their total weight: `awk '!/^#/ && NF {n++; s+=$NF}'`)
    for (file, lines, total) in [
        ("folded-comments/austin-python_austin.out", 73, 725_583.0),
        (
            "folded-comments/austin-python_repeat.austin.trimmed",
            189,
            187_511.0,
        ),
        (
            "folded-comments/austin-python_test.austin.trimmed",
            87,
            13_756.0,
        ),
    ] {
        let wh = tempfile::tempdir().unwrap();
        let o = perfhouse(wh.path(), &["ingest", "--suite", "a", &fixture(file)]);
        assert!(o.status.success(), "{file}: {}", stderr(&o));
        assert!(!stderr(&o).contains("invalid format"), "{}", stderr(&o));
        assert_eq!(source(wh.path()), "ingest:folded", "{file}");
        let stored = stacks(wh.path());
        assert!(stored.keys().all(|s| !s.starts_with('#')), "{stored:#?}");
        assert_eq!(stored.values().sum::<f64>(), total, "{file}");
        let rows = scalar(wh.path(), "select count(*) from stacks");
        assert!(rows.as_i64().unwrap() <= lines, "{file}: {rows}");
    }
    // The sample after austin 4's footer lands; a frame-less sample is the process;thread.
    let wh = tempfile::tempdir().unwrap();
    let path = fixture("folded-comments/austin-python_repeat.austin.trimmed");
    ok(wh.path(), &["ingest", "--suite", "a", &path]);
    assert_eq!(stacks(wh.path()).get("P1155;T0:8306874560"), Some(&957.0));
}

/// The figures GuideLLM 0.3's report holds for its one (synchronous) benchmark, read by hand.
fn check_guidellm_03(wh: &Path) {
    assert_eq!(source(wh), "ingest:guidellm");
    let t = query(wh, "select trial_id, params from trials");
    assert_eq!(t.len(), 1);
    assert_eq!(
        t[0]["params"].as_str().unwrap(),
        r#"{"concurrency":"1","strategy":"synchronous"}"#
    );
    let m = metrics(wh, t[0]["trial_id"].as_i64().unwrap());
    for (name, value) in [
        ("guidellm.requests.successful", 46.0),
        ("guidellm.requests.errored", 0.0),
        ("guidellm.requests.incomplete", 1.0),
        ("guidellm.requests.total", 47.0),
        ("guidellm.duration", 29.997201442718506),
        ("guidellm.request_latency.mean", 0.6444743664368339),
        ("guidellm.request_latency.median", 0.6424565315246582),
        ("guidellm.request_latency.std_dev", 0.008009110982988258),
        ("guidellm.request_latency.p90", 0.6488735675811768),
        ("guidellm.request_latency.p99", 0.6891846656799316),
        ("guidellm.requests_per_second.mean", 1.5481806532737452),
        ("guidellm.time_to_first_token_ms.p95", 19.00935173034668),
        ("guidellm.prompt_token_count.median", 257.0),
        ("guidellm.prompt_tokens.sum", 257.0),
    ] {
        assert_eq!(m.get(name), Some(&value), "{name}: {m:#?}");
    }
    // Not in the file: 0.3 distributions have no p50, its records no cached_tokens.
    assert!(!m.contains_key("guidellm.request_latency.p50"));
    assert!(!m.contains_key("guidellm.cached_tokens.sum"), "{m:#?}");
    // The one saved request: start/end (epoch s), TTFT (ms), tokens.
    let r = query(
        wh,
        "select start_ns, end_ns, ttft_ns, input_tokens, output_tokens, credit_ns from requests",
    );
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["start_ns"].as_i64(), Some(1_749_157_168_182_700_288));
    assert_eq!(r[0]["end_ns"].as_i64(), Some(1_749_157_168_871_885_056));
    assert_eq!(r[0]["ttft_ns"].as_i64(), Some(21_281_958));
    assert_eq!(r[0]["input_tokens"].as_i64(), Some(257));
    assert_eq!(r[0]["output_tokens"].as_i64(), Some(128));
    assert_eq!(r[0]["credit_ns"].as_i64(), Some(1_749_157_168_179_883_008));
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn guidellm_03_reports_land_as_json_and_as_yaml() {
    let json = tempfile::tempdir().unwrap();
    let path = fixture("guidellm-extra/guidellm-v0.3.0_benchmarks_stripped.json");
    ok(json.path(), &["ingest", "--suite", "g", &path]);
    check_guidellm_03(json.path());
    let yaml = tempfile::tempdir().unwrap();
    let path = fixture("guidellm-extra/guidellm-v0.3.0_benchmarks_stripped.yaml");
    ok(yaml.path(), &["ingest", "--suite", "g", &path]);
    check_guidellm_03(yaml.path());
    // The same report, the same figures, value for value.
    let all = "select name, value from metrics order by name";
    assert_eq!(query(json.path(), all), query(yaml.path(), all));
    // Given as guidellm explicitly too.
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &["ingest", "--suite", "g", "--format", "guidellm", &path],
    );
    check_guidellm_03(wh.path());
}

#[test]
fn guidellm_sums_land_only_where_the_records_hold_the_value() {
    // The schema-2 fixture's records hold `cached_tokens` (192 × 40 = 7680 in the first
    // benchmark, 0 in the others): summed as they are.
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "g",
            &fixture("guidellm/benchmarks.json"),
        ],
    );
    let sums: Vec<f64> = query(
        wh.path(),
        "select value from metrics where name = 'guidellm.cached_tokens.sum' order by trial_id",
    )
    .iter()
    .map(|r| r["value"].as_f64().unwrap())
    .collect();
    assert_eq!(sums, [7680.0, 0.0, 0.0]);
    assert!(sums.iter().all(|s| s.is_sign_positive()));
    // The same report from a server that reports no cached tokens: no sum is made up.
    let mut doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("guidellm/benchmarks.json")).unwrap(),
    )
    .unwrap();
    for b in doc["benchmarks"].as_array_mut().unwrap() {
        for r in b["requests"]["successful"].as_array_mut().unwrap() {
            r["cached_tokens"] = serde_json::Value::Null;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("benchmarks.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &["ingest", "--suite", "g", path.to_str().unwrap()],
    );
    let n = scalar(
        wh.path(),
        "select count(*) from metrics where name = 'guidellm.cached_tokens.sum'",
    );
    assert_eq!(n, 0);
}

#[test]
fn vllm_append_result_file_is_one_trial_per_line() {
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "v",
            &fixture("vllm-append-result/append_result.json"),
        ],
    );
    assert_eq!(source(wh.path()), "ingest:vllm-bench");
    let trials = query(wh.path(), "select trial_id, params from trials order by 1");
    assert_eq!(trials.len(), 2);
    // Both lines are ../vllm-bench/result.json (README): its values, read by hand.
    for t in trials {
        assert_eq!(t["params"].as_str().unwrap(), r#"{"concurrency":"8"}"#);
        let m = metrics(wh.path(), t["trial_id"].as_i64().unwrap());
        assert_eq!(m["vllm.request_throughput"], 12.903225806451614);
        assert_eq!(m["vllm.duration"], 0.31);
        assert_eq!(m["vllm.completed"], 4.0);
        assert_eq!(m["vllm.mean_ttft_ms"], 44.4);
        assert_eq!(m["vllm.p99_e2el_ms"], 84.45799999999998);
        assert!(!m.contains_key("vllm.request_goodput")); // null in the file
    }
}

const CRITERION: &str = "criterion-bare/garypen-deduplicate/criterion/get";

/// `mean.point_estimate` of an estimates file.
fn criterion_mean(rel: &str) -> f64 {
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(rel)).unwrap()).unwrap();
    doc["mean"]["point_estimate"].as_f64().unwrap()
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn criterion_estimates_outside_new_land_as_their_baseline_or_are_refused() {
    // A saved baseline given by path: detected by content, the benchmark's arm, `baseline`.
    for dir in ["base", "0.3.2", "0.3.6"] {
        let wh = tempfile::tempdir().unwrap();
        let rel = format!("{CRITERION}/moka get/1024/{dir}/estimates.json");
        ok(wh.path(), &["ingest", "--suite", "c", &fixture(&rel)]);
        assert_eq!(source(wh.path()), "ingest:criterion");
        let t = query(wh.path(), "select trial_id, arm, params from trials");
        assert_eq!(t[0]["arm"], "moka get", "{dir}");
        assert_eq!(
            t[0]["params"].as_str().unwrap(),
            format!(r#"{{"baseline":"{dir}","group":"get","value":"1024"}}"#)
        );
        let m = metrics(wh.path(), t[0]["trial_id"].as_i64().unwrap());
        assert_eq!(m["mean_ns"], criterion_mean(&rel), "{dir}");
    }
    // A directory walk takes the current measurements (`new/`) only.
    let wh = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &["ingest", "--suite", "c", &fixture("criterion-bare")],
    );
    let arms: Vec<String> = query(wh.path(), "select arm, params from trials order by arm")
        .iter()
        .map(|t| format!("{} {}", t["arm"], t["params"]))
        .collect();
    assert_eq!(
        arms,
        [
            r#""deduplicate get" "{\"group\":\"get\",\"value\":\"1024\"}""#,
            r#""moka get" "{\"group\":\"get\",\"value\":\"1024\"}""#,
        ]
    );
    // change/estimates.json holds relative changes: never times, by detection or by name.
    let change = fixture(&format!("{CRITERION}/moka get/1024/change/estimates.json"));
    let e = refused(wh.path(), &["ingest", "--suite", "c", &change]);
    assert!(e.contains("closest format: criterion"), "{e}");
    assert!(e.contains("relative changes"), "{e}");
    let e = refused(
        wh.path(),
        &["ingest", "--suite", "c", "--format", "criterion", &change],
    );
    assert!(e.contains("relative changes"), "{e}");
    // A bare estimates.json, copied alone: its directory names the benchmark, whether
    // detected or given as criterion (before: the grandparent's name).
    let tmp = tempfile::tempdir().unwrap();
    let bare = tmp.path().join("results/my bench/estimates.json");
    std::fs::create_dir_all(bare.parent().unwrap()).unwrap();
    let rel = format!("{CRITERION}/deduplicate get/1024/new/estimates.json");
    std::fs::copy(fixture(&rel), &bare).unwrap();
    for format in ["auto", "criterion"] {
        let wh = tempfile::tempdir().unwrap();
        let args = ["ingest", "--suite", "c", "--format", format];
        ok(wh.path(), &[&args[..], &[bare.to_str().unwrap()]].concat());
        let t = query(wh.path(), "select trial_id, arm, params from trials");
        assert_eq!(t[0]["arm"], "my bench", "{format}");
        assert_eq!(t[0]["params"], "{}", "{format}");
        let m = metrics(wh.path(), t[0]["trial_id"].as_i64().unwrap());
        assert_eq!(m["mean_ns"], criterion_mean(&rel));
    }
}

#[test]
fn unrecognised_input_names_the_closest_format_and_the_line_that_failed_it() {
    let tmp = tempfile::tempdir().unwrap();
    let wh = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &[&str]); 5] = [
        // A vLLM result without request_throughput: which keys it has, which it lacks.
        (
            "result.json",
            r#"{"duration": 0.31, "completed": 4, "mean_ttft_ms": 44.4}"#,
            &["closest format: vllm-bench", "lacks `request_throughput`"],
        ),
        // perf script frames under a first line that is no event line.
        (
            "perf.txt",
            "# header\nnot an event line\n\t  7f9c33ac176d __libc_start_main (/lib/libc.so)\n",
            &["closest format: perf-script", "line 2, `not an event line`"],
        ),
        // Folded frames without a count.
        (
            "stacks.folded",
            "# interval: 100\nmain;work;spin\n",
            &["closest format: folded", "line 2, `main;work;spin`"],
        ),
        // Nothing close: the first non-blank line, truncated.
        (
            "notes.txt",
            &format!("\n  hello {}\n", "x".repeat(200)),
            &["line 2, `hello xxxx", "…`, starts no known format"],
        ),
        // JSON nothing reads: its keys.
        (
            "other.json",
            r#"{"alpha": 1, "beta": [2]}"#,
            &["a JSON object with keys `alpha`, `beta`"],
        ),
    ];
    for (name, text, wanted) in cases {
        let path = tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        let e = refused(
            wh.path(),
            &["ingest", "--suite", "u", path.to_str().unwrap()],
        );
        assert!(e.contains("unrecognised input"), "{e}");
        for w in wanted {
            assert!(e.contains(w), "{name}: want {w:?} in {e}");
        }
    }
}
