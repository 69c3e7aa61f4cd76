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

pub use super::history::STALE_RUNS;
use super::history::{Series, worse};
pub use super::triage::{CONFIRM_BREAK, REJECT_BREAK, alert_id, break_alert_id};
use super::{Query, QueryError};
use crate::model::{Params, TriageState};
pub use crate::stats::geomean;

/// The id of a whole-run move's alert (`query::whole_run`): the suite and the run.
pub fn whole_run_alert_id(suite: &str, run_id: &str) -> String {
    alert_id(
        suite,
        "",
        "",
        &Params::new(),
        &format!("whole-run\u{1f}{run_id}"),
    )
}

/// What an alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// A change point `history` called.
    Change,
    /// A move of a series' newest runs beyond its noise, not a change point yet
    /// (`history::PendingChange`); its id is the one the change point will have.
    Pending,
    /// A suspected break (a jump of [`SUSPECTED_BREAK_FACTOR`]× or more where nothing records
    /// the benchmark's version): `magnitude` is the jump; triage confirms ([`CONFIRM_BREAK`])
    /// or rejects ([`REJECT_BREAK`]) it. Never part of a commit entry ([`by_commit`]).
    ///
    /// [`SUSPECTED_BREAK_FACTOR`]: super::history::SUSPECTED_BREAK_FACTOR
    SuspectedBreak,
    /// Most series of one run moved one way (`query::whole_run`): one finding about the run;
    /// `metric` is empty, `magnitude` the movers' geometric mean. Triage `accepted` confirms
    /// it as an environment change (each series starts a new segment at the run).
    WholeRun,
}

impl AlertKind {
    /// The kind in the text outputs' words, with the direction where it has one.
    pub fn label(self, regression: bool) -> &'static str {
        match (self, regression) {
            (AlertKind::Change, true) => "regression",
            (AlertKind::Change, false) => "improvement",
            (AlertKind::Pending, true) => "pending regression",
            (AlertKind::Pending, false) => "pending improvement",
            (AlertKind::SuspectedBreak, _) => "suspected break",
            (AlertKind::WholeRun, _) => "whole run",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Alert {
    pub alert_id: String,
    pub kind: AlertKind,
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
    /// How sure, in the one short form every output writes (× local σ, runs on each side,
    /// p; a pending change says what confirms it; a whole-run move what moved).
    pub evidence: String,
    pub state: TriageState,
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
    /// The whole-run move (its alert id) this series' move at this run is part of: the text
    /// outputs fold such pending alerts into that one finding.
    pub whole_run: Option<String>,
}

/// `2026-12-01T14:00:00Z` for a time in µs since the epoch.
fn rfc3339(at_us: i64) -> String {
    chrono::DateTime::from_timestamp_micros(at_us)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// An alert's run and what it found there, before its triage state is looked up.
struct Found<'a> {
    id: String,
    kind: AlertKind,
    point: &'a super::history::Point,
    magnitude: f64,
    regression: bool,
    evidence: String,
}

/// The alerts of `series` (as `history` found them: change points, pending changes,
/// suspected breaks), their whole-run moves, and every triaged one, open first (regressions
/// before improvements, then largest magnitude).
pub async fn alerts(q: &Query, series: &[Series]) -> Result<Vec<Alert>, QueryError> {
    let mut events = super::triage::latest_events(q).await?;
    let newest = newest_runs(series);
    let wholes = super::whole_run::find(series);
    let mut out = Vec::new();
    for s in series {
        let last = s.points.last().map_or(0, |p| p.run_no);
        let top = newest.get(&s.suite).copied().unwrap_or(last);
        for f in found_in(s) {
            let ev = events.remove(&f.id);
            out.push(Alert {
                alert_id: f.id,
                kind: f.kind,
                suite: s.suite.clone(),
                metric: s.metric.clone(),
                unit: s.unit.clone(),
                arm: s.arm.clone(),
                params: s.params.clone(),
                run_id: f.point.run_id.clone(),
                run_no: Some(f.point.run_no),
                started_at: Some(f.point.started_at.clone()),
                git_commit: f.point.git_commit.clone(),
                magnitude: f.magnitude,
                regression: f.regression,
                evidence: f.evidence,
                state: ev.as_ref().map_or(TriageState::New, |e| e.state),
                note: ev.as_ref().map_or(String::new(), |e| e.note.clone()),
                updated_at: ev.map_or(String::new(), |e| rfc3339(e.at_us)),
                detected: true,
                runs_ago: Some(top.saturating_sub(f.point.run_no)),
                stale: top.saturating_sub(last) >= STALE_RUNS,
                whole_run: whole_run_of(&wholes, s, &f.point.run_id),
            });
        }
    }
    for w in wholes.iter().filter(|w| super::whole_run::alerting(w)) {
        out.push(whole_run_alert(w, &newest, &mut events));
    }
    out.extend(triaged_only(events, series, &newest));
    out.sort_by(|a, b| {
        (!a.state.is_open(), !a.regression)
            .cmp(&(!b.state.is_open(), !b.regression))
            .then(b.magnitude.abs().total_cmp(&a.magnitude.abs()))
            .then(a.alert_id.cmp(&b.alert_id))
    });
    Ok(out)
}

/// What `history` found in one series that is an alert: its suspected breaks (rejected ones
/// too: their triage stays listed), change points and pending change.
fn found_in(s: &Series) -> Vec<Found<'_>> {
    let mut out = Vec::new();
    let mut jumps: Vec<usize> = s
        .suspected_breaks
        .iter()
        .chain(&s.rejected_breaks)
        .copied()
        .collect();
    jumps.sort_unstable();
    for i in jumps {
        let (before, p) = (&s.points[i - 1], &s.points[i]);
        let magnitude = p.value / before.value - 1.0;
        out.push(Found {
            id: break_alert_id(&s.suite, &s.metric, &s.arm, &s.params, &p.run_id),
            kind: AlertKind::SuspectedBreak,
            point: p,
            magnitude,
            regression: worse(s.better, magnitude),
            evidence: format!("×{:.3} between neighbouring runs", p.value / before.value),
        });
    }
    let point = |run_id: &str| s.points.iter().find(|p| p.run_id == run_id);
    for c in &s.changes {
        let Some(p) = point(&c.run_id) else { continue };
        out.push(Found {
            id: alert_id(&s.suite, &s.metric, &s.arm, &s.params, &c.run_id),
            kind: AlertKind::Change,
            point: p,
            magnitude: c.magnitude,
            regression: c.regression,
            evidence: c.evidence.text(),
        });
    }
    if let Some(pc) = &s.pending {
        out.push(Found {
            id: alert_id(&s.suite, &s.metric, &s.arm, &s.params, &pc.run_id),
            kind: AlertKind::Pending,
            point: &s.points[pc.start],
            magnitude: pc.magnitude,
            regression: pc.regression,
            evidence: format!(
                "{}; {} run{} so far, confirmed by {} more at the new level",
                pc.evidence.text(),
                pc.runs,
                if pc.runs == 1 { "" } else { "s" },
                pc.needs
            ),
        });
    }
    out
}

/// The id of the whole-run move at `run_id` that series `s` moved in, if any.
fn whole_run_of(wholes: &[super::whole_run::WholeRun], s: &Series, run_id: &str) -> Option<String> {
    wholes
        .iter()
        .filter(|w| super::whole_run::alerting(w) && w.run_id == run_id)
        .find(|w| w.moved(s))
        .map(|w| whole_run_alert_id(&w.suite, &w.run_id))
}

/// A whole-run move as an alert, with its triage state.
fn whole_run_alert(
    w: &super::whole_run::WholeRun,
    newest: &BTreeMap<String, u64>,
    events: &mut BTreeMap<String, crate::model::AlertEvent>,
) -> Alert {
    let id = whole_run_alert_id(&w.suite, &w.run_id);
    let ev = events.remove(&id);
    Alert {
        kind: AlertKind::WholeRun,
        suite: w.suite.clone(),
        metric: String::new(),
        unit: String::new(),
        arm: String::new(),
        params: Params::new(),
        run_id: w.run_id.clone(),
        run_no: Some(w.run_no),
        started_at: Some(w.started_at.clone()),
        git_commit: w.git_commit.clone(),
        magnitude: w.geomean,
        regression: w.regression,
        evidence: w.text(),
        state: ev.as_ref().map_or(TriageState::New, |e| e.state),
        note: ev.as_ref().map_or(String::new(), |e| e.note.clone()),
        updated_at: ev.map_or(String::new(), |e| rfc3339(e.at_us)),
        detected: true,
        runs_ago: newest.get(&w.suite).map(|t| t.saturating_sub(w.run_no)),
        stale: false,
        whole_run: Some(id.clone()),
        alert_id: id,
    }
}

/// Triaged alerts the detector no longer reports (accepted changes are breaks now; a pending
/// change that was dropped), listed with their last state.
fn triaged_only(
    events: BTreeMap<String, crate::model::AlertEvent>,
    series: &[Series],
    newest: &BTreeMap<String, u64>,
) -> Vec<Alert> {
    let mut run_nos: BTreeMap<&str, (u64, &str)> = BTreeMap::new();
    let mut last_seen: BTreeMap<(&str, &str, &str, &Params), u64> = BTreeMap::new();
    for s in series {
        for p in &s.points {
            run_nos.insert(&p.run_id, (p.run_no, &p.started_at));
        }
        let last = s.points.last().map_or(0, |p| p.run_no);
        last_seen.insert((&s.suite, &s.metric, &s.arm, &s.params), last);
    }
    let mut out = Vec::new();
    for (id, e) in events {
        let known = run_nos.get(e.run_id.as_str()).copied();
        let top = newest.get(&e.suite).copied();
        let last = last_seen
            .get(&(
                e.suite.as_str(),
                e.metric.as_str(),
                e.arm.as_str(),
                &e.params,
            ))
            .copied();
        let kind = if id == break_alert_id(&e.suite, &e.metric, &e.arm, &e.params, &e.run_id) {
            AlertKind::SuspectedBreak
        } else if id == whole_run_alert_id(&e.suite, &e.run_id) {
            AlertKind::WholeRun
        } else {
            AlertKind::Change
        };
        out.push(Alert {
            alert_id: id,
            kind,
            unit: series
                .iter()
                .find(|s| s.metric == e.metric)
                .map_or(String::new(), |s| s.unit.clone()),
            run_no: known.map(|k| k.0),
            started_at: known.map(|k| k.1.to_string()),
            runs_ago: top.zip(known).map(|(t, k)| t.saturating_sub(k.0)),
            stale: kind != AlertKind::WholeRun
                && top
                    .zip(last)
                    .is_none_or(|(t, l)| t.saturating_sub(l) >= STALE_RUNS),
            suite: e.suite,
            metric: e.metric,
            arm: e.arm,
            params: e.params,
            run_id: e.run_id,
            git_commit: e.git_commit,
            magnitude: e.magnitude,
            regression: e.regression,
            evidence: "no longer detected".to_string(),
            state: e.state,
            note: e.note,
            updated_at: rfc3339(e.at_us),
            detected: false,
            whole_run: None,
        });
    }
    out
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
    /// The first run at the new level.
    pub run_id: String,
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
    /// Many unrelated series moved one way here where nothing records the environment: a
    /// suspected environment change (a CI runner, a machine, a toolchain), not this commit's
    /// code ([`by_commit`]'s rule; `why` says so). True while suspected or confirmed.
    pub suspected_environment: bool,
    /// Whether this is an environment change, and what triage said of it.
    pub environment: EnvironmentChange,
    /// Members that are pending changes (moves of the newest runs, not change points yet).
    pub pending: usize,
    /// The whole-run move at this entry's run (`query::whole_run`), in words, and its alert.
    pub whole_run: Option<String>,
    pub whole_run_id: Option<String>,
    /// How sure, in the one short form: its worst member's evidence.
    pub evidence: String,
}

/// Fewest changes one way at one commit that make it relevant though each is small, and the
/// share of that commit's changes that must go that way.
pub const COORDINATED: usize = 4;
pub const COORDINATED_SHARE: f64 = 0.8;
/// A change this large (asv's own `compare` factor, 1.1) makes its commit relevant alone.
pub const RELEVANT: f64 = 0.10;

/// A suspected environment change: at least this many series moved the majority way at one
/// commit ([`COORDINATED`], the same [`COORDINATED_SHARE`] of its changes), in at least
/// [`ENVIRONMENT_GROUPS`] benchmark groups ([`benchmark_group`]), making up at least
/// [`ENVIRONMENT_SHARE`] of the series with a comparable run at that commit (a run there and
/// one before), where no run of them records an environment fingerprint.
pub const ENVIRONMENT_GROUPS: usize = 2;
pub const ENVIRONMENT_SHARE: f64 = 0.5;
/// Triage of a commit entry confirming its suspected environment change: every alert
/// accepted, so each series starts a new segment there (as a recorded fingerprint change
/// would). Any other triage of all its alerts rejects the suspicion.
pub const CONFIRM_ENVIRONMENT: TriageState = TriageState::Accepted;

/// Whether a commit entry is an environment change ([`by_commit`]'s rule: many unrelated series
/// moved one way where nothing records the environment), and what triage said of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnvironmentChange {
    /// The rule does not hold.
    #[default]
    None,
    /// Some of its alerts are not triaged yet.
    Suspected,
    /// Every alert triaged [`CONFIRM_ENVIRONMENT`]: the new level is each series' new baseline.
    Confirmed,
    /// Every alert triaged, not all accepted: a change of the code, or none.
    Rejected,
}

impl EnvironmentChange {
    /// The word the CSV and JSON outputs carry (empty where the rule does not hold).
    pub fn as_str(self) -> &'static str {
        match self {
            EnvironmentChange::None => "",
            EnvironmentChange::Suspected => "suspected",
            EnvironmentChange::Confirmed => "confirmed",
            EnvironmentChange::Rejected => "rejected",
        }
    }
}

impl Serialize for EnvironmentChange {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The benchmark group of a series: its suite and the first part of its metric's name (asv's
/// module, `benchmark_ocl` of `benchmark_ocl.TimeOmegaConfigLoader.time_loading_parameters`;
/// criterion's group, `Fibonacci` of `Fibonacci/Iterative/20`). Series of one group share
/// code; series of different groups moving together point at what they share: the machine.
pub fn benchmark_group(suite: &str, metric: &str) -> String {
    let first = metric
        .split(['.', '/', ':', ' '])
        .find(|p| !p.is_empty())
        .unwrap_or(metric);
    format!("{suite}\u{1f}{first}")
}

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
///
/// **Suspected environment change** (where a history records no environment: asv and
/// github-action-benchmark imports, any ingested tool output): when the commit's majority
/// way is [`COORDINATED`] series or more (the coordinated rule above), those series fall in
/// at least [`ENVIRONMENT_GROUPS`] benchmark groups ([`benchmark_group`]) and make up at least
/// [`ENVIRONMENT_SHARE`] of the series with a comparable run at that commit, and no run of them
/// (at the commit or the one before) records an environment fingerprint. A code change moves
/// the benchmarks that use that code; a new CI runner moves most of what runs, whatever it
/// tests. Where fingerprints are recorded a change of machine is a known break already, and
/// the same fingerprint on both sides rules the machine out. Triage of the entry
/// (`perfhouse triage commit:SHA STATE`) confirms it ([`CONFIRM_ENVIRONMENT`]: each series
/// starts a new segment there) or, with any other state on every alert, rejects it.
///
/// Pending changes are members like change points (counted in `pending`); a whole-run move
/// at the entry's run is said in `whole_run` and `why`. Suspected breaks are no part of any
/// entry: a changed benchmark is not a change of the code or the machine.
pub fn by_commit(alerts: &[Alert], series: &[Series]) -> Vec<CommitAlert> {
    let mut groups = group_alerts(alerts);
    let minor_runs = add_minor(&mut groups, series);
    let wholes: BTreeMap<String, &Alert> = alerts
        .iter()
        .filter(|a| a.kind == AlertKind::WholeRun)
        .map(|a| (entry_key(&a.git_commit, &a.run_id), a))
        .collect();
    let newest = newest_runs(series);
    let context = EnvironmentContext::new(series);
    let mut out: Vec<CommitAlert> = Vec::new();
    for (k, mut g) in groups {
        summarise(&mut g, minor_runs.get(&k), &newest);
        let Some(way) = relevance(&mut g) else {
            continue;
        };
        if way.coordinated {
            environment(&mut g, &k, way.up, &context);
        }
        add_pending_and_whole_run(&mut g, wholes.get(&k).copied());
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

/// A commit entry's key: its commit, or its run where the run has no commit.
fn entry_key(git_commit: &Option<String>, run_id: &str) -> String {
    git_commit.clone().unwrap_or_else(|| run_id.to_string())
}

impl CommitAlert {
    /// An entry with nothing in it yet (stale until a fresh member says otherwise).
    fn blank(git_commit: Option<String>, run_id: String) -> CommitAlert {
        CommitAlert {
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
            suspected_environment: false,
            environment: EnvironmentChange::None,
            pending: 0,
            whole_run: None,
            whole_run_id: None,
            evidence: String::new(),
        }
    }
}

/// The change points and pending changes of `alerts` in one entry per commit (suspected
/// breaks and whole-run moves are members of none).
fn group_alerts(alerts: &[Alert]) -> BTreeMap<String, CommitAlert> {
    let mut groups: BTreeMap<String, CommitAlert> = BTreeMap::new();
    for a in alerts
        .iter()
        .filter(|a| matches!(a.kind, AlertKind::Change | AlertKind::Pending))
    {
        groups
            .entry(entry_key(&a.git_commit, &a.run_id))
            .or_insert_with(|| CommitAlert::blank(a.git_commit.clone(), a.run_id.clone()))
            .alerts
            .push(a.clone());
    }
    groups
}

/// The first run of a commit seen among minor changes: its number, id and start.
struct MinorRun {
    run_no: u64,
    run_id: String,
    started_at: String,
}

/// Adds every series' minor changes to their commit's entry (making one where the commit has
/// no alert); returns each commit's first run among them.
fn add_minor(
    groups: &mut BTreeMap<String, CommitAlert>,
    series: &[Series],
) -> BTreeMap<String, MinorRun> {
    let mut minor_runs: BTreeMap<String, MinorRun> = BTreeMap::new();
    for s in series {
        for c in &s.minor {
            let k = entry_key(&c.git_commit, &c.run_id);
            let started_at = s
                .points
                .iter()
                .find(|p| p.run_id == c.run_id)
                .map_or(String::new(), |p| p.started_at.clone());
            minor_runs.entry(k.clone()).or_insert(MinorRun {
                run_no: c.run_no,
                run_id: c.run_id.clone(),
                started_at,
            });
            groups
                .entry(k)
                .or_insert_with(|| CommitAlert::blank(c.git_commit.clone(), c.run_id.clone()))
                .minor
                .push(MinorChange {
                    run_id: c.run_id.clone(),
                    suite: s.suite.clone(),
                    metric: s.metric.clone(),
                    arm: s.arm.clone(),
                    params: s.params.clone(),
                    magnitude: c.magnitude,
                    regression: c.regression,
                });
        }
    }
    minor_runs
}

/// An entry's figures from its members: order, counts, geometric mean and range, open,
/// stale, suites and its first run (from the minor changes where it has no alert).
fn summarise(g: &mut CommitAlert, minor_run: Option<&MinorRun>, newest: &BTreeMap<String, u64>) {
    g.alerts.sort_by(|a, b| {
        (!a.regression)
            .cmp(&!b.regression)
            .then(b.magnitude.abs().total_cmp(&a.magnitude.abs()))
    });
    g.series = g.alerts.len();
    g.regressions = g.alerts.iter().filter(|a| a.regression).count();
    g.improvements = g.series - g.regressions;
    let mags: Vec<f64> = g.alerts.iter().map(|a| a.magnitude).collect();
    set_range(g, &mags);
    g.open = g.alerts.iter().any(|a| a.state.is_open());
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
            if let Some(m) = minor_run {
                g.run_id = m.run_id.clone();
                g.run_no = Some(m.run_no);
                g.started_at = Some(m.started_at.clone());
                g.runs_ago = g
                    .suites
                    .first()
                    .and_then(|s| newest.get(s))
                    .map(|t| t.saturating_sub(m.run_no));
            }
            g.stale = false;
            g.open = true;
        }
    }
}

/// `g`'s geometric mean and range of `magnitudes` (0 … 0 when there are none).
fn set_range(g: &mut CommitAlert, magnitudes: &[f64]) {
    g.geomean = geomean(magnitudes);
    g.min = magnitudes.iter().copied().fold(f64::INFINITY, f64::min);
    g.max = magnitudes.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if magnitudes.is_empty() {
        (g.min, g.max) = (0.0, 0.0);
    }
}

/// Which way an entry's changes went: `up` (regressed) when at least as many did, and whether
/// the majority way is [`COORDINATED`].
struct Way {
    up: bool,
    coordinated: bool,
}

/// [`by_commit`]'s relevance rule over every change of `g` (alerts and minor ones): sets
/// `relevant` and `why`; `None` where the entry is not listed (minor changes only, no
/// coordinated majority).
fn relevance(g: &mut CommitAlert) -> Option<Way> {
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
        set_range(g, &m);
    } else {
        return None;
    }
    Some(Way {
        up: ups >= downs,
        coordinated,
    })
}

/// Counts `g`'s pending members and adds the whole-run move at its run, both into `why`; its
/// evidence is the whole-run move's words, else its worst member's.
fn add_pending_and_whole_run(g: &mut CommitAlert, whole: Option<&Alert>) {
    g.pending = g
        .alerts
        .iter()
        .filter(|a| a.kind == AlertKind::Pending)
        .count();
    if g.pending > 0 {
        g.why += &format!(
            "; {} of its {} series pending (moved in the newest run(s) only)",
            g.pending, g.series
        );
    }
    if let Some(w) = whole {
        g.why += &format!("; {}", w.evidence);
        g.whole_run = Some(w.evidence.clone());
        g.whole_run_id = Some(w.alert_id.clone());
    }
    g.evidence = match &g.whole_run {
        Some(w) => w.clone(),
        None => g
            .alerts
            .first()
            .map_or(String::new(), |a| a.evidence.clone()),
    };
}

/// What the environment rule reads of the series: each series by key, and per commit (or run,
/// where a run has no commit) how many series have a comparable run there.
struct EnvironmentContext<'a> {
    by_key: BTreeMap<(&'a str, &'a str, &'a str, &'a Params), &'a Series>,
    measured: BTreeMap<String, usize>,
}

impl<'a> EnvironmentContext<'a> {
    fn new(series: &'a [Series]) -> EnvironmentContext<'a> {
        let mut by_key = BTreeMap::new();
        let mut measured: BTreeMap<String, usize> = BTreeMap::new();
        for s in series {
            by_key.insert(
                (
                    s.suite.as_str(),
                    s.metric.as_str(),
                    s.arm.as_str(),
                    &s.params,
                ),
                s,
            );
            let mut keys: Vec<String> = s
                .points
                .iter()
                .skip(1)
                .map(|p| p.git_commit.clone().unwrap_or_else(|| p.run_id.clone()))
                .collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                *measured.entry(k).or_default() += 1;
            }
        }
        EnvironmentContext { by_key, measured }
    }

    /// Whether a run of the series at `run_id`, or the one before it, records an environment
    /// fingerprint (an unknown series or run records none).
    fn recorded(
        &self,
        suite: &str,
        metric: &str,
        arm: &str,
        params: &Params,
        run_id: &str,
    ) -> bool {
        let Some(s) = self.by_key.get(&(suite, metric, arm, params)) else {
            return false;
        };
        let Some(i) = s.points.iter().position(|p| p.run_id == run_id) else {
            return false;
        };
        s.points[i.saturating_sub(1)..=i]
            .iter()
            .any(|p| p.env_fingerprint.is_some())
    }
}

/// Marks `g` (a coordinated entry, its majority way `up`: regressed) as a suspected
/// environment change where [`by_commit`]'s rule holds, with its triage.
fn environment(g: &mut CommitAlert, key: &str, up: bool, cx: &EnvironmentContext) {
    // (suite, metric, arm, params, run) of the series that moved the majority way.
    let mut movers: Vec<(&str, &str, &str, &Params, &str)> = g
        .alerts
        .iter()
        .filter(|a| a.regression == up)
        .map(|a| {
            (
                a.suite.as_str(),
                a.metric.as_str(),
                a.arm.as_str(),
                &a.params,
                a.run_id.as_str(),
            )
        })
        .collect();
    movers.extend(g.minor.iter().filter(|m| m.regression == up).map(|m| {
        (
            m.suite.as_str(),
            m.metric.as_str(),
            m.arm.as_str(),
            &m.params,
            m.run_id.as_str(),
        )
    }));
    let mut groups: Vec<String> = movers.iter().map(|m| benchmark_group(m.0, m.1)).collect();
    groups.sort();
    groups.dedup();
    // A series' alert and its minor change are never both at one commit; the max guards the
    // share where accepted alerts made their run a break.
    let measured = cx.measured.get(key).copied().unwrap_or(0).max(movers.len());
    let share = movers.len() as f64 / measured as f64;
    let recorded = movers.iter().any(|m| cx.recorded(m.0, m.1, m.2, m.3, m.4));
    if movers.len() < COORDINATED
        || groups.len() < ENVIRONMENT_GROUPS
        || share < ENVIRONMENT_SHARE
        || recorded
    {
        return;
    }
    let triaged: Vec<TriageState> = g
        .alerts
        .iter()
        .map(|a| a.state)
        .filter(|s| *s != TriageState::New)
        .collect();
    let all_triaged = !g.alerts.is_empty() && triaged.len() == g.alerts.len();
    g.environment = if !all_triaged {
        EnvironmentChange::Suspected
    } else if triaged.iter().all(|s| *s == CONFIRM_ENVIRONMENT) {
        EnvironmentChange::Confirmed
    } else {
        EnvironmentChange::Rejected
    };
    g.suspected_environment = g.environment != EnvironmentChange::Rejected;
    let what = format!(
        "{} of the {measured} series run here {} together, in {} benchmark groups, and no run records its environment",
        movers.len(),
        if up { "regressed" } else { "improved" },
        groups.len()
    );
    g.why += &match g.environment {
        EnvironmentChange::Suspected => format!(
            "; suspected environment change: {what} (confirm with `perfhouse triage commit:… {CONFIRM_ENVIRONMENT}`, reject with another state)"
        ),
        EnvironmentChange::Confirmed => {
            format!("; environment change, confirmed in triage: {what}")
        }
        _ => format!("; not an environment change (rejected in triage), though {what}"),
    };
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
            state: TriageState::New,
            note: String::new(),
            updated_at: String::new(),
            detected: true,
            runs_ago: Some(20 - run_no),
            stale,
            kind: AlertKind::Change,
            evidence: String::new(),
            whole_run: None,
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
                evidence: crate::stats::changepoint::Evidence::new(
                    magnitude,
                    Some(0.005),
                    6,
                    3,
                    Some(0.005),
                ),
            }],
            ..ms_series("s", &format!("m{i}"))
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

    /// A series of three runs at commits `c1`, `c2`, `c3` (values 1, 1, 1.12), with or without
    /// an environment fingerprint.
    fn env_series(suite: &str, metric: &str, fingerprint: Option<&str>) -> Series {
        use crate::query::history::Point;
        let points = (1..=3)
            .map(|i| Point {
                run_id: format!("{suite}-r{i}"),
                run_no: i,
                started_at: format!("2026-01-0{i}T00:00:00Z"),
                git_commit: Some(format!("c{i}")),
                value: if i == 3 { 1.12 } else { 1.0 },
                version: None,
                env_fingerprint: fingerprint.map(String::from),
                lo: None,
                hi: None,
            })
            .collect();
        Series {
            points,
            ..ms_series(suite, metric)
        }
    }

    /// An empty lower-is-better series in ms of the default arm.
    fn ms_series(suite: &str, metric: &str) -> crate::query::history::Series {
        crate::query::history::Series::new(
            suite.into(),
            metric.into(),
            "ms".into(),
            crate::stats::verdict::Direction::LowerIsBetter,
            "default".into(),
            Params::new(),
        )
    }

    /// The alert of `s`'s change at `c3` (+12 %), in `state`.
    fn env_alert(s: &Series, state: TriageState) -> Alert {
        Alert {
            alert_id: format!("{}-{}", s.suite, s.metric),
            suite: s.suite.clone(),
            metric: s.metric.clone(),
            unit: "ms".into(),
            arm: "default".into(),
            params: Params::new(),
            run_id: format!("{}-r3", s.suite),
            run_no: Some(3),
            started_at: Some("2026-01-03T00:00:00Z".into()),
            git_commit: Some("c3".into()),
            magnitude: 0.12,
            regression: true,
            state,
            note: String::new(),
            updated_at: String::new(),
            detected: true,
            runs_ago: Some(0),
            stale: false,
            kind: AlertKind::Change,
            evidence: String::new(),
            whole_run: None,
        }
    }

    /// Four series of two suites (gab.Rust: bench_a, bench_b; gab.Go: BenchA, BenchB) +12 % at
    /// `c3`, a fifth (gab.Go BenchC) run there unchanged: 4 of the 5 series run at `c3` (80 %
    /// ≥ 50 %) regressed, in 4 benchmark groups, no fingerprint: a suspected environment
    /// change. With a fingerprint recorded, in one group, or 4 of 9 series run (44 % < 50 %),
    /// it is not. Triage: all accepted confirms it, all acknowledged rejects it, one left
    /// `new` keeps it suspected.
    #[test]
    fn many_unrelated_series_one_way_where_nothing_records_the_machine_suspect_it() {
        let movers = [
            ("gab.Rust", "bench_a"),
            ("gab.Rust", "bench_b"),
            ("gab.Go", "BenchA"),
            ("gab.Go", "BenchB"),
        ];
        let mut series: Vec<Series> = movers.iter().map(|(s, m)| env_series(s, m, None)).collect();
        series.push(env_series("gab.Go", "BenchC", None));
        let alerts = |series: &[Series], state: TriageState| -> Vec<Alert> {
            series[..4].iter().map(|s| env_alert(s, state)).collect()
        };
        let c = by_commit(&alerts(&series, TriageState::New), &series);
        assert_eq!(c.len(), 1);
        assert!(c[0].suspected_environment && c[0].relevant, "{}", c[0].why);
        assert_eq!(c[0].environment, EnvironmentChange::Suspected);
        assert!(
            c[0].why.contains(
                "suspected environment change: 4 of the 5 series run here regressed together, in 4 benchmark groups"
            ),
            "{}",
            c[0].why
        );
        // Triage of the whole entry.
        let c = by_commit(&alerts(&series, TriageState::Accepted), &series);
        assert_eq!(
            (c[0].environment.as_str(), c[0].suspected_environment),
            ("confirmed", true)
        );
        let c = by_commit(&alerts(&series, TriageState::Acknowledged), &series);
        assert_eq!(
            (c[0].environment.as_str(), c[0].suspected_environment),
            ("rejected", false)
        );
        assert!(c[0].why.contains("rejected in triage"), "{}", c[0].why);
        let mut mixed = alerts(&series, TriageState::Accepted);
        mixed[2].state = TriageState::New;
        assert_eq!(
            by_commit(&mixed, &series)[0].environment,
            EnvironmentChange::Suspected
        );
        // A fingerprint recorded on the runs rules the machine out.
        let known: Vec<Series> = series
            .iter()
            .map(|s| env_series(&s.suite, &s.metric, Some("m1")))
            .collect();
        let c = by_commit(&alerts(&known, TriageState::New), &known);
        assert!(
            !c[0].suspected_environment && c[0].environment == EnvironmentChange::None,
            "{:?}",
            c[0].environment
        );
        assert!(!c[0].why.contains("environment"), "{}", c[0].why);
        // One benchmark group (asv's module `mod`): a change of the code they share.
        let one: Vec<Series> = ["mod.A.a", "mod.A.b", "mod.B.c", "mod.B.d", "mod.C.e"]
            .iter()
            .map(|m| env_series("kedro", m, None))
            .collect();
        assert_eq!(
            benchmark_group("kedro", "mod.A.a"),
            benchmark_group("kedro", "mod.B.c")
        );
        assert_ne!(
            benchmark_group("gab.Go", "BenchA"),
            benchmark_group("gab.Go", "BenchB")
        );
        let c = by_commit(&alerts(&one, TriageState::New), &one);
        assert!(!c[0].suspected_environment, "{}", c[0].why);
        // Four of nine series run at c3: too few of what ran.
        let mut wide = series.clone();
        wide.extend((0..4).map(|i| env_series("gab.C", &format!("other{i}"), None)));
        let c = by_commit(&alerts(&wide, TriageState::New), &wide);
        assert!(!c[0].suspected_environment, "{}", c[0].why);
        // Three movers are not "many".
        let c = by_commit(&alerts(&series, TriageState::New)[..3], &series);
        assert!(!c[0].suspected_environment, "{}", c[0].why);
    }
}
