//! aiperf summaries and artifact directories, perf script through inferno, LMCache transfer
//! output, asv results, and streaming of large aiperf inputs.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;

use common::*;

fn fixture(name: &str) -> String {
    repo()
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn metric_map(wh: &Path, sql: &str) -> BTreeMap<String, f64> {
    query(wh, sql)
        .into_iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn aiperf_summary_json_layouts_and_csv_agree() {
    let s = samples().join("aiperf");
    let wh = tempfile::tempdir().unwrap();
    for (suite, file) in [
        ("v0json", "profile_export_aiperf.v0-records-wrapper.json"),
        ("v0csv", "profile_export_aiperf.csv"),
        ("v8json", "profile_export_aiperf.v0.8.json"),
        ("v8csv", "profile_export_aiperf.v0.8.csv"),
    ] {
        let out = ok(
            wh.path(),
            &["ingest", "--suite", suite, s.join(file).to_str().unwrap()],
        );
        assert!(out.contains("1 trials"), "{out}");
    }
    let get = |suite: &str| {
        metric_map(
            wh.path(),
            &format!("select name, value from metrics where suite = '{suite}'"),
        )
    };
    let (v0j, v0c, v8j, v8c) = (get("v0json"), get("v0csv"), get("v8json"), get("v8csv"));
    // Values straight from the files.
    assert_eq!(v0j["aiperf.input_sequence_length.avg"], 550.0);
    assert_eq!(v0j["aiperf.error_request_count.avg"], 11.0);
    assert!(
        !v0j.contains_key("aiperf.error_request_count.p50"),
        "nulls are not values"
    );
    assert_eq!(v0c["aiperf.request_latency.p99"], 9297.61);
    assert_eq!(v0c["aiperf.request_throughput.avg"], 9.55);
    assert_eq!(v8j["aiperf.request_latency.p50"], 16428.066493);
    assert_eq!(v8j["aiperf.request_latency.p10"], 3959.2200037000002);
    // The CSV is the JSON rounded to two decimals, under the same names.
    for (csv, json) in [(&v0c, &v0j), (&v8c, &v8j)] {
        let mut shared = 0;
        for (name, v) in csv.iter() {
            if let Some(j) = json.get(name) {
                shared += 1;
                assert!(
                    (v - j).abs() <= 0.005 + j.abs() * 1e-12,
                    "{name}: csv {v} json {j}"
                );
            }
        }
        assert!(shared >= 40, "only {shared} names shared");
    }
    let units = query(
        wh.path(),
        "select distinct unit from metrics where name = 'aiperf.request_latency.p50'",
    );
    assert_eq!(units.len(), 1);
    assert_eq!(units[0]["unit"], "ms");
}

#[test]
fn an_aiperf_artifact_directory_is_one_trial_with_requests_and_summary() {
    let src =
        repo().join("datasets/dynamo-frontend/data/arm=default/concurrency=8/repeat=1/aiperf");
    let wh = tempfile::tempdir().unwrap();
    let out = ok(
        wh.path(),
        &["ingest", "--suite", "fe", src.to_str().unwrap()],
    );
    assert!(out.contains("1 trials"), "{out}");
    assert_eq!(
        scalar(wh.path(), "select source from runs"),
        "ingest:aiperf+aiperf-summary"
    );
    // Both files belong to the one trial, and our p50 from the records equals aiperf's own.
    let rows = query(
        wh.path(),
        "select r.latency_p50_ms, m.value from trial_requests r join metrics m using (run_id, trial_id) \
         where m.name = 'aiperf.request_latency.p50'",
    );
    assert_eq!(rows.len(), 1, "{rows:?}");
    let (ours, theirs) = (
        rows[0]["latency_p50_ms"].as_f64().unwrap(),
        rows[0]["value"].as_f64().unwrap(),
    );
    assert!((ours - theirs).abs() < 1e-9 * theirs, "{ours} vs {theirs}");
    assert_eq!(
        scalar(
            wh.path(),
            "select count(*) from artifacts where trial_id = 0"
        ),
        2
    );
}

/// Sums of weights per stack, for comparing collapsed outputs.
fn folded_totals(text: &str) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (stack, w) = line.rsplit_once(' ').unwrap();
        *m.entry(stack.to_string()).or_insert(0.0) += w.parse::<f64>().unwrap();
    }
    m
}

#[test]
fn perf_script_collapses_as_inferno_expects() {
    let wh = tempfile::tempdir().unwrap();
    for name in [
        "cpp-stacks-std-function",
        "go-stacks",
        "java-inline",
        "single-line-stacks",
    ] {
        let input = samples().join(format!("perf-script/inferno-collapse-perf_{name}.txt"));
        let expected = fs::read_to_string(samples().join(format!(
            "folded/inferno-collapse-perf_results_{name}-collapsed.txt"
        )))
        .unwrap();
        let suite = format!("perf-{name}");
        ok(
            wh.path(),
            &["ingest", "--suite", &suite, input.to_str().unwrap()],
        );
        let rows = query(
            wh.path(),
            &format!("select stack, weight, kind from stacks where suite = '{suite}'"),
        );
        assert!(rows.iter().all(|r| r["kind"] == "oncpu"));
        let got: BTreeMap<String, f64> = rows
            .iter()
            .map(|r| {
                (
                    r["stack"].as_str().unwrap().to_string(),
                    r["weight"].as_f64().unwrap(),
                )
            })
            .fold(BTreeMap::new(), |mut m, (k, v)| {
                *m.entry(k).or_insert(0.0) += v;
                m
            });
        assert_eq!(got, folded_totals(&expected), "{name}");
    }
    // A file with no stacks at all is refused, naming the file.
    let empty = wh.path().join("empty.txt");
    fs::write(&empty, "# perf script output\n").unwrap();
    let o = perfhouse(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "x",
            "--format",
            "perf-script",
            empty.to_str().unwrap(),
        ],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("empty.txt:1: no samples with stacks"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn lmcache_blocks_become_trials_with_params() {
    let wh = tempfile::tempdir().unwrap();
    let out = ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "tc",
            "--param",
            "numa=interleave",
            "--param",
            "page_size=4096",
            &fixture("lmcache/client.log"),
        ],
    );
    assert!(out.contains("2 trials"), "{out}");
    let rows = query(
        wh.path(),
        "select t.params, m.value from metrics m join trials t using (run_id, trial_id) \
         where m.name = 'read_gbps.best' order by m.value",
    );
    // GB/s by hand: 256 × 4 MiB / 81.20 ms = 13.22; 64 × 16 MiB / 78.40 ms = 13.70.
    let vals: Vec<f64> = rows.iter().map(|r| r["value"].as_f64().unwrap()).collect();
    assert_eq!(vals, vec![13.22, 13.70]);
    let p: serde_json::Value = serde_json::from_str(rows[1]["params"].as_str().unwrap()).unwrap();
    assert_eq!(p["object_size_mib"], "16.0");
    assert_eq!(p["num_objects"], "64");
    assert_eq!(p["numa"], "interleave");
    assert_eq!(p["page_size"], "4096");
    assert_eq!(p["channel_type"], "nixl");
    assert_eq!(
        scalar(
            wh.path(),
            "select value from metrics where name = 'read_ms.median' order by value limit 1"
        ),
        79.9
    );
    let o = perfhouse(
        wh.path(),
        &["ingest", "--suite", "tc", &fixture("lmcache/cut-short.log")],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("cut-short.log:13: transfer channel block without its best"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn asv_results_become_one_run_per_commit() {
    let wh = tempfile::tempdir().unwrap();
    let out = ok(wh.path(), &["ingest", "--suite", "asv", &fixture("asv")]);
    assert!(out.contains("ingested 3 asv runs"), "{out}");
    let again = ok(
        wh.path(),
        &["ingest", "--suite", "asv", &fixture("asv/results")],
    );
    assert!(
        again.contains("ingested 0 asv runs") && again.contains("3 already present"),
        "{again}"
    );
    let dir = repo().join("tests/fixtures/asv/results/m1");
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap() == "machine.json" {
            continue;
        }
        let text = fs::read_to_string(&path)
            .unwrap()
            .replace("-Infinity", "null")
            .replace("Infinity", "null");
        let d: serde_json::Value = serde_json::from_str(&text).unwrap();
        let commit = d["commit_hash"].as_str().unwrap();
        let rows = query(
            wh.path(),
            &format!(
                "select r.status, r.host, cast(r.started_at as bigint) as at, m.name, m.value, m.unit from runs r join metrics m using (run_id) \
                 where r.git_commit = '{commit}' order by m.name"
            ),
        );
        let expected: Vec<(String, f64)> = d["results"]
            .as_object()
            .unwrap()
            .iter()
            .filter_map(|(k, v)| v[0][0].as_f64().map(|x| (k.clone(), x)))
            .collect();
        let got: Vec<(String, f64)> = rows
            .iter()
            .map(|r| {
                (
                    r["name"].as_str().unwrap().to_string(),
                    r["value"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, expected, "{commit}");
        assert!(rows.iter().all(|r| r["unit"] == "s" && r["host"] == "m1"));
        assert_eq!(
            rows[0]["at"].as_i64().unwrap(),
            d["date"].as_i64().unwrap() * 1000
        );
        let status = if expected.len() == 5 { "ok" } else { "partial" };
        assert_eq!(rows[0]["status"], status, "{commit}");
    }
}

/// aiperf-shaped records, `n` of them, the `bad`-th (1-based) malformed.
fn synthetic_jsonl(path: &Path, n: usize, bad: Option<usize>) {
    let mut f = std::io::BufWriter::new(fs::File::create(path).unwrap());
    for i in 1..=n {
        if Some(i) == bad {
            writeln!(f, "{{\"metadata\": oops}}").unwrap();
            continue;
        }
        let start = 1_700_000_000_000_000_000i64 + i as i64 * 1_000_000;
        writeln!(
            f,
            "{{\"metadata\":{{\"request_start_ns\":{start},\"request_end_ns\":{},\"benchmark_phase\":\"profiling\",\"was_cancelled\":false}},\"metrics\":{{\"request_latency\":{{\"value\":{},\"unit\":\"ms\"}}}},\"error\":null}}",
            start + 5_000_000 + (i % 7) as i64 * 1_000_000,
            5.0 + (i % 7) as f64
        )
        .unwrap();
    }
}

#[test]
fn large_aiperf_inputs_stream_in_bounded_row_groups_and_failures_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let n = 150_000; // > 2 chunks of 65,536
    let good = dir.path().join("arm=a/profile_export.jsonl");
    fs::create_dir_all(good.parent().unwrap()).unwrap();
    synthetic_jsonl(&good, n, None);
    let out = ok(&wh, &["ingest", "--suite", "big", good.to_str().unwrap()]);
    assert!(out.contains(&format!("{n} requests")), "{out}");
    assert_eq!(scalar(&wh, "select count(*) from requests"), n as i64);
    assert_eq!(
        scalar(&wh, "select count(distinct trial_id) from requests"),
        1
    );
    // Latencies are 5 + (i mod 7) ms: the median of i = 1..150000 by hand is 8 ms.
    assert_eq!(
        scalar(&wh, "select latency_p50_ms from trial_requests"),
        8.0
    );
    let part = fs::read_dir(wh.join("requests/suite=big"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let reader = datafusion::parquet::file::reader::SerializedFileReader::new(
        fs::File::open(&part).unwrap(),
    )
    .unwrap();
    use datafusion::parquet::file::reader::FileReader;
    let groups: Vec<i64> = reader
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect();
    assert_eq!(groups, vec![65_536, 65_536, (n - 2 * 65_536) as i64]);

    // A malformed line after two chunks were written: an error naming the line, and no file
    // of the failed run is left behind.
    let bad = dir.path().join("bad/profile_export.jsonl");
    fs::create_dir_all(bad.parent().unwrap()).unwrap();
    synthetic_jsonl(&bad, n, Some(140_001));
    let before: Vec<_> = walk(&wh);
    let o = perfhouse(&wh, &["ingest", "--suite", "big", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("profile_export.jsonl:140001:"),
        "{}",
        stderr(&o)
    );
    assert_eq!(walk(&wh), before);
    assert_eq!(scalar(&wh, "select count(*) from requests"), n as i64);
}

fn walk(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| {
            e.unwrap()
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|p| !p.contains(".lock"))
        .collect();
    v.sort();
    v
}
