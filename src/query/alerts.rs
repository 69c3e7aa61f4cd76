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
use crate::model::{AlertEvent, Params};

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
}

/// `2026-12-01T14:00:00Z` for a time in µs since the epoch.
fn rfc3339(at_us: i64) -> String {
    chrono::DateTime::from_timestamp_micros(at_us)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// The newest event per alert, in event order.
pub async fn latest_events(q: &Query) -> Result<BTreeMap<String, AlertEvent>, QueryError> {
    let rows: Vec<AlertEvent> = q
        .rows(
            "SELECT alert_id, suite, run_id, metric, arm, params, git_commit, magnitude, regression, state, note, CAST(at AS BIGINT) AS at_us \
             FROM alerts ORDER BY at, alert_id",
        )
        .await?;
    Ok(rows.into_iter().map(|r| (r.alert_id.clone(), r)).collect())
}

/// The alerts of `series` (as `history` found them) and every triaged one, open first
/// (regressions before improvements, then largest magnitude).
pub async fn alerts(q: &Query, series: &[Series]) -> Result<Vec<Alert>, QueryError> {
    let mut events = latest_events(q).await?;
    let mut out = Vec::new();
    let mut run_nos: BTreeMap<String, (u64, String)> = BTreeMap::new();
    for s in series {
        for p in &s.points {
            run_nos.insert(p.run_id.clone(), (p.run_no, p.started_at.clone()));
        }
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
            });
        }
    }
    // Triaged alerts the detector no longer reports (accepted ones are breaks now).
    for (id, e) in events {
        let known = run_nos.get(&e.run_id).cloned();
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
            started_at: known.map(|k| k.1),
            git_commit: e.git_commit,
            magnitude: e.magnitude,
            regression: e.regression,
            state: e.state,
            note: e.note,
            updated_at: rfc3339(e.at_us),
            detected: false,
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

/// The (suite, metric, arm, params) → run ids of accepted alerts: where a series' new
/// baseline starts.
pub async fn accepted(
    q: &Query,
) -> Result<BTreeMap<(String, String, String, Params), Vec<String>>, QueryError> {
    let mut out: BTreeMap<_, Vec<String>> = BTreeMap::new();
    for e in latest_events(q).await?.into_values() {
        if e.state == "accepted" {
            out.entry((e.suite, e.metric, e.arm, e.params))
                .or_default()
                .push(e.run_id);
        }
    }
    Ok(out)
}
