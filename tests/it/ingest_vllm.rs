//! vLLM `vllm bench serve --save-result --save-detailed` JSON (fixture built from vLLM's source:
//! tests/fixtures/vllm-bench/README.md): one trial, vLLM's own figures value for value.

use crate::common;

use common::*;

#[test]
fn vllm_bench_results_ingest_value_for_value() {
    let wh = tempfile::tempdir().unwrap();
    let path = fixture("vllm-bench/result.json");
    ok(wh.path(), &["ingest", "--suite", "v", &path]);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let trials = query(wh.path(), "select params from trials");
    assert_eq!(trials.len(), 1);
    // max_concurrency → concurrency; request_rate "inf" → no rate param.
    assert_eq!(trials[0]["params"], "{\"concurrency\":\"8\"}");
    let stored = query(
        wh.path(),
        "select name, value, unit, better from metrics order by name",
    );
    let keys = [
        "duration",
        "completed",
        "failed",
        "total_input_tokens",
        "total_output_tokens",
        "request_throughput",
        "output_throughput",
        "total_token_throughput",
        "max_output_tokens_per_s",
        "max_concurrent_requests",
    ];
    let mut expected: Vec<&str> = keys.to_vec();
    let derived: Vec<String> = ["ttft", "tpot", "itl", "e2el"]
        .iter()
        .flat_map(|m| ["mean", "median", "std", "p99"].map(|s| format!("{s}_{m}_ms")))
        .collect();
    expected.extend(derived.iter().map(String::as_str));
    assert_eq!(stored.len(), expected.len(), "{stored:?}");
    for k in expected {
        let row = stored
            .iter()
            .find(|r| r["name"] == format!("vllm.{k}"))
            .unwrap_or_else(|| panic!("vllm.{k} missing"));
        assert_eq!(
            row["value"].as_f64().unwrap(),
            doc[k].as_f64().unwrap(),
            "{k}"
        );
        if k.ends_with("_ms") {
            assert_eq!(
                (row["unit"].as_str(), row["better"].as_str()),
                (Some("ms"), Some("lower"))
            );
        }
    }
    // request_goodput is null without --goodput: not stored.
    assert!(!stored.iter().any(|r| r["name"] == "vllm.request_goodput"));
    // Another tool's JSON given as vllm-bench is refused by name.
    let other = fixture("guidellm/benchmarks.json");
    let o = perfhouse(
        wh.path(),
        &["ingest", "--suite", "v", "--format", "vllm-bench", &other],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("request_throughput"), "{}", stderr(&o));
}
