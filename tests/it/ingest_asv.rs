//! airspeed velocity results: one run per commit.

use crate::common;

use std::fs;

use common::*;

/// One expected trial row: (params, status, metric, value, unit), as `trial_rows` gives it.
fn trial_row(p: &str, s: &str, m: &str, v: f64, u: &str) -> (String, String, String, f64, String) {
    (
        p.to_string(),
        s.to_string(),
        m.to_string(),
        v,
        u.to_string(),
    )
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

#[test]
fn show_commit_url_of_the_asv_project_becomes_the_runs_commit_url() {
    let dir = tempfile::tempdir().unwrap();
    let proj = asv_project(dir.path());
    fs::write(
        proj.join("asv.conf.json"),
        "{\n  // asv allows comments\n  \"version\": 1,\n  \"show_commit_url\": \"https://example.org/c/\"\n}\n",
    )
    .unwrap();
    let wh = dir.path().join("wh");
    ok(&wh, &["ingest", "--suite", "asv", proj.to_str().unwrap()]);
    let labels = query(&wh, "select distinct labels from runs");
    assert_eq!(labels.len(), 1, "{labels:?}");
    let l: serde_json::Value = serde_json::from_str(labels[0]["labels"].as_str().unwrap()).unwrap();
    assert_eq!(l["commit_url"], "https://example.org/c/");
    // --commit-url wins over the project's.
    let wh2 = dir.path().join("wh2");
    ok(
        &wh2,
        &[
            "ingest",
            "--suite",
            "asv",
            "--commit-url",
            "https://x/",
            proj.to_str().unwrap(),
        ],
    );
    let l = scalar(&wh2, "select min(labels) from runs");
    assert!(
        l.as_str()
            .unwrap()
            .contains("\"commit_url\":\"https://x/\""),
        "{l}"
    );
}

/// The trials of one run: (params, status, metric, value, unit), in trial order.
fn trial_rows(wh: &std::path::Path) -> Vec<(String, String, String, f64, String)> {
    query(
        wh,
        "select t.params, t.status, m.name, m.value, m.unit from trials t \
         left join metrics m on m.run_id = t.run_id and m.trial_id = t.trial_id order by t.trial_id",
    )
    .iter()
    .map(|r| {
        // A failed trial has no metric: its columns are left out of the JSON.
        let text = |k: &str| r.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
        (
            text("params"),
            text("status"),
            text("name"),
            r.get("value").and_then(|v| v.as_f64()).unwrap_or(f64::NAN),
            text("unit"),
        )
    })
    .collect()
}

/// Issue 41: `asv run`'s console output (made-here, asv 0.6.6) lands as a run: one trial per
/// result, times in s and sizes in B as asv printed them, the failed benchmark a failed
/// trial, the commit of `For tinypkg commit cc8f05ee <main>:` the run's. Its series are the
/// ones the results directory of that same run gives (to the 3 digits the console prints).
#[test]
fn asv_console_output_lands_a_run_with_the_series_of_its_results() {
    let wh = tempfile::tempdir().unwrap();
    let log = fixture("asv-console/made-here_asv0.6.6_run.txt");
    assert_eq!(
        perfhouse::ingest::detect(std::path::Path::new(&log))
            .unwrap()
            .name(),
        "asv-console"
    );
    let o = perfhouse(wh.path(), &["ingest", "--suite", "console", &log]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 asv benchmark result(s) failed (failed trials, no figure): benchmarks.TimeSuite.time_fails"),
        "{}",
        stderr(&o)
    );
    let run = &query(
        wh.path(),
        "select git_commit, git_branch, status, source from runs",
    )[0];
    assert_eq!(run["git_commit"], "cc8f05ee");
    assert_eq!(run["git_branch"], "main");
    assert_eq!(run["status"], "partial");
    assert_eq!(run["source"], "ingest:asv-console");
    let t = trial_row;
    let rows = trial_rows(wh.path());
    assert_eq!(rows.len(), 6);
    assert_eq!(
        rows[0],
        t(
            r#"{"n":"10"}"#,
            "ok",
            "benchmarks.Squares.time_squares",
            819e-9,
            "s"
        )
    );
    assert_eq!(
        rows[1],
        t(
            r#"{"n":"1000"}"#,
            "ok",
            "benchmarks.Squares.time_squares",
            45.3e-6,
            "s"
        )
    );
    assert_eq!(
        (rows[2].0.as_str(), rows[2].1.as_str(), rows[2].2.as_str()),
        (
            r#"{"benchmark":"benchmarks.TimeSuite.time_fails"}"#,
            "failed",
            ""
        )
    );
    assert_eq!(
        rows[3],
        t(
            "{}",
            "ok",
            "benchmarks.TimeSuite.time_word_counts",
            12.3e-6,
            "s"
        )
    );
    assert_eq!(
        rows[4],
        t("{}", "ok", "benchmarks.mem_squares_list", 8060.0, "B")
    );
    assert_eq!(
        rows[5],
        t("{}", "ok", "benchmarks.track_word_count", 3.0, "")
    );

    // The same run's results directory, as the asv history import reads it.
    ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "results",
            &fixture("asv/made-here-results"),
        ],
    );
    let series = |suite: &str| -> Vec<(String, String, String, f64)> {
        query(
            wh.path(),
            &format!(
                "select m.name, m.unit, t.params, m.value from runs r join metrics m using (run_id) \
                 join trials t on t.run_id = m.run_id and t.trial_id = m.trial_id \
                 where r.suite = '{suite}' order by m.name, t.params"
            ),
        )
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["unit"].as_str().unwrap().to_string(),
                r["params"].as_str().unwrap().to_string(),
                r["value"].as_f64().unwrap(),
            )
        })
        .collect()
    };
    let (console, results) = (series("console"), series("results"));
    let key = |s: &[(String, String, String, f64)]| -> Vec<(String, String, String)> {
        s.iter()
            .map(|(n, u, p, _)| (n.clone(), u.clone(), p.clone()))
            .collect()
    };
    // track_word_count's unit (`words`) is in benchmarks.json, not on the console.
    let same_unit = |s: &[(String, String, String, f64)]| -> Vec<(String, String, String)> {
        key(s)
            .into_iter()
            .map(|(n, u, p)| (n, if u == "words" { String::new() } else { u }, p))
            .collect()
    };
    assert_eq!(same_unit(&console), same_unit(&results));
    for ((name, _, params, shown), (_, _, _, exact)) in console.iter().zip(&results) {
        assert!(
            (shown - exact).abs() <= 0.005 * exact.abs(),
            "{name} {params}: the console's {shown} is not the results' {exact} to 3 digits"
        );
    }
}

/// A parameterised benchmark of two parameters, which asv prints with a column parameter
/// (`--  word` over `abc`, `xyz`), and one whose combinations succeed, fail and are skipped
/// (`n/a`), with `--show-stderr`'s tracebacks right below the table (made-here).
#[test]
fn asv_console_tables_with_column_parameters_failures_and_skips() {
    let wh = tempfile::tempdir().unwrap();
    let log = fixture("asv-console/made-here_asv0.6.6_run-quick-show-stderr_params.txt");
    let o = perfhouse(wh.path(), &["ingest", "--suite", "console", &log]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            r#"2 asv benchmark result(s) failed (failed trials, no figure): benchmarks.TimeSuite.time_fails, grid.Partly.time_k{"k": "2"}"#
        ),
        "{}",
        stderr(&o)
    );
    let t = trial_row;
    let rows = trial_rows(wh.path());
    let grid: Vec<_> = rows
        .iter()
        .filter(|r| r.2.starts_with("grid."))
        .cloned()
        .collect();
    assert_eq!(
        grid,
        [
            t(
                r#"{"size":"1","word":"abc"}"#,
                "ok",
                "grid.Grid.time_join",
                3.10e-6,
                "s"
            ),
            t(
                r#"{"size":"1","word":"xyz"}"#,
                "ok",
                "grid.Grid.time_join",
                2.72e-6,
                "s"
            ),
            t(
                r#"{"size":"2","word":"abc"}"#,
                "ok",
                "grid.Grid.time_join",
                5.55e-6,
                "s"
            ),
            t(
                r#"{"size":"2","word":"xyz"}"#,
                "ok",
                "grid.Grid.time_join",
                3.78e-6,
                "s"
            ),
            t(r#"{"k":"1"}"#, "ok", "grid.Partly.time_k", 3.06e-6, "s"),
        ]
    );
    let failed: Vec<_> = rows
        .iter()
        .filter(|r| r.1 == "failed")
        .map(|r| r.0.clone())
        .collect();
    assert_eq!(
        failed,
        [
            r#"{"benchmark":"benchmarks.TimeSuite.time_fails"}"#,
            r#"{"benchmark":"grid.Partly.time_k","k":"2"}"#
        ]
    );
    assert_eq!(rows.len(), 12, "k=3 (n/a) lands nothing");
    assert_eq!(scalar(wh.path(), "select git_commit from runs"), "638ee80d");
}
