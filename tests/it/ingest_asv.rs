//! airspeed velocity results: one run per commit.

use crate::common;

use std::fs;

use common::*;

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
