//! What a comparison and the A/A noise model both read: a selection of runs and arms (`RUN`,
//! `latest`, `SUITE#N`, `SUITE/ARM`, `git:COMMIT`, `@ARM`) and the per-metric samples of its
//! kept trials. Below both `compare` and `noise`, so neither needs the other's internals.

use super::figures::FIGURES;
use super::{Query, QueryError, lit};
use crate::stats::verdict::Direction;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error("selection {sel:?}: {why}")]
    Selection { sel: String, why: String },
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct RunInfo {
    pub run_id: String,
    pub suite: String,
    pub run_no: u64,
    pub started_at: String,
    pub git_commit: Option<String>,
    pub env_fingerprint: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Selection {
    pub run: RunInfo,
    pub arm: Option<String>,
    pub label: String,
}

pub async fn resolve(q: &Query, sel: &str) -> Result<Selection, CompareError> {
    let err = |why: &str| CompareError::Selection {
        sel: sel.to_string(),
        why: why.to_string(),
    };
    let (body, mut arm) = match sel.rsplit_once('@') {
        Some((b, a)) if !a.is_empty() => (b, Some(a.to_string())),
        _ => (sel, None),
    };
    let cols = "run_id, suite, run_no, started_at, git_commit, env_fingerprint";
    let newest = "ORDER BY started_at DESC, run_id DESC LIMIT 1";
    let sql = if body == "latest" {
        format!("SELECT {cols} FROM runs {newest}")
    } else if let Some(commit) = body.strip_prefix("git:") {
        format!(
            "SELECT {cols} FROM runs WHERE starts_with(git_commit, {}) {newest}",
            lit(commit)
        )
    } else if let Some((suite, n)) = body.rsplit_once('#') {
        let n: u64 = n
            .parse()
            .map_err(|_| err("expected <suite>#<run number>"))?;
        format!(
            "SELECT {cols} FROM runs WHERE suite = {} AND run_no = {n}",
            lit(suite)
        )
    } else if let Some((suite, a)) = body.rsplit_once('/') {
        arm = Some(a.to_string());
        format!(
            "SELECT {cols} FROM runs WHERE suite = {} AND run_id IN \
             (SELECT run_id FROM trials WHERE arm = {}) {newest}",
            lit(suite),
            lit(a)
        )
    } else {
        format!(
            "SELECT {cols} FROM runs WHERE starts_with(run_id, {}) ORDER BY run_id LIMIT 2",
            lit(body)
        )
    };
    let mut runs: Vec<RunInfo> = q.rows(&sql).await?;
    match runs.len() {
        0 => {
            return Err(err(
                "matches no run (see `perfhouse query \"select suite, run_no, run_id from runs\"`)",
            ));
        }
        1 => {}
        _ => return Err(err("matches more than one run; give more of the run id")),
    }
    let run = runs.remove(0);
    if let Some(a) = &arm {
        let n: Vec<serde_json::Value> = q
            .rows(&format!(
                "SELECT 1 AS x FROM trials WHERE run_id = {} AND arm = {} LIMIT 1",
                lit(&run.run_id),
                lit(a)
            ))
            .await?;
        if n.is_empty() {
            return Err(err(&format!("run {} has no arm {a:?}", run.run_id)));
        }
    }
    let label = format!(
        "{} #{}{}",
        run.suite,
        run.run_no,
        arm.as_ref().map(|a| format!(" @{a}")).unwrap_or_default()
    );
    Ok(Selection { run, arm, label })
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct TrialFigures {
    pub(crate) trial_id: i64,
    pub(crate) arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub(crate) params: crate::model::Params,
    pub(crate) repeat: i64,
    pub(crate) discarded: bool,
    pub(crate) status: crate::model::TrialStatus,
    pub(crate) phase: crate::model::Phase,
    /// `trials.kept`: counts in medians (measured, not discarded, successful).
    pub(crate) kept: bool,
    pub(crate) concurrency: Option<i64>,
    /// Every other column of `trial_figures`: the registry's figures among them.
    #[serde(flatten)]
    pub(crate) columns: BTreeMap<String, serde_json::Value>,
}

impl TrialFigures {
    /// The trial's value of a figure of the registry (`figures::FIGURES`).
    pub(crate) fn fig(&self, name: &str) -> Option<f64> {
        self.columns.get(name).and_then(serde_json::Value::as_f64)
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct ProcessCpu {
    pub(crate) trial_id: i64,
    pub(crate) process: String,
    pub(crate) cpu_ms_per_req: Option<f64>,
}

pub(crate) fn better_from_sql<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<crate::model::Better, D::Error> {
    let s: String = Deserialize::deserialize(d)?;
    Ok(crate::model::Better::from_name(&s))
}

#[derive(Debug, Deserialize)]
pub(crate) struct TrialMetric {
    pub(crate) trial_id: i64,
    pub(crate) name: String,
    pub(crate) unit: String,
    #[serde(deserialize_with = "better_from_sql")]
    pub(crate) better: crate::model::Better,
    /// `None` for a value JSON cannot carry (a non-finite one stored by an older perfhouse).
    pub(crate) value: Option<f64>,
}

/// The values of one metric over the kept trials of one arm × params.
pub(crate) struct MetricSamples {
    pub name: String,
    pub unit: String,
    pub direction: Direction,
    pub values: Vec<f64>,
}

/// (arm, params) → metrics in display order.
pub(crate) type Samples = BTreeMap<(String, crate::model::Params), Vec<MetricSamples>>;

/// Per-trial samples of one side.
pub(crate) struct Side {
    pub(crate) sel: Selection,
    pub(crate) trials: Vec<TrialFigures>,
    pub(crate) samples: Samples,
}

/// The per-trial values of every judged figure and metric of a selection, by arm × params.
pub(crate) async fn load_samples(q: &Query, sel: Selection) -> Result<Samples, CompareError> {
    Ok(load(q, sel).await?.samples)
}

pub(crate) async fn load(q: &Query, sel: Selection) -> Result<Side, CompareError> {
    let id = lit(&sel.run.run_id);
    let arm_filter = sel
        .arm
        .as_ref()
        .map(|a| format!(" AND arm = {}", lit(a)))
        .unwrap_or_default();
    let trials: Vec<TrialFigures> = q
        .rows(&format!(
            "SELECT * FROM trial_figures WHERE run_id = {id}{arm_filter} ORDER BY seq"
        ))
        .await?;
    let procs: Vec<ProcessCpu> = q
        .rows(&format!("SELECT trial_id, process, cpu_ms_per_req FROM trial_proc WHERE run_id = {id} ORDER BY process, trial_id"))
        .await?;
    let metrics: Vec<TrialMetric> = q
        .rows(&format!("SELECT trial_id, name, unit, better, value FROM trial_metrics WHERE run_id = {id} AND NOT restates_requests ORDER BY name, trial_id"))
        .await?;
    let by_trial: BTreeMap<i64, &TrialFigures> = trials
        .iter()
        .filter(|t| t.kept)
        .map(|t| (t.trial_id, t))
        .collect();
    let mut samples: Samples = BTreeMap::new();
    for t in by_trial.values() {
        for f in FIGURES.iter().filter(|f| f.compare) {
            if let Some(v) = t.fig(f.name) {
                push_sample(&mut samples, t, f.name, f.unit, f.direction, v);
            }
        }
    }
    for p in &procs {
        if let (Some(t), Some(v)) = (by_trial.get(&p.trial_id), p.cpu_ms_per_req) {
            let name = format!("cpu_ms_per_req[{}]", p.process);
            push_sample(&mut samples, t, &name, "ms", Direction::LowerIsBetter, v);
        }
    }
    for m in &metrics {
        if let (Some(t), Some(v)) = (by_trial.get(&m.trial_id), m.value) {
            push_sample(&mut samples, t, &m.name, &m.unit, m.better.into(), v);
        }
    }
    // The server figures the run names (`[[scrape]] figures`), in the order named.
    let named = named_server_figures(q, &sel.run.run_id).await?;
    for (f, values) in server_values(q, &sel.run.run_id, &named).await? {
        for (trial_id, v) in values {
            if let Some(t) = by_trial.get(&trial_id) {
                push_sample(&mut samples, t, &f.name, &f.unit(), f.direction(), v);
            }
        }
    }
    Ok(Side {
        sel,
        trials,
        samples,
    })
}

/// Adds trial `t`'s value `v` of `name` to its arm × params' samples.
fn push_sample(
    samples: &mut Samples,
    t: &TrialFigures,
    name: &str,
    unit: &str,
    dir: Direction,
    v: f64,
) {
    // Statistics take finite values only (the ingest policy: non-finite is not a value).
    if !v.is_finite() {
        return;
    }
    let list = samples
        .entry((t.arm.clone(), t.params.clone()))
        .or_default();
    match list.iter_mut().find(|m| m.name == name) {
        Some(entry) => entry.values.push(v),
        None => list.push(MetricSamples {
            name: name.to_string(),
            unit: unit.to_string(),
            direction: dir,
            values: vec![v],
        }),
    }
}

/// The server figures run `run_id`'s `server_figures` label names (`[[scrape]] figures`).
pub(crate) async fn named_server_figures(
    q: &Query,
    run_id: &str,
) -> Result<Vec<super::figures::ServerFigure>, QueryError> {
    #[derive(Deserialize)]
    struct Labels {
        labels: String,
    }
    let rows: Vec<Labels> = q
        .rows(&format!(
            "SELECT labels FROM runs WHERE run_id = {}",
            lit(run_id)
        ))
        .await?;
    Ok(rows
        .first()
        .map(|r| super::figures::server_figures(&crate::model::parse_params(&r.labels)))
        .unwrap_or_default())
}

/// Per figure of `figures` (in that order), the (trial, value) pairs of run `run_id` in the
/// view `trial_server`; figures no trial has are left out.
pub(crate) async fn server_values(
    q: &Query,
    run_id: &str,
    figures: &[super::figures::ServerFigure],
) -> Result<Vec<(super::figures::ServerFigure, Vec<(i64, f64)>)>, QueryError> {
    if figures.is_empty() {
        return Ok(Vec::new());
    }
    #[derive(Deserialize)]
    struct TrialServerFigure {
        trial_id: i64,
        figure: String,
        value: Option<f64>,
    }
    let names: Vec<String> = figures.iter().map(|f| lit(&f.name)).collect();
    let rows: Vec<TrialServerFigure> = q
        .rows(&format!(
            "SELECT trial_id, figure, value FROM trial_server WHERE run_id = {} AND figure IN ({}) \
             ORDER BY trial_id",
            lit(run_id),
            names.join(", ")
        ))
        .await?;
    Ok(figures
        .iter()
        .map(|f| {
            let values: Vec<(i64, f64)> = rows
                .iter()
                .filter(|r| r.figure == f.name)
                .filter_map(|r| Some((r.trial_id, r.value.filter(|v| v.is_finite())?)))
                .collect();
            (f.clone(), values)
        })
        .filter(|(_, v)| !v.is_empty())
        .collect())
}
