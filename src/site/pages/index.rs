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

#[cfg(test)]
mod tests {
    use super::*;

    /// The index rendered from hand-built views: a suite's headline (its link, value, change
    /// and verdict with why), its newest run and the link to its older ones.
    #[test]
    fn the_index_lists_headlines_runs_and_older_runs() {
        let run = RunLink {
            href: "runs/r9/index.html".into(),
            number: "#9".into(),
            run_id: "r9".into(),
            started: "2026-12-01 10:00 UTC".into(),
            source: "asv".into(),
            status: "ok".into(),
            trials: "3".into(),
            note: String::new(),
            commit: String::new(),
            commit_href: String::new(),
        };
        let page = IndexPage {
            chrome: crate::site::pages::Chrome::new(0, "c.css", "perfhouse"),
            suites: vec![SuiteView {
                name: "kv".into(),
                href: "suites/kv/index.html".into(),
                headlines: vec![HeadlineView {
                    name: "get".into(),
                    href: "suites/kv/get.html".into(),
                    latest: "11.0 ms".into(),
                    change: "+10.0%".into(),
                    verdict: "regressed".into(),
                    class: "verdict-regressed".into(),
                    why: "±2% floor: too few runs for a noise model".into(),
                    spark: "<svg class=\"spark\"></svg>".into(),
                }],
                other_series: 2,
                runs: vec![run],
                runs_href: "suites/kv/runs.html".into(),
                more: 1,
            }],
            latest: Vec::new(),
            entries: 0,
            more: 0,
            closed: 0,
        };
        let html = page.render().unwrap();
        assert!(
            html.contains("<td data-label=\"series\"><a href=\"suites/kv/get.html\">get</a></td>")
        );
        assert!(html.contains("data-label=\"vs previous run\">+10.0%</td>"));
        assert!(html.contains(
            "<td class=\"verdict-regressed\" title=\"±2% floor: too few runs for a noise model\" data-label=\"verdict\">regressed</td>"
        ));
        // The sparkline is the chart's markup, not escaped text.
        assert!(html.contains("<svg class=\"spark\"></svg>"));
        assert!(html.contains("<a href=\"runs/r9/index.html\" title=\"run r9\">#9</a>"));
        assert!(html.contains("2 more series in the latest run"));
        assert!(html.contains("1 older run: <a href=\"suites/kv/runs.html\">all runs of kv</a>"));
        // No alerts: no lead section.
        assert!(!html.contains("id=\"alerts\""));
    }
}
