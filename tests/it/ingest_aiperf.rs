//! aiperf JSONL ingest through the real binary: on aiperf's own published samples (the docs
//! example, an old-schema excerpt; in the shared fixtures folder), on an export made here
//! (`our_aiperf`) and on damaged copies of it.

use crate::common;

use std::fs;

use common::*;

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn docs_example_current_schema() {
    let wh = tempfile::tempdir().unwrap();
    let file = sample("aiperf/profile_export.docs-example.jsonl");
    let out = ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "docs",
            "--arm",
            "a",
            file.to_str().unwrap(),
        ],
    );
    assert!(out.contains("1 trials, 2 requests"), "{out}");
    let rows = query(
        wh.path(),
        "select start_ns, end_ns, ttft_ns, itl_ns, latency_ns, input_tokens, output_tokens, \
         error_code, error_type, cancelled, phase, worker_id from requests order by start_ns",
    );
    // Values straight from the file: request_start_ns, request_end_ns, and ms → ns.
    let ok_row = &rows[0];
    assert_eq!(ok_row["start_ns"], 1759813207532900363i64);
    assert_eq!(ok_row["end_ns"], 1759813207838764604i64);
    // `time_to_first_token` appears twice in this record; the first (255.886568 ms) is the
    // one consistent with request_latency − Σ inter_chunk_latency.
    assert_eq!(ok_row["ttft_ns"], 255886568);
    assert_eq!(ok_row["latency_ns"], 297525228);
    assert_eq!(ok_row["itl_ns"], 5204833); // 5.2048325 ms, rounded to the ns
    assert_eq!(ok_row["input_tokens"], 550);
    assert_eq!(ok_row["output_tokens"], 9);
    assert_eq!(ok_row["cancelled"], false);
    assert_eq!(ok_row["phase"], "measured");
    assert_eq!(ok_row["worker_id"], "worker_359d423a");
    let cancelled = &rows[1];
    assert_eq!(cancelled["cancelled"], true);
    assert_eq!(cancelled["error_code"], 499);
    assert_eq!(cancelled["error_type"], "RequestCancellationError");
    assert_eq!(cancelled["input_tokens"], 550); // from error_isl
    // One completed request: throughput over its own window.
    let fig = query(
        wh.path(),
        "select completed, cancelled, throughput_rps from trial_figures",
    );
    assert_eq!(fig[0]["completed"], 1);
    assert_eq!(fig[0]["cancelled"], 1);
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn old_schema_excerpt() {
    let wh = tempfile::tempdir().unwrap();
    let file = sample("aiperf/profile_export.v0-excerpt.jsonl");
    ok(
        wh.path(),
        &["ingest", "--suite", "old", file.to_str().unwrap()],
    );
    assert_eq!(scalar(wh.path(), "select count(*) from requests"), 14);
    assert_eq!(
        scalar(wh.path(), "select count(*) from requests where cancelled"),
        11
    );
    // Line 12 (old schema): timestamp_ns start, ttft 1680.543782 ms, latency 7936.968269 ms.
    let r = query(
        wh.path(),
        "select start_ns, end_ns, ttft_ns, latency_ns, output_tokens from requests \
         where start_ns = 1759522419159192408",
    );
    assert_eq!(r[0]["ttft_ns"], 1680543782);
    assert_eq!(r[0]["latency_ns"], 7936968269i64);
    assert_eq!(r[0]["end_ns"], 1759522419159192408i64 + 7936968269);
    // output_sequence_length (193) = output_token_count (61) + reasoning_token_count (132):
    // aiperf's output token throughput counts reasoning tokens too.
    assert_eq!(r[0]["output_tokens"], 193);
    assert_eq!(scalar(wh.path(), "select arm from trials"), "default");
}

#[test]
fn same_input_twice_adds_nothing_and_says_so() {
    let wh = tempfile::tempdir().unwrap();
    let file = our_aiperf();
    let args = ["ingest", "--suite", "old", file.to_str().unwrap()];
    let first = ok(wh.path(), &args);
    let second = ok(wh.path(), &args);
    assert!(first.starts_with("ingested run "), "{first}");
    assert!(second.starts_with("already ingested as run "), "{second}");
    let id = first.split_whitespace().nth(2).unwrap();
    assert!(second.contains(id));
    assert_eq!(scalar(wh.path(), "select count(*) from runs"), 1);
    // Its 20 records (`wc -l tests/fixtures/aiperf-made-here/profile_export.jsonl`), once.
    assert_eq!(scalar(wh.path(), "select count(*) from requests"), 20);
    // A different option is a different ingest.
    let third = ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "old",
            "--param",
            "concurrency=4",
            file.to_str().unwrap(),
        ],
    );
    assert!(third.starts_with("ingested run "), "{third}");
    assert_eq!(scalar(wh.path(), "select count(*) from runs"), 2);
}

#[test]
fn malformed_middle_line_names_file_and_line_and_lands_nothing() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let text = fs::read_to_string(our_aiperf()).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[6] = r#"{"metadata": {"timestamp_ns": 12, oops"#;
    let bad = dir.path().join("profile_export.jsonl");
    fs::write(&bad, lines.join("\n") + "\n").unwrap();
    // A good file in the same batch must not land either.
    let good = our_aiperf();
    let o = perfhouse(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "s",
            good.to_str().unwrap(),
            bad.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains(&format!("{}:7:", bad.display())), "{err}");
    assert_eq!(scalar(wh.path(), "select count(*) from raw_runs"), 0);
    assert_eq!(scalar(wh.path(), "select count(*) from raw_requests"), 0);
}

#[test]
fn missing_field_is_named() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("profile_export.jsonl");
    fs::write(
        &bad,
        "{\"metadata\":{\"worker_id\":\"w\"},\"metrics\":{}}\n",
    )
    .unwrap();
    let o = perfhouse(
        wh.path(),
        &["ingest", "--suite", "s", bad.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(":1: field `metadata.request_start_ns`"),
        "{err}"
    );
}

#[test]
fn truncated_final_line_keeps_complete_records_with_one_warning() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let text = fs::read_to_string(our_aiperf()).unwrap();
    // The last record loses its tail after its last comma, no newline. (Cut 40 bytes short,
    // as before, it would end inside a number, `"value":3951.`, which serde_json reports as an
    // invalid number, not as an early end, and the ingest refuses the file.)
    let text = text.trim_end();
    let cut = &text[..=text.rfind(',').unwrap()];
    let file = dir.path().join("profile_export.jsonl");
    fs::write(&file, cut).unwrap();
    let o = perfhouse(
        wh.path(),
        &["ingest", "--suite", "s", file.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.matches("warning:").count(), 1, "{err}");
    // 20 lines (`wc -l tests/fixtures/aiperf-made-here/profile_export.jsonl`): the 20th is
    // cut, the 19 before it land.
    assert!(err.contains(":20: last line is cut short"), "{err}");
    assert_eq!(scalar(wh.path(), "select count(*) from requests"), 19);
}

#[test]
fn hive_style_directories_give_arm_params_and_repeat() {
    let wh = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let src = our_aiperf();
    for (arm, r) in [("a", 0), ("b", 0), ("a", 1)] {
        let d = root
            .path()
            .join(format!("arm={arm}/concurrency=8/repeat={r}"));
        fs::create_dir_all(&d).unwrap();
        fs::copy(&src, d.join("profile_export.jsonl")).unwrap();
    }
    ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "s",
            "--discard-first",
            "--param",
            "isl=200",
            root.path().to_str().unwrap(),
        ],
    );
    let rows = query(
        wh.path(),
        "select arm, params, repeat, discarded, concurrency from trials order by arm, repeat",
    );
    let got: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {} {}",
                r["arm"], r["params"], r["repeat"], r["discarded"], r["concurrency"]
            )
        })
        .collect();
    let p = r#""{\"concurrency\":\"8\",\"isl\":\"200\"}""#;
    assert_eq!(
        got,
        vec![
            format!(r#""a" {p} 0 true 8"#),
            format!(r#""a" {p} 1 false 8"#),
            format!(r#""b" {p} 0 true 8"#),
        ]
    );
    // Raw inputs are kept verbatim, one blob per distinct content.
    let sha = scalar(wh.path(), "select count(distinct sha256) from artifacts");
    assert_eq!(sha, 1);
    let stored = scalar(wh.path(), "select stored_path from artifacts limit 1");
    let kept = fs::read(wh.path().join(stored.as_str().unwrap())).unwrap();
    assert_eq!(kept, fs::read(&src).unwrap());
}

#[test]
fn unknown_content_lists_known_formats() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x.txt");
    fs::write(&f, "hello\n").unwrap();
    let o = perfhouse(wh.path(), &["ingest", "--suite", "s", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("unrecognised input; known formats: aiperf"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bad_flag_values_are_usage_errors() {
    let wh = tempfile::tempdir().unwrap();
    let o = perfhouse(
        wh.path(),
        &["ingest", "--suite", "s", "--param", "novalue", "x"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("expected KEY=VALUE, got \"novalue\""),
        "{}",
        stderr(&o)
    );
    let o = perfhouse(wh.path(), &["ingest"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn keep_going_lands_the_good_files_and_lists_the_bad() {
    let wh = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("profile_export.jsonl");
    fs::write(&bad, "{\"metadata\": oops}\n{}\n").unwrap();
    let good = our_aiperf();
    let o = perfhouse(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "s",
            "--keep-going",
            good.to_str().unwrap(),
            bad.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    // The good file's 20 records (`wc -l tests/fixtures/aiperf-made-here/profile_export.jsonl`).
    assert!(
        stdout(&o).contains("1 trials, 20 requests"),
        "{}",
        stdout(&o)
    );
    let err = stderr(&o);
    assert!(
        err.contains("1 input file(s) left out (--keep-going)"),
        "{err}"
    );
    assert!(err.contains(&format!("{}:1:", bad.display())), "{err}");
    assert_eq!(scalar(wh.path(), "select count(*) from requests"), 20);
}
