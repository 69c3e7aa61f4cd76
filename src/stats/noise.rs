//! The noise model of a series: how much a run's value moves when nothing changed, learned
//! from (a) the series' own history and (b) A/A calibration runs, and turned into the
//! relative threshold a change must pass for a stated false-positive target.
//!
//! **Target**: [`TARGET`] = 1 % two-sided. Under Gaussian noise of relative σ, one run falls
//! outside `level · (1 ± z·σ)` with probability 1 % (z = 2.576); two independent runs differ by
//! more than `z·√2·σ` with probability 1 %.
//!
//! **(a) History**: σ is estimated from the relative changes between adjacent runs of the
//! series' current segment (same benchmark version, same machine), the last [`WINDOW`] of
//! them: `σ = 1.4826 · MAD(Δ) / √2` — the median absolute deviation is unmoved by the few
//! deltas that straddle a real step (rustc-perf's Q3 + 3·IQR fence of the same deltas is the
//! same idea with a wider, fixed multiplier; ours is tied to the target). At least
//! [`MIN_DELTAS`] deltas are needed, else the series has no history model.
//!
//! **(b) Calibration**: a `perfhouse calibrate` run holds one arm run against itself,
//! interleaved. Its trials are pooled and split at random into two halves of the compared
//! sizes many times; the 99th percentile of `|median(half₂)/median(half₁) − 1|` is the A/A
//! threshold: an A/A comparison of those sizes exceeds it 1 % of the time, whatever the
//! distribution's shape.
//!
//! **History change points** must be significant (E-divisive's permutation test at α = 0.01)
//! and move the dominant level by at least [`ChangeRule::threshold`] of the noise **around the
//! change** ([`local_sigma`]: the deltas next to it on both sides, not the newest runs of the
//! series): significance alone is not a decision.
//!
//! Every threshold is at least [`FLOOR`] (±2 %), which is also the fallback when a series
//! has too little data; callers report which source was used.

use super::{Rng, median, quantile_cont};

/// Stated false-positive target (two-sided) for one judged series.
pub const TARGET: f64 = 0.01;
/// z for [`TARGET`]: Φ⁻¹(1 − 0.01/2).
pub const Z: f64 = 2.575_829_303_549;
/// The smallest threshold, and the one used without a model.
pub const FLOOR: f64 = 0.02;
/// Adjacent deltas a history model reads (the newest ones of the current segment).
pub const WINDOW: usize = 30;
/// Fewest adjacent deltas for a history model.
pub const MIN_DELTAS: usize = 8;
/// Random splits of a calibration run's pooled trials.
const SPLITS: usize = 2_000;

/// Where a threshold came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "source", rename_all = "lowercase")]
pub enum Source {
    /// The floor: the series has too little history and no calibration.
    Floor,
    /// The series' adjacent-run deltas.
    History { deltas: usize, sigma: f64 },
    /// An A/A calibration run of `per_side` trials per pseudo-arm.
    Calibration { run_no: u64, per_side: usize },
}

impl Source {
    /// In words, for a reason line: "history σ 1.3 % over 29 deltas".
    pub fn describe(&self) -> String {
        match self {
            Source::Floor => format!(
                "±{:.0}% floor: too little history, no calibration",
                FLOOR * 100.0
            ),
            Source::History { deltas, sigma } => {
                format!(
                    "history σ {:.2}% over {deltas} run-to-run deltas",
                    sigma * 100.0
                )
            }
            Source::Calibration { run_no, per_side } => {
                format!("A/A calibration run #{run_no} ({per_side} trials per arm)")
            }
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Source::Floor => "floor",
            Source::History { .. } => "history",
            Source::Calibration { .. } => "calibration",
        }
    }
}

/// A relative threshold and where it came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Threshold {
    pub value: f64,
    #[serde(flatten)]
    pub source: Source,
}

impl Threshold {
    pub fn floor() -> Threshold {
        Threshold {
            value: FLOOR,
            source: Source::Floor,
        }
    }
}

/// The relative run-to-run σ of `values` (in run order) from their newest [`WINDOW`]
/// adjacent deltas, with the number of deltas read; `None` with fewer than [`MIN_DELTAS`].
pub fn history_sigma(values: &[f64]) -> Option<(f64, usize)> {
    let deltas: Vec<f64> = values
        .windows(2)
        .filter(|w| w[0] != 0.0)
        .map(|w| w[1] / w[0] - 1.0)
        .filter(|d| d.is_finite())
        .collect();
    let deltas = &deltas[deltas.len().saturating_sub(WINDOW)..];
    robust_sigma(deltas).map(|s| (s, deltas.len()))
}

/// The σ of one run (relative) about `level` among `values`, read from the runs that sit at
/// it: the lower quartile of |v / level − 1|, divided by 0.3186 (the lower quartile of |Z| for
/// a standard normal Z); `None` with fewer than [`MIN_DELTAS`] values or a level of 0. On
/// Gaussian noise about the level it estimates what [`history_sigma`] does. On a series whose
/// runs visit a second or third level now and then (a CI pool of unlike machines: Kedro's
/// benchmarks sit at one level and visit two others in ~40 % of their newest runs) the median
/// |Δ| between adjacent runs is a jump between levels, while the lower quartile of the
/// deviations is still the noise at the level the series sits at (at most ~2× it where only
/// half the runs sit there). What a single run's move is judged against when many series are
/// read together (`query::whole_run`).
pub fn quiet_sigma(values: &[f64], level: f64) -> Option<f64> {
    if level == 0.0 || !level.is_finite() {
        return None;
    }
    let mut dev: Vec<f64> = values
        .iter()
        .map(|v| (v / level - 1.0).abs())
        .filter(|d| d.is_finite())
        .collect();
    if dev.len() < MIN_DELTAS {
        return None;
    }
    let q = quantile_cont(&mut dev, 0.25)?;
    Some(q / QUARTILE_ABS_NORMAL)
}

/// The lower quartile of |Z|, Z standard normal: Φ⁻¹(0.625).
const QUARTILE_ABS_NORMAL: f64 = 0.318_639_363_964_375;

/// The band a single run of an unchanged series stays in (relative, ±): `z·σ`, at least the
/// floor; drawn around the level on trend charts.
pub fn band(sigma: f64) -> f64 {
    (Z * sigma).max(FLOOR)
}

/// Local run-to-run σs a change point must move a series' dominant level by, by default.
///
/// The false-positive target of history is held by E-divisive's permutation test (α = 0.01
/// per series); this magnitude filter only drops significant changes too small to matter
/// against the noise **around them** ([`local_sigma`]). Tuned with `benches/changepoints.sh`
/// (BENCHMARKS.md, "Floors that follow the noise").
pub const CHANGE_SIGMAS: f64 = 2.75;

/// The smallest change history calls whatever the noise, by default: small, because the
/// noise-scaled part does the work (a persistent 3.5 % step on a series with 1 % run-to-run
/// noise is 3.5σ, and is called; on a series with 5 % noise a change must reach 13.75 %). A
/// comparison of two runs uses the same ±2 % [`FLOOR`].
pub const CHANGE_FLOOR: f64 = FLOOR;

/// The σs below which a significant change is not even a `minor` one (counted for a commit's
/// relevance, never an alert alone).
pub const MINOR_SIGMAS: f64 = 2.0;

/// The magnitude a change point must pass: `sigmas` local run-to-run σs, at least `floor`
/// (relative). [`ChangeRule::DEFAULT`] unless a suite or a metric sets its own
/// (`query::thresholds`: the `change_threshold` label).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ChangeRule {
    pub sigmas: f64,
    pub floor: f64,
}

impl Default for ChangeRule {
    fn default() -> ChangeRule {
        ChangeRule::DEFAULT
    }
}

impl ChangeRule {
    pub const DEFAULT: ChangeRule = ChangeRule {
        sigmas: CHANGE_SIGMAS,
        floor: CHANGE_FLOOR,
    };

    /// The smallest relative change a change point must show against local run-to-run σ
    /// (the floor where σ is unknown).
    pub fn threshold(&self, sigma: Option<f64>) -> f64 {
        sigma.map_or(self.floor, |s| (self.sigmas * s).max(self.floor))
    }

    /// The looser rule a `minor` change passes: at most [`MINOR_SIGMAS`] and the ±2 % floor.
    pub fn minor(&self) -> ChangeRule {
        ChangeRule {
            sigmas: self.sigmas.min(MINOR_SIGMAS),
            floor: self.floor.min(FLOOR),
        }
    }

    /// In words: `2.75σ, at least 2%`.
    pub fn describe(&self) -> String {
        format!(
            "{}σ, at least {}",
            trim(self.sigmas),
            super::verdict::band_pct(self.floor)
        )
    }
}

/// `3` for 3.0, `2.5` for 2.5.
fn trim(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Run-to-run deltas read on each side of a change ([`local_sigma`]).
pub const LOCAL_WINDOW: usize = 30;

/// The run-to-run σ around a change between the runs `before` and `after` (the segments it
/// separates, in run order): the relative deltas between adjacent runs within each side,
/// the [`LOCAL_WINDOW`] nearest the change on each, never the delta across it, pooled into
/// `1.4826 · MAD / √2` as [`history_sigma`] does. `None` with fewer than [`MIN_DELTAS`].
///
/// A series that is quiet for a year and noisy now is judged by the noise of the year where
/// the change happened, not by today's.
pub fn local_sigma(before: &[f64], after: &[f64]) -> Option<f64> {
    let rel = |w: &[f64]| {
        (w[0] != 0.0)
            .then(|| w[1] / w[0] - 1.0)
            .filter(|d| d.is_finite())
    };
    let b = &before[before.len().saturating_sub(LOCAL_WINDOW + 1)..];
    let a = &after[..after.len().min(LOCAL_WINDOW + 1)];
    let deltas: Vec<f64> = b.windows(2).chain(a.windows(2)).filter_map(rel).collect();
    robust_sigma(&deltas)
}

/// `1.4826 · MAD(Δ) / √2` of relative adjacent deltas, `None` with fewer than
/// [`MIN_DELTAS`]. The deltas of an unchanged series centre on 0, so the MAD is taken about 0
/// (the median of |Δ|), never about the deltas' own median: about their median it collapses
/// to 0 where the deltas alternate between two values (a series that switches level every
/// run: 20 deltas of −7.7 % and 18 of +8.3 % have the median −7.7 % and a MAD of 0 about it).
fn robust_sigma(deltas: &[f64]) -> Option<f64> {
    if deltas.len() < MIN_DELTAS {
        return None;
    }
    let dev: Vec<f64> = deltas.iter().map(|d| d.abs()).collect();
    let mad = median(&dev)?;
    Some(1.4826 * mad / std::f64::consts::SQRT_2)
}

/// The threshold for one run against another run of the series: `z·√2·σ`, at least the floor.
pub fn two_run_threshold(sigma: f64) -> f64 {
    (Z * std::f64::consts::SQRT_2 * sigma).max(FLOOR)
}

/// [`two_run_threshold`] at least `floor` instead of [`FLOOR`] (a measure with a floor of its
/// own: `query::figures::floor_scale`).
pub fn two_run_threshold_above(sigma: f64, floor: f64) -> f64 {
    (Z * std::f64::consts::SQRT_2 * sigma).max(floor)
}

/// The A/A threshold at `n1` vs `n2` trials from a calibration run's pooled trial values:
/// the (1 − [`TARGET`]) quantile of |median ratio − 1| over random splits; `None` when the
/// pool cannot be split that way (fewer than n1 + n2 values) or has a zero median.
pub fn aa_threshold(pool: &[f64], n1: usize, n2: usize, seed: u64) -> Option<f64> {
    if n1 == 0 || n2 == 0 || pool.len() < n1 + n2 {
        return None;
    }
    let mut rng = Rng::new(seed);
    let mut v = pool.to_vec();
    let mut diffs = Vec::with_capacity(SPLITS);
    for _ in 0..SPLITS {
        rng.shuffle(&mut v);
        let a = median(&v[..n1])?;
        let b = median(&v[n1..n1 + n2])?;
        if a == 0.0 {
            return None;
        }
        diffs.push((b / a - 1.0).abs());
    }
    quantile_cont(&mut diffs, 1.0 - TARGET)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigma_by_hand() {
        // Deltas alternate +1 %, −1 % (values 100, 101, 99.99, …): median ≈ 0, MAD = 1 %,
        // so σ = 1.4826 · 1 % / √2 = 1.048 %.
        let mut v = vec![100.0];
        for i in 0..20 {
            let last = *v.last().unwrap();
            v.push(last * if i % 2 == 0 { 1.01 } else { 0.99 });
        }
        let (s, n) = history_sigma(&v).unwrap();
        assert_eq!(n, 20);
        assert!((s - 0.010_483).abs() < 2e-5, "{s}");
        // One step of +50 % among them moves the median deviation by at most one rank.
        let mut stepped = v.clone();
        for x in stepped.iter_mut().skip(10) {
            *x *= 1.5;
        }
        let (s2, _) = history_sigma(&stepped).unwrap();
        assert!((s2 - s).abs() < 1e-3, "{s2} vs {s}");
        assert!(history_sigma(&v[..8]).is_none(), "7 deltas are too few");
    }

    /// Gaussian noise of σ 2 % about 100: both estimates near 2 %. The same runs where every
    /// third one sits 30 % lower: the median |Δ| is a jump between the levels (σ ≈ 20 %), the
    /// lower quartile of the deviations from the level 100 still the noise there (q₂₅ of the
    /// two thirds at 100 is their q₃₇.₅: |Z| 0.489, so ≈ 0.489 / 0.3186 · 2 % ≈ 3 %).
    #[test]
    fn quiet_sigma_reads_the_noise_at_the_level() {
        let mut rng = Rng::new(3);
        let v: Vec<f64> = (0..200)
            .map(|_| 100.0 * (1.0 + 0.02 * rng.normal()))
            .collect();
        let q = quiet_sigma(&v, 100.0).unwrap();
        assert!((0.016..0.024).contains(&q), "{q}");
        let two: Vec<f64> = v
            .iter()
            .enumerate()
            .map(|(i, x)| if i % 3 == 0 { x * 0.7 } else { *x })
            .collect();
        let (median_based, _) = history_sigma(&two).unwrap();
        assert!(median_based > 0.1, "{median_based}");
        let q = quiet_sigma(&two, 100.0).unwrap();
        assert!((0.024..0.037).contains(&q), "{q}");
        assert!(quiet_sigma(&v[..7], 100.0).is_none());
        assert!(quiet_sigma(&v, 0.0).is_none());
    }

    #[test]
    fn gaussian_sigma_is_recovered_and_thresholds_hold_the_target() {
        let mut rng = Rng::new(7);
        let v: Vec<f64> = (0..31)
            .map(|_| 100.0 * (1.0 + 0.03 * rng.normal()))
            .collect();
        let (s, _) = history_sigma(&v).unwrap();
        assert!((0.015..0.05).contains(&s), "σ 3 % estimated as {s}");
        // On many pure-noise pairs, two-run differences beyond the threshold are ≈ 1 %.
        let sigma = 0.03;
        let t = two_run_threshold(sigma);
        let trials = 200_000;
        let hits = (0..trials)
            .filter(|_| {
                let a = 1.0 + sigma * rng.normal();
                let b = 1.0 + sigma * rng.normal();
                ((b - a) / 1.0).abs() > t
            })
            .count();
        let rate = hits as f64 / trials as f64;
        assert!((0.008..0.012).contains(&rate), "{rate}");
        assert_eq!(band(0.001), FLOOR);
    }

    #[test]
    fn aa_threshold_holds_the_target_on_fresh_aa_samples() {
        let mut rng = Rng::new(11);
        let pool: Vec<f64> = (0..40)
            .map(|_| 50.0 * (1.0 + 0.05 * rng.normal()))
            .collect();
        let t = aa_threshold(&pool, 5, 5, 1).unwrap();
        // Fresh A/A draws of 5 vs 5 from the same distribution exceed it ≈ 1 % of the time.
        let trials = 20_000;
        let hits = (0..trials)
            .filter(|_| {
                let a: Vec<f64> = (0..5).map(|_| 50.0 * (1.0 + 0.05 * rng.normal())).collect();
                let b: Vec<f64> = (0..5).map(|_| 50.0 * (1.0 + 0.05 * rng.normal())).collect();
                (median(&b).unwrap() / median(&a).unwrap() - 1.0).abs() > t
            })
            .count();
        let rate = hits as f64 / trials as f64;
        assert!(rate < 0.03, "A/A rate {rate} at threshold {t}");
        assert!(aa_threshold(&pool[..9], 5, 5, 1).is_none());
    }

    #[test]
    fn verdicts_with_a_calibrated_threshold_hold_the_target_on_synthetic_aa() {
        use crate::stats::verdict::{Direction, Verdict, VerdictOptions, judge};
        // Lognormal-ish timing noise (σ 4 %), a calibration of 10 + 10 trials, then 1,000
        // fresh A/A comparisons of 5 vs 5 judged with the calibrated threshold.
        let mut rng = Rng::new(99);
        let mut draw =
            |n: usize| -> Vec<f64> { (0..n).map(|_| 20.0 * (0.04 * rng.normal()).exp()).collect() };
        let pool = draw(20);
        let t = aa_threshold(&pool, 5, 5, 3).unwrap().max(FLOOR);
        let opts = VerdictOptions {
            threshold: t,
            resamples: 500,
            ..VerdictOptions::default()
        };
        let runs = 1_000;
        let called = (0..runs)
            .filter(|_| {
                let (a, b) = (draw(5), draw(5));
                matches!(
                    judge(&a, &b, Direction::LowerIsBetter, &opts).verdict,
                    Verdict::Improved | Verdict::Regressed
                )
            })
            .count();
        let rate = called as f64 / runs as f64;
        assert!(
            rate <= TARGET * 1.5,
            "A/A false-positive rate {rate} at threshold {t}"
        );
    }
}
