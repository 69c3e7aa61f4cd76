//! aiperf summaries (JSON both layouts, CSV, phase manifest) and artifact directories.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::*;

fn metric_map(wh: &Path, sql: &str) -> BTreeMap<String, f64> {
    query(wh, sql)
        .into_iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn aiperf_summary_json_layouts_and_csv_agree() {
    let s = sample("aiperf");
    let wh = tempfile::tempdir().unwrap();
    for (suite, file) in [
        ("v0json", "profile_export_aiperf.v0-records-wrapper.json"),
        ("v0csv", "profile_export_aiperf.csv"),
        ("v8json", "profile_export_aiperf.v0.8.json"),
        ("v8csv", "profile_export_aiperf.v0.8.csv"),
    ] {
        let out = ok(
            wh.path(),
            &["ingest", "--suite", suite, s.join(file).to_str().unwrap()],
        );
        assert!(out.contains("1 trials"), "{out}");
    }
    let get = |suite: &str| {
        metric_map(
            wh.path(),
            &format!("select name, value from metrics where suite = '{suite}'"),
        )
    };
    let (v0j, v0c, v8j, v8c) = (get("v0json"), get("v0csv"), get("v8json"), get("v8csv"));
    // Values straight from the files.
    assert_eq!(v0j["aiperf.input_sequence_length.avg"], 550.0);
    assert_eq!(v0j["aiperf.error_request_count.avg"], 11.0);
    assert!(
        !v0j.contains_key("aiperf.error_request_count.p50"),
        "nulls are not values"
    );
    assert_eq!(v0c["aiperf.request_latency.p99"], 9297.61);
    assert_eq!(v0c["aiperf.request_throughput.avg"], 9.55);
    assert_eq!(v8j["aiperf.request_latency.p50"], 16428.066493);
    assert_eq!(v8j["aiperf.request_latency.p10"], 3959.2200037000002);
    // The CSV is the JSON rounded to two decimals, under the same names.
    for (csv, json) in [(&v0c, &v0j), (&v8c, &v8j)] {
        let mut shared = 0;
        for (name, v) in csv.iter() {
            if let Some(j) = json.get(name) {
                shared += 1;
                assert!(
                    (v - j).abs() <= 0.005 + j.abs() * 1e-12,
                    "{name}: csv {v} json {j}"
                );
            }
        }
        assert!(shared >= 40, "only {shared} names shared");
    }
    let units = query(
        wh.path(),
        "select distinct unit from metrics where name = 'aiperf.request_latency.p50'",
    );
    assert_eq!(units.len(), 1);
    assert_eq!(units[0]["unit"], "ms");
}

#[test]
fn an_aiperf_artifact_directory_is_one_trial_with_requests_and_summary() {
    let src =
        repo().join("datasets/dynamo-frontend/data/arm=default/concurrency=8/repeat=1/aiperf");
    let wh = tempfile::tempdir().unwrap();
    let out = ok(
        wh.path(),
        &["ingest", "--suite", "fe", src.to_str().unwrap()],
    );
    assert!(out.contains("1 trials"), "{out}");
    assert_eq!(
        scalar(wh.path(), "select source from runs"),
        "ingest:aiperf+aiperf-summary"
    );
    // Both files belong to the one trial, and our p50 from the records equals aiperf's own.
    let rows = query(
        wh.path(),
        "select r.latency_p50_ms, m.value from trial_requests r join metrics m using (run_id, trial_id) \
         where m.name = 'aiperf.request_latency.p50'",
    );
    assert_eq!(rows.len(), 1, "{rows:?}");
    let (ours, theirs) = (
        rows[0]["latency_p50_ms"].as_f64().unwrap(),
        rows[0]["value"].as_f64().unwrap(),
    );
    assert!((ours - theirs).abs() < 1e-9 * theirs, "{ours} vs {theirs}");
    assert_eq!(
        scalar(
            wh.path(),
            "select count(*) from artifacts where trial_id = 0"
        ),
        2
    );
}
