//! Charts as SVG strings (plotters). One function per chart kind; all share the palette and
//! size constants below, so every chart on the site looks like one family.

use plotters::prelude::*;

pub const WIDTH: u32 = 720;
pub const HEIGHT: u32 = 360;
const FONT: &str = "sans-serif";
/// Okabe–Ito, distinguishable with common colour-vision deficiencies.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

#[derive(Debug, thiserror::Error)]
#[error("drawing chart `{title}`: {message}")]
pub struct ChartError {
    pub title: String,
    pub message: String,
}

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

/// A line chart: `x_label` and `y_label` carry units. The SVG gets a `<title>` and `<desc>` so
/// screen readers announce what it shows.
pub fn line_chart(
    title: &str,
    description: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> Result<String, ChartError> {
    line_chart_with(title, description, x_label, y_label, series, None)
}

/// The label of a tick on an axis of log2 sizes in bytes, for [`line_chart_with`]:
/// 12 → "4 KiB", 20 → "1 MiB".
pub fn log2_bytes_tick(x: &f64) -> String {
    bytes_label(x.exp2())
}

/// A size in bytes with a binary unit: 4096 → "4 KiB", 1536 → "1.5 KiB", 512 → "512 B".
pub fn bytes_label(b: f64) -> String {
    crate::present::fmt_quantity(Some(b), "B")
}

/// [`line_chart`] with the x ticks labelled by `x_format` where given.
pub fn line_chart_with(
    title: &str,
    description: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    x_format: Option<&dyn Fn(&f64) -> String>,
) -> Result<String, ChartError> {
    let err = |e: &dyn std::fmt::Display| ChartError {
        title: title.to_string(),
        message: e.to_string(),
    };
    let pts = series
        .iter()
        .flat_map(|s| s.points.iter())
        .filter(|(x, y)| x.is_finite() && y.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if (x1 - x0).abs() < f64::EPSILON {
        x1 = x0 + 1.0;
    }
    if (y1 - y0).abs() < f64::EPSILON {
        y1 = y0 + 1.0;
    }
    let y0 = y0.min(0.0);
    let (x0, x1) = drawable(x0, x1);
    let (y0, y1) = drawable(y0, y1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| err(&e))?;
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(x_label)
            .y_desc(y_label)
            .label_style((FONT, 12))
            .light_line_style(RGBColor(235, 235, 235));
        if let Some(f) = x_format {
            mesh.x_label_formatter(f);
        }
        mesh.draw().map_err(|e| err(&e))?;
        for (i, s) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    s.points
                        .iter()
                        .filter(|(x, y)| x.is_finite() && y.is_finite())
                        .map(|&(x, y)| (x.clamp(x0, x1), y.clamp(y0, y1))),
                    color.stroke_width(2),
                ))
                .map_err(|e| err(&e))?
                .label(s.label.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .label_font((FONT, 12))
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(add_accessibility(&svg, title, description))
}

/// The largest magnitude an axis end may have: plotters computes tick positions from the
/// span, which must stay finite (a series spanning ±1e308 made it loop forever).
const AXIS_LIMIT: f64 = 1e300;

/// An axis range plotters can always draw: finite, ends within ±[`AXIS_LIMIT`] (values past
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

/// A 120×24 sparkline (inline SVG, no axes), last point marked.
pub fn sparkline(values: &[f64], label: &str) -> String {
    let (w, h) = (120.0, 24.0);
    let (lo, hi) = values
        .iter()
        .filter(|v| v.is_finite())
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    let (lo, hi) = drawable(lo, hi);
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
        "<svg class=\"spark\" width=\"120\" height=\"24\" viewBox=\"0 0 120 24\" role=\"img\" aria-label=\"{}\"><polyline fill=\"none\" stroke=\"#0072b2\" stroke-width=\"1.5\" points=\"{}\"/><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2\" fill=\"#d55e00\"/></svg>",
        xml_escape(label),
        pts.join(" "),
        last.0,
        last.1
    )
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Inserts `<title>`/`<desc>` right after the opening `<svg …>` tag and marks it as an image.
fn add_accessibility(svg: &str, title: &str, description: &str) -> String {
    let Some(open_end) = svg.find('>') else {
        return svg.to_string();
    };
    let (head, rest) = svg.split_at(open_end);
    format!(
        "{head} role=\"img\"><title>{}</title><desc>{}</desc>{}",
        xml_escape(title),
        xml_escape(description),
        &rest[1..]
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
    fn chart_escapes_labels_and_describes_itself() {
        let s = Series {
            label: "<b>arm</b>".into(),
            points: vec![(1.0, 0.5), (2.0, 1.0)],
        };
        let svg = line_chart("t <x>", "d & e", "latency (ms)", "fraction", &[s]).unwrap();
        assert!(svg.contains("<title>t &lt;x&gt;</title>"));
        assert!(svg.contains("<desc>d &amp; e</desc>"));
        assert!(!svg.contains("<b>arm</b>"));
        assert!(svg.contains("latency (ms)"));
    }

    #[test]
    fn sizes_are_labelled_in_binary_units() {
        assert_eq!(bytes_label(512.0), "512 B");
        assert_eq!(bytes_label(4096.0), "4 KiB");
        assert_eq!(bytes_label(1536.0), "1.5 KiB");
        assert_eq!(bytes_label(1048576.0), "1 MiB");
        assert_eq!(bytes_label(20f64.exp2() * 1024.0), "1 GiB");
        let svg = line_chart_with(
            "t",
            "d",
            "object size (log scale)",
            "GB/s",
            &[Series {
                label: "a".into(),
                points: vec![(12.0, 1.0), (20.0, 2.0)],
            }],
            Some(&log2_bytes_tick),
        )
        .unwrap();
        assert!(
            svg.contains("\n4 KiB\n") && svg.contains("\n1 MiB\n"),
            "{svg}"
        );
    }
}
