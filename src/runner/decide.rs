//! Confirm by rerun (`perfhouse run … --until-decided METRIC --max-repeats N`): after the
//! plan's repeats, the first arm is compared with every other arm on METRIC (the same
//! comparison as `perfhouse compare`, over the trials so far); while any row is inconclusive,
//! the repeats double (R, 2R, 4R, … up to N, interleaved A,B,A,B as before), then the run
//! lands once with every trial.
//!
//! **Error rate**: looking again after each doubling is optional stopping, which inflates
//! false positives if every look uses α. The schedule is fixed in advance (K looks: R, 2R, …,
//! N), so each look tests at α/K (Bonferroni over the looks): the chance that any look calls
//! an A/A difference is at most α = 0.05 per metric row, at the price of some power. The run's
//! notes record every look, its repeats, α and verdicts.

use std::path::Path;

use anyhow::{Context, Result};

use crate::model::{Run, RunData, params_text};
use crate::query::Query;
use crate::query::compare::{self, CompareOptions, MetricComparison, Selection};
use crate::query::noise::NoiseModel;
use crate::stats::verdict::{Verdict, VerdictOptions};
use crate::warehouse::Warehouse;

/// The family-wise α the looks share.
pub const ALPHA: f64 = 0.05;

#[derive(Debug, Clone)]
pub struct UntilDecided {
    pub metric: String,
    pub max_repeats: u32,
}

impl UntilDecided {
    /// The looks of the doubling schedule from `initial` repeats to `max_repeats`.
    pub fn looks(&self, initial: u32) -> u32 {
        let (mut r, mut k) = (initial.max(1), 1);
        while r < self.max_repeats {
            r = (r * 2).min(self.max_repeats);
            k += 1;
        }
        k
    }
}

/// The noise model of `wh`, read once per run: the looks judge with the warehouse's history
/// and calibrations, which the run in progress does not change.
pub fn noise_model(rt: &tokio::runtime::Handle, wh: &Warehouse) -> Result<NoiseModel> {
    rt.block_on(async { anyhow::Ok(NoiseModel::load(&Query::open(wh).await?).await?) })
}

/// The verdicts on `metric` (per arm pair × params) of the run so far, judged at `alpha`: the
/// run is landed in a scratch warehouse under `scratch` (never in the real one until it is
/// complete) and compared there, with `noise`.
pub fn verdicts(
    rt: &tokio::runtime::Handle,
    noise: &NoiseModel,
    scratch: &Path,
    run: &Run,
    data: &RunData,
    metric: &str,
    alpha: f64,
) -> Result<Vec<(String, Verdict)>> {
    let dir = scratch.join(format!("decide-{}", uuid::Uuid::now_v7()));
    let probe = Warehouse::open(&dir)?;
    probe.append_run(run, data)?;
    let out = rt.block_on(async {
        let q = Query::open(&probe).await?;
        let opts = CompareOptions {
            verdict: VerdictOptions {
                alpha,
                ..VerdictOptions::default()
            },
            noise: noise.clone(),
            ..CompareOptions::default()
        };
        let arms: Vec<String> = {
            let mut seen = Vec::new();
            for t in &data.trials {
                if !seen.contains(&t.arm) {
                    seen.push(t.arm.clone());
                }
            }
            seen
        };
        let mut out = Vec::new();
        if let Some((first, rest)) = arms.split_first() {
            for other in rest {
                for r in arm_rows(&q, &run.run_id, first, other, metric, &opts).await? {
                    out.push((format!("{} {}", r.arm, params_text(&r.params)), r.verdict));
                }
            }
        }
        anyhow::Ok(out)
    });
    let _ = std::fs::remove_dir_all(&dir);
    out.context("--until-decided: judging the trials so far")
}

/// The comparison rows of `metric` between two arms of one run.
pub async fn arm_rows(
    q: &Query,
    run_id: &str,
    baseline: &str,
    candidate: &str,
    metric: &str,
    opts: &CompareOptions,
) -> Result<Vec<MetricComparison>> {
    let base: Selection = compare::resolve(q, run_id).await?;
    let sel = |arm: &str| Selection {
        label: format!("{} @{arm}", base.label),
        arm: Some(arm.to_string()),
        run: base.run.clone(),
    };
    // One metric named in advance: its rows alone are judged and corrected for.
    let opts = CompareOptions {
        only: Some(metric.to_string()),
        ..opts.clone()
    };
    let c = compare::compare(q, sel(baseline), sel(candidate), &opts).await?;
    Ok(c.rows.into_iter().filter(|r| r.metric == metric).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_of_the_doubling_schedule() {
        let u = |max| UntilDecided {
            metric: "m".into(),
            max_repeats: max,
        };
        assert_eq!(u(3).looks(3), 1);
        assert_eq!(u(6).looks(3), 2);
        assert_eq!(u(12).looks(3), 3);
        // 3, 6, 10: the last look at the cap.
        assert_eq!(u(10).looks(3), 3);
        // Pinpoint's 10 → 160: 10, 20, 40, 80, 160.
        assert_eq!(u(160).looks(10), 5);
    }
}
