//! The warehouse is plain Hive-partitioned Parquet: DuckDB and pyarrow (independent readers)
//! must see exactly what perfhouse sees. Needs Python with duckdb and pyarrow: `tests/run.sh`
//! installs them into `.venv`; PERFHOUSE_PYTHON overrides the interpreter.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

fn python() -> PathBuf {
    if let Ok(p) = std::env::var("PERFHOUSE_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = repo().join(".venv/bin/python");
    assert!(
        venv.exists(),
        "no Python with duckdb/pyarrow: run tests/run.sh (it creates .venv) or set PERFHOUSE_PYTHON"
    );
    venv
}

/// Runs a Python snippet with the warehouse path as argv[1]; returns its stdout.
fn py(warehouse: &Path, code: &str) -> String {
    let o = Command::new(python())
        .arg("-c")
        .arg(code)
        .arg(warehouse)
        .output()
        .expect("python runs");
    assert!(
        o.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn duckdb_and_pyarrow_read_what_perfhouse_wrote() {
    let wh = tempfile::tempdir().unwrap();
    let site = tempfile::tempdir().unwrap();
    let datasets = repo().join("datasets");
    ok(
        wh.path(),
        &[
            "demo",
            "--no-plans",
            "--datasets",
            datasets.to_str().unwrap(),
            "--out",
            site.path().to_str().unwrap(),
        ],
    );
    // A suite name that needs percent-encoding in its partition directory.
    let sample = samples().join("aiperf/profile_export.v0-excerpt.jsonl");
    ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "odd suite/<x>",
            sample.to_str().unwrap(),
        ],
    );

    let ours = query(
        wh.path(),
        "select suite, count(*) as n, sum(latency_ns) as s from requests group by suite order by suite",
    );
    let ours: Vec<String> = ours
        .iter()
        .map(|r| format!("{}|{}|{}", r["suite"].as_str().unwrap(), r["n"], r["s"]))
        .collect();
    let total = scalar(wh.path(), "select count(*) from requests")
        .as_i64()
        .unwrap();
    assert!(
        total > 1000,
        "the demo datasets hold real requests, got {total}"
    );

    let duck = py(
        wh.path(),
        "import duckdb,sys\n\
         w=sys.argv[1]\n\
         rows=duckdb.sql(f\"select suite, count(*), sum(latency_ns)::BIGINT from read_parquet('{w}/requests/**/*.parquet', hive_partitioning=true) group by suite order by suite\").fetchall()\n\
         print('\\n'.join(f'{s}|{n}|{t}' for s,n,t in rows))\n\
         print('TOTAL', duckdb.sql(f\"select count(*) from read_parquet('{w}/requests/**/*.parquet', hive_partitioning=true)\").fetchall()[0][0])",
    );
    let mut lines: Vec<&str> = duck.lines().collect();
    let duck_total = lines.pop().unwrap();
    assert_eq!(duck_total, format!("TOTAL {total}"));
    assert_eq!(lines, ours.iter().map(String::as_str).collect::<Vec<_>>());

    let arrow = py(
        wh.path(),
        "import pyarrow.dataset as ds,sys\n\
         d=ds.dataset(sys.argv[1]+'/requests', format='parquet', partitioning='hive')\n\
         print(d.count_rows())\n\
         t=ds.dataset(sys.argv[1]+'/runs', format='parquet', partitioning='hive').to_table()\n\
         print(sorted(set(t.column('suite').to_pylist())))\n\
         print(t.schema.field('started_at').type)",
    );
    let lines: Vec<&str> = arrow.lines().collect();
    assert_eq!(lines[0], total.to_string());
    assert!(lines[1].contains("'odd suite/<x>'"), "{}", lines[1]);
    assert_eq!(lines[2], "timestamp[us, tz=UTC]");
}
