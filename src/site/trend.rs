//! Trend charts as hand-written SVG: x is the run order, labelled with run numbers and dates
//! (never fractional ticks); y the value in the unit step that reads best (µs, MiB) with a
//! few round ticks. Drawn: the min–max band over a run's repeats, each level's noise band
//! (level ± z·σ, from the noise model), each segment's level between change points and
//! breaks, change points (dashed; vermilion for regressions, green for improvements), known
//! breaks (dotted grey), unstable stretches (shaded), runs with notes (triangles). Colours:
//! the site's Okabe–Ito palette.
//!
//! Each chart is drawn once, in a 720-unit view box that the page scales to its width; on a
//! phone the stylesheet sets its text at twice the size (so it reads at 11 px in a chart
//! shown at half) and hides every other x label (`.minor`). The series page's data is
//! written once, as JSON ([`data`]): its script shows the nearest run on hover, opens it on
//! click, and draws zoomed, log-scale and overlaid views with every mark this chart has
//! (`templates/series.html`).

use std::fmt::Write;

/// Runs up to which each run is also a dot on the line (where dots stay apart).
const DOTS: usize = 120;
/// Points a small multiple's line keeps at most.
const SMALL_POINTS: usize = 120;

pub struct Point<'a> {
    pub value: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    pub run_no: u64,
    pub commit: &'a str,
    /// `YYYY-MM-DD`.
    pub date: &'a str,
    /// The run id: each mark links the run's page, `../../runs/<id>/index.html` (series pages
    /// sit two levels down).
    pub id: &'a str,
    /// The commit's message (its first line; the run's `commit_message` label), or empty.
    pub message: &'a str,
}

pub struct Trend<'a> {
    pub title: &'a str,
    pub description: &'a str,
    pub unit: &'a str,
    pub points: &'a [Point<'a>],
    /// (index of the first run at the new level, is a regression, magnitude)
    pub changes: &'a [(usize, bool, f64)],
    pub breaks: &'a [usize],
    pub notes: &'a [usize],
    /// ± relative noise band of the newest segment.
    pub noise_band: Option<f64>,
    /// ± relative noise band of each level (first index, band) where it has its own noise
    /// model: the band changes along the series. Empty: `noise_band` on the newest level.
    pub bands: &'a [(usize, f64)],
    /// Stretches that switch between two levels (first index, one past the last): shaded,
    /// and marked once at their start as a distribution change.
    pub unstable: &'a [(usize, usize)],
    /// Drifts (first index, one past the last, fitted value at each end, is a regression):
    /// drawn as the sloped line they are, one finding, not a staircase of change points.
    pub drifts: &'a [Drift],
    /// A small multiple: no axes text, no hover marks.
    pub small: bool,
    /// The first point shown (0: the whole series): the series page starts at its newest
    /// level when an earlier one spans another order of magnitude ([`default_from`]).
    pub from: usize,
}

use super::axis::{BLUE, GREEN, ORANGE, VERMILION, drawable, tick_labels, ticks};

/// A drift as the chart draws it: (first index, one past the last, fitted value at the first
/// and at the last point, is a regression).
pub type Drift = (usize, usize, f64, f64, bool);
use crate::present::html_escape as esc;

/// Each level of a trend between breaks and change points: (first index, one past the
/// last, its median, its noise band where it has one). The chart draws them, and the page's
/// script draws the same ones in zoomed views.
pub fn segments(t: &Trend) -> Vec<(usize, usize, f64, Option<f64>)> {
    let n = t.points.len();
    let mut cuts: Vec<usize> = t
        .breaks
        .iter()
        .copied()
        .chain(t.changes.iter().map(|c| c.0))
        .filter(|&i| i > 0 && i < n)
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let bounds: Vec<usize> = std::iter::once(0)
        .chain(cuts.iter().copied())
        .chain(std::iter::once(n))
        .collect();
    let mut out = Vec::new();
    for (k, win) in bounds.windows(2).enumerate() {
        let (a, b) = (win[0], win[1]);
        let vals: Vec<f64> = t.points[a..b]
            .iter()
            .map(|p| p.value)
            .filter(|v| v.is_finite())
            .collect();
        let Some(level) = crate::stats::median(&vals) else {
            continue;
        };
        let last = k + 2 == bounds.len();
        let band = if t.bands.is_empty() {
            t.noise_band.filter(|_| last)
        } else {
            t.bands.iter().find(|b| b.0 == a).map(|b| b.1)
        };
        out.push((a, b, level, band));
    }
    out
}

/// Where a series page's chart starts: at its newest level (after its last break or change
/// point) when that level holds at least [`NEWEST_RUNS`] runs and an earlier level's value
/// is ten times its own or more, or a tenth or less (a line at the bottom of an axis scaled
/// for the old level says nothing); 0 otherwise. The script draws the full history on request.
pub fn default_from(t: &Trend) -> usize {
    let segs = segments(t);
    let Some(&(start, end, newest, _)) = segs.last() else {
        return 0;
    };
    if start == 0 || end - start < NEWEST_RUNS || newest.is_nan() || newest <= 0.0 {
        return 0;
    }
    let far = segs[..segs.len() - 1]
        .iter()
        .any(|s| s.2 > 0.0 && (s.2 / newest >= 10.0 || s.2 / newest <= 0.1));
    if far { start } else { 0 }
}

/// Runs a newest level needs to be the default view on its own.
pub const NEWEST_RUNS: usize = 5;

/// The chart as an SVG string: a small multiple (240 × 72, no text), or the series page's
/// chart (720 × 340, scaled to the page by the stylesheet). Drawn in layers, back to front:
/// the frame and axes, the min–max band, each level, unstable stretches, drifts, breaks,
/// change points, the line and the notes.
pub fn svg(t: &Trend) -> String {
    let (w, h) = if t.small {
        (240.0, 72.0)
    } else {
        (720.0, 340.0)
    };
    let all = t.points.len();
    let from = t.from.min(all.saturating_sub(1));
    let (lo, hi) = value_range(&t.points[from..]);
    // The axis's unit step (ms, MiB) and its ticks, in that step.
    let (factor, axis_unit) = crate::present::unit_step(t.unit, lo.abs().max(hi.abs()));
    let tick_values = ticks(lo / factor, hi / factor, 5);
    let labels = tick_labels(&tick_values);
    let (ml, mr, mt, mb) = if t.small {
        (4.0, 4.0, 4.0, 4.0)
    } else {
        (left_margin(&labels), 16.0, 16.0, 60.0)
    };
    let v = View {
        t,
        pts: &t.points[from..],
        from,
        all,
        lo,
        hi,
        ml,
        mt,
        pw: w - ml - mr,
        ph: h - mt - mb,
    };
    let mut s = String::new();
    v.open(&mut s, w, h);
    if !t.small {
        let ticks: Vec<(f64, &String)> = tick_values
            .iter()
            .map(|v| v * factor)
            .zip(&labels)
            .collect();
        v.y_axis(&mut s, &ticks, &axis_unit);
        v.x_axis(&mut s, h);
    }
    v.band(&mut s);
    v.levels(&mut s);
    v.unstable(&mut s);
    v.drifts(&mut s);
    v.breaks(&mut s);
    v.changes(&mut s);
    v.line(&mut s);
    v.notes(&mut s);
    s.push_str("</svg>");
    s
}

/// The value axis's range over the runs shown: their values and repeats' extremes, padded by
/// 8 %, a flat series widened to a unit or 5 % around its value.
fn value_range(pts: &[Point]) -> (f64, f64) {
    let mut lo = f64::MAX;
    let mut hi = f64::MIN;
    for p in pts {
        for v in [Some(p.value), p.lo, p.hi]
            .into_iter()
            .flatten()
            .filter(|v| v.is_finite())
        {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if lo > hi {
        (lo, hi) = (0.0, 1.0);
    }
    // A flat series (every run 0 B, or one value) gets an axis a unit or 5 % around it, not
    // ±1e-12 written in scientific notation.
    if hi - lo <= hi.abs().max(lo.abs()) * 1e-9 {
        let around = (hi.abs() * 0.05).max(if hi == 0.0 { 1.0 } else { 0.0 });
        (lo, hi) = (lo - around, hi + around);
    }
    let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.01).max(1e-12);
    drawable(lo - pad, hi + pad)
}

/// Where a chart draws: the runs in view and the plot area, shared by its layers.
struct View<'t, 'a> {
    t: &'t Trend<'a>,
    /// The runs shown: `t.points[from..]`.
    pts: &'t [Point<'a>],
    from: usize,
    /// Runs in the whole series.
    all: usize,
    /// The value axis's range.
    lo: f64,
    hi: f64,
    /// The plot area: left and top margins, width and height.
    ml: f64,
    mt: f64,
    pw: f64,
    ph: f64,
}

impl View<'_, '_> {
    /// The x of the `i`-th run shown (fractional: between runs).
    fn x(&self, i: f64) -> f64 {
        let n = self.pts.len();
        if n > 1 {
            self.ml + i / (n - 1) as f64 * self.pw
        } else {
            self.ml + self.pw / 2.0
        }
    }

    fn y(&self, v: f64) -> f64 {
        self.mt + (self.hi - v.clamp(self.lo, self.hi)) / (self.hi - self.lo) * self.ph
    }

    /// A mark given by index into the whole series, shifted into the view (None: out of it).
    fn shown(&self, i: usize) -> Option<usize> {
        (i >= self.from && i < self.all).then(|| i - self.from)
    }

    /// The bottom of the plot area.
    fn bottom(&self) -> f64 {
        self.mt + self.ph
    }

    /// The `<svg>` element, its title and description, and the plot area's frame.
    fn open(&self, s: &mut String, w: f64, h: f64) {
        let (t, ml, mt, pw, ph) = (self.t, self.ml, self.mt, self.pw, self.ph);
        let _ = write!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"trend{}\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" font-family=\"sans-serif\" font-size=\"11\" data-left=\"{ml}\" data-plot=\"{pw}\" data-from=\"{}\"><title>{}</title><desc>{}</desc>",
            if t.small { " small" } else { "" },
            self.from,
            esc(t.title),
            esc(t.description)
        );
        let _ = write!(
            s,
            "<rect x=\"{ml}\" y=\"{mt}\" width=\"{pw}\" height=\"{ph}\" fill=\"#fff\" stroke=\"#ddd\"/>"
        );
    }

    /// The value axis: a grid line and label per tick (value in the series' unit, label in
    /// the axis's step), and the step's name rotated beside them.
    fn y_axis(&self, s: &mut String, ticks: &[(f64, &String)], axis_unit: &str) {
        let ml = self.ml;
        for &(v, label) in ticks {
            let yy = self.y(v);
            let _ = write!(
                s,
                "<line x1=\"{ml}\" x2=\"{:.1}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#eee\"/><text x=\"{:.1}\" y=\"{yy:.1}\" dy=\".35em\" text-anchor=\"end\" fill=\"#555\">{label}</text>",
                ml + self.pw,
                ml - 6.0,
            );
        }
        let _ = write!(
            s,
            "<text transform=\"translate(2 {:.1}) rotate(-90)\" dy=\".8em\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
            self.mt + self.ph / 2.0,
            esc(if axis_unit.is_empty() {
                "value"
            } else {
                axis_unit
            })
        );
    }

    /// The run axis: five runs labelled with their number and date (a phone shows every
    /// other), and the axis's title.
    fn x_axis(&self, s: &mut String, h: f64) {
        let n = self.pts.len();
        let bottom = self.bottom();
        for (j, i) in x_ticks(n).into_iter().enumerate() {
            let p = &self.pts[i];
            let xx = self.x(i as f64);
            // The end labels stay inside the view box.
            let anchor = if i == 0 && n > 1 {
                "start"
            } else if i + 1 == n && n > 1 {
                "end"
            } else {
                "middle"
            };
            let _ = write!(
                s,
                "<g{}><line x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#999\"/><text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" fill=\"#333\"><tspan dy=\"1em\">#{}</tspan><tspan x=\"{xx:.1}\" dy=\"1.2em\" fill=\"#777\">{}</tspan></text></g>",
                if j % 2 == 1 { " class=\"minor\"" } else { "" },
                bottom,
                bottom + 4.0,
                bottom + 4.0,
                p.run_no,
                esc(p.date)
            );
        }
        let _ = write!(
            s,
            "<text class=\"minor\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">run (in order; number and date)</text>",
            self.ml + self.pw / 2.0,
            h - 4.0
        );
    }

    /// The min–max band over each run's repeats, where some run has a spread (one repeat per
    /// run has none).
    fn band(&self, s: &mut String) {
        let band: Vec<(usize, f64, f64)> = self
            .pts
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match (p.lo, p.hi) {
                (Some(a), Some(b)) if a.is_finite() && b.is_finite() => Some((i, a, b)),
                _ => None,
            })
            .collect();
        if band.len() < 2 || self.t.small || !band.iter().any(|(_, a, b)| b > a) {
            return;
        }
        let mut d = String::new();
        for (j, (i, _, b)) in band.iter().enumerate() {
            let _ = write!(
                d,
                "{}{:.1},{:.1}",
                if j == 0 { "M" } else { "L" },
                self.x(*i as f64),
                self.y(*b)
            );
        }
        for (i, a, _) in band.iter().rev() {
            let _ = write!(d, "L{:.1},{:.1}", self.x(*i as f64), self.y(*a));
        }
        let _ = write!(
            s,
            "<path d=\"{d}Z\" fill=\"{BLUE}\" fill-opacity=\"0.15\"><title>min–max over each run's repeats</title></path>"
        );
    }

    /// Each level (its median) and its noise band, over the part of it in view.
    fn levels(&self, s: &mut String) {
        let from = self.from;
        for (a, b, level, band) in segments(self.t) {
            if b <= from {
                continue;
            }
            let (a, b) = (a.max(from) - from, b - from);
            let (x0, x1) = (self.x(a as f64), self.x((b - 1) as f64));
            let text = fmt_level(level, self.t.unit);
            if let Some(band) = band {
                let (top, bottom) = (self.y(level * (1.0 + band)), self.y(level * (1.0 - band)));
                let _ = write!(
                    s,
                    "<rect x=\"{x0:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{ORANGE}\" fill-opacity=\"0.10\"><title>noise band of this level: {text} ± {:.1}% (99% of unchanged runs fall inside)</title></rect>",
                    (x1 - x0).max(1.0),
                    (bottom - top).max(0.5),
                    band * 100.0
                );
            }
            let _ = write!(
                s,
                "<line x1=\"{x0:.1}\" x2=\"{x1:.1}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#444\" stroke-width=\"1\" stroke-opacity=\"0.6\"><title>segment level (median) {text}</title></line>",
                yy = self.y(level)
            );
        }
    }

    /// Unstable stretches: shaded, and marked at their start as a distribution change.
    fn unstable(&self, s: &mut String) {
        let (t, from, ml, mt, pw, ph) = (self.t, self.from, self.ml, self.mt, self.pw, self.ph);
        for &(a, b) in t.unstable.iter().filter(|u| u.1 > u.0 && u.1 > from) {
            let a = a.max(from);
            let Some(la) = self.shown(a) else { continue };
            let (x0, x1) = (
                self.x(la as f64 - 0.5).max(ml),
                self.x((b.min(self.all) - from - 1) as f64 + 0.5)
                    .min(ml + pw),
            );
            let _ = write!(
                s,
                "<rect class=\"unstable\" x=\"{x0:.1}\" y=\"{mt}\" width=\"{:.1}\" height=\"{ph}\" fill=\"#7f7f7f\" fill-opacity=\"0.08\"><title>unstable from #{}: the series switches between two levels here; no change point is called inside</title></rect><line class=\"distribution-change\" x1=\"{x0:.1}\" x2=\"{x0:.1}\" y1=\"{mt}\" y2=\"{:.1}\" stroke=\"#cc79a7\" stroke-width=\"2\" stroke-dasharray=\"1 3\"><title>distribution change at #{}: unstable from here</title></line>",
                (x1 - x0).max(1.0),
                t.points[a].run_no,
                mt + ph,
                t.points[a].run_no
            );
        }
    }

    /// Drifts: the sloped line each is, over the part of it in view.
    fn drifts(&self, s: &mut String) {
        let (t, from) = (self.t, self.from);
        for &(a, b, from_v, to_v, regression) in t.drifts.iter().filter(|d| d.1 > d.0 && d.1 > from)
        {
            let (first, last) = (a.max(from), b.min(self.all) - 1);
            // The fitted line between its ends, cut at the view's first run.
            let at =
                |i: usize| from_v + (to_v - from_v) * (i - a) as f64 / (last.max(a + 1) - a) as f64;
            let _ = write!(
                s,
                "<line class=\"drift\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"3\" stroke-opacity=\"0.8\"><title>drift {} from #{} to #{}: one finding, not a chain of change points</title></line>",
                self.x((first - from) as f64),
                self.x((last - from) as f64),
                self.y(if first == a { from_v } else { at(first) }),
                self.y(to_v),
                if regression { VERMILION } else { GREEN },
                crate::present::signed_pct(to_v / from_v - 1.0),
                t.points[a].run_no,
                t.points[last].run_no
            );
        }
    }

    /// Known breaks, dotted; one before the first run shown is where the view starts: no line.
    fn breaks(&self, s: &mut String) {
        let mt = self.mt;
        for &i in self.t.breaks {
            let Some(li) = self.shown(i).filter(|&li| li > 0) else {
                continue;
            };
            let xx = self.x(li as f64 - 0.5);
            let _ = write!(
                s,
                "<line class=\"break\" x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{mt}\" y2=\"{:.1}\" stroke=\"#969696\" stroke-dasharray=\"2 3\"><title>known break before #{}: the benchmark's code or the machine changed (or a change was accepted as the new baseline)</title></line>",
                self.bottom(),
                self.t.points[i].run_no
            );
        }
    }

    /// Change points, dashed: vermilion for regressions, green for improvements.
    fn changes(&self, s: &mut String) {
        let mt = self.mt;
        for &(i, regression, magnitude) in self.t.changes {
            let Some(li) = self.shown(i) else { continue };
            let xx = self.x(li as f64);
            let p = &self.t.points[i];
            let _ = write!(
                s,
                "<line class=\"change\" x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{mt}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"6 4\"><title>{} {} at #{}{}</title></line>",
                self.bottom(),
                if regression { VERMILION } else { GREEN },
                if regression {
                    "regression"
                } else {
                    "improvement"
                },
                crate::present::signed_pct(magnitude),
                p.run_no,
                if p.commit.is_empty() {
                    String::new()
                } else {
                    format!(" (commit {})", esc(p.commit))
                }
            );
        }
    }

    /// The line, lifted across breaks and missing values (a small multiple keeps at most
    /// [`SMALL_POINTS`] of its runs: every k-th, and the last), and a dot per run where they
    /// stay apart: one path of round caps, not a shape per run.
    fn line(&self, s: &mut String) {
        let (t, n) = (self.t, self.pts.len());
        let stride = if t.small {
            n.div_ceil(SMALL_POINTS).max(1)
        } else {
            1
        };
        let mut d = String::new();
        let mut dots = String::new();
        let mut pen = false;
        for (i, p) in self.pts.iter().enumerate() {
            if stride > 1 && i % stride != 0 && i + 1 != n {
                continue;
            }
            if !p.value.is_finite() {
                pen = false;
                continue;
            }
            // No line across a known break: the runs on either side measure different things.
            if t.breaks.contains(&(i + self.from)) {
                pen = false;
            }
            let (xx, yy) = (self.x(i as f64), self.y(p.value));
            let _ = write!(d, "{}{xx:.1},{yy:.1}", if pen { "L" } else { "M" });
            let _ = write!(dots, "M{xx:.1},{yy:.1}h0");
            pen = true;
        }
        let _ = write!(
            s,
            "<path class=\"line\" d=\"{d}\" fill=\"none\" stroke=\"{BLUE}\" stroke-width=\"{}\"/>",
            if t.small { 1.2 } else { 1.8 }
        );
        if !t.small && n <= DOTS {
            let _ = write!(
                s,
                "<path class=\"dots\" d=\"{dots}\" stroke=\"{BLUE}\" stroke-width=\"{}\" stroke-linecap=\"round\"/>",
                if n <= 60 { 7 } else { 5 }
            );
        }
    }

    /// A triangle above each run with a note.
    fn notes(&self, s: &mut String) {
        let t = self.t;
        for &i in t.notes {
            let Some(li) = self.shown(i).filter(|_| t.points[i].value.is_finite()) else {
                continue;
            };
            let (xx, yy) = (self.x(li as f64), self.y(t.points[i].value));
            let _ = write!(
                s,
                "<path class=\"note\" d=\"M{:.1},{:.1}l5,9h-10z\" fill=\"{ORANGE}\"><title>#{} has a note</title></path>",
                xx,
                yy - 12.0,
                t.points[i].run_no
            );
        }
    }
}

/// The indices of the runs the x axis labels: five spread evenly, three under ten runs (the
/// first, the middle, the last), so that no two labels crowd each other.
fn x_ticks(n: usize) -> Vec<usize> {
    let k = if n < 10 { n.clamp(1, 3) } else { 5 };
    let mut out: Vec<usize> = (0..k)
        .map(|j| {
            if k > 1 {
                (j as f64 * (n - 1) as f64 / (k - 1) as f64).round() as usize
            } else {
                0
            }
        })
        .collect();
    out.dedup();
    out
}

/// The left margin that holds the y labels at a phone's text size (22 units: 11 px in a chart
/// shown at half its width) and the rotated unit beside them.
fn left_margin(labels: &[String]) -> f64 {
    let chars = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    (30.0 + chars as f64 * 12.5).max(64.0)
}

/// A level's value as the tooltips write it: with its unit, scaled (`6.1 ms`).
fn fmt_level(v: f64, unit: &str) -> String {
    if unit.is_empty() || unit == "value" {
        crate::present::fmt_number(v)
    } else {
        crate::present::fmt_quantity(Some(v), unit)
    }
}

/// One other series drawn over a trend on request (the same benchmark at other parameters):
/// its label and (run number, value) points.
pub struct Overlay {
    pub label: String,
    pub points: Vec<(u64, f64)>,
}

/// The file beside a suite's series pages that holds what hover and zoom show of each run
/// ([`runs_script`]), read by each of them with `<script src>` (which works from `file://`,
/// where fetching JSON does not).
pub const RUNS_FILE: &str = "runs.js";

/// The suite's runs, once for all its series pages: `window.perfhouseRunsData = {"prefix": P,
/// "runs": [[run_no, commit, date, run id without P, message], …]};`. A run's id is the link to its
/// page (`runs/<P + id>/`); commits, dates and messages are what the tooltip and a zoomed
/// view's axis say.
pub fn runs_script(points: &[Point]) -> String {
    // Run ids of one suite share a prefix (UUIDv7: the time comes first): said once.
    let prefix = points.iter().map(|p| p.id).fold(None::<&str>, |acc, id| {
        Some(match acc {
            None => id,
            Some(a) => {
                let n = a
                    .bytes()
                    .zip(id.bytes())
                    .take_while(|(x, y)| x == y)
                    .count();
                &a[..n]
            }
        })
    });
    let prefix = prefix.unwrap_or("");
    let mut s = String::with_capacity(64 + points.len() * 72);
    s.push_str("window.perfhouseRunsData={\"prefix\":");
    push_json_str(&mut s, prefix);
    s.push_str(",\"runs\":[");
    for (i, p) in points.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "[{}", p.run_no);
        for text in [p.commit, p.date, &p.id[prefix.len()..], p.message] {
            s.push(',');
            push_json_str(&mut s, text);
        }
        s.push(']');
    }
    s.push_str("]};\n");
    s
}

/// The data of the series page's script, the only copy of the series' values on its page
/// (the chart holds only their geometry; what each run is comes from the suite's
/// [`RUNS_FILE`]):
///
/// ```text
/// {"unit": U, "steps": [[size in U, name], …] (units with prefixes),
///  "from": index the chart starts at, "points": [[run_no, value], …],
///  "range": [[min, max] or null, …] (only where some run has repeats that differ),
///  "levels": [[first, end, level, band or 0], …], "changes": [[index, 1 if a regression,
///  magnitude], …], "drifts": [[first, end, fitted value at first, at last, 1 if a
///  regression], …], "breaks": [index, …], "unstable": [[first, end], …], "notes": [index, …],
///  "overlay": [{"label": L, "points": [[run_no, value], …]}, …]}
/// ```
///
/// Marks are given by index into `points`. The script draws the chart again from it when the
/// reader zooms to a range of runs, switches to a log scale or overlays the benchmark's other
/// parameters, with every mark the chart has, and shows the nearest run on hover.
pub fn data(t: &Trend, overlay: &[Overlay]) -> String {
    let n = t.points.len();
    let mut s = String::with_capacity(256 + n * 20);
    s.push_str("{\"unit\":");
    push_json_str(&mut s, t.unit);
    if let Some(steps) = crate::present::unit_ladder(t.unit) {
        s.push_str(",\"steps\":");
        json_list(
            &mut s,
            steps.iter().map(|(f, name)| format!("[{f:e},\"{name}\"]")),
        );
    }
    let _ = write!(s, ",\"from\":{}", t.from.min(n.saturating_sub(1)));
    data_values(&mut s, t);
    data_marks(&mut s, t);
    s.push_str(",\"overlay\":[");
    for (k, o) in overlay.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        s.push_str("{\"label\":");
        push_json_str(&mut s, &o.label);
        s.push_str(",\"points\":");
        json_list(
            &mut s,
            o.points
                .iter()
                .map(|(run_no, v)| format!("[{run_no},{}]", round5(*v))),
        );
        s.push('}');
    }
    s.push_str("]}");
    s
}

/// `items` as a JSON array (each item already JSON).
fn json_list(s: &mut String, items: impl Iterator<Item = String>) {
    s.push('[');
    for (k, item) in items.enumerate() {
        if k > 0 {
            s.push(',');
        }
        s.push_str(&item);
    }
    s.push(']');
}

/// The script's `points`, and `range` where some run has repeats that differ.
fn data_values(s: &mut String, t: &Trend) {
    s.push_str(",\"points\":");
    json_list(
        s,
        t.points
            .iter()
            .map(|p| format!("[{},{}]", p.run_no, round5(p.value))),
    );
    let spread = t
        .points
        .iter()
        .any(|p| matches!((p.lo, p.hi), (Some(a), Some(b)) if a.is_finite() && b > a));
    if spread {
        s.push_str(",\"range\":");
        json_list(
            s,
            t.points.iter().map(|p| match (p.lo, p.hi) {
                (Some(a), Some(b)) if a.is_finite() && b.is_finite() => {
                    format!("[{},{}]", round5(a), round5(b))
                }
                _ => "null".into(),
            }),
        );
    }
}

/// The script's marks, by index into `points`: levels, changes, drifts, breaks, unstable
/// stretches and notes (those past the last point left out).
fn data_marks(s: &mut String, t: &Trend) {
    let n = t.points.len();
    s.push_str(",\"levels\":");
    json_list(
        s,
        segments(t).into_iter().map(|(a, b, level, band)| {
            format!(
                "[{a},{b},{},{}]",
                round5(level),
                round5(band.unwrap_or(0.0))
            )
        }),
    );
    s.push_str(",\"changes\":");
    json_list(
        s,
        t.changes
            .iter()
            .filter(|c| c.0 < n)
            .map(|&(i, regression, m)| format!("[{i},{},{}]", u8::from(regression), round5(m))),
    );
    s.push_str(",\"drifts\":");
    json_list(
        s,
        t.drifts
            .iter()
            .filter(|d| d.0 < n && d.1 > d.0)
            .map(|&(a, b, from, to, regression)| {
                format!(
                    "[{a},{},{},{},{}]",
                    b.min(n),
                    round5(from),
                    round5(to),
                    u8::from(regression)
                )
            }),
    );
    s.push_str(",\"breaks\":");
    json_list(
        s,
        t.breaks.iter().filter(|&&i| i < n).map(|i| i.to_string()),
    );
    s.push_str(",\"unstable\":");
    json_list(
        s,
        t.unstable
            .iter()
            .filter(|u| u.0 < n && u.1 > u.0)
            .map(|&(a, b)| format!("[{a},{}]", b.min(n))),
    );
    s.push_str(",\"notes\":");
    json_list(s, t.notes.iter().filter(|&&i| i < n).map(|i| i.to_string()));
}

/// Five significant digits (what a tooltip shows), as JSON: `null` where not finite.
/// `v` to 5 significant digits as JSON: the shorter of its decimal and exponent forms
/// (`0.0000098458` is `9.8458e-6`, `1234.5` stays), `null` where it is not finite.
fn round5(v: f64) -> String {
    match format!("{v:.4e}").parse::<f64>() {
        Ok(r) if v.is_finite() => {
            let (plain, exp) = (r.to_string(), format!("{r:e}"));
            if exp.len() < plain.len() { exp } else { plain }
        }
        _ => "null".into(),
    }
}

/// `text` as a JSON string, as serde_json writes it (quoted, `"`, `\\` and control characters
/// escaped, the rest as is).
fn push_json_str(out: &mut String, text: &str) {
    if text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(&serde_json::to_string(text).expect("a string serializes"));
    } else {
        out.push('"');
        out.push_str(text);
        out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_five_digits_in_their_shorter_json_form() {
        assert_eq!(round5(0.0000098458123), "9.8458e-6");
        assert_eq!(round5(1234.56), "1234.6");
        assert_eq!(round5(0.25), "0.25");
        assert_eq!(round5(123_456_789.0), "1.2346e8");
        assert_eq!(round5(f64::NAN), "null");
        let v: f64 = serde_json::from_str(&round5(0.0000098458123)).unwrap();
        assert_eq!(v, 9.8458e-6);
    }

    #[test]
    fn json_strings_are_written_as_serde_json_writes_them() {
        for text in [
            "",
            "0123abc",
            "2026-12-02",
            "a\"b",
            "back\\slash",
            "tab\tnew\nline\u{1}",
            "ünïcödé \u{2028} 🙂",
            "</script>",
        ] {
            let mut out = String::new();
            push_json_str(&mut out, text);
            assert_eq!(out, serde_json::to_string(text).unwrap(), "{text:?}");
        }
    }

    fn spec<'a>(pts: &'a [Point<'a>]) -> Trend<'a> {
        Trend {
            title: "t",
            description: "d",
            unit: "ms",
            points: pts,
            changes: &[],
            breaks: &[],
            notes: &[],
            noise_band: None,
            bands: &[],
            unstable: &[],
            drifts: &[],
            small: false,
            from: 0,
        }
    }

    fn points(ids: &[String], values: &[f64]) -> Vec<Point<'static>> {
        let ids: &'static [String] = Box::leak(ids.to_vec().into_boxed_slice());
        values
            .iter()
            .enumerate()
            .map(|(i, &value)| Point {
                value,
                lo: None,
                hi: None,
                run_no: 100 + i as u64,
                commit: "abc1234",
                date: "2026-12-01",
                id: &ids[i],
                message: if i == 3 { "Speed up the parser" } else { "" },
            })
            .collect()
    }

    #[test]
    fn a_chart_is_drawn_once_with_its_marks_and_the_data_written_once() {
        let ids: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
        let values: Vec<f64> = (0..10).map(|i| if i < 5 { 10.0 } else { 12.0 }).collect();
        let pts = points(&ids, &values);
        let s = svg(&Trend {
            changes: &[(5, true, 0.2)],
            notes: &[2],
            noise_band: Some(0.03),
            ..spec(&pts)
        });
        assert_eq!(s.matches("<svg").count(), 1);
        // The data is the script's: the chart carries no per-run titles or links.
        assert!(!s.contains("<circle") && !s.contains("<a "), "{s}");
        assert!(s.contains("class=\"dots\""));
        // One unbroken line without breaks; a break at index 5 lifts the pen there.
        let line = |s: &str| {
            let at = s.find("class=\"line\" d=\"").unwrap() + 16;
            s[at..at + s[at..].find('"').unwrap()].matches('M').count()
        };
        assert_eq!(line(&s), 1);
        let broken = svg(&Trend {
            breaks: &[5],
            ..spec(&pts)
        });
        assert_eq!(line(&broken), 2);
        assert!(s.contains(">#100</tspan>") && s.contains(">#109</tspan>"));
        assert!(s.contains(">2026-12-01</tspan>"));
        // Every other x label is for desktops only.
        assert_eq!(s.matches("<g class=\"minor\">").count(), 2);
        assert!(s.contains("regression +20.0% at #105 (commit abc1234)"));
        assert!(
            s.contains("segment level (median) 10 ms<")
                && s.contains("segment level (median) 12 ms<")
        );
        assert!(s.contains("noise band of this level: 12 ms ± 3.0%"));
        assert!(!s.contains("NaN"));
        // The script's data: unit, marks by index, the message, the overlay.
        let data = data(
            &Trend {
                breaks: &[5],
                changes: &[(5, true, 0.2)],
                notes: &[2],
                unstable: &[(6, 9)],
                ..spec(&pts)
            },
            &[Overlay {
                label: "size=8".into(),
                points: vec![(100, 1.234567), (101, f64::NAN)],
            }],
        );
        let v: serde_json::Value = serde_json::from_str(&data).unwrap();
        assert_eq!(v["unit"], "ms");
        assert_eq!(v["steps"][1], serde_json::json!([1e-3, "µs"]));
        assert_eq!(v["from"], 0);
        assert_eq!(v["breaks"], serde_json::json!([5]));
        assert_eq!(v["changes"], serde_json::json!([[5, 1, 0.2]]));
        assert_eq!(v["notes"], serde_json::json!([2]));
        assert_eq!(v["unstable"], serde_json::json!([[6, 9]]));
        assert_eq!(
            v["levels"],
            serde_json::json!([[0, 5, 10, 0], [5, 10, 12, 0]])
        );
        assert!(v.get("range").is_none());
        // The values only: what each run is lives in the suite's runs file, once.
        assert_eq!(v["points"][3], serde_json::json!([103, 10]));
        let runs = runs_script(&pts);
        let runs: serde_json::Value = serde_json::from_str(
            runs.strip_prefix("window.perfhouseRunsData=")
                .unwrap()
                .trim_end()
                .strip_suffix(';')
                .unwrap(),
        )
        .unwrap();
        assert_eq!(runs["prefix"], "r");
        assert_eq!(
            runs["runs"][3],
            serde_json::json!([103, "abc1234", "2026-12-01", "3", "Speed up the parser"])
        );
        assert_eq!(v["overlay"][0]["label"], "size=8");
        assert_eq!(
            v["overlay"][0]["points"],
            serde_json::json!([[100, 1.2346], [101, null]])
        );
    }

    /// A series whose newest level sits at 6 ms after 0.3 s runs starts at that level (item 2
    /// of issue 40: a flat line at the bottom of a 0–0.4 s axis said nothing).
    #[test]
    fn a_newest_level_an_order_of_magnitude_away_is_the_default_view() {
        let ids: Vec<String> = (0..20).map(|i| format!("r{i}")).collect();
        let values: Vec<f64> = (0..20).map(|i| if i < 12 { 0.3 } else { 0.006 }).collect();
        let pts = points(&ids, &values);
        let t = Trend {
            unit: "s",
            breaks: &[12],
            changes: &[(4, true, 0.05)],
            ..spec(&pts)
        };
        assert_eq!(default_from(&t), 12);
        let s = svg(&Trend { from: 12, ..t });
        // The axis is in ms, the first label is the level's first run, the old marks are out.
        assert!(s.contains(">ms</text>"), "{s}");
        assert!(s.contains(">#112</tspan>") && !s.contains(">#100</tspan>"));
        assert!(!s.contains("class=\"change\"") && !s.contains("class=\"break\""));
        assert!(s.contains("segment level (median) 6 ms<"));
        // The same level a factor 3 away, or a newest level of 4 runs: the whole series.
        let near: Vec<f64> = (0..20)
            .map(|i| if i < 12 { 0.018 } else { 0.006 })
            .collect();
        let near = points(&ids, &near);
        assert_eq!(
            default_from(&Trend {
                breaks: &[12],
                ..spec(&near)
            }),
            0
        );
        assert_eq!(
            default_from(&Trend {
                breaks: &[16],
                ..spec(&pts)
            }),
            0
        );
    }

    /// Axis labels use the unit step that fits (no 1.70e-4 on a seconds axis).
    #[test]
    fn the_axis_is_scaled_to_a_unit_step() {
        let ids: Vec<String> = (0..5).map(|i| format!("r{i}")).collect();
        let pts = points(&ids, &[1.7e-4, 1.8e-4, 1.75e-4, 1.72e-4, 1.71e-4]);
        let s = svg(&Trend {
            unit: "s",
            ..spec(&pts)
        });
        assert!(s.contains(">µs</text>"), "{s}");
        assert!(!s.contains("e-4"), "{s}");
    }

    /// A chart with every layer (the repeats' band, two levels with their noise bands, an
    /// unstable stretch, a drift, a break, a change point, the line and a note), rendered in
    /// memory as a golden (`src/site/snapshots/`; bless with `INSTA_UPDATE=always` after an
    /// intended change and review the diff).
    #[test]
    fn golden_chart_with_every_layer() {
        let ids: Vec<String> = (0..12).map(|i| format!("r{i}")).collect();
        let values: Vec<f64> = (0..12)
            .map(|i| if i < 6 { 10.0 } else { 12.0 } + (i % 3) as f64 * 0.1)
            .collect();
        let mut pts = points(&ids, &values);
        for p in &mut pts {
            (p.lo, p.hi) = (Some(p.value * 0.98), Some(p.value * 1.03));
        }
        let t = Trend {
            changes: &[(6, true, 0.2)],
            breaks: &[3],
            notes: &[8],
            bands: &[(3, 0.04), (6, 0.03)],
            unstable: &[(9, 12)],
            drifts: &[(0, 3, 10.0, 10.2, true)],
            ..spec(&pts)
        };
        let s = svg(&t);
        assert_eq!(s.matches("<path class=\"note\"").count(), 1);
        assert_eq!(s.matches("<line class=\"change\"").count(), 1);
        assert_eq!(s.matches("<line class=\"break\"").count(), 1);
        assert_eq!(s.matches("<line class=\"drift\"").count(), 1);
        assert_eq!(s.matches("<rect class=\"unstable\"").count(), 1);
        // Three levels (cut at the break and the change), two with their own band.
        assert_eq!(s.matches("segment level (median)").count(), 3);
        assert_eq!(s.matches("noise band of this level").count(), 2);
        insta::assert_snapshot!("trend_every_layer", s);
    }

    /// How long one chart and its data take (the book's comparison with plotters, design.md):
    /// `cargo test --lib trend::tests::time_one_chart -- --ignored --nocapture`.
    #[test]
    #[ignore = "a timing, run by hand"]
    fn time_one_chart() {
        for n in [343usize, 1000] {
            let ids: Vec<String> = (0..n).map(|i| format!("01a2-{i:08}")).collect();
            let values: Vec<f64> = (0..n)
                .map(|i| 4.8 + (i as f64 * 0.37).sin() * 0.1 + if i > n / 2 { 0.8 } else { 0.0 })
                .collect();
            let pts = points(&ids, &values);
            let t = Trend {
                unit: "s",
                changes: &[(n / 2 + 1, true, 0.17)],
                breaks: &[n / 4],
                noise_band: Some(0.02),
                unstable: &[(n / 3, n / 2)],
                ..spec(&pts)
            };
            let reps = 50;
            let start = std::time::Instant::now();
            let mut bytes = 0;
            for _ in 0..reps {
                bytes = svg(&t).len() + data(&t, &[]).len();
            }
            eprintln!(
                "{n} points: {:.3} ms per chart and its data, {bytes} bytes",
                start.elapsed().as_secs_f64() * 1e3 / reps as f64
            );
        }
    }
}
