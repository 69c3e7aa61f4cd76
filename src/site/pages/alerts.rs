//! The alerts page (`templates/alerts.html`) and the index's lead: what changed, one entry per
//! commit (`query::alerts::by_commit`), newest first, each with its own anchor that the feed and
//! the PR report link to.

use askama::Template;

use crate::model::TriageState;
use crate::query::alerts::{Alert, CommitAlert};
use crate::site::pages::Chrome;
use crate::site::pages::series::SeriesHrefs;

/// One series of a commit entry.
pub struct EntrySeriesView {
    /// Its page (relative to the site's root), or empty.
    pub href: String,
    pub name: String,
    pub suite: String,
    pub change: String,
    /// How sure (× local σ, runs on each side, p), in the one short form.
    pub evidence: String,
    pub class: String,
    pub state: TriageState,
    pub note: String,
    /// The alert's id (`perfhouse triage ID STATE`).
    pub id: String,
}

/// One commit where series changed.
pub struct CommitEntryView {
    /// `commit-<sha>`, or `run-<run id>` for a run without a commit: the entry's anchor on
    /// `alerts.html`.
    pub anchor: String,
    /// The feed's id of the entry (`urn:perfhouse:commit:…`).
    pub urn: String,
    /// regression / improvement / mixed.
    pub kind: String,
    pub class: String,
    /// The geometric mean of the changes and, with several, their range.
    pub change: String,
    /// "17 series: 17 regressed" (+ minor ones under the floor).
    pub moved: String,
    /// The relevance rule's reason.
    pub why: String,
    /// How sure, in the one short form (its worst member's evidence).
    pub evidence: String,
    pub suites: String,
    pub run: String,
    pub run_href: String,
    /// "the newest run", "3 runs ago".
    pub age: String,
    /// The first run at the new level: its start (RFC 3339) and its date.
    pub started: String,
    pub date: String,
    pub commit: String,
    pub commit_href: String,
    /// open, acknowledged, stale, or the mix of its alerts' states.
    pub state: String,
    /// When a member's state was last set (RFC 3339), or empty.
    pub updated: String,
    pub relevant: bool,
    pub stale: bool,
    /// Some member alert is open (new or acknowledged): the entry is on `alerts.html`.
    pub open: bool,
    pub series: Vec<EntrySeriesView>,
    /// `perfhouse triage commit:<sha> STATE`: all its series at once.
    pub triage: String,
}

#[derive(Template)]
#[template(path = "alerts.html")]
pub struct AlertsPage {
    pub chrome: Chrome,
    /// Relevant commits with a recent run; commits with alerts that are not relevant (each
    /// change small, not many one way); commits whose series have had no run for a while
    /// (folded away). Each newest first; empty ones left out.
    pub sections: Vec<AlertSection>,
    /// Alerts closed by triage (counted, not listed).
    pub closed: usize,
}

pub struct AlertSection {
    pub id: &'static str,
    pub title: String,
    pub intro: &'static str,
    /// Shown folded (`<details>`).
    pub folded: bool,
    pub entries: Vec<CommitEntryView>,
}

fn pct(v: f64) -> String {
    crate::present::signed_pct(v)
}

/// An entry's anchor on `alerts.html`: what the feed, the index and the PR report link to.
pub fn anchor(git_commit: Option<&str>, run_id: &str) -> String {
    match git_commit {
        Some(c) => format!("commit-{}", crate::present::url_segment(c)),
        None => format!("run-{run_id}"),
    }
}

/// "the newest run", "1 run ago", "3 runs ago".
fn age(runs_ago: Option<u64>) -> String {
    match runs_ago {
        None => String::new(),
        Some(0) => "the newest run".into(),
        Some(1) => "1 run ago".into(),
        Some(n) => format!("{n} runs ago"),
    }
}

fn key(a: &Alert) -> (String, String, String, crate::model::Params) {
    (
        a.suite.clone(),
        a.metric.clone(),
        a.arm.clone(),
        a.params.clone(),
    )
}

/// An entry's kind and its verdict class: a whole-run move and a suspected change of the
/// environment first, then pending, regression, improvement or mixed.
fn entry_kind(c: &CommitAlert) -> (&'static str, &'static str) {
    let all_pending = c.pending > 0 && c.pending == c.series;
    match (c.regressions, c.improvements) {
        _ if c.whole_run.is_some() => ("whole run moved", "verdict-inconclusive"),
        _ if c.suspected_environment => ("suspected environment change", "verdict-info"),
        (_, 0) if all_pending => ("pending regression", "verdict-inconclusive"),
        (0, _) if all_pending => ("pending improvement", "verdict-inconclusive"),
        (0, 0) if c.minor.iter().all(|m| m.regression) => ("regression", "verdict-regressed"),
        (0, 0) if c.minor.iter().all(|m| !m.regression) => ("improvement", "verdict-improved"),
        (_, 0) => ("regression", "verdict-regressed"),
        (0, _) => ("improvement", "verdict-improved"),
        _ => ("mixed", "verdict-info"),
    }
}

/// "17 series: 17 regressed" (+ minor ones under the floor, + a whole run's move).
fn moved_text(c: &CommitAlert) -> String {
    let minor = if c.minor.is_empty() {
        String::new()
    } else {
        format!(", {} more under the history floor", c.minor.len())
    };
    let moved = match (c.regressions, c.improvements) {
        (0, 0) => format!("{} series, each under the history floor", c.minor.len()),
        (r, 0) => format!("{r} series regressed{minor}"),
        (0, i) => format!("{i} series improved{minor}"),
        (r, i) => format!("{} series: {r} regressed, {i} improved{minor}", r + i),
    };
    // A whole-run move: its own words say what moved (the entry's evidence); the members
    // listed are the series whose move is also beyond their own noise.
    match &c.whole_run {
        Some(_) => format!("{moved}, beyond their own noise, in a whole run that moved"),
        None => moved,
    }
}

/// The entry's change: its one series' change, or the geometric mean and range of several;
/// none for a whole run's move (its evidence says what moved).
fn change_text(c: &CommitAlert) -> String {
    if c.whole_run.is_some() {
        String::new()
    } else if c.series == 1 {
        pct(c.geomean)
    } else {
        format!(
            "{} geometric mean, {} … {}",
            pct(c.geomean),
            pct(c.min),
            pct(c.max)
        )
    }
}

/// A series' change in an entry: its magnitude, said to be pending where it is.
fn alert_change(a: &Alert) -> String {
    if a.kind == crate::query::alerts::AlertKind::Pending {
        format!("{} (pending)", pct(a.magnitude))
    } else {
        pct(a.magnitude)
    }
}

/// A commit entry's view. `hrefs`: each series' page and label; `commit_href`: the commit's
/// page (the run's `commit_url` label + the commit), or empty.
pub fn commit_entry(c: CommitAlert, hrefs: &SeriesHrefs, commit_href: String) -> CommitEntryView {
    let (kind, class) = entry_kind(&c);
    let moved = moved_text(&c);
    let change = change_text(&c);
    let mut states: Vec<&str> = c.alerts.iter().map(|a| a.state.as_str()).collect();
    states.sort_unstable();
    states.dedup();
    let state = if c.stale {
        "stale".to_string()
    } else if states.is_empty() {
        "open".to_string()
    } else {
        states.join(", ")
    };
    let updated = c
        .alerts
        .iter()
        .map(|a| a.updated_at.as_str())
        .max()
        .unwrap_or_default()
        .to_string();
    let started = c.started_at.clone().unwrap_or_default();
    let series = c
        .alerts
        .iter()
        .map(|a| {
            let (href, name) = hrefs
                .get(&key(a))
                .cloned()
                .unwrap_or_else(|| (String::new(), format!("{} · {}", a.metric, a.arm)));
            EntrySeriesView {
                href,
                name,
                suite: a.suite.clone(),
                change: alert_change(a),
                evidence: a.evidence.clone(),
                class: crate::site::pages::verdict_class(a.regression).into(),
                state: a.state,
                note: a.note.clone(),
                id: a.alert_id.clone(),
            }
        })
        .collect();
    let anchor = anchor(c.git_commit.as_deref(), &c.run_id);
    CommitEntryView {
        urn: format!("urn:perfhouse:{}", anchor.replacen('-', ":", 1)),
        triage: match &c.git_commit {
            Some(sha) => format!("perfhouse triage commit:{sha} STATE --note TEXT"),
            None => String::new(),
        },
        anchor,
        kind: kind.into(),
        class: class.into(),
        change,
        moved,
        why: c.why.clone(),
        evidence: c.evidence.clone(),
        suites: c.suites.join(", "),
        run: c.run_no.map_or(String::new(), |n| format!("#{n}")),
        run_href: crate::site::pages::run_href(&c.run_id),
        age: age(c.runs_ago),
        date: started.chars().take(10).collect(),
        started,
        commit: crate::present::short_commit(&c.git_commit),
        commit_href,
        state,
        updated,
        relevant: c.relevant,
        stale: c.stale,
        open: c.open,
        series,
    }
}

/// Splits commit entries (newest first, as `by_commit` orders them) into the page's three
/// lists.
pub fn alerts_page(entries: Vec<CommitEntryView>, css: &str, closed: usize) -> AlertsPage {
    let (mut recent, mut other, mut stale) = (Vec::new(), Vec::new(), Vec::new());
    for e in entries {
        if e.stale {
            stale.push(e);
        } else if e.relevant {
            recent.push(e);
        } else {
            other.push(e);
        }
    }
    let stale_title = format!(
        "{} stale entr{}: none of {} series has run in the last {} runs of its suite",
        stale.len(),
        if stale.len() == 1 { "y" } else { "ies" },
        if stale.len() == 1 { "its" } else { "their" },
        crate::query::alerts::STALE_RUNS
    );
    let sections = [
        (
            "relevant",
            "Relevant changes".to_string(),
            "",
            false,
            recent,
        ),
        (
            "other",
            "Other open alerts".to_string(),
            "Commits where each change was small and fewer than four moved one way: worth a look on their series' pages.",
            false,
            other,
        ),
        ("stale", stale_title, "", true, stale),
    ];
    AlertsPage {
        chrome: Chrome::new(0, css, "perfhouse: what changed").here("alerts"),
        sections: sections
            .into_iter()
            .filter(|s| !s.4.is_empty())
            .map(|(id, title, intro, folded, mut entries)| {
                // Newest first (by the first run at the new level).
                entries.sort_by(|a, b| b.started.cmp(&a.started).then(a.anchor.cmp(&b.anchor)));
                AlertSection {
                    id,
                    title,
                    intro,
                    folded,
                    entries,
                }
            })
            .collect(),
        closed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alert(metric: &str, magnitude: f64, state: TriageState) -> Alert {
        Alert {
            alert_id: format!("id-{metric}"),
            suite: "s".into(),
            metric: metric.into(),
            unit: "s".into(),
            arm: "default".into(),
            params: Default::default(),
            run_id: "r2".into(),
            run_no: Some(2),
            started_at: Some("2026-11-30T10:00:00Z".into()),
            git_commit: Some("abcdef0123456789".into()),
            magnitude,
            regression: magnitude > 0.0,
            state,
            note: String::new(),
            updated_at: String::new(),
            detected: true,
            runs_ago: Some(0),
            stale: false,
            kind: crate::query::alerts::AlertKind::Change,
            evidence: String::new(),
            whole_run: None,
        }
    }

    #[test]
    fn an_entry_names_its_series_change_age_and_anchor() {
        let alerts = vec![
            alert("a", 0.25, TriageState::New),
            alert("b", 0.04, TriageState::Acknowledged),
        ];
        let mut c = crate::query::alerts::by_commit(&alerts, &[]);
        assert_eq!(c.len(), 1);
        let mut c = c.remove(0);
        c.runs_ago = Some(3);
        let mut hrefs = SeriesHrefs::new();
        hrefs.insert(
            key(&alerts[0]),
            ("suites/s/a.html".into(), "a · default".into()),
        );
        let e = commit_entry(c, &hrefs, "https://x/commit/abcdef0123456789".into());
        assert_eq!(e.anchor, "commit-abcdef0123456789");
        assert_eq!(e.urn, "urn:perfhouse:commit:abcdef0123456789");
        assert_eq!(e.kind, "regression");
        assert_eq!(e.moved, "2 series regressed");
        // (1.25 × 1.04)^½ − 1 = 14.02 %
        assert_eq!(e.change, "+14.0% geometric mean, +4.0% … +25.0%");
        assert_eq!(e.age, "3 runs ago");
        assert_eq!(e.date, "2026-11-30");
        assert_eq!(e.state, "acknowledged, new");
        assert_eq!(e.series[0].href, "suites/s/a.html");
        assert_eq!(e.series[1].href, "");
        assert_eq!(e.series[1].name, "b · default");
        assert_eq!(e.run_href, "runs/r2/index.html");
    }

    /// A commit that moved one series each way is mixed, with the geometric mean and range;
    /// one whose only series is pending says so, and its series' change is marked pending.
    #[test]
    fn an_entry_says_mixed_or_pending_by_its_series() {
        let mixed = crate::query::alerts::by_commit(
            &[
                alert("a", 0.21, TriageState::New),
                alert("b", -0.10, TriageState::New),
            ],
            &[],
        )
        .remove(0);
        let e = commit_entry(mixed, &SeriesHrefs::new(), String::new());
        assert_eq!(
            (e.kind.as_str(), e.class.as_str()),
            ("mixed", "verdict-info")
        );
        assert_eq!(e.moved, "2 series: 1 regressed, 1 improved");
        // (1.21 × 0.90)^½ − 1 = +4.36 %
        assert_eq!(e.change, "+4.4% geometric mean, -10.0% … +21.0%");
        let classes: Vec<&str> = e.series.iter().map(|s| s.class.as_str()).collect();
        assert_eq!(classes, ["verdict-regressed", "verdict-improved"]);
        assert_eq!(
            e.triage,
            "perfhouse triage commit:abcdef0123456789 STATE --note TEXT"
        );
        let mut a = alert("a", 0.3, TriageState::New);
        a.kind = crate::query::alerts::AlertKind::Pending;
        let pending = crate::query::alerts::by_commit(&[a], &[]).remove(0);
        let e = commit_entry(pending, &SeriesHrefs::new(), String::new());
        assert_eq!(
            (e.kind.as_str(), e.class.as_str()),
            ("pending regression", "verdict-inconclusive")
        );
        assert_eq!(e.change, "+30.0%");
        assert_eq!(e.series[0].change, "+30.0% (pending)");
    }

    #[test]
    fn stale_and_irrelevant_entries_do_not_lead() {
        let mk = |anchor: &str, started: &str, relevant: bool, stale: bool| {
            let c = crate::query::alerts::by_commit(&[alert("a", 0.2, TriageState::New)], &[])
                .remove(0);
            let mut e = commit_entry(c, &SeriesHrefs::new(), String::new());
            e.anchor = anchor.into();
            e.started = started.into();
            e.relevant = relevant;
            e.stale = stale;
            e
        };
        let page = alerts_page(
            vec![
                mk("old", "2024-01-01", true, false),
                mk("new", "2026-01-01", true, false),
                mk("small", "2026-02-01", false, false),
                mk("gone", "2026-03-01", true, true),
            ],
            "c.css",
            4,
        );
        let got: Vec<(&str, bool, Vec<&str>)> = page
            .sections
            .iter()
            .map(|s| {
                (
                    s.id,
                    s.folded,
                    s.entries.iter().map(|e| e.anchor.as_str()).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("relevant", false, vec!["new", "old"]),
                ("other", false, vec!["small"]),
                ("stale", true, vec!["gone"])
            ]
        );
        assert!(
            page.sections[2]
                .title
                .starts_with("1 stale entry: none of its series")
        );
    }
}
