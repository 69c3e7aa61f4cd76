//! Statistics engineers can trust, as pure functions: quantiles, a seeded bootstrap, the
//! Mann-Whitney U test, change-point detection, and the A/B verdict built from them.
//! Nothing here does I/O; every function is deterministic for a given seed.

pub mod changepoint;
pub mod mannwhitney;
pub mod noise;
pub mod sweep;
pub mod verdict;
pub mod welch;

/// Exact linear-interpolation quantile of `values` (reordered in place), as DuckDB's
/// `quantile_cont` and numpy's default `percentile`: `v[⌊h⌋] + (h − ⌊h⌋)·(v[⌈h⌉] − v[⌊h⌋])`,
/// `h = p·(n − 1)`. `None` when empty.
pub fn quantile_cont(values: &mut [f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    // Two order statistics in O(n) (selection, not a sort): the one at ⌊h⌋, then the
    // smallest value above it, which is the one at ⌈h⌉.
    let h = p.clamp(0.0, 1.0) * (values.len() - 1) as f64;
    let lo = h.floor() as usize;
    let (_, &mut a, above) = values.select_nth_unstable_by(lo, |x, y| x.total_cmp(y));
    let frac = h - lo as f64;
    if frac == 0.0 || above.is_empty() {
        return Some(a);
    }
    let b = above
        .iter()
        .copied()
        .min_by(|x, y| x.total_cmp(y))
        .expect("non-empty");
    Some(lerp(a, b, frac))
}

/// `a + frac·(b − a)` (numpy's and DuckDB's form, so results agree to the last digit), or,
/// where `b − a` overflows (values near ±1.8e308), the form that cannot.
fn lerp(a: f64, b: f64, frac: f64) -> f64 {
    let span = b - a;
    if span.is_finite() {
        a + frac * span
    } else {
        a * (1.0 - frac) + b * frac
    }
}

/// [`quantile_cont`] over values already sorted ascending.
pub fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    let h = p.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    let (a, b) = (sorted[lo], sorted[hi]);
    if lo == hi {
        a
    } else {
        lerp(a, b, h - lo as f64)
    }
}

/// Cliff's δ of `b` against `a`: P(b > a) − P(b < a) over all pairs, in [−1, 1] (0: the
/// samples overlap evenly; ±1: every value of one side is beyond every value of the other).
/// `None` when either is empty.
pub fn cliffs_delta(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let mut s = 0i64;
    for x in a {
        for y in b {
            s += i64::from(y > x) - i64::from(y < x);
        }
    }
    Some(s as f64 / (a.len() * b.len()) as f64)
}

/// Geometric mean of the ratios `1 + m`, minus 1 (0 when empty or a ratio is not positive).
pub fn geomean(magnitudes: &[f64]) -> f64 {
    if magnitudes.is_empty() || magnitudes.iter().any(|&m| m.is_nan() || m <= -1.0) {
        return 0.0;
    }
    let logs: f64 = magnitudes.iter().map(|m| (1.0 + m).ln()).sum();
    (logs / magnitudes.len() as f64).exp() - 1.0
}

/// Median (the mean of the two middle values for an even count). `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    quantile_cont(&mut v, 0.5)
}

/// The exact two-sided sign test: the chance, under no change (each of `n` independent rows
/// as likely above as below 1), of a split at least as lopsided as `k` of `n` one way:
/// `min(1, 2 · Σ_{i ≥ max(k, n−k)} C(n, i) / 2ⁿ)`. 7 of 7 one way: 2/128 = 0.0156.
pub fn sign_test(k: usize, n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let top = k.max(n - k);
    // C(n, i) / 2ⁿ built up term by term (exact enough for the n of a comparison's rows).
    let mut term = 0.5f64.powi(n as i32); // C(n, 0) / 2ⁿ
    let mut tail = 0.0;
    for i in 0..=n {
        if i >= top {
            tail += term;
        }
        term = term * (n - i) as f64 / (i + 1) as f64;
    }
    (2.0 * tail).min(1.0)
}

pub fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let sum = values.iter().sum::<f64>();
    // A sum past f64::MAX of finite values: divide first (less exact, never infinite).
    Some(if sum.is_finite() {
        sum / n
    } else {
        values.iter().map(|v| v / n).sum()
    })
}

/// A small, fast, seedable generator (SplitMix64): the bootstrap and permutation tests must
/// give the same answer on every machine for the same seed, without a dependency.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (Lemire's multiply-shift; the bias is below 2⁻³² for our sizes).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
    /// Standard normal (Box-Muller), for synthetic series in tests and benchmarks.
    pub fn normal(&mut self) -> f64 {
        let u1 = ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        let u2 = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// Default number of bootstrap resamples.
pub const RESAMPLES: usize = 10_000;

/// Percentile-bootstrap confidence interval of median(candidate) / median(baseline): each
/// side resampled with replacement `resamples` times, seeded. `None` when a side is empty or
/// a baseline median is zero.
pub fn bootstrap_ratio_ci(
    baseline: &[f64],
    candidate: &[f64],
    resamples: usize,
    level: f64,
    seed: u64,
) -> Option<(f64, f64)> {
    if baseline.is_empty() || candidate.is_empty() {
        return None;
    }
    let mut rng = Rng::new(seed);
    let mut ratios = Vec::with_capacity(resamples);
    let (mut a, mut b) = (vec![0.0; baseline.len()], vec![0.0; candidate.len()]);
    for _ in 0..resamples {
        for x in a.iter_mut() {
            *x = baseline[rng.below(baseline.len())];
        }
        for x in b.iter_mut() {
            *x = candidate[rng.below(candidate.len())];
        }
        let ma = quantile_cont(&mut a, 0.5)?;
        let mb = quantile_cont(&mut b, 0.5)?;
        if ma == 0.0 {
            return None;
        }
        ratios.push(mb / ma);
    }
    ratios.sort_by(|x, y| x.total_cmp(y));
    let tail = (1.0 - level) / 2.0;
    Some((
        quantile_sorted(&ratios, tail),
        quantile_sorted(&ratios, 1.0 - tail),
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn sign_test_by_hand() {
        // 7 of 7: 2 · 1/128; 6 of 7: 2 · (7 + 1)/128 = 0.125; 3 of 6: the whole mass (1).
        assert!((super::sign_test(7, 7) - 0.015_625).abs() < 1e-15);
        assert!((super::sign_test(0, 7) - 0.015_625).abs() < 1e-15);
        assert!((super::sign_test(6, 7) - 0.125).abs() < 1e-15);
        assert_eq!(super::sign_test(3, 6), 1.0);
        assert_eq!(super::sign_test(0, 0), 1.0);
    }

    #[test]
    fn cliffs_delta_by_hand() {
        // a = 1,2,3; b = 2,3,4: pairs b>a: (2>1),(3>1),(3>2),(4>1),(4>2),(4>3) = 6;
        // b<a: (2<3) = 1; ties 2 → (6 − 1) / 9.
        assert!(
            (cliffs_delta(&[1.0, 2.0, 3.0], &[2.0, 3.0, 4.0]).unwrap() - 5.0 / 9.0).abs() < 1e-12
        );
        assert_eq!(cliffs_delta(&[1.0, 2.0], &[3.0, 4.0]), Some(1.0));
        assert_eq!(cliffs_delta(&[3.0, 4.0], &[1.0, 2.0]), Some(-1.0));
        assert_eq!(cliffs_delta(&[], &[1.0]), None);
    }

    use super::*;
    use proptest::prelude::*;

    #[test]
    fn quantiles_by_hand() {
        // duckdb: select quantile_cont(x, [0.5, 0.9, 0.99]) from (values (100),(200),(300),(400)) t(x)
        // → [250.0, 370.0, 397.0]
        let v = [400.0, 100.0, 300.0, 200.0];
        assert_eq!(quantile_cont(&mut v.clone(), 0.5), Some(250.0));
        assert_eq!(quantile_cont(&mut v.clone(), 0.9), Some(370.0));
        assert_eq!(quantile_cont(&mut v.clone(), 0.99), Some(397.0));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[7.0]), Some(7.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn bootstrap_is_seeded_and_brackets_the_ratio() {
        let a = [100.0, 102.0, 98.0, 101.0, 99.0, 100.5, 99.5];
        let b = [110.0, 112.0, 108.0, 111.0, 109.0, 110.5, 109.5];
        let ci = bootstrap_ratio_ci(&a, &b, RESAMPLES, 0.95, 7).unwrap();
        assert_eq!(ci, bootstrap_ratio_ci(&a, &b, RESAMPLES, 0.95, 7).unwrap());
        assert!(ci.0 <= 1.1 && 1.1 <= ci.1, "{ci:?}");
        assert!(ci.0 > 1.05 && ci.1 < 1.15, "{ci:?}");
        // Identical samples: the ratio can only be 1 when both sides are constant.
        assert_eq!(
            bootstrap_ratio_ci(&[5.0; 3], &[5.0; 3], 100, 0.95, 1),
            Some((1.0, 1.0))
        );
        assert_eq!(bootstrap_ratio_ci(&[], &[1.0], 100, 0.95, 1), None);
    }

    proptest! {
        #[test]
        fn quantile_is_monotone_and_bounded(mut v in prop::collection::vec(-1e9f64..1e9, 1..60), p in 0.0f64..1.0, q in 0.0f64..1.0) {
            let (lo, hi) = if p <= q { (p, q) } else { (q, p) };
            let a = quantile_cont(&mut v, lo).unwrap();
            let b = quantile_cont(&mut v, hi).unwrap();
            prop_assert!(a <= b);
            let mut sorted = v.clone();
            sorted.sort_by(|x, y| x.total_cmp(y));
            prop_assert!(sorted[0] <= a && b <= sorted[sorted.len() - 1]);
            // Selection gives exactly what interpolating over the sorted values gives.
            prop_assert_eq!(a, quantile_sorted(&sorted, lo));
            prop_assert_eq!(b, quantile_sorted(&sorted, hi));
        }

        #[test]
        fn ci_contains_nothing_outside_the_data_ratios(a in prop::collection::vec(1.0f64..100.0, 1..8), b in prop::collection::vec(1.0f64..100.0, 1..8), seed in any::<u64>()) {
            let (lo, hi) = bootstrap_ratio_ci(&a, &b, 200, 0.95, seed).unwrap();
            let max_ratio = b.iter().cloned().fold(f64::MIN, f64::max) / a.iter().cloned().fold(f64::MAX, f64::min);
            let min_ratio = b.iter().cloned().fold(f64::MAX, f64::min) / a.iter().cloned().fold(f64::MIN, f64::max);
            prop_assert!(lo <= hi && lo >= min_ratio - 1e-12 && hi <= max_ratio + 1e-12);
        }
    }
}
