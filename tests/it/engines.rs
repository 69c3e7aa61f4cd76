//! Other engines read the warehouse through `perfhouse schema --ddl ENGINE` and compute the same
//! per-trial request count, median latency and throughput as perfhouse's `trial_figures`:
//! Apache Spark (PyPI's pyspark in local mode, Debian's Java) over a warehouse directory, DuckDB
//! over the same directory and over a bucket on a real S3 API (moto on loopback, DuckDB's httpfs
//! extension from PyPI's duckdb-ext-httpfs). tests/run.sh installs all of them.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::s3::S3;
use common::{fixture, ok, our_aiperf, skip};

/// The engine-side computation, hand-written over the committed views: per trial, measured
/// requests, the median latency of the completed ones, completed ÷ measured window.
fn per_trial_sql(median: &str) -> String {
    format!(
        "WITH m AS (SELECT *, (error_code IS NULL AND NOT cancelled) AS ok FROM requests \
         WHERE coalesce(phase, 'measured') = 'measured') \
         SELECT run_id, trial_id, count(*) AS requests, \
         {median}(CAST(CASE WHEN ok THEN latency_ns END AS DOUBLE), 0.5) / 1e6 AS latency_p50_ms, \
         sum(CASE WHEN ok THEN 1 ELSE 0 END) / ((max(end_ns) - min(start_ns)) / 1e9) AS throughput_rps \
         FROM m GROUP BY run_id, trial_id ORDER BY run_id, trial_id"
    )
}

/// perfhouse's own figures, one `run_id|trial_id|requests|p50|rps` line per trial.
const OURS: &str = "SELECT run_id, trial_id, requests, latency_p50_ms, throughput_rps FROM trial_figures \
                    WHERE requests IS NOT NULL ORDER BY run_id, trial_id";

type Row = (String, i64, i64, f64, f64);

fn rows_of(json: &serde_json::Value) -> Vec<Row> {
    json.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["run_id"].as_str().unwrap().to_string(),
                r["trial_id"].as_i64().unwrap(),
                r["requests"].as_i64().unwrap(),
                r["latency_p50_ms"].as_f64().unwrap(),
                r["throughput_rps"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Equal counts, and figures equal to 1e-9 relative.
fn assert_same(ours: &[Row], theirs: &[Row], engine: &str) {
    assert!(!ours.is_empty());
    assert_eq!(ours.len(), theirs.len(), "{engine}: {theirs:?}");
    for (a, b) in ours.iter().zip(theirs) {
        assert_eq!((&a.0, a.1, a.2), (&b.0, b.1, b.2), "{engine}");
        for (x, y) in [(a.3, b.3), (a.4, b.4)] {
            assert!(
                (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
                "{engine}: {a:?} vs {b:?}"
            );
        }
    }
}

fn python() -> Option<PathBuf> {
    let p = std::env::var_os("PERFHOUSE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join(".venv/bin/python"));
    p.is_file().then_some(p)
}

/// Runs a Python script (argv: the DDL file, the query) printing JSON rows; its stdout.
fn py(python: &Path, env: &[(&str, &str)], script: &str, args: &[&str]) -> String {
    let o = Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("python runs");
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A warehouse of real captures: aiperf's multi-run (6 trials) and an aiperf export (ours: 1
/// trial with measured requests) in a suite whose name needs percent-encoding in its partition
/// directory.
fn warehouse(dir: &Path) -> PathBuf {
    let wh = dir.join("wh");
    ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "dynamo sweep",
            &fixture("aiperf-multirun"),
        ],
    );
    let sample = our_aiperf();
    ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "odd suite/<x>",
            sample.to_str().unwrap(),
        ],
    );
    wh
}

const SPARK: &str = r#"
import json, sys
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").appName("perfhouse-interop")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
         .getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
# argv: the query, then DDL files: for each, its views, then the query's rows and the suites.
for ddl in sys.argv[2:]:
    for stmt in open(ddl).read().split(";\n"):
        body = "\n".join(l for l in stmt.splitlines() if not l.startswith("--")).strip()
        if body:
            spark.sql(body)
    rows = [r.asDict() for r in spark.sql(sys.argv[1]).collect()]
    print(json.dumps(rows))
    print(json.dumps(sorted(r.suite for r in spark.sql("SELECT DISTINCT suite FROM runs").collect())))
"#;

/// DuckDB over a DDL file (argv: the DDL, the query), printing JSON rows.
const DUCKDB: &str = "import duckdb, json, sys\ncon = duckdb.connect()\ncon.execute(open(sys.argv[1]).read())\n\
                      cur = con.execute(sys.argv[2])\ncols = [d[0] for d in cur.description]\n\
                      print(json.dumps([dict(zip(cols, r)) for r in cur.fetchall()]))";

/// The captures of [`warehouse`] plus a second run in one suite, in a `file://` warehouse (an
/// object store's protocol on a directory), compacted and not yet collected: merged files lie
/// next to the files they replace, and only the DDL's file-name filter tells them apart.
/// Returns its URL and perfhouse's figures over it.
fn compacted_file_url_warehouse(dir: &Path) -> (String, Vec<Row>) {
    let url = format!("file://{}", dir.join("fw").display());
    let wh = Path::new(&url);
    ok(
        wh,
        &[
            "ingest",
            "--suite",
            "dynamo sweep",
            &fixture("aiperf-multirun"),
        ],
    );
    let sample = our_aiperf();
    for arm in ["a", "b"] {
        ok(
            wh,
            &[
                "ingest",
                "--suite",
                "odd suite/<x>",
                "--arm",
                arm,
                sample.to_str().unwrap(),
            ],
        );
    }
    // Parts of 4 KiB: the merged files go up as multipart uploads of several parts.
    let o = Command::new(env!("CARGO_BIN_EXE_perfhouse"))
        .args(["--warehouse", &url, "compact"])
        .env("PERFHOUSE_UPLOAD_PART_BYTES", "4096")
        .output()
        .unwrap();
    let merged = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        merged.contains("requests/suite=odd suite/<x>: merged 2 files"),
        "{merged}"
    );
    // The merged requests file is bigger than one part.
    let biggest = walk_files(&dir.join("fw/requests"))
        .into_iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("merged-")
        })
        .map(|p| std::fs::metadata(p).unwrap().len())
        .max()
        .unwrap();
    assert!(biggest > 4096, "{biggest}");
    let ours = rows_of(&serde_json::Value::Array(
        common::query(wh, OURS)
            .into_iter()
            .map(Into::into)
            .collect(),
    ));
    assert_eq!(ours.len(), 8, "{ours:?}");
    (url, ours)
}

#[test]
fn spark_and_duckdb_read_a_warehouse_directory_through_its_ddl_with_the_same_figures() {
    let Some(python) = python() else {
        skip(
            "python",
            "no PERFHOUSE_PYTHON or .venv (tests/run.sh makes one)",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let wh = warehouse(dir.path());
    let ours = rows_of(&serde_json::Value::Array(
        common::query(&wh, OURS)
            .into_iter()
            .map(Into::into)
            .collect(),
    ));
    assert_eq!(ours.len(), 7, "{ours:?}");

    let duck_ddl = dir.path().join("duckdb.sql");
    std::fs::write(&duck_ddl, ok(&wh, &["schema", "--ddl", "duckdb"])).unwrap();
    let duck = py(
        &python,
        &[],
        DUCKDB,
        &[duck_ddl.to_str().unwrap(), &per_trial_sql("quantile_cont")],
    );
    assert_same(
        &ours,
        &rows_of(&serde_json::from_str(&duck).unwrap()),
        "duckdb",
    );
    let (url, compacted) = compacted_file_url_warehouse(dir.path());
    let compacted_ddl = |engine: &str| {
        let f = dir.path().join(format!("{engine}-compacted.sql"));
        std::fs::write(&f, ok(Path::new(&url), &["schema", "--ddl", engine])).unwrap();
        f
    };
    let duck_compacted = compacted_ddl("duckdb");
    let duck = py(
        &python,
        &[],
        DUCKDB,
        &[
            duck_compacted.to_str().unwrap(),
            &per_trial_sql("quantile_cont"),
        ],
    );
    assert_same(
        &compacted,
        &rows_of(&serde_json::from_str(&duck).unwrap()),
        "duckdb over a compacted file:// warehouse",
    );

    let spark_ok = Command::new(&python)
        .args(["-c", "import pyspark"])
        .status()
        .is_ok_and(|s| s.success());
    if !spark_ok {
        skip(
            "pyspark",
            "pyspark is not installed in the venv (tests/run.sh installs it)",
        );
        return;
    }
    let spark_ddl = dir.path().join("spark.sql");
    std::fs::write(&spark_ddl, ok(&wh, &["schema", "--ddl", "spark"])).unwrap();
    let spark_compacted = compacted_ddl("spark");
    let out = py(
        &python,
        &[],
        SPARK,
        &[
            &per_trial_sql("percentile"),
            spark_ddl.to_str().unwrap(),
            spark_compacted.to_str().unwrap(),
        ],
    );
    let mut lines = out.lines().filter(|l| l.starts_with('['));
    for (want, engine) in [
        (&ours, "spark"),
        (&compacted, "spark over a compacted file:// warehouse"),
    ] {
        let rows: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        assert_same(want, &rows_of(&rows), engine);
        // Spark decodes the percent-encoded partition directory back to the suite's name.
        assert_eq!(
            lines.next().unwrap(),
            r#"["dynamo sweep", "odd suite/<x>"]"#
        );
    }
}

#[cfg_attr(
    not(feature = "s3"),
    ignore = "needs the s3 feature: tests/run.sh --ci"
)]
#[test]
fn duckdb_reads_a_bucket_through_httpfs_with_the_same_figures() {
    let Some(python) = python() else {
        skip(
            "python",
            "no PERFHOUSE_PYTHON or .venv (tests/run.sh makes one)",
        );
        return;
    };
    let httpfs = std::env::var_os("PERFHOUSE_DUCKDB_HTTPFS")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo().join(".venv/duckdb-httpfs"));
    if !httpfs.join("duckdb_ext").is_dir() {
        skip(
            "duckdb-httpfs",
            "duckdb-ext-httpfs is not installed (tests/run.sh installs it)",
        );
        return;
    }
    let Some(s3) = S3::start("engines") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path();
    let url = "s3://engines/perf";
    s3.ok(
        t,
        url,
        &[
            "ingest",
            "--suite",
            "dynamo sweep",
            &fixture("aiperf-multirun"),
        ],
    );
    let sample = our_aiperf();
    s3.ok(
        t,
        url,
        &[
            "ingest",
            "--suite",
            "odd suite/<x>",
            sample.to_str().unwrap(),
        ],
    );
    let ours = rows_of(&s3.query(t, url, OURS));
    assert_eq!(ours.len(), 7, "{ours:?}");
    let ddl = t.join("duckdb.sql");
    let ext = walkdir(&httpfs.join("duckdb_ext"));
    let script = format!(
        "import duckdb, json, sys\ncon = duckdb.connect()\ncon.execute(\"LOAD '{}'\")\n\
         con.execute(\"CREATE SECRET s (TYPE s3, KEY_ID 'test', SECRET 'test', REGION 'us-east-1', ENDPOINT '127.0.0.1:{}', URL_STYLE 'path', USE_SSL false)\")\n\
         con.execute(open(sys.argv[1]).read())\ncur = con.execute(sys.argv[2])\ncols = [d[0] for d in cur.description]\n\
         print(json.dumps([dict(zip(cols, r)) for r in cur.fetchall()]))",
        ext.display(),
        s3.port
    );
    // DuckDB's per-trial figures over the bucket, through the DDL perfhouse prints now.
    let duck_over_bucket = || {
        std::fs::write(&ddl, s3.ok(t, url, &["schema", "--ddl", "duckdb"]).stdout).unwrap();
        let out = py(
            &python,
            &[("PYTHONPATH", httpfs.to_str().unwrap())],
            &script,
            &[ddl.to_str().unwrap(), &per_trial_sql("quantile_cont")],
        );
        rows_of(&serde_json::from_str(&out).unwrap())
    };
    assert_same(&ours, &duck_over_bucket(), "duckdb over s3");
    // A second run in one suite, compacted: until gc, the bucket holds merged objects next to
    // the ones they replace; the DDL made after the compaction reads each row once.
    s3.ok(
        t,
        url,
        &[
            "ingest",
            "--suite",
            "odd suite/<x>",
            "--arm",
            "b",
            sample.to_str().unwrap(),
        ],
    );
    let merged = String::from_utf8_lossy(&s3.ok(t, url, &["compact"]).stdout).into_owned();
    assert!(
        merged.contains("requests/suite=odd suite/<x>: merged 2 files"),
        "{merged}"
    );
    let ours = rows_of(&s3.query(t, url, OURS));
    assert_eq!(ours.len(), 8, "{ours:?}");
    assert_same(&ours, &duck_over_bucket(), "duckdb over a compacted bucket");
}

/// Every file under `dir`.
fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(walk_files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The httpfs extension file under the package (its path names the DuckDB version).
fn walkdir(dir: &Path) -> PathBuf {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            let found = walkdir(&p);
            if found.is_file() {
                return found;
            }
        } else if p
            .file_name()
            .is_some_and(|n| n == "httpfs.duckdb_extension")
        {
            return p;
        }
    }
    PathBuf::new()
}
