//! The figure registry (`query::figures`) is the one list: every figure it marks for
//! comparison appears in `compare`, every history figure in `history`, every run-page figure as
//! a column of the run page, and `arm_medians` (generated from it) has a column for each. On
//! the bundled real runner run (CPU samples and requests) and a small run of real commands
//! (the command's resource usage), so every figure has a value.

use crate::common;

use std::fs;

use common::*;
use perfhouse::query::figures::FIGURES;
use perfhouse::warehouse::Warehouse;

const SLO: &str = "ttft_ms<=100,itl_ms<=10";

#[test]
fn every_registered_figure_appears_in_compare_history_the_site_and_arm_medians() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let bundle = Warehouse::open(repo().join("datasets/dynamo-frontend-runner/warehouse")).unwrap();
    assert_eq!(Warehouse::open(&wh).unwrap().import(&bundle).unwrap(), 1);
    // The command's own figures (wall, CPU, peak RSS, …) come from runner trials.
    let plan = dir.path().join("usage.toml");
    fs::write(
        &plan,
        "suite = \"usage\"\n[run]\nrepeats = 2\ncommand = \"seq 1 20000 | sort -n > /dev/null\"\n\
         [[arm]]\nname = \"a\"\n[[arm]]\nname = \"b\"\n",
    )
    .unwrap();
    ok(&wh, &["run", "--quiet", plan.to_str().unwrap()]);
    // The run keeps the plan it ran, as given: what `history` says to run again to confirm a
    // pending change.
    let labels = query(&wh, "select labels from raw_runs where suite = 'usage'");
    let labels: serde_json::Value =
        serde_json::from_str(labels[0]["labels"].as_str().unwrap()).unwrap();
    assert_eq!(labels["plan"].as_str(), plan.to_str(), "{labels}");

    let mut compared: Vec<String> = Vec::new();
    for (base, cand) in [
        ("dynamo-frontend/default", "dynamo-frontend/fastokens"),
        ("usage/a", "usage/b"),
    ] {
        let cmp: serde_json::Value = serde_json::from_str(&ok(
            &wh,
            &[
                // Goodput and SLO attainment exist under SLOs: set them for this session.
                "--slo",
                SLO,
                "compare",
                "--baseline",
                base,
                "--candidate",
                cand,
                "--format",
                "json",
            ],
        ))
        .unwrap();
        compared.extend(
            cmp["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["metric"].as_str().unwrap().to_string()),
        );
    }
    let hist: serde_json::Value =
        serde_json::from_str(&ok(&wh, &["--slo", SLO, "history", "--format", "json"])).unwrap();
    let histories: Vec<&str> = hist
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["metric"].as_str().unwrap())
        .collect();
    let site = dir.path().join("site");
    ok(
        &wh,
        &["--slo", SLO, "site", "--out", site.to_str().unwrap()],
    );
    let page: String = query(&wh, "select run_id from runs")
        .iter()
        .map(|r| {
            let id = r["run_id"].as_str().unwrap();
            fs::read_to_string(site.join(format!("runs/{id}/index.html"))).unwrap()
        })
        .collect();
    let columns: Vec<serde_json::Map<String, serde_json::Value>> = serde_json::from_str(&ok(
        &wh,
        &[
            "--slo",
            SLO,
            "query",
            "--format",
            "json",
            "select * from arm_medians",
        ],
    ))
    .unwrap();

    for f in FIGURES {
        if f.name == "cgroup_memory_peak_bytes" && !columns.iter().any(|c| c.contains_key(f.name)) {
            // Only where the trial's cgroup has the memory controller (cgroup v2 memory).
            skip(
                "cgroup-memory",
                "no cgroup v2 memory controller here: the trials have no memory.peak",
            );
            continue;
        }
        // JSON rows leave NULLs out: some row of either run has each figure.
        assert!(
            columns.iter().any(|c| c.contains_key(f.name)),
            "arm_medians lacks {}",
            f.name
        );
        assert_eq!(
            compared.iter().any(|c| c == f.name),
            f.compare,
            "{} in compare: {compared:?}",
            f.name
        );
        assert_eq!(
            histories.contains(&f.name),
            f.history,
            "{} in history: {histories:?}",
            f.name
        );
        let header = format!("<th>{}</th>", f.label.replace('\'', "&#39;"));
        assert_eq!(
            page.contains(&header),
            f.run_page,
            "{} ({header}) on the run page",
            f.name
        );
    }
}
