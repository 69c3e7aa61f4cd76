//! The generated site: links, per-arm medians, escaping, determinism, incremental rebuilds.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use common::*;

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        // The build cache is not part of the site (`publish` leaves it out).
        .filter(|e| {
            !e.path()
                .components()
                .any(|c| c.as_os_str() == ".perfhouse-cache")
        })
        .map(|e| {
            (
                e.path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn hrefs(html: &str) -> Vec<String> {
    html.split("href=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect()
}

#[test]
fn demo_site_links_every_run_page_with_medians() {
    let wh = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    // Every run's page is checked below; the Kedro and tomli histories (tests/it/kedro.rs,
    // tomli.rs) and the load sweep (tests/it/sweep.rs) have their own tests.
    let datasets = datasets_without(&["kedro-asv", "tomli", "dynamo-sweep"]);
    let datasets = datasets.path();
    let log = ok(
        wh.path(),
        &[
            "demo",
            "--no-plans",
            "--datasets",
            datasets.to_str().unwrap(),
            "--out",
            out.path().to_str().unwrap(),
        ],
    );
    assert!(log.contains("site: "), "{log}");
    let index = fs::read_to_string(out.path().join("index.html")).unwrap();
    let runs = query(wh.path(), "select run_id, run_no, suite from runs");
    assert!(!runs.is_empty());
    let mut ordered = 0;
    for r in &runs {
        let id = r["run_id"].as_str().unwrap();
        let href = format!("runs/{id}/index.html");
        assert!(
            index.contains(&format!("href=\"{href}\"")),
            "index lacks {href}"
        );
        let page = fs::read_to_string(out.path().join(&href)).unwrap();
        assert!(page.contains("Per-arm medians"), "{href} has no medians");
        // Every arm of the run appears in the medians table.
        let arms = query(
            wh.path(),
            &format!("select distinct arm from arm_medians where run_id = '{id}'"),
        );
        assert!(!arms.is_empty());
        for a in arms {
            assert!(page.contains(&format!("<td>{}</td>", a["arm"].as_str().unwrap())));
        }
        assert!(page.contains("<svg"), "{href} has no chart");
        // CPU and latency charts in numeric parameter order (concurrency 8 before 32).
        for chart in [
            "CPU over time · concurrency=",
            "Request latency CDF, concurrency=",
        ] {
            let at = |c: &str| page.find(&format!("<figcaption>{chart}{c}</figcaption>"));
            if let (Some(a), Some(b)) = (at("8"), at("32")) {
                assert!(a < b, "{href}: {chart}8 after 32");
                ordered += 1;
            }
        }
        // Two arms: an A/B page, first-run arm as baseline, judged as `perfhouse compare` does.
        assert!(
            page.contains("href=\"compare-1.html\""),
            "{href} lacks its A/B link"
        );
        let ab = fs::read_to_string(out.path().join(format!("runs/{id}/compare-1.html"))).unwrap();
        assert!(ab.contains("default → fastokens"), "{ab}");
        assert!(ab.contains("class=\"verdict-inconclusive\""));
        assert!(
            !ab.contains("verdict-regressed"),
            "an A/A run shows no regression"
        );
    }
    // Every link is relative and resolves to a file of the site.
    for (name, bytes) in files(out.path()) {
        if !name.ends_with(".html") {
            continue;
        }
        let html = String::from_utf8(bytes).unwrap();
        let base = out.path().join(&name);
        // The footer's links to perfhouse itself (its repository, its book) aside.
        for h in hrefs(&html)
            .into_iter()
            .filter(|h| !h.starts_with("data:") && !h.starts_with(env!("CARGO_PKG_REPOSITORY")))
        {
            assert!(
                !h.starts_with('/') && !h.contains("://"),
                "{name}: absolute link {h}"
            );
            let file = h.split_once('#').map_or(h.as_str(), |(f, _)| f);
            let target = base.parent().unwrap().join(file);
            assert!(target.exists(), "{name}: broken link {h}");
        }
    }
    assert!(
        ordered >= 2,
        "no run page had both concurrency 8 and 32 charts"
    );
    assert!(out.path().join(".nojekyll").exists());

    // Same warehouse → byte-identical site; a rebuild in place rewrites nothing.
    let again = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &["site", "--out", again.path().to_str().unwrap()],
    );
    assert_eq!(files(out.path()), files(again.path()));
    let log = ok(wh.path(), &["site", "--out", out.path().to_str().unwrap()]);
    assert!(log.contains(" 0 files written"), "{log}");
}

#[test]
fn hostile_names_are_escaped_and_stay_inside_the_output() {
    let wh = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let sample = our_aiperf();
    ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "<script>alert(1)</script>",
            "--arm",
            "../../etc",
            "--note",
            "<img src=x onerror=alert(2)>",
            sample.to_str().unwrap(),
        ],
    );
    ok(
        wh.path(),
        &["site", "--out", out.path().join("site").to_str().unwrap()],
    );
    let all = files(out.path());
    assert!(
        all.keys().all(|k| k.starts_with("site/")),
        "{:?}",
        all.keys()
    );
    for (name, bytes) in &all {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains("<script>"), "{name} carries a raw <script>");
        assert!(!text.contains("<img src=x"), "{name} carries a raw <img>");
    }
    let index = String::from_utf8_lossy(&all["site/index.html"]);
    assert!(
        index.contains("&#60;script&#62;alert(1)&#60;/script&#62;")
            || index.contains("&lt;script&gt;"),
        "{index}"
    );
}

#[test]
fn notes_show_on_the_run_page() {
    let wh = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let sample = our_aiperf();
    let log = ok(
        wh.path(),
        &[
            "ingest",
            "--suite",
            "s",
            "--note",
            "hypothesis: the router is idle",
            sample.to_str().unwrap(),
        ],
    );
    let id = log.split_whitespace().nth(2).unwrap().to_string();
    ok(wh.path(), &["annotate", &id, "negative result: no change"]);
    ok(wh.path(), &["site", "--out", out.path().to_str().unwrap()]);
    let page = fs::read_to_string(out.path().join(format!("runs/{id}/index.html"))).unwrap();
    assert!(page.contains("hypothesis: the router is idle"));
    assert!(page.contains("negative result: no change"));
    let o = perfhouse(wh.path(), &["annotate", "no-such-run", "x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no run no-such-run"), "{}", stderr(&o));
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn profiles_become_flamegraphs_with_tables_and_a_differential() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let out = dir.path().join("site");
    // Two arms of one run: on-CPU stacks (real inferno collapse output) and bcc off-CPU stacks.
    let on = sample("folded/inferno-collapse-perf_results_go-stacks-collapsed.txt");
    let off = sample("folded/bcc-offcputime-f.example.folded");
    for arm in ["base", "cand"] {
        let d = dir.path().join(format!("in/arm={arm}"));
        fs::create_dir_all(&d).unwrap();
        fs::copy(&on, d.join("oncpu.folded")).unwrap();
        fs::copy(&off, d.join("offcpu.folded")).unwrap();
    }
    // The candidate spends twice as long in one stack: the differential must show it.
    let extra = fs::read_to_string(&on)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let cand = dir.path().join("in/arm=cand/oncpu.folded");
    let mut text = fs::read_to_string(&cand).unwrap();
    text.push_str(&extra);
    text.push('\n');
    fs::write(&cand, text).unwrap();
    ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "prof",
            "--format",
            "folded",
            "--target",
            "app",
            dir.path().join("in").to_str().unwrap(),
        ],
    );
    ok(&wh, &["site", "--out", out.to_str().unwrap()]);
    let id = scalar(&wh, "select run_id from runs")
        .as_str()
        .unwrap()
        .to_string();
    let page = fs::read_to_string(out.join(format!("runs/{id}/index.html"))).unwrap();
    assert!(page.contains("id=\"profiles\""), "no profiles section");
    // 2 arms × (on, off): four flamegraphs, each a real inferno SVG with its search.
    for i in 0..4 {
        let svg = fs::read_to_string(out.join(format!("runs/{id}/flame/{i}.svg"))).unwrap();
        assert!(
            svg.contains("<svg") && svg.contains("function search"),
            "flame/{i}.svg"
        );
        assert!(page.contains(&format!("data=\"flame/{i}.svg\"")));
    }
    assert!(page.contains("Off-CPU time by what it waited for"));
    assert!(page.contains("Top self-time frames"));
    // The top self frame of the on-CPU table is the leaf with the most samples, by hand.
    let mut leaves: std::collections::BTreeMap<String, f64> = Default::default();
    for line in fs::read_to_string(&on).unwrap().lines() {
        let (stack, w) = line.rsplit_once(' ').unwrap();
        *leaves
            .entry(stack.rsplit(';').next().unwrap().to_string())
            .or_default() += w.parse::<f64>().unwrap();
    }
    let top = leaves.iter().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0;
    assert!(
        page.contains(&format!(
            "<td class=\"frame\">{}</td>",
            top.replace('<', "&lt;").replace('>', "&gt;")
        )),
        "top frame {top}"
    );
    let ab = fs::read_to_string(out.join(format!("runs/{id}/compare-1.html"))).unwrap();
    assert!(ab.contains("Differential flamegraphs"), "{ab}");
    let diff = fs::read_dir(out.join(format!("runs/{id}/flame")))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("diff-")
        })
        .count();
    assert_eq!(diff, 2, "one differential per target × kind");
}

#[test]
fn series_pages_mark_change_points_notes_and_open_alerts() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let out = dir.path().join("site");
    // 12 runs; latency steps from ~100 to ~130 ms at run 8 (planted), 3 repeats per run.
    for run in 1..=12 {
        let base = if run >= 8 { 130.0 } else { 100.0 };
        let wobble = [
            0.4, -0.3, 0.1, -0.2, 0.3, 0.0, -0.4, 0.2, -0.1, 0.3, -0.2, 0.1,
        ][run - 1];
        let entries: Vec<String> = (0..3)
            .map(|r| format!("{{\"name\": \"lat\", \"value\": {}, \"unit\": \"ms\", \"better\": \"lower\", \"repeat\": {r}}}", base + wobble + r as f64 * 0.2))
            .collect();
        let f = dir.path().join(format!("r{run}.json"));
        fs::write(&f, format!("{{\"metrics\": [{}]}}", entries.join(","))).unwrap();
        ok(
            &wh,
            &[
                "ingest",
                "--suite",
                "hist",
                "--commit",
                &format!("{run:040x}"),
                f.to_str().unwrap(),
            ],
        );
    }
    let eighth = scalar(&wh, "select run_id from runs where run_no = 8")
        .as_str()
        .unwrap()
        .to_string();
    ok(&wh, &["annotate", &eighth, "switched the allocator"]);
    ok(&wh, &["site", "--out", out.to_str().unwrap()]);
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("What changed lately"), "{index}");
    assert!(
        index.contains("regression +30.0%"),
        "the slow-down is listed as a regression: {index}"
    );
    // The entry leads to its anchor on the alerts page, which names the series and links it.
    let eighth_commit = format!("{:040x}", 8);
    let anchor = format!("commit-{eighth_commit}");
    assert!(
        index.contains(&format!("href=\"alerts.html#{anchor}\"")),
        "{index}"
    );
    let alerts = fs::read_to_string(out.join("alerts.html")).unwrap();
    let entry = &alerts[alerts
        .find(&format!("id=\"{anchor}\""))
        .expect("the entry's anchor")..];
    assert!(entry.contains("1 series regressed"), "{entry}");
    assert!(entry.contains("(4 runs ago"), "{entry}");
    assert!(
        entry.contains(&format!("perfhouse triage commit:{eighth_commit}")),
        "{entry}"
    );
    assert!(index.contains("href=\"feed.xml\""));
    // The dashboard's headline: run 12's median (130 + 0.1 + 0.2) against run 11's
    // (130 − 0.2 + 0.2): +0.23 %, inside the ±2 % floor (the series' own σ is smaller).
    assert!(
        index.contains("<table class=\"headlines cards\">"),
        "{index}"
    );
    assert!(index.contains("<td class=\"num\" data-label=\"value\">130 ms</td><td class=\"num\" data-label=\"vs previous run\">+0.2%</td><td class=\"verdict-unchanged\""), "{index}");
    assert!(
        fs::read_to_string(out.join("feed.xml"))
            .unwrap()
            .contains("<entry>")
    );
    let suite_href = hrefs(&index)
        .into_iter()
        .find(|h| h.starts_with("suites/") && h.ends_with("/index.html"))
        .unwrap();
    let suite = fs::read_to_string(out.join(&suite_href)).unwrap();
    assert!(suite.contains("class=\"trend small\""), "small multiples");
    assert!(suite.contains("regressed at #8"), "{suite}");
    let series_href = hrefs(&suite)
        .into_iter()
        .find(|h| h.ends_with(".html") && !h.contains('/') && !h.starts_with("runs"))
        .unwrap();
    let series = fs::read_to_string(
        out.join(suite_href.rsplit_once('/').unwrap().0)
            .join(&series_href),
    )
    .unwrap();
    assert!(series.contains("<h2>Change points</h2>"), "{series}");
    assert!(
        series.contains(&format!("../../runs/{eighth}/index.html\">#8</a>")),
        "change at #8"
    );
    assert!(
        series.contains("switched the allocator"),
        "the note shows beside the run"
    );
    assert!(series.contains("<desc>"), "the chart describes itself");

    // Run #8's page links its neighbours, its suite, its series and (breadcrumbs) the way up.
    let id_of = |n: u64| {
        scalar(&wh, &format!("select run_id from runs where run_no = {n}"))
            .as_str()
            .unwrap()
            .to_string()
    };
    let run = fs::read_to_string(out.join(format!("runs/{eighth}/index.html"))).unwrap();
    assert!(
        run.contains(&format!(
            "<a href=\"../{}/index.html\" rel=\"prev\">← #7</a>",
            id_of(7)
        )),
        "{run}"
    );
    assert!(
        run.contains(&format!(
            "<a href=\"../{}/index.html\" rel=\"next\">#9 →</a>",
            id_of(9)
        )),
        "{run}"
    );
    assert!(
        run.contains(&format!("<a href=\"../../{suite_href}\">hist</a>")),
        "breadcrumb to the suite: {run}"
    );
    assert!(
        run.contains("<span aria-current=\"page\">#8</span>"),
        "{run}"
    );
    let series_link = format!(
        "<a href=\"../../{}/{series_href}\">lat</a>",
        suite_href.rsplit_once('/').unwrap().0
    );
    assert!(run.contains(&series_link), "{series_link} in {run}");
    // The PR report of run #8 against #7 links #8's commit entry on the alerts page.
    let report = ok(
        &wh,
        &[
            "report",
            "--baseline",
            &id_of(7),
            "--candidate",
            &eighth,
            "--site-url",
            "https://o.github.io/r/",
        ],
    );
    assert!(
        report.contains(&format!(
            "moved 1 series (1 regressed, 0 improved; geometric mean +30.0%): https://o.github.io/r/alerts.html#{anchor}"
        )),
        "{report}"
    );
    // The newest run has no next, the oldest no previous.
    let newest = fs::read_to_string(out.join(format!("runs/{}/index.html", id_of(12)))).unwrap();
    assert!(!newest.contains("rel=\"next\"") && newest.contains("rel=\"prev\""));
    let oldest = fs::read_to_string(out.join(format!("runs/{}/index.html", id_of(1)))).unwrap();
    assert!(!oldest.contains("rel=\"prev\"") && oldest.contains("rel=\"next\""));
}

#[test]
fn transfer_page_draws_gbps_by_object_size_per_placement() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let out = dir.path().join("site");
    let log = repo().join("tests/fixtures/lmcache/client.log");
    for numa in ["interleave", "node0"] {
        let d = dir.path().join(format!("in/numa={numa}"));
        fs::create_dir_all(&d).unwrap();
        fs::copy(&log, d.join("client.log")).unwrap();
    }
    ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "tc",
            "--format",
            "lmcache-transfer",
            dir.path().join("in").to_str().unwrap(),
        ],
    );
    ok(&wh, &["site", "--out", out.to_str().unwrap()]);
    let id = scalar(&wh, "select run_id from runs")
        .as_str()
        .unwrap()
        .to_string();
    let run = fs::read_to_string(out.join(format!("runs/{id}/index.html"))).unwrap();
    assert!(run.contains("href=\"transfer.html\""));
    let t = fs::read_to_string(out.join(format!("runs/{id}/transfer.html"))).unwrap();
    assert!(t.contains("read_gbps.best by object size"), "{t}");
    // Markers, and a bar from the slowest to the fastest repeat where they differ.
    assert!(t.contains("<circle") && t.contains("object size (log₂ scale)"));
    assert!(
        t.contains(">interleave<") && t.contains(">node0<"),
        "one line per placement"
    );
    // 4 rows per metric: 2 placements × 2 object sizes; 13.22 GB/s for 4 MiB objects, at
    // three significant digits.
    assert_eq!(
        t.matches("<td data-label=\"metric\">read_gbps.best</td>")
            .count(),
        4
    );
    assert!(t.contains("data-label=\"GB/s\">13.2</td>"));
}

/// The transfer table lists object sizes in numeric order: 4096, 65536, 1048576 (as text,
/// 1048576 came first).
#[test]
fn transfer_rows_run_by_object_size() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let out = dir.path().join("site");
    let entries: Vec<String> = [1048576, 4096, 65536]
        .iter()
        .map(|size| {
            format!(
                r#"{{"name": "read_gbps", "value": {}, "unit": "GB/s", "better": "higher", "params": {{"object_size": {size}}}, "repeat": 0}}"#,
                size / 4096
            )
        })
        .collect();
    ingest_metrics(&wh, "tx", &dir.path().join("t.json"), &entries);
    ok(&wh, &["site", "--out", out.to_str().unwrap()]);
    let id = scalar(&wh, "select run_id from runs")
        .as_str()
        .unwrap()
        .to_string();
    let t = fs::read_to_string(out.join(format!("runs/{id}/transfer.html"))).unwrap();
    let table = &t[t.find("<table").expect("a table")..];
    // Sizes in binary units, in numeric order.
    let at = |s: &str| table.find(&format!(">{s}</td>")).expect(s);
    assert!(
        at("4 KiB") < at("64 KiB") && at("64 KiB") < at("1 MiB"),
        "{table}"
    );
}

/// Writes `entries` (metrics-json objects) to `input` and ingests them as one run of `suite`.
fn ingest_metrics(wh: &Path, suite: &str, input: &Path, entries: &[String]) {
    fs::write(input, format!(r#"{{"metrics": [{}]}}"#, entries.join(", "))).unwrap();
    ok(
        wh,
        &[
            "ingest",
            "--suite",
            suite,
            "--format",
            "metrics-json",
            input.to_str().unwrap(),
        ],
    );
}

/// `site` prints "site: N runs (R reused), …": R, the runs whose pages came from the cache.
fn reused(log: &str) -> (usize, usize) {
    let rest = log.split("site: ").nth(1).expect(log);
    let runs = rest.split_whitespace().next().unwrap().parse().unwrap();
    let reused = rest
        .split('(')
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    (runs, reused.parse().unwrap())
}

/// One metrics-json run: `arms` arms × 3 repeats of two metrics, scaled by `level`.
fn metrics_run(dir: &Path, i: usize, arms: &[&str], level: f64) -> String {
    let mut entries = Vec::new();
    for arm in arms {
        for r in 0..3 {
            for m in 0..2 {
                let v = 100.0 * level * (1.0 + 0.01 * ((i * 7 + r * 3 + m) as f64).sin());
                entries.push(format!(
                    "{{\"name\": \"op{m}\", \"value\": {v}, \"unit\": \"ms\", \"better\": \"lower\", \"arm\": \"{arm}\", \"repeat\": {r}}}"
                ));
            }
        }
    }
    let path = dir.join(format!("run-{}-{i}.json", arms.len()));
    fs::write(&path, format!("{{\"metrics\": [{}]}}", entries.join(","))).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn a_rebuild_renders_only_the_runs_whose_inputs_changed_and_equals_a_full_build() {
    let wh = tempfile::tempdir().unwrap();
    let inputs = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let full = |dir: &Path| {
        let log = ok(
            wh.path(),
            &["site", "--out", dir.to_str().unwrap(), "--full"],
        );
        assert_eq!(reused(&log).1, 0, "{log}");
    };
    let build = || ok(wh.path(), &["site", "--out", out.path().to_str().unwrap()]);
    let ingest = |suite: &str, file: &str| {
        ok(
            wh.path(),
            &["ingest", "--suite", suite, "--format", "metrics-json", file],
        );
    };
    // Suite `s`: 6 single-arm runs. Suite `ab`: 9 two-arm runs, enough history (8 deltas) for
    // a noise model, which the A/B pages judge with.
    for i in 0..6 {
        ingest("s", &metrics_run(inputs.path(), i, &["main"], 1.0));
    }
    for i in 0..9 {
        ingest("ab", &metrics_run(inputs.path(), i, &["base", "cand"], 1.0));
    }
    assert_eq!(reused(&build()), (15, 0));
    assert_eq!(
        reused(&build()),
        (15, 15),
        "nothing new: every run's pages reused"
    );

    // A new run of `s`: only its pages and the page of the run before it (which links to it
    // as the next run) are rendered; `ab`'s noise model did not move.
    ingest("s", &metrics_run(inputs.path(), 6, &["main"], 1.3));
    assert_eq!(reused(&build()), (16, 14));
    let reference = tempfile::tempdir().unwrap();
    full(reference.path());
    assert_eq!(files(out.path()), files(reference.path()));
    // The series page has the new point (the cached history rows plus the new run's).
    let runs = query(
        wh.path(),
        "select run_id, suite from runs order by started_at",
    );
    let newest = runs.iter().rev().find(|r| r["suite"] == "s").unwrap()["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    let series = files(out.path())
        .into_iter()
        .filter(|(name, _)| name.starts_with("suites/s/") && name.contains("/op0"))
        .map(|(_, b)| String::from_utf8(b).unwrap())
        .collect::<Vec<_>>();
    assert!(!series.is_empty() && series.iter().all(|p| p.contains(&newest)));

    // A new run of `ab` moves its noise model: every `ab` run's A/B pages are judged again.
    ingest("ab", &metrics_run(inputs.path(), 9, &["base", "cand"], 1.0));
    assert_eq!(reused(&build()), (17, 7));
    // A note on an old run: that run's page again, with the note.
    let old = runs[0]["run_id"].as_str().unwrap().to_string();
    ok(wh.path(), &["annotate", &old, "rebuilt for its note"]);
    assert_eq!(reused(&build()), (17, 16));
    let page = out.path().join(format!("runs/{old}/index.html"));
    assert!(
        fs::read_to_string(&page)
            .unwrap()
            .contains("rebuilt for its note")
    );
    // A page removed from the output is rendered again.
    fs::remove_file(&page).unwrap();
    assert_eq!(reused(&build()), (17, 16));
    assert!(page.is_file());
    // A torn history line (a build killed mid-append): the rows are read again, the pages
    // still reused; a damaged page list is no page list.
    let points = out.path().join(".perfhouse-cache/points.jsonl");
    let mut text = fs::read(&points).unwrap();
    text.extend_from_slice(b"{\"run_id\": \"x");
    fs::write(&points, text).unwrap();
    assert_eq!(reused(&build()), (17, 17));
    fs::write(
        out.path().join(".perfhouse-cache/pages.json"),
        b"{\"build\": 1",
    )
    .unwrap();
    assert_eq!(reused(&build()), (17, 0));
    let reference = tempfile::tempdir().unwrap();
    full(reference.path());
    assert_eq!(files(out.path()), files(reference.path()));
    let log = ok(
        wh.path(),
        &["site", "--out", out.path().to_str().unwrap(), "--full"],
    );
    assert!(log.contains(" 0 files written"), "{log}");
}

/// A rebuild removes what an earlier build put that it does not (a page at an address an
/// earlier version gave it, with its folder), by the output's record of what builds put; a
/// README or any other file beside the site stays, and a build with nothing left over says
/// nothing about removing.
#[test]
fn a_rebuild_removes_what_an_earlier_build_left_and_nothing_else() {
    let wh = tempfile::tempdir().unwrap();
    let inputs = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    for i in 0..3 {
        let file = metrics_run(inputs.path(), i, &["main"], 1.0);
        ok(
            wh.path(),
            &["ingest", "--suite", "s", "--format", "metrics-json", &file],
        );
    }
    let build = || ok(wh.path(), &["site", "--out", out.path().to_str().unwrap()]);
    let first = build();
    assert!(!first.contains("removed"), "{first}");
    let record = out.path().join(".perfhouse-cache/files.txt");
    let recorded = fs::read_to_string(&record).unwrap();
    assert!(
        recorded.lines().any(|l| l == "suites/s/index.html"),
        "{recorded}"
    );
    assert_eq!(recorded.lines().count(), files(out.path()).len());

    // What an earlier version put at its own addresses, and what the user keeps beside it.
    let old = "suites/s-1a2b3c4d/op0-main-0badcafe.html";
    fs::create_dir_all(out.path().join("suites/s-1a2b3c4d")).unwrap();
    fs::write(out.path().join(old), "old page").unwrap();
    fs::write(&record, format!("{recorded}{old}\n")).unwrap();
    fs::write(out.path().join("README.md"), "mine").unwrap();
    fs::write(out.path().join("suites/mine.txt"), "mine").unwrap();

    let log = build();
    assert!(
        log.contains(", 1 file an earlier build left removed in "),
        "{log}"
    );
    assert!(!out.path().join("suites/s-1a2b3c4d").exists());
    assert!(out.path().join("README.md").is_file() && out.path().join("suites/mine.txt").is_file());
    let reference = tempfile::tempdir().unwrap();
    ok(
        wh.path(),
        &[
            "site",
            "--out",
            reference.path().to_str().unwrap(),
            "--full",
        ],
    );
    let mut expected = files(reference.path());
    expected.insert("README.md".into(), b"mine".to_vec());
    expected.insert("suites/mine.txt".into(), b"mine".to_vec());
    assert_eq!(files(out.path()), expected);
    assert_eq!(fs::read_to_string(&record).unwrap(), recorded);
    let again = build();
    assert!(!again.contains("removed"), "{again}");
}

/// Numeric parameters run by value on every page kind that lists them (1, 2, 4 … 64, never
/// 1, 16, 2, 32 as text sorts them): the suite page's cards, the run page's tables, the A/B
/// page's rows, a series page's overlay choices, the sweep page's levels, and the transfer
/// page's object sizes (4 KiB, 64 KiB, 1 MiB).
#[test]
fn numeric_parameters_run_by_value_on_every_page_kind() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let out = dir.path().join("site");
    // Listed in text order, so that an unsorted page shows them that way.
    let levels = [1, 16, 2, 32, 4, 64, 8];
    let sizes = [1048576, 4096, 65536];
    for run in 0..2 {
        let mut entries = Vec::new();
        for arm in ["a", "b"] {
            for r in 0..3 {
                for c in levels {
                    let v = 10.0 + c as f64 + r as f64 * 0.1 + run as f64 * 0.01;
                    entries.push(format!(
                        r#"{{"name": "latency", "value": {v}, "unit": "ms", "better": "lower", "arm": "{arm}", "params": {{"concurrency": {c}}}, "repeat": {r}}}"#
                    ));
                }
                for size in sizes {
                    let v = size as f64 / 65536.0 + r as f64 * 0.01;
                    entries.push(format!(
                        r#"{{"name": "read_gbps", "value": {v}, "unit": "GB/s", "better": "higher", "arm": "{arm}", "params": {{"object_size": {size}}}, "repeat": {r}}}"#
                    ));
                }
            }
        }
        let input = dir.path().join(format!("run{run}.json"));
        ingest_metrics(&wh, "order", &input, &entries);
    }
    ok(&wh, &["site", "--out", out.to_str().unwrap()]);
    // The concurrency values in the order a page first shows them.
    let order = |html: &str| -> Vec<u64> {
        let mut seen = Vec::new();
        for chunk in html.split("concurrency=").skip(1) {
            let digits: String = chunk.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(v) = digits.parse::<u64>()
                && !seen.contains(&v)
            {
                seen.push(v);
            }
        }
        seen
    };
    let sorted = vec![1, 2, 4, 8, 16, 32, 64];
    let runs = query(&wh, "select run_id from runs order by started_at desc");
    let id = runs[0]["run_id"].as_str().unwrap();
    let read = |p: String| fs::read_to_string(out.join(&p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    let suite_dir = files(&out)
        .into_keys()
        .find(|k| k.starts_with("suites/order/") && k.ends_with("/index.html"))
        .unwrap();
    let suite = read(suite_dir.clone());
    assert_eq!(order(&suite), sorted, "suite page");
    let run = read(format!("runs/{id}/index.html"));
    assert_eq!(order(&run), sorted, "run page");
    let compare = read(format!("runs/{id}/compare-1.html"));
    assert_eq!(order(&compare), sorted, "A/B page");
    // A series page offers the benchmark's other parameter sets, in order.
    let series = files(&out)
        .into_keys()
        .find(|k| k.contains("/latency-a-concurrency-1-"))
        .expect("the series page of latency · a · concurrency=1");
    let data = read(series);
    let labels: Vec<u64> = data
        .split("\"label\":\"concurrency=")
        .skip(1)
        .map(|c| c[..c.find('"').unwrap()].parse().unwrap())
        .collect();
    assert_eq!(labels, [2, 4, 8, 16, 32, 64], "overlay choices");
    // Concurrency varies but no trial has request figures: no sweep page of empty charts
    // (the bundled sweep's page lists its levels in order: tests/it/sweep.rs).
    assert!(!out.join(format!("runs/{id}/sweep.html")).exists());
    assert!(!run.contains("sweep.html"));
    let transfer = read(format!("runs/{id}/transfer.html"));
    let at = |s: &str| transfer.find(&format!(">{s}</td>")).expect(s);
    assert!(
        at("4 KiB") < at("64 KiB") && at("64 KiB") < at("1 MiB"),
        "transfer rows"
    );
}
