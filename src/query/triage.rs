//! The triage ledger (the `alerts` table of events, newest per alert wins): read by `history`
//! (an accepted alert starts a new baseline) and by `alerts` (each alert's state), so it sits
//! below both.

use std::collections::BTreeMap;

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
