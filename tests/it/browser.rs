//! The demo site in a real browser (Debian's chromium, headless), served under a subpath on
//! loopback as GitHub Pages serves `https://org.github.io/repo/`: every page loads with zero
//! console errors and zero failed requests; every link and anchor resolves; screenshots of the
//! index, a run page and a compare page are kept in target/tmp/browser/.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use common::*;

const PREFIX: &str = "/repo/";

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// Serves `root` under PREFIX; records every request and its status.
/// Every request served: (path, status).
type RequestLog = Arc<Mutex<Vec<(String, u16)>>>;

fn serve(root: PathBuf, extra: BTreeMap<String, String>) -> (u16, RequestLog) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = log.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let root = root.clone();
            let seen = seen.clone();
            let extra = extra.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                // A connection closed before its request line (Chromium opens spare sockets
                // ahead of need) is no request: it is not logged as a 404 of "/".
                if reader.read_line(&mut line).is_err() || line.trim().is_empty() {
                    return;
                }
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
                        break;
                    }
                }
                let path = line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("/")
                    .split('?')
                    .next()
                    .unwrap()
                    .to_string();
                let rel = path.strip_prefix(PREFIX).map(|p| {
                    if p.is_empty() || p.ends_with('/') {
                        format!("{p}index.html")
                    } else {
                        p.to_string()
                    }
                });
                let body = rel.as_ref().and_then(|r| {
                    extra.get(r).map(|s| s.clone().into_bytes()).or_else(|| {
                        let p = root.join(r);
                        (!r.contains("..")).then(|| fs::read(p).ok()).flatten()
                    })
                });
                let mut s = stream;
                let status = if body.is_some() { 200 } else { 404 };
                seen.lock().unwrap().push((path.clone(), status));
                let ctype = match path.rsplit('.').next() {
                    Some("html") => "text/html; charset=utf-8",
                    Some("css") => "text/css",
                    Some("js") => "text/javascript",
                    Some("svg") => "image/svg+xml",
                    _ => "application/octet-stream",
                };
                let body = body.unwrap_or_else(|| b"not found".to_vec());
                let _ = write!(
                    s,
                    "HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = s.write_all(&body);
            });
        }
    });
    (port, log)
}

fn pages(site: &Path) -> Vec<String> {
    let mut v: Vec<String> = walkdir::WalkDir::new(site)
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .map(|e| {
            e.path()
                .strip_prefix(site)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    v.sort();
    v
}

/// Runs headless chromium on `url`; returns its log (console messages and JS errors).
fn open(bin: &str, url: &str, extra: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let o = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args([
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=20000",
        ])
        .args(extra)
        .arg(url)
        .output()
        .expect("chromium runs");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs headless chromium on `url` and returns the DOM after its scripts ran.
fn dom(bin: &str, url: &str, width: u32) -> String {
    let profile = tempfile::tempdir().unwrap();
    let o = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--window-size={width},1200"))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .expect("chromium runs");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn console_errors(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| {
            (l.contains("CONSOLE")
                && (l.contains("error") || l.contains("Error") || l.contains("Uncaught")))
                || l.contains("Uncaught")
        })
        .map(String::from)
        .collect()
}

#[test]
fn every_page_of_the_demo_site_loads_clean_in_chromium_and_every_link_resolves() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let site = dir.path().join("site");
    ok(
        &wh,
        &[
            "demo",
            "--datasets",
            // The Kedro and tomli histories' pages link commits to GitHub (tests/it/kedro.rs
            // and tomli.rs check them); every other link of the site must be relative.
            datasets_without(&["kedro-asv", "tomli"])
                .path()
                .to_str()
                .unwrap(),
            "--out",
            site.to_str().unwrap(),
        ],
    );
    // A history with a planted step (12 runs, ~100 → ~130 ms at run 8, 3 repeats each): the
    // demo without Kedro has no change point, and a zoomed view must keep one.
    for run in 1..=12 {
        let base = if run >= 8 { 130.0 } else { 100.0 };
        let entries: Vec<String> = (0..3)
            .map(|r| format!("{{\"name\": \"lat\", \"value\": {}, \"unit\": \"ms\", \"better\": \"lower\", \"repeat\": {r}}}", base + (run % 3) as f64 * 0.3 + r as f64 * 0.2))
            .collect();
        let f = dir.path().join(format!("r{run}.json"));
        fs::write(&f, format!("{{\"metrics\": [{}]}}", entries.join(","))).unwrap();
        ok(
            &wh,
            &[
                "ingest",
                "--suite",
                "step",
                "--commit",
                &format!("{run:040x}"),
                f.to_str().unwrap(),
            ],
        );
    }
    // A commit where most series regressed (issue 40 item 1): at run 8 of 12, four of ten
    // series step up 30 %, one steps down 30 %, five stay; one benchmark group, fewer than
    // half moving, so neither a suspected environment change nor a whole-run move.
    for run in 1..=12 {
        let entries: Vec<String> = [1.3, 1.3, 1.3, 1.3, 0.7, 1.0, 1.0, 1.0, 1.0, 1.0]
            .iter()
            .enumerate()
            .flat_map(|(k, step)| {
                let base = if run >= 8 { 100.0 * step } else { 100.0 };
                (0..3).map(move |r| format!("{{\"name\": \"kv.m{k}\", \"value\": {}, \"unit\": \"ms\", \"better\": \"lower\", \"repeat\": {r}}}", base + (run % 3) as f64 * 0.3 + r as f64 * 0.2))
            })
            .collect();
        let f = dir.path().join(format!("m{run}.json"));
        fs::write(&f, format!("{{\"metrics\": [{}]}}", entries.join(","))).unwrap();
        ok(
            &wh,
            &[
                "ingest",
                "--suite",
                "mostly",
                "--commit",
                &format!("b{run:039x}"),
                f.to_str().unwrap(),
            ],
        );
    }
    ok(&wh, &["site", "--out", site.to_str().unwrap()]);
    let all = pages(&site);
    assert!(all.len() >= 10, "{all:?}");

    // Link check (no browser needed): every href/src/data resolves to a file, every #anchor to an id.
    let mut ids: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in &all {
        let html = fs::read_to_string(site.join(p)).unwrap();
        ids.insert(
            p.clone(),
            html.split(" id=\"")
                .skip(1)
                .map(|s| s[..s.find('"').unwrap()].to_string())
                .collect(),
        );
    }
    let mut broken = Vec::new();
    for p in &all {
        let html = fs::read_to_string(site.join(p)).unwrap();
        for attr in ["href=\"", "src=\"", "data=\""] {
            for chunk in html.split(attr).skip(1) {
                let link = &chunk[..chunk.find('"').unwrap()];
                // The footer's links to perfhouse itself (its repository, its book) aside.
                if link.starts_with("data:") || link.starts_with(env!("CARGO_PKG_REPOSITORY")) {
                    continue;
                }
                assert!(
                    !link.contains("://") && !link.starts_with('/'),
                    "{p}: non-relative link {link}"
                );
                let (file, anchor) = link.split_once('#').unwrap_or((link, ""));
                let base = Path::new(p).parent().unwrap();
                let target = if file.is_empty() {
                    PathBuf::from(p)
                } else {
                    normalize(&base.join(file))
                };
                let t = target.to_string_lossy().into_owned();
                if !site.join(&target).is_file() {
                    broken.push(format!("{p}: {link}"));
                } else if !anchor.is_empty() && !ids.get(&t).is_some_and(|s| s.contains(anchor)) {
                    broken.push(format!("{p}: {link} (no such anchor)"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links: {broken:#?}");

    let Some(bin) = chromium() else {
        skip(
            "chromium",
            "no chromium: the browser part did not run (tests/run.sh installs Debian's chromium)",
        );
        return;
    };
    // One page that loads every page in an iframe, so one browser start covers them all.
    // Every flamegraph also in a frame not laid out yet (0 px wide), where inferno's script
    // once set a negative width and the browser logged it.
    let flames: Vec<String> = walkdir::WalkDir::new(&site)
        .into_iter()
        .flatten()
        .map(|e| {
            e.path()
                .strip_prefix(&site)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|p| p.contains("/flame/") && p.ends_with(".svg"))
        .collect();
    assert!(!flames.is_empty(), "the demo has flamegraphs");
    let frames: String = all
        .iter()
        .map(|p| format!("<iframe src=\"{p}\" width=\"1000\" height=\"300\"></iframe>\n"))
        .chain(
            flames
                .iter()
                .map(|p| format!("<iframe src=\"{p}\" width=\"0\" height=\"100\"></iframe>\n")),
        )
        .collect();
    let mut extra = BTreeMap::new();
    extra.insert("__all.html".to_string(), format!("<!DOCTYPE html><html><head><link rel=\"icon\" href=\"data:,\"></head><body>{frames}</body></html>"));
    extra.insert("__control.html".to_string(), "<!DOCTYPE html><html><head><link rel=\"icon\" href=\"data:,\"></head><body><script>console.error('perfhouse-control-error')</script><img src=\"missing.png\"></body></html>".to_string());
    let (port, log) = serve(site.clone(), extra);
    let base = format!("http://127.0.0.1:{port}{PREFIX}");

    // The method can fail: a page with a console error and a missing image is caught.
    let control = open(bin, &format!("{base}__control.html"), &["--dump-dom"]);
    assert!(
        control.contains("perfhouse-control-error"),
        "console errors are not visible in chromium's log:\n{control}"
    );
    assert!(
        log.lock()
            .unwrap()
            .iter()
            .any(|(p, s)| p.ends_with("missing.png") && *s == 404)
    );
    log.lock().unwrap().clear();

    the_index_leads_with_the_commit_most_series_regressed_at(bin, &base);

    let out = open(bin, &format!("{base}__all.html"), &["--dump-dom"]);
    let errors = console_errors(&out);
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    let requests = log.lock().unwrap().clone();
    let failed: Vec<_> = requests.iter().filter(|(_, s)| *s != 200).collect();
    assert!(failed.is_empty(), "failed requests: {failed:?}");
    let loaded: BTreeSet<String> = requests
        .iter()
        .map(|(p, _)| p.trim_start_matches(PREFIX).to_string())
        .collect();
    for p in &all {
        assert!(loaded.contains(p), "{p} was never requested");
    }

    // A zoomed trend keeps its analysis (issue 40 item 2): a series with a change point,
    // opened at a range of runs around it, draws the view with the change's mark, its levels
    // and its dates, at both widths.
    let zoomed = all
        .iter()
        .filter(|p| p.starts_with("suites/") && !p.ends_with("index.html"))
        .find_map(|p| {
            let html = fs::read_to_string(site.join(p)).ok()?;
            let data = trend_data_of(&html)?;
            let points = data["points"].as_array()?;
            let i = data["changes"].as_array()?.first()?[0].as_u64()? as usize;
            let run = |k: usize| points[k.min(points.len() - 1)][0].as_u64().unwrap();
            Some((p.clone(), run(i.saturating_sub(3)), run(i + 3)))
        })
        .expect("a series page with a change point");
    for width in [1400, 390] {
        let page = dom(
            bin,
            &format!("{base}{}?from={}&to={}", zoomed.0, zoomed.1, zoomed.2),
            width,
        );
        let view = page
            .find(&format!(", runs #{} to #{}", zoomed.1, zoomed.2))
            .map(|at| &page[at..at + page[at..].find("</svg>").unwrap()])
            .unwrap_or_else(|| panic!("no zoomed view of {} at {width} px", zoomed.0));
        for mark in ["class=\"change\"", "segment level (median)", "#", "<tspan"] {
            assert!(
                view.contains(mark),
                "{} zoomed at {width} px lost {mark}: {view}",
                zoomed.0
            );
        }
    }

    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser");
    fs::create_dir_all(&shots).unwrap();
    let run = all
        .iter()
        .find(|p| p.starts_with("runs/") && p.ends_with("/index.html"))
        .unwrap();
    let compare = all.iter().find(|p| p.contains("/compare-")).unwrap();
    // The suite page with series of two runs (Dynamo's A/B), whose table is the widest.
    let suites: Vec<&String> = all
        .iter()
        .filter(|p| p.starts_with("suites/") && p.ends_with("/index.html"))
        .collect();
    let suite = suites
        .iter()
        .find(|p| {
            fs::read_to_string(site.join(p.as_str()))
                .unwrap()
                .contains("<section id=\"two\">")
        })
        .unwrap_or(&suites[0]);
    let series = all
        .iter()
        .find(|p| {
            let file = p.rsplit('/').next().unwrap();
            p.starts_with("suites/") && file != "index.html" && !file.starts_with("runs")
        })
        .expect("a series page");
    let transfer = all.iter().find(|p| p.ends_with("/transfer.html")).unwrap();
    let runs = all.iter().find(|p| p.ends_with("/runs.html")).unwrap();
    let sweep = all.iter().find(|p| p.ends_with("/sweep.html")).unwrap();
    // A flamegraph (inferno's SVG, with its own script) on its own.
    let flame = flames.iter().min().unwrap().clone();
    let kinds = [
        ("index", "index.html"),
        ("alerts", "alerts.html"),
        ("glossary", "glossary.html"),
        ("flamegraph", flame.as_str()),
        ("runs", runs.as_str()),
        ("sweep", sweep.as_str()),
        ("suite", suite.as_str()),
        ("series", series.as_str()),
        ("run", run.as_str()),
        ("compare", compare.as_str()),
        ("transfer", transfer.as_str()),
    ];
    // Every kind of page, on a desktop and on a phone, as artifacts of the test.
    for (name, page) in kinds {
        for (width, height) in [(1400, 1800), (390, 1600)] {
            let png = shots.join(format!("{name}-{width}.png"));
            let _ = fs::remove_file(&png);
            let log = open(
                bin,
                &format!("{base}{page}"),
                &[
                    &format!("--screenshot={}", png.display()),
                    &format!("--window-size={width},{height}"),
                ],
            );
            // Each page on its own, at this width, logs nothing either (a flamegraph's
            // script once set a negative width in a narrow frame).
            let errors = console_errors(&log);
            assert!(errors.is_empty(), "{name} at {width} px: {errors:#?}");
            let bytes = fs::read(&png).unwrap_or_default();
            assert!(
                bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
                "{name} at {width} px screenshot: {} bytes",
                bytes.len()
            );
        }
    }
    // The contact sheet: every kind at both widths in one image, for the PR text.
    let cells: String = kinds
        .iter()
        .map(|(name, _)| {
            format!(
                "<figure><figcaption>{name}</figcaption><img src=\"__shots/{name}-1400.png\" width=\"350\"><img src=\"__shots/{name}-390.png\" width=\"98\"></figure>"
            )
        })
        .collect();
    fs::create_dir_all(site.join("__shots")).unwrap();
    for (name, _) in kinds {
        for width in [1400, 390] {
            let png = format!("{name}-{width}.png");
            fs::copy(shots.join(&png), site.join("__shots").join(&png)).unwrap();
        }
    }
    fs::write(
        site.join("__contact.html"),
        format!(
            "<!DOCTYPE html><html><head><link rel=\"icon\" href=\"data:,\"><style>body{{margin:8px;font:14px sans-serif;display:grid;grid-template-columns:repeat(3,470px);gap:10px}}figure{{margin:0;display:flex;gap:8px;align-items:flex-start;flex-wrap:wrap}}figcaption{{width:100%;font-weight:600}}img{{border:1px solid #ccc}}</style></head><body>{cells}</body></html>"
        ),
    )
    .unwrap();
    let sheet = shots.join("contact-sheet.png");
    let _ = fs::remove_file(&sheet);
    let rows = kinds.len().div_ceil(3);
    open(
        bin,
        &format!("{base}__contact.html"),
        &[
            &format!("--screenshot={}", sheet.display()),
            &format!("--window-size=1440,{}", rows * 480 + 20),
        ],
    );
    let bytes = fs::read(&sheet).unwrap_or_default();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 50_000,
        "contact sheet: {} bytes",
        bytes.len()
    );
    // No page body is wider than its viewport (wide tables scroll inside themselves): each
    // page in a 390 px and a 1400 px frame, measured after load.
    let frames: String = kinds
        .iter()
        .flat_map(|(_, p)| {
            [390, 1400]
                .map(|w| format!("<iframe src=\"{p}\" width=\"{w}\" height=\"600\"></iframe>"))
        })
        .collect::<String>()
        // The method can fail: this frame is too wide and must be caught.
        + "<iframe srcdoc=\"<div style='width:2000px'>wide</div>\" width=\"390\" height=\"100\"></iframe>";
    let check = format!(
        "<!DOCTYPE html><html><head><link rel=\"icon\" href=\"data:,\"></head><body>{frames}<script>\
         const ANSWERS = ['change', 'verdict', 'vs previous run', 'vs previous', 'GB/s', 'value', 'median', 'latest']; \
         window.addEventListener('load', () => {{ let n = 0; for (const f of document.querySelectorAll('iframe')) {{ \
         const d = f.contentDocument.documentElement; n++; \
         if (d.scrollWidth > d.clientWidth + 1) console.error('perfhouse-too-wide ' + (f.getAttribute('src') || 'control') + ' at ' + f.width + 'px: ' + d.scrollWidth + ' > ' + d.clientWidth); \
         for (const t of f.contentDocument.querySelectorAll('table')) {{ const row = t.tBodies[0] && t.tBodies[0].rows[0]; if (!row || !t.tHead) continue; \
           [...t.tHead.rows[0].cells].forEach((th, i) => {{ const name = th.textContent.trim(); \
             if (!ANSWERS.includes(name) || !row.cells[i]) return; const r = row.cells[i].getBoundingClientRect(), v = t.getBoundingClientRect(); \
             if (r.width > 0 && r.right > Math.min(v.right, d.clientWidth) + 1) console.error('perfhouse-hidden-answer ' + f.getAttribute('src') + ' at ' + f.width + 'px: ' + name); }}); }} }} \
         console.error('perfhouse-width-checked ' + n); }});</script></body></html>"
    );
    fs::write(site.join("__width.html"), check).unwrap();
    let out = open(bin, &format!("{base}__width.html"), &["--dump-dom"]);
    let lines: Vec<String> = out
        .lines()
        .filter(|l| l.contains("CONSOLE"))
        .map(String::from)
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains(&format!("perfhouse-width-checked {}", kinds.len() * 2 + 1))),
        "the width check did not run: {out}"
    );
    let wide: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("perfhouse-too-wide"))
        .collect();
    assert!(
        wide.iter()
            .any(|l| l.contains("perfhouse-too-wide control")),
        "the too-wide control frame was not caught: {lines:#?}"
    );
    let pages: Vec<&&String> = wide.iter().filter(|l| !l.contains("control")).collect();
    assert!(
        pages.is_empty(),
        "pages wider than their viewport: {pages:#?}"
    );
    // The columns that carry the answer (change, verdict, value) are in view on a phone
    // without scrolling a table sideways (issue 40 item 4).
    let hidden: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("perfhouse-hidden-answer") && l.contains(" at 390px"))
        .collect();
    assert!(
        hidden.is_empty(),
        "answer columns out of view on a phone: {hidden:#?}"
    );
    p_column_equals_the_reason(bin, &base, &site, &all);
}

/// The index on a phone (issue 40 item 1): its first red entry is the newest commit where
/// most series regressed (the planted "mostly" suite's run 8: 4 of 5 movers up), coloured
/// red though one series improved, with its evidence in the card; above the table, how
/// recent that change is.
fn the_index_leads_with_the_commit_most_series_regressed_at(bin: &str, base: &str) {
    let index = dom(bin, &format!("{base}index.html"), 390);
    let alerts = &index[index
        .find("id=\"alerts\"")
        .expect("the index leads with changes")..];
    let row_at = alerts
        .find("class=\"verdict-regressed\"")
        .expect("a red entry");
    let row = &alerts[alerts[..row_at].rfind("<tr>").unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(
        row.contains("alerts.html#commit-b000000000000000000000000000000000000008"),
        "{row}"
    );
    assert!(
        row.contains(">mostly regressions +14.8% geometric mean"),
        "{row}"
    );
    assert!(row.contains("4 of 5 series regressed, 1 improved"), "{row}");
    // Its evidence (× local σ, runs on each side) shows in the card.
    assert!(row.contains("σ · 7 runs before, 5 after"), "{row}");
    assert!(
        index.contains("Nothing new in the last 4 runs of mostly: the newest change is 4 runs old"),
        "{alerts}"
    );
}

/// A series page's data (`site::trend::data`), if it is one.
fn trend_data_of(html: &str) -> Option<serde_json::Value> {
    let at = html.find("id=\"trend-points\">")? + "id=\"trend-points\">".len();
    let end = at + html[at..].find("</script>")?;
    serde_json::from_str(&html[at..end]).ok()
}

/// Every compare page, as Chromium lays it out: each row's p column (headed `Holm-adjusted p`
/// where the comparison has a family of tests) is the p its reason names, `p = 0.178` or
/// `p < 0.001`.
fn p_column_equals_the_reason(bin: &str, base: &str, site: &Path, all: &[String]) {
    let compares: Vec<&String> = all.iter().filter(|p| p.contains("/compare-")).collect();
    assert!(!compares.is_empty());
    let frames: String = compares
        .iter()
        .map(|p| format!("<iframe src=\"{p}\" width=\"1400\" height=\"600\"></iframe>"))
        .collect();
    let check = format!(
        "<!DOCTYPE html><html><head><link rel=\"icon\" href=\"data:,\"></head><body>{frames}<script>\
         window.addEventListener('load', () => {{ let rows = 0, holm = 0; for (const f of document.querySelectorAll('iframe')) {{ \
         const d = f.contentDocument; const th = [...d.querySelectorAll('table.compare thead th')].map(t => t.textContent); \
         const col = th.findIndex(t => t === 'p' || t === 'Holm-adjusted p'); if (th[col] === 'Holm-adjusted p') holm++; \
         for (const tr of d.querySelectorAll('table.compare tbody tr')) {{ const cells = tr.querySelectorAll('td'); \
         const p = cells[col].textContent.trim(); const why = tr.querySelector('td.why').textContent; rows++; \
         if (p === '—') continue; const said = p.startsWith('<') ? 'p ' + p : 'p = ' + p; \
         if (th[col] === 'Holm-adjusted p' ? !why.includes('Holm-adjusted ' + said) : !why.includes(said)) \
         console.error('perfhouse-p-differs ' + f.getAttribute('src') + ': column ' + p + ', reason ' + why); }} }} \
         console.error('perfhouse-p-checked ' + rows + ' rows, ' + holm + ' Holm'); }});</script></body></html>"
    );
    fs::write(site.join("__p.html"), check).unwrap();
    let out = open(bin, &format!("{base}__p.html"), &["--dump-dom"]);
    let lines: Vec<&str> = out.lines().filter(|l| l.contains("CONSOLE")).collect();
    let checked = lines
        .iter()
        .find(|l| l.contains("perfhouse-p-checked"))
        .unwrap_or_else(|| panic!("the p check did not run: {out}"));
    assert!(!checked.contains("perfhouse-p-checked 0 rows"), "{checked}");
    let differs: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("perfhouse-p-differs"))
        .collect();
    assert!(differs.is_empty(), "{differs:#?}");
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}
