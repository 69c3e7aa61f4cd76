//! One file per page, each beside its template's view model. A page is a pure function of
//! loaded data (`site::load`) and its [`Chrome`]: no page issues a query.

pub mod alerts;
pub mod compare;
pub mod glossary;
pub mod index;
pub mod run;
pub mod runs;
pub mod series;
pub mod sweep;
pub mod transfer;

/// What every page repeats (`templates/base.html`): the way back to the site's root from the
/// page, the stylesheet, the title, and the breadcrumbs from the index down to the page.
#[derive(Debug, Clone, Default)]
pub struct Chrome {
    /// `""` at the root, `"../../"` two folders down.
    pub root: String,
    pub css: String,
    pub title: String,
    /// After "perfhouse" (the index); the last one is the page itself.
    pub crumbs: Vec<Crumb>,
}

/// One step of the breadcrumbs; `href` empty: the page itself (not a link).
#[derive(Debug, Clone)]
pub struct Crumb {
    pub href: String,
    pub text: String,
}

impl Chrome {
    /// A page `depth` folders below the root (`runs/<id>/x.html`: 2).
    pub fn new(depth: usize, css: &str, title: impl Into<String>) -> Chrome {
        Chrome {
            root: "../".repeat(depth),
            css: css.to_string(),
            title: title.into(),
            crumbs: Vec::new(),
        }
    }

    /// A crumb linking to `path` (relative to the site's root; empty: no link).
    pub fn crumb(mut self, path: &str, text: impl Into<String>) -> Chrome {
        let href = if path.is_empty() {
            String::new()
        } else {
            format!("{}{path}", self.root)
        };
        self.crumbs.push(Crumb {
            href,
            text: text.into(),
        });
        self
    }

    /// The suite's crumb (its series page).
    pub fn suite(self, suite: &str) -> Chrome {
        let path = suite_href(suite);
        self.crumb(&path, suite)
    }

    /// A run's crumb (its page).
    pub fn run(self, run_id: &str, run_no: u64) -> Chrome {
        self.crumb(&run_href(run_id), format!("#{run_no}"))
    }

    /// perfhouse's repository (the footer links to it).
    pub fn repository(&self) -> &'static str {
        env!("CARGO_PKG_REPOSITORY")
    }

    /// The book (`docs/`), as the repository shows it.
    pub fn book(&self) -> String {
        format!(
            "{}/blob/main/docs/src/SUMMARY.md",
            env!("CARGO_PKG_REPOSITORY")
        )
    }

    /// The page itself, last.
    pub fn here(self, text: impl Into<String>) -> Chrome {
        self.crumb("", text)
    }
}

/// The `style` of a `cards lab` table: its column labels set once on the table
/// (`--c1:'run';--c2:'started'`), which a phone shows before each cell, instead of a
/// `data-label` on every cell of every row. Each label is a CSS string whose quotes, `\\`,
/// `<`, `&` and `"` are CSS escapes, so the value is safe in a double-quoted attribute as is.
pub fn card_labels(labels: &[&str]) -> String {
    labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let text: String = l
                .chars()
                .map(|c| match c {
                    '\'' | '"' | '\\' | '<' | '>' | '&' => format!("\\{:x} ", c as u32),
                    c => c.to_string(),
                })
                .collect();
            format!("--c{}:'{text}'", i + 1)
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// A suite's folder, relative to the site's root: `suites/<suite>` where the name is a plain
/// file name, `suites/<slug>-<hash>` otherwise ([`crate::present::page_name`]).
pub fn suite_dir(suite: &str) -> String {
    format!("suites/{}", crate::present::page_name(suite, &[]))
}

/// A suite's page, relative to the site's root.
pub fn suite_href(suite: &str) -> String {
    format!("{}/index.html", suite_dir(suite))
}

/// The file names a suite's folder holds beside its series pages.
const SUITE_FILES: [&str; 2] = ["index", "runs"];

/// A series page's file name in its suite's folder: the metric's own name where the series is
/// the metric of the default arm without parameters and the name is plain
/// (`bench.time_series_0.html`); otherwise a slug of metric, arm and parameters with a hash.
/// Run list pages (`runs-2.html`, …) are reserved by the shape of their names.
pub fn series_file(metric: &str, arm: &str, params: &crate::model::Params) -> String {
    let numbered_list = metric
        .strip_prefix("runs-")
        .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()));
    let name = if arm == "default" && params.is_empty() && !numbered_list {
        crate::present::page_name(metric, &SUITE_FILES)
    } else {
        crate::present::slug(&format!(
            "{metric}|{arm}|{}",
            crate::model::params_json(params)
        ))
    };
    format!("{name}.html")
}

/// The page of a run's commit: the run's `commit_url` label (as asv's `show_commit_url`) with
/// the commit appended, or empty. `urls`: run id → its `commit_url` label.
pub fn commit_href(
    urls: &std::collections::BTreeMap<&str, String>,
    run_id: &str,
    commit: Option<&str>,
) -> String {
    match (urls.get(run_id), commit) {
        (Some(url), Some(c)) => format!("{url}{}", crate::present::url_segment(c)),
        _ => String::new(),
    }
}

/// A run's page, relative to the site's root.
pub fn run_href(run_id: &str) -> String {
    format!("runs/{run_id}/index.html")
}

/// The class of a change's verdict: regressed or improved.
pub(crate) fn verdict_class(regression: bool) -> &'static str {
    if regression {
        "verdict-regressed"
    } else {
        "verdict-improved"
    }
}

/// What every page's numbers must read like (issue 40 item 5): no "1 runs" (a count of one
/// with a plural noun) and no negative zero ("-0.0%"). Every unit test that renders a page
/// hands its HTML here; the words are read with the markup taken out.
#[cfg(test)]
pub(crate) fn assert_numbers_read_well(html: &str) {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    for zero in ["-0.0%", "−0.0%", "-0.0 %", "−0.0 %", "-0%", "−0%"] {
        assert!(!text.contains(zero), "{zero:?} in the page");
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    for w in words.windows(2) {
        let (n, noun) = (w[0].trim_start_matches(['(', '#', '+', '-', '−']), w[1]);
        let noun = noun.trim_end_matches([',', '.', ';', ':', ')']);
        if n == "1" && plural_noun(noun) {
            panic!("\"1 {noun}\" in the page: {:?}", w.join(" "));
        }
    }
}

/// A word that reads as a plural noun after a count: lower case, ending in one `s` (not the
/// symbols `ms`, `ns`, nor words that end in `s` in the singular).
#[cfg(test)]
fn plural_noun(w: &str) -> bool {
    const SINGULAR: &[&str] = &[
        "series", "has", "was", "its", "this", "is", "us", "plus", "across", "means", "does",
        "says",
    ];
    w.len() > 2
        && w.bytes().all(|b| b.is_ascii_lowercase())
        && w.ends_with('s')
        && !w.ends_with("ss")
        && !SINGULAR.contains(&w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check every rendered page passes: it finds a count of one with a plural noun and a
    /// negative zero, in the text, not in the markup.
    #[test]
    fn the_numbers_check_finds_one_with_a_plural_and_negative_zero() {
        let fails =
            |html: &str| std::panic::catch_unwind(|| assert_numbers_read_well(html)).is_err();
        assert!(fails("<p>1 medians of aiperf</p>"));
        assert!(fails("<p>over 1 runs.</p>"));
        assert!(fails("<td>-0.0%</td>"));
        assert!(!fails(
            "<p>1 median, 2 runs, 1 series, 1 ms, 1.5 cores, +0.0%</p>"
        ));
        assert!(!fails(
            "<svg width=\"1\" points=\"1 stops\"></svg><p>ok</p>"
        ));
    }

    #[test]
    fn card_labels_are_css_strings_safe_in_an_attribute() {
        assert_eq!(
            super::card_labels(&["run", "vs previous run"]),
            "--c1:'run';--c2:'vs previous run'"
        );
        assert_eq!(
            super::card_labels(&["Cliff's δ", "a<b & \"c\""]),
            "--c1:'Cliff\\27 s δ';--c2:'a\\3c b \\26  \\22 c\\22 '"
        );
    }

    #[test]
    fn plain_names_name_their_pages_and_others_are_slugged() {
        let none = crate::model::Params::new();
        assert_eq!(super::suite_dir("asv"), "suites/asv");
        assert_eq!(
            super::series_file("bench.time_series_0", "default", &none),
            "bench.time_series_0.html"
        );
        // Upper case, spaces, a slug's hash tail, a file of the folder, a run list's name,
        // another arm: slugged, each with its hash.
        for (metric, arm) in [
            ("TimeSuite.time_x", "default"),
            ("p99 latency", "default"),
            ("get-deadbeef", "default"),
            ("index", "default"),
            ("runs-2", "default"),
            ("get", "base"),
        ] {
            let f = super::series_file(metric, arm, &none);
            let stem = f.strip_suffix(".html").unwrap();
            let tail = &stem[stem.len() - 8..];
            assert!(tail.chars().all(|c| c.is_ascii_hexdigit()), "{metric}: {f}");
            assert_ne!(stem, metric);
        }
        let mut p = crate::model::Params::new();
        p.insert("size".into(), "64".into());
        assert_ne!(super::series_file("get", "default", &p), "get.html");
        assert!(super::suite_dir("Kedro Bench").starts_with("suites/kedro-bench-"));
    }

    #[test]
    fn crumbs_link_from_the_page_to_the_root() {
        let c = Chrome::new(2, "assets/style.x.css", "t")
            .suite("kedro bench")
            .run("abc", 7)
            .here("sweep");
        assert_eq!(c.root, "../../");
        let got: Vec<(&str, &str)> = c
            .crumbs
            .iter()
            .map(|c| (c.href.as_str(), c.text.as_str()))
            .collect();
        let suite = format!(
            "../../suites/{}/index.html",
            crate::present::slug("kedro bench")
        );
        assert!(suite.starts_with("../../suites/kedro-bench-"), "{suite}");
        assert_eq!(super::suite_href("kedro"), "suites/kedro/index.html");
        assert_eq!(
            got,
            [
                (suite.as_str(), "kedro bench"),
                ("../../runs/abc/index.html", "#7"),
                ("", "sweep")
            ]
        );
        assert_eq!(Chrome::new(0, "c", "t").root, "");
    }
}
