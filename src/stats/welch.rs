//! Welch's t-test on log values: the test a verdict falls back to when its samples are too
//! small for any rank test to reach α (3 vs 3: the smallest Mann-Whitney p is 0.1). On logs, a
//! ratio of medians is a difference of means, and timing noise (multiplicative, right-skewed)
//! is close to normal there. It assumes what the rank test does not (normality), and the reason
//! a verdict gives says which test decided.

/// The result of [`welch_log`]: the statistic, Welch–Satterthwaite degrees of freedom and the
/// two-sided p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Welch {
    pub t: f64,
    pub df: f64,
    pub p: f64,
}

/// Welch's two-sample t-test on `ln` of the values (every value must be > 0, and each side
/// needs two values); `None` otherwise.
pub fn welch_log(x: &[f64], y: &[f64]) -> Option<Welch> {
    if x.len() < 2
        || y.len() < 2
        || x.iter()
            .chain(y)
            .any(|v| v.is_nan() || *v <= 0.0 || v.is_infinite())
    {
        return None;
    }
    let lx: Vec<f64> = x.iter().map(|v| v.ln()).collect();
    let ly: Vec<f64> = y.iter().map(|v| v.ln()).collect();
    welch(&lx, &ly)
}

/// Welch's two-sample t-test on the values as given.
pub fn welch(x: &[f64], y: &[f64]) -> Option<Welch> {
    let (n1, n2) = (x.len() as f64, y.len() as f64);
    if n1 < 2.0 || n2 < 2.0 {
        return None;
    }
    let m1 = x.iter().sum::<f64>() / n1;
    let m2 = y.iter().sum::<f64>() / n2;
    let v1 = x.iter().map(|v| (v - m1).powi(2)).sum::<f64>() / (n1 - 1.0);
    let v2 = y.iter().map(|v| (v - m2).powi(2)).sum::<f64>() / (n2 - 1.0);
    let (a, b) = (v1 / n1, v2 / n2);
    let se2 = a + b;
    if se2 == 0.0 {
        // No spread on either side: identical means are no evidence, different ones are
        // beyond any noise the samples show.
        let p = if m1 == m2 { 1.0 } else { 0.0 };
        return Some(Welch {
            t: if m1 == m2 { 0.0 } else { f64::INFINITY },
            df: n1 + n2 - 2.0,
            p,
        });
    }
    let t = (m2 - m1) / se2.sqrt();
    let df = se2 * se2 / (a * a / (n1 - 1.0) + b * b / (n2 - 1.0));
    Some(Welch {
        t,
        df,
        p: student_t_two_sided(t, df),
    })
}

/// P(|T| ≥ |t|) for Student's t with `df` degrees of freedom: I_{df/(df+t²)}(df/2, 1/2).
pub fn student_t_two_sided(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    let x = df / (df + t * t);
    regularized_beta(x, df / 2.0, 0.5).clamp(0.0, 1.0)
}

/// The regularized incomplete beta function I_x(a, b) by its continued fraction (Lentz's
/// method, as in Numerical Recipes' `betai`).
fn regularized_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front =
        libm::lgamma(a + b) - libm::lgamma(a) - libm::lgamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(x, a, b) / a
    } else {
        1.0 - front * beta_cf(1.0 - x, b, a) / b
    }
}

fn beta_cf(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let nonzero = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / nonzero(1.0 - qab * x / qap);
    let mut h = d;
    // One modified-Lentz step with coefficient `aa`: the factor it multiplies `h` by.
    let mut step = |aa: f64| {
        d = 1.0 / nonzero(1.0 + aa * d);
        c = nonzero(1.0 + aa / c);
        d * c
    };
    for m in 1..300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)));
        let del = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)));
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two-sided critical values of Student's t from the standard tables (e.g. NIST/SEMATECH
    /// e-Handbook 1.3.6.7.2): P(|T| ≥ t) at the tabulated points.
    #[test]
    fn equals_the_t_table() {
        for (t, df, p) in [
            (12.706205, 1.0, 0.05),
            (63.656741, 1.0, 0.01),
            (4.302653, 2.0, 0.05),
            (2.776445, 4.0, 0.05),
            (3.169273, 10.0, 0.01),
            (1.959964, 1e7, 0.05),
            (0.0, 5.0, 1.0),
        ] {
            let got = student_t_two_sided(t, df);
            assert!((got - p).abs() < 1e-5, "t={t} df={df}: {got} vs {p}");
        }
    }

    #[test]
    fn welch_by_hand() {
        // x = 1,2,3 (mean 2, var 1), y = 4,5,6 (mean 5, var 1): se = √(1/3+1/3), t = 3/0.8165
        // = 3.674, df = (2/3)² / (2·(1/3)²/2) = 4.
        let w = welch(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert!((w.t - 3.674_234_6).abs() < 1e-6, "{w:?}");
        assert!((w.df - 4.0).abs() < 1e-12);
        // scipy.stats.ttest_ind([1,2,3],[4,5,6], equal_var=False).pvalue = 0.021311641128756
        assert!((w.p - 0.021_311_641).abs() < 1e-6, "{w:?}");
        assert_eq!(welch_log(&[1.0, 0.0], &[1.0, 2.0]), None);
        assert_eq!(welch(&[2.0, 2.0], &[2.0, 2.0]).unwrap().p, 1.0);
        assert_eq!(welch(&[2.0, 2.0], &[3.0, 3.0]).unwrap().p, 0.0);
        // The bundled Dynamo A/A run's p50 latency at concurrency 8, 2 vs 2 kept trials:
        // scipy.stats.ttest_ind(log(a), log(b), equal_var=False) → t 1.7642555, p 0.2197377.
        let w = welch_log(&[42.8166945, 50.079716], &[52.0607675, 60.8980855]).unwrap();
        assert!(
            (w.t - 1.764_255_5).abs() < 1e-6 && (w.p - 0.219_737_7).abs() < 1e-6,
            "{w:?}"
        );
    }
}
