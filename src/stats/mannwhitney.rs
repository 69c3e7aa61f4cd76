//! Two-sided Mann-Whitney U test, computed as `scipy.stats.mannwhitneyu(x, y)` does with its
//! defaults (`method='auto'`, `use_continuity=True`): the exact null distribution when either
//! sample has at most 8 values and there are no ties, otherwise the normal approximation with
//! tie-corrected variance and continuity correction.

/// How the p-value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Exact,
    Asymptotic,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MannWhitney {
    /// U of the first sample (scipy's `statistic`).
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    pub method: Method,
}

/// Average ranks (1-based) of `values` and the sizes of tie groups.
fn ranks(values: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut idx: Vec<usize> = (0..values.len()).collect();
    idx.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut ties = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && values[idx[j + 1]] == values[idx[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            out[k] = rank;
        }
        if j > i {
            ties.push(j - i + 1);
        }
        i = j + 1;
    }
    (out, ties)
}

/// P(U ≥ k) under the null for sample sizes m, n: the coefficients of the Gaussian binomial
/// `[m+n choose m]_q`, built as Π_{i=1..m} (1 − q^{n+i}) / (1 − q^i).
fn exact_sf(k: usize, m: usize, n: usize) -> f64 {
    let (m, n) = (m.min(n), m.max(n));
    let degree = m * n;
    let mut poly = vec![0.0f64; degree + 1];
    poly[0] = 1.0;
    for i in 1..=m {
        // × (1 − q^{n+i})
        for d in (n + i..=degree).rev() {
            poly[d] -= poly[d - n - i];
        }
        // ÷ (1 − q^i): a running sum with stride i
        for d in i..=degree {
            poly[d] += poly[d - i];
        }
    }
    let total: f64 = poly.iter().sum();
    poly[k.min(degree + 1)..].iter().sum::<f64>() / total
}

/// Standard normal survival function.
fn norm_sf(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

/// The test of `x` against `y`; `None` when either is empty.
pub fn mann_whitney_u(x: &[f64], y: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (x.len(), y.len());
    if n1 == 0 || n2 == 0 {
        return None;
    }
    let all: Vec<f64> = x.iter().chain(y).copied().collect();
    let (r, ties) = ranks(&all);
    let r1: f64 = r[..n1].iter().sum();
    let u1 = r1 - (n1 * (n1 + 1)) as f64 / 2.0;
    let u2 = (n1 * n2) as f64 - u1;
    let u = u1.max(u2);
    let exact = (n1 <= 8 || n2 <= 8) && ties.is_empty();
    let p = if exact {
        2.0 * exact_sf(u.round() as usize, n1, n2)
    } else {
        let n = (n1 + n2) as f64;
        let tie_term: f64 = ties.iter().map(|&t| (t as f64).powi(3) - t as f64).sum();
        let s = ((n1 * n2) as f64 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)))).sqrt();
        if s == 0.0 {
            // Every value is equal: no evidence of a difference.
            1.0
        } else {
            2.0 * norm_sf((u - (n1 * n2) as f64 / 2.0 - 0.5) / s)
        }
    };
    Some(MannWhitney {
        u: u1,
        p: p.clamp(0.0, 1.0),
        method: if exact {
            Method::Exact
        } else {
            Method::Asymptotic
        },
    })
}

/// The smallest two-sided p-value the exact test can give for these sample sizes: with 3 vs 3
/// it is 0.1, so no rank test can call a 3-vs-3 difference significant at 0.05.
pub fn min_p_value(n1: usize, n2: usize) -> f64 {
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    (2.0 * exact_sf(n1 * n2, n1, n2)).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values recorded from scipy 1.17.1: `scipy.stats.mannwhitneyu(x, y)` (defaults:
    /// two-sided, method='auto', use_continuity=True); (statistic, pvalue).
    #[test]
    #[allow(clippy::type_complexity)]
    fn equals_scipy_on_recorded_cases() {
        let asym_x = [
            0.0, 1.0, 2.462, 4.171, 6.063, 8.103, 10.271, 12.55, 14.929, 17.399,
        ];
        let asym_y = [
            2.378, 3.948, 5.657, 7.477, 9.391, 11.386, 13.454, 15.588, 17.783, 20.033,
        ];
        let cases: &[(&[f64], &[f64], f64, f64, Method)] = &[
            // mannwhitneyu([1,2,3],[4,5,6]) → (0.0, 0.1)
            (&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0], 0.0, 0.1, Method::Exact),
            // mannwhitneyu([1.1,2.5,3.3,7.2,0.4],[4.4,5.9,6.1,2.2]) → (6.0, 0.4126984126984127)
            (
                &[1.1, 2.5, 3.3, 7.2, 0.4],
                &[4.4, 5.9, 6.1, 2.2],
                6.0,
                0.4126984126984127,
                Method::Exact,
            ),
            // mannwhitneyu(8 values, 12 values below) → (5.0, 0.00030165912518853697)
            (
                &[10.2, 11.5, 9.8, 10.9, 12.1, 10.0, 11.1, 9.5],
                &[
                    11.9, 12.4, 13.0, 12.2, 11.7, 12.8, 13.3, 12.6, 11.4, 12.9, 13.5, 12.0,
                ],
                5.0,
                0.00030165912518853697,
                Method::Exact,
            ),
            // mannwhitneyu([1,2,2],[2,3,3]) → (1.0, 0.15729920705028502): ties → asymptotic
            (
                &[1.0, 2.0, 2.0],
                &[2.0, 3.0, 3.0],
                1.0,
                0.15729920705028502,
                Method::Asymptotic,
            ),
            // mannwhitneyu(asym_x, asym_y) → (36.0, 0.3074894566186813): both > 8 → asymptotic
            (
                &asym_x,
                &asym_y,
                36.0,
                0.3074894566186813,
                Method::Asymptotic,
            ),
            // mannwhitneyu([1,1,2,3,3,3,4,5,5,6,7,7],[3,4,4,5,6,6,7,8,9]) → (28.5, 0.07306007929704762)
            (
                &[1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 4.0, 5.0, 5.0, 6.0, 7.0, 7.0],
                &[3.0, 4.0, 4.0, 5.0, 6.0, 6.0, 7.0, 8.0, 9.0],
                28.5,
                0.07306007929704762,
                Method::Asymptotic,
            ),
            // mannwhitneyu([5,5,5],[5,5,5]) → pvalue 1.0
            (
                &[5.0, 5.0, 5.0],
                &[5.0, 5.0, 5.0],
                4.5,
                1.0,
                Method::Asymptotic,
            ),
        ];
        for (x, y, u, p, method) in cases {
            let r = mann_whitney_u(x, y).unwrap();
            assert_eq!(r.u, *u, "{x:?} {y:?}");
            assert!(
                (r.p - p).abs() <= 1e-12 * p.max(1e-300) + 1e-15,
                "{x:?} {y:?}: p {} vs scipy {p}",
                r.p
            );
            assert_eq!(r.method, *method);
        }
    }

    proptest::proptest! {
        #[test]
        fn symmetric_and_bounded(x in proptest::collection::vec(0u8..20, 1..15), y in proptest::collection::vec(0u8..20, 1..15)) {
            let x: Vec<f64> = x.into_iter().map(f64::from).collect();
            let y: Vec<f64> = y.into_iter().map(f64::from).collect();
            let a = mann_whitney_u(&x, &y).unwrap();
            let b = mann_whitney_u(&y, &x).unwrap();
            proptest::prop_assert!((0.0..=1.0).contains(&a.p));
            proptest::prop_assert!((a.p - b.p).abs() < 1e-12);
            proptest::prop_assert_eq!(a.u + b.u, (x.len() * y.len()) as f64);
        }
    }

    #[test]
    fn three_vs_three_cannot_reach_five_percent() {
        assert_eq!(min_p_value(3, 3), 0.1);
        assert!(min_p_value(4, 4) < 0.05);
        assert_eq!(mann_whitney_u(&[], &[1.0]), None);
    }
}
