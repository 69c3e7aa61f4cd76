//! `perfhouse report`: PR comment Markdown within GitHub's limit, self-contained HTML.

use crate::common;

use std::fs;

use common::*;

#[test]
fn markdown_puts_the_worst_regression_first_and_links_the_site() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "ops",
            two_arms(dir.path(), 5).to_str().unwrap(),
        ],
    );
    let args = [
        "report",
        "--baseline",
        "latest@base",
        "--candidate",
        "latest@cand",
        "--format",
        "md",
        "--site-url",
        "https://org.github.io/repo/",
    ];
    let md = ok(&wh, &args);
    let id = scalar(&wh, "select run_id from runs")
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        md.contains(&format!(
            "(https://org.github.io/repo/runs/{id}/index.html)"
        )),
        "{md}"
    );
    assert!(md.contains("2 regressions"), "{md}");
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).collect();
    assert!(
        rows[1].contains("regressed") && rows[1].contains("op_0000"),
        "worst first: {rows:?}"
    );
    assert!(
        rows[2].contains("regressed") && rows[2].contains("op_0001"),
        "{rows:?}"
    );
    assert!(md.contains("<details><summary>Unchanged"), "{md}");
    let o = perfhouse(&wh, &[&args[..], &["--fail-on-regression"]].concat());
    assert_eq!(o.status.code(), Some(3));
}

#[test]
fn markdown_stays_within_the_comment_limit() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "ops",
            two_arms(dir.path(), 1500).to_str().unwrap(),
        ],
    );
    let md = ok(
        &wh,
        &[
            "report",
            "--baseline",
            "latest@base",
            "--candidate",
            "latest@cand",
        ],
    );
    assert!(md.chars().count() <= 65_536, "{} chars", md.chars().count());
    assert!(
        md.contains("more rows did not fit"),
        "{}",
        &md[md.len() - 300..]
    );
    let first = md
        .lines()
        .find(|l| l.starts_with('|') && l.contains("regressed"))
        .unwrap();
    assert!(first.contains("op_0000"), "{first}");
}

#[test]
fn html_is_one_self_contained_file() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "ops",
            two_arms(dir.path(), 5).to_str().unwrap(),
        ],
    );
    let out = dir.path().join("r.html");
    ok(
        &wh,
        &[
            "report",
            "--baseline",
            "latest@base",
            "--candidate",
            "latest@cand",
            "--format",
            "html",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    let html = fs::read_to_string(&out).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.contains("<style>") && html.contains("<svg")
    );
    for external in ["src=\"http", "href=\"http", "<link", "<script src"] {
        assert!(!html.contains(external), "external reference {external}");
    }
    assert!(html.contains("verdict-regressed"));
}

#[test]
fn the_most_precise_measure_that_called_a_change_is_named_in_compare_the_pr_comment_and_the_site() {
    // Five trials per arm: an instruction count exactly +1 % (its floor ±0.2 %), a wall time
    // +1 % under ±8 % noise (floor ±2 %): instructions decide, wall time cannot.
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let walls = [
        ("base", [100.0, 108.0, 93.0, 104.0, 97.0]),
        ("cand", [101.0, 96.0, 110.0, 94.0, 105.0]),
    ];
    let mut entries = Vec::new();
    for (arm, wall) in walls {
        let instructions = if arm == "base" { 1e9 } else { 1.01e9 };
        for (r, w) in wall.iter().enumerate() {
            entries.push(format!(
                "{{\"name\": \"instructions\", \"value\": {instructions}, \"unit\": \"count\", \"better\": \"lower\", \"arm\": \"{arm}\", \"repeat\": {r}}}, \
                 {{\"name\": \"wall_ms\", \"value\": {w}, \"unit\": \"ms\", \"better\": \"lower\", \"arm\": \"{arm}\", \"repeat\": {r}}}"
            ));
        }
    }
    let file = dir.path().join("m.json");
    fs::write(&file, format!("{{\"metrics\": [{}]}}", entries.join(",\n"))).unwrap();
    ok(
        &wh,
        &[
            "ingest",
            "--format",
            "metrics-json",
            "--suite",
            "work",
            file.to_str().unwrap(),
        ],
    );

    let c = compare_json(&wh, "latest@base", "latest@cand");
    let d = &c["decisions"][0];
    assert_eq!(d["decided_by"], "instructions", "{d}");
    assert_eq!(d["verdict"], "regressed", "{d}");
    let m = d["measures"].as_array().unwrap();
    assert_eq!(
        (m[0]["metric"].as_str(), m[0]["threshold"].as_f64()),
        (Some("instructions"), Some(0.002))
    );
    assert_eq!(
        (m[1]["metric"].as_str(), m[1]["verdict"].as_str()),
        (Some("wall_ms"), Some("inconclusive"))
    );

    let md = ok(
        &wh,
        &[
            "report",
            "--baseline",
            "latest@base",
            "--candidate",
            "latest@cand",
            "--format",
            "md",
        ],
    );
    assert!(md.contains("**Which measure decided**"), "{md}");
    assert!(
        md.contains("regressed by instructions (+1.0%, beyond its ±0.2% noise from floor)"),
        "{md}"
    );
    let site = dir.path().join("site");
    ok(&wh, &["site", "--out", site.to_str().unwrap()]);
    let id = scalar(&wh, "select run_id from runs");
    let page =
        fs::read_to_string(site.join(format!("runs/{}/compare-1.html", id.as_str().unwrap())))
            .unwrap();
    assert!(page.contains("Which measure decided"), "{page}");
    assert!(page.contains("regressed by instructions"), "{page}");
}
