//! A/B pages of a run's arms (`templates/compare.html`).

use askama::Template;

use crate::site::format::*;
use crate::site::load::*;
use crate::site::*;
use crate::site::{SiteError, format};

pub struct CompareRowView {
    pub verdict: String,
    pub metric: String,
    pub params: String,
    pub n: String,
    pub baseline: String,
    pub candidate: String,
    pub change: String,
    pub ci: String,
    pub p: String,
    /// Cliff's δ (candidate against baseline).
    pub delta: String,
    /// Per-trial values of both arms as a strip plot (inline SVG).
    pub strip: String,
    pub reason: String,
}

#[derive(Template)]
#[template(path = "compare.html")]
pub struct ComparePage {
    pub chrome: crate::site::pages::Chrome,
    pub suite: String,
    pub number: String,
    pub baseline: String,
    pub candidate: String,
    pub threshold: String,
    /// Said once, up front: rows too small for the rank test, or for any test.
    pub small_samples: String,
    /// A comparison of many rows opens with its counts, range and one-way metrics.
    pub opening: Vec<String>,
    /// The p column's heading (`Holm-adjusted p` where the rows are a family of tests).
    pub p_heading: &'static str,
    pub fixed_params: String,
    pub rows: Vec<CompareRowView>,
    pub flags: Vec<String>,
    pub diagnoses: Vec<String>,
    /// Which measure of the work decided, per arm × params (`query::measures`).
    pub decided: Vec<String>,
    /// Differential flamegraphs (baseline → candidate) per target × kind.
    pub diffs: Vec<KeyValue>,
}

/// A/B pages of a run with several arms, from the comparisons `site::load::comparisons`
/// made (the arm that ran first against each other arm, as `perfhouse compare` does).
pub(crate) fn compare_pages(
    r: &RunRecord,
    comparisons: &[ArmComparison],
    css: &str,
) -> Result<Vec<(String, ComparePage)>, SiteError> {
    let mut out = Vec::new();
    for (i, (baseline, candidate, c)) in comparisons.iter().enumerate() {
        let layout = ParamLayout::new(c.rows.iter().map(|row| &row.params));
        let (baseline, candidate) = (&arm_label(baseline), &arm_label(candidate));
        let page = ComparePage {
            chrome: crate::site::pages::Chrome::new(
                2,
                css,
                format!("{} #{}: {baseline} vs {candidate}", r.suite, r.run_no),
            )
            .suite(&r.suite)
            .run(&r.run_id, r.run_no)
            .here(format!("{baseline} vs {candidate}")),
            suite: r.suite.clone(),
            number: format!("#{}", r.run_no),
            baseline: baseline.clone(),
            candidate: candidate.clone(),
            threshold: c.noise_line(),
            small_samples: c.overall.small_samples.clone().unwrap_or_default(),
            opening: c.opening(),
            p_heading: c.p_heading(),
            fixed_params: layout
                .fixed
                .iter()
                .map(|(k, v)| format!("{k}={}", crate::present::param_value(k, v)))
                .collect::<Vec<_>>()
                .join(" "),
            rows: c
                .rows
                .iter()
                .map(|row| CompareRowView {
                    verdict: row.verdict.to_string(),
                    metric: metric_label(&row.metric, &row.unit),
                    params: layout.varying(&row.params),
                    n: format!("{}/{}", row.n_baseline, row.n_candidate),
                    baseline: fmt_quantity(row.median_baseline, &row.unit),
                    candidate: fmt_quantity(row.median_candidate, &row.unit),
                    change: pct(row.ratio),
                    ci: format::ci(row),
                    p: format::p(row),
                    delta: row.cliffs_delta.map_or("—".into(), |d| format!("{d:+.2}")),
                    strip: strip_plot(
                        &row.baseline_values,
                        &row.candidate_values,
                        baseline,
                        candidate,
                        &row.metric,
                    ),
                    reason: row.reason.clone(),
                })
                .collect(),
            flags: c.flags.clone(),
            diagnoses: c.diagnoses.clone(),
            decided: c
                .decisions
                .iter()
                .map(|d| match layout.label(&d.params) {
                    p if p.is_empty() => d.text.clone(),
                    p => format!("{p}: {}", d.text),
                })
                .collect(),
            diffs: Vec::new(),
        };
        // Arm names are user strings: the file name is the candidate's position, not its name.
        out.push((format!("compare-{}.html", i + 1), page));
    }
    Ok(out)
}

/// The per-trial values of two arms on one axis (baseline row above in blue, candidate below
/// in vermilion, medians as ticks), 160×34, each dot titled with its value.
pub fn strip_plot(a: &[f64], b: &[f64], arm_a: &str, arm_b: &str, metric: &str) -> String {
    use std::fmt::Write;
    let all: Vec<f64> = a
        .iter()
        .chain(b)
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    if all.is_empty() {
        return String::new();
    }
    let lo = all.iter().copied().fold(f64::MAX, f64::min);
    let hi = all.iter().copied().fold(f64::MIN, f64::max);
    let (lo, hi) = crate::site::charts::drawable(lo, hi);
    let x = |v: f64| 6.0 + (v - lo) / (hi - lo) * 148.0;
    let esc = crate::present::html_escape;
    let mut s = format!(
        "<svg class=\"strip\" width=\"160\" height=\"34\" viewBox=\"0 0 160 34\" role=\"img\"><title>{}: per-trial values, {} (top) {} vs {} (bottom) {}</title>",
        esc(metric),
        esc(arm_a),
        a.len(),
        esc(arm_b),
        b.len()
    );
    let (blue, vermilion) = (crate::site::xy::BLUE, crate::site::xy::VERMILION);
    for (vals, yy, color, arm) in [(a, 10.0, blue, arm_a), (b, 25.0, vermilion, arm_b)] {
        let _ = write!(
            s,
            "<line x1=\"4\" x2=\"156\" y1=\"{yy}\" y2=\"{yy}\" stroke=\"#ddd\"/>"
        );
        if let Some(m) = crate::stats::median(vals) {
            let _ = write!(
                s,
                "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{color}\" stroke-width=\"2\"><title>median {3}</title></line>",
                x(m),
                yy - 7.0,
                yy + 7.0,
                fmt_value(Some(m))
            );
        }
        for v in vals.iter().filter(|v| v.is_finite()) {
            let _ = write!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{yy}\" r=\"3\" fill=\"{color}\" fill-opacity=\"0.7\"><title>{}: {}</title></circle>",
                x(*v),
                esc(arm),
                fmt_value(Some(*v))
            );
        }
    }
    s.push_str("</svg>");
    s
}
