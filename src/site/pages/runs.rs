//! A suite's runs, newest first, a page of [`RUNS_PER_PAGE`] at a time
//! (`templates/runs.html`): the index lists only the newest few of each suite.

use askama::Template;

use crate::site::pages::Chrome;
use crate::site::pages::index::RunLink;

/// Runs listed on one page of a suite's runs.
pub const RUNS_PER_PAGE: usize = 200;

#[derive(Template)]
#[template(path = "runs.html")]
pub struct RunsPage {
    pub chrome: Chrome,
    pub suite: String,
    pub total: usize,
    /// The first and last run number on this page ("#343 … #144").
    pub span: String,
    pub runs: Vec<RunLink>,
    /// Every page of the suite's runs: (href from this page, label, this page).
    pub pages: Vec<(String, String, bool)>,
    pub columns: RunColumns,
}

/// The columns of a suite's runs beside run, started and commit: each shown where the runs
/// differ in it; what every run shares is said once above the table instead (`shared`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunColumns {
    pub source: bool,
    pub trials: bool,
    pub status: bool,
    pub note: bool,
    /// "Every run: source ingest:asv, 1 trial, status ok." (`whom`: "Every run"); empty where
    /// nothing is shared.
    pub shared: String,
    /// The table's labels for the phone's cards ([`super::card_labels`]).
    pub labels: String,
}

impl RunColumns {
    pub fn of(runs: &[RunLink], whom: &str) -> RunColumns {
        let varies = |f: fn(&RunLink) -> &str| runs.windows(2).any(|w| f(&w[0]) != f(&w[1]));
        let first = |f: fn(&RunLink) -> &str| runs.first().map_or("", f).to_string();
        let (source, trials, status) = (
            varies(|r| &r.source),
            varies(|r| &r.trials),
            varies(|r| &r.status),
        );
        let note = runs.iter().any(|r| !r.note.is_empty());
        let mut shared = Vec::new();
        if !source && !first(|r| &r.source).is_empty() {
            shared.push(format!("source {}", first(|r| &r.source)));
        }
        if !trials && let Ok(n) = first(|r| &r.trials).parse::<usize>() {
            shared.push(crate::present::count(n, "trial"));
        }
        if !status && !first(|r| &r.status).is_empty() {
            shared.push(format!("status {}", first(|r| &r.status)));
        }
        let labels = [
            Some("run"),
            Some("started"),
            Some("commit"),
            source.then_some("source"),
            trials.then_some("trials"),
            status.then_some("status"),
            note.then_some("note"),
        ];
        let labels: Vec<&str> = labels.into_iter().flatten().collect();
        RunColumns {
            source,
            trials,
            status,
            note,
            shared: if shared.is_empty() {
                String::new()
            } else {
                format!("{whom}: {}.", shared.join(", "))
            },
            labels: super::card_labels(&labels),
        }
    }
}

/// The file of page `i` (0-based) of a suite's runs, in the suite's folder.
pub fn runs_file(i: usize) -> String {
    if i == 0 {
        "runs.html".to_string()
    } else {
        format!("runs-{}.html", i + 1)
    }
}

/// The pages of one suite's runs (`runs`: newest first, hrefs relative to the site's root),
/// each with the file name it goes to in the suite's folder.
pub fn runs_pages(suite: &str, runs: Vec<RunLink>, css: &str) -> Vec<(String, RunsPage)> {
    let total = runs.len();
    let columns = RunColumns::of(&runs, "Every run");
    let n_pages = total.div_ceil(RUNS_PER_PAGE).max(1);
    let mut out = Vec::with_capacity(n_pages);
    let mut runs = runs.into_iter();
    for i in 0..n_pages {
        let chunk: Vec<RunLink> = runs
            .by_ref()
            .take(RUNS_PER_PAGE)
            .map(|mut r| {
                r.href = format!("../../{}", r.href);
                r
            })
            .collect();
        let span = match (chunk.first(), chunk.last()) {
            (Some(a), Some(b)) if chunk.len() > 1 => format!("{} … {}", a.number, b.number),
            (Some(a), _) => a.number.clone(),
            _ => String::new(),
        };
        let pages = (0..n_pages)
            .map(|j| (runs_file(j), format!("{}", j + 1), j == i))
            .collect();
        let chrome = Chrome::new(2, css, format!("{suite}: runs"))
            .suite(suite)
            .here(if n_pages > 1 {
                format!("runs, page {}", i + 1)
            } else {
                "runs".to_string()
            });
        out.push((
            runs_file(i),
            RunsPage {
                chrome,
                suite: suite.to_string(),
                total,
                span,
                runs: chunk,
                pages: if n_pages > 1 { pages } else { Vec::new() },
                columns: columns.clone(),
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(n: usize) -> RunLink {
        RunLink {
            href: format!("runs/r{n}/index.html"),
            number: format!("#{n}"),
            run_id: format!("r{n}"),
            started: String::new(),
            source: String::new(),
            status: String::new(),
            trials: String::new(),
            note: String::new(),
            commit: String::new(),
            commit_href: String::new(),
        }
    }

    #[test]
    fn runs_are_paged_newest_first() {
        // 450 runs: pages of 200, 200 and 50.
        let runs: Vec<RunLink> = (1..=450).rev().map(link).collect();
        let pages = runs_pages("s", runs, "c.css");
        let got: Vec<(&str, usize, &str)> = pages
            .iter()
            .map(|(f, p)| (f.as_str(), p.runs.len(), p.span.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("runs.html", 200, "#450 … #251"),
                ("runs-2.html", 200, "#250 … #51"),
                ("runs-3.html", 50, "#50 … #1")
            ]
        );
        assert_eq!(pages[1].1.runs[0].href, "../../runs/r250/index.html");
        let marks: Vec<bool> = pages[1].1.pages.iter().map(|p| p.2).collect();
        assert_eq!(marks, [false, true, false]);
        // One page: no page links.
        let one = runs_pages("s", (1..=3).rev().map(link).collect(), "c.css");
        assert_eq!(one.len(), 1);
        assert!(one[0].1.pages.is_empty());
        assert_eq!(one[0].1.span, "#3 … #1");
    }

    /// The second of three pages, rendered: its runs link two levels up, the other pages are
    /// links and this one is marked current.
    #[test]
    fn a_runs_page_links_its_runs_and_the_other_pages() {
        let runs: Vec<RunLink> = (1..=450).rev().map(link).collect();
        let html = runs_pages("kv", runs, "c.css")
            .remove(1)
            .1
            .render()
            .unwrap();
        crate::site::pages::assert_numbers_read_well(&html);
        assert!(html.contains("<a href=\"../../runs/r250/index.html\">#250</a>"));
        assert_eq!(html.matches("href=\"../../runs/r").count(), 200);
        assert!(html.contains(
            "pages: <a href=\"runs.html\">1</a> <span aria-current=\"page\">2</span> <a href=\"runs-3.html\">3</a>"
        ));
        assert!(html.contains("450 runs, newest first; this page: #250 … #51."));
    }

    /// What every run shares is said once above the table, not in a column of 1,000 equal
    /// cells; a column where the runs differ stays, labelled once for the phone's cards.
    #[test]
    fn columns_every_run_shares_are_said_once() {
        let asv = |n: usize| RunLink {
            source: "ingest:asv".into(),
            trials: "1".into(),
            status: "ok".into(),
            ..link(n)
        };
        let runs: Vec<RunLink> = (1..=3).rev().map(asv).collect();
        let c = RunColumns::of(&runs, "Every run");
        assert!(!c.source && !c.trials && !c.status && !c.note);
        assert_eq!(
            c.shared,
            "Every run: source ingest:asv, 1 trial, status ok."
        );
        assert_eq!(c.labels, "--c1:'run';--c2:'started';--c3:'commit'");
        let html = runs_pages("asv", runs.clone(), "c.css")
            .remove(0)
            .1
            .render()
            .unwrap();
        assert!(html.contains("<p>Every run: source ingest:asv, 1 trial, status ok.</p>"));
        assert!(!html.contains("<th>source</th>") && !html.contains("ingest:asv<"));
        assert!(
            html.contains(
                "<tr><td><a href=\"../../runs/r3/index.html\">#3</a><td><td><code></code>\n"
            ),
            "{html}"
        );

        let mut mixed = runs;
        mixed[1].status = "failed".into();
        mixed[2].note = "new runner".into();
        let c = RunColumns::of(&mixed, "Every run");
        assert!(c.status && c.note && !c.source && !c.trials);
        assert_eq!(c.shared, "Every run: source ingest:asv, 1 trial.");
        assert_eq!(
            c.labels,
            "--c1:'run';--c2:'started';--c3:'commit';--c4:'status';--c5:'note'"
        );
    }
}
