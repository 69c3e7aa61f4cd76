//! The triage ledger: every change point `history` calls becomes an alert, identified by its
//! series and the first run at the new level; its state is the newest triage event in the
//! `alerts` table (none: `new`). States, as Perfherder and LNT keep them:
//!
//! - `new`: detected, nobody has looked;
//! - `acknowledged`: someone is on it (still open);
//! - `invalid`: noise or a broken run, not a change;
//! - `fixed`: a later change undid it;
//! - `accepted`: the new level is the new baseline: the series starts a new segment at the
//!   alert's run, so later change points and noise are judged from there and no change is
//!   called across it.
//!
//! Open = `new` or `acknowledged`. An alert stays listed once triaged even when the change
//! is no longer detected (an accepted change becomes a segment break). `report
//! --record-alerts` adds the regressed rows of a PR report as alerts of the candidate run
//! (their first event is `new`), triaged the same way.

use std::collections::BTreeMap;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::history::Series;
use super::{Query, QueryError};
use crate::model::Params;

pub const STATES: [&str; 5] = ["new", "acknowledged", "invalid", "fixed", "accepted"];

/// A state name is one of [`STATES`].
pub fn valid_state(s: &str) -> bool {
    STATES.contains(&s)
}

pub fn is_open(state: &str) -> bool {
    matches!(state, "new" | "acknowledged")
}

/// The alert id: 12 hex digits of SHA-256 over the series and the run.
pub fn alert_id(suite: &str, metric: &str, arm: &str, params: &Params, run_id: &str) -> String {
    let key = format!(
        "{suite}\u{1f}{metric}\u{1f}{arm}\u{1f}{}\u{1f}{run_id}",
        crate::model::params_json(params)
    );
    hex::encode(Sha256::digest(key.as_bytes()))[..12].to_string()
}

#[derive(Debug, Clone, Serialize)]
pub struct Alert {
    pub alert_id: String,
    pub suite: String,
    pub metric: String,
    pub unit: String,
    pub arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub params: Params,
    pub run_id: String,
    pub run_no: Option<u64>,
    pub started_at: Option<String>,
    pub git_commit: Option<String>,
    pub magnitude: f64,
    pub regression: bool,
    pub state: String,
    pub note: String,
    /// When the state was last set (empty while `new`).
    pub updated_at: String,
    /// Still found by the detector (an accepted change no longer is: it is a break).
    pub detected: bool,
    /// Runs of its suite since the first run at the new level (0: the newest run).
    pub runs_ago: Option<u64>,
    /// Its series has had no run for [`STALE_RUNS`] runs of its suite (a benchmark removed
    /// or renamed): listed, never leading.
    pub stale: bool,
}

/// Runs of a suite without a run of a series after which its alerts are stale.
pub const STALE_RUNS: u64 = 20;

/// `2026-12-01T14:00:00Z` for a time in µs since the epoch.
fn rfc3339(at_us: i64) -> String {
    chrono::DateTime::from_timestamp_micros(at_us)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// The alerts of `series` (as `history` found them) and every triaged one, open first
/// (regressions before improvements, then largest magnitude).
pub async fn alerts(q: &Query, series: &[Series]) -> Result<Vec<Alert>, QueryError> {
    let mut events = super::triage::latest_events(q).await?;
    let mut out = Vec::new();
    let mut run_nos: BTreeMap<String, (u64, String)> = BTreeMap::new();
    let newest = newest_runs(series);
    let mut last_seen: BTreeMap<(String, String, String, Params), u64> = BTreeMap::new();
    for s in series {
        for p in &s.points {
            run_nos.insert(p.run_id.clone(), (p.run_no, p.started_at.clone()));
        }
        let last = s.points.last().map_or(0, |p| p.run_no);
        last_seen.insert(
            (
                s.suite.clone(),
                s.metric.clone(),
                s.arm.clone(),
                s.params.clone(),
            ),
            last,
        );
        let top = newest.get(&s.suite).copied().unwrap_or(last);
        for c in &s.changes {
            let id = alert_id(&s.suite, &s.metric, &s.arm, &s.params, &c.run_id);
            let ev = events.remove(&id);
            out.push(Alert {
                alert_id: id,
                suite: s.suite.clone(),
                metric: s.metric.clone(),
                unit: s.unit.clone(),
                arm: s.arm.clone(),
                params: s.params.clone(),
                run_id: c.run_id.clone(),
                run_no: Some(c.run_no),
                started_at: s
                    .points
                    .iter()
                    .find(|p| p.run_id == c.run_id)
                    .map(|p| p.started_at.clone()),
                git_commit: c.git_commit.clone(),
                magnitude: c.magnitude,
                regression: c.regression,
                state: ev.as_ref().map_or("new".into(), |e| e.state.clone()),
                note: ev.as_ref().map_or(String::new(), |e| e.note.clone()),
                updated_at: ev.map_or(String::new(), |e| rfc3339(e.at_us)),
                detected: true,
                runs_ago: Some(top.saturating_sub(c.run_no)),
                stale: top.saturating_sub(last) >= STALE_RUNS,
            });
        }
    }
    // Triaged alerts the detector no longer reports (accepted ones are breaks now).
    for (id, e) in events {
        let known = run_nos.get(&e.run_id).cloned();
        let top = newest.get(&e.suite).copied();
        let last = last_seen
            .get(&(
                e.suite.clone(),
                e.metric.clone(),
                e.arm.clone(),
                e.params.clone(),
            ))
            .copied();
        out.push(Alert {
            alert_id: id,
            suite: e.suite,
            metric: e.metric.clone(),
            unit: series
                .iter()
                .find(|s| s.metric == e.metric)
                .map_or(String::new(), |s| s.unit.clone()),
            arm: e.arm,
            params: e.params,
            run_id: e.run_id,
            run_no: known.as_ref().map(|k| k.0),
            started_at: known.clone().map(|k| k.1),
            git_commit: e.git_commit,
            magnitude: e.magnitude,
            regression: e.regression,
            state: e.state,
            note: e.note,
            updated_at: rfc3339(e.at_us),
            detected: false,
            runs_ago: top.zip(known.as_ref()).map(|(t, k)| t.saturating_sub(k.0)),
            stale: top
                .zip(last)
                .is_none_or(|(t, l)| t.saturating_sub(l) >= STALE_RUNS),
        });
    }
    out.sort_by(|a, b| {
        (!is_open(&a.state), !a.regression)
            .cmp(&(!is_open(&b.state), !b.regression))
            .then(b.magnitude.abs().total_cmp(&a.magnitude.abs()))
            .then(a.alert_id.cmp(&b.alert_id))
    });
    Ok(out)
}

/// The newest run number of each suite among `series`' points.
fn newest_runs(series: &[Series]) -> BTreeMap<String, u64> {
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for s in series {
        if let Some(p) = s.points.last() {
            let e = out.entry(s.suite.clone()).or_default();
            *e = (*e).max(p.run_no);
        }
    }
    out
}

/// Changes at one commit (a minor one: under the history floor, never an alert alone).
#[derive(Debug, Clone, Serialize)]
pub struct MinorChange {
    pub suite: String,
    pub metric: String,
    pub arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub params: Params,
    pub magnitude: f64,
    pub regression: bool,
}

/// One commit and every series that changed there (`perfhouse alerts --by commit`): the
/// first run at the new level, how many series moved which way, the geometric mean and range
/// of their changes, the worst first.
#[derive(Debug, Clone, Serialize)]
pub struct CommitAlert {
    /// The commit, or (a run without one) none: then `run_id` is the key.
    pub git_commit: Option<String>,
    pub run_id: String,
    pub run_no: Option<u64>,
    pub started_at: Option<String>,
    pub suites: Vec<String>,
    /// Runs of its suite since (0: the newest run).
    pub runs_ago: Option<u64>,
    /// Series with an alert here, and how many of them regressed / improved.
    pub series: usize,
    pub regressions: usize,
    pub improvements: usize,
    /// Geometric mean of the changes' ratios (1 + magnitude), minus 1; their range.
    pub geomean: f64,
    pub min: f64,
    pub max: f64,
    /// Changes under the history floor at this commit (not alerts), counted for relevance.
    pub minor: Vec<MinorChange>,
    /// Whether it is relevant, and why ([`by_commit`]'s rule).
    pub relevant: bool,
    pub why: String,
    /// Any member alert open (new or acknowledged).
    pub open: bool,
    /// Every member's series has had no run for [`STALE_RUNS`] runs: never leads.
    pub stale: bool,
    /// The alerts, regressions first, then by size.
    pub alerts: Vec<Alert>,
}

/// Fewest changes one way at one commit that make it relevant though each is small, and the
/// share of that commit's changes that must go that way.
pub const COORDINATED: usize = 4;
pub const COORDINATED_SHARE: f64 = 0.8;
/// A change this large (asv's own `compare` factor, 1.1) makes its commit relevant alone.
pub const RELEVANT: f64 = 0.10;

/// Alerts grouped by commit (the first run at the new level): relevant ones first, newest
/// first, stale ones (no recent run of any member series) after the others.
///
/// Relevance (rustc-perf's triage rule, with asv's factor): a commit is **relevant** when one
/// of its series changed by at least [`RELEVANT`] (10 %), or when at least [`COORDINATED`]
/// series moved the same way there (alerts, and `minor` changes: significant but under the
/// history floor), making up at least [`COORDINATED_SHARE`] of its changes: one benchmark
/// moving 5 % is worth a look on its series page; ten moving 3 % the same way at one commit is
/// a change of that commit. Other commits with alerts are listed after the relevant ones, not
/// relevant (each alert stays on its series' page, in `perfhouse alerts` and the feed);
/// commits with minor changes only and no such majority are not listed.
pub fn by_commit(alerts: &[Alert], series: &[Series]) -> Vec<CommitAlert> {
    let key = |c: &Option<String>, run: &str| c.clone().unwrap_or_else(|| run.to_string());
    let mut groups: BTreeMap<String, CommitAlert> = BTreeMap::new();
    let blank = |git_commit: Option<String>, run_id: String| CommitAlert {
        git_commit,
        run_id,
        run_no: None,
        started_at: None,
        suites: Vec::new(),
        runs_ago: None,
        series: 0,
        regressions: 0,
        improvements: 0,
        geomean: 0.0,
        min: 0.0,
        max: 0.0,
        minor: Vec::new(),
        relevant: false,
        why: String::new(),
        open: false,
        stale: true,
        alerts: Vec::new(),
    };
    for a in alerts {
        let g = groups
            .entry(key(&a.git_commit, &a.run_id))
            .or_insert_with(|| blank(a.git_commit.clone(), a.run_id.clone()));
        g.alerts.push(a.clone());
    }
    let newest = newest_runs(series);
    let mut minor_runs: BTreeMap<String, (u64, String, String)> = BTreeMap::new();
    for s in series {
        for c in &s.minor {
            let k = key(&c.git_commit, &c.run_id);
            let started = s
                .points
                .iter()
                .find(|p| p.run_id == c.run_id)
                .map_or(String::new(), |p| p.started_at.clone());
            minor_runs
                .entry(k.clone())
                .or_insert((c.run_no, c.run_id.clone(), started));
            groups
                .entry(k)
                .or_insert_with(|| blank(c.git_commit.clone(), c.run_id.clone()))
                .minor
                .push(MinorChange {
                    suite: s.suite.clone(),
                    metric: s.metric.clone(),
                    arm: s.arm.clone(),
                    params: s.params.clone(),
                    magnitude: c.magnitude,
                    regression: c.regression,
                });
        }
    }
    let mut out: Vec<CommitAlert> = Vec::new();
    for (k, mut g) in groups {
        g.alerts.sort_by(|a, b| {
            (!a.regression)
                .cmp(&!b.regression)
                .then(b.magnitude.abs().total_cmp(&a.magnitude.abs()))
        });
        g.series = g.alerts.len();
        g.regressions = g.alerts.iter().filter(|a| a.regression).count();
        g.improvements = g.series - g.regressions;
        let mags: Vec<f64> = g.alerts.iter().map(|a| a.magnitude).collect();
        g.geomean = geomean(&mags);
        g.min = mags.iter().copied().fold(f64::INFINITY, f64::min);
        g.max = mags.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if mags.is_empty() {
            (g.min, g.max) = (0.0, 0.0);
        }
        g.open = g.alerts.iter().any(|a| is_open(&a.state));
        g.stale = g.alerts.iter().all(|a| a.stale);
        let mut suites: Vec<String> = g.alerts.iter().map(|a| a.suite.clone()).collect();
        suites.extend(g.minor.iter().map(|m| m.suite.clone()));
        suites.sort();
        suites.dedup();
        g.suites = suites;
        match g.alerts.iter().min_by_key(|a| a.run_no) {
            Some(first) => {
                g.run_id = first.run_id.clone();
                g.run_no = first.run_no;
                g.started_at = first.started_at.clone();
                g.runs_ago = first.runs_ago;
            }
            None => {
                if let Some((no, run, started)) = minor_runs.get(&k) {
                    g.run_id = run.clone();
                    g.run_no = Some(*no);
                    g.started_at = Some(started.clone());
                    g.runs_ago = g
                        .suites
                        .first()
                        .and_then(|s| newest.get(s))
                        .map(|t| t.saturating_sub(*no));
                }
                g.stale = false;
                g.open = true;
            }
        }
        // Relevance: every change here (alerts and minor ones) by direction.
        let ups = g.regressions + g.minor.iter().filter(|m| m.regression).count();
        let downs = g.improvements + g.minor.iter().filter(|m| !m.regression).count();
        let total = ups + downs;
        let (most, way) = if ups >= downs {
            (ups, "regressed")
        } else {
            (downs, "improved")
        };
        let coordinated = most >= COORDINATED && most as f64 >= COORDINATED_SHARE * total as f64;
        let largest = g
            .alerts
            .iter()
            .map(|a| a.magnitude.abs())
            .fold(0.0, f64::max);
        if g.series > 0 {
            g.relevant = largest >= RELEVANT || coordinated;
            g.why = if largest >= RELEVANT {
                format!(
                    "{} of {} series changed by ≥{:.0}%",
                    g.alerts
                        .iter()
                        .filter(|a| a.magnitude.abs() >= RELEVANT)
                        .count(),
                    g.series,
                    RELEVANT * 100.0
                )
            } else if coordinated {
                format!("{most} of {total} series {way} here: many changes one way at one commit")
            } else {
                format!(
                    "not relevant: {} series, each under {:.0}%, fewer than {COORDINATED} one way",
                    g.series,
                    RELEVANT * 100.0
                )
            };
            if coordinated && largest >= RELEVANT && !g.minor.is_empty() {
                g.why += &format!(
                    "; with {} smaller changes, {most} of {total} {way}",
                    g.minor.len()
                );
            }
        } else if coordinated {
            let m: Vec<f64> = g.minor.iter().map(|m| m.magnitude).collect();
            g.relevant = true;
            g.why = format!(
                "{most} of {total} series {way} here, each under the history floor (geometric mean {:+.1}%): many small changes one way at one commit",
                geomean(&m) * 100.0
            );
            g.geomean = geomean(&m);
            g.min = m.iter().copied().fold(f64::INFINITY, f64::min);
            g.max = m.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        } else {
            continue;
        }
        out.push(g);
    }
    // Newest first; stale ones (no recent run of any member series) after all others.
    out.sort_by(|a, b| {
        (!a.relevant, a.stale)
            .cmp(&(!b.relevant, b.stale))
            .then(b.started_at.cmp(&a.started_at))
            .then(b.run_no.cmp(&a.run_no))
            .then(a.run_id.cmp(&b.run_id))
    });
    out
}

/// Geometric mean of the ratios `1 + m`, minus 1 (0 when empty or a ratio is not positive).
pub fn geomean(magnitudes: &[f64]) -> f64 {
    if magnitudes.is_empty() || magnitudes.iter().any(|&m| m.is_nan() || m <= -1.0) {
        return 0.0;
    }
    let logs: f64 = magnitudes.iter().map(|m| (1.0 + m).ln()).sum();
    (logs / magnitudes.len() as f64).exp() - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alert(id: &str, commit: &str, run_no: u64, magnitude: f64, stale: bool) -> Alert {
        Alert {
            alert_id: id.into(),
            suite: "s".into(),
            metric: format!("m{id}"),
            unit: "ms".into(),
            arm: "default".into(),
            params: Params::new(),
            run_id: format!("run-{run_no}"),
            run_no: Some(run_no),
            started_at: Some(format!("2026-01-{run_no:02}T00:00:00Z")),
            git_commit: Some(commit.into()),
            magnitude,
            regression: magnitude > 0.0,
            state: "new".into(),
            note: String::new(),
            updated_at: String::new(),
            detected: true,
            runs_ago: Some(20 - run_no),
            stale,
        }
    }

    /// Three series at commit `aaa` (+10 %, +21 %, −5 %): one entry, 2 regressed and 1
    /// improved, geometric mean (1.10 · 1.21 · 0.95)^(1/3) − 1 = +8.135 %, range −5 … +21 %,
    /// relevant (one change ≥ 10 %), the +21 % first. A +50 % at `ccc` (newer) on a series with
    /// no recent run is stale: relevant, but after every fresh relevant entry. One +4 % at
    /// `bbb` is listed last, not relevant.
    #[test]
    fn alerts_group_by_commit_with_hand_computed_figures() {
        let list = [
            alert("1", "aaa", 10, 0.10, false),
            alert("2", "aaa", 10, 0.21, false),
            alert("3", "aaa", 10, -0.05, false),
            alert("4", "bbb", 15, 0.04, false),
            alert("5", "ccc", 18, 0.50, true),
        ];
        let c = by_commit(&list, &[]);
        let order: Vec<&str> = c.iter().map(|c| c.git_commit.as_deref().unwrap()).collect();
        // Relevant first (fresh before stale), then the rest; newest first within each.
        assert_eq!(order, ["aaa", "ccc", "bbb"]);
        let a = &c[0];
        assert_eq!((a.series, a.regressions, a.improvements), (3, 2, 1));
        assert!(
            (a.geomean - 0.081_352_329_740_714).abs() < 1e-12,
            "{}",
            a.geomean
        );
        assert_eq!((a.min, a.max), (-0.05, 0.21));
        assert_eq!(a.alerts[0].alert_id, "2");
        assert!(a.relevant && !a.stale && a.open);
        assert_eq!(a.runs_ago, Some(10));
        assert!(
            a.why.starts_with("2 of 3 series changed by ≥10%"),
            "{}",
            a.why
        );
        assert!(c[1].stale && c[1].relevant);
        assert!(!c[2].relevant, "{}", c[2].why);
        assert_eq!(geomean(&[]), 0.0);
        assert_eq!(geomean(&[-1.0]), 0.0, "no log of a ratio of 0");
    }

    /// Four series 3 % slower at one commit, one 2 % faster: each is a minor change, but 4 of 5
    /// one way (≥ 80 %) make the commit relevant; three would not.
    #[test]
    fn many_small_changes_one_way_make_a_commit_relevant() {
        use crate::query::history::{Change, Series};
        let series = |i: usize, magnitude: f64| Series {
            suite: "s".into(),
            metric: format!("m{i}"),
            unit: "ms".into(),
            better: crate::stats::verdict::Direction::LowerIsBetter,
            arm: "default".into(),
            params: Params::new(),
            points: Vec::new(),
            changes: Vec::new(),
            breaks: Vec::new(),
            suspected_breaks: Vec::new(),
            noise: None,
            unstable: Vec::new(),
            minor: vec![Change {
                run_id: "run-7".into(),
                run_no: 7,
                git_commit: Some("abc".into()),
                mean_before: 1.0,
                mean_after: 1.0 + magnitude,
                level_before: 1.0,
                level_after: 1.0 + magnitude,
                magnitude,
                p_value: 0.005,
                sigma: Some(0.005),
                threshold: 0.04,
                regression: magnitude > 0.0,
            }],
            levels: Vec::new(),
        };
        let five: Vec<Series> = [0.03, 0.03, 0.03, 0.03, -0.02]
            .iter()
            .enumerate()
            .map(|(i, &m)| series(i, m))
            .collect();
        let c = by_commit(&[], &five);
        assert_eq!(c.len(), 1);
        assert!(c[0].relevant, "{}", c[0].why);
        assert!(
            c[0].why.starts_with("4 of 5 series regressed"),
            "{}",
            c[0].why
        );
        assert_eq!(c[0].minor.len(), 5);
        assert!(by_commit(&[], &five[1..]).is_empty(), "3 of 4 one way");
    }
}
