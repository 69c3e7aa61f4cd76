//! The warehouse's noise model: per series (suite × metric × arm × params, newest segment of
//! one benchmark version on one machine) its run-to-run σ from history, and per calibrated arm
//! the pooled trials of its newest A/A calibration run. `compare`, `report`, `history` and the
//! site judge with the thresholds it gives (method and target: [`crate::stats::noise`]).
//!
//! Which source a comparison uses:
//! - two arms of **one run** (interleaved on one machine): the A/A calibration of the baseline
//!   arm where there is one, else the series' history, else the floor;
//! - **two runs**: the series' history (two runs differ by run-to-run noise, which an A/A
//!   within one run does not see), else the calibration, else the floor.
//!
//! Nothing is stored: the model is computed from the warehouse whenever it is read, so it
//! follows every new run, `calibrate` and accepted alert.

use std::collections::BTreeMap;

use serde::Serialize;

use super::samples::{CompareError, RunInfo, Selection, load_samples};
use super::thresholds::RuleSource;
use super::{Query, history};
use crate::model::Params;
use crate::stats::noise::{ChangeRule, Source, Threshold, aa_threshold};

/// (suite, metric, arm, params).
pub type Key = (String, String, String, Params);

/// The arm name `perfhouse calibrate` gives the second copy of the calibrated arm.
pub fn aa_twin(arm: &str) -> String {
    format!("{arm}~aa")
}

#[derive(Debug, Clone, Default)]
pub struct NoiseModel {
    history: BTreeMap<Key, (f64, usize)>,
    /// Where the history σ applies from (the first run of the series' newest level) and, if
    /// the series switches between two levels to date, the run that began.
    since: BTreeMap<Key, (u64, Option<u64>)>,
    calibration: BTreeMap<Key, (u64, Vec<f64>)>,
    /// The change rule history judges each series by (`query::thresholds`).
    rules: BTreeMap<Key, (ChangeRule, RuleSource)>,
}

/// One line of `perfhouse noise`.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub suite: String,
    pub metric: String,
    pub arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub params: Params,
    /// Run-to-run σ of the newest segment (relative), where it has enough runs: of its
    /// newest level (since its last change point) where change points were searched.
    pub sigma: Option<f64>,
    /// The first run the σ applies from (the newest level's), where known.
    pub since_run: Option<u64>,
    /// The series switches between two levels since this run (its σ then includes the
    /// switches; history calls no change inside).
    pub unstable_since: Option<u64>,
    pub deltas: Option<usize>,
    /// Threshold for one run against another (z·√2·σ, at least the floor).
    pub two_runs: Option<f64>,
    /// The calibration run and its pooled trials.
    pub calibration_run: Option<u64>,
    pub calibration_trials: Option<usize>,
    /// A/A threshold at 3 vs 3 trials from the calibration.
    pub aa_3v3: Option<f64>,
    /// The smallest change a change point must show in this series now: its rule at its σ
    /// (the rule's floor without a σ), and the rule and where it came from (`default`,
    /// `suite` or `metric`: the `change_threshold` label).
    pub change_threshold: f64,
    pub change_rule: ChangeRule,
    pub change_rule_from: RuleSource,
}

#[derive(serde::Deserialize)]
struct CalRun {
    run_id: String,
    suite: String,
    run_no: u64,
    started_at: String,
    git_commit: Option<String>,
    env_fingerprint: Option<String>,
    labels: String,
}

impl NoiseModel {
    pub async fn load(q: &Query) -> Result<NoiseModel, CompareError> {
        NoiseModel::from_series(q, &history::series(q, None, None).await?).await
    }

    /// The model from series already read (the site has them from `history`), plus the
    /// calibration runs.
    pub async fn from_series(
        q: &Query,
        series: &[history::Series],
    ) -> Result<NoiseModel, CompareError> {
        let mut model = NoiseModel::default();
        for s in series {
            let key = (
                s.suite.clone(),
                s.metric.clone(),
                s.arm.clone(),
                s.params.clone(),
            );
            if let Some(n) = s.noise {
                model.history.insert(key.clone(), (n.sigma, n.deltas));
            }
            model.rules.insert(key.clone(), (s.rule, s.rule_source));
            if let Some(l) = s.levels.last() {
                model.since.insert(
                    key,
                    (s.points[l.start].run_no, s.unstable_now().map(|u| u.run_no)),
                );
            }
        }
        let runs: Vec<CalRun> = q
            .rows(
                "SELECT run_id, suite, run_no, started_at, git_commit, env_fingerprint, labels \
                 FROM runs WHERE source = 'calibrate' ORDER BY started_at, run_id",
            )
            .await?;
        for r in runs {
            let labels: BTreeMap<String, String> =
                serde_json::from_str(&r.labels).unwrap_or_default();
            let Some(arm) = labels.get("calibration").cloned() else {
                continue;
            };
            let sel = Selection {
                label: format!("{} #{}", r.suite, r.run_no),
                arm: None,
                run: RunInfo {
                    run_id: r.run_id,
                    suite: r.suite.clone(),
                    run_no: r.run_no,
                    started_at: r.started_at,
                    git_commit: r.git_commit,
                    env_fingerprint: r.env_fingerprint,
                },
            };
            let mut pooled: BTreeMap<Key, Vec<f64>> = BTreeMap::new();
            for ((a, params), metrics) in load_samples(q, sel).await? {
                if a != arm && a != aa_twin(&arm) {
                    continue;
                }
                for m in metrics {
                    pooled
                        .entry((r.suite.clone(), m.name, arm.clone(), params.clone()))
                        .or_default()
                        .extend(m.values);
                }
            }
            // Newer calibrations replace older ones (runs come oldest first).
            for (k, v) in pooled {
                model.calibration.insert(k, (r.run_no, v));
            }
        }
        Ok(model)
    }

    /// The threshold for comparing `n1` vs `n2` trials of the series `key`, with its source.
    pub fn threshold(&self, key: &Key, n1: usize, n2: usize, same_run: bool) -> Threshold {
        self.threshold_at_least(key, n1, n2, same_run, crate::stats::noise::FLOOR)
    }

    /// [`NoiseModel::threshold`] with the measure's own floor in place of the ±2 % one (an
    /// instruction count's is lower: `figures::floor_scale`): what the series' noise gives,
    /// at least `floor`, and `floor` where nothing is known.
    pub fn threshold_at_least(
        &self,
        key: &Key,
        n1: usize,
        n2: usize,
        same_run: bool,
        floor: f64,
    ) -> Threshold {
        let hist = || {
            self.history.get(key).map(|&(sigma, deltas)| Threshold {
                value: crate::stats::noise::two_run_threshold_above(sigma, floor),
                source: Source::History { deltas, sigma },
            })
        };
        // Resampling the pool costs 2,000 splits: only where the calibration is the one used.
        let cal = || {
            self.calibration.get(key).and_then(|(run_no, pool)| {
                calibrated(pool, n1, n2).map(|value| Threshold {
                    value: value.max(floor),
                    source: Source::Calibration {
                        run_no: *run_no,
                        per_side: pool.len() / 2,
                    },
                })
            })
        };
        let found = if same_run {
            cal().or_else(hist)
        } else {
            hist().or_else(cal)
        };
        found.unwrap_or(Threshold {
            value: floor,
            source: crate::stats::noise::Source::Floor,
        })
    }

    /// A digest of everything the model knows of one suite: what a comparison within it can
    /// depend on (the site rebuilds a run's A/B pages when it changes).
    pub fn digest(&self, suite: &str) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for (k, (sigma, deltas)) in self.history.iter().filter(|(k, _)| k.0 == suite) {
            h.update(format!("h{k:?}{sigma:e}{deltas}\n").as_bytes());
        }
        for (k, (run_no, pool)) in self.calibration.iter().filter(|(k, _)| k.0 == suite) {
            h.update(format!("c{k:?}{run_no}{pool:?}\n").as_bytes());
        }
        hex::encode(h.finalize())
    }

    /// Every series the model knows, for `perfhouse noise`.
    pub fn entries(&self) -> Vec<Entry> {
        let keys: std::collections::BTreeSet<&Key> =
            self.history.keys().chain(self.calibration.keys()).collect();
        keys.into_iter()
            .map(|k| {
                let h = self.history.get(k);
                let c = self.calibration.get(k);
                let since = self.since.get(k);
                let (rule, from) = self.rules.get(k).copied().unwrap_or_default();
                Entry {
                    suite: k.0.clone(),
                    metric: k.1.clone(),
                    arm: k.2.clone(),
                    params: k.3.clone(),
                    sigma: h.map(|h| h.0),
                    since_run: h.and(since).map(|s| s.0),
                    unstable_since: since.and_then(|s| s.1),
                    deltas: h.map(|h| h.1),
                    // At the measure's own floor (an instruction count's is lower).
                    two_runs: h.map(|h| {
                        crate::stats::noise::two_run_threshold_above(
                            h.0,
                            crate::stats::noise::FLOOR * super::figures::floor_scale(&k.1),
                        )
                    }),
                    calibration_run: c.map(|c| c.0),
                    calibration_trials: c.map(|c| c.1.len()),
                    aa_3v3: c.and_then(|c| calibrated(&c.1, 3, 3)),
                    change_threshold: rule.threshold(h.map(|h| h.0)),
                    change_rule: rule,
                    change_rule_from: from,
                }
            })
            .collect()
    }
}

/// One measure's A/A noise in a calibration run (`perfhouse calibrate` prints them side by
/// side: wall time, CPU time, instructions, peak RSS, …).
#[derive(Debug, Clone, Serialize)]
pub struct MeasureNoise {
    pub metric: String,
    pub unit: String,
    #[serde(with = "crate::model::params_as_json")]
    pub params: Params,
    /// Kept trials of the arm and its A/A copy, pooled.
    pub trials: usize,
    pub median: f64,
    /// Coefficient of variation of the pooled trials: sample standard deviation ÷ mean.
    pub cv: f64,
    /// Trials per side of the A/A threshold (the calibration's repeats).
    pub per_side: usize,
    /// The A/A threshold at `per_side` vs `per_side` (99th percentile of |median ratio − 1|
    /// over random splits of the pool); `None` with a pool too small.
    pub aa: Option<f64>,
    /// The measure's floor (`figures::floor_scale` of the ±2 % one).
    pub floor: f64,
    /// The smallest change a comparison of `per_side` vs `per_side` trials can call: the A/A
    /// threshold, at least the floor.
    pub callable: f64,
}

/// Each measure's noise in calibration run `run_id`: its arm and the A/A copy pooled, per
/// params; the measures of the work first (`figures::MEASURES`), then the others by name.
pub async fn calibration_noise(q: &Query, run_id: &str) -> Result<Vec<MeasureNoise>, CompareError> {
    let sel = super::samples::resolve(q, run_id).await?;
    let mut pooled: BTreeMap<(String, Params), (String, Vec<f64>, usize)> = BTreeMap::new();
    for ((arm, params), metrics) in load_samples(q, sel).await? {
        let copy = arm.ends_with("~aa");
        for m in metrics {
            let e = pooled
                .entry((m.name.clone(), params.clone()))
                .or_insert_with(|| (m.unit.clone(), Vec::new(), 0));
            if !copy {
                e.2 = m.values.len();
            }
            e.1.extend(m.values);
        }
    }
    let mut out: Vec<MeasureNoise> = pooled
        .into_iter()
        .filter_map(|((metric, params), (unit, values, per_side))| {
            let median = crate::stats::median(&values)?;
            let per_side = per_side.max(1);
            let aa = aa_threshold(&values, per_side, per_side, 0xaa);
            let floor = crate::stats::noise::FLOOR * super::figures::floor_scale(&metric);
            Some(MeasureNoise {
                cv: cv(&values)?,
                trials: values.len(),
                callable: aa.unwrap_or(floor).max(floor),
                metric,
                unit,
                params,
                median,
                per_side,
                aa,
                floor,
            })
        })
        .collect();
    let rank = |m: &MeasureNoise| {
        super::figures::MEASURES
            .iter()
            .position(|x| x.name == m.metric)
            .unwrap_or(usize::MAX)
    };
    out.sort_by(|a, b| {
        crate::model::cmp_params(&a.params, &b.params)
            .then_with(|| rank(a).cmp(&rank(b)))
            .then_with(|| a.metric.cmp(&b.metric))
    });
    Ok(out)
}

/// Sample standard deviation ÷ mean; `None` under 2 values or a zero mean.
fn cv(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let mean = crate::stats::mean(values)?;
    if mean == 0.0 {
        return None;
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (values.len() - 1) as f64;
    Some(var.sqrt() / mean.abs())
}

/// The A/A threshold at `n1` vs `n2` from a pool; where the pool is smaller than `n1 + n2`,
/// the threshold at the largest even split it allows, scaled by `√((1/n1 + 1/n2) / (2/h))` (a
/// difference of medians shrinks as 1/√n).
fn calibrated(pool: &[f64], n1: usize, n2: usize) -> Option<f64> {
    if pool.len() >= n1 + n2 {
        return aa_threshold(pool, n1, n2, 0xaa);
    }
    let h = pool.len() / 2;
    let t = aa_threshold(pool, h, h, 0xaa)?;
    Some(t * ((1.0 / n1 as f64 + 1.0 / n2 as f64) / (2.0 / h as f64)).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cv_is_the_sample_sd_over_the_mean() {
        // mean 5, squared deviations 9+1+1+9 = 20, /3, sqrt = 2.582
        let c = cv(&[2.0, 4.0, 6.0, 8.0]).unwrap();
        assert!((c - (20.0f64 / 3.0).sqrt() / 5.0).abs() < 1e-12, "{c}");
        assert_eq!(cv(&[7.0, 7.0, 7.0]), Some(0.0));
        assert_eq!(cv(&[1.0]), None);
    }
}
