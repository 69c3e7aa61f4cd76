//! A/B pages of a run's arms (`templates/compare.html`), and [`ComparisonView`]: one
//! comparison as every HTML rendering shows it. The page and the PR report
//! (`report::html`) include the same partials (`templates/comparison_summary.html`,
//! `comparison_table.html`, `comparison_findings.html`) fed this one view, so they say the
//! same words.

use askama::Template;

use crate::present::{ParamLayout, arm_label, ci, fmt_quantity, fmt_value, metric_label, p, pct};
use crate::query::compare::{Comparison, MetricComparison};
use crate::site::load::*;
use crate::site::*;

/// One row of a comparison's table, its cells written out.
pub struct CompareRowView {
    pub verdict: String,
    pub metric: String,
    /// The arm compared (`a → b`), shown where the rows compare more than one.
    pub arm: String,
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

/// A comparison as its HTML renderings show it: what opens it, its table, its findings.
pub struct ComparisonView {
    /// The two sides as the columns name them (arm names on a run's page, selections in a
    /// PR report).
    pub baseline: String,
    pub candidate: String,
    /// Which noise thresholds judged the rows ([`Comparison::noise_line`]).
    pub threshold: String,
    /// benchstat's line: counts, geometric mean, correction ([`Overall::line`]).
    ///
    /// [`Overall::line`]: crate::query::compare::Overall::line
    pub overall: String,
    /// Said once, up front: rows too small for the rank test, or for any test.
    pub small_samples: String,
    /// A comparison of many rows opens with its counts, range and one-way metrics.
    pub opening: Vec<String>,
    /// The p column's heading (`Holm-adjusted p` where the rows are a family of tests).
    pub p_heading: &'static str,
    pub fixed_params: String,
    /// The rows compare more than one arm: the table has an arm column.
    pub show_arm: bool,
    pub rows: Vec<CompareRowView>,
    pub flags: Vec<String>,
    pub diagnoses: Vec<String>,
    /// Which measure of the work decided, per arm × params (`query::compare::measures`).
    pub decided: Vec<String>,
    /// The site's glossary from where the view is shown; empty: no links (a PR report
    /// without a published site).
    pub glossary: String,
}

impl ComparisonView {
    /// `c` with its rows in the order of `rows` (the comparison's, or worst first), the sides
    /// named `baseline` and `candidate`.
    pub fn new(
        c: &Comparison,
        rows: &[&MetricComparison],
        (baseline, candidate): (&str, &str),
        glossary: &str,
    ) -> ComparisonView {
        let layout = ParamLayout::new(c.rows.iter().map(|row| &row.params));
        let first_arm = c.rows.first().map(|r| &r.arm);
        ComparisonView {
            baseline: baseline.to_string(),
            candidate: candidate.to_string(),
            threshold: c.noise_line(),
            overall: c.overall.line(),
            small_samples: c.overall.small_samples.clone().unwrap_or_default(),
            opening: c.opening(),
            p_heading: c.p_heading(),
            fixed_params: layout
                .fixed
                .iter()
                .map(|(k, v)| format!("{k}={}", crate::present::param_value(k, v)))
                .collect::<Vec<_>>()
                .join(" "),
            show_arm: c.rows.iter().any(|r| Some(&r.arm) != first_arm),
            rows: rows
                .iter()
                .map(|row| row_view(row, &layout, baseline, candidate))
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
            glossary: glossary.to_string(),
        }
    }
}

/// One row's cells: medians in the row's unit, scaled to read at a glance.
fn row_view(
    row: &MetricComparison,
    layout: &ParamLayout,
    baseline: &str,
    candidate: &str,
) -> CompareRowView {
    CompareRowView {
        verdict: row.verdict.to_string(),
        metric: metric_label(&row.metric, &row.unit),
        arm: row.arm.clone(),
        params: layout.varying(&row.params),
        n: format!("{}/{}", row.n_baseline, row.n_candidate),
        baseline: fmt_quantity(row.median_baseline, &row.unit),
        candidate: fmt_quantity(row.median_candidate, &row.unit),
        change: pct(row.ratio),
        ci: ci(row),
        p: p(row),
        delta: row.cliffs_delta.map_or("—".into(), |d| format!("{d:+.2}")),
        strip: strip_plot(
            &row.baseline_values,
            &row.candidate_values,
            baseline,
            candidate,
            &row.metric,
        ),
        reason: row.reason.clone(),
    }
}

#[derive(Template)]
#[template(path = "compare.html")]
pub struct ComparePage {
    pub chrome: crate::site::pages::Chrome,
    pub suite: String,
    pub number: String,
    /// The arms compared: the heading, and which differential flamegraphs belong here
    /// (`site::run_pages` matches profiles by arm).
    pub baseline: String,
    pub candidate: String,
    pub cmp: ComparisonView,
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
        let (baseline, candidate) = (arm_label(baseline), arm_label(candidate));
        let chrome = crate::site::pages::Chrome::new(
            2,
            css,
            format!("{} #{}: {baseline} vs {candidate}", r.suite, r.run_no),
        )
        .suite(&r.suite)
        .run(&r.run_id, r.run_no)
        .here(format!("{baseline} vs {candidate}"));
        // Arm names are user strings: the file name is the candidate's position, not its name.
        out.push((
            format!("compare-{}.html", i + 1),
            compare_page(chrome, (&r.suite, r.run_no), (&baseline, &candidate), c),
        ));
    }
    Ok(out)
}

/// The A/B page of two arms of the run `suite #run_no`, its rows in the comparison's order.
pub fn compare_page(
    chrome: crate::site::pages::Chrome,
    (suite, run_no): (&str, u64),
    (baseline, candidate): (&str, &str),
    c: &Comparison,
) -> ComparePage {
    let rows: Vec<&MetricComparison> = c.rows.iter().collect();
    ComparePage {
        chrome,
        suite: suite.to_string(),
        number: format!("#{run_no}"),
        baseline: baseline.to_string(),
        candidate: candidate.to_string(),
        cmp: ComparisonView::new(c, &rows, (baseline, candidate), "../../glossary.html"),
        diffs: Vec::new(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The page of the fixture comparison (`report::fixture`), by hand: model=m1 said once,
    /// rows in the comparison's order with medians in their unit, one arm pair so no arm
    /// column, the decision named by its varying params.
    #[test]
    fn the_compare_page_of_a_hand_built_comparison() {
        let c = crate::report::fixture::comparison();
        let chrome = crate::site::pages::Chrome::new(2, "style.css", "t");
        let page = compare_page(chrome, ("svc", 2), ("a", "b"), &c);
        assert_eq!((page.number.as_str(), page.baseline.as_str()), ("#2", "a"));
        let v = &page.cmp;
        assert_eq!(v.fixed_params, "model=m1");
        assert_eq!(v.p_heading, "Holm-adjusted p");
        assert!(!v.show_arm);
        assert_eq!(v.decided, ["concurrency=8: regressed by instructions"]);
        let cells: Vec<[&str; 9]> = v
            .rows
            .iter()
            .map(|r| {
                [
                    &r.verdict,
                    &r.metric,
                    &r.params,
                    &r.baseline,
                    &r.candidate,
                    &r.change,
                    &r.ci,
                    &r.p,
                    &r.delta,
                ]
                .map(String::as_str)
            })
            .collect();
        assert_eq!(
            cells,
            [
                [
                    "regressed",
                    "latency (ms)",
                    "concurrency=8",
                    "10 ms",
                    "12 ms",
                    "+20.0%",
                    "+10.0% … +30.0%",
                    "0.024",
                    "+1.00"
                ],
                [
                    "inconclusive",
                    "throughput (req/s)",
                    "concurrency=8",
                    "200 req/s",
                    "210 req/s",
                    "+5.0%",
                    "-1.0% … +11.0%",
                    "0.060",
                    "+0.60"
                ],
                [
                    "improved",
                    "latency (ms)",
                    "concurrency=16",
                    "20 ms",
                    "17.5 ms",
                    "-12.5%",
                    "-15.0% … -10.0%",
                    "0.012",
                    "-1.00"
                ],
            ]
        );
        assert!(v.rows[0].strip.starts_with("<svg class=\"strip\""));
    }

    /// Rows of two arm pairs get an arm column.
    #[test]
    fn rows_of_several_arms_get_an_arm_column() {
        let mut c = crate::report::fixture::comparison();
        c.rows[2].arm = "a → c".into();
        let rows: Vec<&MetricComparison> = c.rows.iter().collect();
        let v = ComparisonView::new(&c, &rows, ("a", "b"), "");
        assert!(v.show_arm);
        assert_eq!(v.rows[2].arm, "a → c");
    }
}
