//! A/B comparison between two selections of the warehouse: per metric × params (× arm), the
//! medians, their ratio with a bootstrap CI, a Mann-Whitney p and a verdict; plus the flags and
//! diagnoses a performance engineer would otherwise work out by hand.
//!
//! Selections (`SEL`): a run id (or a unique prefix), `latest`, `<suite>#<n>` (run number),
//! `<suite>/<arm>` (the newest run of the suite with that arm, that arm only), `git:<commit>`
//! (the newest run of that commit); any of them followed by `@<arm>` keeps that arm only, so
//! two arms of one run compare as `latest@default` vs `latest@fastokens`.

pub mod measures;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Query;
use crate::model::{Phase, TrialStatus, params_text};
use crate::stats::verdict::{
    Direction, Judged, Verdict, VerdictOptions, change_pct, judge, p_text,
};
use crate::stats::{mean, median};

pub use super::samples::{CompareError, RunInfo, Selection, resolve};
use super::samples::{Side, TrialFigures, load};

#[derive(Debug, Clone, Serialize)]
pub struct MetricComparison {
    pub metric: String,
    pub unit: String,
    pub better: Direction,
    /// The arm compared (`a → b` when two arms are compared).
    pub arm: String,
    /// Parameters (as their JSON text in `--format json`).
    #[serde(with = "crate::model::params_as_json")]
    pub params: crate::model::Params,
    pub n_baseline: usize,
    pub n_candidate: usize,
    pub median_baseline: Option<f64>,
    pub median_candidate: Option<f64>,
    pub ratio: Option<f64>,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// The p-value of `test` (Mann-Whitney, or Welch's t on logs where no rank test can
    /// reach α).
    pub p_value: Option<f64>,
    pub test: crate::stats::verdict::Test,
    /// The noise threshold this row was judged with, and where it came from.
    pub threshold: f64,
    pub threshold_source: String,
    /// Which source set it: `calibration`, `history`, `floor` (`stats::noise::Source::name`)
    /// or `given` (`--metric-threshold`).
    pub threshold_from: &'static str,
    /// `p_value` after the Holm correction across the comparison's tests (see
    /// [`correct_for_many`]); `None` where the rank test could not decide anyway.
    pub p_adjusted: Option<f64>,
    /// Cliff's δ of the candidate's trials against the baseline's (−1…1): how much of the
    /// two distributions overlap, whatever their medians.
    pub cliffs_delta: Option<f64>,
    /// The per-trial values behind the medians, in trial order, so a reader sees whether one
    /// trial drives the verdict.
    pub baseline_values: Vec<f64>,
    pub candidate_values: Vec<f64>,
    /// Sorted by severity: regressed < inconclusive < improved < unchanged < info.
    pub verdict: Verdict,
    pub reason: String,
    /// Why an inconclusive row whose CI excludes no change (1) is not called, in a few words
    /// the table and the Markdown print beside its verdict ([`verdict_note`]); `None` for
    /// every other row.
    pub verdict_note: Option<String>,
}

/// Across parameter sets, as a sync-vs-async table by payload size is read.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub metric: String,
    pub arm: String,
    pub params_compared: usize,
    pub mean_ratio: f64,
    pub worst_ratio: f64,
    #[serde(with = "crate::model::params_as_json")]
    pub worst_params: crate::model::Params,
    /// Parameter sets whose point estimate moved the better / the worse way (ratio ≠ 1), and
    /// the range of the ratios.
    pub better: usize,
    pub worse: usize,
    pub min_ratio: f64,
    pub max_ratio: f64,
    /// The exact two-sided sign test of `better` against `worse` (`stats::sign_test`): rows
    /// too small to decide one by one can still all point one way, and 7 of 7 one way happens
    /// by chance 1.6 % of the time.
    pub sign_p: f64,
}

impl Summary {
    /// "throughput_rps gzip → zstd: better at 7 of 7 params (+12.5% … +35.8%, sign test
    /// p = 0.016)", where every parameter set moved one way and the sign test says so below
    /// `alpha`; `None` otherwise.
    pub fn one_way(&self, alpha: f64) -> Option<String> {
        let n = self.better + self.worse;
        let all_one_way = n == self.params_compared && (self.better == 0 || self.worse == 0);
        (all_one_way && self.sign_p < alpha).then(|| {
            format!(
                "{} {}: {} at {n} of {n} params ({} … {}, sign test {})",
                self.metric,
                self.arm,
                if self.better > 0 { "better" } else { "worse" },
                change_pct(self.min_ratio),
                change_pct(self.max_ratio),
                p_text(self.sign_p)
            )
        })
    }
}

/// A comparison of at least this many judged rows opens with a summary ([`Comparison::opening`]).
pub const MANY_ROWS: usize = 10;

/// The whole comparison in one line, benchstat-style.
#[derive(Debug, Clone, Serialize)]
pub struct Overall {
    /// Rows judged (metrics with a direction; `info` rows are left out).
    pub judged: usize,
    pub regressed: usize,
    pub improved: usize,
    pub unchanged: usize,
    pub inconclusive: usize,
    /// Geometric mean of the judged rows' ratios (candidate / baseline).
    pub geomean_ratio: Option<f64>,
    /// The smallest and largest change (ratio − 1) of the judged rows.
    pub change_range: Option<(f64, f64)>,
    /// Rank tests the Holm correction ran over (those whose sample sizes can reach p < α).
    pub corrected_over: usize,
    /// The multiple-comparison correction over the rows' p-values: `holm` (Holm–Bonferroni
    /// step-down, family-wise error ≤ 5 %).
    pub multiple_comparisons: &'static str,
    /// Said once, up front, where the samples are too small for the rank test: e.g. "2 vs 2
    /// trials per arm: too few for the Mann-Whitney test (its smallest p is 0.33); Welch's t
    /// on the logs decides, a bootstrap CI never alone".
    pub small_samples: Option<String>,
}

impl Overall {
    /// Counts, geometric mean and correction in one line (the terminal table's last word).
    pub fn line(&self) -> String {
        format!(
            "{} judged: {} regressed, {} improved, {} unchanged, {} inconclusive; {}",
            self.judged,
            self.regressed,
            self.improved,
            self.unchanged,
            self.inconclusive,
            self.spread()
        )
    }

    /// The geometric mean and the correction (where the counts are said already).
    pub fn spread(&self) -> String {
        format!(
            "geometric mean of ratios {} over {} judged rows; p Holm-corrected over {} test(s)",
            self.geomean_ratio
                .map_or("—".to_string(), |g| crate::model::signed_pct(g - 1.0)),
            self.judged,
            self.corrected_over
        )
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub baseline: Selection,
    pub candidate: Selection,
    pub threshold: f64,
    /// The significance level every row's test is held to (after the Holm correction).
    pub alpha: f64,
    pub overall: Overall,
    pub rows: Vec<MetricComparison>,
    pub summaries: Vec<Summary>,
    /// Things that make the comparison less trustworthy (different machines, client-bound).
    pub flags: Vec<String>,
    /// The flags that concern one arm at one set of parameters: the rows there show them
    /// beside their verdict. Each points into `flags` (the text lives there).
    #[serde(skip)]
    pub row_flags: Vec<RowFlag>,
    /// Findings from the figures (latency decomposition, knee, cold starts).
    pub diagnoses: Vec<String>,
    /// Per arm × params with two or more measures of the work (wall time, CPU time,
    /// instruction counts): which one decided (`query::compare::measures`).
    pub decisions: Vec<measures::Decision>,
}

/// A flag of one arm at one set of parameters ([`Comparison::row_flags`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RowFlag {
    pub arm: String,
    pub params: crate::model::Params,
    /// What it is in a word or two ("client-bound", "errors"): the row's short flag.
    pub short: &'static str,
    /// Its sentence: an index into [`Comparison::flags`].
    pub flag: usize,
}

impl RowFlag {
    /// Whether `row` compares this flag's arm at its parameters: the row's arm is the arm, or
    /// one side of `a → b`.
    pub fn concerns(&self, row: &MetricComparison) -> bool {
        row.params == self.params && row.arm.split(" → ").any(|a| a == self.arm)
    }
}

/// A validity flag as the checks find it: the arm × params it concerns (none: the whole
/// side), its short name and its sentence.
struct Found {
    at: Option<(String, crate::model::Params)>,
    short: &'static str,
    text: String,
}

/// Appends `found` to a comparison's flags, and those of one arm × params to its row flags.
fn push_found(flags: &mut Vec<String>, row_flags: &mut Vec<RowFlag>, found: Vec<Found>) {
    for f in found {
        if let Some((arm, params)) = f.at {
            row_flags.push(RowFlag {
                arm,
                params,
                short: f.short,
                flag: flags.len(),
            });
        }
        flags.push(f.text);
    }
}

impl MetricComparison {
    /// The p the verdict rests on, the one a table prints: Holm-adjusted where the row is in
    /// the comparison's family of tests ([`correct_for_many`]), else its test's own; none for a
    /// row shown for context.
    pub fn decisive_p(&self) -> Option<f64> {
        if self.better == Direction::Info {
            return None;
        }
        self.p_adjusted.or(self.p_value)
    }
}

impl Comparison {
    /// The heading of the p column: `Holm-adjusted p` where the comparison corrected over more
    /// than one test (the column then prints [`MetricComparison::decisive_p`]), else `p`.
    pub fn p_heading(&self) -> &'static str {
        if self.overall.corrected_over > 1 {
            "Holm-adjusted p"
        } else {
            "p"
        }
    }

    /// What a comparison of many rows opens with (empty for a few rows, unless one is needed):
    /// the counts and the range of the changes, then each metric whose every parameter set
    /// moved one way, significantly by the sign test, though its rows may each be too small to
    /// decide ("throughput_rps a → b: better at 7 of 7 params (+12.5% … +35.8%, sign test
    /// p = 0.016)").
    pub fn opening(&self) -> Vec<String> {
        let one_way: Vec<String> = self
            .summaries
            .iter()
            .filter_map(|s| s.one_way(self.alpha))
            .collect();
        let o = &self.overall;
        if o.judged < MANY_ROWS && one_way.is_empty() {
            return Vec::new();
        }
        let range = o.change_range.map_or(String::new(), |(lo, hi)| {
            format!(
                "; changes {} … {}",
                change_pct(1.0 + lo),
                change_pct(1.0 + hi)
            )
        });
        let mut out = vec![format!(
            "{} rows: {} improved, {} regressed, {} inconclusive, {} unchanged{range}",
            o.judged, o.improved, o.regressed, o.inconclusive, o.unchanged
        )];
        out.extend(one_way.into_iter().map(|w| format!("all one way: {w}")));
        out
    }

    /// Which noise thresholds judged the rows, in one clause: "noise thresholds per series
    /// (floor ±2%): 4 from A/A calibration, 12 from history, 6 at the floor".
    pub fn noise_line(&self) -> String {
        let judged: Vec<&MetricComparison> = self
            .rows
            .iter()
            .filter(|r| r.verdict != Verdict::Info)
            .collect();
        let mut parts = Vec::new();
        for (from, what) in [
            ("calibration", "from A/A calibration"),
            ("history", "from history"),
            ("given", "given"),
            ("floor", "at the floor"),
        ] {
            let n = judged.iter().filter(|r| r.threshold_from == from).count();
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        format!(
            "noise thresholds per series (floor ±{}){}{}",
            crate::stats::verdict::band_pct(self.threshold),
            if parts.is_empty() { "" } else { ": " },
            parts.join(", ")
        )
    }

    pub fn regressions(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Regressed)
            .count()
    }
}

#[derive(Debug, Clone, Default)]
pub struct CompareOptions {
    pub verdict: VerdictOptions,
    /// Per-metric noise thresholds overriding the noise model (`--threshold NAME=X`).
    pub thresholds: BTreeMap<String, f64>,
    /// Per-series thresholds learned from history and calibration; empty means every row is
    /// judged with the floor (`verdict.threshold`).
    pub noise: super::noise::NoiseModel,
    /// Judge this metric's rows only (`bisect --metric`, `run --until-decided`): a decision
    /// on one metric named in advance, so the Holm family is its rows, not every figure the
    /// trials have (the command's own wall, CPU and peak RSS among them).
    pub only: Option<String>,
}

pub async fn compare(
    q: &Query,
    baseline: Selection,
    candidate: Selection,
    opts: &CompareOptions,
) -> Result<Comparison, CompareError> {
    let a = load(q, baseline).await?;
    let b = load(q, candidate).await?;
    let mut rows = judge_pairs(&a, &b, opts);
    order_and_correct(&mut rows, opts.verdict.alpha);
    let overall = overall(&rows);
    let summaries = summarise(&rows);
    let (flags, row_flags) = side_flags(q, &a, &b, rows.is_empty()).await?;
    let diagnoses = diagnoses(q, &a, &b).await?;
    let decisions = measures::decisions(&rows);
    Ok(Comparison {
        decisions,
        baseline: a.sel,
        candidate: b.sel,
        threshold: opts.verdict.threshold,
        alpha: opts.verdict.alpha,
        overall,
        rows,
        summaries,
        flags,
        row_flags,
        diagnoses,
    })
}

/// The arm of a side with one arm (empty when it has none).
fn only_arm(s: &Side) -> String {
    s.samples
        .keys()
        .next()
        .map(|k| k.0.clone())
        .unwrap_or_default()
}

/// Whether a side's samples are of one arm at most.
fn single_arm(s: &Side) -> bool {
    s.samples
        .keys()
        .map(|k| &k.0)
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        <= 1
}

/// Every metric of every arm × params the two sides share, judged. Two single-arm sides (two
/// arms of one run, or one arm across runs) match by params; otherwise each arm is compared
/// with the same arm on the other side.
fn judge_pairs(a: &Side, b: &Side, opts: &CompareOptions) -> Vec<MetricComparison> {
    let by_params = single_arm(a) && single_arm(b);
    let same_run = a.sel.run.run_id == b.sel.run.run_id;
    let mut rows = Vec::new();
    for ((arm, params), metrics) in &a.samples {
        let other = if by_params {
            b.samples
                .iter()
                .find(|(k, _)| &k.1 == params)
                .map(|(_, v)| v)
        } else {
            b.samples.get(&(arm.clone(), params.clone()))
        };
        let Some(other) = other else { continue };
        let arm_label = if by_params && only_arm(a) != only_arm(b) {
            format!("{} → {}", only_arm(a), only_arm(b))
        } else {
            arm.clone()
        };
        for m in metrics {
            if opts.only.as_ref().is_some_and(|o| o != &m.name) {
                continue;
            }
            let Some(vb) = other.iter().find(|o| o.name == m.name).map(|o| &o.values) else {
                continue;
            };
            let key = (
                a.sel.run.suite.clone(),
                m.name.clone(),
                arm.clone(),
                params.clone(),
            );
            let threshold = threshold_for(opts, &key, m.values.len(), vb.len(), same_run);
            rows.push(judged_row(m, vb, &arm_label, params, threshold));
        }
    }
    rows
}

/// The verdict options a row is judged with (its noise threshold set) and where the threshold
/// came from: `(options, source's name, source in words)`.
type Threshold = (VerdictOptions, &'static str, String);

/// The threshold of the series `key` (suite, metric, arm, params) for samples of `na` and `nb`
/// trials: given (`--metric-threshold`), else the noise model's, never under its floor.
fn threshold_for(
    opts: &CompareOptions,
    key: &super::noise::Key,
    na: usize,
    nb: usize,
    same_run: bool,
) -> Threshold {
    let name = &key.1;
    let mut vo = opts.verdict.clone();
    if let Some(t) = opts.thresholds.get(name) {
        vo.threshold = *t;
        return (vo, "given", "given (--metric-threshold)".to_string());
    }
    // Each measure at its own floor: an instruction count's is a tenth of the
    // time floor (`figures::floor_scale`).
    let scale = super::figures::floor_scale(name);
    let floor = opts.verdict.threshold.max(crate::stats::noise::FLOOR) * scale;
    let t = opts.noise.threshold_at_least(key, na, nb, same_run, floor);
    vo.threshold = t.value.max(floor);
    let source = match t.source {
        crate::stats::noise::Source::Floor if scale != 1.0 => format!(
            "±{} floor of an instruction count (a tenth of the time floor): too \
             little history, no calibration",
            crate::stats::verdict::band_pct(floor)
        ),
        _ => t.source.describe(),
    };
    (vo, t.source.name(), source)
}

/// One metric of one arm × params judged: baseline samples `m`, candidate values `vb`.
fn judged_row(
    m: &super::samples::MetricSamples,
    vb: &[f64],
    arm_label: &str,
    params: &crate::model::Params,
    (vo, from, source): Threshold,
) -> MetricComparison {
    let va = &m.values;
    let j: Judged = judge(va, vb, m.direction, &vo);
    MetricComparison {
        metric: m.name.clone(),
        unit: m.unit.clone(),
        better: m.direction,
        arm: arm_label.to_string(),
        params: params.clone(),
        n_baseline: j.n_baseline,
        n_candidate: j.n_candidate,
        median_baseline: j.median_baseline,
        median_candidate: j.median_candidate,
        ratio: j.ratio,
        ci_low: j.ci.map(|c| c.0),
        ci_high: j.ci.map(|c| c.1),
        p_value: j.p_value,
        test: j.test,
        cliffs_delta: crate::stats::cliffs_delta(va, vb),
        baseline_values: va.clone(),
        candidate_values: vb.to_vec(),
        threshold: vo.threshold,
        threshold_from: from,
        p_adjusted: None,
        verdict: j.verdict,
        reason: if j.verdict == Verdict::Info || from == "floor" {
            j.reason
        } else {
            format!(
                "{}; threshold ±{} from {source}",
                j.reason,
                crate::stats::verdict::band_pct(vo.threshold)
            )
        },
        threshold_source: source,
        verdict_note: None,
    }
}

/// The Holm correction over all rows, then the rows in reading order (numeric parameters by
/// value, 2 before 16, as every page and report lists them; the metrics of one parameter set
/// keep their order), each with its verdict note.
fn order_and_correct(rows: &mut [MetricComparison], alpha: f64) {
    correct_for_many(rows, alpha);
    rows.sort_by(|x, y| {
        x.arm
            .cmp(&y.arm)
            .then_with(|| crate::model::cmp_params(&x.params, &y.params))
    });
    for r in rows.iter_mut() {
        r.verdict_note = verdict_note(r, alpha);
    }
}

/// What makes the comparison less trustworthy: different or unrecorded environments, each
/// side's client-bound and validity findings, and nothing compared (`no_rows`); with those of
/// one arm × params as row flags.
async fn side_flags(
    q: &Query,
    a: &Side,
    b: &Side,
    no_rows: bool,
) -> Result<(Vec<String>, Vec<RowFlag>), CompareError> {
    let mut flags = Vec::new();
    match (&a.sel.run.env_fingerprint, &b.sel.run.env_fingerprint) {
        (Some(x), Some(y)) if x != y => flags.push(format!(
            "different environments: baseline fingerprint {x}, candidate {y}; differences may be the machine's"
        )),
        (None, _) | (_, None) if a.sel.run.run_id != b.sel.run.run_id => flags.push(
            "environment not recorded for one side (ingested results): cannot confirm both ran on the same machine".to_string(),
        ),
        _ => {}
    }
    // Both sides of an A/B within one run share its facts.
    let facts_a = run_facts(q, &a.sel.run.run_id).await?;
    let facts_b = match a.sel.run.run_id == b.sel.run.run_id {
        true => None,
        false => Some(run_facts(q, &b.sel.run.run_id).await?),
    };
    let mut row_flags = Vec::new();
    for (side, facts) in [(a, &facts_a), (b, facts_b.as_ref().unwrap_or(&facts_a))] {
        push_found(&mut flags, &mut row_flags, client_bound(side));
        push_found(&mut flags, &mut row_flags, validity(side, facts));
    }
    if no_rows {
        flags.push(
            "nothing to compare: the selections share no arm × params with figures".to_string(),
        );
    }
    Ok((flags, row_flags))
}

/// What the figures say about where time goes: TTFT's share, knees, cold starts, and, for two
/// arms of one load sweep, their capacities at the suite's SLOs (`query::sweep`, read only
/// where the trials already loaded show a sweep).
async fn diagnoses(q: &Query, a: &Side, b: &Side) -> Result<Vec<String>, CompareError> {
    let mut out = Vec::new();
    for side in [a, b] {
        out.extend(decomposition(side));
        out.extend(knees(side));
        out.extend(cold_starts(side));
    }
    if a.sel.run.run_id == b.sel.run.run_id
        && super::sweep::load_param(a.trials.iter().map(|t| &t.params)).is_some()
        && let Some(sweep) = super::sweep::sweep(q, &a.sel.run.run_id, None).await?
        && let Some(shift) = sweep.shift
    {
        out.push(format!("capacity at SLO ({}): {}", sweep.slo, shift.text));
    }
    Ok(out)
}

/// Many metrics at once: the Holm step-down correction (family-wise error ≤ α across the
/// comparison) of the rows' p-values. Holm, not Benjamini–Hochberg: a PR comment's reader acts
/// on each "regressed" row, so the chance of any false one is what should be bounded. Every
/// judged row's test can reach p < α (the verdict picks Welch's t where the rank test cannot),
/// so every judged row with a p is in the family. A row whose verdict rested on its p and
/// whose adjusted p is no longer below α becomes inconclusive, and its reason says so.
pub fn correct_for_many(rows: &mut [MetricComparison], alpha: f64) {
    let mut family: Vec<(usize, f64)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.better != Direction::Info)
        .filter_map(|(i, r)| r.p_value.map(|p| (i, p)))
        .collect();
    family.sort_by(|a, b| a.1.total_cmp(&b.1));
    let m = family.len();
    let mut running = 0.0f64;
    for (k, (i, p)) in family.into_iter().enumerate() {
        running = running.max(((m - k) as f64 * p).min(1.0));
        let r = &mut rows[i];
        r.p_adjusted = Some(running);
        // The reason names the p the table prints (the adjusted one, where there is a family).
        if matches!(r.verdict, Verdict::Improved | Verdict::Regressed) && running >= alpha {
            r.verdict = Verdict::Inconclusive;
            r.reason = format!(
                "{}; but over the {m} tests of this comparison the Holm-adjusted {} ≥ {alpha}",
                r.reason,
                p_text(running)
            );
        } else if m > 1 {
            r.reason = format!(
                "{}; over the {m} tests of this comparison the Holm-adjusted {}",
                r.reason,
                p_text(running)
            );
        } else if !r.reason.contains(&p_text(running)) {
            r.reason = format!("{}; {} {}", r.reason, r.test.as_str(), p_text(running));
        }
    }
}

/// The short reason an inconclusive row whose CI excludes no change is not called (every such
/// row has one; other rows none). Every judged row of a comparison is decided by one rule
/// (`stats::verdict::judge`, then [`correct_for_many`]): its CI wholly beyond its noise
/// threshold, and its test (Mann-Whitney where the sizes can reach α, else Welch's t on the
/// logs) significant after the Holm correction over all the comparison's tests. So a row
/// whose CI excludes no change is inconclusive for one of three reasons, said in the row:
/// its CI reaches inside the noise band; its test does not reach α (with 2 or 3 trials per
/// arm, Welch's t has 1–4 degrees of freedom, so the spread of two values decides); or the
/// Holm correction over the comparison's tests takes it above α.
pub fn verdict_note(r: &MetricComparison, alpha: f64) -> Option<String> {
    let (lo, hi) = r.ci_low.zip(r.ci_high)?;
    if r.verdict != Verdict::Inconclusive || (lo <= 1.0 && hi >= 1.0) {
        return None;
    }
    let t = r.threshold;
    let band = crate::stats::verdict::band_pct(t);
    if lo <= 1.0 + t && hi >= 1.0 - t {
        return Some(format!("CI reaches inside the ±{band} noise band"));
    }
    let small = match (r.n_baseline, r.n_candidate) {
        (a, b) if r.test == crate::stats::verdict::Test::WelchLog && a == b => {
            format!("{a} trials per arm, ")
        }
        (a, b) if r.test == crate::stats::verdict::Test::WelchLog => {
            format!("{a} vs {b} trials, ")
        }
        _ => String::new(),
    };
    let test = r.test.as_str();
    Some(match (r.p_value, r.p_adjusted) {
        (Some(p), Some(adj)) if p < alpha && adj >= alpha => format!(
            "{small}{test} {} but Holm-adjusted {} ≥ {alpha}",
            p_text(p),
            p_text(adj)
        ),
        // The adjusted p is the one the verdict used (and the table prints): name it too.
        (Some(p), Some(adj)) if adj > p => format!(
            "{small}{test} {}, Holm-adjusted {} ≥ {alpha}",
            p_text(p),
            p_text(adj)
        ),
        (Some(p), _) => format!(
            "{small}{test} {} ≥ {alpha}",
            crate::stats::verdict::p_text(p)
        ),
        (None, _) => format!("{small}no test possible"),
    })
}

fn overall(rows: &[MetricComparison]) -> Overall {
    let judged: Vec<&MetricComparison> =
        rows.iter().filter(|r| r.verdict != Verdict::Info).collect();
    let count = |v: Verdict| judged.iter().filter(|r| r.verdict == v).count();
    let logs: Vec<f64> = judged
        .iter()
        .filter_map(|r| r.ratio)
        .filter(|x| *x > 0.0 && x.is_finite())
        .map(f64::ln)
        .collect();
    Overall {
        judged: judged.len(),
        regressed: count(Verdict::Regressed),
        improved: count(Verdict::Improved),
        unchanged: count(Verdict::Unchanged),
        inconclusive: count(Verdict::Inconclusive),
        geomean_ratio: mean(&logs).map(f64::exp),
        change_range: judged.iter().filter_map(|r| r.ratio).map(|x| x - 1.0).fold(
            None,
            |acc: Option<(f64, f64)>, d| {
                Some(acc.map_or((d, d), |(lo, hi)| (lo.min(d), hi.max(d))))
            },
        ),
        corrected_over: rows.iter().filter(|r| r.p_adjusted.is_some()).count(),
        multiple_comparisons: "holm",
        small_samples: small_samples(&judged),
    }
}

/// The up-front note where judged rows are too small for the rank test (3 vs 3 and fewer):
/// which sizes, and what decides instead.
fn small_samples(judged: &[&MetricComparison]) -> Option<String> {
    let mut sizes: Vec<(usize, usize)> = judged
        .iter()
        .filter(|r| r.test == crate::stats::verdict::Test::WelchLog)
        .map(|r| (r.n_baseline, r.n_candidate))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    // One trial on a side: no spread, so no test at all.
    if let Some(&(a, b)) = sizes.iter().find(|(a, b)| *a < 2 || *b < 2) {
        let n = if a == b {
            format!("{a} trial per arm")
        } else {
            format!("{a} trials against {b}")
        };
        return Some(format!(
            "{n}: one trial shows no spread, so no test can decide; those rows are inconclusive whatever they show"
        ));
    }
    let (a, b) = *sizes.first()?;
    let floor = crate::stats::mannwhitney::min_p_value(a, b);
    let n = if sizes.len() == 1 && a == b {
        format!("{a} trials per arm")
    } else {
        format!("{a} vs {b} trials per arm (the smallest)")
    };
    Some(format!(
        "{n}: too few for the Mann-Whitney rank test (its smallest two-sided p is {floor:.2}); Welch's t on the logs decides those rows, a bootstrap CI never alone"
    ))
}

fn summarise(rows: &[MetricComparison]) -> Vec<Summary> {
    let mut groups: BTreeMap<(String, String), Vec<&MetricComparison>> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| r.better != Direction::Info && r.ratio.is_some())
    {
        groups
            .entry((r.metric.clone(), r.arm.clone()))
            .or_default()
            .push(r);
    }
    groups
        .into_iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|((metric, arm), v)| {
            let ratios: Vec<f64> = v.iter().filter_map(|r| r.ratio).collect();
            // Worst = the ratio furthest in the bad direction.
            let worst = v
                .iter()
                .max_by(|x, y| {
                    let bad = |r: &MetricComparison| {
                        if r.better == Direction::HigherIsBetter {
                            -r.ratio.unwrap_or(1.0)
                        } else {
                            r.ratio.unwrap_or(1.0)
                        }
                    };
                    bad(x).total_cmp(&bad(y))
                })
                .expect("non-empty group");
            let up = ratios.iter().filter(|&&x| x > 1.0).count();
            let down = ratios.iter().filter(|&&x| x < 1.0).count();
            let (better, worse) = if v[0].better == Direction::HigherIsBetter {
                (up, down)
            } else {
                (down, up)
            };
            Summary {
                metric,
                arm,
                params_compared: v.len(),
                mean_ratio: mean(&ratios).unwrap_or(f64::NAN),
                worst_ratio: worst.ratio.unwrap_or(f64::NAN),
                worst_params: worst.params.clone(),
                better,
                worse,
                min_ratio: ratios.iter().copied().fold(f64::INFINITY, f64::min),
                max_ratio: ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                sign_p: crate::stats::sign_test(better, better + worse),
            }
        })
        .collect()
}

/// A closed-loop trial whose Little's-law ratio is below this was paced by its client.
pub const CLIENT_BOUND: f64 = 0.9;

/// Closed-loop trials whose Little's-law ratio is below [`CLIENT_BOUND`]: the client, not the
/// server, set the pace, so latency and throughput understate the server.
fn client_bound(s: &Side) -> Vec<Found> {
    let mut groups: BTreeMap<(&str, &crate::model::Params), Vec<f64>> = BTreeMap::new();
    for t in s.trials.iter().filter(|t| t.kept) {
        if let Some(r) = t.fig("littles_law_ratio") {
            groups.entry((&t.arm, &t.params)).or_default().push(r);
        }
    }
    groups
        .into_iter()
        .filter_map(|((arm, params), v)| {
            let m = median(&v)?;
            (m < CLIENT_BOUND).then(|| Found {
                at: Some((arm.to_string(), params.clone())),
                short: "client-bound",
                text: format!(
                    "{}: {arm} at {} is client-bound: Little's-law ratio {:.2} < 0.9 (throughput × mean latency ÷ concurrency); the load generator, not the server, set the pace",
                    s.sel.label, params_text(params), m
                ),
            })
        })
        .collect()
}

/// What the validity checks read of a run beyond its trial figures, read once per run.
struct RunFacts {
    /// Prompt and prefix-cache token figures of the tools (per trial).
    usage: Vec<Usage>,
    warmup_requests: i64,
}

#[derive(Deserialize)]
struct Usage {
    trial_id: i64,
    name: String,
    value: f64,
}

async fn run_facts(q: &Query, run_id: &str) -> Result<RunFacts, CompareError> {
    #[derive(Deserialize)]
    struct N {
        n: i64,
    }
    let usage = q
        .rows(&format!(
            "SELECT trial_id, name, value FROM metrics WHERE run_id = {} AND name IN \
             ('aiperf.usage_prompt_cache_read_tokens.avg', 'aiperf.usage_prompt_tokens.avg', \
              'guidellm.cached_tokens.sum', 'guidellm.prompt_tokens.sum')",
            super::lit(run_id)
        ))
        .await?;
    let n: Vec<N> = q
        .rows(&format!(
            "SELECT count(*) AS n FROM requests WHERE run_id = {} AND phase = 'warmup'",
            super::lit(run_id)
        ))
        .await?;
    Ok(RunFacts {
        usage,
        warmup_requests: n.first().map_or(0, |n| n.n),
    })
}

/// Share of a cell's requests that may fail before its latencies stop describing the load.
pub const MAX_ERROR_RATE: f64 = 0.01;
/// An open-loop generator achieving less than this share of its requested rate lagged.
pub const MIN_ACHIEVED_RATE: f64 = 0.95;
/// Share of prompt tokens read from the server's prefix cache above which TTFT measures cache
/// hits rather than prefill.
pub const MAX_PREFIX_CACHED: f64 = 0.10;

/// What makes a side's load figures less trustworthy, where its data shows it: errors or
/// cancellations above 1 % of a cell's requests; an open-loop `request_rate` achieved at less
/// than 95 %; no warm-up at all (no warm-up requests and no discarded cold first trial); more
/// than 10 % of prompt tokens served from the server's prefix cache (the tool's own usage
/// figures: aiperf's `usage_prompt_cache_read_tokens`, GuideLLM's `cached_tokens`), i.e.
/// repeated prompts reaching a server that kept them (vLLM #54227: TTFT 49× off).
fn validity(s: &Side, facts: &RunFacts) -> Vec<Found> {
    let mut out = prefix_cache_flags(s, &facts.usage);
    let cells = load_cells(s);
    out.extend(load_flags(s, &cells));
    if !cells.is_empty() && !s.trials.iter().any(|t| t.discarded) && facts.warmup_requests == 0 {
        out.push(Found {
            at: None,
            short: "no warm-up",
            text: format!(
                "{}: no warm-up (no warm-up requests, no discarded cold first trial): the first measured requests of each trial include cold starts",
                s.sel.label
            ),
        });
    }
    out
}

/// Arm × params where more than [`MAX_PREFIX_CACHED`] of some measured trial's prompt tokens
/// were read from the server's prefix cache (the tools' own usage figures).
fn prefix_cache_flags(s: &Side, usage: &[Usage]) -> Vec<Found> {
    let mut out = Vec::new();
    let mut cached: BTreeMap<(&str, &crate::model::Params), Vec<f64>> = BTreeMap::new();
    for t in s
        .trials
        .iter()
        .filter(|t| t.phase == Phase::Measured && !t.discarded)
    {
        let get = |suffix: &[&str]| {
            usage
                .iter()
                .find(|u| u.trial_id == t.trial_id && suffix.contains(&u.name.as_str()))
                .map(|u| u.value)
        };
        let hit = get(&[
            "aiperf.usage_prompt_cache_read_tokens.avg",
            "guidellm.cached_tokens.sum",
        ]);
        let all = get(&[
            "aiperf.usage_prompt_tokens.avg",
            "guidellm.prompt_tokens.sum",
        ]);
        if let (Some(hit), Some(all)) = (hit, all.filter(|a| *a > 0.0)) {
            cached
                .entry((&t.arm, &t.params))
                .or_default()
                .push(hit / all);
        }
    }
    for ((arm, params), shares) in &cached {
        let hi = shares.iter().cloned().fold(0.0, f64::max);
        if hi > MAX_PREFIX_CACHED {
            let lo = shares.iter().cloned().fold(1.0, f64::min);
            out.push(Found {
                at: Some((arm.to_string(), (*params).clone())),
                short: "prefix-cached",
                text: format!(
                    "{}: {arm} at {}: {:.0}–{:.0}% of prompt tokens were read from the server's prefix cache across its trials (> {:.0}%): repeated prompts reached a server that kept them, so TTFT measures cache hits, not prefill",
                    s.sel.label,
                    params_text(params),
                    100.0 * lo,
                    100.0 * hi,
                    100.0 * MAX_PREFIX_CACHED
                ),
            });
        }
    }
    out
}

/// Per arm × params of a side's measured trials: requests, errored or cancelled ones, and
/// the achieved throughputs of the kept trials.
type LoadCells<'a> = BTreeMap<(&'a str, &'a crate::model::Params), (f64, f64, Vec<f64>)>;

fn load_cells(s: &Side) -> LoadCells<'_> {
    let mut cells: LoadCells = BTreeMap::new();
    for t in s
        .trials
        .iter()
        .filter(|t| t.phase == Phase::Measured && !t.discarded)
    {
        let Some(n) = t.fig("requests").filter(|n| *n > 0.0) else {
            continue;
        };
        let c = cells.entry((&t.arm, &t.params)).or_default();
        c.0 += n;
        c.1 += t.fig("errors").unwrap_or(0.0) + t.fig("cancelled").unwrap_or(0.0);
        if t.kept
            && let Some(x) = t.fig("throughput_rps")
        {
            c.2.push(x);
        }
    }
    cells
}

/// Cells whose errors pass [`MAX_ERROR_RATE`] or whose open-loop rate was achieved at less
/// than [`MIN_ACHIEVED_RATE`].
fn load_flags(s: &Side, cells: &LoadCells) -> Vec<Found> {
    let mut out = Vec::new();
    for ((arm, params), (n, bad, x)) in cells {
        let where_ = format!("{}: {arm} at {}", s.sel.label, params_text(params));
        let at = Some((arm.to_string(), (*params).clone()));
        if bad / n > MAX_ERROR_RATE {
            out.push(Found {
                at: at.clone(),
                short: "errors",
                text: format!(
                    "{where_}: {:.1}% of requests errored or were cancelled (> {:.0}%): its latencies describe only the requests that completed",
                    100.0 * bad / n,
                    100.0 * MAX_ERROR_RATE
                ),
            });
        }
        let rate = params
            .get("request_rate")
            .and_then(|r| r.parse::<f64>().ok());
        if let (Some(rate), Some(got)) = (rate.filter(|r| *r > 0.0), median(x))
            && got < MIN_ACHIEVED_RATE * rate
        {
            out.push(Found {
                at,
                short: "generator lagged",
                text: format!(
                    "{where_}: achieved {got:.1} req/s of the {rate} requested ({:+.0}%): the open-loop generator lagged, so the server saw less load than asked and latencies are understated",
                    (got / rate - 1.0) * 100.0
                ),
            });
        }
    }
    out
}

/// Per arm, the median of `figure` over kept trials at each concurrency, in concurrency order.
fn by_concurrency(
    s: &Side,
    figure: impl Fn(&TrialFigures) -> Option<f64>,
) -> BTreeMap<&str, Vec<(i64, f64)>> {
    let mut groups: BTreeMap<(&str, i64), Vec<f64>> = BTreeMap::new();
    for t in s.trials.iter().filter(|t| t.kept) {
        if let (Some(c), Some(x)) = (t.concurrency, figure(t)) {
            groups.entry((&t.arm, c)).or_default().push(x);
        }
    }
    let mut by_arm: BTreeMap<&str, Vec<(i64, f64)>> = BTreeMap::new();
    for ((arm, c), v) in groups {
        by_arm
            .entry(arm)
            .or_default()
            .push((c, median(&v).unwrap_or(f64::NAN)));
    }
    by_arm
}

/// TTFT's share of request latency by concurrency: a share that rises with load means
/// requests queue before generation starts (tokenizer, router, admission), not in decode.
fn decomposition(s: &Side) -> Vec<String> {
    let by_arm = by_concurrency(s, |t| {
        match (t.fig("ttft_p50_ms"), t.fig("latency_p50_ms")) {
            (Some(ttft), Some(lat)) if lat > 0.0 => Some(ttft / lat),
            _ => None,
        }
    });
    by_arm
        .into_iter()
        .filter(|(_, v)| v.len() >= 2)
        .map(|(arm, v)| {
            let path: Vec<String> = v
                .iter()
                .map(|(c, s)| format!("{:.0}% at c={c}", s * 100.0))
                .collect();
            let rising = v.windows(2).all(|w| w[1].1 > w[0].1 + 0.02);
            format!(
                "{} {arm}: TTFT share of p50 latency {}{}",
                s.sel.label,
                path.join(", "),
                if rising {
                    ": rising with load, so requests queue upstream of generation"
                } else {
                    ""
                }
            )
        })
        .collect()
}

/// The knee of a concurrency sweep, as `perfhouse sweep` defines it (`stats::sweep::knee`).
fn knees(s: &Side) -> Vec<String> {
    let throughput = by_concurrency(s, |t| t.fig("throughput_rps"));
    let latency = by_concurrency(s, |t| t.fig("latency_p50_ms"));
    throughput
        .into_iter()
        .filter(|(_, v)| v.len() >= 2)
        .map(|(arm, v)| {
            let lat = latency.get(arm);
            let levels: Vec<crate::stats::sweep::Level> = v
                .iter()
                .map(|&(c, x)| crate::stats::sweep::Level {
                    load: c as f64,
                    n: 1,
                    throughput: x,
                    latency: lat.and_then(|l| l.iter().find(|p| p.0 == c)).map(|p| p.1),
                    checks: Vec::new(),
                })
                .collect();
            match crate::stats::sweep::knee(&levels) {
                Some(k) => format!(
                    "{} {arm}: throughput stops scaling at concurrency {} ({:.1} req/s): every later step adds less than half its share while latency climbs",
                    s.sel.label, k.load, k.throughput
                ),
                None => format!(
                    "{} {arm}: throughput still rising at the highest concurrency tried ({}); no knee yet",
                    s.sel.label,
                    v.last().map(|p| p.0).unwrap_or_default()
                ),
            }
        })
        .collect()
}

/// A first repeat far from the rest (more than 10 % off the others' median throughput).
fn cold_starts(s: &Side) -> Vec<String> {
    let mut groups: BTreeMap<(&str, &crate::model::Params), Vec<&TrialFigures>> = BTreeMap::new();
    for t in s
        .trials
        .iter()
        .filter(|t| t.phase == Phase::Measured && t.status == TrialStatus::Ok)
    {
        groups.entry((&t.arm, &t.params)).or_default().push(t);
    }
    groups
        .into_iter()
        .filter_map(|((arm, params), v)| {
            let first = v.iter().min_by_key(|t| t.repeat)?;
            let rest: Vec<f64> = v.iter().filter(|t| t.trial_id != first.trial_id).filter_map(|t| t.fig("throughput_rps")).collect();
            let (x, m) = (first.fig("throughput_rps")?, median(&rest)?);
            let off = (x - m) / m;
            (off.abs() > 0.10).then(|| format!(
                "{} {arm} at {}: first repeat {:+.0}% off the others' median throughput ({x:.1} vs {m:.1} req/s){}",
                s.sel.label,
                params_text(params),
                off * 100.0,
                if first.discarded { ", already discarded as a cold start" } else { "; consider discarding it (--discard-first)" }
            ))
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A lower-is-better row in ms, ratio 1.2, its CI 1.1…1.3, its test's p `p` at `n` vs `n`.
    pub(crate) fn row(p: f64, n: usize, verdict: Verdict) -> MetricComparison {
        MetricComparison {
            metric: format!("m{p}"),
            unit: "ms".into(),
            better: Direction::LowerIsBetter,
            arm: "a".into(),
            params: Default::default(),
            n_baseline: n,
            n_candidate: n,
            median_baseline: Some(1.0),
            median_candidate: Some(1.2),
            ratio: Some(1.2),
            ci_low: Some(1.1),
            ci_high: Some(1.3),
            p_value: Some(p),
            test: if n <= 3 {
                crate::stats::verdict::Test::WelchLog
            } else {
                crate::stats::verdict::Test::MannWhitney
            },
            threshold: 0.02,
            threshold_source: "floor".into(),
            threshold_from: "floor",
            cliffs_delta: None,
            baseline_values: Vec::new(),
            candidate_values: Vec::new(),
            p_adjusted: None,
            verdict,
            reason: "CI beyond".into(),
            verdict_note: None,
        }
    }

    #[test]
    fn holm_over_every_judged_test() {
        // By hand: p sorted 0.001, 0.02, 0.03, 0.04, 0.1 over m = 5 → 5·0.001 = 0.005,
        // max(0.005, 4·0.02) = 0.08, max(0.08, 3·0.03) = 0.09, max(0.09, 2·0.04) = 0.09,
        // max(0.09, 1·0.1) = 0.1. The 3-vs-3 row's p is Welch's (it can reach α), so it is in
        // the family.
        let mut rows = vec![
            row(0.03, 10, Verdict::Regressed),
            row(0.001, 10, Verdict::Regressed),
            row(0.1, 3, Verdict::Regressed),
            row(0.04, 10, Verdict::Improved),
            row(0.02, 10, Verdict::Regressed),
        ];
        correct_for_many(&mut rows, 0.05);
        let adj: Vec<Option<f64>> = rows.iter().map(|r| r.p_adjusted).collect();
        let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-12);
        assert!(close(adj[0], 0.09) && close(adj[1], 0.005) && close(adj[3], 0.09));
        assert!(close(adj[4], 0.08) && close(adj[2], 0.1), "{adj:?}");
        let v: Vec<Verdict> = rows.iter().map(|r| r.verdict).collect();
        assert_eq!(
            v,
            [
                Verdict::Inconclusive,
                Verdict::Regressed,
                Verdict::Inconclusive,
                Verdict::Inconclusive,
                Verdict::Inconclusive
            ]
        );
        assert!(rows[0].reason.contains("Holm-adjusted p = 0.090"));
        assert_eq!(
            verdict_note(&rows[0], 0.05).as_deref(),
            Some("Mann-Whitney p = 0.030 but Holm-adjusted p = 0.090 ≥ 0.05")
        );
        let o = overall(&rows);
        assert_eq!(
            (o.judged, o.regressed, o.inconclusive, o.corrected_over),
            (5, 1, 4, 5)
        );
        assert!((o.geomean_ratio.unwrap() - 1.2).abs() < 1e-12);
    }

    /// A row judged from its trials as `compare` judges it (higher is better, ±2 % floor).
    fn judged(metric: &str, baseline: &[f64], candidate: &[f64]) -> MetricComparison {
        let samples = crate::query::samples::MetricSamples {
            name: metric.into(),
            unit: "MB/s".into(),
            direction: Direction::HigherIsBetter,
            values: baseline.to_vec(),
        };
        let floor = (VerdictOptions::default(), "floor", "floor".to_string());
        judged_row(
            &samples,
            candidate,
            "gzip → zstd",
            &Default::default(),
            floor,
        )
    }

    #[test]
    fn rows_of_one_comparison_decide_by_one_rule_and_say_why_not() {
        let e = f64::exp;
        let mut rows = vec![
            judged("wide", &[1.0, e(0.2)], &[e(1.5), e(1.7)]),
            judged("tight", &[1.0, e(0.02)], &[e(1.5), e(1.52)]),
        ];
        for i in 0..6 {
            rows.push(judged(&format!("same{i}"), &[1.0, 1.01], &[1.0, 1.01]));
        }
        assert!(
            rows.iter()
                .all(|r| r.test == crate::stats::verdict::Test::WelchLog)
        );
        let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-6 * b.max(1e-3));
        assert!(
            close(rows[0].p_value, 0.008_772_099),
            "{:?}",
            rows[0].p_value
        );
        assert!(
            close(rows[1].p_value, 0.000_088_877),
            "{:?}",
            rows[1].p_value
        );
        assert_eq!(
            (rows[0].verdict, rows[1].verdict),
            (Verdict::Improved, Verdict::Improved),
            "before the correction"
        );
        correct_for_many(&mut rows, 0.05);
        for r in &mut rows {
            r.verdict_note = verdict_note(r, 0.05);
        }
        assert!(
            close(rows[0].p_adjusted, 0.061_404_695),
            "{:?}",
            rows[0].p_adjusted
        );
        assert!(
            close(rows[1].p_adjusted, 0.000_711_016),
            "{:?}",
            rows[1].p_adjusted
        );
        assert_eq!(rows[0].verdict, Verdict::Inconclusive);
        assert_eq!(rows[1].verdict, Verdict::Improved);
        assert!(
            rows[0].ci_low.unwrap() >= e(1.3) - 1e-9,
            "{:?}",
            rows[0].ci_low
        );
        assert_eq!(
            rows[0].verdict_note.as_deref(),
            Some("2 trials per arm, Welch t on logs p = 0.009 but Holm-adjusted p = 0.061 ≥ 0.05")
        );
        assert!(
            rows[0]
                .reason
                .contains("over the 8 tests of this comparison the Holm-adjusted p = 0.061"),
            "{}",
            rows[0].reason
        );
        // Called and unchanged rows carry no note.
        assert!(rows[1..].iter().all(|r| r.verdict_note.is_none()));
        // A CI clear of 0 but inside the band: the band is the reason.
        let mut edge = judged("edge", &[100.0, 100.2], &[101.0, 101.5]);
        edge.verdict = Verdict::Inconclusive;
        assert_eq!(
            verdict_note(&edge, 0.05).as_deref(),
            Some("CI reaches inside the ±2% noise band")
        );
    }

    /// A comparison of `rows` as `compare` concludes one (Holm, notes, counts, summaries),
    /// between two placeholder selections.
    pub(crate) fn comparison_of(mut rows: Vec<MetricComparison>) -> Comparison {
        let alpha = VerdictOptions::default().alpha;
        correct_for_many(&mut rows, alpha);
        for r in &mut rows {
            r.verdict_note = verdict_note(r, alpha);
        }
        let sel = |label: &str| Selection {
            run: RunInfo {
                run_id: "run".into(),
                suite: "s".into(),
                run_no: 1,
                started_at: String::new(),
                git_commit: None,
                env_fingerprint: None,
            },
            arm: None,
            label: label.into(),
        };
        Comparison {
            baseline: sel("s#1@a"),
            candidate: sel("s#1@b"),
            threshold: 0.02,
            alpha,
            overall: overall(&rows),
            summaries: summarise(&rows),
            rows,
            flags: Vec::new(),
            row_flags: Vec::new(),
            diagnoses: Vec::new(),
            decisions: Vec::new(),
        }
    }

    /// The sweep, in small: 7 load levels at 2 trials per arm where the candidate's
    /// throughput is higher at every one (+12.5 … +35.8 %, Welch p = 0.02 each, called before
    /// the correction), and 5 latency rows unchanged (ratio 1, p = 0.5). Holm over the 12
    /// tests: 12 · 0.02 = 0.24 for each throughput row (the running max keeps 0.24 down the
    /// seven), 5 · 0.5 = 2.5 → 1 for the rest. So every throughput row is inconclusive, its p
    /// column and its reason say 0.240, and the comparison opens with its counts, the range
    /// and the one-way metric: 7 of 7 better, sign test 2/2⁷ = 0.015625.
    #[test]
    fn a_many_row_comparison_opens_with_a_summary_and_prints_the_p_it_decides_by() {
        let ratios = [1.125, 1.15, 1.2, 1.25, 1.3, 1.33, 1.358];
        let mut rows: Vec<MetricComparison> = Vec::new();
        for (i, &x) in ratios.iter().enumerate() {
            let mut r = row(0.02, 2, Verdict::Improved);
            r.metric = "throughput_rps".into();
            r.better = Direction::HigherIsBetter;
            r.params = [("concurrency".to_string(), (1u32 << i).to_string())].into();
            r.ratio = Some(x);
            (r.ci_low, r.ci_high) = (Some(x - 0.05), Some(x + 0.05));
            rows.push(r);
        }
        for i in 0..5 {
            let mut r = row(0.5, 2, Verdict::Unchanged);
            r.metric = "latency_p50_ms".into();
            r.params = [("concurrency".to_string(), (1u32 << i).to_string())].into();
            r.ratio = Some(1.0);
            (r.ci_low, r.ci_high) = (Some(0.99), Some(1.01));
            rows.push(r);
        }
        let c = comparison_of(rows);
        let tp: Vec<&MetricComparison> = c
            .rows
            .iter()
            .filter(|r| r.metric == "throughput_rps")
            .collect();
        for r in &tp {
            assert_eq!(r.verdict, Verdict::Inconclusive);
            assert!((r.decisive_p().unwrap() - 0.24).abs() < 1e-12, "{r:?}");
            assert!(
                r.reason.contains(
                    "over the 12 tests of this comparison the Holm-adjusted p = 0.240 ≥ 0.05"
                ),
                "{}",
                r.reason
            );
        }
        let flat = c
            .rows
            .iter()
            .find(|r| r.metric == "latency_p50_ms")
            .unwrap();
        assert_eq!(flat.decisive_p(), Some(1.0));
        assert!(
            flat.reason.ends_with("the Holm-adjusted p = 1.000"),
            "{}",
            flat.reason
        );
        assert_eq!(c.p_heading(), "Holm-adjusted p");
        let tps = c
            .summaries
            .iter()
            .find(|s| s.metric == "throughput_rps")
            .unwrap();
        assert_eq!((tps.better, tps.worse, tps.params_compared), (7, 0, 7));
        assert!((tps.sign_p - 0.015_625).abs() < 1e-15);
        assert_eq!(
            c.opening(),
            [
                "12 rows: 0 improved, 0 regressed, 7 inconclusive, 5 unchanged; changes 0.0% … +35.8%",
                "all one way: throughput_rps a: better at 7 of 7 params (+12.5% … +35.8%, sign test p = 0.016)",
            ]
        );
        // A few rows open with nothing; one test is no family, its p heading plain.
        let one = comparison_of(vec![row(0.01, 10, Verdict::Regressed)]);
        assert!(one.opening().is_empty());
        assert_eq!(one.p_heading(), "p");
        assert_eq!(one.rows[0].decisive_p(), Some(0.01));
        assert_eq!(
            one.rows[0].reason, "CI beyond; Mann-Whitney p = 0.010",
            "one test: its own p, named once"
        );
    }

    /// One trial on a side: no test at all, said once, up front (not "Welch decides").
    #[test]
    fn one_trial_per_arm_says_no_test_can_decide() {
        let c = comparison_of(vec![
            row(0.3, 1, Verdict::Inconclusive),
            row(0.3, 3, Verdict::Inconclusive),
        ]);
        assert_eq!(
            c.overall.small_samples.as_deref(),
            Some(
                "1 trial per arm: one trial shows no spread, so no test can decide; those rows are inconclusive whatever they show"
            )
        );
        let c = comparison_of(vec![row(0.3, 2, Verdict::Inconclusive)]);
        assert!(
            c.overall
                .small_samples
                .as_deref()
                .unwrap()
                .starts_with("2 trials per arm: too few for the Mann-Whitney rank test (its smallest two-sided p is 0.33)")
        );
    }
}
