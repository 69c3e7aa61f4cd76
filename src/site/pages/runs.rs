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
        assert!(html.contains("<a href=\"../../runs/r250/index.html\">#250</a>"));
        assert_eq!(html.matches("href=\"../../runs/r").count(), 200);
        assert!(html.contains(
            "pages: <a href=\"runs.html\">1</a> <span aria-current=\"page\">2</span> <a href=\"runs-3.html\">3</a>"
        ));
        assert!(html.contains("450 runs, newest first; this page: #250 … #51."));
    }
}
