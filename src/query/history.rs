//! History: one series per (suite, metric, arm, params), the run medians in run order, and the
//! change points E-divisive finds in it, each reported at the first run after the change.
//!
//! Metrics that restate request records (`metric_medians.restates_requests`, aiperf's own
//! summary) are left out: the per-request figures are the series there. Runs are ordered by start time; a run's git commit is shown beside it (ordering by commit
//! topology needs the repository, which the warehouse does not hold).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Query, QueryError, lit};
use crate::model::Params;
use crate::stats::changepoint::{Evidence, Options};
use crate::stats::noise::{ChangeRule, band, history_sigma};
use crate::stats::verdict::Direction;

/// Runs of a suite without a run of a series after which its alerts are stale.
pub const STALE_RUNS: u64 = 20;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Point {
    pub run_id: String,
    pub run_no: u64,
    pub started_at: String,
    pub git_commit: Option<String>,
    pub value: f64,
    /// The benchmark's code version (asv) and the machine's fingerprint (runner) of the run:
    /// where either changes, the series starts a new segment.
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub env_fingerprint: Option<String>,
    /// Spread of the run's kept repeats (min, max) where known.
    #[serde(default)]
    pub lo: Option<f64>,
    #[serde(default)]
    pub hi: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The first run at the new level.
    pub run_id: String,
    pub run_no: u64,
    pub git_commit: Option<String>,
    pub mean_before: f64,
    pub mean_after: f64,
    /// The dominant level on each side (`stats::changepoint::dominant_level`); the magnitude is
    /// between these.
    pub level_before: f64,
    pub level_after: f64,
    pub magnitude: f64,
    pub p_value: f64,
    /// The local run-to-run σ it was judged against (the runs next to it on both sides) and
    /// the threshold that gave (the series' `rule`).
    pub sigma: Option<f64>,
    pub threshold: f64,
    /// The change goes the wrong way for the metric's direction.
    pub regression: bool,
    /// How sure, in the one short form (× local σ, runs on each side, p).
    pub evidence: Evidence,
}

/// A move of a series' newest runs beyond the noise of its level, too recent to be a change
/// point (`stats::changepoint::pending`): confirmed into one when the next runs stay at the
/// new level (the detector then calls it, at the same run and with the same alert id),
/// dropped when they return.
#[derive(Debug, Clone, Serialize)]
pub struct PendingChange {
    /// Its first point (the first run at the new level) and that run.
    pub start: usize,
    pub run_id: String,
    pub run_no: u64,
    pub git_commit: Option<String>,
    pub level_before: f64,
    pub level_after: f64,
    pub magnitude: f64,
    pub sigma: Option<f64>,
    pub threshold: f64,
    pub regression: bool,
    /// Runs at the new level so far, and how many more there make it a change point.
    pub runs: usize,
    pub needs: usize,
    pub evidence: Evidence,
    /// How to confirm it now, for a suite the runner measured: the plan its newest run ran
    /// (the run's `plan` label) at that run's commit ([`attach_reruns`]).
    pub rerun: Option<Rerun>,
}

/// A plan to run again, and where: what confirms a pending change without waiting for the
/// next commits.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Rerun {
    pub plan: String,
    pub git_commit: Option<String>,
    /// Runs at the new level that would confirm it.
    pub runs: usize,
}

/// A stretch of a series that switches between two levels (`stats::changepoint::unstable`):
/// a distribution change, shown once at its start; no change point is called inside it.
#[derive(Debug, Clone, Serialize)]
pub struct UnstableSpan {
    /// Index of its first point (the first run at the second level) and one past its last.
    pub start: usize,
    pub end: usize,
    pub run_id: String,
    pub run_no: u64,
    pub git_commit: Option<String>,
    /// The two levels and the share of runs at the low one.
    pub low: f64,
    pub high: f64,
    pub low_share: f64,
    /// Ashman's D of the two levels and the switches between them.
    pub ashman_d: f64,
    pub switches: usize,
    /// It runs to the newest point: the series is unstable now.
    pub ongoing: bool,
}

/// A level of a series: the points between two changes (or breaks), its dominant value and
/// its own run-to-run noise: the band drawn on the trend chart there.
#[derive(Debug, Clone, Serialize)]
pub struct Level {
    pub start: usize,
    pub end: usize,
    pub value: f64,
    pub noise: Option<SeriesNoise>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Series {
    pub suite: String,
    pub metric: String,
    pub unit: String,
    pub better: crate::stats::verdict::Direction,
    pub arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub params: crate::model::Params,
    pub points: Vec<Point>,
    pub changes: Vec<Change>,
    /// Indices of the points that start a new segment (the benchmark's code or the machine
    /// changed there, or an alert there was accepted as the new baseline): a known break,
    /// never called a change.
    pub breaks: Vec<usize>,
    /// The breaks nothing recorded, only suspected: a jump of two orders of magnitude or more
    /// between neighbouring runs of a series whose tool keeps no benchmark version (a
    /// github-action-benchmark history: a benchmark whose meaning changed, a unit that did).
    /// They start a new segment like the known ones; `history` names them.
    #[serde(default)]
    pub suspected_breaks: Vec<usize>,
    /// Suspected breaks that triage rejected (their break alert set to
    /// [`super::triage::REJECT_BREAK`]: a real change, not a changed benchmark): no segment
    /// starts there, and the jump is judged as an ordinary change.
    #[serde(default)]
    pub rejected_breaks: Vec<usize>,
    /// The noise of its newest segment, where it has enough runs: once change points are
    /// found, of its newest level (the runs since its last change or break).
    pub noise: Option<SeriesNoise>,
    /// Stretches that switch between two levels (empty until change points are found).
    pub unstable: Vec<UnstableSpan>,
    /// Changes under the history floor (`stats::changepoint::Detection::minor`): never an
    /// alert alone; many one way at one commit make that commit relevant.
    pub minor: Vec<Change>,
    /// Its levels between changes and breaks, each with its own noise (empty until change
    /// points are found).
    pub levels: Vec<Level>,
    /// The magnitude a change point must pass against its local noise, and where that rule
    /// came from (the default, or the suite's `change_threshold` label: `query::thresholds`).
    pub rule: ChangeRule,
    pub rule_source: super::thresholds::RuleSource,
    /// A move of its newest runs beyond its noise, not a change point yet.
    pub pending: Option<PendingChange>,
    /// Stretches that drifted one way run after run (`stats::changepoint::drifts`): each one
    /// finding, with its total and span, never a chain of change points.
    pub drifts: Vec<DriftSpan>,
}

/// A monotone drift of a series over a span of runs.
#[derive(Debug, Clone, Serialize)]
pub struct DriftSpan {
    /// Its first point and one past its last.
    pub start: usize,
    pub end: usize,
    /// Its first and last run.
    pub run_id: String,
    pub run_no: u64,
    pub git_commit: Option<String>,
    pub last_run_no: u64,
    /// The fitted line's value at its first and last run, and to / from − 1.
    pub from: f64,
    pub to: f64,
    pub total: f64,
    /// Runs it spans, and the change points it would have been cut into.
    pub runs: usize,
    pub steps: usize,
    /// It goes the wrong way for the metric.
    pub regression: bool,
}

/// A segment's run-to-run noise (see `stats::noise`).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SeriesNoise {
    /// Relative σ of one run.
    pub sigma: f64,
    /// Adjacent deltas it was estimated from.
    pub deltas: usize,
    /// ± relative band one unchanged run stays in at the 1 % target (z·σ, at least the floor).
    pub band: f64,
    /// The smallest change a change point must show here (the series' rule at this σ).
    pub threshold: f64,
}

/// One run's median of one series, as the history query reads it: a run's rows never change
/// once it is committed, so the site caches them per run (`site::cache`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunMedian {
    pub suite: String,
    pub metric: String,
    pub unit: String,
    pub better: crate::stats::verdict::Direction,
    pub arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub params: crate::model::Params,
    pub run_id: String,
    pub run_no: u64,
    pub started_at: String,
    pub git_commit: Option<String>,
    pub env_fingerprint: Option<String>,
    pub version: Option<String>,
    pub value: Option<f64>,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

pub async fn history(
    q: &Query,
    suite: Option<&str>,
    metric: Option<&str>,
    opts: &Options,
) -> Result<Vec<Series>, QueryError> {
    let mut out = series(q, suite, metric).await?;
    find_all_changes(&mut out, opts);
    attach_reruns(q, &mut out).await?;
    Ok(out)
}

/// Gives each pending change of a series the runner measured its rerun: the `plan` label of
/// the series' newest run (`perfhouse run` records the plan path it was given) and that run's
/// commit. Series of ingested results have no plan, and no rerun.
pub async fn attach_reruns(q: &Query, out: &mut [Series]) -> Result<(), QueryError> {
    let newest = pending_newest(out);
    if newest.is_empty() {
        return Ok(());
    }
    #[derive(serde::Deserialize)]
    struct Labels {
        run_id: String,
        labels: String,
    }
    let sql = format!(
        "SELECT run_id, labels FROM raw_runs WHERE labels LIKE '%\"plan\"%' AND {}",
        super::runs_in("run_id", &newest)
    );
    let plans: BTreeMap<String, String> = q
        .rows::<Labels>(&sql)
        .await?
        .into_iter()
        .filter_map(|r| Some((r.run_id, plan_label(&r.labels)?)))
        .collect();
    give_reruns(out, &plans);
    Ok(())
}

/// The newest run of each series with a pending change: the runs whose plan a rerun names.
pub fn pending_newest(out: &[Series]) -> Vec<&str> {
    out.iter()
        .filter(|s| s.pending.is_some())
        .filter_map(|s| s.points.last().map(|p| p.run_id.as_str()))
        .collect()
}

/// The `plan` label of a run's labels (JSON), where `perfhouse run` recorded one.
pub fn plan_label(labels: &str) -> Option<String> {
    crate::model::parse_params(labels).remove("plan")
}

/// Gives each pending change its rerun from `plans` (newest run id → its plan label): what
/// [`attach_reruns`] does once it has read the labels, for a caller that holds them already.
pub fn give_reruns(out: &mut [Series], plans: &BTreeMap<String, String>) {
    for s in out {
        let Some(last) = s.points.last() else {
            continue;
        };
        if let (Some(p), Some(plan)) = (s.pending.as_mut(), plans.get(&last.run_id)) {
            p.rerun = Some(Rerun {
                plan: plan.clone(),
                git_commit: last.git_commit.clone(),
                runs: p.needs,
            });
        }
    }
}

/// Fills every series' change points ([`changes_of`]).
pub fn find_all_changes(out: &mut [Series], opts: &Options) {
    // Each series' change points are independent (and seeded the same): spread them over the
    // cores; the permutation tests dominate a large history's build. A series with a change
    // costs ~100× one without (every permutation runs), so each thread takes the next series
    // when it is free, not a fixed share.
    let found = crate::parallel::par_map(out, |s| changes_of(s, opts));
    let mut newest: BTreeMap<String, u64> = BTreeMap::new();
    for s in out.iter() {
        if let Some(p) = s.points.last() {
            let n = newest.entry(s.suite.clone()).or_default();
            *n = (*n).max(p.run_no);
        }
    }
    for (s, found) in out.iter_mut().zip(found) {
        s.changes = found.changes;
        s.unstable = found.unstable;
        s.minor = found.minor;
        s.drifts = found.drifts;
        s.levels = s.levels();
        if let Some(newest) = s.levels.last() {
            s.noise = newest.noise.or(s.noise);
        }
        // Pending only where the series still runs: one that stopped (a benchmark removed or
        // renamed, stale in `alerts`) will not confirm anything.
        let last = s.points.last().map_or(0, |p| p.run_no);
        let top = newest.get(&s.suite).copied().unwrap_or(last);
        s.pending = (top.saturating_sub(last) < STALE_RUNS)
            .then(|| s.pending_change(opts))
            .flatten();
    }
}

/// The series and their points (and segment breaks), without change points: what the noise
/// model reads. Calibration runs (`perfhouse calibrate`, source `calibrate`) are not part of
/// any history: they measure noise, not the code.
pub async fn series(
    q: &Query,
    suite: Option<&str>,
    metric: Option<&str>,
) -> Result<Vec<Series>, QueryError> {
    series_from_rows(q, point_rows(q, suite, metric, None).await?).await
}

/// The rows of the series (in no particular order), of the given runs only where `runs` is
/// given.
pub async fn point_rows(
    q: &Query,
    suite: Option<&str>,
    metric: Option<&str>,
    runs: Option<&[&str]>,
) -> Result<Vec<RunMedian>, QueryError> {
    let mut filter = vec!["r.source <> 'calibrate'".to_string()];
    if let Some(s) = suite {
        filter.push(format!("r.suite = {}", lit(s)));
    }
    let filter = filter.join(" AND ");
    let mut rows: Vec<RunMedian> = q
        .rows(&format!(
            "SELECT {RUN_COLS}, m.name AS metric, m.unit, m.better, m.arm, m.params, m.median AS value, m.min AS lo, m.max AS hi, m.version \
             FROM {} m JOIN runs r ON m.run_id = r.run_id \
             WHERE NOT m.restates_requests AND {filter}{}{}",
            q.relation("metric_medians", runs),
            only_runs("m", runs),
            metric.map_or(String::new(), |m| format!(" AND m.name = {}", lit(m)))
        ))
        .await?;
    rows.extend(figure_rows(q, &filter, metric, runs).await?);
    Ok(rows)
}

/// The run columns every point row starts with.
const RUN_COLS: &str = "r.suite, r.run_id, r.run_no, r.started_at, r.git_commit, r.env_fingerprint";

/// The condition that keeps the rows of `runs` only (none where `runs` is not given), on the
/// relation aliased `t`. The run filter goes inside each part: DataFusion does not carry it
/// from the join's output to the medians' aggregation (which would then run over every run).
fn only_runs(t: &str, runs: Option<&[&str]>) -> String {
    match runs {
        None => String::new(),
        Some([]) => " AND false".to_string(),
        Some(runs) => format!(
            " AND {}",
            crate::query::runs_in(&format!("{t}.run_id"), runs)
        ),
    }
}

/// The registry's history figures (all of them, or `metric` only) as point rows, read in one
/// pass over `arm_medians` and turned into one row per figure here (a UNION of one SELECT
/// per figure computed the view once each). `filter` is on the runs (`r`).
async fn figure_rows(
    q: &Query,
    filter: &str,
    metric: Option<&str>,
    runs: Option<&[&str]>,
) -> Result<Vec<RunMedian>, QueryError> {
    let figures: Vec<_> = super::figures::FIGURES
        .iter()
        .filter(|f| f.history && metric.is_none_or(|m| m == f.name))
        .collect();
    if figures.is_empty() {
        return Ok(Vec::new());
    }
    #[derive(Deserialize)]
    struct FigureMedians {
        suite: String,
        run_id: String,
        run_no: u64,
        started_at: String,
        git_commit: Option<String>,
        env_fingerprint: Option<String>,
        arm: String,
        #[serde(with = "crate::model::params_as_json")]
        params: crate::model::Params,
        #[serde(flatten)]
        figures: BTreeMap<String, serde_json::Value>,
    }
    let cols: Vec<String> = figures.iter().map(|f| format!("a.{}", f.name)).collect();
    let medians: Vec<FigureMedians> = q
        .rows(&format!(
            "SELECT {RUN_COLS}, a.arm, a.params, {} FROM {} a JOIN runs r ON a.run_id = r.run_id \
             WHERE {filter}{}",
            cols.join(", "),
            q.relation("arm_medians", runs),
            only_runs("a", runs)
        ))
        .await?;
    let mut rows = Vec::new();
    for a in medians {
        for f in &figures {
            let Some(value) = a.figures.get(f.name).and_then(serde_json::Value::as_f64) else {
                continue;
            };
            rows.push(RunMedian {
                suite: a.suite.clone(),
                metric: f.name.to_string(),
                unit: f.unit.to_string(),
                // A series is judged one way or the other (an `Info` figure as lower-is-better).
                better: match f.direction {
                    Direction::HigherIsBetter => Direction::HigherIsBetter,
                    _ => Direction::LowerIsBetter,
                },
                arm: a.arm.clone(),
                params: a.params.clone(),
                run_id: a.run_id.clone(),
                run_no: a.run_no,
                started_at: a.started_at.clone(),
                git_commit: a.git_commit.clone(),
                env_fingerprint: a.env_fingerprint.clone(),
                version: None,
                value: Some(value),
                lo: None,
                hi: None,
            });
        }
    }
    Ok(rows)
}

/// Groups rows into series (points in run order: start time, then run id) and finds their
/// segment breaks and noise.
pub async fn series_from_rows(q: &Query, rows: Vec<RunMedian>) -> Result<Vec<Series>, QueryError> {
    let mut out = group_series(rows);
    let events = super::triage::latest_events(q).await?;
    let accepted = super::triage::accepted_of(&events);
    let rules = super::thresholds::load(q).await?;
    for s in &mut out {
        if let Some(r) = rules.get(&s.suite) {
            (s.rule, s.rule_source) = r.rule(&s.metric);
        }
        mark_breaks(s, &events, &accepted);
        s.noise = s.segment_noise(s.points.len());
    }
    Ok(out)
}

/// The rows with a finite value as series, each one's points in run order.
fn group_series(rows: Vec<RunMedian>) -> Vec<Series> {
    let mut series: BTreeMap<(String, String, String, crate::model::Params), Series> =
        BTreeMap::new();
    for r in rows {
        // Finite values only: JSON carries ±inf and NaN (stored by an older perfhouse) as null.
        let Some(value) = r.value.filter(|v| v.is_finite()) else {
            continue;
        };
        let key = (
            r.suite.clone(),
            r.metric.clone(),
            r.arm.clone(),
            r.params.clone(),
        );
        let s = series
            .entry(key)
            .or_insert_with(|| Series::new(r.suite, r.metric, r.unit, r.better, r.arm, r.params));
        s.points.push(Point {
            run_id: r.run_id,
            run_no: r.run_no,
            started_at: r.started_at,
            git_commit: r.git_commit,
            value,
            version: r.version,
            env_fingerprint: r.env_fingerprint,
            lo: r.lo,
            hi: r.hi,
        });
    }
    let mut out: Vec<Series> = series.into_values().collect();
    for s in &mut out {
        s.points
            .sort_by(|a, b| (&a.started_at, &a.run_id).cmp(&(&b.started_at, &b.run_id)));
    }
    out
}

/// A series' segment breaks: a new code version or environment, a new baseline accepted in
/// triage (for the series, or for its whole suite), or a suspected break triage has not
/// rejected.
fn mark_breaks(
    s: &mut Series,
    events: &BTreeMap<String, crate::model::AlertEvent>,
    accepted: &BTreeMap<(String, String, String, Params), Vec<String>>,
) {
    let key = (
        s.suite.clone(),
        s.metric.clone(),
        s.arm.clone(),
        s.params.clone(),
    );
    let new_baselines = accepted.get(&key).map(Vec::as_slice).unwrap_or(&[]);
    // A whole-run move accepted in triage (its alert names no series): an environment
    // change at that run, so every series of the suite starts a new segment there.
    let whole = (s.suite.clone(), String::new(), String::new(), Params::new());
    let environment = accepted.get(&whole).map(Vec::as_slice).unwrap_or(&[]);
    // A suspected break stays one until triage rejects its break alert.
    let (rejected, suspected): (Vec<usize>, Vec<usize>) =
        suspected_breaks(&s.points).into_iter().partition(|&i| {
            let id = super::triage::break_alert_id(
                &s.suite,
                &s.metric,
                &s.arm,
                &s.params,
                &s.points[i].run_id,
            );
            events
                .get(&id)
                .is_some_and(|e| e.state == super::triage::REJECT_BREAK)
        });
    s.suspected_breaks = suspected;
    s.rejected_breaks = rejected;
    s.breaks = (1..s.points.len())
        .filter(|&i| {
            let (a, b) = (&s.points[i - 1], &s.points[i]);
            a.version != b.version
                || a.env_fingerprint != b.env_fingerprint
                || new_baselines.contains(&b.run_id)
                || environment.contains(&b.run_id)
                || s.suspected_breaks.contains(&i)
        })
        .collect();
}

/// A change of `magnitude` goes the wrong way for a series judged in `better`'s direction.
pub fn worse(better: Direction, magnitude: f64) -> bool {
    if better == Direction::HigherIsBetter {
        magnitude < 0.0
    } else {
        magnitude > 0.0
    }
}

/// [`Series::recurs`]: the runs it looks back over, the share of a departure an earlier run
/// must reach to count, and how many make a departure recurring.
pub const RECUR_WINDOW: usize = 40;
pub const RECUR_SHARE: f64 = 0.8;
pub const RECURS: usize = 2;

/// A jump between neighbouring runs at or beyond this factor (either way) is no performance
/// change but a changed benchmark, where nothing records the benchmark's version.
pub const SUSPECTED_BREAK_FACTOR: f64 = 100.0;

/// Indices of the points that jump by [`SUSPECTED_BREAK_FACTOR`] or more from the point
/// before, where neither records a benchmark version (with a version, a change of meaning is
/// a known break already, and a 100× step within one version is a real change).
pub fn suspected_breaks(points: &[Point]) -> Vec<usize> {
    (1..points.len())
        .filter(|&i| {
            let (a, b) = (&points[i - 1], &points[i]);
            let ratio = b.value / a.value;
            a.version.is_none()
                && b.version.is_none()
                && a.value > 0.0
                && b.value > 0.0
                && (ratio >= SUSPECTED_BREAK_FACTOR || ratio <= 1.0 / SUSPECTED_BREAK_FACTOR)
        })
        .collect()
}

impl Series {
    /// A series with no points yet: what `history` fills and analyses.
    pub fn new(
        suite: String,
        metric: String,
        unit: String,
        better: crate::stats::verdict::Direction,
        arm: String,
        params: crate::model::Params,
    ) -> Series {
        // At the measure's own floor (an instruction count's is lower) until a label says
        // otherwise.
        let rule = super::thresholds::default_rule(&metric);
        Series {
            suite,
            metric,
            unit,
            better,
            arm,
            params,
            points: Vec::new(),
            changes: Vec::new(),
            breaks: Vec::new(),
            suspected_breaks: Vec::new(),
            rejected_breaks: Vec::new(),
            noise: None,
            unstable: Vec::new(),
            minor: Vec::new(),
            levels: Vec::new(),
            rule,
            rule_source: super::thresholds::RuleSource::Default,
            pending: None,
            drifts: Vec::new(),
        }
    }

    /// The bounds of its segments: `[0, breaks…, len]`.
    pub fn bounds(&self) -> Vec<usize> {
        std::iter::once(0)
            .chain(self.breaks.iter().copied())
            .chain(std::iter::once(self.points.len()))
            .collect()
    }

    /// The noise of the segment ending at `end` (exclusive), from its newest run-to-run
    /// deltas (`stats::noise`), or `None` with too few runs.
    pub fn segment_noise(&self, end: usize) -> Option<SeriesNoise> {
        let start = self
            .breaks
            .iter()
            .copied()
            .filter(|&b| b < end)
            .max()
            .unwrap_or(0);
        self.noise_of(start, end)
    }

    /// The noise of points `start..end` from their newest run-to-run deltas.
    fn noise_of(&self, start: usize, end: usize) -> Option<SeriesNoise> {
        let values: Vec<f64> = self.points[start..end].iter().map(|p| p.value).collect();
        history_sigma(&values).map(|(sigma, deltas)| SeriesNoise {
            sigma,
            deltas,
            band: band(sigma),
            threshold: self.rule.threshold(Some(sigma)),
        })
    }

    /// Its levels: the points between consecutive changes and breaks, each with its dominant
    /// value and its own noise (an unstable stretch's noise is its runs' deltas, switches
    /// included).
    pub fn levels(&self) -> Vec<Level> {
        let mut cuts: Vec<usize> = self.breaks.clone();
        cuts.extend(
            self.changes
                .iter()
                .filter_map(|c| self.points.iter().position(|p| p.run_id == c.run_id)),
        );
        cuts.sort_unstable();
        cuts.dedup();
        let bounds: Vec<usize> = std::iter::once(0)
            .chain(cuts)
            .chain(std::iter::once(self.points.len()))
            .collect();
        bounds
            .windows(2)
            .filter(|w| w[1] > w[0])
            .map(|w| {
                let values: Vec<f64> = self.points[w[0]..w[1]].iter().map(|p| p.value).collect();
                Level {
                    start: w[0],
                    end: w[1],
                    value: crate::stats::changepoint::dominant_level(&values),
                    noise: self.noise_of(w[0], w[1]),
                }
            })
            .collect()
    }

    /// The stretch that switches between two levels up to its newest point, if any.
    pub fn unstable_now(&self) -> Option<&UnstableSpan> {
        self.unstable.last().filter(|u| u.ongoing)
    }

    /// How many of the [`RECUR_WINDOW`] runs before point `i`, in the level holding it, were
    /// as far from that level's value in the same direction (at least [`RECUR_SHARE`] of point
    /// `i`'s departure). A one-run dip or spike the series has shown [`RECURS`] times or more
    /// lately is within its own noise, however far outside a σ band it lies: the "latest run"
    /// verdict should call it neither improved nor regressed (Kedro's TimeDataCatalog
    /// benchmarks dip −25 % on one run in ~15: `time_save` −26.5 % at #343, as low at #309 and
    /// #327, while its σ band is ±13.0 %).
    pub fn recurs(&self, i: usize) -> usize {
        let Some(level) = self.levels.iter().find(|l| (l.start..l.end).contains(&i)) else {
            return 0;
        };
        if level.value <= 0.0 || i >= self.points.len() {
            return 0;
        }
        let dev = |j: usize| self.points[j].value / level.value - 1.0;
        let d = dev(i);
        if d == 0.0 {
            return 0;
        }
        (level.start.max(i.saturating_sub(RECUR_WINDOW))..i)
            .filter(|&j| {
                let e = dev(j);
                e.signum() == d.signum() && e.abs() >= RECUR_SHARE * d.abs()
            })
            .count()
    }

    /// The pending change at its newest runs (`stats::changepoint::pending` over its newest
    /// level), unless the series switches between two levels now or the move is a one-run
    /// departure it has shown before ([`Series::recurs`]).
    fn pending_change(&self, opts: &Options) -> Option<PendingChange> {
        let level = self.levels.last()?;
        // While it switches between two levels, or drifts to date (the drift is the finding,
        // and its level lags behind the newest runs), no pending change.
        let n = self.points.len();
        if self.unstable_now().is_some() || self.drifts.last().is_some_and(|d| d.end == n) {
            return None;
        }
        let values: Vec<f64> = self.points[level.start..].iter().map(|p| p.value).collect();
        let opts = Options {
            rule: self.rule,
            ..opts.clone()
        };
        let found = crate::stats::changepoint::pending(&values, &opts)?;
        let start = level.start + found.start;
        let runs = n - start;
        if runs == 1 && self.recurs(start) >= RECURS {
            return None;
        }
        let p = &self.points[start];
        Some(PendingChange {
            start,
            run_id: p.run_id.clone(),
            run_no: p.run_no,
            git_commit: p.git_commit.clone(),
            level_before: found.level_before,
            level_after: found.level_after,
            magnitude: found.magnitude,
            sigma: found.sigma,
            threshold: found.threshold,
            regression: worse(self.better, found.magnitude),
            runs,
            needs: opts.min_size - runs,
            evidence: Evidence::new(found.magnitude, found.sigma, found.before, runs, None),
            rerun: None,
        })
    }

    /// The noise that applies at point `i`: of the level holding it.
    pub fn noise_at(&self, i: usize) -> Option<SeriesNoise> {
        self.levels
            .iter()
            .find(|l| (l.start..l.end).contains(&i))
            .and_then(|l| l.noise)
    }
}

/// Fills `s.breaks` and `s.changes` from its points: change points are searched within each
/// segment (points of one benchmark version on one machine), never across a break.
/// Series given as CSV (`series,value` header, then one row per point; a series' rows are
/// consecutive), in order: what `perfhouse changepoints` reads. Errors say the line and what
/// was expected.
pub fn parse_series_csv(text: &str) -> Result<Vec<(String, Vec<f64>)>, String> {
    let mut lines = text.lines();
    match lines.next() {
        Some(h) if h.trim() == "series,value" => {}
        h => {
            return Err(format!(
                "line 1: expected the header `series,value`, found {:?}",
                h.unwrap_or("")
            ));
        }
    }
    let mut series: Vec<(String, Vec<f64>)> = Vec::new();
    for (i, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let bad = || {
            format!(
                "line {}: expected `series,value` with a finite number, found {line:?}",
                i + 2
            )
        };
        let (name, v) = line.rsplit_once(',').ok_or_else(bad)?;
        let v: f64 = v.trim().parse().map_err(|_| bad())?;
        if !v.is_finite() {
            return Err(bad());
        }
        match series.last_mut() {
            Some((n, values)) if n == name => values.push(v),
            _ => series.push((name.to_string(), vec![v])),
        }
    }
    Ok(series)
}

/// The change points of one segment as `history` calls them (`stats::changepoint::detect`:
/// E-divisive's significant splits that move the dominant level by at least the change
/// threshold of the noise around them, are not half of a short excursion and not a change in
/// the mix of two levels); what `perfhouse changepoints` prints.
pub fn detect(values: &[f64], opts: &Options) -> Vec<crate::stats::changepoint::ChangePoint> {
    detect_all(values, opts).changes
}

/// [`detect`] with the segment's unstable stretches.
pub fn detect_all(values: &[f64], opts: &Options) -> crate::stats::changepoint::Detection {
    crate::stats::changepoint::detect(values, opts)
}

/// What `history` finds in one series, every segment searched on its own.
struct Found {
    changes: Vec<Change>,
    unstable: Vec<UnstableSpan>,
    minor: Vec<Change>,
    drifts: Vec<DriftSpan>,
}

/// The change points, unstable stretches and drifts of `s`, searched within each segment
/// (points of one benchmark version on one machine), never across a break.
fn changes_of(s: &Series, opts: &Options) -> Found {
    let mut out = Found {
        changes: Vec::new(),
        unstable: Vec::new(),
        minor: Vec::new(),
        drifts: Vec::new(),
    };
    let opts = Options {
        rule: s.rule,
        ..opts.clone()
    };
    for w in s.bounds().windows(2) {
        let (from, to) = (w[0], w[1]);
        let values: Vec<f64> = s.points[from..to].iter().map(|p| p.value).collect();
        let found = detect_all(&values, &opts);
        out.unstable
            .extend(found.unstable.iter().map(|u| unstable_span(s, from, u)));
        out.drifts.extend(found.drifts.iter().map(|d| {
            let (p, last) = (&s.points[from + d.start], &s.points[from + d.end - 1]);
            DriftSpan {
                start: from + d.start,
                end: from + d.end,
                run_id: p.run_id.clone(),
                run_no: p.run_no,
                git_commit: p.git_commit.clone(),
                last_run_no: last.run_no,
                from: d.from,
                to: d.to,
                total: d.total,
                runs: d.end - d.start,
                steps: d.steps,
                regression: worse(s.better, d.total),
            }
        }));
        let change = |c: &crate::stats::changepoint::ChangePoint| {
            let p = &s.points[from + c.index];
            Change {
                run_id: p.run_id.clone(),
                run_no: p.run_no,
                git_commit: p.git_commit.clone(),
                mean_before: c.mean_before,
                mean_after: c.mean_after,
                level_before: c.level_before,
                level_after: c.level_after,
                magnitude: c.magnitude,
                p_value: c.p_value,
                sigma: c.sigma,
                threshold: c.threshold,
                regression: worse(s.better, c.magnitude),
                evidence: Evidence::new(c.magnitude, c.sigma, c.before, c.after, Some(c.p_value)),
            }
        };
        out.changes.extend(found.changes.iter().map(change));
        out.minor.extend(found.minor.iter().map(change));
    }
    out
}

/// An unstable stretch `u` of the segment of `s` starting at point `from`.
fn unstable_span(s: &Series, from: usize, u: &crate::stats::changepoint::Unstable) -> UnstableSpan {
    let p = &s.points[from + u.start];
    UnstableSpan {
        start: from + u.start,
        end: from + u.end,
        run_id: p.run_id.clone(),
        run_no: p.run_no,
        git_commit: p.git_commit.clone(),
        low: u.modes.low,
        high: u.modes.high,
        low_share: u.modes.low_share,
        ashman_d: u.modes.ashman_d,
        switches: u.switches,
        ongoing: from + u.end == s.points.len(),
    }
}

#[cfg(test)]
mod suspected_break_tests {
    use super::*;

    /// No run list: no condition; an empty one: no row.
    #[test]
    fn only_runs_filters_nothing_without_a_list_and_everything_with_an_empty_one() {
        assert_eq!(only_runs("m", None), "");
        assert_eq!(only_runs("m", Some(&[])), " AND false");
        assert!(only_runs("a", Some(&["r1"])).starts_with(" AND "));
        assert!(only_runs("a", Some(&["r1"])).contains("a.run_id"));
    }

    fn pt(value: f64, version: Option<&str>) -> Point {
        Point {
            run_id: String::new(),
            run_no: 0,
            started_at: String::new(),
            git_commit: None,
            value,
            version: version.map(String::from),
            env_fingerprint: None,
            lo: None,
            hi: None,
        }
    }

    /// One level at 1.0 (dominant value), 30 runs: dips to 0.75 at runs 9 and 19, and the
    /// newest (29) at 0.74: its departure −26 %, the earlier ones −25 % ≥ 0.8 · 26 %: it
    /// recurs twice. Run 9's dip has none before it; a spike (1.3) counts no dips.
    #[test]
    fn a_dip_seen_before_in_its_level_recurs() {
        let mut values = vec![1.0; 30];
        values[9] = 0.75;
        values[19] = 0.75;
        values[29] = 0.74;
        let mut s = Series {
            points: values.iter().map(|&v| pt(v, None)).collect(),
            ..Series::new(
                "s".into(),
                "m".into(),
                "s".into(),
                Direction::LowerIsBetter,
                "default".into(),
                Default::default(),
            )
        };
        s.levels = s.levels();
        assert_eq!(s.levels.len(), 1);
        assert_eq!(s.levels[0].value, 1.0);
        assert_eq!(s.recurs(29), 2);
        assert_eq!(s.recurs(9), 0);
        s.points[29].value = 1.3;
        assert_eq!(s.recurs(29), 0);
        // Deeper than 1/0.8 of the earlier dips (−32 %: 25 < 0.8 · 32): new, not recurring.
        s.points[29].value = 0.68;
        assert_eq!(s.recurs(29), 0);
    }

    #[test]
    fn only_jumps_of_100x_without_a_version_are_suspected() {
        let p = |v: &[f64]| v.iter().map(|&x| pt(x, None)).collect::<Vec<_>>();
        assert_eq!(suspected_breaks(&p(&[1.0, 99.0, 1.0])), Vec::<usize>::new());
        assert_eq!(suspected_breaks(&p(&[1.0, 100.0, 100.5, 1.0])), vec![1, 3]);
        // Zero and negative values have no ratio.
        assert_eq!(
            suspected_breaks(&p(&[0.0, 500.0, -1.0])),
            Vec::<usize>::new()
        );
        // With a version recorded, a 1000× step is a change of that version's benchmark.
        let v = vec![pt(1.0, Some("a")), pt(1000.0, Some("a"))];
        assert_eq!(suspected_breaks(&v), Vec::<usize>::new());
    }
}
