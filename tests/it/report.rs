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
