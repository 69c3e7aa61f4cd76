//! Charts of one figure against another (a sweep's load, a transfer's object size) as
//! hand-written SVG, drawn once in a 720-unit view box the page scales to its width. On a
//! phone the stylesheet sets the chart's text at twice its size (12 px in a chart shown at
//! half) and hides every other x label (`.minor`); the left margin holds the y labels at that
//! size.
//!
//! What the charts carry beyond lines: a marker per point with a hover `<title>`, error bars
//! (`lo`/`hi`), a log₂ x axis (load levels 1, 2, 4 … 64 spread evenly; sizes in KiB/MiB),
//! horizontal rules (an SLO bound) and vertical rules (a knee, a capacity), each in its line's
//! colour and named in the legend. The y range covers every point, bar and rule, so nothing
//! runs off the plot. The legend and caption are HTML under the chart: they wrap on a phone.

use std::fmt::Write;

use super::trend::{tick_labels, ticks};

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

/// The colour of the `i`-th arm of a run, the same on every page that draws it (arms ordered
/// by [`arm_order`]).
pub fn arm_colour(i: usize) -> &'static str {
    COLOURS[i % COLOURS.len()]
}

/// Arms in the order every page lists and colours them: numbers inside names by value
/// (`speedup-5` before `speedup-10`), the rest as text.
pub fn arm_order(a: &str, b: &str) -> std::cmp::Ordering {
    natural_key(a).cmp(&natural_key(b)).then_with(|| a.cmp(b))
}

/// `speedup-10` → [Text("speedup-"), Num(10)]: digit runs compare by value.
fn natural_key(s: &str) -> Vec<(String, u128)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut digits = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            if !digits.is_empty() {
                out.push((
                    std::mem::take(&mut text),
                    digits.parse().unwrap_or(u128::MAX),
                ));
                digits.clear();
            }
            text.push(c);
        }
    }
    let last = if digits.is_empty() {
        0
    } else {
        digits.parse().unwrap_or(u128::MAX)
    };
    out.push((text, last));
    out
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    Linear,
    /// Powers of two spread evenly; points at x ≤ 0 are left out.
    Log2,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TickText {
    Number,
    /// Binary sizes: 4 KiB, 1 MiB.
    Bytes,
}

#[derive(Debug, Clone)]
pub struct Axis {
    pub label: String,
    pub scale: Scale,
    pub text: TickText,
    /// The range starts at zero when every value is positive (throughput, GB/s).
    pub from_zero: bool,
    /// The values' unit where it has steps (ms, s, B): a linear axis is then written in the
    /// step that fits its range (`present::unit_step`: 20 ms, not 0.02 s) and its label says
    /// which.
    pub unit: String,
}

impl Axis {
    /// A linear axis; a label ending in a unit with steps (`latency (s)`) is written in the
    /// step its range fits (`latency (ms)`, ticks 20, 40 …).
    pub fn linear(label: impl Into<String>) -> Axis {
        let label: String = label.into();
        let (label, unit) = match label.strip_suffix(')').and_then(|l| l.rsplit_once(" (")) {
            Some((text, unit)) if crate::present::unit_ladder(unit).is_some() => {
                (text.to_string(), unit.to_string())
            }
            _ => (label, String::new()),
        };
        Axis {
            label,
            scale: Scale::Linear,
            text: TickText::Number,
            from_zero: true,
            unit,
        }
    }

    /// The step a linear axis over `(lo, hi)` is written in (its size in the values' unit)
    /// and the label that names it.
    fn step(&self, (lo, hi): (f64, f64)) -> (f64, String) {
        if self.unit.is_empty() || self.scale != Scale::Linear {
            return (1.0, self.label.clone());
        }
        let (factor, name) = crate::present::unit_step(&self.unit, lo.abs().max(hi.abs()));
        (factor, format!("{} ({name})", self.label))
    }

    pub fn log2(label: impl Into<String>, text: TickText) -> Axis {
        Axis {
            label: label.into(),
            scale: Scale::Log2,
            text,
            from_zero: false,
            unit: String::new(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    /// An error bar (min–max over repeats).
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// The hover text.
    pub tip: String,
}

impl Point {
    pub fn new(x: f64, y: f64, tip: impl Into<String>) -> Point {
        Point {
            x,
            y,
            lo: None,
            hi: None,
            tip: tip.into(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Line {
    pub label: String,
    pub colour: &'static str,
    pub points: Vec<Point>,
    pub dashed: bool,
    /// A marker (with its hover text) per point; off for dense lines (a CDF, a time series).
    pub markers: bool,
}

/// A rule across the plot: horizontal at a y value (a bound), or vertical at an x value (a
/// knee, a capacity).
#[derive(Debug, Clone)]
pub struct Rule {
    pub at: f64,
    pub label: String,
    pub colour: &'static str,
}

/// A point singled out (a knee): a hollow diamond in its line's colour.
#[derive(Debug, Clone)]
pub struct Mark {
    pub x: f64,
    pub y: f64,
    pub label: String,
    pub colour: &'static str,
}

#[derive(Debug, Clone)]
pub struct Chart {
    pub title: String,
    pub description: String,
    pub x: Axis,
    pub y: Axis,
    pub lines: Vec<Line>,
    pub horizontal: Vec<Rule>,
    pub vertical: Vec<Rule>,
    pub marks: Vec<Mark>,
}

/// The view box and the margins that do not depend on the labels.
const W: f64 = 720.0;
const H: f64 = 360.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 60.0;
const X_TICKS: usize = 10;
const Y_TICKS: usize = 6;

use crate::present::html_escape as esc;

impl Chart {
    /// The figure's inner HTML: a caption, the two layouts, the legend.
    pub fn html(&self) -> String {
        let mut s = String::new();
        let _ = write!(s, "<figcaption>{}</figcaption>", esc(&self.title));
        s.push_str(&self.svg());
        s.push_str("<ul class=\"legend\">");
        for l in &self.lines {
            let _ = write!(
                s,
                "<li><span class=\"swatch{}\" style=\"border-color:{}\"></span>{}</li>",
                if l.dashed { " dashed" } else { "" },
                l.colour,
                esc(&l.label)
            );
        }
        for r in self.horizontal.iter().chain(&self.vertical) {
            let _ = write!(
                s,
                "<li><span class=\"swatch dashed\" style=\"border-color:{}\"></span>{}</li>",
                r.colour,
                esc(&r.label)
            );
        }
        for m in &self.marks {
            let _ = write!(
                s,
                "<li><span class=\"diamond\" style=\"border-color:{}\"></span>{}</li>",
                m.colour,
                esc(&m.label)
            );
        }
        s.push_str("</ul>");
        s
    }

    fn x_pos(&self, v: f64) -> Option<f64> {
        match self.x.scale {
            Scale::Linear => v.is_finite().then_some(v),
            Scale::Log2 => (v.is_finite() && v > 0.0).then(|| v.log2()),
        }
    }

    /// The data range of each axis (x in axis units: log₂ for a log axis).
    fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for l in &self.lines {
            for p in &l.points {
                let Some(x) = self.x_pos(p.x) else { continue };
                if !p.y.is_finite() {
                    continue;
                }
                x0 = x0.min(x);
                x1 = x1.max(x);
                for v in [Some(p.y), p.lo, p.hi].into_iter().flatten() {
                    if v.is_finite() {
                        y0 = y0.min(v);
                        y1 = y1.max(v);
                    }
                }
            }
        }
        for r in &self.horizontal {
            y0 = y0.min(r.at);
            y1 = y1.max(r.at);
        }
        for r in &self.vertical {
            if let Some(x) = self.x_pos(r.at) {
                x0 = x0.min(x);
                x1 = x1.max(x);
            }
        }
        if x0 > x1 {
            (x0, x1) = (0.0, 1.0);
        }
        if y0 > y1 {
            (y0, y1) = (0.0, 1.0);
        }
        if self.y.from_zero && y0 > 0.0 {
            y0 = 0.0;
        }
        if (x1 - x0).abs() < 1e-12 {
            (x0, x1) = (x0 - 0.5, x1 + 0.5);
        }
        let pad = ((y1 - y0) * 0.06).max(y1.abs() * 0.01).max(1e-12);
        let y0 = if self.y.from_zero && y0 >= 0.0 {
            y0
        } else {
            y0 - pad
        };
        (
            super::charts::drawable(x0, x1),
            super::charts::drawable(y0, y1 + pad),
        )
    }

    fn x_ticks(&self, (x0, x1): (f64, f64), n: usize) -> Vec<(f64, String)> {
        match self.x.scale {
            Scale::Log2 => {
                let (a, b) = (x0.ceil() as i64, x1.floor() as i64);
                let all: Vec<i64> = (a..=b).collect();
                let step = all.len().div_ceil(n.max(1)).max(1);
                all.iter()
                    .step_by(step)
                    .map(|&e| {
                        let v = (e as f64).exp2();
                        let text = match self.x.text {
                            TickText::Bytes => crate::present::fmt_quantity(Some(v), "B"),
                            TickText::Number => crate::present::fmt_number(v),
                        };
                        (e as f64, text)
                    })
                    .collect()
            }
            Scale::Linear => {
                let (factor, _) = self.x.step((x0, x1));
                let t = ticks(x0 / factor, x1 / factor, n);
                let labels = match self.x.text {
                    TickText::Bytes => t
                        .iter()
                        .map(|v| crate::present::fmt_quantity(Some(*v), "B"))
                        .collect(),
                    TickText::Number => tick_labels(&t),
                };
                t.into_iter().map(|v| v * factor).zip(labels).collect()
            }
        }
    }

    fn svg(&self) -> String {
        let ((x0, x1), (y0, y1)) = self.ranges();
        let (y_factor, y_label) = self.y.step((y0, y1));
        let (_, x_label) = self.x.step((x0, x1));
        let yt: Vec<f64> = ticks(y0 / y_factor, y1 / y_factor, Y_TICKS);
        let y_labels = tick_labels(&yt);
        // Room for the y labels at a phone's text size (24 units) and the rotated axis label.
        let chars = y_labels
            .iter()
            .map(|t| t.chars().count())
            .max()
            .unwrap_or(1);
        let left = (32.0 + chars as f64 * 13.5).max(64.0);
        let p = Plot {
            left,
            pw: W - left - RIGHT,
            ph: H - TOP - BOTTOM,
            x: (x0, x1),
            y: (y0, y1),
        };
        let mut s = String::new();
        let _ = write!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\"><title>{}</title><desc>{}</desc>",
            esc(&self.title),
            esc(&self.description)
        );
        let _ = write!(
            s,
            "<rect x=\"{left}\" y=\"{TOP}\" width=\"{}\" height=\"{}\" fill=\"#fff\" stroke=\"#ccc\"/>",
            p.pw, p.ph
        );
        let yt: Vec<(f64, String)> = yt.into_iter().map(|v| v * y_factor).zip(y_labels).collect();
        p.axes(
            &mut s,
            &yt,
            &self.x_ticks((x0, x1), X_TICKS),
            (&x_label, &y_label),
        );
        self.rules(&mut s, &p);
        for line in &self.lines {
            self.line(&mut s, &p, line);
        }
        for m in &self.marks {
            let Some(x) = self.x_pos(m.x) else { continue };
            let (xx, yy) = (p.px(x), p.py(m.y));
            let _ = write!(
                s,
                "<path class=\"knee\" d=\"M{xx:.1},{:.1}l7,7l-7,7l-7,-7z\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"><title>{}</title></path>",
                yy - 7.0,
                m.colour,
                esc(&m.label)
            );
        }
        s.push_str("</svg>");
        s
    }

    /// The horizontal rules (bounds) across the plot and the vertical ones (marks) down it.
    fn rules(&self, s: &mut String, p: &Plot) {
        let (left, pw, ph) = (p.left, p.pw, p.ph);
        for r in &self.horizontal {
            let yy = p.py(r.at);
            let _ = write!(
                s,
                "<line class=\"bound\" x1=\"{}\" x2=\"{:.1}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"><title>{}</title></line>",
                left,
                left + pw,
                r.colour,
                esc(&r.label)
            );
        }
        for r in &self.vertical {
            let Some(x) = self.x_pos(r.at) else { continue };
            let xx = p.px(x);
            let _ = write!(
                s,
                "<line class=\"mark\" x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"3 3\"><title>{}</title></line>",
                TOP,
                TOP + ph,
                r.colour,
                esc(&r.label)
            );
        }
    }

    /// One line: its error bars (under it), the path, and a marker per point with its tip.
    fn line(&self, s: &mut String, plot: &Plot, line: &Line) {
        let (px, py) = (|v| plot.px(v), |v| plot.py(v));
        let pts: Vec<(f64, &Point)> = line
            .points
            .iter()
            .filter(|p| p.y.is_finite())
            .filter_map(|p| Some((self.x_pos(p.x)?, p)))
            .collect();
        for (x, p) in &pts {
            if let (Some(lo), Some(hi)) = (p.lo, p.hi)
                && lo.is_finite()
                && hi.is_finite()
                && hi > lo
            {
                let xx = px(*x);
                let _ = write!(
                    s,
                    "<path class=\"bar\" d=\"M{:.1},{:.1}h8M{xx:.1},{:.1}V{:.1}M{:.1},{:.1}h8\" stroke=\"{}\" stroke-width=\"1.2\" fill=\"none\"/>",
                    xx - 4.0,
                    py(hi),
                    py(hi),
                    py(lo),
                    xx - 4.0,
                    py(lo),
                    line.colour
                );
            }
        }
        let mut d = String::new();
        for (i, (x, p)) in pts.iter().enumerate() {
            let _ = write!(
                d,
                "{}{:.1},{:.1}",
                if i == 0 { "M" } else { "L" },
                px(*x),
                py(p.y)
            );
        }
        if pts.len() > 1 {
            let _ = write!(
                s,
                "<path d=\"{d}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>",
                line.colour,
                if line.dashed {
                    " stroke-dasharray=\"7 4\""
                } else {
                    ""
                }
            );
        }
        for (x, p) in pts.iter().filter(|_| line.markers) {
            let _ = write!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\" fill=\"{}\" stroke=\"#fff\" stroke-width=\"1\"><title>{}</title></circle>",
                px(*x),
                py(p.y),
                if line.dashed { 2.5 } else { 3.5 },
                line.colour,
                esc(&p.tip)
            );
        }
    }
}

/// Where an xy chart draws: the plot area (left margin, width, height) and the axes' ranges.
struct Plot {
    left: f64,
    pw: f64,
    ph: f64,
    x: (f64, f64),
    y: (f64, f64),
}

impl Plot {
    fn px(&self, v: f64) -> f64 {
        self.left + (v - self.x.0) / (self.x.1 - self.x.0) * self.pw
    }

    fn py(&self, v: f64) -> f64 {
        let (y0, y1) = self.y;
        TOP + (y1 - v.clamp(y0, y1)) / (y1 - y0) * self.ph
    }

    /// The y ticks and grid, the x ticks (a phone shows every other label) and both axes'
    /// labels.
    fn axes(
        &self,
        s: &mut String,
        y_ticks: &[(f64, String)],
        x_ticks: &[(f64, String)],
        (x_label, y_label): (&str, &str),
    ) {
        let (left, pw, ph) = (self.left, self.pw, self.ph);
        for (v, text) in y_ticks {
            let yy = self.py(*v);
            let _ = write!(
                s,
                "<line x1=\"{left}\" x2=\"{:.1}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#eee\"/><text x=\"{:.1}\" y=\"{yy:.1}\" dy=\".35em\" text-anchor=\"end\" fill=\"#555\">{text}</text>",
                left + pw,
                left - 5.0,
            );
        }
        for (k, (v, text)) in x_ticks.iter().enumerate() {
            let xx = self.px(*v);
            let _ = write!(
                s,
                "<line x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{TOP}\" y2=\"{:.1}\" stroke=\"#eee\"/><text{} x=\"{xx:.1}\" y=\"{:.1}\" dy=\"1em\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
                TOP + ph,
                if k % 2 == 1 { " class=\"minor\"" } else { "" },
                TOP + ph + 3.0,
                esc(text)
            );
        }
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#333\">{}</text><text transform=\"translate(2 {:.1}) rotate(-90)\" dy=\".8em\" text-anchor=\"middle\" fill=\"#333\">{}</text>",
            left + pw / 2.0,
            H - 6.0,
            esc(x_label),
            TOP + ph / 2.0,
            esc(y_label)
        );
    }
}

/// A chart of plain lines (no markers, linear axes) from `(label, points)` series, each in
/// the colour `colour(i, label)` gives: the run page's latency CDFs, CPU and server metrics
/// over time.
pub fn lines(
    title: &str,
    description: &str,
    x: &str,
    y: &str,
    series: Vec<(String, Vec<(f64, f64)>)>,
    colour: &dyn Fn(usize, &str) -> &'static str,
) -> Chart {
    Chart {
        title: title.into(),
        description: description.into(),
        x: Axis {
            from_zero: false,
            ..Axis::linear(x)
        },
        y: Axis::linear(y),
        lines: series
            .into_iter()
            .enumerate()
            .map(|(i, (label, points))| Line {
                colour: colour(i, &label),
                points: points
                    .into_iter()
                    .map(|(x, y)| Point::new(x, y, String::new()))
                    .collect(),
                label,
                dashed: false,
                markers: false,
            })
            .collect(),
        horizontal: Vec::new(),
        vertical: Vec::new(),
        marks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(scale: Scale) -> Chart {
        Chart {
            title: "Throughput vs load".into(),
            description: "d".into(),
            x: Axis {
                label: "concurrency".into(),
                scale,
                text: TickText::Number,
                from_zero: false,
                unit: String::new(),
            },
            y: Axis::linear("req/s"),
            lines: vec![Line {
                label: "a<b".into(),
                colour: arm_colour(0),
                points: [1.0, 2.0, 4.0, 64.0]
                    .iter()
                    .map(|&x| Point {
                        lo: Some(x * 0.9),
                        hi: Some(x * 1.1),
                        ..Point::new(x, x, format!("c{x}"))
                    })
                    .collect(),
                dashed: false,
                markers: true,
            }],
            horizontal: vec![Rule {
                at: 100.0,
                label: "SLO".into(),
                colour: BOUND,
            }],
            vertical: vec![Rule {
                at: 8.0,
                label: "capacity".into(),
                colour: arm_colour(0),
            }],
            marks: vec![Mark {
                x: 4.0,
                y: 4.0,
                label: "knee".into(),
                colour: arm_colour(0),
            }],
        }
    }

    /// The x positions of the markers.
    fn circles_x(svg: &str) -> Vec<f64> {
        svg.split("<circle cx=\"")
            .skip(1)
            .map(|c| c[..c.find('"').unwrap()].parse().unwrap())
            .collect()
    }

    /// The plot's left edge and width (its frame, the first rect).
    fn plot(svg: &str) -> (f64, f64) {
        let attr = |name: &str| -> f64 {
            let rect = &svg[svg.find("<rect ").unwrap()..];
            let at = rect.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            rect[at..at + rect[at..].find('"').unwrap()]
                .parse()
                .unwrap()
        };
        (attr("x"), attr("width"))
    }

    #[test]
    fn a_log2_axis_spreads_doublings_evenly() {
        let c = chart(Scale::Log2);
        let svg = c.svg();
        let xs = circles_x(&svg);
        // Labels "0" … "100": three characters at a phone's size, the margin 32 + 3 × 13.5.
        let (left, width) = plot(&svg);
        assert_eq!((left, width), (72.5, 720.0 - 72.5 - 16.0));
        // 1, 2, 4, 64 → log2 0, 1, 2, 6: at 0, 1/6, 2/6 and 6/6 of the plot.
        let expected: Vec<f64> = [0.0, 1.0, 2.0, 6.0]
            .iter()
            .map(|k| ((left + k / 6.0 * width) * 10.0).round() / 10.0)
            .collect();
        assert_eq!(xs, expected);
        for label in [">1<", ">2<", ">4<", ">8<", ">16<", ">32<", ">64<"] {
            assert!(svg.contains(label), "{label} missing");
        }
        // Linear: 1…64: 2 sits at 1/63 of the plot.
        let xs = circles_x(&chart(Scale::Linear).svg());
        assert_eq!(xs[1], ((left + width / 63.0) * 10.0).round() / 10.0);
    }

    #[test]
    fn bounds_bars_and_rules_stay_inside_the_plot() {
        let c = chart(Scale::Log2);
        let ((_, _), (y0, y1)) = c.ranges();
        // The highest bar end (64 × 1.1 = 70.4) and the SLO at 100 are inside; from zero.
        assert_eq!(y0, 0.0);
        assert!((100.0..110.0).contains(&y1), "{y1}");
        let svg = c.svg();
        assert_eq!(svg.matches("class=\"bar\"").count(), 4);
        assert!(svg.contains("class=\"bound\"") && svg.contains("class=\"mark\""));
        // The knee's diamond is centred on its point: x of 4 on the log axis, 2/6 of the plot.
        let (left, width) = plot(&svg);
        let knee = format!("class=\"knee\" d=\"M{:.1},", left + width / 3.0);
        assert!(svg.contains(&knee), "{knee} in {svg}");
        // Drawn once: one SVG, every other x label marked for phones to hide.
        let html = c.html();
        assert_eq!(html.matches("<svg").count(), 1);
        assert!(html.contains("<text class=\"minor\""));
        assert!(html.contains("a&lt;b") && !html.contains("a<b"));
        assert!(html.contains("<figcaption>Throughput vs load</figcaption>"));
    }

    /// An axis in seconds over 0–0.1 s is written in ms (issue 40: no 0.02 on an axis whose
    /// unit has a step that reads better).
    #[test]
    fn an_axis_with_a_unit_is_written_in_its_step() {
        let mut c = chart(Scale::Linear);
        c.y = Axis::linear("mean observation (s)");
        assert_eq!(
            (c.y.label.as_str(), c.y.unit.as_str()),
            ("mean observation", "s")
        );
        for l in &mut c.lines {
            for p in &mut l.points {
                p.y /= 1000.0;
                p.lo = None;
                p.hi = None;
            }
        }
        c.horizontal.clear();
        let svg = c.svg();
        assert!(svg.contains(">mean observation (ms)</text>"), "{svg}");
        assert!(
            svg.contains(">60</text>") && !svg.contains(">0.06</text>"),
            "{svg}"
        );
        // A unit without steps stays in the label as it is.
        assert_eq!(Axis::linear("rate (req/s)").label, "rate (req/s)");
    }

    #[test]
    fn arms_are_ordered_with_numbers_by_value() {
        let mut arms = vec!["speedup-10", "speedup-5", "baseline", "speedup-50"];
        arms.sort_by(|a, b| arm_order(a, b));
        assert_eq!(arms, ["baseline", "speedup-5", "speedup-10", "speedup-50"]);
    }
}
