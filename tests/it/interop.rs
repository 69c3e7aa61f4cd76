//! The warehouse is plain Hive-partitioned Parquet: DuckDB and pyarrow (independent readers)
//! must see exactly what perfhouse sees. Needs Python with duckdb and pyarrow: `tests/run.sh`
//! installs them into `.venv`; PERFHOUSE_PYTHON overrides the interpreter.

use crate::common;

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
    let sample = our_aiperf();
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

#[test]
fn goodput_and_slo_attainment_equal_duckdb_over_the_same_request_rows() {
    let wh = tempfile::tempdir().unwrap();
    let data = repo().join("datasets/dynamo-frontend/data");
    ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "d",
            "--label",
            "slo=ttft_ms<=40,itl_ms<=8",
            data.to_str().unwrap(),
        ],
    );
    let ours = query(
        wh.path(),
        "select trial_id, slo, throughput_rps, goodput_rps, goodput_tps, slo_attainment_pct \
         from trial_figures order by trial_id",
    );
    // DuckDB over the request rows perfhouse wrote, with the definitions of `query::slo`.
    let theirs = py(
        wh.path(),
        "import duckdb,sys,json\n\
         w=sys.argv[1]\n\
         ok='error_code is null and not cancelled and ttft_ns <= 40e6 and itl_ns <= 8e6'\n\
         rows=duckdb.sql(f\"\"\"with m as (select * from read_parquet('{w}/requests/**/*.parquet', hive_partitioning=true) where coalesce(phase, 'measured') = 'measured')\n\
           select trial_id, sum(case when {ok} then 1 else 0 end) / ((max(end_ns) - min(start_ns)) / 1e9),\n\
                  sum(case when {ok} then output_tokens else 0 end) / ((max(end_ns) - min(start_ns)) / 1e9),\n\
                  100.0 * sum(case when {ok} then 1 else 0 end) / count(*)\n\
           from m group by trial_id order by trial_id\"\"\").fetchall()\n\
         print(json.dumps(rows))",
    );
    let theirs: Vec<(i64, f64, f64, f64)> = serde_json::from_str(&theirs).unwrap();
    assert_eq!(ours.len(), theirs.len());
    assert_eq!(ours.len(), 16);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
    let mut partial = 0;
    for (o, (trial, goodput, tokens, attainment)) in ours.iter().zip(&theirs) {
        assert_eq!(o["trial_id"], *trial);
        assert_eq!(o["slo"], "ttft_ms<=40,itl_ms<=8");
        let g = o["goodput_rps"].as_f64().unwrap();
        assert!(
            close(g, *goodput),
            "trial {trial}: goodput {g} vs DuckDB {goodput}"
        );
        let t = o["goodput_tps"].as_f64().unwrap();
        assert!(close(t, *tokens), "trial {trial}: {t} vs DuckDB {tokens}");
        let a = o["slo_attainment_pct"].as_f64().unwrap();
        assert!(
            close(a, *attainment),
            "trial {trial}: {a} vs DuckDB {attainment}"
        );
        assert!(g <= o["throughput_rps"].as_f64().unwrap());
        partial += usize::from(*attainment > 0.0 && *attainment < 100.0);
    }
    // The SLO separates requests (neither all nor none meet it) in most trials.
    assert!(partial >= 10, "{theirs:?}");
    // `--slo` overrides the label: a bound every completed request meets → goodput = throughput.
    let o = perfhouse(
        wh.path(),
        &[
            "--slo",
            "latency_ms<=1000000",
            "query",
            "--format",
            "json",
            "select slo, throughput_rps, goodput_rps from trial_figures",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    for r in &rows {
        assert_eq!(r["slo"], "latency_ms<=1000000");
        assert!(close(
            r["goodput_rps"].as_f64().unwrap(),
            r["throughput_rps"].as_f64().unwrap()
        ));
    }
    // A malformed SLO is a usage error naming what was expected.
    let o = perfhouse(wh.path(), &["--slo", "ttft<=1", "query", "select 1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("expected METRIC<=MS"), "{}", stderr(&o));
}

/// The scraped server metrics of the bundled Dynamo capture read the same in DuckDB: the
/// labels (JSON text) through its JSON functions, `le = +Inf` as infinity, and the frontend's
/// request counter rate over each trial's measured window recomputed in DuckDB's SQL equal to
/// perfhouse's `trial_server`.
#[test]
fn duckdb_reads_scraped_samples_and_recomputes_the_counter_rate() {
    let wh = tempfile::tempdir().unwrap();
    let src = repo().join("tests/fixtures/dynamo-scrape/warehouse");
    for e in walkdir::WalkDir::new(&src) {
        let e = e.unwrap();
        let to = wh.path().join(e.path().strip_prefix(&src).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
    let ours = query(
        wh.path(),
        "select trial_id, value from trial_server \
         where figure = 'server.dynamo_frontend_requests_total.rate' order by trial_id",
    );
    let ours: Vec<String> = ours
        .iter()
        .map(|r| format!("{}|{:.9}", r["trial_id"], r["value"].as_f64().unwrap()))
        .collect();
    let duck = py(
        wh.path(),
        "import duckdb,sys\n\
         w=sys.argv[1]\n\
         s=f\"read_parquet('{w}/scrape_samples/**/*.parquet', hive_partitioning=true)\"\n\
         r=f\"read_parquet('{w}/requests/**/*.parquet', hive_partitioning=true)\"\n\
         q=f'''with w as (select trial_id, min(start_ns) ws, max(end_ns) we from {r}\n\
               where coalesce(phase, 'measured') = 'measured' group by 1),\n\
           c as (select s.trial_id, labels, t_ns, value from {s} s join w using (trial_id)\n\
               where name = 'dynamo_frontend_requests_total' and t_ns between ws and we),\n\
           e as (select trial_id, labels, arg_max(value, t_ns) - arg_min(value, t_ns) inc,\n\
               (max(t_ns) - min(t_ns)) / 1e9 span from c group by 1, 2)\n\
           select trial_id, sum(inc / span) from e group by 1 order by 1'''\n\
         print('\\n'.join(f'{t}|{v:.9f}' for t, v in duckdb.sql(q).fetchall()))\n\
         print(duckdb.sql(f\"select distinct json_extract_string(labels, '$.status') from {s} where name = 'dynamo_frontend_requests_total'\").fetchall())\n\
         print(duckdb.sql(f\"select count(*) from {s} where le = 'inf'::double\").fetchall()[0][0])",
    );
    let lines: Vec<&str> = duck.lines().collect();
    assert_eq!(
        lines[..2],
        ours.iter().map(String::as_str).collect::<Vec<_>>()[..]
    );
    assert_eq!(lines[2], "[('success',)]");
    let inf = scalar(
        wh.path(),
        "select count(*) from scrape_samples where le > 1e308",
    );
    assert_eq!(lines[3], inf.to_string());
}
