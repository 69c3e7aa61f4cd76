//! Trend charts as hand-written SVG (lighter than a general plotting library's output, and
//! every mark can carry a hover `<title>` and a link): x is the run order, labelled with run
//! numbers and dates (never fractional ticks); y the value with a few round ticks. Drawn: the
//! min–max band over a run's repeats, the noise band of the newest segment (level ± z·σ,
//! from the noise model), each segment's level between change points and breaks, change
//! points (dashed; vermilion for regressions, green for improvements), known breaks (dotted
//! grey), runs with notes (triangles). Colours: the site's Okabe–Ito palette.
//!
//! Hover and click: series of at most [`MARKED`] runs get one linked circle with a `<title>`
//! per run (works without JavaScript); longer ones carry their points as JSON in
//! `data-points` and the page's inline script shows the nearest run on hover and opens it on
//! click (the table below the chart lists the newest runs either way).

use std::fmt::Write;

/// Runs up to which every point is its own linked, titled mark.
pub const MARKED: usize = 400;
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
}

use super::xy::{BLUE, GREEN, ORANGE, VERMILION};

/// A drift as the chart draws it: (first index, one past the last, fitted value at the first
/// and at the last point, is a regression).
pub type Drift = (usize, usize, f64, f64, bool);
use crate::present::html_escape as esc;

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

/// The chart as an SVG string: a small multiple, or the series page's desktop layout.
pub fn svg(t: &Trend) -> String {
    draw(t, false)
}

/// The series page's phone layout: 360 units wide (shown at about its size on a phone, so
/// text stays 11 px), fewer ticks. The stylesheet shows one of the two.
pub fn svg_narrow(t: &Trend) -> String {
    draw(&Trend { small: false, ..*t }, true)
}

fn draw(t: &Trend, narrow: bool) -> String {
    let (w, h) = match (t.small, narrow) {
        (true, _) => (240.0, 72.0),
        (false, true) => (360.0, 260.0),
        (false, false) => (720.0, 320.0),
    };
    let (ml, mr, mt, mb) = match (t.small, narrow) {
        (true, _) => (4.0, 4.0, 4.0, 4.0),
        (false, true) => (50.0, 10.0, 12.0, 52.0),
        (false, false) => (64.0, 16.0, 16.0, 52.0),
    };
    let (pw, ph) = (w - ml - mr, h - mt - mb);
    let n = t.points.len();
    let finite = |v: &f64| v.is_finite();
    let mut lo = f64::MAX;
    let mut hi = f64::MIN;
    for p in t.points {
        for v in [Some(p.value), p.lo, p.hi]
            .into_iter()
            .flatten()
            .filter(finite)
        {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if lo > hi {
        (lo, hi) = (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.01).max(1e-12);
    let (lo, hi) = super::charts::drawable(lo - pad, hi + pad);
    let x = |i: f64| {
        if n > 1 {
            ml + i / (n - 1) as f64 * pw
        } else {
            ml + pw / 2.0
        }
    };
    let y = |v: f64| mt + (hi - v.clamp(lo, hi)) / (hi - lo) * ph;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"trend{}\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" font-family=\"sans-serif\" font-size=\"11\" data-left=\"{ml}\" data-plot=\"{pw}\"><title>{}</title><desc>{}</desc>",
        match (t.small, narrow) {
            (true, _) => " small",
            (false, true) => " narrow",
            (false, false) => " wide",
        },
        esc(t.title),
        esc(t.description)
    );
    let _ = write!(
        s,
        "<rect x=\"{ml}\" y=\"{mt}\" width=\"{pw}\" height=\"{ph}\" fill=\"#fff\" stroke=\"#ddd\"/>"
    );
    if !t.small {
        let tick_values = ticks(lo, hi, if narrow { 4 } else { 5 });
        for (v, label) in tick_values.iter().copied().zip(tick_labels(&tick_values)) {
            let yy = y(v);
            let _ = write!(
                s,
                "<line x1=\"{ml}\" x2=\"{:.1}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#eee\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#555\">{}</text>",
                ml + pw,
                ml - 6.0,
                yy + 4.0,
                label
            );
        }
        let _ = write!(
            s,
            "<text transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
            mt + ph / 2.0,
            esc(if t.unit.is_empty() { "value" } else { t.unit })
        );
        // x: about six runs (three on a phone), labelled with their number and date.
        let k = n.clamp(1, if narrow { 3 } else { 6 });
        let mut last = usize::MAX;
        for j in 0..k {
            let i = if k > 1 { j * (n - 1) / (k - 1) } else { 0 };
            if i == last || i >= n {
                continue;
            }
            last = i;
            let p = &t.points[i];
            let xx = x(i as f64);
            // The end labels stay inside the view box.
            let anchor = match (j, k) {
                (0, k) if k > 1 => "start",
                (j, k) if j + 1 == k && k > 1 => "end",
                _ => "middle",
            };
            let _ = write!(
                s,
                "<line x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#999\"/><text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" fill=\"#333\">#{}</text><text x=\"{xx:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" fill=\"#777\">{}</text>",
                mt + ph,
                mt + ph + 4.0,
                mt + ph + 16.0,
                p.run_no,
                mt + ph + 30.0,
                esc(p.date)
            );
        }
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">run (in order; number and date)</text>",
            ml + pw / 2.0,
            h - 4.0
        );
    }
    // Min–max band over repeats.
    let band: Vec<(usize, f64, f64)> = t
        .points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match (p.lo, p.hi) {
            (Some(a), Some(b)) if a.is_finite() && b.is_finite() => Some((i, a, b)),
            _ => None,
        })
        .collect();
    // Drawn where some run has a spread (one repeat per run has none).
    if band.len() >= 2 && !t.small && band.iter().any(|(_, a, b)| b > a) {
        let mut d = String::new();
        for (j, (i, _, b)) in band.iter().enumerate() {
            let _ = write!(
                d,
                "{}{:.1},{:.1}",
                if j == 0 { "M" } else { "L" },
                x(*i as f64),
                y(*b)
            );
        }
        for (i, a, _) in band.iter().rev() {
            let _ = write!(d, "L{:.1},{:.1}", x(*i as f64), y(*a));
        }
        let _ = write!(
            s,
            "<path d=\"{d}Z\" fill=\"{BLUE}\" fill-opacity=\"0.15\"><title>min–max over each run's repeats</title></path>"
        );
    }
    // Segments: between breaks and change points, each at its median level.
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
    for (k, win) in bounds.windows(2).enumerate() {
        let (a, b) = (win[0], win[1]);
        let vals: Vec<f64> = t.points[a..b]
            .iter()
            .map(|p| p.value)
            .filter(finite)
            .collect();
        let Some(level) = crate::stats::median(&vals) else {
            continue;
        };
        let (x0, x1) = (x(a as f64), x((b - 1) as f64));
        let last = k + 2 == bounds.len();
        let band = if t.bands.is_empty() {
            t.noise_band.filter(|_| last)
        } else {
            t.bands.iter().find(|b| b.0 == a).map(|b| b.1)
        };
        if let Some(band) = band {
            let (top, bottom) = (y(level * (1.0 + band)), y(level * (1.0 - band)));
            let _ = write!(
                s,
                "<rect x=\"{x0:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{ORANGE}\" fill-opacity=\"0.10\"><title>noise band of this level: {} ± {:.1}% (99% of unchanged runs fall inside)</title></rect>",
                (x1 - x0).max(1.0),
                (bottom - top).max(0.5),
                tick_label(level),
                band * 100.0
            );
        }
        let _ = write!(
            s,
            "<line x1=\"{x0:.1}\" x2=\"{x1:.1}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#444\" stroke-width=\"1\" stroke-opacity=\"0.6\"><title>segment level (median) {}</title></line>",
            tick_label(level),
            yy = y(level)
        );
    }
    for &(a, b) in t.unstable.iter().filter(|u| u.0 < n && u.1 > u.0) {
        let (x0, x1) = (x(a as f64 - 0.5), x((b.min(n) - 1) as f64 + 0.5));
        let _ = write!(
            s,
            "<rect class=\"unstable\" x=\"{x0:.1}\" y=\"{mt}\" width=\"{:.1}\" height=\"{ph}\" fill=\"#7f7f7f\" fill-opacity=\"0.08\"><title>unstable from #{}: the series switches between two levels here; no change point is called inside</title></rect><line class=\"distribution-change\" x1=\"{x0:.1}\" x2=\"{x0:.1}\" y1=\"{mt}\" y2=\"{:.1}\" stroke=\"#cc79a7\" stroke-width=\"2\" stroke-dasharray=\"1 3\"><title>distribution change at #{}: unstable from here</title></line>",
            (x1 - x0).max(1.0),
            t.points[a].run_no,
            mt + ph,
            t.points[a].run_no
        );
    }
    for &(a, b, from, to, regression) in t.drifts.iter().filter(|d| d.0 < n && d.1 > d.0) {
        let last = b.min(n) - 1;
        let _ = write!(
            s,
            "<line class=\"drift\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"3\" stroke-opacity=\"0.8\"><title>drift {:+.1}% from #{} to #{}: one finding, not a chain of change points</title></line>",
            x(a as f64),
            x(last as f64),
            y(from),
            y(to),
            if regression { VERMILION } else { GREEN },
            (to / from - 1.0) * 100.0,
            t.points[a].run_no,
            t.points[last].run_no
        );
    }
    for &i in t.breaks.iter().filter(|&&i| i < n) {
        let xx = x(i as f64 - 0.5);
        let _ = write!(
            s,
            "<line x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{mt}\" y2=\"{:.1}\" stroke=\"#969696\" stroke-dasharray=\"2 3\"><title>known break before #{}: the benchmark's code or the machine changed (or a change was accepted as the new baseline)</title></line>",
            mt + ph,
            t.points[i].run_no
        );
    }
    for &(i, regression, magnitude) in t.changes.iter().filter(|c| c.0 < n) {
        let xx = x(i as f64);
        let p = &t.points[i];
        let _ = write!(
            s,
            "<line class=\"change\" x1=\"{xx:.1}\" x2=\"{xx:.1}\" y1=\"{mt}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"6 4\"><title>{} {:+.1}% at #{}{}</title></line>",
            mt + ph,
            if regression { VERMILION } else { GREEN },
            if regression {
                "regression"
            } else {
                "improvement"
            },
            magnitude * 100.0,
            p.run_no,
            if p.commit.is_empty() {
                String::new()
            } else {
                format!(" (commit {})", esc(p.commit))
            }
        );
    }
    // The line (a small multiple keeps at most SMALL_POINTS of them: every k-th run, and the
    // last).
    let stride = if t.small {
        n.div_ceil(SMALL_POINTS).max(1)
    } else {
        1
    };
    let mut d = String::new();
    let mut pen = false;
    for (i, p) in t.points.iter().enumerate() {
        if stride > 1 && i % stride != 0 && i + 1 != n {
            continue;
        }
        if !p.value.is_finite() {
            pen = false;
            continue;
        }
        // No line across a known break: the runs on either side measure different things.
        if t.breaks.contains(&i) {
            pen = false;
        }
        let _ = write!(
            d,
            "{}{:.1},{:.1}",
            if pen { "L" } else { "M" },
            x(i as f64),
            y(p.value)
        );
        pen = true;
    }
    let _ = write!(
        s,
        "<path d=\"{d}\" fill=\"none\" stroke=\"{BLUE}\" stroke-width=\"{}\"/>",
        if t.small { 1.2 } else { 1.8 }
    );
    for &i in t.notes.iter().filter(|&&i| i < n) {
        let (xx, yy) = (x(i as f64), y(t.points[i].value));
        let _ = write!(
            s,
            "<path d=\"M{:.1},{:.1}l5,9h-10z\" fill=\"{ORANGE}\"><title>#{} has a note</title></path>",
            xx,
            yy - 12.0,
            t.points[i].run_no
        );
    }
    if !t.small && n <= MARKED {
        for (i, p) in t
            .points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.value.is_finite())
        {
            let _ = write!(
                s,
                "<a href=\"{}\"><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\" fill=\"{BLUE}\"><title>#{} · {}{}{} · {} {}</title></circle></a>",
                format_args!("../../runs/{}/index.html", esc(p.id)),
                x(i as f64),
                y(p.value),
                if n <= 60 { 3.5 } else { 2.5 },
                p.run_no,
                esc(p.date),
                if p.commit.is_empty() {
                    String::new()
                } else {
                    format!(" · {}", esc(p.commit))
                },
                if p.message.is_empty() {
                    String::new()
                } else {
                    format!(" · {}", esc(p.message))
                },
                tick_label(p.value),
                esc(t.unit)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// One other series drawn over a trend on request (the same benchmark at other parameters):
/// its label and (run number, value) points.
pub struct Overlay {
    pub label: String,
    pub points: Vec<(u64, f64)>,
}

/// The data of the series page's script: `{"prefix": P, "unit": U, "breaks": [run_no, …],
/// "points": [[run_no, value, commit, date, run id without P, message], …], "overlay":
/// [{"label": L, "points": [[run_no, value], …]}, …]}`. The script draws the chart again from
/// it when the reader zooms to a range of runs, switches to a log scale or overlays the
/// benchmark's other parameters, and shows the nearest run (date, commit, message) on hover.
pub fn hover_data(t: &Trend, overlay: &[Overlay]) -> String {
    // Run ids of one suite share a long prefix (UUIDv7: the time comes first): said once.
    let prefix = t.points.iter().map(|p| p.id).fold(None::<&str>, |acc, id| {
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
    let mut s = String::with_capacity(64 + t.points.len() * 80);
    s.push_str("{\"prefix\":");
    push_json_str(&mut s, prefix);
    s.push_str(",\"unit\":");
    push_json_str(&mut s, t.unit);
    s.push_str(",\"breaks\":[");
    for (k, &i) in t.breaks.iter().filter(|&&i| i < t.points.len()).enumerate() {
        if k > 0 {
            s.push(',');
        }
        let _ = write!(s, "{}", t.points[i].run_no);
    }
    s.push_str("],\"points\":[");
    for (i, p) in t.points.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "[{},{}", p.run_no, round5(p.value));
        for text in [p.commit, p.date, &p.id[prefix.len()..], p.message] {
            s.push(',');
            push_json_str(&mut s, text);
        }
        s.push(']');
    }
    s.push_str("],\"overlay\":[");
    for (k, o) in overlay.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        s.push_str("{\"label\":");
        push_json_str(&mut s, &o.label);
        s.push_str(",\"points\":[");
        for (j, (run_no, v)) in o.points.iter().enumerate() {
            if j > 0 {
                s.push(',');
            }
            let _ = write!(s, "[{run_no},{}]", round5(*v));
        }
        s.push_str("]}");
    }
    s.push_str("]}");
    s
}

/// Five significant digits (what a tooltip shows), as JSON: `null` where not finite.
fn round5(v: f64) -> String {
    match format!("{v:.4e}").parse::<f64>() {
        Ok(r) if v.is_finite() => r.to_string(),
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

    #[test]
    fn points_are_titled_linked_and_x_is_labelled_by_run() {
        let ids: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
        let pts: Vec<Point> = (0..10)
            .map(|i| Point {
                value: if i < 5 { 10.0 } else { 12.0 },
                lo: None,
                hi: None,
                run_no: 100 + i,
                commit: "abc1234",
                date: "2026-12-01",
                id: &ids[i as usize],
                message: if i == 3 { "Speed up the parser" } else { "" },
            })
            .collect();
        let s = svg(&Trend {
            title: "t",
            description: "d",
            unit: "ms",
            points: &pts,
            changes: &[(5, true, 0.2)],
            breaks: &[],
            notes: &[2],
            noise_band: Some(0.03),
            bands: &[],
            unstable: &[],
            drifts: &[],
            small: false,
        });
        assert!(
            s.contains("<title>#103 · 2026-12-01 · abc1234 · Speed up the parser · 10 ms</title>"),
            "{s}"
        );
        assert!(s.contains("<title>#102 · 2026-12-01 · abc1234 · 10 ms</title>"));
        // One unbroken line without breaks; a break at index 5 lifts the pen there.
        let line = |s: &str| {
            let at = s.find("fill=\"none\" stroke=\"#0072b2\"").unwrap();
            let d = &s[s[..at].rfind("d=\"").unwrap() + 3..at];
            d.matches('M').count()
        };
        assert_eq!(line(&s), 1);
        let broken = svg(&Trend {
            title: "t",
            description: "d",
            unit: "ms",
            points: &pts,
            changes: &[],
            breaks: &[5],
            notes: &[],
            noise_band: None,
            bands: &[],
            unstable: &[],
            drifts: &[],
            small: false,
        });
        assert_eq!(line(&broken), 2);
        // The script's data: unit, breaks by run number, the message, the overlay.
        let data = hover_data(
            &Trend {
                breaks: &[5],
                ..Trend {
                    title: "t",
                    description: "d",
                    unit: "ms",
                    points: &pts,
                    changes: &[],
                    breaks: &[],
                    notes: &[],
                    noise_band: None,
                    bands: &[],
                    unstable: &[],
                    drifts: &[],
                    small: false,
                }
            },
            &[Overlay {
                label: "size=8".into(),
                points: vec![(100, 1.234567), (101, f64::NAN)],
            }],
        );
        let v: serde_json::Value = serde_json::from_str(&data).unwrap();
        assert_eq!(v["unit"], "ms");
        assert_eq!(v["breaks"], serde_json::json!([105]));
        assert_eq!(v["prefix"], "r");
        assert_eq!(
            v["points"][3],
            serde_json::json!([103, 10, "abc1234", "2026-12-01", "3", "Speed up the parser"])
        );
        assert_eq!(v["overlay"][0]["label"], "size=8");
        assert_eq!(
            v["overlay"][0]["points"],
            serde_json::json!([[100, 1.2346], [101, null]])
        );
        assert!(s.contains("href=\"../../runs/r9/index.html\""));
        assert!(s.contains(">#100</text>") && s.contains(">#109</text>"));
        assert!(s.contains("regression +20.0% at #105 (commit abc1234)"));
        assert!(
            s.contains("segment level (median) 10<") && s.contains("segment level (median) 12<")
        );
        assert!(s.contains("noise band of this level: 12 ± 3.0%"));
        assert!(!s.contains("NaN"));
    }
}
