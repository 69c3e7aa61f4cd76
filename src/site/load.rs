//! Every query the site issues over the whole warehouse up front, and the row types the
//! views give back.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::query::Query;
use crate::site::SiteError;

// ---- rows read from the views -------------------------------------------------------------

#[derive(Debug, Deserialize)]
pub(crate) struct RunRow {
    pub(crate) run_id: String,
    pub(crate) suite: String,
    pub(crate) run_no: u64,
    pub(crate) started_at: String,
    pub(crate) finished_at: String,
    pub(crate) source: String,
    pub(crate) status: String,
    pub(crate) git_commit: Option<String>,
    pub(crate) git_branch: Option<String>,
    pub(crate) host: Option<String>,
    pub(crate) env_fingerprint: Option<String>,
    pub(crate) labels: String,
    pub(crate) n_trials: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct TrialRow {
    pub(crate) trial_id: i64,
    pub(crate) seq: i64,
    pub(crate) arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub(crate) params: crate::model::Params,
    pub(crate) repeat: i64,
    pub(crate) status: String,
    pub(crate) discarded: bool,
    pub(crate) discard_reason: Option<String>,
    pub(crate) requests: Option<i64>,
    pub(crate) completed: Option<i64>,
    pub(crate) errors: Option<i64>,
    pub(crate) cancelled: Option<i64>,
    pub(crate) throughput_rps: Option<f64>,
    pub(crate) latency_p50_ms: Option<f64>,
    pub(crate) latency_p99_ms: Option<f64>,
    pub(crate) ttft_p50_ms: Option<f64>,
    pub(crate) littles_law_ratio: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct MedianRow {
    pub(crate) arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub(crate) params: crate::model::Params,
    pub(crate) n_trials: i64,
    /// The registry's figures (`query::figures`), by column name.
    #[serde(flatten)]
    pub(crate) figures: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct MetricMedianRow {
    pub(crate) arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub(crate) params: crate::model::Params,
    pub(crate) name: String,
    pub(crate) unit: String,
    pub(crate) better: crate::stats::verdict::Direction,
    pub(crate) n_trials: i64,
    pub(crate) median: f64,
    pub(crate) min: f64,
    pub(crate) max: f64,
    pub(crate) restates_requests: bool,
}

#[derive(Debug, Deserialize)]
pub(crate) struct NoteRow {
    pub(crate) run_id: String,
    pub(crate) at: String,
    pub(crate) text: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct LatencyRow {
    pub(crate) arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub(crate) params: crate::model::Params,
    pub(crate) latency_ns: i64,
}

/// What every run page needs, read in a few queries for the whole warehouse instead of a
/// dozen per run (a 1,000-run asv history would otherwise cost ~10,000 queries).
pub(crate) struct Prefetch {
    pub(crate) medians: BTreeMap<String, Vec<MedianRow>>,
    pub(crate) metric_medians: BTreeMap<String, Vec<MetricMedianRow>>,
    pub(crate) trials: BTreeMap<String, Vec<TrialRow>>,
    /// Arms of each run in order of first execution.
    pub(crate) arms: BTreeMap<String, Vec<String>>,
    pub(crate) with_requests: std::collections::HashSet<String>,
    pub(crate) with_cpu: std::collections::HashSet<String>,
    pub(crate) with_stacks: std::collections::HashSet<String>,
}

#[derive(Deserialize)]
pub(crate) struct Keyed<T> {
    pub(crate) run_id: String,
    #[serde(flatten)]
    pub(crate) row: T,
}

#[derive(Deserialize)]
pub(crate) struct RunArm {
    pub(crate) run_id: String,
    pub(crate) arm: String,
}

#[derive(Deserialize)]
pub(crate) struct RunOnly {
    pub(crate) run_id: String,
}

pub(crate) async fn grouped<T: serde::de::DeserializeOwned>(
    query: &Query,
    sql: &str,
) -> Result<BTreeMap<String, Vec<T>>, SiteError> {
    let rows: Vec<Keyed<T>> = query.rows(sql).await?;
    let mut out: BTreeMap<String, Vec<T>> = BTreeMap::new();
    for k in rows {
        out.entry(k.run_id).or_default().push(k.row);
    }
    Ok(out)
}

pub(crate) async fn ids(
    query: &Query,
    sql: &str,
) -> Result<std::collections::HashSet<String>, SiteError> {
    let rows: Vec<RunOnly> = query.rows(sql).await?;
    Ok(rows.into_iter().map(|r| r.run_id).collect())
}

/// Arms of each run in order of first execution.
pub(crate) async fn run_arms(query: &Query) -> Result<BTreeMap<String, Vec<String>>, SiteError> {
    let arm_rows: Vec<RunArm> = query
        .rows("SELECT run_id, arm FROM trials GROUP BY run_id, arm ORDER BY run_id, min(seq), arm")
        .await?;
    let mut arms: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for a in arm_rows {
        arms.entry(a.run_id).or_default().push(a.arm);
    }
    Ok(arms)
}

impl Prefetch {
    /// Reads what the pages of the runs `only` need (every run's where `None`).
    pub(crate) async fn load(
        query: &Query,
        arms: BTreeMap<String, Vec<String>>,
        only: Option<&[&str]>,
    ) -> Result<Prefetch, SiteError> {
        let filter = match only {
            None => String::new(),
            Some([]) => " WHERE false".to_string(),
            Some(ids) => {
                let list: Vec<String> = ids.iter().map(|id| crate::query::lit(id)).collect();
                format!(" WHERE run_id IN ({})", list.join(", "))
            }
        };
        let f = filter.as_str();
        Ok(Prefetch {
            medians: grouped(
                query,
                &format!("SELECT * FROM arm_medians{f} ORDER BY run_id, params, arm"),
            )
            .await?,
            metric_medians: grouped(
                query,
                &format!("SELECT * FROM metric_medians{f} ORDER BY run_id, name, params, arm"),
            )
            .await?,
            trials: grouped(
                query,
                &format!("SELECT * FROM trial_figures{f} ORDER BY run_id, seq, trial_id"),
            )
            .await?,
            arms,
            with_requests: ids(query, &format!("SELECT DISTINCT run_id FROM requests{f}")).await?,
            with_cpu: ids(
                query,
                &format!("SELECT DISTINCT run_id FROM cpu_samples{f}"),
            )
            .await?,
            with_stacks: ids(query, &format!("SELECT DISTINCT run_id FROM stacks{f}")).await?,
        })
    }
}
