//! `perfhouse check` and `perfhouse gc`: damage is reported by file and column (never a
//! panic), every leftover of a writer that died is listed, and `gc` removes leftovers (and
//! only those) without touching a writer still at work.

use crate::common;

use std::fs;
use std::path::Path;
use std::sync::Arc;

use common::*;
use datafusion::arrow::array::{ArrayRef, Int64Array, LargeStringArray, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::parquet::arrow::ArrowWriter;

fn write_parquet(path: &Path, columns: Vec<(&str, ArrayRef)>) {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let batch =
        RecordBatch::try_new(schema.clone(), columns.into_iter().map(|c| c.1).collect()).unwrap();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut w = ArrowWriter::try_new(fs::File::create(path).unwrap(), schema, None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

fn one_run(wh: &Path) -> String {
    let a = our_aiperf();
    ok(wh, &["ingest", "--suite", "s", a.to_str().unwrap()]);
    scalar(wh, "select run_id from runs")
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn check_finds_orphans_and_damage() {
    let wh = tempfile::tempdir().unwrap();
    let a = our_aiperf();
    ok(wh.path(), &["ingest", "--suite", "s", a.to_str().unwrap()]);
    let out = ok(wh.path(), &["check"]);
    assert!(out.contains(": 0 problems"), "{out}");
    // An orphaned file is a note, not a problem.
    let other = tempfile::tempdir().unwrap();
    ok(
        other.path(),
        &["ingest", "--suite", "s", "--arm", "x", a.to_str().unwrap()],
    );
    let src = fs::read_dir(other.path().join("trials/suite=s"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    fs::copy(&src, wh.path().join("trials/suite=s/dead-0.parquet")).unwrap();
    let o = perfhouse(wh.path(), &["check"]);
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("note: trials: 1 rows of runs that never committed"),
        "{}",
        stderr(&o)
    );
    // A kept input that changed is damage.
    let stored = scalar(wh.path(), "select stored_path from artifacts");
    fs::write(wh.path().join(stored.as_str().unwrap()), b"tampered").unwrap();
    let o = perfhouse(wh.path(), &["check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("content does not match its sha256"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn foreign_schemas_are_named_by_check_and_refused_by_compact_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    one_run(wh);
    // What another engine might write: an int64 run_id, a large_string name.
    write_parquet(
        &wh.join("trials/suite=s/foreign-int.parquet"),
        vec![("run_id", Arc::new(Int64Array::from(vec![7])) as ArrayRef)],
    );
    write_parquet(
        &wh.join("metrics/suite=s/foreign-large.parquet"),
        vec![
            (
                "run_id",
                Arc::new(LargeStringArray::from(vec!["x"])) as ArrayRef,
            ),
            (
                "name",
                Arc::new(LargeStringArray::from(vec!["m"])) as ArrayRef,
            ),
        ],
    );
    let o = perfhouse(wh, &["check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("trials/suite=s/foreign-int.parquet: column run_id is Int64, expected Utf8"),
        "{err}"
    );
    assert!(
        err.contains(
            "metrics/suite=s/foreign-large.parquet: column run_id is LargeUtf8, expected Utf8"
        ),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let o = perfhouse(wh, &["compact"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("foreign-int.parquet: column run_id is Int64, expected Utf8"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("panicked"));
    // Nothing was lost: the committed run still reads.
    fs::remove_file(wh.join("trials/suite=s/foreign-int.parquet")).unwrap();
    fs::remove_file(wh.join("metrics/suite=s/foreign-large.parquet")).unwrap();
    assert_eq!(scalar(wh, "select count(*) from runs"), 1);
}

#[test]
fn a_runs_file_without_input_digest_or_of_zero_bytes_is_a_problem_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    one_run(wh);
    write_parquet(
        &wh.join("runs/suite=s/foreign.parquet"),
        vec![("run_id", Arc::new(StringArray::from(vec!["r"])) as ArrayRef)],
    );
    fs::write(wh.join("runs/suite=s/empty.parquet"), b"").unwrap();
    let o = perfhouse(wh, &["check"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("runs/suite=s/foreign.parquet: column input_digest is missing"),
        "{err}"
    );
    assert!(
        err.contains("runs/suite=s/empty.parquet: 0 bytes (a runs file must never be empty"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn check_lists_every_leftover_and_gc_removes_them_but_spares_a_live_writer() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path();
    let run = one_run(wh);
    let before = scalar(wh, "select count(*) from requests");
    // A writer that died at each step of the protocol:
    fs::write(wh.join("trials/suite=s/dead.parquet.tmp"), b"half").unwrap();
    let other = tempfile::tempdir().unwrap();
    let b = our_aiperf();
    ok(
        other.path(),
        &["ingest", "--suite", "s", b.to_str().unwrap()],
    );
    let orphan_src = fs::read_dir(other.path().join("requests/suite=s"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    fs::copy(&orphan_src, wh.join("requests/suite=s/dead-p0.parquet")).unwrap();
    fs::create_dir_all(wh.join(".inflight/dead-run/requests/suite=s")).unwrap();
    fs::write(
        wh.join(".inflight/dead-run/requests/suite=s/x.parquet"),
        b"x",
    )
    .unwrap();
    fs::create_dir_all(wh.join("artifacts/blobs/ab")).unwrap();
    fs::write(wh.join("artifacts/blobs/ab/abcd"), b"unreferenced").unwrap();
    fs::write(wh.join("artifacts/blobs/ab/abcd.123.tmp"), b"copying").unwrap();
    fs::create_dir_all(wh.join(".staging/trials")).unwrap();
    // …and a writer still at work.
    let live = perfhouse::warehouse::Warehouse::open(wh)
        .unwrap()
        .begin_run("live-run")
        .unwrap();

    let o = perfhouse(wh, &["check"]);
    assert!(
        o.status.success(),
        "leftovers are not damage: {}",
        stderr(&o)
    );
    let err = stderr(&o);
    for needle in [
        "leftover: ",
        "dead.parquet.tmp: not a landed file",
        // The orphan holds the requests of one ingest of our_aiperf(): its 20 records
        // (`wc -l tests/fixtures/aiperf-made-here/profile_export.jsonl`).
        "dead-p0.parquet: 20 rows of runs that never committed",
        ".inflight/dead-run: a run being written, or one whose writer died",
        ".inflight/live-run: a run being written",
        "blobs/ab/abcd: a kept input no committed run refers to",
        "blobs/ab/abcd.123.tmp: a temporary copy of a kept input",
        ".staging: a compaction that did not finish",
    ] {
        assert!(err.contains(needle), "{needle} missing from:\n{err}");
    }
    assert!(
        stdout(&o).contains("7 leftovers (`perfhouse gc` removes them)"),
        "{}",
        stdout(&o)
    );

    // The grace period spares what may belong to an ingest in flight.
    let dry = ok(wh, &["gc", "--dry-run"]);
    assert!(dry.contains("would remove 3 leftovers"), "{dry}");
    let out = ok(wh, &["gc", "--grace", "0s"]);
    assert!(out.contains("removed 6 leftovers"), "{out}");
    let o = perfhouse(wh, &["check"]);
    let err = stderr(&o);
    assert!(
        err.contains(".inflight/live-run"),
        "the live writer is spared: {err}"
    );
    assert!(
        stdout(&o).contains("0 problems, 1 leftovers"),
        "{}",
        stdout(&o)
    );
    drop(live);
    let o = perfhouse(wh, &["check"]);
    assert!(
        stdout(&o).contains("0 problems, 0 leftovers"),
        "{}",
        stdout(&o)
    );
    // Every committed row is still there, and its kept input.
    assert_eq!(scalar(wh, "select count(*) from requests"), before);
    assert_eq!(
        scalar(wh, "select run_id from runs").as_str(),
        Some(run.as_str())
    );
}
