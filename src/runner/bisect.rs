//! `perfhouse bisect PLAN --good REV --bad REV --metric M`: finds the first commit between
//! two revisions where M got worse, by binary search over `git rev-list --ancestry-path`.
//!
//! Every step is one interleaved run of the plan on this machine, stored like any run (labels
//! `bisect.step`, `bisect.commit`): the first step runs the two ends (`good`, `bad`) and
//! confirms the regression; each later step runs `good`, `mid` and `bad` side by side, and the
//! tested commit is judged against both ends with the same statistics as `perfhouse compare`:
//! bad if `good → mid` regressed (and `mid → bad` did not), good if `mid → bad` regressed (and
//! `good → mid` did not), and otherwise by which end's median it is nearer on a log scale: when
//! neither side is decided, or when both are (the commit lies between the ends: a partial
//! regression, or noise on a busy machine making a good commit a few % slower than `good`). Each
//! revision is checked out and built once (worktrees reused across steps, removed at the end).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::{Result, bail};
use serde::Serialize;

use super::plan::{Arm, Plan};
use super::{RunOptions, decide, exec, git};
use crate::query::Query;
use crate::query::compare::{CompareOptions, MetricComparison};
use crate::query::noise::NoiseModel;
use crate::stats::verdict::Verdict;
use crate::warehouse::Warehouse;

#[derive(Debug, Clone)]
pub struct BisectOptions {
    pub plan: PathBuf,
    pub good: String,
    pub bad: String,
    pub metric: String,
    pub labels: BTreeMap<String, String>,
    pub quiet: bool,
}

/// One tested commit and the evidence.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub step: usize,
    pub commit: String,
    pub subject: String,
    pub run_id: String,
    /// `good → commit` on the metric (worst verdict over params).
    pub vs_good: Verdict,
    pub ratio_vs_good: Option<f64>,
    /// `commit → bad`.
    pub vs_bad: Verdict,
    pub ratio_vs_bad: Option<f64>,
    /// `good` or `bad`.
    pub judged: String,
    /// How: a verdict against an end, or nearness where neither side decided.
    pub how: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct BisectOutcome {
    pub good: String,
    pub bad: String,
    pub metric: String,
    /// The run of the two ends and its verdict.
    pub ends_run: String,
    pub ends: Verdict,
    pub ends_ratio: Option<f64>,
    pub first_bad: Option<String>,
    pub first_bad_subject: Option<String>,
    /// Commits between the ends (after good, up to bad).
    pub candidates: usize,
    pub steps: Vec<Step>,
}

/// Whether a tested commit is bad, and why, from its verdicts against the two ends (`good →
/// mid`, `mid → bad`): see the module's rule.
fn judge_step(
    vs_good: Verdict,
    ratio_vs_good: Option<f64>,
    vs_bad: Verdict,
    ratio_vs_bad: Option<f64>,
) -> (bool, String) {
    match (vs_good == Verdict::Regressed, vs_bad == Verdict::Regressed) {
        (true, false) => (true, "regressed against good".to_string()),
        (false, true) => (false, "bad regressed against it".to_string()),
        (both, _) => {
            // Nearer end on a log scale.
            let to_good = ratio_vs_good.map_or(f64::INFINITY, |r| r.ln().abs());
            let to_bad = ratio_vs_bad.map_or(f64::INFINITY, |r| r.ln().abs());
            let why = if both {
                "between the ends (regressed against good, and bad regressed against it)"
            } else {
                "neither side decided"
            };
            (
                to_good > to_bad,
                format!(
                    "{why} ({vs_good} / {vs_bad}); nearer the {} end",
                    if to_good > to_bad { "bad" } else { "good" }
                ),
            )
        }
    }
}

/// The worst verdict of rows (regressed first) and the ratio of that row.
fn worst(rows: &[MetricComparison]) -> (Verdict, Option<f64>) {
    rows.iter()
        .min_by_key(|r| r.verdict)
        .map_or((Verdict::Inconclusive, None), |r| (r.verdict, r.ratio))
}

pub fn bisect(
    wh: &Warehouse,
    rt: &tokio::runtime::Handle,
    opts: &BisectOptions,
) -> Result<BisectOutcome> {
    let base = Plan::load(&opts.plan)?;
    let workdir = match &base.run.workdir {
        Some(w) => base.dir.join(w),
        None => base.dir.clone(),
    }
    .canonicalize()?;
    let good = git::resolve(&workdir, &opts.good)?;
    let bad = git::resolve(&workdir, &opts.bad)?;
    let candidates = git::between(&workdir, &good, &bad)?;
    if candidates.is_empty() {
        bail!(
            "--bad {} is not a descendant of --good {} (git rev-list --ancestry-path is empty)",
            opts.bad,
            opts.good
        );
    }
    let template = base
        .arms()
        .into_iter()
        .next()
        .expect("arms() is never empty");
    let trees = std::env::temp_dir().join(format!("perfhouse-bisect-{}", uuid::Uuid::now_v7()));
    let b = Bisection {
        wh,
        rt,
        opts,
        base: &base,
        template,
        trees: &trees,
        workdir: &workdir,
    };
    let result = b.search(&good, &bad, &candidates);
    git::remove_all(&workdir, &trees);
    result
}

/// A bisection under way: what each step's run is made of, and where.
struct Bisection<'a> {
    wh: &'a Warehouse,
    rt: &'a tokio::runtime::Handle,
    opts: &'a BisectOptions,
    base: &'a Plan,
    /// The plan's first arm, which every arm of a step copies but for its commit.
    template: Arm,
    /// The worktrees, one per commit, reused across steps.
    trees: &'a Path,
    workdir: &'a Path,
}

impl Bisection<'_> {
    /// Runs the ends, then, where they regressed, halves `candidates` (the commits after
    /// `good` up to `bad`) until the first bad one is found.
    fn search(&self, good: &str, bad: &str, candidates: &[String]) -> Result<BisectOutcome> {
        let ends_run = self.run(0, &[("good", good), ("bad", bad)])?;
        let (ends, ends_ratio) = self.judge(&ends_run, &[("good", "bad")])?[0];
        let mut outcome = BisectOutcome {
            good: good.to_string(),
            bad: bad.to_string(),
            metric: self.opts.metric.clone(),
            ends_run,
            ends,
            ends_ratio,
            first_bad: None,
            first_bad_subject: None,
            candidates: candidates.len(),
            steps: Vec::new(),
        };
        if ends != Verdict::Regressed {
            return Ok(outcome);
        }
        // Invariant: candidates[..=lo] are good (lo = -1: only the good end), candidates[hi..]
        // are bad.
        let (mut lo, mut hi) = (-1i64, candidates.len() as i64 - 1);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            let commit = &candidates[mid as usize];
            let (step, is_bad) = self.step(outcome.steps.len() + 1, good, commit, bad)?;
            outcome.steps.push(step);
            if is_bad {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let first = candidates[hi as usize].clone();
        outcome.first_bad_subject = Some(git::subject(self.workdir, &first));
        outcome.first_bad = Some(first);
        Ok(outcome)
    }

    /// One step: `commit` run between the ends, and judged against each; true where it is
    /// judged bad.
    fn step(&self, step: usize, good: &str, commit: &str, bad: &str) -> Result<(Step, bool)> {
        let run_id = self.run(step, &[("good", good), ("mid", commit), ("bad", bad)])?;
        let judged = self.judge(&run_id, &[("good", "mid"), ("mid", "bad")])?;
        let ((vs_good, ratio_vs_good), (vs_bad, ratio_vs_bad)) = (judged[0], judged[1]);
        let (is_bad, how) = judge_step(vs_good, ratio_vs_good, vs_bad, ratio_vs_bad);
        let step = Step {
            step,
            commit: commit.to_string(),
            subject: git::subject(self.workdir, commit),
            run_id,
            vs_good,
            ratio_vs_good,
            vs_bad,
            ratio_vs_bad,
            judged: if is_bad { "bad" } else { "good" }.to_string(),
            how,
        };
        Ok((step, is_bad))
    }

    /// Runs one step's plan: an arm per (name, commit), labelled with the step (and the
    /// commit under test); a failed trial stops the bisection. Returns the run's id.
    fn run(&self, step: usize, arms: &[(&str, &str)]) -> Result<String> {
        let mut plan = self.base.clone();
        plan.arms = arms
            .iter()
            .map(|(name, commit)| Arm {
                name: name.to_string(),
                git: Some(commit.to_string()),
                ..self.template.clone()
            })
            .collect();
        let mut labels = self.opts.labels.clone();
        labels.insert("bisect.step".into(), step.to_string());
        if let Some((_, c)) = arms.iter().find(|(n, _)| *n == "mid") {
            labels.insert("bisect.commit".into(), c.to_string());
        }
        let ro = RunOptions {
            plan: self.opts.plan.clone(),
            labels,
            git_arms: Vec::new(),
            quiet: self.opts.quiet,
            worktrees: Some(self.trees.to_path_buf()),
            ..RunOptions::default()
        };
        let cancel: &AtomicBool = &super::INTERRUPTED;
        let processes = exec::Processes::default();
        let out = super::execute_with(self.wh, self.rt, plan, &ro, &processes, cancel)?;
        if out.failed > 0 {
            bail!(
                "bisect step {step}: {} of {} trials failed (run {} is stored)",
                out.failed,
                out.trials,
                out.run_id.unwrap_or_default()
            );
        }
        Ok(out.run_id.unwrap_or_default())
    }

    /// Each pair (baseline arm, candidate arm) of a step's run, judged in one read of the
    /// warehouse (its noise model includes the step's run).
    fn judge(&self, run_id: &str, pairs: &[(&str, &str)]) -> Result<Vec<(Verdict, Option<f64>)>> {
        let metric = &self.opts.metric;
        self.rt.block_on(async {
            let q = Query::open(self.wh).await?;
            let copts = CompareOptions {
                noise: NoiseModel::load(&q).await?,
                ..CompareOptions::default()
            };
            let mut out = Vec::new();
            for (a, b) in pairs {
                let rows = decide::arm_rows(&q, run_id, a, b, metric, &copts).await?;
                if rows.is_empty() {
                    bail!(
                        "metric {metric:?} has no rows in run {run_id} (see `perfhouse compare`)"
                    );
                }
                out.push(worst(&rows));
            }
            Ok(out)
        })
    }
}

/// The outcome as text: the ends, every step's evidence, the first bad commit.
pub fn report(o: &BisectOutcome) -> String {
    let pct = |r: Option<f64>| r.map_or("—".to_string(), |r| crate::model::signed_pct(r - 1.0));
    let short = |c: &str| c[..c.len().min(10)].to_string();
    let mut s = format!(
        "bisect {}: good {} → bad {}: {} ({}), {} commits between (run {})\n",
        o.metric,
        short(&o.good),
        short(&o.bad),
        o.ends,
        pct(o.ends_ratio),
        o.candidates,
        o.ends_run
    );
    for st in &o.steps {
        s.push_str(&format!(
            "  step {}: {} {:?}: vs good {} ({}), vs bad {} ({}) → {} ({}); run {}\n",
            st.step,
            short(&st.commit),
            st.subject,
            st.vs_good,
            pct(st.ratio_vs_good),
            st.vs_bad,
            pct(st.ratio_vs_bad),
            st.judged,
            st.how,
            st.run_id
        ));
    }
    match &o.first_bad {
        Some(c) => s.push_str(&format!(
            "first bad commit: {c} {:?}\n",
            o.first_bad_subject.clone().unwrap_or_default()
        )),
        None => s.push_str(&format!(
            "no regression between the ends ({}): nothing to bisect\n",
            o.ends
        )),
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_between_the_ends_goes_to_the_nearer_one() {
        use Verdict::*;
        assert!(judge_step(Regressed, Some(1.9), Unchanged, Some(1.01)).0);
        assert!(!judge_step(Unchanged, Some(1.01), Regressed, Some(1.9)).0);
        // A good commit 6 % slower than `good` on a busy machine (seen in CI): both sides
        // regressed, and it is far nearer the good end.
        let (bad, how) = judge_step(Regressed, Some(1.063), Regressed, Some(1.84));
        assert!(!bad, "{how}");
        assert!(how.starts_with("between the ends"), "{how}");
        assert!(judge_step(Regressed, Some(1.7), Regressed, Some(1.1)).0);
        let (bad, how) = judge_step(Inconclusive, Some(1.3), Inconclusive, Some(1.2));
        assert!(bad && how.starts_with("neither side decided"), "{how}");
    }
}
