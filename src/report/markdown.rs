//! GitHub Markdown of a comparison (`perfhouse report --format md`), and the pieces the
//! pull-request comment ([`super::pr`]) shares with it.

use std::fmt::Write;

use super::{fixed_text, layout, metric_label, verdict_cell};
use crate::present::{ParamLayout, ci, fmt_value, p, pct};
use crate::query::compare::{Comparison, MetricComparison};
use crate::stats::verdict::Verdict;

/// `s` safe in a Markdown table cell: pipes escaped, angle brackets as entities.
pub(super) fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// GitHub Markdown: worst verdicts first, reasons collapsed.
pub fn markdown(c: &Comparison) -> String {
    let l = layout(c);
    let mut rows: Vec<&MetricComparison> = c.rows.iter().collect();
    rows.sort_by_key(|r| r.verdict);
    let mut out = format!(
        "### perfhouse: {} → {}\n\n",
        md_escape(&c.baseline.label),
        md_escape(&c.candidate.label)
    );
    let regressed = c.regressions();
    if let Some(small) = &c.overall.small_samples {
        let _ = writeln!(out, "> {}\n", md_escape(small));
    }
    out.push_str(&md_opening(c));
    let _ = writeln!(
        out,
        "{} regression{}; {}{}.\n\n{}.\n",
        regressed,
        if regressed == 1 { "" } else { "s" },
        c.noise_line(),
        all_rows_at(&l),
        // benchstat's summary: judged, improved / regressed / unchanged / inconclusive, the
        // geometric mean.
        md_escape(&c.overall.line())
    );
    out.push_str(&decided_md(c, &l));
    out.push_str(&md_header(c));
    for r in &rows {
        out.push_str(&md_row(r, &l.varying(&r.params)));
    }
    out.push_str(&findings_md(c));
    let _ = writeln!(out, "\n<details><summary>Why each verdict</summary>\n");
    for r in rows.iter().filter(|r| r.verdict != Verdict::Info) {
        out.push_str(&why_md(r, &l));
    }
    let _ = writeln!(out, "\n</details>");
    out
}

/// `; all rows at model=m1` where every row shares parameters, else nothing.
pub(super) fn all_rows_at(l: &ParamLayout) -> String {
    fixed_text(l)
        .map(|f| format!("; all rows at {}", md_escape(&f)))
        .unwrap_or_default()
}

/// Which measure of the work decided, per arm × params (`query::compare::measures`), as Markdown
/// bullets under a bold title; empty where the comparison has no two such measures.
pub(super) fn decided_md(c: &Comparison, l: &ParamLayout) -> String {
    if c.decisions.is_empty() {
        return String::new();
    }
    let mut out = String::from("**Which measure decided** (each judged by its own noise)\n\n");
    for d in &c.decisions {
        let _ = writeln!(
            out,
            "- {} {}: {}",
            md_escape(&d.arm),
            md_escape(&l.varying(&d.params)),
            md_escape(&d.text)
        );
    }
    out.push('\n');
    out
}

/// A comparison's opening summary ([`Comparison::opening`]) as a Markdown list, or nothing.
pub(super) fn md_opening(c: &Comparison) -> String {
    let lines = c.opening();
    if lines.is_empty() {
        return String::new();
    }
    let mut s = String::from("**Summary**\n\n");
    for l in lines {
        let _ = writeln!(s, "- {}", md_escape(&l));
    }
    s.push('\n');
    s
}

/// The flags and diagnoses, each list under a bold title; nothing for an empty list.
pub(super) fn findings_md(c: &Comparison) -> String {
    let mut out = String::new();
    for (title, list) in [("Flags", &c.flags), ("Diagnoses", &c.diagnoses)] {
        if !list.is_empty() {
            let _ = writeln!(out, "\n**{title}**\n");
            for f in list {
                let _ = writeln!(out, "- {}", md_escape(f));
            }
        }
    }
    out
}

/// One bullet of "Why each verdict": `- metric arm params: **verdict**: reason`.
pub(super) fn why_md(r: &MetricComparison, l: &ParamLayout) -> String {
    format!(
        "- {} {} {}: **{}**: {}\n",
        md_escape(&r.metric),
        md_escape(&r.arm),
        md_escape(&l.varying(&r.params)),
        r.verdict,
        md_escape(&r.reason)
    )
}

/// The header of a comparison's Markdown table, its p column headed as the table prints it.
pub(super) fn md_header(c: &Comparison) -> String {
    format!(
        "| verdict | metric | arm | params | n | baseline | candidate | change | 95% CI | {} |\n|---|---|---|---|---:|---:|---:|---:|---:|---:|\n",
        c.p_heading()
    )
}

/// One Markdown table row of a comparison (verdict icon, metric with unit, medians, change,
/// CI, p), ending in a newline.
pub(super) fn md_row(r: &MetricComparison, params: &str) -> String {
    let icon = match r.verdict {
        Verdict::Regressed => "🔴",
        Verdict::Improved => "🟢",
        Verdict::Inconclusive => "🟡",
        _ => "⚪",
    };
    format!(
        "| {icon} {} | {} | {} | {} | {}/{} | {} | {} | {} | {} | {} |\n",
        md_escape(&verdict_cell(r)),
        md_escape(&metric_label(r)),
        md_escape(&r.arm),
        md_escape(params),
        r.n_baseline,
        r.n_candidate,
        fmt_value(r.median_baseline),
        fmt_value(r.median_candidate),
        pct(r.ratio),
        ci(r),
        p(r)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of the fixture's Markdown, worked out by hand: rows sorted by verdict
    /// (regressed, inconclusive, improved), model=m1 said once, pipes and brackets escaped.
    #[test]
    fn the_markdown_of_a_hand_built_comparison() {
        let md = markdown(&crate::report::fixture::comparison());
        let expected = [
            "### perfhouse: main → pr-7",
            "",
            "1 regression; noise thresholds per series (floor ±2%): 3 at the floor; all rows at model=m1.",
            "",
            "3 judged: 1 regressed, 1 improved, 0 unchanged, 1 inconclusive; geometric mean of ratios +3.3% over 3 judged rows; p Holm-corrected over 3 test(s).",
            "",
            "**Which measure decided** (each judged by its own noise)",
            "",
            "- a → b concurrency=8: regressed by instructions",
            "",
            "| verdict | metric | arm | params | n | baseline | candidate | change | 95% CI | Holm-adjusted p |",
            "|---|---|---|---|---:|---:|---:|---:|---:|---:|",
            "| 🔴 regressed | latency (ms) | a → b | concurrency=8 | 5/5 | 10.00 | 12.00 | +20.0% | +10.0% … +30.0% | 0.024 |",
            "| 🟡 inconclusive (Holm-adjusted p = 0.060 ≥ 0.05) | throughput (req/s) | a → b | concurrency=8 | 5/5 | 200.0 | 210.0 | +5.0% | -1.0% … +11.0% | 0.060 |",
            "| 🟢 improved | latency (ms) | a → b | concurrency=16 | 5/5 | 20.00 | 17.50 | -12.5% | -15.0% … -10.0% | 0.012 |",
            "",
            "**Flags**",
            "",
            "- different machines",
            "",
            "**Diagnoses**",
            "",
            "- client-bound at concurrency=16",
            "",
            "<details><summary>Why each verdict</summary>",
            "",
            "- latency a → b concurrency=8: **regressed**: CI beyond ±2%; Holm-adjusted p = 0.024",
            "- throughput a → b concurrency=8: **inconclusive**: CI includes no change; Holm-adjusted p = 0.060",
            "- latency a → b concurrency=16: **improved**: CI beyond ±2%; Holm-adjusted p = 0.012",
            "",
            "</details>",
        ];
        assert_eq!(md.lines().collect::<Vec<_>>(), expected, "{md}");
    }

    #[test]
    fn markdown_cells_escape_pipes_and_tags() {
        assert_eq!(md_escape("a|b <x>"), "a\\|b &lt;x&gt;");
    }
}
