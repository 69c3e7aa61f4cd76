//! Nothing lost, ever: the commit and lock protocol under concurrent writers, readers and
//! compaction, hostile values and inputs. Each test is named after the behaviour it keeps and
//! reproduces a defect that was found (issue "Nothing lost, ever").

use crate::common;

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use perfhouse::warehouse::{Table, Warehouse};

/// `n` aiperf records (current schema), request `i` starting at `i` ms with a latency of
/// `10 + i % 7` ms.
fn aiperf_jsonl(n: usize, salt: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let start = 1_700_000_000_000_000_000u64 + (i as u64) * 1_000_000 + salt as u64;
        out.push_str(&format!(
            r#"{{"metadata":{{"request_start_ns":{start},"benchmark_phase":"profiling"}},"metrics":{{"request_latency":{{"value":{},"unit":"ms"}},"output_sequence_length":{{"value":5,"unit":"tokens"}}}},"error":null}}"#,
            10 + i % 7
        ));
        out.push('\n');
    }
    out
}

/// Two committed runs of `suite` (arms `default` and `b`, `n` requests each): two files per
/// table, so `compact` has work to do. Returns the warehouse root.
fn two_runs(dir: &Path, suite: &str, n: usize) -> std::path::PathBuf {
    let root = dir.join("wh");
    let f = dir.join("a.jsonl");
    fs::write(&f, aiperf_jsonl(n, 0)).unwrap();
    let f = f.to_str().unwrap();
    ok(&root, &["ingest", "--suite", suite, f]);
    ok(&root, &["ingest", "--suite", suite, "--arm", "b", f]);
    root
}

fn requests_per_run(wh: &Path) -> Vec<(String, i64)> {
    query(
        wh,
        "select r.run_id, (select count(*) from requests q where q.run_id = r.run_id) as n \
         from runs r order by r.run_id",
    )
    .into_iter()
    .map(|r| {
        (
            r["run_id"].as_str().unwrap().to_string(),
            r["n"].as_i64().unwrap(),
        )
    })
    .collect()
}

#[test]
fn compact_while_a_run_streams_its_requests_loses_none_of_them() {
    // The defect: streamed part files sat in the live partition without the lock, so a
    // compaction that swapped the partition deleted them and the run committed with 0 rows.
    let dir = tempfile::tempdir().unwrap();
    let root = two_runs(dir.path(), "cc", 50);

    // A run in flight: its part file is written, its run not yet committed.
    let wh = Warehouse::open(&root).unwrap();
    let run_id = "01900000-0000-7000-8000-000000000001";
    let inflight = wh.begin_run(run_id).unwrap();
    let mut part = inflight
        .part_writer(Table::Requests, "cc", run_id, 0)
        .unwrap();
    let rows: Vec<perfhouse::model::Request> = (0..123)
        .map(|i| perfhouse::model::Request {
            trial_id: 0,
            start_ns: 1_000 + i,
            end_ns: Some(2_000 + i),
            latency_ns: Some(1_000),
            ..Default::default()
        })
        .collect();
    part.write(&perfhouse::warehouse::batch::requests(run_id, &rows).unwrap())
        .unwrap();
    part.finish().unwrap();
    // Compaction runs meanwhile (the two committed runs' files get merged).
    let report = wh.compact().unwrap();
    assert!(!report.merged.is_empty(), "compaction had work to do");
    // Now the run commits.
    let run = perfhouse::model::Run {
        run_id: run_id.to_string(),
        suite: "cc".to_string(),
        started_at_us: 1,
        finished_at_us: 2,
        ingested_at_us: 3,
        source: "test".to_string(),
        git_commit: None,
        git_branch: None,
        git_dirty: None,
        host: None,
        env_fingerprint: None,
        env: "{}".to_string(),
        labels: Default::default(),
        input_digest: "inflight-test".to_string(),
        status: perfhouse::model::RunStatus::Ok,
    };
    let data = perfhouse::model::RunData {
        trials: vec![perfhouse::model::Trial::measured(
            0,
            "c",
            Default::default(),
            0,
        )],
        ..Default::default()
    };
    assert!(wh.append_run(&run, &data).unwrap().is_none());
    drop(inflight);
    let counts = requests_per_run(&root);
    assert_eq!(counts.len(), 3);
    assert!(counts.contains(&(run_id.to_string(), 123)), "{counts:?}");
    assert!(counts.iter().all(|(_, n)| *n > 0), "{counts:?}");
    assert!(!root.join(".inflight").join(run_id).exists());
    let check = ok(&root, &["check"]);
    assert!(check.contains("0 problems, 0 leftovers"), "{check}");
}

#[test]
fn ingests_racing_compact_in_a_loop_keep_every_row() {
    // The reproduction from the issue, shortened: compact in a loop in the background while
    // ingests of the same suite run one after another.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    fs::create_dir_all(&root).unwrap();
    let stop = dir.path().join("stop");
    let bin = env!("CARGO_BIN_EXE_perfhouse");
    let looper = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "while [ ! -e {stop} ]; do {bin} --warehouse {wh} --quiet compact || echo COMPACT-FAILED; done",
            stop = stop.display(),
            wh = root.display()
        ))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let n = 6;
    for i in 0..n {
        let f = dir.path().join(format!("r{i}.jsonl"));
        fs::write(&f, aiperf_jsonl(2_000, i)).unwrap();
        ok(&root, &["ingest", "--suite", "cc", f.to_str().unwrap()]);
    }
    fs::write(&stop, "").unwrap();
    let out = looper.wait_with_output().unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("COMPACT-FAILED"),
        "a compaction failed"
    );
    let counts = requests_per_run(&root);
    assert_eq!(counts.len(), n);
    assert!(counts.iter().all(|(_, c)| *c == 2_000), "{counts:?}");
}

#[test]
fn a_reader_open_during_compact_sees_the_old_files_and_compact_waits_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = two_runs(dir.path(), "s", 20);
    let wh = Warehouse::open(&root).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let q = rt.block_on(perfhouse::query::Query::open(&wh)).unwrap();
    let t0 = Instant::now();
    let compactor = {
        let root = root.clone();
        std::thread::spawn(move || {
            let r = Warehouse::open(&root).unwrap().compact().unwrap();
            (r.merged.len(), Instant::now())
        })
    };
    std::thread::sleep(Duration::from_millis(400));
    // Still the old files, all readable: the swap waits for this reader.
    let n = rt.block_on(q.sql("select count(*) from requests")).unwrap();
    let count = n[0]
        .column(0)
        .as_any()
        .downcast_ref::<datafusion::arrow::array::Int64Array>()
        .unwrap()
        .value(0);
    assert_eq!(count, 40);
    assert!(
        !compactor.is_finished(),
        "compact swapped under an open reader"
    );
    let released = Instant::now();
    drop(q);
    let (merged, done) = compactor.join().unwrap();
    assert!(merged > 0);
    assert!(done >= released && done - t0 >= Duration::from_millis(400));
    assert_eq!(scalar(&root, "select count(*) from requests"), 40);
}

#[test]
fn readers_in_a_loop_never_fail_while_compact_runs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    for i in 0..4 {
        let f = dir.path().join(format!("r{i}.jsonl"));
        fs::write(&f, aiperf_jsonl(200, i)).unwrap();
        ok(&root, &["ingest", "--suite", "s", f.to_str().unwrap()]);
    }
    let bin = env!("CARGO_BIN_EXE_perfhouse");
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let root = root.clone();
            std::thread::spawn(move || {
                let mut failures = Vec::new();
                for _ in 0..8 {
                    let o = Command::new(bin)
                        .args(["--warehouse", root.to_str().unwrap()])
                        .args([
                            "query",
                            "select count(*) as n from requests",
                            "--format",
                            "csv",
                        ])
                        .output()
                        .unwrap();
                    let out = String::from_utf8_lossy(&o.stdout).into_owned();
                    if !o.status.success() || !out.contains("800") {
                        failures.push(format!("{out} {}", String::from_utf8_lossy(&o.stderr)));
                    }
                }
                failures
            })
        })
        .collect();
    for i in 4..7 {
        let f = dir.path().join(format!("r{i}.jsonl"));
        fs::write(&f, aiperf_jsonl(1, i)).unwrap();
        // More files to merge, then a compaction, while the readers read.
        ok(&root, &["compact"]);
    }
    for r in readers {
        let failures = r.join().unwrap();
        assert!(failures.is_empty(), "{failures:#?}");
    }
}

#[test]
fn concurrent_ingests_of_the_same_new_file_land_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    fs::create_dir_all(&root).unwrap();
    let f = dir.path().join("same.jsonl");
    fs::write(&f, aiperf_jsonl(3_000, 0)).unwrap();
    let bin = env!("CARGO_BIN_EXE_perfhouse");
    let children: Vec<_> = (0..4)
        .map(|_| {
            Command::new(bin)
                .args(["--warehouse", root.to_str().unwrap()])
                .args(["ingest", "--suite", "same", f.to_str().unwrap()])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for o in &outs {
        assert!(o.status.success(), "{}", stderr(o));
    }
    let landed = outs
        .iter()
        .filter(|o| stdout(o).starts_with("ingested run"))
        .count();
    let already = outs
        .iter()
        .filter(|o| stdout(o).contains("already ingested"))
        .count();
    assert_eq!((landed, already), (1, 3));
    assert_eq!(scalar(&root, "select count(*) from runs"), 1);
    assert_eq!(scalar(&root, "select count(*) from requests"), 3_000);
    let check = ok(&root, &["check"]);
    assert!(check.contains("0 problems, 0 leftovers"), "{check}");
}

#[test]
fn non_finite_values_are_left_out_with_a_warning_and_extreme_ones_chart() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    // LMCache text can say `inf` (a read of 0 ms); the rest of the block still lands.
    let log = dir.path().join("client.log");
    fs::write(
        &log,
        "==== Transfer channel read throughput ====\n  channel type     : nixl\n  payload per read : 1.074 GB (256 objs x 4.0 MiB)\n  iterations       : 5 (warmup 2)\n  best   :     0.00 ms     inf GB/s\n  median :    84.00 ms     12.78 GB/s\n  mean   :    84.72 ms     nan GB/s\n",
    )
    .unwrap();
    let o = perfhouse(
        &root,
        &[
            "ingest",
            "--suite",
            "t",
            "--format",
            "lmcache-transfer",
            log.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("metric `read_gbps.best` is inf (not a finite number); left out"),
        "{err}"
    );
    assert!(err.contains("metric `read_gbps.mean` is NaN"), "{err}");
    assert_eq!(
        scalar(
            &root,
            "select count(*) from metrics where name like 'read_gbps%'"
        ),
        1
    );
    // Values at the edge of f64 are finite and stored; medians, history, compare, report and
    // the site cope with them (a median of two 1e308 once overflowed; a series spanning
    // ±1e308 made the chart loop forever).
    for (i, v) in ["1.7e308", "-1.7e308", "1.7e308", "1e308"]
        .iter()
        .enumerate()
    {
        let f = dir.path().join(format!("m{i}.json"));
        fs::write(
            &f,
            format!(
                r#"{{"metrics":[{{"name":"x","value":{v},"unit":"u","better":"higher","repeat":0}},{{"name":"x","value":{v},"unit":"u","better":"higher","repeat":1}}]}}"#
            ),
        )
        .unwrap();
        ok(&root, &["ingest", "--suite", "edge", f.to_str().unwrap()]);
    }
    let med = scalar(
        &root,
        "select median from metric_medians m join runs r using (run_id) where r.run_no = 1 and m.suite = 'edge'",
    );
    assert_eq!(med.as_f64(), Some(1.7e308));
    ok(&root, &["history", "--suite", "edge"]);
    ok(
        &root,
        &["compare", "--baseline", "edge#1", "--candidate", "edge#2"],
    );
    ok(
        &root,
        &["report", "--baseline", "edge#1", "--candidate", "edge#2"],
    );
    let site = dir.path().join("site");
    let o = Command::new(env!("CARGO_BIN_EXE_perfhouse"))
        .args(["--warehouse", root.to_str().unwrap(), "site", "--out"])
        .arg(&site)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut o = o;
    loop {
        if let Some(status) = o.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        if Instant::now() > deadline {
            let _ = o.kill();
            panic!("site did not finish in 120 s on a ±1.7e308 series");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(site.join("index.html").exists());
}

#[test]
fn a_multibyte_commit_renders_on_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    let f = dir.path().join("a.jsonl");
    fs::write(&f, aiperf_jsonl(5, 0)).unwrap();
    let commit = "ééééééééééé€€€";
    ok(
        &root,
        &[
            "ingest",
            "--suite",
            "s",
            "--commit",
            commit,
            f.to_str().unwrap(),
        ],
    );
    ok(
        &root,
        &[
            "ingest",
            "--suite",
            "s",
            "--arm",
            "b",
            "--commit",
            commit,
            f.to_str().unwrap(),
        ],
    );
    let site = dir.path().join("site");
    ok(&root, &["site", "--out", site.to_str().unwrap()]);
    // Series pages show the commit cut to 10 characters (not 10 bytes, which split a char).
    let shown = walkdir::WalkDir::new(&site)
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .any(|e| {
            fs::read_to_string(e.path())
                .unwrap()
                .contains("éééééééééé</")
        });
    assert!(shown, "the 10-character short commit appears on a page");
    let md = ok(
        &root,
        &["report", "--baseline", "s#1", "--candidate", "s#2"],
    );
    assert!(!md.is_empty());
}

#[test]
fn a_fifo_is_refused_by_name_instead_of_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("profile_export.jsonl");
    let st = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(st.success());
    for format in ["auto", "aiperf", "hyperfine", "folded", "lmcache-transfer"] {
        let t0 = Instant::now();
        let o = perfhouse(
            &dir.path().join("wh"),
            &[
                "ingest",
                "--suite",
                "s",
                "--format",
                format,
                fifo.to_str().unwrap(),
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{format}");
        assert!(
            stderr(&o).contains("profile_export.jsonl: a FIFO; give a regular file or a directory"),
            "{format}: {}",
            stderr(&o)
        );
        assert!(t0.elapsed() < Duration::from_secs(30));
    }
}

#[test]
fn an_empty_aiperf_export_is_refused_not_landed_as_an_ok_trial() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("wh");
    let f = dir.path().join("profile_export.jsonl");
    fs::write(&f, "").unwrap();
    let o = perfhouse(&root, &["ingest", "--suite", "s", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("profile_export.jsonl:1: no complete aiperf record in the file"),
        "{}",
        stderr(&o)
    );
    fs::write(&f, "\n\n").unwrap();
    let o = perfhouse(
        &root,
        &[
            "ingest",
            "--suite",
            "s",
            "--format",
            "aiperf",
            f.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(scalar(&root, "select count(*) from runs"), 0);
}

#[test]
fn a_stream_of_overlapping_readers_does_not_starve_compact() {
    // Readers that always overlap (one takes the lock before the other lets go) once kept
    // compact waiting forever, and every ingest queued behind it.
    let dir = tempfile::tempdir().unwrap();
    let root = two_runs(dir.path(), "s", 20);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|i| {
            let (root, stop) = (root.clone(), stop.clone());
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(75 * i));
                let wh = Warehouse::open(&root).unwrap();
                let mut reads = 0;
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let guard = wh.read_lock().unwrap();
                    std::thread::sleep(Duration::from_millis(150));
                    drop(guard);
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let report = Warehouse::open(&root).unwrap().compact().unwrap();
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(!report.merged.is_empty());
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    assert_eq!(scalar(&root, "select count(*) from requests"), 40);
}
