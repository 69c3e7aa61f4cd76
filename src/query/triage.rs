//! The triage ledger (the `alerts` table of events, newest per alert wins): read by `history`
//! (an accepted alert starts a new baseline) and by `alerts` (each alert's state), so it sits
//! below both.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::{Query, QueryError};
use crate::model::{AlertEvent, Params, TriageState};

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

/// The (suite, metric, arm, params) → run ids of accepted alerts: where a series' new
/// baseline starts.
pub async fn accepted(
    q: &Query,
) -> Result<BTreeMap<(String, String, String, Params), Vec<String>>, QueryError> {
    Ok(accepted_of(&latest_events(q).await?))
}

/// [`accepted`] from events already read.
pub fn accepted_of(
    events: &BTreeMap<String, AlertEvent>,
) -> BTreeMap<(String, String, String, Params), Vec<String>> {
    let mut out: BTreeMap<_, Vec<String>> = BTreeMap::new();
    for e in events.values() {
        if e.state == TriageState::Accepted {
            out.entry((
                e.suite.clone(),
                e.metric.clone(),
                e.arm.clone(),
                e.params.clone(),
            ))
            .or_default()
            .push(e.run_id.clone());
        }
    }
    out
}

/// The alert id: 12 hex digits of SHA-256 over the series and the run.
pub fn alert_id(suite: &str, metric: &str, arm: &str, params: &Params, run_id: &str) -> String {
    let key = format!(
        "{suite}\u{1f}{metric}\u{1f}{arm}\u{1f}{}\u{1f}{run_id}",
        crate::model::params_json(params)
    );
    hex::encode(Sha256::digest(key.as_bytes()))[..12].to_string()
}

/// The id of a suspected break's alert (`history::suspected_breaks`): the series and the run,
/// kept apart from the id of a change at that run, so that a rejected break's change is an
/// alert of its own.
pub fn break_alert_id(
    suite: &str,
    metric: &str,
    arm: &str,
    params: &Params,
    run_id: &str,
) -> String {
    alert_id(
        suite,
        metric,
        arm,
        params,
        &format!("suspected-break\u{1f}{run_id}"),
    )
}

/// Triage of a suspected break (its alert, or its commit entry): `accepted` confirms it (the
/// series keeps its new segment there, as for an accepted change), `invalid` rejects it (not
/// a changed benchmark: the runs on both sides are one segment again and the jump is judged as
/// an ordinary change, an alert of its own). Any other state leaves it suspected (split).
pub const CONFIRM_BREAK: TriageState = TriageState::Accepted;
pub const REJECT_BREAK: TriageState = TriageState::Invalid;

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored state that is none of the five (a hand-edited or foreign warehouse) fails the
    /// read with the word in the message, instead of reading as some state.
    #[tokio::test]
    async fn a_bad_stored_state_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let wh = crate::warehouse::Warehouse::open(dir.path()).unwrap();
        let q = Query::open(&wh).await.unwrap();
        let row = |state: &str| {
            format!(
                "CREATE OR REPLACE VIEW alerts AS SELECT 'a1' AS alert_id, 's' AS suite, 'r1' AS run_id, \
                 'm' AS metric, 'default' AS arm, '{{}}' AS params, CAST(NULL AS VARCHAR) AS git_commit, \
                 0.25 AS magnitude, true AS regression, '{state}' AS state, '' AS note, \
                 CAST(0 AS TIMESTAMP) AS at"
            )
        };
        q.context().sql(&row("fixed")).await.unwrap();
        let good = latest_events(&q).await.unwrap();
        assert_eq!(good["a1"].state, TriageState::Fixed);
        q.context().sql(&row("wontfix")).await.unwrap();
        let err = latest_events(&q).await.unwrap_err().to_string();
        assert!(
            err.contains(
                "triage state \"wontfix\" is not one of new, acknowledged, invalid, fixed, accepted"
            ),
            "{err}"
        );
    }
}
