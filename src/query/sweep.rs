//! A run that varies load (a `concurrency`, `request_rate`, `rate` or `qps` parameter with three
//! or more values) is a sweep: per arm, the levels' medians (throughput, latency, TTFT, goodput),
//! the knee, and the capacity at the suite's SLOs with a bootstrap interval; between two arms,
//! the shift of capacity ("B serves +18 % req/s within the SLOs"). Definitions:
//! [`crate::stats::sweep`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::slo::Slos;
use super::{Query, QueryError, lit};
use crate::model::Params;
use crate::stats::sweep::{self, Capacity, Criterion, Knee, Trial};

/// Load parameters, in order of preference.
pub const LOAD_PARAMS: &[&str] = &["concurrency", "request_rate", "rate", "qps"];
/// A level's median SLO attainment must be at least this (%) where per-request SLOs are set.
pub const ATTAINMENT: f64 = 99.0;
const BOOTSTRAP: usize = 1000;

/// How many distinct numbers `key` takes over `params`.
fn distinct_values<'a>(params: impl Iterator<Item = &'a Params>, key: &str) -> usize {
    let mut v: Vec<f64> = params
        .filter_map(|p| p.get(key).and_then(|v| v.parse::<f64>().ok()))
        .collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v.len()
}

/// The load parameter of trials with these params: the first of [`LOAD_PARAMS`] that takes
/// three or more values (then the run is a sweep).
pub fn load_param<'a>(params: impl Iterator<Item = &'a Params> + Clone) -> Option<&'static str> {
    LOAD_PARAMS
        .iter()
        .copied()
        .find(|k| distinct_values(params.clone(), k) >= 3)
}

#[derive(Debug, Clone, Serialize)]
pub struct LevelView {
    pub load: f64,
    pub trials: usize,
    pub throughput_rps: f64,
    pub latency_p50_ms: Option<f64>,
    pub latency_p99_ms: Option<f64>,
    pub ttft_p99_ms: Option<f64>,
    pub goodput_rps: Option<f64>,
    pub slo_attainment_pct: Option<f64>,
    /// Meets every SLO (None without SLOs).
    pub meets: Option<bool>,
    /// Output tokens per second, all streams together (median over the repeats); per GPU
    /// where the run's `gpus` label says how many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tps: Option<f64>,
    /// Output tokens per second one stream sees: mean output tokens per request ÷ mean request
    /// latency (TTFT included), median over the repeats.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_user_tps: Option<f64>,
    /// Cost per million output tokens at this level, where the run's `cost_per_hour` label
    /// gives the deployment's hourly cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_per_mtok: Option<f64>,
    /// Open loop (a request-rate sweep): achieved ÷ offered rate. Below
    /// [`BEHIND`] the generator fell behind its schedule: the system is saturated (or the
    /// client is), and the level measures less load than it names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub achieved_ratio: Option<f64>,
    /// `achieved_ratio` below [`BEHIND`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behind: Option<bool>,
    /// Closed loop (a concurrency sweep): Little's-law ratio, throughput × mean latency ÷
    /// concurrency, median over the repeats. Below [`super::compare::CLIENT_BOUND`] the load
    /// generator, not the server, set the pace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub littles_law_ratio: Option<f64>,
    /// The server figures the run names (`[[scrape]] figures`): the median over the level's
    /// trials of each that has a value.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub server: BTreeMap<String, f64>,
}

/// An open-loop level whose achieved rate is below this share of the offered one fell behind.
pub const BEHIND: f64 = 0.95;

/// Whether `key` names an offered request rate (an open loop), not a concurrency.
pub fn is_rate(key: &str) -> bool {
    key != "concurrency"
}

/// One point of the Pareto frontier of per-user against total output tokens/s: both are
/// better higher, and a point is dominated when another is at least as good on both and
/// better on one (equal points dominate neither, so ties both stay on the frontier).
#[derive(Debug, Clone, Serialize)]
pub struct FrontierPoint {
    pub arm: String,
    pub load: f64,
    pub per_user_tps: f64,
    /// Total output tokens/s (per GPU where `gpus` is set).
    pub output_tps: f64,
    pub dominated: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArmSweep {
    /// The arm, with the parameters other than load where they vary.
    pub arm: String,
    pub levels: Vec<LevelView>,
    pub knee: Option<KneeView>,
    pub capacity: Option<CapacityView>,
    /// Bootstrap draws of the throughput at capacity (for the shift).
    #[serde(skip)]
    draws: Vec<f64>,
}

impl LevelView {
    /// A level of `trials` trials at `load` with only its throughput and Little's-law ratio, for
    /// the pages' unit tests.
    #[cfg(test)]
    pub(crate) fn hand_built(
        load: f64,
        trials: usize,
        throughput_rps: f64,
        littles_law_ratio: f64,
    ) -> LevelView {
        LevelView {
            load,
            trials,
            throughput_rps,
            latency_p50_ms: None,
            latency_p99_ms: None,
            ttft_p99_ms: None,
            goodput_rps: None,
            slo_attainment_pct: None,
            meets: None,
            output_tps: None,
            per_user_tps: None,
            cost_per_mtok: None,
            achieved_ratio: None,
            behind: None,
            littles_law_ratio: Some(littles_law_ratio),
            server: Default::default(),
        }
    }
}

impl ArmSweep {
    /// An arm built by hand (no bootstrap draws: no shift), for the pages' unit tests.
    #[cfg(test)]
    pub(crate) fn hand_built(
        arm: &str,
        levels: Vec<LevelView>,
        knee: Option<KneeView>,
        capacity: Option<CapacityView>,
    ) -> ArmSweep {
        ArmSweep {
            arm: arm.into(),
            levels,
            knee,
            capacity,
            draws: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct KneeView {
    pub load: f64,
    pub throughput_rps: f64,
    pub efficiency: f64,
}

/// How a capacity relates to the levels tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CapacityKind {
    /// Interpolated between the last level that meets the SLOs and the first that does not.
    Within,
    /// No level failed: at least the highest tried.
    AtLeast,
    /// The lowest level already failed.
    Below,
}

#[derive(Debug, Clone, Serialize)]
pub struct CapacityView {
    pub kind: CapacityKind,
    pub load: f64,
    pub throughput_rps: Option<f64>,
    /// The SLO that fails first.
    pub binding: Option<String>,
    /// 95 % bootstrap interval of `throughput_rps` over the repeats.
    pub ci: Option<(f64, f64)>,
    /// Cost per million output tokens at the capacity's throughput (output tokens per request
    /// being the arm's median over its levels), where `cost_per_hour` is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_per_mtok: Option<f64>,
    /// Why there is no interval, where a level has fewer than 2 repeats: resampling one
    /// value gives a zero-width interval that claims a certainty the sweep does not have.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_interval: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Shift {
    pub baseline: String,
    pub candidate: String,
    /// candidate ÷ baseline throughput at capacity, with its 95 % bootstrap interval.
    pub ratio: f64,
    pub ci: Option<(f64, f64)>,
    /// "speedup-10 serves +18 % req/s within the SLOs (95 % CI +9 % … +27 %)".
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Sweep {
    pub run_id: String,
    pub suite: String,
    pub run_no: u64,
    pub load: String,
    pub slo: String,
    pub arms: Vec<ArmSweep>,
    pub shift: Option<Shift>,
    /// Per-user against total output tokens/s over every arm's levels, frontier first
    /// (highest total first), then the dominated points. Empty without token counts.
    pub frontier: Vec<FrontierPoint>,
    /// The run's `gpus` label: output_tps is per GPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpus: Option<f64>,
    /// The run's `cost_per_hour` label: the whole deployment's cost per hour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_per_hour: Option<f64>,
    /// The server figures the run names (`[[scrape]] figures`) that some level has, in the
    /// order named: the keys of each level's `server`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub server_figures: Vec<String>,
}

/// The named server figures of a run and each trial's values of them (trial → figure → value).
type ServerByTrial = (Vec<String>, BTreeMap<i64, BTreeMap<String, f64>>);

#[derive(Deserialize)]
struct SweepTrial {
    trial_id: i64,
    suite: String,
    run_no: u64,
    arm: String,
    #[serde(with = "crate::model::params_as_json")]
    params: Params,
    throughput_rps: Option<f64>,
    latency_p50_ms: Option<f64>,
    latency_p99_ms: Option<f64>,
    ttft_p99_ms: Option<f64>,
    goodput_rps: Option<f64>,
    slo_attainment_pct: Option<f64>,
    output_tps: Option<f64>,
    latency_mean_ms: Option<f64>,
    #[serde(flatten)]
    extra: BTreeMap<String, serde_json::Value>,
}

impl SweepTrial {
    /// Output tokens per second one stream sees (see [`LevelView::per_user_tps`]): output
    /// tokens per request ÷ mean latency in seconds.
    fn per_user_tps(&self) -> Option<f64> {
        let per_request = self.output_tps? / self.throughput_rps?;
        let v = per_request / (self.latency_mean_ms? / 1000.0);
        v.is_finite().then_some(v)
    }

    fn tokens_per_request(&self) -> Option<f64> {
        let v = self.output_tps? / self.throughput_rps?;
        v.is_finite().then_some(v)
    }
}

/// What the run's labels say of its deployment: `gpus` (output_tps is reported per GPU) and
/// `cost_per_hour` (the whole deployment's, in any currency).
#[derive(Debug, Clone, Copy, Default)]
pub struct Deployment {
    pub gpus: Option<f64>,
    pub cost_per_hour: Option<f64>,
}

impl Deployment {
    fn from_labels(labels: &str) -> Deployment {
        let l: BTreeMap<String, String> = serde_json::from_str(labels).unwrap_or_default();
        let num = |k: &str| {
            l.get(k)
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v > 0.0)
        };
        Deployment {
            gpus: num("gpus"),
            cost_per_hour: num("cost_per_hour"),
        }
    }

    /// Cost per million output tokens at `tps` output tokens/s (all streams, all GPUs).
    pub fn cost_per_mtok(&self, tps: f64) -> Option<f64> {
        let v = self.cost_per_hour? / (tps * 3600.0) * 1e6;
        (v.is_finite() && tps > 0.0).then_some(v)
    }
}

impl AsRef<FrontierPoint> for FrontierPoint {
    fn as_ref(&self) -> &FrontierPoint {
        self
    }
}

impl AsMut<FrontierPoint> for FrontierPoint {
    fn as_mut(&mut self) -> &mut FrontierPoint {
        self
    }
}

/// Marks each point dominated or not and orders the frontier first (by total, descending),
/// then the dominated points (a stable sort: equal points keep their order). Over a run's
/// levels ([`Sweep::frontier`]) or over a suite's runs ([`SuitePoint`]).
pub fn frontier<P: AsRef<FrontierPoint> + AsMut<FrontierPoint>>(mut points: Vec<P>) -> Vec<P> {
    let snapshot: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.as_ref().per_user_tps, p.as_ref().output_tps))
        .collect();
    for p in points.iter_mut() {
        let p = p.as_mut();
        p.dominated = snapshot.iter().any(|&(u, t)| {
            u >= p.per_user_tps && t >= p.output_tps && (u > p.per_user_tps || t > p.output_tps)
        });
    }
    points.sort_by(|a, b| {
        let (a, b) = (a.as_ref(), b.as_ref());
        a.dominated
            .cmp(&b.dominated)
            .then(b.output_tps.total_cmp(&a.output_tps))
            .then(b.per_user_tps.total_cmp(&a.per_user_tps))
    });
    points
}

/// A run of a suite, as the frontier across its runs names it.
#[derive(Debug, Clone, Serialize)]
pub struct RunRef {
    pub run_no: u64,
    pub run_id: String,
    /// The run's git commit, where it was recorded.
    pub commit: Option<String>,
}

/// A level of one run of a suite on the frontier across the suite's runs.
#[derive(Debug, Clone, Serialize)]
pub struct SuitePoint {
    #[serde(flatten)]
    pub run: RunRef,
    #[serde(flatten)]
    pub point: FrontierPoint,
}

impl AsRef<FrontierPoint> for SuitePoint {
    fn as_ref(&self) -> &FrontierPoint {
        &self.point
    }
}

impl AsMut<FrontierPoint> for SuitePoint {
    fn as_mut(&mut self) -> &mut FrontierPoint {
        &mut self.point
    }
}

/// A sweep run that takes part in a suite's frontier.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteRun {
    #[serde(flatten)]
    pub run: RunRef,
    /// The run's `gpus` label: its output_tps is per GPU.
    pub gpus: Option<f64>,
    /// Its levels with token counts (points it brings to the frontier).
    pub points: usize,
}

/// A sweep run of the suite left out of its frontier: it sweeps another load parameter.
#[derive(Debug, Clone, Serialize)]
pub struct LeftOut {
    #[serde(flatten)]
    pub run: RunRef,
    pub load: String,
}

/// The Pareto frontier across the runs of one suite: every level of every run that sweeps
/// `load` (each run's [`sweep`], so the same per-user and total output tokens/s, per GPU
/// where the run's `gpus` label says so), and [`frontier`] over their union.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteFrontier {
    pub suite: String,
    /// The load parameter: `--load`, or the first sweep run's.
    pub load: String,
    /// The sweep runs that take part, oldest first.
    pub runs: Vec<SuiteRun>,
    /// Frontier first (highest total first), then the dominated points.
    pub frontier: Vec<SuitePoint>,
    /// Sweep runs of another load parameter (not mixed in).
    pub left_out: Vec<LeftOut>,
}

/// The frontier across the runs of `suite` (see [`SuiteFrontier`]). `Ok(None)` when no run
/// of the suite sweeps load; the runs are taken in run order, and the first sweep's load
/// parameter (or `load`) is the one the others must sweep.
pub async fn suite_frontier(
    q: &Query,
    suite: &str,
    load: Option<&str>,
) -> Result<Option<SuiteFrontier>, QueryError> {
    #[derive(Deserialize)]
    struct RunOfSuite {
        run_id: String,
        run_no: u64,
        git_commit: Option<String>,
    }
    let rows: Vec<RunOfSuite> = q
        .rows(&format!(
            "SELECT run_id, run_no, git_commit FROM runs WHERE suite = {} ORDER BY run_no, run_id",
            lit(suite)
        ))
        .await?;
    let mut out: Option<SuiteFrontier> = None;
    let mut points = Vec::new();
    for r in rows {
        let Some(s) = sweep(q, &r.run_id, load).await? else {
            continue;
        };
        let run = RunRef {
            run_no: r.run_no,
            run_id: r.run_id,
            commit: r.git_commit.filter(|c| !c.is_empty()),
        };
        let f = out.get_or_insert_with(|| SuiteFrontier {
            suite: suite.to_string(),
            load: s.load.clone(),
            runs: Vec::new(),
            frontier: Vec::new(),
            left_out: Vec::new(),
        });
        if s.load != f.load {
            f.left_out.push(LeftOut { run, load: s.load });
            continue;
        }
        f.runs.push(SuiteRun {
            run: run.clone(),
            gpus: s.gpus,
            points: s.frontier.len(),
        });
        points.extend(s.frontier.into_iter().map(|point| SuitePoint {
            run: run.clone(),
            point,
        }));
    }
    Ok(out.map(|mut f| {
        f.frontier = frontier(points);
        f
    }))
}

/// The sweep of run `run_id`, or `None` when no load parameter takes three or more values.
pub async fn sweep(
    q: &Query,
    run_id: &str,
    load: Option<&str>,
) -> Result<Option<Sweep>, QueryError> {
    let run: Vec<BTreeMap<String, String>> = q
        .rows(&format!(
            "SELECT suite, labels FROM runs WHERE run_id = {}",
            lit(run_id)
        ))
        .await?;
    let Some(suite) = run.first().and_then(|r| r.get("suite")).cloned() else {
        return Ok(None);
    };
    let deployment = Deployment::from_labels(
        run.first()
            .and_then(|r| r.get("labels"))
            .map_or("{}", String::as_str),
    );
    let slos = q.slos(&suite).await?;
    let extra: Vec<String> = slos.percentiles().into_iter().map(|(c, _)| c).collect();
    let extra_cols: String = extra
        .iter()
        .map(|c| format!(", f.{c} AS check_{c}"))
        .collect();
    let rows: Vec<SweepTrial> = q
        .rows(&format!(
            "SELECT f.trial_id, f.suite, r.run_no, f.arm, f.params, f.throughput_rps, f.latency_p50_ms, f.latency_p99_ms, \
             f.ttft_p99_ms, f.goodput_rps, f.slo_attainment_pct, f.output_tps, f.latency_mean_ms{extra_cols} \
             FROM trial_figures f JOIN runs r ON f.run_id = r.run_id \
             WHERE f.run_id = {} AND f.kept ORDER BY f.seq, f.trial_id",
            lit(run_id)
        ))
        .await?;
    let labels = run
        .first()
        .and_then(|r| r.get("labels"))
        .map(|l| crate::model::parse_params(l))
        .unwrap_or_default();
    let named = super::figures::server_figures(&labels);
    let mut server: ServerByTrial = Default::default();
    for (f, values) in super::samples::server_values(q, run_id, &named).await? {
        for (trial, v) in values {
            server.1.entry(trial).or_default().insert(f.name.clone(), v);
        }
        server.0.push(f.name);
    }
    Ok(from_rows(run_id, &rows, &slos, load, deployment, &server))
}

/// What a level must meet under `slos`: each percentile SLO on the level's medians (in the
/// order of [`Slos::percentiles`]), then, where per-request SLOs are set, a median SLO
/// attainment of at least [`ATTAINMENT`] %. A trial's `checks` follow this order.
pub fn criteria(slos: &Slos) -> Vec<Criterion> {
    let mut criteria: Vec<Criterion> = slos
        .0
        .iter()
        .filter(|s| s.percentile.is_some())
        .map(|s| Criterion {
            name: s.to_string(),
            bound: s.max_ms,
            at_most: true,
        })
        .collect();
    if slos.has_per_request() {
        let per_request: Vec<String> = slos
            .0
            .iter()
            .filter(|s| s.percentile.is_none())
            .map(|s| s.to_string())
            .collect();
        criteria.push(Criterion {
            name: format!("attainment ≥ {ATTAINMENT}% of {}", per_request.join(",")),
            bound: ATTAINMENT,
            at_most: false,
        });
    }
    criteria
}

fn from_rows(
    run_id: &str,
    rows: &[SweepTrial],
    slos: &Slos,
    load: Option<&str>,
    deployment: Deployment,
    server: &ServerByTrial,
) -> Option<Sweep> {
    let key = match load {
        Some(k) => k.to_string(),
        None => load_param(rows.iter().map(|r| &r.params))?.to_string(),
    };
    if distinct_values(rows.iter().map(|r| &r.params), &key) < 2 {
        return None;
    }
    let criteria = criteria(slos);
    let cx = SweepCx {
        key: &key,
        slos,
        criteria: &criteria,
        deployment,
        server,
    };
    let arms: Vec<ArmSweep> = series(rows, &key)
        .into_iter()
        .enumerate()
        .map(|(i, (name, g))| cx.arm_sweep(i, name, &g))
        .collect();
    // Load varies, but no trial has a throughput (results without request records): no sweep
    // to analyse, rather than one of empty levels.
    if arms.iter().all(|a| a.levels.is_empty()) {
        return None;
    }
    let shift = shift(&arms);
    let points = arms
        .iter()
        .flat_map(|a| {
            a.levels.iter().filter_map(|l| {
                Some(FrontierPoint {
                    arm: a.arm.clone(),
                    load: l.load,
                    per_user_tps: l.per_user_tps?,
                    output_tps: l.output_tps?,
                    dominated: false,
                })
            })
        })
        .collect();
    let first = rows.first()?;
    Some(Sweep {
        run_id: run_id.to_string(),
        suite: first.suite.clone(),
        run_no: first.run_no,
        load: key,
        slo: slos.to_string(),
        arms,
        shift,
        frontier: frontier(points),
        gpus: deployment.gpus,
        cost_per_hour: deployment.cost_per_hour,
        server_figures: server.0.clone(),
    })
}

/// The rows in series, arm × the other parameters, in the order each first appears, each
/// row with its load (`key`'s value; a row without a numeric one is left out).
fn series<'a>(rows: &'a [SweepTrial], key: &str) -> Vec<(String, Vec<(&'a SweepTrial, f64)>)> {
    let mut groups: BTreeMap<String, Vec<(&SweepTrial, f64)>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for r in rows {
        let Some(l) = r.params.get(key).and_then(|v| v.parse::<f64>().ok()) else {
            continue;
        };
        let mut others = r.params.clone();
        others.remove(key);
        let name = if others.is_empty() {
            r.arm.clone()
        } else {
            format!("{} {}", r.arm, crate::model::params_text(&others))
        };
        if !groups.contains_key(&name) {
            order.push(name.clone());
        }
        groups.entry(name).or_default().push((r, l));
    }
    order
        .into_iter()
        .map(|name| {
            let g = groups.remove(&name).expect("grouped");
            (name, g)
        })
        .collect()
}

/// What every series of a sweep is judged by: the load parameter, the SLOs and the criteria
/// they make, the deployment and the server figures per trial.
struct SweepCx<'a> {
    key: &'a str,
    slos: &'a Slos,
    criteria: &'a [Criterion],
    deployment: Deployment,
    server: &'a ServerByTrial,
}

impl SweepCx<'_> {
    /// One series (`i`-th, which seeds its bootstrap): its levels, knee and capacity.
    fn arm_sweep(&self, i: usize, name: String, g: &[(&SweepTrial, f64)]) -> ArmSweep {
        let trials = self.trials(g);
        let levels = sweep::levels(&trials);
        let views = levels.iter().map(|lv| self.level_view(lv, g)).collect();
        let mut draws = sweep::capacity_draws(&trials, self.criteria, BOOTSTRAP, 0x5eed + i as u64);
        let fewest = levels.iter().map(|l| l.n).min().unwrap_or(0);
        let no_interval = (fewest < 2).then(|| {
            format!("no interval: {fewest} repeat at a level, an interval needs at least 2")
        });
        if no_interval.is_some() {
            // A shift against this arm has no interval either.
            draws.clear();
        }
        let tokens_per_request = crate::stats::median(
            &g.iter()
                .filter_map(|(r, _)| r.tokens_per_request())
                .collect::<Vec<_>>(),
        );
        let capacity = sweep::capacity(&levels, self.criteria)
            .map(|c| self.capacity_view(c, &draws, no_interval.as_deref(), tokens_per_request));
        draws.sort_by(f64::total_cmp);
        ArmSweep {
            arm: name,
            levels: views,
            knee: sweep::knee(&levels).map(
                |Knee {
                     load,
                     throughput,
                     efficiency,
                 }| KneeView {
                    load,
                    throughput_rps: throughput,
                    efficiency,
                },
            ),
            capacity,
            draws,
        }
    }

    /// The series' trials with a throughput, each with its checks in [`criteria`]' order.
    fn trials(&self, g: &[(&SweepTrial, f64)]) -> Vec<Trial> {
        g.iter()
            .filter_map(|(r, l)| {
                let mut checks: Vec<Option<f64>> = self
                    .slos
                    .percentiles()
                    .iter()
                    .map(|(c, _)| {
                        r.extra
                            .get(&format!("check_{c}"))
                            .and_then(serde_json::Value::as_f64)
                    })
                    .collect();
                if self.slos.has_per_request() {
                    checks.push(r.slo_attainment_pct);
                }
                Some(Trial {
                    load: *l,
                    throughput: r.throughput_rps?,
                    latency: r.latency_p50_ms,
                    checks,
                })
            })
            .collect()
    }

    /// One level of a series as shown: the medians of its trials' figures.
    fn level_view(&self, lv: &sweep::Level, g: &[(&SweepTrial, f64)]) -> LevelView {
        let med = |f: &dyn Fn(&SweepTrial) -> Option<f64>| {
            let v: Vec<f64> = g
                .iter()
                .filter(|(_, x)| *x == lv.load)
                .filter_map(|(r, _)| f(r))
                .collect();
            crate::stats::median(&v)
        };
        let open_loop = is_rate(self.key);
        let output_tps = med(&|r| r.output_tps);
        let achieved_ratio = (open_loop && lv.load > 0.0).then(|| lv.throughput / lv.load);
        let deployment = self.deployment;
        LevelView {
            load: lv.load,
            trials: lv.n,
            throughput_rps: lv.throughput,
            latency_p50_ms: lv.latency,
            latency_p99_ms: med(&|r| r.latency_p99_ms),
            ttft_p99_ms: med(&|r| r.ttft_p99_ms),
            goodput_rps: med(&|r| r.goodput_rps),
            slo_attainment_pct: med(&|r| r.slo_attainment_pct),
            meets: (!self.criteria.is_empty()).then(|| lv.failing(self.criteria).is_empty()),
            output_tps: output_tps.map(|t| t / deployment.gpus.unwrap_or(1.0)),
            per_user_tps: med(&|r| r.per_user_tps()),
            cost_per_mtok: output_tps.and_then(|t| deployment.cost_per_mtok(t)),
            achieved_ratio,
            behind: achieved_ratio.map(|r| r < BEHIND),
            littles_law_ratio: (!open_loop && lv.load > 0.0)
                .then(|| {
                    med(&|r| {
                        let v = r.throughput_rps? * (r.latency_mean_ms? / 1000.0) / lv.load;
                        v.is_finite().then_some(v)
                    })
                })
                .flatten(),
            server: self
                .server
                .0
                .iter()
                .filter_map(|name| {
                    let by_trial = &self.server.1;
                    let v = med(&|r| by_trial.get(&r.trial_id).and_then(|m| m.get(name)).copied())?;
                    Some((name.clone(), v))
                })
                .collect(),
        }
    }

    /// A series' capacity as shown, with its bootstrap interval from `draws` (none where
    /// `no_interval` says why) and its cost per million tokens.
    fn capacity_view(
        &self,
        c: Capacity,
        draws: &[f64],
        no_interval: Option<&str>,
        tokens_per_request: Option<f64>,
    ) -> CapacityView {
        let ci = if c.throughput().is_some() && no_interval.is_none() {
            sweep::interval(&mut draws.to_vec())
        } else {
            None
        };
        let no_interval = no_interval
            .map(str::to_string)
            .filter(|_| c.throughput().is_some());
        let cost_per_mtok = c
            .throughput()
            .zip(tokens_per_request)
            .and_then(|(rps, tpr)| self.deployment.cost_per_mtok(rps * tpr));
        match c {
            Capacity::Within {
                load,
                throughput,
                binding,
            } => CapacityView {
                kind: CapacityKind::Within,
                load,
                throughput_rps: Some(throughput),
                binding: Some(binding),
                ci,
                no_interval,
                cost_per_mtok,
            },
            Capacity::AtLeast { load, throughput } => CapacityView {
                kind: CapacityKind::AtLeast,
                load,
                throughput_rps: Some(throughput),
                binding: None,
                ci,
                no_interval,
                cost_per_mtok,
            },
            Capacity::Below { load, binding } => CapacityView {
                kind: CapacityKind::Below,
                load,
                throughput_rps: None,
                binding: Some(binding),
                ci: None,
                no_interval: None,
                cost_per_mtok: None,
            },
        }
    }
}

/// First arm (baseline) against the second: ratio of throughput at capacity, bootstrap interval
/// from the arms' independent draws paired in order.
fn shift(arms: &[ArmSweep]) -> Option<Shift> {
    let [a, b, ..] = arms else {
        return None;
    };
    let (ca, cb) = (a.capacity.as_ref()?, b.capacity.as_ref()?);
    let ratio = cb.throughput_rps? / ca.throughput_rps?;
    // The arms' draws are independent but sorted: pair them in a fixed shuffled order.
    let mut bd = b.draws.clone();
    crate::stats::Rng::new(0x5b1f7).shuffle(&mut bd);
    let mut ratios: Vec<f64> = a
        .draws
        .iter()
        .zip(&bd)
        .map(|(x, y)| y / x)
        .filter(|r| r.is_finite())
        .collect();
    // No interval where either arm has fewer than 2 repeats at a level (its draws are empty).
    let ci = if a.draws.is_empty() || b.draws.is_empty() {
        None
    } else {
        sweep::interval(&mut ratios)
    };
    let pct = |r: f64| format!("{:+.0} %", (r - 1.0) * 100.0);
    let open: Vec<&str> = [(a, ca), (b, cb)]
        .iter()
        .filter(|(_, c)| c.kind == CapacityKind::AtLeast)
        .map(|(x, _)| x.arm.as_str())
        .collect();
    // An interval that spans no change is no finding: said first, as the A/B verdicts say it.
    let verdict = match ci {
        Some((lo, hi)) if lo <= 1.0 && hi >= 1.0 => "Inconclusive: ",
        _ => "",
    };
    let text = format!(
        "{verdict}{} serves {} req/s within the SLOs vs {}{}{}",
        b.arm,
        pct(ratio),
        a.arm,
        ci.map_or(
            " (no interval: fewer than 2 repeats at a level)".to_string(),
            |(lo, hi)| format!(" (95 % CI {} … {})", pct(lo), pct(hi))
        ),
        if open.is_empty() {
            String::new()
        } else {
            format!(
                "; {} met the SLOs at every level tried (a lower bound)",
                open.join(" and ")
            )
        },
    );
    Some(Shift {
        baseline: a.arm.clone(),
        candidate: b.arm.clone(),
        ratio,
        ci,
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(arm: &str, u: f64, t: f64) -> FrontierPoint {
        FrontierPoint {
            arm: arm.into(),
            load: 1.0,
            per_user_tps: u,
            output_tps: t,
            dominated: false,
        }
    }

    #[test]
    fn equal_points_both_stay_on_the_frontier() {
        let f = frontier(vec![
            pt("a", 10.0, 100.0),
            pt("b", 10.0, 100.0),
            pt("c", 5.0, 50.0),
        ]);
        let on: Vec<&str> = f
            .iter()
            .filter(|p| !p.dominated)
            .map(|p| p.arm.as_str())
            .collect();
        assert_eq!(on, ["a", "b"]);
        assert!(f[2].dominated && f[2].arm == "c");
        // Equal on one axis, better on the other: dominated.
        let f = frontier(vec![pt("a", 10.0, 100.0), pt("b", 10.0, 90.0)]);
        assert!(!f[0].dominated && f[1].dominated);
    }

    #[test]
    fn cost_needs_a_positive_rate() {
        let d = Deployment::from_labels(r#"{"cost_per_hour":"3.6","gpus":"x"}"#);
        assert_eq!(d.gpus, None);
        assert_eq!(d.cost_per_mtok(1000.0), Some(1.0));
        assert_eq!(d.cost_per_mtok(0.0), None);
        assert_eq!(Deployment::default().cost_per_mtok(10.0), None);
    }
}
