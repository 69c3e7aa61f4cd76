//! Whole-run moves: most series of one run moving the same way beyond their own noise at
//! once. A code change moves the benchmarks that use that code; a run where nearly everything
//! moved together points at what they all share: the machine, its load, the environment. It is
//! one finding about the run ("29 of 38 series −23 … −98 %: whole run moved: environment?"),
//! not 29 verdicts about the code, and triage confirms it as an environment change (`accepted`:
//! each series starts a new segment at the run) or rejects it (any other state).
//!
//! A series **moved** at run `i` when its value there departs from the level holding the run
//! before (`history::Level`: the dominant value between changes) by at least its change rule's
//! threshold (`stats::noise::ChangeRule`, as a change point must) of the noise of one run at
//! that level (`stats::noise::quiet_sigma` over the [`WINDOW`] runs before), with no break
//! between them. A run is a **whole-run move** when at least [`MIN_SERIES`] series
//! moved its majority way (regressed, or improved) and they are more than [`SHARE`] of the
//! series with a comparable run there. What came after says what it was ([`Outcome`]).

use std::collections::BTreeMap;

use serde::Serialize;

use super::history::{Series, worse};
use crate::model::Params;

/// Fewest series moving one way for a whole-run move.
pub const MIN_SERIES: usize = 4;
/// The share of the run's comparable series they must exceed.
pub const SHARE: f64 = 0.5;
/// Later runs that decide whether the movers stayed (as many as a change point needs after
/// its first run).
pub const LOOK_AHEAD: usize = 2;
/// Runs of a suite before a whole-run move that [`WholeRun::recurs`] looks back over.
pub const RECUR_RUNS: u64 = 40;

/// What the runs after a whole-run move show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Too few later runs to tell (the newest runs): pending.
    Pending,
    /// Most movers stayed at their new level: a lasting change of everything at once (an
    /// environment change, or a change every benchmark shares).
    Stayed,
    /// Most movers came back: the run itself was off (a busy or different machine for a run).
    Returned,
}

/// One series' move at the run.
#[derive(Debug, Clone, Serialize)]
pub struct Member {
    pub metric: String,
    pub arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub params: Params,
    /// value / level before − 1, and in local σs.
    pub magnitude: f64,
    pub sigmas: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct WholeRun {
    pub suite: String,
    pub run_id: String,
    pub run_no: u64,
    pub started_at: String,
    pub git_commit: Option<String>,
    /// Series that moved the majority way, of those with a comparable run here.
    pub moved: usize,
    pub comparable: usize,
    /// The majority way: regressed (else improved).
    pub regression: bool,
    /// The movers' changes: range and geometric mean.
    pub min: f64,
    pub max: f64,
    pub geomean: f64,
    pub outcome: Outcome,
    /// Runs of the movers at their new level so far (this one and later ones that stayed).
    pub runs: usize,
    /// Whole-run moves the same way among the [`RECUR_RUNS`] runs of the suite before: an
    /// environment that switches between machines now and then.
    pub recurs: usize,
    pub members: Vec<Member>,
}

impl WholeRun {
    /// Whether the series `s` is one of its movers.
    pub fn moved(&self, s: &Series) -> bool {
        s.suite == self.suite
            && self
                .members
                .iter()
                .any(|m| m.metric == s.metric && m.arm == s.arm && m.params == s.params)
    }

    /// The finding in one line: "29 of 38 series −98.4% … −22.9%: whole run moved: environment?
    /// pending (1 run so far)".
    pub fn text(&self) -> String {
        let what = match self.outcome {
            Outcome::Pending => format!(
                "whole run moved: environment? pending ({} run{} so far; confirmed when {} more stay, dropped when they return)",
                self.runs,
                if self.runs == 1 { "" } else { "s" },
                (LOOK_AHEAD + 1).saturating_sub(self.runs)
            ),
            Outcome::Stayed => "whole run moved and stayed: environment change?".to_string(),
            Outcome::Returned => {
                "whole run moved for one run and came back: the run was off".to_string()
            }
        };
        let recurs = match self.recurs {
            0 => String::new(),
            n => format!(
                "; {n} of the {RECUR_RUNS} runs before moved this way too (an environment that switches?)"
            ),
        };
        format!(
            "{} of {} series {} {:+.1}% … {:+.1}%: {what}{recurs}",
            self.moved,
            self.comparable,
            if self.regression {
                "regressed"
            } else {
                "improved"
            },
            self.min * 100.0,
            self.max * 100.0
        )
    }
}

/// Per run (suite, run id): the series comparable there and the moves beyond noise.
#[derive(Default)]
struct Tally<'a> {
    comparable: usize,
    moves: Vec<(&'a Series, usize, f64, Option<f64>, f64)>,
}

/// Every whole-run move of `series` (change points found: their levels are read), oldest
/// first within a suite.
pub fn find<'a>(series: impl IntoIterator<Item = &'a Series>) -> Vec<WholeRun> {
    let mut runs: BTreeMap<(&str, &str), Tally> = BTreeMap::new();
    for s in series {
        for (i, level) in (1..s.points.len()).filter_map(|i| level_before(s, i).map(|l| (i, l))) {
            let (value, sigma) = level;
            let t = runs
                .entry((s.suite.as_str(), s.points[i].run_id.as_str()))
                .or_default();
            t.comparable += 1;
            let d = s.points[i].value / value - 1.0;
            let threshold = s.rule.threshold(sigma);
            if d.is_finite() && d.abs() >= threshold {
                t.moves.push((s, i, d, sigma, threshold));
            }
        }
    }
    let mut out: Vec<WholeRun> = runs
        .into_iter()
        .filter_map(|((suite, _), t)| judge(suite, &t))
        .collect();
    out.sort_by(|a, b| {
        (&a.suite, &a.started_at, a.run_no).cmp(&(&b.suite, &b.started_at, b.run_no))
    });
    for k in 0..out.len() {
        let w = &out[k];
        let recurs = out[..k]
            .iter()
            .filter(|o| o.suite == w.suite && o.regression == w.regression)
            .filter(|o| w.run_no.saturating_sub(o.run_no) <= RECUR_RUNS)
            .count();
        out[k].recurs = recurs;
    }
    out
}

/// Whether `w` is worth an alert: a move still pending or one that stayed (a run that came
/// back is marked on its page only).
pub fn alerting(w: &WholeRun) -> bool {
    w.outcome != Outcome::Returned
}

/// Runs before a point whose spread about their level its move is judged against.
pub const WINDOW: usize = 40;

/// The level value and σ a point `i` of `s` is judged against: the level holding the point
/// before it (unless a break lies between them), and the σ of one run about it over the
/// [`WINDOW`] runs of that level before `i` (`stats::noise::quiet_sigma`: the noise at the
/// level the series sits at, not its jumps to the others it visits).
fn level_before(s: &Series, i: usize) -> Option<(f64, Option<f64>)> {
    if s.breaks.contains(&i) {
        return None;
    }
    let l = s
        .levels
        .iter()
        .find(|l| (l.start..l.end).contains(&(i - 1)))?;
    if l.value == 0.0 || !l.value.is_finite() {
        return None;
    }
    let window: Vec<f64> = s.points[l.start.max(i.saturating_sub(WINDOW))..i]
        .iter()
        .map(|p| p.value)
        .collect();
    Some((l.value, crate::stats::noise::quiet_sigma(&window, l.value)))
}

/// The whole-run move of one run's tally, if its movers make one.
fn judge(suite: &str, t: &Tally) -> Option<WholeRun> {
    let regressed = t.moves.iter().filter(|m| worse(m.0.better, m.2)).count();
    let improved = t.moves.len() - regressed;
    let (moved, regression) = if regressed >= improved {
        (regressed, true)
    } else {
        (improved, false)
    };
    if moved < MIN_SERIES || (moved as f64) <= SHARE * t.comparable as f64 {
        return None;
    }
    let movers: Vec<_> = t
        .moves
        .iter()
        .filter(|m| worse(m.0.better, m.2) == regression)
        .collect();
    let (s0, i0) = (movers[0].0, movers[0].1);
    let p = &s0.points[i0];
    let mags: Vec<f64> = movers.iter().map(|m| m.2).collect();
    let (outcome, runs) = outcome(&movers);
    Some(WholeRun {
        suite: suite.to_string(),
        run_id: p.run_id.clone(),
        run_no: p.run_no,
        started_at: p.started_at.clone(),
        git_commit: p.git_commit.clone(),
        moved,
        comparable: t.comparable,
        regression,
        min: mags.iter().copied().fold(f64::INFINITY, f64::min),
        max: mags.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        geomean: crate::stats::geomean(&mags),
        outcome,
        runs,
        recurs: 0,
        members: movers
            .iter()
            .map(|m| Member {
                metric: m.0.metric.clone(),
                arm: m.0.arm.clone(),
                params: m.0.params.clone(),
                magnitude: m.2,
                sigmas: m.3.filter(|s| *s > 0.0).map(|s| m.2.abs() / s),
            })
            .collect(),
    })
}

/// What came after, by the majority of the movers: a mover **stayed** where history called a
/// change point at the run (its next runs held the new level), is **waiting** while fewer than
/// [`LOOK_AHEAD`] later runs exist and those stayed beyond its threshold the same way, and
/// **returned** otherwise. With the runs the waiting ones hold so far.
fn outcome(movers: &[&(&Series, usize, f64, Option<f64>, f64)]) -> (Outcome, usize) {
    let (mut stayed, mut returned, mut waiting, mut runs) = (0, 0, 0, usize::MAX);
    for &&(s, i, d, _, threshold) in movers {
        let run_id = &s.points[i].run_id;
        if s.changes.iter().any(|c| &c.run_id == run_id) {
            stayed += 1;
            continue;
        }
        let before = s.points[i].value / (1.0 + d);
        let later: Vec<f64> = s.points[i + 1..]
            .iter()
            .take(LOOK_AHEAD)
            .map(|p| p.value / before - 1.0)
            .collect();
        let away = |e: &f64| e.abs() >= threshold && e.signum() == d.signum();
        if later.len() < LOOK_AHEAD && later.iter().all(away) {
            waiting += 1;
            runs = runs.min(1 + later.len());
        } else {
            returned += 1;
        }
    }
    if waiting > 0 && waiting >= stayed.max(returned) {
        (Outcome::Pending, runs)
    } else if stayed > returned {
        (Outcome::Stayed, 1 + LOOK_AHEAD)
    } else {
        (Outcome::Returned, 1)
    }
}
