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
    /// Runs not listed on the index (older than the newest few).
    pub more: usize,
}

/// One alert (a change point with its triage state; `query::alerts`).
pub struct AlertView {
    pub id: String,
    pub state: String,
    pub open: bool,
    pub suite: String,
    pub href: String,
    pub series: String,
    pub kind: String,
    pub class: String,
    pub change: String,
    pub run: String,
    pub run_href: String,
    pub commit: String,
    pub commit_href: String,
    /// When the first run at the new level started.
    pub started: String,
    pub note: String,
    /// When the state was last set.
    pub updated: String,
}

#[derive(Template)]
#[template(path = "index.html")]
pub struct IndexPage {
    pub root: String,
    pub css: String,
    pub title: String,
    pub suites: Vec<SuiteView>,
    /// Open alerts, regressions first.
    pub alerts: Vec<AlertView>,
    /// Open alerts beyond those listed.
    pub more_alerts: usize,
    /// Closed alerts (not listed; counted).
    pub closed: usize,
}
