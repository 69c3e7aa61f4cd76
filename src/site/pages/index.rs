//! The index page's view model (`templates/index.html`).

use askama::Template;

// ---- view models ----------------------------------------------------------------------------

#[derive(Clone)]
pub struct RunLink {
    pub href: String,
    pub number: String,
    pub run_id: String,
    pub started: String,
    pub source: String,
    pub status: String,
    pub trials: String,
    pub note: String,
    /// The run's commit (short) and its page (the `commit_url` label + the commit), or empty.
    pub commit: String,
    pub commit_href: String,
}

/// A headline series of a suite on the dashboard: its latest value, the change against the
/// previous comparable run (same series, same segment) and the noise model's verdict on it.
pub struct HeadlineView {
    pub name: String,
    pub href: String,
    pub latest: String,
    pub change: String,
    pub verdict: String,
    pub class: String,
    /// Why the verdict (the threshold and its source).
    pub why: String,
    pub spark: String,
}

pub struct SuiteView {
    pub name: String,
    pub href: String,
    /// The latest run's headline series.
    pub headlines: Vec<HeadlineView>,
    /// Series of the suite not shown as headlines.
    pub other_series: usize,
    pub runs: Vec<RunLink>,
    /// Every run of the suite (`suites/<slug>/runs.html`).
    pub runs_href: String,
    /// Runs not listed on the index (older than the newest few).
    pub more: usize,
}

#[derive(Template)]
#[template(path = "index.html")]
pub struct IndexPage {
    pub chrome: crate::site::pages::Chrome,
    pub suites: Vec<SuiteView>,
    /// The newest relevant commit entries that are not stale (`pages::alerts`).
    pub latest: Vec<crate::site::pages::alerts::CommitEntryView>,
    /// Open entries on the alerts page, and how many of them are not listed here.
    pub entries: usize,
    pub more: usize,
    /// Closed alerts (not listed; counted).
    pub closed: usize,
}
