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

/// A sweep suite's lead on the index: its newest run's capacity and knee per arm.
pub struct SweepLead {
    /// The run's sweep page, relative to the site's root.
    pub href: String,
    /// "#12".
    pub run: String,
    /// The load the sweep varies ("concurrency").
    pub load: String,
    pub arms: Vec<SweepArmLead>,
}

pub struct SweepArmLead {
    pub arm: String,
    /// "capacity 24 at p99(ttft)≤80ms (41 req/s), knee 16".
    pub text: String,
    /// "client-bound at concurrency 1, 2", or empty.
    pub flag: String,
}

/// The lead of a sweep suite's section: each arm's capacity and knee, and where the client
/// paced some levels.
pub fn sweep_lead(s: &crate::query::sweep::Sweep) -> SweepLead {
    SweepLead {
        href: format!("runs/{}/sweep.html", s.run_id),
        run: format!("#{}", s.run_no),
        load: s.load.clone(),
        arms: s
            .arms
            .iter()
            .map(|a| SweepArmLead {
                arm: a.arm.clone(),
                text: crate::present::sweep::sweep_lead(s, a),
                flag: crate::present::sweep::client_bound_flag(s, a),
            })
            .collect(),
    }
}

/// How recent the newest change listed is, from its runs since: "The newest change is at the
/// newest run of kv (2026-11-30)." or "Nothing new in the last 72 runs of kv: the newest
/// change is 72 runs old (2026-09-01)."; empty where no entry knows its age.
/// [`newest_change`] of the entries the index lists.
pub fn newest_of(latest: &[crate::site::pages::alerts::CommitEntryView]) -> String {
    newest_change(
        latest
            .iter()
            .map(|e| (e.runs_ago, e.suites.as_str(), e.date.as_str())),
    )
}

/// `entries`: each listed entry's (runs since, suites, date).
pub fn newest_change<'a>(entries: impl Iterator<Item = (Option<u64>, &'a str, &'a str)>) -> String {
    let Some((n, suites, date)) = entries
        .filter_map(|(n, suites, date)| Some((n?, suites, date)))
        .min_by_key(|e| e.0)
    else {
        return String::new();
    };
    let of = if suites.is_empty() {
        String::new()
    } else {
        format!(" of {suites}")
    };
    let date = if date.is_empty() {
        String::new()
    } else {
        format!(" ({date})")
    };
    match n {
        0 => format!("The newest change is at the newest run{of}{date}."),
        1 => format!("Nothing new in the last run{of}: the newest change is 1 run old{date}."),
        n => format!(
            "Nothing new in the last {n} runs{of}: the newest change is {n} runs old{date}."
        ),
    }
}

pub struct SuiteView {
    pub name: String,
    pub href: String,
    /// The newest run's capacity and knee, where it is a load sweep.
    pub sweep: Option<SweepLead>,
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

impl SuiteView {
    /// The columns of its newest runs' table: those where the runs listed differ.
    pub fn run_columns(&self) -> crate::site::pages::runs::RunColumns {
        crate::site::pages::runs::RunColumns::of(&self.runs, "Every run listed")
    }
}

#[derive(Template)]
#[template(path = "index.html")]
pub struct IndexPage {
    pub chrome: crate::site::pages::Chrome,
    pub suites: Vec<SuiteView>,
    /// The newest relevant commit entries that are not stale (`pages::alerts`).
    pub latest: Vec<crate::site::pages::alerts::CommitEntryView>,
    /// How recent the newest of them is ([`newest_change`]).
    pub newest: String,
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
                sweep: None,
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
            newest: String::new(),
            entries: 0,
            more: 0,
            closed: 0,
        };
        let html = page.render().unwrap();
        crate::site::pages::assert_numbers_read_well(&html);
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
        // The newest runs: what they all share said once, no empty note column.
        assert!(html.contains("<p>Every run listed: source asv, 3 trials, status ok.</p>"));
        assert!(html.contains(
            "<table class=\"cards lab\" style=\"--c1:'run';--c2:'started';--c3:'commit'\">"
        ));
        assert!(!html.contains("<th>note</th>"), "{html}");
        // No alerts: no lead section.
        assert!(!html.contains("id=\"alerts\""));
    }

    /// The line above the index's table says how recent the newest listed change is: the one
    /// with the fewest runs since, whatever the order of the list.
    #[test]
    fn the_newest_change_is_said_from_its_runs_since() {
        let at = |entries: &[(Option<u64>, &'static str, &'static str)]| {
            newest_change(entries.iter().copied())
        };
        assert_eq!(
            at(&[(Some(3), "kv", "2026-11-01"), (Some(0), "kv", "2026-11-30")]),
            "The newest change is at the newest run of kv (2026-11-30)."
        );
        assert_eq!(
            at(&[(None, "kv", ""), (Some(72), "llm", "2026-09-01")]),
            "Nothing new in the last 72 runs of llm: the newest change is 72 runs old (2026-09-01)."
        );
        assert_eq!(
            at(&[(Some(1), "", "")]),
            "Nothing new in the last run: the newest change is 1 run old."
        );
        assert_eq!(at(&[(None, "kv", "2026-11-30")]), "");
    }

    fn level(load: f64, littles_law_ratio: f64) -> crate::query::sweep::LevelView {
        crate::query::sweep::LevelView::hand_built(load, 3, load * 2.0, littles_law_ratio)
    }

    /// A sweep suite's section leads with each arm's capacity and knee, and flags the arm
    /// whose low levels the client paced (ratio 0.5 and 0.8 < 0.9; 0.95 is not).
    #[test]
    fn a_sweep_suite_leads_with_capacity_and_knee_per_arm() {
        use crate::query::sweep::{ArmSweep, CapacityKind, CapacityView, KneeView, Sweep};
        let capacity = |kind, load| CapacityView {
            kind,
            load,
            throughput_rps: Some(41.0),
            binding: Some("p99(ttft)<=80ms".into()),
            ci: None,
            cost_per_mtok: None,
            no_interval: None,
        };
        let knee = Some(KneeView {
            load: 16.0,
            throughput_rps: 40.0,
            efficiency: 0.3,
        });
        let s = Sweep {
            run_id: "r7".into(),
            suite: "llm".into(),
            run_no: 12,
            load: "concurrency".into(),
            slo: "p99(ttft)<=80ms".into(),
            arms: vec![
                ArmSweep::hand_built(
                    "base",
                    vec![level(1.0, 0.5), level(2.0, 0.8), level(4.0, 0.95)],
                    knee.clone(),
                    Some(capacity(CapacityKind::Within, 24.0)),
                ),
                ArmSweep::hand_built(
                    "fast",
                    vec![level(1.0, 0.99)],
                    None,
                    Some(capacity(CapacityKind::AtLeast, 64.0)),
                ),
            ],
            shift: None,
            frontier: Vec::new(),
            gpus: None,
            cost_per_hour: None,
            server_figures: Vec::new(),
        };
        let lead = sweep_lead(&s);
        assert_eq!(lead.href, "runs/r7/sweep.html");
        assert_eq!(lead.run, "#12");
        let arms: Vec<(&str, &str, &str)> = lead
            .arms
            .iter()
            .map(|a| (a.arm.as_str(), a.text.as_str(), a.flag.as_str()))
            .collect();
        assert_eq!(
            arms,
            [
                (
                    "base",
                    "capacity 24 at p99(ttft)<=80ms (41 req/s), knee 16",
                    "client-bound at concurrency 1, 2"
                ),
                (
                    "fast",
                    "capacity at least 64 at p99(ttft)<=80ms (41 req/s), no knee in the range tried",
                    ""
                ),
            ]
        );
        let page = IndexPage {
            chrome: crate::site::pages::Chrome::new(0, "c.css", "perfhouse"),
            suites: vec![SuiteView {
                name: "llm".into(),
                href: "suites/llm/index.html".into(),
                sweep: Some(lead),
                headlines: Vec::new(),
                other_series: 0,
                runs: Vec::new(),
                runs_href: "suites/llm/runs.html".into(),
                more: 0,
            }],
            latest: Vec::new(),
            newest: String::new(),
            entries: 0,
            more: 0,
            closed: 0,
        };
        let html = page.render().unwrap();
        crate::site::pages::assert_numbers_read_well(&html);
        assert!(
            html.contains(
                "Load sweep over concurrency, run <a href=\"runs/r7/sweep.html\">#12</a>:"
            )
        );
        assert!(html.contains(
            "<li><strong>base</strong>: capacity 24 at p99(ttft)&#60;=80ms (41 req/s), knee 16 <span class=\"flag\""
        ));
        assert!(html.contains("client-bound at concurrency 1, 2</a></span></li>"));
    }
}
