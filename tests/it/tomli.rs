//! The demo's own history (datasets/tomli/: tomli's parse speed under each of 27 releases,
//! measured here with `perfhouse run`, kept as Parquet): it imports whole, every run is its
//! release with its commit linked, and `history` finds the two steps tomli's changelog names
//! (1.0.0, "Improve freeze performance": the config document's quadratic cost gone; 2.2.1, the
//! first mypyc-compiled wheels: every document faster).

use crate::common;

use common::*;

const RELEASES: [&str; 27] = [
    "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.2.4", "0.2.5", "0.2.6", "0.2.7", "0.2.8", "0.2.9",
    "0.2.10", "1.0.0", "1.0.1", "1.0.2", "1.0.3", "1.0.4", "1.1.0", "1.2.0", "1.2.1", "1.2.2",
    "2.0.0", "2.0.1", "2.0.2", "2.1.0", "2.2.1", "2.3.0", "2.4.0",
];

/// The warehouse of the bundled history alone.
fn tomli() -> tempfile::TempDir {
    let wh = tempfile::tempdir().unwrap();
    let bundle = repo().join("datasets/tomli/warehouse");
    let out = ok(wh.path(), &["import", bundle.to_str().unwrap()]);
    assert!(out.contains("imported 27 run(s)"), "{out}");
    wh
}

#[test]
fn the_tomli_history_is_its_27_releases_in_order_with_their_commits_linked() {
    let wh = tomli();
    let runs = query(
        wh.path(),
        "select run_no, git_commit, labels from runs where suite = 'tomli' order by run_no",
    );
    let versions: Vec<String> = runs
        .iter()
        .map(|r| {
            let labels: serde_json::Value =
                serde_json::from_str(r["labels"].as_str().unwrap()).unwrap();
            assert_eq!(
                labels["commit_url"],
                "https://github.com/hukkin/tomli/commit/"
            );
            assert_eq!(r["git_commit"].as_str().unwrap().len(), 40, "{r:?}");
            labels["version"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(versions, RELEASES);
    assert_eq!(
        scalar(
            wh.path(),
            "select count(*) from trials where phase = 'measured'"
        ),
        27 * 6 * 3
    );
}

/// The median of a document's measured `parse_us` values in the run of one release, from the
/// stored rows (not perfhouse's figures).
fn median(wh: &std::path::Path, version: &str, doc: &str) -> f64 {
    let rows = query(
        wh,
        &format!(
            "select m.value from metrics m join trials t using (run_id, trial_id) \
             join runs r using (run_id) where m.name = 'parse_us' and t.phase = 'measured' \
             and r.labels like '%\"version\":\"{version}\"%' and t.params like '%\"{doc}\"%'"
        ),
    );
    let mut v: Vec<f64> = rows.iter().map(|r| r["value"].as_f64().unwrap()).collect();
    v.sort_by(f64::total_cmp);
    assert_eq!(v.len(), 3, "{version} {doc}");
    v[1]
}

#[test]
fn history_finds_the_steps_tomlis_changelog_names_at_their_releases() {
    let wh = tomli();
    let all: serde_json::Value = serde_json::from_str(&ok(
        wh.path(),
        &["history", "--suite", "tomli", "--format", "json"],
    ))
    .unwrap();
    let run_of = |v: &str| RELEASES.iter().position(|r| *r == v).unwrap() as u64 + 1;
    let mut steps = Vec::new();
    for s in all.as_array().unwrap() {
        let doc: serde_json::Value = serde_json::from_str(s["params"].as_str().unwrap()).unwrap();
        let doc = doc["doc"].as_str().unwrap().to_string();
        let points = s["points"].as_array().unwrap();
        let at = |c: &serde_json::Value| {
            points.iter().find(|p| p["run_id"] == c["run_id"]).unwrap()["run_no"]
                .as_u64()
                .unwrap()
        };
        for c in s["changes"].as_array().unwrap() {
            steps.push((doc.clone(), at(c), c["magnitude"].as_f64().unwrap()));
        }
    }
    let found = |doc: &str, version: &str| {
        steps
            .iter()
            .find(|(d, run, _)| d == doc && *run == run_of(version))
            .map(|s| s.2)
            .unwrap_or_else(|| panic!("{doc}: no change at {version}: {steps:?}"))
    };
    // 1.0.0: the config document (300 tables) lost a quadratic cost.
    let ratio = median(wh.path(), "1.0.0", "config") / median(wh.path(), "0.2.10", "config");
    assert!(ratio < 0.5, "{ratio}");
    assert!(found("config", "1.0.0") < -0.5, "{steps:?}");
    // 2.2.1: the first mypyc-compiled wheels: every document a quarter faster or more.
    for doc in [
        "config",
        "strings",
        "arrays",
        "comments",
        "multiline",
        "small",
    ] {
        let ratio = median(wh.path(), "2.2.1", doc) / median(wh.path(), "2.1.0", doc);
        assert!(ratio < 0.75, "{doc}: {ratio}");
        assert!(found(doc, "2.2.1") < -0.25, "{doc}: {steps:?}");
    }
}
