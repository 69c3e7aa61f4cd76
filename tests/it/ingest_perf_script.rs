//! Raw `perf script` text collapsed through inferno, as inferno-collapse-perf does.

use crate::common;

use std::collections::BTreeMap;
use std::fs;

use common::*;

/// Sums of weights per stack, for comparing collapsed outputs.
fn folded_totals(text: &str) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (stack, w) = line.rsplit_once(' ').unwrap();
        *m.entry(stack.to_string()).or_insert(0.0) += w.parse::<f64>().unwrap();
    }
    m
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn perf_script_collapses_as_inferno_expects() {
    let wh = tempfile::tempdir().unwrap();
    for name in [
        "cpp-stacks-std-function",
        "go-stacks",
        "java-inline",
        "single-line-stacks",
    ] {
        let input = sample(&format!("perf-script/inferno-collapse-perf_{name}.txt"));
        let expected = fs::read_to_string(sample(&format!(
            "folded/inferno-collapse-perf_results_{name}-collapsed.txt"
        )))
        .unwrap();
        let suite = format!("perf-{name}");
        ok(
            wh.path(),
            &["ingest", "--suite", &suite, input.to_str().unwrap()],
        );
        let rows = query(
            wh.path(),
            &format!("select stack, weight, kind from stacks where suite = '{suite}'"),
        );
        assert!(rows.iter().all(|r| r["kind"] == "oncpu"));
        let got: BTreeMap<String, f64> = rows
            .iter()
            .map(|r| {
                (
                    r["stack"].as_str().unwrap().to_string(),
                    r["weight"].as_f64().unwrap(),
                )
            })
            .fold(BTreeMap::new(), |mut m, (k, v)| {
                *m.entry(k).or_insert(0.0) += v;
                m
            });
        assert_eq!(got, folded_totals(&expected), "{name}");
    }
    // A file with no stacks at all is refused, naming the file.
    let empty = wh.path().join("empty.txt");
    fs::write(&empty, "# perf script output\n").unwrap();
    let o = perfhouse(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "x",
            "--format",
            "perf-script",
            empty.to_str().unwrap(),
        ],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("empty.txt:1: no samples with stacks"),
        "{}",
        stderr(&o)
    );
}
