//! The figure registry (`query::figures`) is the one list: every figure it marks for
//! comparison appears in `compare`, every history figure in `history`, every run-page figure as
//! a column of the run page, and `arm_medians` (generated from it) has a column for each. On
//! the bundled real runner run (CPU samples and requests), so every figure has a value.

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

    let cmp: serde_json::Value = serde_json::from_str(&ok(
        &wh,
        &[
            // Goodput and SLO attainment exist under SLOs: set them for this session.
            "--slo",
            SLO,
            "compare",
            "--baseline",
            "latest@default",
            "--candidate",
            "latest@fastokens",
            "--format",
            "json",
        ],
    ))
    .unwrap();
    let compared: Vec<&str> = cmp["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["metric"].as_str().unwrap())
        .collect();
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
    let run_id = scalar(&wh, "select run_id from runs");
    let page =
        fs::read_to_string(site.join(format!("runs/{}/index.html", run_id.as_str().unwrap())))
            .unwrap();
    let columns: Vec<serde_json::Map<String, serde_json::Value>> = serde_json::from_str(&ok(
        &wh,
        &[
            "--slo",
            SLO,
            "query",
            "--format",
            "json",
            "select * from arm_medians limit 1",
        ],
    ))
    .unwrap();

    for f in FIGURES {
        assert!(
            columns[0].contains_key(f.name),
            "arm_medians lacks {}",
            f.name
        );
        assert_eq!(
            compared.contains(&f.name),
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
