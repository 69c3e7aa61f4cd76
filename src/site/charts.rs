//! What the site's charts share beyond [`super::axis`]: CDF points, sparklines and size
//! labels. The charts themselves are hand-written SVG: `site::xy` (one figure against
//! another), `site::trend` (a series over runs), `site::flame` (inferno).

/// One line of a chart: a label and its points.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Empirical CDF points of `values` (sorted in place), thinned to at most `max_points`.
pub fn cdf_points(values: &mut [f64], max_points: usize) -> Vec<(f64, f64)> {
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    if n == 0 {
        return Vec::new();
    }
    let step = n.div_ceil(max_points.max(1));
    let mut out: Vec<(f64, f64)> = (0..n)
        .step_by(step)
        .map(|i| (values[i], (i + 1) as f64 / n as f64))
        .collect();
    if out.last().map(|p| p.1) != Some(1.0) {
        out.push((values[n - 1], 1.0));
    }
    out
}

/// A 120×24 sparkline (inline SVG, no axes), last point marked.
pub fn sparkline(values: &[f64], label: &str) -> String {
    let (w, h) = (120.0, 24.0);
    let (lo, hi) = values
        .iter()
        .filter(|v| v.is_finite())
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    let (lo, hi) = super::axis::drawable(lo, hi);
    let span = hi - lo;
    let n = values.len();
    let xy = |i: usize, v: f64| {
        let x = if n > 1 {
            i as f64 / (n - 1) as f64 * (w - 4.0) + 2.0
        } else {
            w / 2.0
        };
        let y = h - 2.0 - (v - lo) / span * (h - 4.0);
        (x, y)
    };
    let pts: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let (x, y) = xy(i, *v);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let last = values.last().map(|v| xy(n - 1, *v)).unwrap_or((0.0, 0.0));
    format!(
        "<svg class=\"spark\" width=\"120\" height=\"24\" viewBox=\"0 0 120 24\" role=\"img\" aria-label=\"{}\"><polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"/><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2\" fill=\"{}\"/></svg>",
        crate::present::html_escape(label),
        super::axis::BLUE,
        pts.join(" "),
        last.0,
        last.1,
        super::axis::VERMILION
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdf_of_four_values() {
        let mut v = vec![4.0, 1.0, 3.0, 2.0];
        assert_eq!(
            cdf_points(&mut v, 100),
            vec![(1.0, 0.25), (2.0, 0.5), (3.0, 0.75), (4.0, 1.0)]
        );
    }

    #[test]
    fn cdf_is_thinned_but_ends_at_one() {
        let mut v: Vec<f64> = (0..1000).map(f64::from).collect();
        let pts = cdf_points(&mut v, 100);
        assert!(pts.len() <= 101);
        assert_eq!(*pts.last().unwrap(), (999.0, 1.0));
    }

    #[test]
    fn sizes_are_labelled_in_binary_units() {
        let bytes_label = |b: f64| crate::present::fmt_quantity(Some(b), "B");
        assert_eq!(bytes_label(512.0), "512 B");
        assert_eq!(bytes_label(4096.0), "4 KiB");
        assert_eq!(bytes_label(1536.0), "1.5 KiB");
        assert_eq!(bytes_label(1048576.0), "1 MiB");
        assert_eq!(bytes_label(20f64.exp2() * 1024.0), "1 GiB");
    }
}
