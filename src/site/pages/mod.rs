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

/// A suite's page, relative to the site's root.
pub fn suite_href(suite: &str) -> String {
    format!("suites/{}/index.html", crate::present::slug(suite))
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

#[cfg(test)]
mod tests {
    use super::*;

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
