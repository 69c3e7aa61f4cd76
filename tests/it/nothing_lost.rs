//! Nothing lost, part two: a read-only `query`, a `gc` that never touches a live writer,
//! bounded names, validated path segments, values that cannot be stored refused, damage named
//! by every reader, and a failed ingest that leaves no bytes. Each test reproduces what was
//! found (issue "Nothing lost, part two") and is named after what it guards.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

fn metrics_json(arm: &str) -> String {
    serde_json::json!({"metrics": [
        {"name": "pps", "value": 1250.0, "unit": "packets/s", "better": "higher", "arm": arm}
    ]})
    .to_string()
}

/// A metrics JSON that names no arm (the path's `arm=` says it).
fn metrics_json_no_arm() -> String {
    serde_json::json!({"metrics": [
        {"name": "pps", "value": 1250.0, "unit": "packets/s", "better": "higher"}
    ]})
    .to_string()
}

/// Every file under `root` with its size, for "the warehouse is unchanged" (lock files aside:
/// a reader creates them).
fn listing(root: &Path) -> Vec<(PathBuf, u64)> {
    let mut out: Vec<_> = files_under(root)
        .into_iter()
        .filter(|p| !p.file_name().unwrap().to_string_lossy().ends_with(".lock"))
        .map(|p| {
            let len = fs::metadata(&p).unwrap().len();
            (p, len)
        })
        .collect();
    out.sort();
    out
}

/// A warehouse with one committed run of suite `s` (a metrics JSON, arm `a`).
fn one_run(dir: &Path) -> PathBuf {
    let root = dir.join("wh");
    let f = dir.join("m.json");
    fs::write(&f, metrics_json("a")).unwrap();
    ok(&root, &["ingest", "--suite", "s", f.to_str().unwrap()]);
    root
}

#[test]
fn query_refuses_statements_that_write_or_change_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let root = one_run(dir.path());
    let before = listing(&root);
    let runs_file = files_under(&root.join("runs"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "parquet"))
        .unwrap();
    let out = dir.path().join("x.csv");
    let statements = [
        format!("COPY (SELECT 1) TO '{}'", out.display()),
        // The attack that was found: an empty file over a committed `runs` file.
        format!(
            "COPY (SELECT * EXCLUDE (suite) FROM runs WHERE false) TO '{}' STORED AS PARQUET",
            runs_file.display()
        ),
        format!(
            "CREATE EXTERNAL TABLE t STORED AS CSV LOCATION '{}'",
            dir.path().display()
        ),
        "CREATE VIEW v AS SELECT 1".to_string(),
        "INSERT INTO runs SELECT * FROM runs".to_string(),
        "SET datafusion.execution.batch_size = 1".to_string(),
        "DROP VIEW trial_figures".to_string(),
    ];
    for sql in &statements {
        let o = perfhouse(&root, &["query", sql]);
        assert_eq!(o.status.code(), Some(1), "{sql}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("is not allowed here: `perfhouse query` is read-only")
                && err.contains("SELECT, WITH, VALUES, EXPLAIN, SHOW and DESCRIBE"),
            "{sql}: {err}"
        );
    }
    assert!(!out.exists());
    assert_eq!(listing(&root), before, "the warehouse is unchanged");
    // Reading still works, including the views and EXPLAIN.
    assert_eq!(scalar(&root, "select count(*) from runs"), 1);
    assert!(ok(&root, &["query", "EXPLAIN SELECT count(*) FROM trials"]).contains("plan"));
    assert!(ok(&root, &["query", "SHOW TABLES"]).contains("trial_figures"));
}

#[test]
fn gc_at_grace_zero_spares_every_file_of_a_running_writer() {
    use perfhouse::warehouse::Warehouse;
    let dir = tempfile::tempdir().unwrap();
    let root = one_run(dir.path());
    let wh = Warehouse::open(&root).unwrap();
    // A writer mid-ingest: its unfinished run, a copy of its input not yet moved to its
    // address, and one already kept that no committed run refers to yet.
    let writing = wh.writing().unwrap();
    let inflight = wh.begin_run("0000-writer").unwrap();
    let big = dir.path().join("big.bin");
    fs::write(&big, vec![7u8; 1 << 20]).unwrap();
    let staged = wh.hash_and_stage(&big).unwrap();
    let other = dir.path().join("other.bin");
    fs::write(&other, vec![9u8; 4096]).unwrap();
    let kept = wh.store_blob(&other, "other.bin").unwrap();
    // And what a writer killed earlier left: gc leaves it too while any writer runs.
    fs::create_dir_all(root.join(".inflight/dead-writer")).unwrap();
    fs::write(root.join(".inflight/dead-writer/part"), b"x").unwrap();
    let files = listing(&root);
    let o = perfhouse(&root, &["gc", "--grace", "0s"]);
    let gc = stdout(&o) + &stderr(&o);
    assert!(o.status.success(), "{gc}");
    assert_eq!(gc.matches("a writer is running").count(), 4, "{gc}");
    assert_eq!(
        listing(&root),
        files,
        "gc removed a live writer's file:\n{gc}"
    );
    assert!(root.join(&kept.stored_path).is_file());
    // The writer gone without committing, gc removes the kept input nothing refers to and
    // the dead writer's run.
    drop((staged, inflight, writing));
    let gc = ok(&root, &["gc", "--grace", "0s"]);
    assert!(!root.join(&kept.stored_path).exists(), "{gc}");
    assert!(!root.join(".inflight/dead-writer").exists(), "{gc}");
}

/// The defect as found: `gc --grace 0s` in a loop beside running ingests of large inputs made
/// every one of them fail ("No such file or directory").
#[test]
fn gc_in_a_loop_beside_concurrent_ingests_fails_none_and_loses_none() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    fs::create_dir_all(&root).unwrap();
    let bin = env!("CARGO_BIN_EXE_perfhouse");
    let inputs: Vec<PathBuf> = (0..3)
        .map(|k| {
            let f = dir.path().join(format!("in{k}/profile_export.jsonl"));
            fs::create_dir_all(f.parent().unwrap()).unwrap();
            let mut text = String::new();
            for i in 0..40_000u64 {
                let start = 1_700_000_000_000_000_000u64 + i * 1_000_000 + k;
                text.push_str(&format!(
                    r#"{{"metadata":{{"request_start_ns":{start},"benchmark_phase":"profiling"}},"metrics":{{"request_latency":{{"value":{},"unit":"ms"}}}},"error":null}}"#,
                    10 + i % 7
                ));
                text.push('\n');
            }
            fs::write(&f, text).unwrap();
            f
        })
        .collect();
    let ingests: Vec<_> = inputs
        .iter()
        .map(|f| {
            Command::new(bin)
                .args(["--warehouse", root.to_str().unwrap(), "-q"])
                .args(["ingest", "--suite", "race", f.to_str().unwrap()])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut gcs = 0;
    let mut ingests: Vec<_> = ingests.into_iter().map(Some).collect();
    let mut failed = Vec::new();
    while ingests.iter().any(Option::is_some) && Instant::now() < deadline {
        let o = perfhouse(&root, &["gc", "--grace", "0s"]);
        assert!(o.status.success(), "gc: {}", stderr(&o));
        gcs += 1;
        for slot in ingests.iter_mut() {
            if let Some(child) = slot
                && child.try_wait().unwrap().is_some()
            {
                let o = slot.take().unwrap().wait_with_output().unwrap();
                if !o.status.success() {
                    failed.push(stderr(&o));
                }
            }
        }
    }
    assert!(ingests.iter().all(Option::is_none), "ingests still running");
    assert!(failed.is_empty(), "{} failed: {failed:?}", failed.len());
    assert!(gcs > 1, "gc ran beside the ingests");
    assert_eq!(scalar(&root, "select count(*) from runs"), 3);
    assert_eq!(scalar(&root, "select count(*) from requests"), 120_000);
    let check = ok(&root, &["check"]);
    assert!(check.contains("0 problems, 0 leftovers"), "{check}");
}

#[test]
fn oversized_and_empty_names_are_refused_by_field_and_nothing_lands() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    let f = dir.path().join("big.json");
    fs::write(&f, metrics_json(&"x".repeat(1 << 20))).unwrap();
    let o = perfhouse(&root, &["ingest", "--suite", "s", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("big.json: an arm name is 1048576 bytes long, more than the 256 allowed; nothing was ingested"),
        "{}",
        stderr(&o)
    );
    // The command line's names are bounded too.
    let f = dir.path().join("m.json");
    fs::write(&f, metrics_json("a")).unwrap();
    let long = "s".repeat(300);
    let o = perfhouse(&root, &["ingest", "--suite", &long, f.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("--suite is 300 bytes long, more than the 256 allowed"),
        "{}",
        stderr(&o)
    );
    let o = perfhouse(
        &root,
        &[
            "ingest",
            "--suite",
            "s",
            "--label",
            "k=a\nb",
            f.to_str().unwrap(),
        ],
    );
    assert!(
        stderr(&o).contains("--label/--param `k` holds the control character '\\n'"),
        "{}",
        stderr(&o)
    );
    assert!(files_under(&root.join("runs")).is_empty());
    assert!(
        files_under(&root.join("artifacts")).is_empty(),
        "no kept input"
    );
}

#[test]
fn hostile_path_segments_are_refused_by_name_and_nothing_lands() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    let cases = [
        ("arm=", "`arm=`: the value is empty (expected arm=<value>)"),
        ("repeat=-1", "`repeat=-1`: repeat=<integer ≥ 0>"),
        ("arm=..", "`arm=..`: the value is `..`"),
        ("arm=a\nb", "the value holds the control character '\\n'"),
        ("=x/concurrency=", "`concurrency=`: the value is empty"),
    ];
    for (segment, expected) in cases {
        let d = dir.path().join("in").join(segment);
        fs::create_dir_all(&d).unwrap();
        let f = d.join("m.json");
        fs::write(&f, metrics_json_no_arm()).unwrap();
        let o = perfhouse(&root, &["ingest", "--suite", "s", f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{segment:?}");
        assert!(stderr(&o).contains(expected), "{segment:?}: {}", stderr(&o));
        fs::remove_dir_all(dir.path().join("in")).unwrap();
    }
    assert!(files_under(&root.join("runs")).is_empty());
    // A good segment still lands.
    let d = dir.path().join("in/arm=b/repeat=2");
    fs::create_dir_all(&d).unwrap();
    fs::write(d.join("m.json"), metrics_json_no_arm()).unwrap();
    ok(
        &root,
        &["ingest", "--suite", "s", d.join("m.json").to_str().unwrap()],
    );
    let rows = query(&root, "select arm, repeat from trials");
    assert_eq!(rows[0]["arm"], "b");
    assert_eq!(rows[0]["repeat"], 2);
}

#[test]
fn a_time_past_64_bit_nanoseconds_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    let f = dir.path().join("profile_export.jsonl");
    let rec = |latency: &str| {
        format!(
            r#"{{"metadata":{{"request_start_ns":1000,"benchmark_phase":"profiling"}},"metrics":{{"request_latency":{{"value":{latency},"unit":"ms"}}}},"error":null}}"#
        )
    };
    fs::write(&f, format!("{}\n{}\n", rec("12.5"), rec("1.797e308"))).unwrap();
    let o = perfhouse(&root, &["ingest", "--suite", "s", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("profile_export.jsonl:2: field `metrics.request_latency.value`: expected a time that fits in 64-bit nanoseconds"),
        "{}",
        stderr(&o)
    );
    // 9.2e12 ms is 9.2e18 ns: just under 2^63, it lands as the integer it is.
    fs::write(&f, format!("{}\n", rec("9000000000000"))).unwrap();
    ok(&root, &["ingest", "--suite", "s", f.to_str().unwrap()]);
    assert_eq!(
        scalar(&root, "select latency_ns from requests"),
        9_000_000_000_000_000_000i64
    );
}

#[test]
fn a_perf_script_with_bytes_that_are_not_utf8_lands_with_a_warning_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    let f = dir.path().join("perf.txt");
    let mut text = b"app 1234 100.000001: 1 cpu-clock:\n\tffff main (/bin/app)\n\n".to_vec();
    text.extend_from_slice(b"app 1234 100.000002: 1 cpu-clock:\n\tffff ma\xffin (/bin/app)\n\n");
    fs::write(&f, text).unwrap();
    let o = perfhouse(
        &root,
        &[
            "ingest",
            "--suite",
            "s",
            "--format",
            "perf-script",
            f.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("perf.txt:5: 1 line(s) are not valid UTF-8"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_damaged_table_file_stops_site_and_query_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = one_run(dir.path());
    let f = dir.path().join("m2.json");
    fs::write(&f, metrics_json("b")).unwrap();
    ok(&root, &["ingest", "--suite", "s", f.to_str().unwrap()]);
    let mut runs: Vec<_> = files_under(&root.join("runs"));
    runs.sort();
    // A 0-byte `runs` file: its run would vanish from the site without a word.
    fs::write(&runs[0], b"").unwrap();
    let name = runs[0].display().to_string();
    for args in [
        vec!["query", "select count(*) from runs"],
        vec!["site", "--out", dir.path().join("site").to_str().unwrap()],
        vec!["history"],
    ] {
        let o = perfhouse(&root, &args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&o).contains(&format!("{name}: damaged (0 bytes)")),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // A metrics file cut short: named too.
    let f0 = files_under(&root.join("metrics"))[0].clone();
    fs::remove_file(&runs[0]).unwrap();
    let bytes = fs::read(&f0).unwrap();
    fs::write(&f0, &bytes[..bytes.len() / 2]).unwrap();
    let o = perfhouse(&root, &["query", "select sum(value) from metrics"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!("{}: damaged (", f0.display())),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_ingest_that_fails_at_its_commit_leaves_no_bytes_behind() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    let f = dir.path().join("profile_export.jsonl");
    let mut text = String::new();
    for i in 0..2_000u64 {
        text.push_str(&format!(
            r#"{{"metadata":{{"request_start_ns":{},"benchmark_phase":"profiling"}},"metrics":{{"request_latency":{{"value":12,"unit":"ms"}}}},"error":null}}"#,
            1_700_000_000_000_000_000u64 + i * 1_000_000
        ));
        text.push('\n');
    }
    fs::write(&f, text).unwrap();
    // The disk fills as each table's file is written, `runs` last: each time, nothing stays.
    for table in ["trials", "artifacts", "runs"] {
        let o = Command::new(env!("CARGO_BIN_EXE_perfhouse"))
            .args(["--warehouse", root.to_str().unwrap()])
            .args(["ingest", "--suite", "s", f.to_str().unwrap()])
            .env("PERFHOUSE_FAULT_ENOSPC", table)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{table}");
        assert!(
            stderr(&o).contains("No space left on device"),
            "{}",
            stderr(&o)
        );
        let left: Vec<_> = files_under(&root)
            .into_iter()
            .filter(|p| !p.file_name().unwrap().to_string_lossy().ends_with(".lock"))
            .collect();
        assert!(left.is_empty(), "{table}: left {left:?}");
    }
    // Bytes stored before by a committed run are not the failed one's to remove.
    ok(&root, &["ingest", "--suite", "s", f.to_str().unwrap()]);
    let before = listing(&root);
    let o = Command::new(env!("CARGO_BIN_EXE_perfhouse"))
        .args(["--warehouse", root.to_str().unwrap()])
        .args(["ingest", "--suite", "t", f.to_str().unwrap()])
        .env("PERFHOUSE_FAULT_ENOSPC", "runs")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(listing(&root), before);
    let check = ok(&root, &["check"]);
    assert!(check.contains("0 problems, 0 leftovers"), "{check}");
}
