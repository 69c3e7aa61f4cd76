//! LMCache transfer-channel benchmark output: one trial per result block.

use crate::common;

use common::*;

#[test]
fn lmcache_blocks_become_trials_with_params() {
    let wh = tempfile::tempdir().unwrap();
    let out = ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "tc",
            "--param",
            "numa=interleave",
            "--param",
            "page_size=4096",
            &fixture("lmcache/client.log"),
        ],
    );
    assert!(out.contains("2 trials"), "{out}");
    let rows = query(
        wh.path(),
        "select t.params, m.value from metrics m join trials t using (run_id, trial_id) \
         where m.name = 'read_gbps.best' order by m.value",
    );
    // GB/s by hand: 256 × 4 MiB / 81.20 ms = 13.22; 64 × 16 MiB / 78.40 ms = 13.70.
    let vals: Vec<f64> = rows.iter().map(|r| r["value"].as_f64().unwrap()).collect();
    assert_eq!(vals, vec![13.22, 13.70]);
    let p: serde_json::Value = serde_json::from_str(rows[1]["params"].as_str().unwrap()).unwrap();
    assert_eq!(p["object_size_mib"], "16.0");
    assert_eq!(p["num_objects"], "64");
    assert_eq!(p["numa"], "interleave");
    assert_eq!(p["page_size"], "4096");
    assert_eq!(p["channel_type"], "nixl");
    assert_eq!(
        scalar(
            wh.path(),
            "select value from metrics where name = 'read_ms.median' order by value limit 1"
        ),
        79.9
    );
    let o = perfhouse(
        wh.path(),
        &["ingest", "--suite", "tc", &fixture("lmcache/cut-short.log")],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("cut-short.log:13: transfer channel block without its best"),
        "{}",
        stderr(&o)
    );
}
