//! The A/B verdict for one metric: medians, their ratio with a bootstrap CI, a Mann-Whitney p,
//! and improved / regressed / unchanged / inconclusive, respecting the metric's direction, a
//! noise threshold and what the sample sizes can support.

use super::mannwhitney::{mann_whitney_u, min_p_value};
use super::welch::welch_log;
use super::{bootstrap_ratio_ci, median};

/// How a compared figure is judged. A metric's stored direction is [`crate::model::Better`]
/// (higher or lower, nothing else); `Direction` adds `Info` for figures shown only for context
/// (Little's law), and every `Better` is a `Direction` (`From`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    HigherIsBetter,
    LowerIsBetter,
    /// Shown for context (Little's law ratio), never judged.
    Info,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Regressed,
    Inconclusive,
    Improved,
    Unchanged,
    Info,
}

impl From<crate::model::Better> for Direction {
    fn from(b: crate::model::Better) -> Direction {
        match b {
            crate::model::Better::Higher => Direction::HigherIsBetter,
            crate::model::Better::Lower => Direction::LowerIsBetter,
        }
    }
}

impl Direction {
    /// The stored form (`metrics.better`): `higher`, `lower`, or empty for context figures.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::HigherIsBetter => "higher",
            Direction::LowerIsBetter => "lower",
            Direction::Info => "",
        }
    }

    pub fn from_name(name: &str) -> Direction {
        match name {
            "higher" => Direction::HigherIsBetter,
            "lower" => Direction::LowerIsBetter,
            _ => Direction::Info,
        }
    }
}

/// Travels as its stored form (`higher`/`lower`/empty) in SQL rows and JSON.
impl serde::Serialize for Direction {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Direction {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Direction, D::Error> {
        let s: String = serde::Deserialize::deserialize(d)?;
        Ok(Direction::from_name(&s))
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// JSON (`compare --format json`) carries the verdict's name.
impl serde::Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Improved => "improved",
            Verdict::Regressed => "regressed",
            Verdict::Unchanged => "unchanged",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Info => "info",
        }
    }
}

#[derive(Debug, Clone)]
pub struct VerdictOptions {
    /// Relative change treated as noise (0.02 = ±2 %).
    pub threshold: f64,
    pub alpha: f64,
    pub level: f64,
    pub resamples: usize,
    pub seed: u64,
}

impl Default for VerdictOptions {
    fn default() -> VerdictOptions {
        VerdictOptions {
            threshold: 0.02,
            alpha: 0.05,
            level: 0.95,
            resamples: super::RESAMPLES,
            seed: 0xab,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Judged {
    pub n_baseline: usize,
    pub n_candidate: usize,
    pub median_baseline: Option<f64>,
    pub median_candidate: Option<f64>,
    /// median(candidate) / median(baseline).
    pub ratio: Option<f64>,
    pub ci: Option<(f64, f64)>,
    /// The p-value of `test`.
    pub p_value: Option<f64>,
    pub test: Test,
    pub verdict: Verdict,
    /// Why, in words a reviewer can check.
    pub reason: String,
}

pub fn judge(
    baseline: &[f64],
    candidate: &[f64],
    direction: Direction,
    opts: &VerdictOptions,
) -> Judged {
    let (na, nb) = (baseline.len(), candidate.len());
    let (ma, mb) = (median(baseline), median(candidate));
    // No ratio against 0 on either side: a median of 0 is a value below the measurement's
    // resolution (tokens sent in bursts give an ITL of 0), and "−100 %" would be no finding.
    let ratio = ma
        .zip(mb)
        .and_then(|(a, b)| (a != 0.0 && b != 0.0).then(|| b / a));
    let ci = bootstrap_ratio_ci(baseline, candidate, opts.resamples, opts.level, opts.seed);
    let floor = min_p_value(na, nb);
    // The rank test where it can reach α; below that (3 vs 3 and fewer), Welch's t on logs,
    // so a CI of a handful of values never decides alone (a 2-vs-2 bootstrap CI excludes 1 in
    // about a third of A/A pairs).
    let (test, p_value) = if floor < opts.alpha {
        (
            Test::MannWhitney,
            mann_whitney_u(baseline, candidate).map(|m| m.p),
        )
    } else {
        (Test::WelchLog, welch_log(baseline, candidate).map(|w| w.p))
    };
    let (verdict, reason) = match (direction, ratio, ci) {
        (Direction::Info, _, _) => (Verdict::Info, "shown for context".to_string()),
        (_, None, _) => (
            Verdict::Inconclusive,
            "no samples, or a median of 0 on a side (no ratio against 0: below the measurement's resolution)".to_string(),
        ),
        (_, _, None) => (
            Verdict::Inconclusive,
            "some baseline resamples have a zero median, so the ratio is undefined".to_string(),
        ),
        _ if na < 2 || nb < 2 => (
            Verdict::Inconclusive,
            format!("n = {na} vs {nb}: one run per side shows no spread to judge noise by"),
        ),
        (_, Some(_), Some(ci)) => {
            let tested = Tested {
                na,
                nb,
                floor,
                test,
                p_value,
            };
            judge_ci(ci, direction, &tested, opts)
        }
    };
    Judged {
        n_baseline: na,
        n_candidate: nb,
        median_baseline: ma,
        median_candidate: mb,
        ratio,
        ci,
        p_value,
        test,
        verdict,
        reason,
    }
}

/// The test behind a verdict: the sample sizes, the smallest p-value they allow, the test
/// run and its p-value.
struct Tested {
    na: usize,
    nb: usize,
    floor: f64,
    test: Test,
    p_value: Option<f64>,
}

/// The verdict from the ratio's CI `lo…hi` against the noise band (`opts.threshold`): within
/// it, unchanged; beyond it, a change if the test confirms; else inconclusive, saying why.
fn judge_ci(
    (lo, hi): (f64, f64),
    direction: Direction,
    tested: &Tested,
    opts: &VerdictOptions,
) -> (Verdict, String) {
    let t = opts.threshold;
    let pct = change_pct;
    if lo >= 1.0 - t && hi <= 1.0 + t {
        (
            Verdict::Unchanged,
            format!(
                "{:.0}% CI {}…{} within ±{} noise",
                opts.level * 100.0,
                pct(lo),
                pct(hi),
                band_pct(t)
            ),
        )
    } else if lo > 1.0 + t || hi < 1.0 - t {
        beyond_band((lo, hi), direction, tested, opts)
    } else if lo > 1.0 || hi < 1.0 {
        // The CI excludes no change but reaches inside the noise band: say why that is
        // not a verdict, in the row.
        (
            Verdict::Inconclusive,
            format!(
                "CI {}…{} excludes 0 but reaches inside the ±{} noise band (a change this \
                 series' run-to-run noise can make): not called; more repeats would decide",
                pct(lo),
                pct(hi),
                band_pct(t)
            ),
        )
    } else {
        (
            Verdict::Inconclusive,
            format!(
                "CI {}…{} straddles the ±{} noise band; more repeats would decide",
                pct(lo),
                pct(hi),
                band_pct(t)
            ),
        )
    }
}

/// A CI wholly beyond the noise band: improved or regressed (by `direction`) where the test
/// confirms it at `opts.alpha`, else inconclusive; the reason says when the samples are too
/// few for any rank test to reach α.
fn beyond_band(
    (lo, hi): (f64, f64),
    direction: Direction,
    tested: &Tested,
    opts: &VerdictOptions,
) -> (Verdict, String) {
    let (t, pct) = (opts.threshold, change_pct);
    let up = lo > 1.0 + t;
    let better = matches!(
        (direction, up),
        (Direction::HigherIsBetter, true) | (Direction::LowerIsBetter, false)
    );
    let judged = if better {
        Verdict::Improved
    } else {
        Verdict::Regressed
    };
    let p = tested.p_value.unwrap_or(1.0);
    let test = tested.test.as_str();
    let Tested { na, nb, floor, .. } = *tested;
    let why = if floor < opts.alpha {
        String::new()
    } else {
        format!(
            " (n = {na} vs {nb}: no rank test can reach p < {}, smallest p {floor:.2})",
            opts.alpha
        )
    };
    if p < opts.alpha {
        (
            judged,
            format!(
                "CI {}…{} beyond ±{}, {test} {}{why}",
                pct(lo),
                pct(hi),
                band_pct(t),
                p_text(p)
            ),
        )
    } else {
        (
            Verdict::Inconclusive,
            format!(
                "CI {}…{} beyond ±{} but {test} {} ≥ {}{why}: inconclusive, the test does not confirm the CI",
                pct(lo),
                pct(hi),
                band_pct(t),
                p_text(p),
                opts.alpha
            ),
        )
    }
}

/// A ratio as the change it is, in percent with its sign: `+12.5%`, `-3.0%`; `0.0%` for
/// one that rounds to nothing (`model::signed_pct`).
pub fn change_pct(ratio: f64) -> String {
    crate::model::signed_pct(ratio - 1.0)
}

/// [`change_pct`] of a ratio that may be missing (`1.066` → `+6.6%`, `—` when missing): every
/// table's change column, in the site, the reports and `query`'s own texts.
pub fn change_text(ratio: Option<f64>) -> String {
    ratio.map_or("—".into(), change_pct)
}

/// A p-value in words: `p = 0.012`, or `p < 0.001` (never `p = 0.000`).
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".to_string()
    } else {
        format!("p = {p:.3}")
    }
}

/// The test behind a verdict's p-value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Test {
    /// Mann-Whitney U (exact below 9 per side without ties), where the sizes can reach α.
    #[serde(rename = "mann-whitney")]
    MannWhitney,
    /// Welch's t on logs, where no rank test can reach α (see [`super::welch`]).
    #[serde(rename = "welch-log")]
    WelchLog,
}

impl Test {
    pub fn as_str(self) -> &'static str {
        match self {
            Test::MannWhitney => "Mann-Whitney",
            Test::WelchLog => "Welch t on logs",
        }
    }
}

/// A relative threshold as a reason prints it: `2%`, `3.4%`.
pub fn band_pct(t: f64) -> String {
    let x = t * 100.0;
    if (x - x.round()).abs() < 0.05 {
        format!("{x:.0}%")
    } else {
        format!("{x:.1}%")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o() -> VerdictOptions {
        VerdictOptions::default()
    }

    /// Each case of a CI against the default ±2 % band (0.98…1.02) and a test at α 0.05,
    /// worked out by hand.
    #[test]
    fn a_ci_is_judged_against_the_noise_band_and_then_the_test() {
        let tested = |p| Tested {
            na: 10,
            nb: 10,
            floor: 0.0001,
            test: Test::MannWhitney,
            p_value: Some(p),
        };
        let up = Direction::HigherIsBetter;
        // 0.99…1.01 lies inside 0.98…1.02.
        let (v, _) = judge_ci((0.99, 1.01), up, &tested(0.01), &o());
        assert_eq!(v, Verdict::Unchanged);
        // 1.05…1.10 lies above 1.02, higher is better, and p 0.01 < 0.05 confirms it.
        let (v, _) = judge_ci((1.05, 1.10), up, &tested(0.01), &o());
        assert_eq!(v, Verdict::Improved);
        // The same CI where lower is better: a regression.
        let (v, _) = judge_ci((1.05, 1.10), Direction::LowerIsBetter, &tested(0.01), &o());
        assert_eq!(v, Verdict::Regressed);
        // Beyond the band, but p 0.2 ≥ 0.05: the test does not confirm it.
        let (v, why) = judge_ci((1.05, 1.10), up, &tested(0.2), &o());
        assert_eq!(v, Verdict::Inconclusive);
        assert!(why.contains("p = 0.200 ≥ 0.05"), "{why}");
        // 1.01…1.05 excludes 1 but starts inside the band.
        let (v, why) = judge_ci((1.01, 1.05), up, &tested(0.01), &o());
        assert_eq!(v, Verdict::Inconclusive);
        assert!(why.contains("excludes 0"), "{why}");
        // 0.97…1.03 reaches past both edges of the band.
        let (v, why) = judge_ci((0.97, 1.03), up, &tested(0.01), &o());
        assert_eq!(v, Verdict::Inconclusive);
        assert!(why.contains("straddles"), "{why}");
    }

    #[test]
    fn three_vs_three_rests_on_the_ci_and_says_so() {
        let j = judge(
            &[100.0, 101.0, 99.0],
            &[120.0, 121.0, 119.0],
            Direction::HigherIsBetter,
            &o(),
        );
        assert_eq!(j.verdict, Verdict::Improved);
        assert!(
            j.reason.contains("no rank test can reach p < 0.05")
                && j.reason.contains("Welch t on logs p < 0.001"),
            "{}",
            j.reason
        );
        assert!((j.ratio.unwrap() - 1.2).abs() < 1e-12);
        // The same numbers are a regression when lower is better.
        let j = judge(
            &[100.0, 101.0, 99.0],
            &[120.0, 121.0, 119.0],
            Direction::LowerIsBetter,
            &o(),
        );
        assert_eq!(j.verdict, Verdict::Regressed);
    }

    #[test]
    fn within_noise_is_unchanged_and_overlap_is_inconclusive() {
        let j = judge(
            &[100.0, 100.5, 99.5],
            &[100.2, 100.7, 99.8],
            Direction::HigherIsBetter,
            &o(),
        );
        assert_eq!(j.verdict, Verdict::Unchanged, "{}", j.reason);
        let j = judge(
            &[100.0, 110.0, 90.0],
            &[104.0, 114.0, 94.0],
            Direction::HigherIsBetter,
            &o(),
        );
        assert_eq!(j.verdict, Verdict::Inconclusive, "{}", j.reason);
        let j = judge(&[100.0], &[150.0], Direction::HigherIsBetter, &o());
        assert_eq!(j.verdict, Verdict::Inconclusive);
        assert!(j.reason.contains("n = 1 vs 1"));
    }

    #[test]
    fn larger_samples_need_the_rank_test_too() {
        let a: Vec<f64> = (0..10).map(|i| 100.0 + i as f64).collect();
        let b: Vec<f64> = (0..10).map(|i| 120.0 + i as f64).collect();
        let j = judge(&a, &b, Direction::HigherIsBetter, &o());
        assert_eq!(j.verdict, Verdict::Improved);
        assert!(j.reason.contains("Mann-Whitney p < 0.001"), "{}", j.reason);
        assert!(!j.reason.contains("0.000"), "{}", j.reason);
    }

    #[test]
    fn threshold_is_respected() {
        let opts = VerdictOptions {
            threshold: 0.25,
            ..o()
        };
        let j = judge(
            &[100.0, 101.0, 99.0],
            &[120.0, 121.0, 119.0],
            Direction::HigherIsBetter,
            &opts,
        );
        assert_eq!(j.verdict, Verdict::Unchanged, "{}", j.reason);
    }
}
