//! Histories other tools kept, brought along: github-action-benchmark's `data.js` (its own
//! gh-pages history, 1,832 entries in 11 groups, tests/fixtures/gab-data-js/) and asv
//! results directories as asv itself reads them (stray files left out, `asv.conf.json` as
//! `asv quickstart` writes it).

use crate::common;

use std::fs;

use common::*;

fn data_js() -> String {
    fixture("gab-data-js/github-action-benchmark_gh-pages_data.js")
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn a_data_js_imports_one_run_per_entry_and_a_suite_per_group() {
    let wh = tempfile::tempdir().unwrap();
    let out = ok(wh.path(), &["ingest", "--suite", "gab", &data_js()]);
    assert!(
        out.starts_with("ingested 1832 gab-data-js runs into 11 suites"),
        "{out}"
    );
    // Entries per group, as the file holds them (counted in tests/fixtures/gab-data-js/README.md).
    let rows = query(
        wh.path(),
        "select suite, count(*) as n from runs group by suite order by suite",
    );
    let got: Vec<(String, i64)> = rows
        .iter()
        .map(|r| {
            (
                r["suite"].as_str().unwrap().into(),
                r["n"].as_i64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("gab.Benchmark.Net Benchmark", 82),
        ("gab.Benchmark.js Benchmark", 279),
        ("gab.C++ Benchmark", 205),
        ("gab.Catch2 Benchmark", 149),
        ("gab.Catch2 Benchmark (v3)", 25),
        ("gab.Criterion.rs Benchmark", 112),
        ("gab.Go Benchmark", 279),
        ("gab.JMH Benchmark", 70),
        ("gab.Julia benchmark result", 97),
        ("gab.Python Benchmark with pytest-benchmark", 233),
        ("gab.Rust Benchmark", 301),
    ];
    assert_eq!(
        got,
        want.iter()
            .map(|(s, n)| (s.to_string(), *n))
            .collect::<Vec<_>>()
    );
    // The first and the newest Rust entries, value for value (read in the file).
    let first = query(
        wh.path(),
        "select m.name, m.value, m.unit, m.better, cast(r.started_at as bigint) as at from runs r join metrics m using (run_id) \
         where r.suite = 'gab.Rust Benchmark' and r.git_commit = '45d78258e495044a551046f50604da3c893052ce' order by m.name",
    );
    assert_eq!(first.len(), 2);
    assert_eq!(first[0]["name"], "bench_fib_10");
    assert_eq!(first[0]["value"], 254.0);
    assert_eq!(first[1]["value"], 34001.0);
    assert_eq!(first[0]["unit"], "ns/iter");
    assert_eq!(first[0]["better"], "lower");
    assert_eq!(first[0]["at"], 1_573_312_140_323_000i64);
    let last = query(
        wh.path(),
        "select m.value, r.labels from runs r join metrics m using (run_id) \
         where r.suite = 'gab.Rust Benchmark' and r.git_commit = 'c38cce98215cf75e178ecd5a0c1a1ab215e93006' and m.name = 'bench_fib_20'",
    );
    assert_eq!(last[0]["value"], 20114.96);
    let labels: serde_json::Value =
        serde_json::from_str(last[0]["labels"].as_str().unwrap()).unwrap();
    assert_eq!(labels["commit_message"], "release v1.22.0");
    assert_eq!(labels["gab_tool"], "cargo");
    assert_eq!(
        labels["commit_url"],
        "https://github.com/benchmark-action/github-action-benchmark/commit/"
    );
    // benchmark.js figures are ops/sec, bigger is better (the action's biggerIsBetter).
    assert_eq!(
        scalar(
            wh.path(),
            "select count(distinct m.better) || ':' || min(m.better) from runs r join metrics m using (run_id) where r.suite = 'gab.Benchmark.js Benchmark'"
        ),
        "1:higher"
    );
    // Imported again: nothing added.
    let again = ok(wh.path(), &["ingest", "--suite", "gab", &data_js()]);
    assert!(
        again.contains("ingested 0 gab-data-js runs") && again.contains("(1832 already present)"),
        "{again}"
    );
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn a_grown_history_adds_only_its_new_entries_and_a_gh_pages_directory_imports() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    // The history as it was one entry earlier in every group.
    let text = fs::read_to_string(data_js()).unwrap();
    let (prefix, json) = text.split_once('=').unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(json).unwrap();
    for (_, entries) in doc["entries"].as_object_mut().unwrap() {
        entries.as_array_mut().unwrap().pop();
    }
    let older = dir.path().join("older/dev/bench");
    fs::create_dir_all(&older).unwrap();
    fs::write(older.join("data.js"), format!("{prefix}= {doc}")).unwrap();
    let out = ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "gab",
            dir.path().join("older").to_str().unwrap(),
        ],
    );
    assert!(out.starts_with("ingested 1821 gab-data-js runs"), "{out}");
    let pages = dir.path().join("gh-pages/dev/bench");
    fs::create_dir_all(&pages).unwrap();
    fs::copy(data_js(), pages.join("data.js")).unwrap();
    let out = ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "gab",
            dir.path().join("gh-pages").to_str().unwrap(),
        ],
    );
    assert!(
        out.contains("ingested 11 gab-data-js runs") && out.contains("(1821 already present)"),
        "{out}"
    );
    assert_eq!(scalar(&wh, "select count(*) from runs"), 1832);
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn history_finds_the_step_in_an_imported_data_js() {
    let wh = tempfile::tempdir().unwrap();
    ok(wh.path(), &["ingest", "--suite", "gab", &data_js()]);
    // bench_fib_10 runs at 237 ns/iter at #248 (a22966853b) and 158 from #249 (da5ac2ec68) on:
    // -33.3 % at that commit, read in the file.
    let out = ok(
        wh.path(),
        &[
            "history",
            "--suite",
            "gab.Rust Benchmark",
            "--metric",
            "bench_fib_10",
            "--format",
            "json",
        ],
    );
    let series: serde_json::Value = serde_json::from_str(&out).unwrap();
    let changes = series[0]["changes"].as_array().unwrap();
    let step = changes
        .iter()
        .find(|c| c["git_commit"] == "da5ac2ec683f23c0f95b24561135c6eff701747f")
        .unwrap_or_else(|| panic!("no change at da5ac2ec68: {changes:?}"));
    assert_eq!(step["run_no"], 249);
    assert_eq!(step["regression"], false);
    assert!((step["magnitude"].as_f64().unwrap() - (158.0 / 237.0 - 1.0)).abs() < 1e-9);
    // The site draws the imported suites.
    let site = wh.path().join("site");
    ok(wh.path(), &["site", "--out", site.to_str().unwrap()]);
    let index = fs::read_to_string(site.join("index.html")).unwrap();
    assert!(
        index.contains("gab.Rust Benchmark"),
        "the index lists the imported suite"
    );
    // bench_fib_10's series page draws all 301 entries of the group and the step as a change
    // point at its commit.
    let suites: Vec<_> = fs::read_dir(site.join("suites"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("gab-rust-benchmark-")
        })
        .collect();
    assert_eq!(suites.len(), 1, "{suites:?}");
    let page = fs::read_dir(&suites[0])
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("bench-fib-10-")
        })
        .expect("a series page for bench_fib_10");
    let html = fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<line class=\"change\"")
            && html.contains("<title>improvement -33.3% at #249 (commit da5ac2ec68)</title>"),
        "{}",
        page.display()
    );
    assert!(html.contains("<title>#301 · "), "{}", page.display());
    assert!(!html.contains("<title>#302 · "), "{}", page.display());
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn stray_files_in_an_asv_results_directory_are_left_out_as_asv_does() {
    let dir = tempfile::tempdir().unwrap();
    let proj = asv_project(dir.path());
    fs::write(proj.join("results/m1/broken.json"), "{ not json").unwrap();
    fs::write(proj.join("results/m1/other.json"), r#"{"results": {}}"#).unwrap();
    let o = perfhouse(
        &dir.path().join("wh"),
        &["ingest", "--suite", "asv", proj.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("ingested 3 asv runs"), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("broken.json:1:") && err.contains("not an asv results file: left out"),
        "{err}"
    );
    assert!(err.contains("other.json: no `commit_hash`"), "{err}");
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn an_asv_conf_as_asv_quickstart_writes_it_gives_the_commit_url() {
    // PyWavelets' real one (tests/fixtures/asv-conf/README.md): comment lines, a comment after
    // `"branches": ["main"],`, a trailing comma in `"matrix"` and at its end.
    let dir = tempfile::tempdir().unwrap();
    let proj = asv_project(dir.path());
    fs::copy(
        fixture("asv-conf/pywt_asv.conf.json"),
        proj.join("asv.conf.json"),
    )
    .unwrap();
    let wh = dir.path().join("wh");
    ok(&wh, &["ingest", "--suite", "asv", proj.to_str().unwrap()]);
    let labels = query(&wh, "select distinct labels from runs");
    assert_eq!(labels.len(), 1, "{labels:?}");
    let l: serde_json::Value = serde_json::from_str(labels[0]["labels"].as_str().unwrap()).unwrap();
    assert_eq!(l["commit_url"], "http://github.com/PyWavelets/pywt/commit/");

    let dir = tempfile::tempdir().unwrap();
    let proj = asv_project(dir.path());
    // `//` comments (also after a value, and inside a string left alone) and trailing commas.
    fs::write(
        proj.join("asv.conf.json"),
        "{\n  // The version of the config file format.\n  \"version\": 1,\n  \"project\": \"p\", // trailing comment\n  \"repo\": \"https://example.org//repo\",\n  \"branches\": [\"main\",],\n  \"show_commit_url\": \"https://example.org/c/\",\n}\n",
    )
    .unwrap();
    let wh = dir.path().join("wh");
    ok(&wh, &["ingest", "--suite", "asv", proj.to_str().unwrap()]);
    let labels = query(&wh, "select distinct labels from runs");
    assert_eq!(labels.len(), 1, "{labels:?}");
    let l: serde_json::Value = serde_json::from_str(labels[0]["labels"].as_str().unwrap()).unwrap();
    assert_eq!(l["commit_url"], "https://example.org/c/");
}

#[test]
fn an_input_that_would_land_no_figure_is_refused_saying_what_to_give() {
    let wh = tempfile::tempdir().unwrap();
    let agg =
        fixture("aiperf-multirun/aggregate/concurrency_16/profile_export_aiperf_aggregate.json");
    let o = perfhouse(wh.path(), &["ingest", "--suite", "s", &agg]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(
            "nothing to land: 1 trial(s) without a single metric, request, stack or sample"
        ) && err.contains("ingest the per-run directories next to it")
            && err.contains("--allow-empty"),
        "{err}"
    );
    let landed = files_under(wh.path())
        .into_iter()
        .filter(|p| !p.to_string_lossy().ends_with(".lock"))
        .count();
    assert_eq!(landed, 0, "nothing landed, no input kept");
    // Asked for, the empty trial lands.
    ok(
        wh.path(),
        &["ingest", "--suite", "s", "--allow-empty", &agg],
    );
    assert_eq!(scalar(wh.path(), "select count(*) from trials"), 1);
    assert_eq!(scalar(wh.path(), "select count(*) from metrics"), 0);
}

/// A history whose tool keeps no benchmark version (github-action-benchmark) can change what a
/// benchmark measures without a word: here `bench_fib_10` of the Rust group reads 1,000 times
/// its value from entry #200 on (as when its unit or its input changed). That is a suspected
/// break, a new segment with no change called across it, and `history` says so.
#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn a_jump_of_orders_of_magnitude_in_a_data_js_is_a_suspected_break_not_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let text = fs::read_to_string(data_js()).unwrap();
    let (prefix, json) = text.split_once('=').unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(json).unwrap();
    let rust = doc["entries"]["Rust Benchmark"].as_array_mut().unwrap();
    let commit = rust[199]["commit"]["id"].as_str().unwrap().to_string();
    let before = rust[198]["benches"][0]["value"].as_f64().unwrap();
    for entry in rust.iter_mut().skip(199) {
        let b = &mut entry["benches"][0];
        assert_eq!(b["name"], "bench_fib_10");
        b["value"] = serde_json::json!(b["value"].as_f64().unwrap() * 1000.0);
    }
    let after = rust[199]["benches"][0]["value"].as_f64().unwrap();
    let f = dir.path().join("data.js");
    fs::write(&f, format!("{prefix}= {doc}")).unwrap();
    ok(&wh, &["ingest", "--suite", "gab", f.to_str().unwrap()]);
    let out = ok(
        &wh,
        &[
            "history",
            "--suite",
            "gab.Rust Benchmark",
            "--metric",
            "bench_fib_10",
            "--format",
            "json",
        ],
    );
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    let s = &s[0];
    assert_eq!(
        s["suspected_breaks"],
        serde_json::json!([199]),
        "{}",
        s["suspected_breaks"]
    );
    assert!(
        s["breaks"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!(199))
    );
    assert!(
        s["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["git_commit"] != commit.as_str()),
        "no change is called at the break: {}",
        s["changes"]
    );
    let table = ok(
        &wh,
        &["history", "--suite", "gab.Rust Benchmark", "--changes-only"],
    );
    let ratio = after / before;
    assert!(
        table.contains(&format!("suspected break at #200 {}", &commit[..10])),
        "{table}"
    );
    assert!(ratio > 100.0, "{ratio}");
}
