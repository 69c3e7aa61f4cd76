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
                .starts_with("bench_fib_10")
        })
        .expect("a series page for bench_fib_10");
    let html = fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<line class=\"change\"")
            && html.contains("<title>improvement -33.3% at #249 (commit da5ac2ec68)</title>"),
        "{}",
        page.display()
    );
    // The script's data has every run of the series, up to #301.
    let runs: Vec<u64> = trend_data(&html)["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[0].as_u64().unwrap())
        .collect();
    assert_eq!(runs.last(), Some(&301), "{}", page.display());
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
    // An aiperf summary without a single metric block (synthetic: aiperf's header keys only).
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("profile_export_aiperf.json");
    fs::write(
        &empty,
        r#"{"schema_version": "1.0", "aiperf_version": "0.13.0", "benchmark_id": "x"}"#,
    )
    .unwrap();
    let agg = empty.to_str().unwrap();
    let o = perfhouse(wh.path(), &["ingest", "--suite", "s", agg]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(
            "nothing to land: 1 trial(s) without a single metric, request, stack or sample"
        ) && err.contains("check that the file is the tool's full output")
            && err.contains("--allow-empty"),
        "{err}"
    );
    let landed = files_under(wh.path())
        .into_iter()
        .filter(|p| !p.to_string_lossy().ends_with(".lock"))
        .count();
    assert_eq!(landed, 0, "nothing landed, no input kept");
    // Asked for, the empty trial lands.
    ok(wh.path(), &["ingest", "--suite", "s", "--allow-empty", agg]);
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

/// JSON as the action writes its `data.js`, with JavaScript's `JSON.stringify(data, null, 2)`:
/// keys in the order the action builds its objects, a 2-space indent, whole numbers without a
/// fraction.
enum Js {
    Obj(Vec<(String, Js)>),
    Arr(Vec<Js>),
    Str(String),
    Num(f64),
    Bool(bool),
}

impl Js {
    fn obj(fields: Vec<(&str, Js)>) -> Js {
        Js::Obj(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    fn str(s: impl Into<String>) -> Js {
        Js::Str(s.into())
    }

    fn write(&self, out: &mut String, indent: usize) {
        let pad = |n: usize| " ".repeat(n);
        match self {
            Js::Obj(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    out.push_str(&pad(indent + 2));
                    out.push_str(&serde_json::to_string(k).unwrap());
                    out.push_str(": ");
                    v.write(out, indent + 2);
                }
                out.push('\n');
                out.push_str(&pad(indent));
                out.push('}');
            }
            Js::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    out.push_str(&pad(indent + 2));
                    v.write(out, indent + 2);
                }
                out.push('\n');
                out.push_str(&pad(indent));
                out.push(']');
            }
            Js::Str(s) => out.push_str(&serde_json::to_string(s).unwrap()),
            Js::Num(n) if n.fract() == 0.0 => out.push_str(&format!("{}", *n as i64)),
            Js::Num(n) => out.push_str(&n.to_string()),
            Js::Bool(b) => out.push_str(&b.to_string()),
        }
    }
}

/// One github-action-benchmark entry, in the shape the action writes (`src/extract.ts`
/// `Benchmark`, `Commit` from the push event's `head_commit`: `{commit: {author, committer,
/// distinct, id, message, timestamp, tree_id, url}, date, tool, benches}`): synthetic, for the
/// cases no small real file holds.
fn gab_entry(i: usize, tool: &str, benches: Js) -> Js {
    let who = || {
        Js::obj(vec![
            ("email", Js::str("dev@example.invalid")),
            ("name", Js::str("Dev")),
            ("username", Js::str("dev")),
        ])
    };
    Js::obj(vec![
        (
            "commit",
            Js::obj(vec![
                ("author", who()),
                ("committer", who()),
                ("distinct", Js::Bool(true)),
                ("id", Js::str(format!("{i:040x}"))),
                ("message", Js::str(format!("change {i}\n\nbody"))),
                ("timestamp", Js::str("2024-01-01T00:00:00Z")),
                ("tree_id", Js::str(format!("{:040x}", i + 1000))),
                (
                    "url",
                    Js::str(format!("https://github.com/org/repo/commit/{i:040x}")),
                ),
            ]),
        ),
        ("date", Js::Num(1_700_000_000_000.0 + i as f64 * 60_000.0)),
        ("tool", Js::str(tool)),
        ("benches", benches),
    ])
}

/// One bench: `{name, value, unit, extra}` (Go's order) or, with a range, `{name, value,
/// range, unit}` (cargo's).
fn bench(name: &str, value: f64, unit: &str, extra: Option<&str>, range: Option<&str>) -> Js {
    let mut fields = vec![("name", Js::str(name)), ("value", Js::Num(value))];
    if let Some(r) = range {
        fields.push(("range", Js::str(r)));
    }
    fields.push(("unit", Js::str(unit)));
    if let Some(e) = extra {
        fields.push(("extra", Js::str(e)));
    }
    Js::obj(fields)
}

/// `window.BENCHMARK_DATA = {…}` as the action writes it, keys in the order of the action's
/// own history: `lastUpdate`, `entries` (one group), `repoUrl`.
fn write_data_js(path: &std::path::Path, group: &str, entries: Vec<Js>) {
    let doc = Js::obj(vec![
        ("lastUpdate", Js::Num(1_700_000_000_000.0)),
        ("entries", Js::obj(vec![(group, Js::Arr(entries))])),
        ("repoUrl", Js::str("https://github.com/org/repo")),
    ]);
    let mut text = String::from("window.BENCHMARK_DATA = ");
    doc.write(&mut text, 0);
    fs::write(path, text).unwrap();
}

/// A Go bench as the action stores one `go test -bench -benchmem` line: before v1.18 glued
/// (`ns/op\t 15343 B/op\t 221 allocs/op`), then split only, since both.
fn go_line(era: &str, name: &str, ns: f64, bytes: f64, allocs: f64) -> Vec<Js> {
    let extra = Some("1000 times\n4 procs");
    let glued = bench(
        name,
        ns,
        &format!("ns/op\t {bytes} B/op\t      {allocs} allocs/op"),
        extra,
        None,
    );
    let split = vec![
        bench(&format!("{name} - ns/op"), ns, "ns/op", extra, None),
        bench(&format!("{name} - B/op"), bytes, "B/op", extra, None),
        bench(
            &format!("{name} - allocs/op"),
            allocs,
            "allocs/op",
            extra,
            None,
        ),
    ];
    match era {
        "glued" => vec![glued],
        "split" => split,
        _ => std::iter::once(glued).chain(split).collect(),
    }
}

/// The series of one suite: (metric, unit, points), from `history --format json`.
fn series_of(wh: &std::path::Path, suite: &str) -> Vec<(String, String, usize)> {
    let out = ok(wh, &["history", "--suite", suite, "--format", "json"]);
    let series: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut got: Vec<(String, String, usize)> = series
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["metric"].as_str().unwrap().to_string(),
                s["unit"].as_str().unwrap().to_string(),
                s["points"].as_array().unwrap().len(),
            )
        })
        .collect();
    got.sort();
    got
}

/// Issue 41: a Go history the action wrote over its versions (glued units before v1.18, split
/// entries for a while, both since; `-count 2`) is one series per benchmark and measure, each
/// of one unit, with a point per entry.
#[test]
fn a_go_data_js_is_one_series_per_benchmark_and_measure_whatever_the_actions_version() {
    let dir = tempfile::tempdir().unwrap();
    let plain = |v: f64| bench("BenchmarkPlain", v, "ns/op", Some("10 times"), None);
    let mut entries = Vec::new();
    for (i, era) in ["glued", "glued", "split", "split", "both", "both"]
        .iter()
        .enumerate()
    {
        let mut benches = Vec::new();
        // -count 2 in the last two: every line twice.
        for k in 0..if *era == "both" { 2 } else { 1 } {
            let ns = 41653.0 + (i * 10 + k) as f64;
            benches.extend(go_line(
                era,
                "BenchmarkParse/small",
                ns,
                15343.0 + i as f64,
                221.0,
            ));
            benches.push(plain(12.5 + i as f64));
        }
        entries.push(gab_entry(i, "go", Js::Arr(benches)));
    }
    let f = dir.path().join("data.js");
    write_data_js(&f, "Go Benchmark", entries);
    let wh = dir.path().join("wh");
    let out = ok(&wh, &["ingest", "--suite", "g", f.to_str().unwrap()]);
    assert!(
        out.starts_with("ingested 6 gab-data-js runs into suite g.Go Benchmark"),
        "{out}"
    );
    // 2 benchmarks: the -benchmem one has 3 measures, the plain one 1; every unit stable.
    assert_eq!(
        series_of(&wh, "g.Go Benchmark"),
        [
            ("BenchmarkParse/small".to_string(), "ns/op".to_string(), 6),
            (
                "BenchmarkParse/small - B/op".to_string(),
                "B/op".to_string(),
                6
            ),
            (
                "BenchmarkParse/small - allocs/op".to_string(),
                "allocs/op".to_string(),
                6
            ),
            ("BenchmarkPlain".to_string(), "ns/op".to_string(), 6),
        ]
    );
    // Not stored twice: one row per measure and repeat; -count 2 is two repeats.
    let rows = query(
        &wh,
        "select r.git_commit, t.repeat, m.name, m.value, m.unit from runs r join metrics m using (run_id) \
         join trials t on t.run_id = m.run_id and t.trial_id = m.trial_id \
         where m.name like 'BenchmarkParse%' order by r.started_at, t.repeat, m.name",
    );
    assert_eq!(rows.len(), 4 * 3 + 2 * 2 * 3, "{rows:?}");
    let last: Vec<(i64, &str, f64)> = rows[rows.len() - 6..]
        .iter()
        .map(|r| {
            (
                r["repeat"].as_i64().unwrap(),
                r["name"].as_str().unwrap(),
                r["value"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        last,
        [
            (0, "BenchmarkParse/small", 41703.0),
            (0, "BenchmarkParse/small - B/op", 15348.0),
            (0, "BenchmarkParse/small - allocs/op", 221.0),
            (1, "BenchmarkParse/small", 41704.0),
            (1, "BenchmarkParse/small - B/op", 15348.0),
            (1, "BenchmarkParse/small - allocs/op", 221.0),
        ]
    );
    // The first (glued) entry's measures, read from its unit.
    assert_eq!(rows[0]["value"], 41653.0);
    assert_eq!(rows[1]["value"], 15343.0);
    assert_eq!(rows[1]["unit"], "B/op");
    // `repoUrl` after `entries`, as in the action's own history: still every run's link.
    for r in query(&wh, "select labels from runs") {
        let l: serde_json::Value = serde_json::from_str(r["labels"].as_str().unwrap()).unwrap();
        assert_eq!(l["commit_url"], "https://github.com/org/repo/commit/");
    }
}

/// The Go group of the action's own history: `BenchmarkFib20WithAuxMetric` (a
/// `b.ReportMetric` line) is stored glued (`ns/op\t 4.000 auxMetricUnits`) in entry #226,
/// split only in #227–#247, both from #248 on: two series of one unit each over all of them.
#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn the_actions_own_go_history_has_one_series_per_measure() {
    let wh = tempfile::tempdir().unwrap();
    ok(wh.path(), &["ingest", "--suite", "gab", &data_js()]);
    let got = series_of(wh.path(), "gab.Go Benchmark");
    let aux: Vec<_> = got
        .iter()
        .filter(|s| s.0.contains("Aux"))
        .cloned()
        .collect();
    assert_eq!(
        aux,
        [
            (
                "BenchmarkFib20WithAuxMetric".to_string(),
                "ns/op".to_string(),
                279 - 225
            ),
            (
                "BenchmarkFib20WithAuxMetric - auxMetricUnits".to_string(),
                "auxMetricUnits".to_string(),
                279 - 225
            ),
        ]
    );
    assert!(got.iter().all(|s| !s.1.contains('\t')), "{got:?}");
}

/// Issue 41: a history is read an entry at a time and appended in batches, so a large one
/// lands whole (here 2 batches of one suite), is added to idempotently, and an import stopped
/// by a broken entry keeps the batches before it: fixed and imported again, it adds the rest.
#[test]
fn a_data_js_larger_than_a_write_batch_lands_whole_and_a_stopped_import_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let benches = |i: usize| {
        Js::Arr(
            (0..500)
                .map(|b| {
                    let name = format!("bench_{b}");
                    bench(&name, (i * 1000 + b) as f64, "ns/iter", None, Some("± 3"))
                })
                .collect(),
        )
    };
    // 280 entries × 500 benches: 140,000 metric rows, more than one batch (131,072); entry
    // #270's benches are not a list.
    let entries = |broken: bool| -> Vec<Js> {
        (0..280)
            .map(|i| {
                let b = if broken && i == 270 {
                    Js::str("not a list")
                } else {
                    benches(i)
                };
                gab_entry(i, "cargo", b)
            })
            .collect()
    };
    let f = dir.path().join("data.js");
    write_data_js(&f, "Rust Benchmark", entries(true));
    let wh = dir.path().join("wh");
    let o = perfhouse(&wh, &["ingest", "--suite", "big", f.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("field `entries.Rust Benchmark[270]`: expected {commit: {id, message}, date, tool, benches"),
        "{}",
        stderr(&o)
    );
    // The first batch (263 entries of 500 rows) was committed before the broken entry.
    let landed = scalar(&wh, "select count(*) from runs").as_i64().unwrap();
    assert_eq!(landed, 131_072 / 500 + 1, "whole entries, one batch");
    write_data_js(&f, "Rust Benchmark", entries(false));
    let out = ok(&wh, &["ingest", "--suite", "big", f.to_str().unwrap()]);
    assert!(
        out.starts_with(&format!(
            "ingested {} gab-data-js runs into suite big.Rust Benchmark ({landed} already present)",
            280 - landed
        )),
        "{out}"
    );
    assert_eq!(scalar(&wh, "select count(*) from metrics"), 140_000);
    assert_eq!(
        scalar(
            &wh,
            "select max(value) from metrics where name = 'bench_499'"
        ),
        279_499.0
    );
    let again = ok(&wh, &["ingest", "--suite", "big", f.to_str().unwrap()]);
    assert!(
        again.contains("ingested 0 gab-data-js runs") && again.contains("(280 already present)"),
        "{again}"
    );
}
