//! `perfhouse compact`: fewer files, the same rows, and orphaned rows never lost.

use crate::common;

use std::fs;

use common::*;

fn parquet_files(dir: &std::path::Path) -> usize {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "parquet"))
        .count()
}

#[test]
fn compact_merges_files_and_keeps_every_row() {
    let wh = tempfile::tempdir().unwrap();
    // One input, three runs: a different arm is a different ingest.
    let a = our_aiperf();
    for arm in ["x", "y", "z"] {
        ok(
            wh.path(),
            &[
                "ingest",
                "--suite",
                "s",
                "--arm",
                arm,
                "--note",
                arm,
                a.to_str().unwrap(),
            ],
        );
    }
    let sql = "select (select count(*) from runs) as runs, (select count(*) from requests) as req, \
               (select count(*) from trials) as tr, (select count(*) from annotations) as notes, \
               (select sum(latency_ns) from requests) as lat";
    let before = query(wh.path(), sql);
    let requests_dir = wh.path().join("requests/suite=s");
    assert_eq!(parquet_files(&requests_dir), 3);
    // An orphan: rows of a run whose `runs` file never landed (a writer died): the requests
    // file of a run from another warehouse.
    let other = tempfile::tempdir().unwrap();
    ok(
        other.path(),
        &["ingest", "--suite", "s", a.to_str().unwrap()],
    );
    let src = fs::read_dir(other.path().join("requests/suite=s"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    fs::copy(&src, requests_dir.join("dead-0.parquet")).unwrap();
    assert_eq!(query(wh.path(), sql), before, "orphans are invisible");
    let raw = scalar(wh.path(), "select count(*) from raw_requests");
    let out = ok(wh.path(), &["compact"]);
    assert!(out.contains("requests/suite=s: merged 4 files"), "{out}");
    assert_eq!(query(wh.path(), sql), before);
    assert_eq!(
        scalar(wh.path(), "select count(*) from raw_requests"),
        raw,
        "no row lost"
    );
    // Committed rows in one file; the orphan's rows kept in a file of their own.
    assert_eq!(parquet_files(&requests_dir), 2);
    assert_eq!(parquet_files(&wh.path().join("runs/suite=s")), 1);
    let again = ok(wh.path(), &["compact"]);
    assert!(again.contains("nothing to compact"), "{again}");
}

/// A compacted warehouse's `compact-…` files hold many runs; `import` copies one run's files at
/// a time, so it refuses such a bundle, naming the file, instead of saying "imported 2 run(s)"
/// with nothing copied (as it did: found making the tomli history).
#[test]
fn importing_a_compacted_warehouse_is_refused_naming_a_merged_file_and_lands_nothing() {
    let bundle = tempfile::tempdir().unwrap();
    let a = our_aiperf();
    for arm in ["x", "y"] {
        let args = ["ingest", "--suite", "s", "--arm", arm, a.to_str().unwrap()];
        ok(bundle.path(), &args);
    }
    ok(bundle.path(), &["compact"]);
    let wh = tempfile::tempdir().unwrap();
    let o = perfhouse(wh.path(), &["import", bundle.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("/compact-") && err.contains("the bundle was compacted"),
        "{err}"
    );
    assert!(err.contains("nothing was imported"), "{err}");
    assert_eq!(parquet_files(wh.path()), 0);
}
