//! The index page's view model (`templates/index.html`).

use askama::Template;

// ---- view models ----------------------------------------------------------------------------

pub struct RunLink {
    pub href: String,
    pub number: String,
    pub run_id: String,
    pub started: String,
    pub source: String,
    pub status: String,
    pub trials: String,
    pub note: String,
}

pub struct SuiteView {
    pub name: String,
    pub href: String,
    pub runs: Vec<RunLink>,
    /// Runs not listed on the index (older than the newest few).
    pub more: usize,
}

pub struct RegressionView {
    pub suite: String,
    pub href: String,
    pub series: String,
    pub change: String,
    pub run: String,
    pub run_href: String,
}

#[derive(Template)]
#[template(path = "index.html")]
pub struct IndexPage {
    pub root: String,
    pub css: String,
    pub title: String,
    pub suites: Vec<SuiteView>,
    pub regressions: Vec<RegressionView>,
}
