//! Reports rendered from query results, one serializer per file as hyperfine's `src/export/`:
//!
//! * [`table`](mod@table): the terminal table of a [`Comparison`] and [`grid`], the aligned or
//!   CSV layout every text listing goes through;
//! * [`markdown`](mod@markdown): GitHub Markdown of a comparison;
//! * [`pr`]: the pull-request comment (Markdown within GitHub's size limit);
//! * [`html`]: the pull-request report as one self-contained HTML file, its table from the
//!   site's compare page template;
//! * [`history`](mod@history), [`noise`](mod@noise), [`alerts`](mod@alerts),
//!   [`sweep`](mod@sweep): the text listings of those subcommands.
//!
//! Every function is pure: values in, text out (JSON comes from serde directly).

pub mod alerts;
pub mod history;
pub mod html;
pub mod markdown;
pub mod noise;
pub mod pr;
pub mod sweep;
pub mod table;

pub use crate::present::sweep::{sweep_capacity, sweep_knee};
pub use crate::present::{ParamLayout, ci, fmt_value, html_escape, p, pct};
pub use alerts::{alerts, alerts_by_commit};
pub use history::history;
pub use html::pr_html;
pub use markdown::markdown;
pub use noise::{calibration_noise, calibration_noise_note, noise};
pub use pr::{COMMENT_LIMIT, commit_entry_line, pr_markdown};
pub use sweep::{suite_frontier, suite_frontier_left_out, sweep};
pub use table::{TextLayout, grid, table};

use crate::query::compare::{Comparison, MetricComparison};
use crate::stats::verdict::Verdict;

/// Parameters common to every row are said once in the header; rows name what varies.
fn layout(c: &Comparison) -> ParamLayout {
    ParamLayout::new(c.rows.iter().map(|r| &r.params))
}

/// The parameters every row shares, `k=v` joined by spaces; `None` where none are shared.
fn fixed_text(l: &ParamLayout) -> Option<String> {
    let parts: Vec<String> = l
        .fixed
        .iter()
        .map(|(k, v)| format!("{k}={}", crate::present::param_value(k, v)))
        .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// A row's verdict, with the short reason of an inconclusive row whose CI excludes no change:
/// `inconclusive (2 trials per arm, Welch t on logs p = 0.075 ≥ 0.05)`.
fn verdict_cell(r: &MetricComparison) -> String {
    match &r.verdict_note {
        Some(note) => format!("{} ({note})", r.verdict),
        None => r.verdict.to_string(),
    }
}

/// A comparison row's metric with its unit ([`with_unit`]).
fn metric_label(r: &MetricComparison) -> String {
    with_unit(&r.metric, &r.unit)
}

/// `metric (unit)`, or the metric alone when it has no unit.
fn with_unit(metric: &str, unit: &str) -> String {
    if unit.is_empty() {
        metric.to_string()
    } else {
        format!("{metric} ({unit})")
    }
}

/// How bad a row is for sorting: regressions by how far they went the wrong way, first.
fn badness(r: &MetricComparison) -> f64 {
    let change = r.ratio.unwrap_or(1.0) - 1.0;
    let wrong_way = if r.better == crate::stats::verdict::Direction::HigherIsBetter {
        -change
    } else {
        change
    };
    match r.verdict {
        Verdict::Regressed => 1e6 + wrong_way,
        Verdict::Inconclusive => 1e3 + wrong_way.abs(),
        Verdict::Improved => 1e2 - wrong_way,
        _ => wrong_way,
    }
}

/// The rows of a comparison, worst first (the PR comment's and the PR report's order).
fn worst_first(c: &Comparison) -> Vec<&MetricComparison> {
    let mut rows: Vec<&MetricComparison> = c.rows.iter().collect();
    rows.sort_by(|a, b| badness(b).total_cmp(&badness(a)));
    rows
}

#[cfg(test)]
pub(crate) mod fixture;

#[cfg(test)]
mod tests {
    use crate::query::compare::tests::{comparison_of, row};
    use crate::stats::verdict::Verdict;

    /// Three rows, one regressed at p = 0.001 (Holm: 3 · 0.001 = 0.003) and two at p = 0.2
    /// and 0.3 (2 · 0.2 = 0.4, max(0.4, 0.3) = 0.4): the p column, headed `Holm-adjusted p`,
    /// prints 0.003 and 0.400, the numbers each row's reason names, in the terminal table, the
    /// Markdown and the PR report.
    #[test]
    fn the_p_column_is_the_holm_adjusted_p_the_reasons_name() {
        let mut rows = vec![
            row(0.001, 10, Verdict::Regressed),
            row(0.2, 10, Verdict::Inconclusive),
            row(0.3, 10, Verdict::Inconclusive),
        ];
        for (r, m) in rows.iter_mut().zip(["a", "b", "c"]) {
            r.metric = m.into();
        }
        let c = comparison_of(rows);
        let table = super::table(&c, false);
        let header = table.lines().find(|l| l.starts_with("metric")).unwrap();
        assert!(header.contains("Holm-adjusted p"), "{header}");
        let line = |m: &str| {
            table
                .lines()
                .find(|l| l.starts_with(m))
                .unwrap()
                .to_string()
        };
        assert!(line("a (ms)").contains(" 0.003  regressed"), "{table}");
        assert!(line("b (ms)").contains(" 0.400  inconclusive"), "{table}");
        assert!(table.contains("the Holm-adjusted p = 0.003"), "{table}");
        assert!(table.contains("the Holm-adjusted p = 0.400"), "{table}");
        for md in [super::markdown(&c), super::pr_markdown(&c, None)] {
            assert!(md.contains("| 95% CI | Holm-adjusted p |"), "{md}");
            assert!(md.contains("| 0.003 |") && md.contains("| 0.400 |"), "{md}");
            assert!(
                !md.contains("| 0.001 |"),
                "the unadjusted p is not the column: {md}"
            );
        }
        assert!(super::pr_html(&c, None, "").contains("<th>Holm-adjusted p</th>"));
    }
}
