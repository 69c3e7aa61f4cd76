//! What every chart of the site draws with, below the charts themselves (`site::charts`,
//! `site::trend`, `site::xy`) so that none of them needs another: the palette, axis ranges
//! that always draw, and round ticks with labels that tell neighbours apart.

/// The site's palette (Okabe–Ito: distinguishable with common colour-vision deficiencies).
pub const COLOURS: [&str; 8] = [
    BLUE, ORANGE, GREEN, "#cc79a7", "#56b4e9", VERMILION, "#f0e442", "#000000",
];
/// The palette's colours other charts name: a series (blue), a regression (vermilion), an
/// improvement (green), a note or noise band (orange).
pub const BLUE: &str = "#0072b2";
pub const ORANGE: &str = "#e69f00";
pub const GREEN: &str = "#009e73";
pub const VERMILION: &str = "#d55e00";
/// The colour of a bound (an SLO): drawn dashed.
pub const BOUND: &str = "#b3261e";

/// The largest magnitude an axis end may have: tick positions are computed from the
/// span, which must stay finite (a series spanning ±1e308 made it loop forever).
const AXIS_LIMIT: f64 = 1e300;

/// An axis range a chart can always draw: finite, ends within ±[`AXIS_LIMIT`] (values past
/// them are drawn at the edge), and a span that is not lost in the ends' magnitude. A range
/// that already is one comes back unchanged.
pub fn drawable(lo: f64, hi: f64) -> (f64, f64) {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() && lo <= hi {
        (
            lo.clamp(-AXIS_LIMIT, AXIS_LIMIT),
            hi.clamp(-AXIS_LIMIT, AXIS_LIMIT),
        )
    } else {
        (0.0, 1.0)
    };
    let magnitude = lo.abs().max(hi.abs());
    if hi - lo > magnitude * 1e-9 && hi - lo > 1e-300 {
        return (lo, hi);
    }
    let pad = (magnitude * 0.01).max(1e-9);
    (lo - pad, hi + pad)
}

/// Round tick values covering [lo, hi]: steps of 1, 2 or 5 × 10^k, about `n` of them.
pub fn ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return vec![lo];
    }
    let raw = (hi - lo) / n.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    // Rounded to the step's decimals: 3 × 0.1 is 0.30000000000000004 in binary.
    let scale = 10f64.powi((-step.log10().floor()).max(0.0) as i32);
    while t <= hi + step * 1e-9 && out.len() < 50 {
        let r = (t * scale).round() / scale;
        out.push(if r.abs() < step * 1e-9 { 0.0 } else { r });
        t += step;
    }
    out
}

/// Labels for an axis's ticks: [`tick_label`]'s, with as many more digits as it takes for no
/// two neighbours to read the same (on a narrow range 1.015 and 1.02 are both "1.02" at two
/// decimals, and 1,000,010 and 1,000,020 both "1.00e6").
pub(crate) fn tick_labels(ticks: &[f64]) -> Vec<String> {
    let distinct = |labels: &[String]| labels.windows(2).all(|w| w[0] != w[1]);
    let labels: Vec<String> = ticks.iter().map(|&v| tick_label(v)).collect();
    if distinct(&labels) {
        return labels;
    }
    (1..=12)
        .map(|digits| {
            ticks
                .iter()
                .map(|&v| tick_label_digits(v, digits))
                .collect::<Vec<_>>()
        })
        .find(|l| distinct(l))
        .unwrap_or(labels)
}

/// `v` with `digits` decimals (of the mantissa, in the ranges written in scientific
/// notation), trailing zeros of a fraction dropped.
fn tick_label_digits(v: f64, digits: usize) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e6).contains(&a) {
        format!("{v:.digits$e}")
    } else {
        crate::present::fixed(v, digits)
    }
}

/// A value's label with the decimals that suit its size.
fn tick_label(v: f64) -> String {
    let a = v.abs();
    let digits = if !(1e-3..1e6).contains(&a) || (1.0..100.0).contains(&a) {
        2
    } else if a >= 100.0 {
        0
    } else {
        4
    };
    tick_label_digits(v, digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 10.0, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(0.13, 0.61, 5), vec![0.2, 0.3, 0.4, 0.5, 0.6]);
        let t = ticks(980.0, 1130.0, 5);
        assert_eq!(t, vec![1000.0, 1050.0, 1100.0]);
    }

    /// Neighbouring ticks never share a label: a narrow range gets the digits it needs, a
    /// wide one keeps the short labels.
    #[test]
    fn tick_labels_tell_neighbouring_ticks_apart() {
        let t = ticks(1.006, 1.024, 5);
        assert_eq!(t, vec![1.01, 1.015, 1.02]);
        assert_eq!(tick_labels(&t), ["1.01", "1.015", "1.02"]);
        let t = ticks(1000.1, 1000.9, 4);
        assert_eq!(tick_labels(&t), ["1000.2", "1000.4", "1000.6", "1000.8"]);
        let t = ticks(1_000_005.0, 1_000_045.0, 4);
        assert_eq!(
            tick_labels(&t),
            ["1.00001e6", "1.00002e6", "1.00003e6", "1.00004e6"]
        );
        assert_eq!(
            tick_labels(&ticks(0.0, 10.0, 5)),
            ["0", "2", "4", "6", "8", "10"]
        );
        assert_eq!(
            tick_labels(&ticks(0.13, 0.61, 5)),
            ["0.2", "0.3", "0.4", "0.5", "0.6"]
        );
    }
}
