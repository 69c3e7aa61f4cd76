//! Large aiperf inputs stream in bounded row groups; a failure leaves nothing behind.

use crate::common;

use std::fs;
use std::io::Write;
use std::path::Path;

use common::*;

/// aiperf-shaped records, `n` of them, the `bad`-th (1-based) malformed.
fn synthetic_jsonl(path: &Path, n: usize, bad: Option<usize>) {
    let mut f = std::io::BufWriter::new(fs::File::create(path).unwrap());
    for i in 1..=n {
        if Some(i) == bad {
            writeln!(f, "{{\"metadata\": oops}}").unwrap();
            continue;
        }
        let start = 1_700_000_000_000_000_000i64 + i as i64 * 1_000_000;
        writeln!(
            f,
            "{{\"metadata\":{{\"request_start_ns\":{start},\"request_end_ns\":{},\"benchmark_phase\":\"profiling\",\"was_cancelled\":false}},\"metrics\":{{\"request_latency\":{{\"value\":{},\"unit\":\"ms\"}}}},\"error\":null}}",
            start + 5_000_000 + (i % 7) as i64 * 1_000_000,
            5.0 + (i % 7) as f64
        )
        .unwrap();
    }
}

#[test]
fn large_aiperf_inputs_stream_in_bounded_row_groups_and_failures_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let n = 150_000; // > 2 chunks of 65,536
    let good = dir.path().join("arm=a/profile_export.jsonl");
    fs::create_dir_all(good.parent().unwrap()).unwrap();
    synthetic_jsonl(&good, n, None);
    let out = ok(&wh, &["ingest", "--suite", "big", good.to_str().unwrap()]);
    assert!(out.contains(&format!("{n} requests")), "{out}");
    assert_eq!(scalar(&wh, "select count(*) from requests"), n as i64);
    assert_eq!(
        scalar(&wh, "select count(distinct trial_id) from requests"),
        1
    );
    // Latencies are 5 + (i mod 7) ms: the median of i = 1..150000 by hand is 8 ms.
    assert_eq!(
        scalar(&wh, "select latency_p50_ms from trial_requests"),
        8.0
    );
    let part = fs::read_dir(wh.join("requests/suite=big"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let reader = datafusion::parquet::file::reader::SerializedFileReader::new(
        fs::File::open(&part).unwrap(),
    )
    .unwrap();
    use datafusion::parquet::file::reader::FileReader;
    let groups: Vec<i64> = reader
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect();
    assert_eq!(groups, vec![65_536, 65_536, (n - 2 * 65_536) as i64]);

    // A malformed line after two chunks were written: an error naming the line, and no file
    // of the failed run is left behind.
    let bad = dir.path().join("bad/profile_export.jsonl");
    fs::create_dir_all(bad.parent().unwrap()).unwrap();
    synthetic_jsonl(&bad, n, Some(140_001));
    let before: Vec<_> = walk(&wh);
    let o = perfhouse(&wh, &["ingest", "--suite", "big", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("profile_export.jsonl:140001:"),
        "{}",
        stderr(&o)
    );
    assert_eq!(walk(&wh), before);
    assert_eq!(scalar(&wh, "select count(*) from requests"), n as i64);
}

fn walk(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| {
            e.unwrap()
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|p| !p.contains(".lock"))
        .collect();
    v.sort();
    v
}
