//! Reads detect damage (issue 39): every table file carries the digest of its bytes in its
//! name (`<stem>.xxh64-<hex>.parquet`), and every command that reads the warehouse checks it
//! before it reads anything, so a flipped byte is an error naming the file, never an answer.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use perfhouse::model::*;
use perfhouse::warehouse::{Table, Warehouse};

use crate::common::*;

const S: i64 = 1_000_000_000;

fn run(n: u32) -> Run {
    let at = 1_700_000_000_000_000 + i64::from(n) * 60_000_000;
    Run {
        finished_at_us: at + 1,
        ingested_at_us: at + 2,
        git_commit: Some(format!("{n:040x}")),
        ..Run::new(
            format!("01900000-0000-7000-8000-{n:012}"),
            "s",
            "test",
            at,
            format!("digest-{n}"),
        )
    }
}

/// A warehouse with at least one file in every table: three runs of suite `s` (rows in every
/// run table, a kept input, a note), then a triage event.
fn every_table(dir: &Path) -> PathBuf {
    let root = dir.join("wh");
    let wh = Warehouse::open(&root).unwrap();
    for n in 1..=3u32 {
        let input = dir.join(format!("input-{n}.json"));
        fs::write(&input, format!("{{\"run\": {n}}}")).unwrap();
        let params = BTreeMap::from([("concurrency".to_string(), "2".to_string())]);
        let mut d = RunData {
            trials: vec![Trial {
                concurrency: Some(2),
                exit_code: Some(0),
                ..Trial::measured(0, "a", params, 0)
            }],
            ..Default::default()
        };
        d.metrics.push(Metric {
            trial_id: 0,
            name: "pps".into(),
            value: 100.0 + f64::from(n),
            unit: "packets/s".into(),
            better: Better::Higher,
            origin: "test".into(),
            version: None,
        });
        for i in 0..50i64 {
            d.requests.push(Request {
                trial_id: 0,
                phase: Some(Phase::Measured),
                start_ns: S + i * 10_000_000,
                end_ns: Some(S + i * 10_000_000 + 5_000_000 + i64::from(n)),
                latency_ns: Some(5_000_000 + i64::from(n)),
                ttft_ns: Some(1_000_000),
                output_tokens: Some(10),
                ..Default::default()
            });
        }
        for (k, t) in [(0i64, S), (1, 2 * S)] {
            d.cpu_samples.push(CpuSample {
                trial_id: 0,
                t_ns: t,
                scope: "cpu0".into(),
                user_ticks: 10 * k,
                system_ticks: 5 * k,
                idle_ticks: 85 * k,
                total_ticks: 100 * k,
            });
            d.scrape_samples.push(ScrapeSample {
                trial_id: 0,
                t_ns: t,
                target: "srv".into(),
                family: "reqs_total".into(),
                kind: "counter".into(),
                name: "reqs_total".into(),
                labels: "{}".into(),
                le: None,
                value: 100.0 * k as f64,
            });
        }
        d.stacks.push(Stack {
            trial_id: 0,
            target: "srv".into(),
            kind: StackKind::Oncpu,
            stack: "main;work".into(),
            weight: 10.0,
        });
        d.artifacts
            .push(wh.store_blob(&input, "input.json").unwrap());
        d.notes.push(format!("run {n}"));
        wh.append_run(&run(n), &d).unwrap();
    }
    wh.record_alert(&AlertEvent {
        alert_id: "alert-1".into(),
        suite: "s".into(),
        run_id: run(3).run_id,
        metric: "pps".into(),
        arm: "a".into(),
        params: BTreeMap::new(),
        git_commit: None,
        magnitude: 0.1,
        regression: false,
        state: perfhouse::model::TriageState::Acknowledged,
        note: "seen".into(),
        at_us: 1_700_000_000_000_000,
    })
    .unwrap();
    root
}

fn table_files(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = files_under(root)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .filter(|p| !p.starts_with(root.join(".inflight")))
        .collect();
    out.sort();
    out
}

fn copy_dir(from: &Path, to: &Path) {
    for f in files_under(from) {
        let dest = to.join(f.strip_prefix(from).unwrap());
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::copy(&f, &dest).unwrap();
    }
}

/// The must-show of issue 39: one byte (one bit of it) flipped in the middle of each table
/// file, in a copy of the warehouse each time; `query` (of another table, and of that one),
/// `site`, `compact`, `history` and `check` all exit 1 naming the file. Before checksums, most
/// of these flips were read silently (a `start_ns` turned negative, a `credit_ns` off by 74 ns).
#[test]
fn a_flipped_byte_in_any_table_file_stops_query_site_compact_and_history_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = every_table(dir.path());
    let files = table_files(&root);
    // Three runs' files of nine tables each, and the triage event's.
    assert_eq!(files.len(), 28, "{files:?}");
    for table in Table::ALL {
        assert!(
            files.iter().any(|f| f.starts_with(root.join(table.name()))),
            "no {} file in {files:?}",
            table.name()
        );
    }
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        assert!(
            name.contains(".xxh64-"),
            "{name}: written without a checksum"
        );
    }
    ok(&root, &["check"]);
    for (i, f) in files.iter().enumerate() {
        let copy = dir.path().join(format!("flip{i}"));
        copy_dir(&root, &copy);
        let target = copy.join(f.strip_prefix(&root).unwrap());
        let mut bytes = fs::read(&target).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x01;
        fs::write(&target, &bytes).unwrap();
        let table = f
            .strip_prefix(&root)
            .unwrap()
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .into_owned();
        let own = format!("select * from raw_{table}");
        let site = dir.path().join(format!("site{i}"));
        for args in [
            vec!["query", "select count(*) from runs"],
            vec!["query", own.as_str()],
            vec!["site", "--out", site.to_str().unwrap()],
            vec!["compact"],
            vec!["history"],
            vec!["check"],
        ] {
            let o = perfhouse(&copy, &args);
            let err = stderr(&o);
            assert_eq!(
                o.status.code(),
                Some(1),
                "{table}: {args:?} answered from a damaged file:\n{}{err}",
                stdout(&o)
            );
            assert!(
                err.contains(&target.display().to_string())
                    && err.contains("the file changed after it was written"),
                "{table}: {args:?} did not name {}:\n{err}",
                target.display()
            );
        }
        // Nothing was written in its place: the damaged file is as it was, for `check`.
        assert_eq!(fs::read(&target).unwrap(), bytes);
    }
}

/// A warehouse written before checksums (the bundled dataset's files, as they are) is read as
/// before; `check` counts its files as unverified, `import` lands its files with checksums,
/// and `compact` rewrites them with one, keeping every row.
#[test]
fn files_written_before_checksums_are_read_and_get_one_from_compact_or_import() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old");
    copy_dir(
        &repo().join("datasets/dynamo-frontend-runner/warehouse"),
        &old,
    );
    let legacy = table_files(&old);
    assert!(
        legacy
            .iter()
            .all(|f| !f.to_string_lossy().contains(".xxh64-"))
    );
    let rows = |root: &Path| {
        ["runs", "requests", "cpu_samples", "stacks"]
            .map(|t| scalar(root, &format!("select count(*) from {t}")))
    };
    let before = rows(&old);
    let o = perfhouse(&old, &["check"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "{} table files carry no checksum in their name",
            legacy.len()
        )),
        "{}",
        stderr(&o)
    );
    // Import: every file lands with its checksum.
    let new = dir.path().join("new");
    ok(&new, &["import", old.to_str().unwrap()]);
    let imported = table_files(&new);
    assert_eq!(imported.len(), legacy.len());
    assert!(
        imported
            .iter()
            .all(|f| f.to_string_lossy().contains(".xxh64-")),
        "{imported:?}"
    );
    assert_eq!(rows(&new), before);
    // Compact: each lone file without one is rewritten with one.
    ok(&old, &["compact"]);
    let compacted = table_files(&old);
    assert!(
        compacted
            .iter()
            .all(|f| f.to_string_lossy().contains(".xxh64-")),
        "{compacted:?}"
    );
    assert_eq!(rows(&old), before);
    // Each kept its run's name (nothing to merge it with), so the bundle still imports.
    assert!(
        compacted
            .iter()
            .all(|f| !f.to_string_lossy().contains("compact-")),
        "{compacted:?}"
    );
    let again = dir.path().join("again");
    ok(&again, &["import", old.to_str().unwrap()]);
    assert_eq!(rows(&again), before);
    let o = perfhouse(&old, &["check"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("carry no checksum"), "{}", stderr(&o));
}

/// A file's name carries the digest of exactly its bytes, whichever way it was written:
/// a run's commit, a streamed part, a note, a triage event, a compaction.
#[test]
fn every_written_file_carries_the_checksum_of_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let root = every_table(dir.path());
    // An aiperf export: its requests are streamed into parts, landed at the commit.
    let jsonl = dir.path().join("profile_export.jsonl");
    let mut text = String::new();
    for i in 0..100u64 {
        text.push_str(&format!(
            r#"{{"metadata":{{"request_start_ns":{},"benchmark_phase":"profiling"}},"metrics":{{"request_latency":{{"value":12,"unit":"ms"}}}},"error":null}}"#,
            1_700_000_000_000_000_000u64 + i * 1_000_000
        ));
        text.push('\n');
    }
    fs::write(&jsonl, text).unwrap();
    ok(&root, &["ingest", "--suite", "t", jsonl.to_str().unwrap()]);
    let streamed = table_files(&root.join("requests/suite=t"));
    assert!(
        streamed
            .iter()
            .any(|f| f.to_string_lossy().contains("-p0.xxh64-")),
        "{streamed:?}"
    );
    let wh = Warehouse::open(&root).unwrap();
    wh.annotate(&run(1).run_id, "later", 1).unwrap();
    for f in table_files(&root) {
        check_name(&f);
    }
    wh.compact().unwrap();
    let files = table_files(&root);
    assert!(
        files
            .iter()
            .any(|f| f.to_string_lossy().contains("compact-"))
    );
    for f in files {
        check_name(&f);
    }
}

fn check_name(f: &Path) {
    let name = f.file_name().unwrap().to_string_lossy().into_owned();
    let want = perfhouse::warehouse::checksum::expected(&name)
        .unwrap_or_else(|| panic!("{name}: no checksum"));
    assert_eq!(
        perfhouse::warehouse::checksum::digest_of(&fs::read(f).unwrap()),
        want,
        "{name}"
    );
}

/// In an object store (`file://`, the same protocol as a bucket: no locks, create-only puts):
/// pushed parts and a compaction's merged output carry their digest too, and a flipped byte
/// in one stops `query`, `compact` (which reads it to merge it) and `check`, naming the object.
#[test]
fn in_an_object_store_a_flipped_byte_stops_readers_naming_the_object() {
    let tmp = tempfile::tempdir().unwrap();
    let bucket = tmp.path().join("bucket");
    let url = format!("file://{}", bucket.display());
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_perfhouse"))
            .env_remove("PERFHOUSE_WAREHOUSE")
            .env("TMPDIR", tmp.path())
            .args(["--warehouse", &url])
            .args(args)
            .output()
            .unwrap()
    };
    for n in 0..2 {
        let f = tmp.path().join(format!("m{n}.json"));
        fs::write(
            &f,
            format!(
                r#"{{"metrics": [{{"name": "pps", "value": {}, "unit": "packets/s", "better": "higher"}}]}}"#,
                100 + n
            ),
        )
        .unwrap();
        let o = run(&["ingest", "--suite", "s", f.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = run(&["compact"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let parts = table_files(&bucket);
    let merged: Vec<_> = parts
        .iter()
        .filter(|p| p.to_string_lossy().contains("/merged-"))
        .collect();
    assert!(!merged.is_empty(), "{parts:?}");
    // Every part and every committed merged output (the one staged under a name without a
    // digest is gone once copied to its name).
    for p in parts
        .iter()
        .filter(|p| !p.starts_with(bucket.join("compactions")))
    {
        check_name(p);
    }
    let metrics = parts
        .iter()
        .find(|p| p.starts_with(bucket.join("metrics")) && p.to_string_lossy().contains("merged-"))
        .unwrap();
    let mut bytes = fs::read(metrics).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x01;
    fs::write(metrics, &bytes).unwrap();
    let name = metrics.file_name().unwrap().to_string_lossy().into_owned();
    // One more run, so `compact` has the damaged file to merge (in a bucket it reads only
    // what it merges: a partition of one file is not downloaded).
    let f = tmp.path().join("m2.json");
    fs::write(
        &f,
        r#"{"metrics": [{"name": "pps", "value": 102, "unit": "packets/s", "better": "higher"}]}"#,
    )
    .unwrap();
    let o = run(&["ingest", "--suite", "s", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for args in [
        vec!["query", "select sum(value) from metrics"],
        vec!["compact"],
        vec!["check"],
    ] {
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}:\n{}{err}", stdout(&o));
        assert!(
            err.contains(&name) && err.contains("the file changed after it was written"),
            "{args:?} did not name {name}:\n{err}"
        );
    }
}
