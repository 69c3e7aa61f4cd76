//! The pull-request comment (`perfhouse report --format pr`): Markdown that fits in one
//! GitHub comment, the rows that changed first, links into the published site.

use std::fmt::Write;

use super::markdown::{
    all_rows_at, decided_md, findings_md, md_escape, md_header, md_opening, md_row, why_md,
};
use super::{layout, worst_first};
use crate::present::ParamLayout;
use crate::query::compare::{Comparison, MetricComparison, Selection};
use crate::stats::verdict::Verdict;

/// GitHub's limit for one comment body.
pub const COMMENT_LIMIT: usize = 65_536;

/// A pull-request comment: the verdict count, the rows that changed (worst regression first),
/// everything else collapsed, links into the published site, at most [`COMMENT_LIMIT`] chars.
pub fn pr_markdown(c: &Comparison, site_url: Option<&str>) -> String {
    let l = layout(c);
    let rows = worst_first(c);
    let head = head(c, &l, site_url);
    let tail = tail(c, site_url);
    let mut body = Body {
        budget: COMMENT_LIMIT - 600 - head.len() - tail.len(),
        header: md_header(c),
        layout: &l,
        text: String::new(),
        left_out: 0,
    };
    let (changed, rest): (Vec<&MetricComparison>, Vec<&MetricComparison>) = rows
        .iter()
        .partition(|r| matches!(r.verdict, Verdict::Regressed | Verdict::Improved));
    if changed.is_empty() {
        body.text
            .push_str("No metric changed beyond the noise threshold.\n");
    } else {
        body.section(None, &changed);
    }
    body.section(
        Some("Unchanged, inconclusive and informational rows"),
        &rest,
    );
    body.why(&rows);
    if body.left_out > 0 {
        let _ = writeln!(
            body.text,
            "\n{} more rows did not fit in a comment; see the site or `perfhouse compare`.",
            body.left_out
        );
    }
    let out = format!("{head}{}{tail}", body.text);
    debug_assert!(out.chars().count() <= COMMENT_LIMIT);
    out
}

/// The comment's opening: the two selections (linked to their run pages where the site is
/// published), the counts, the small-sample note, the summary, benchstat's line and which
/// measure decided.
fn head(c: &Comparison, l: &ParamLayout, site_url: Option<&str>) -> String {
    let link = |sel: &Selection| match site_url {
        Some(u) => format!(
            "[{}]({}/runs/{}/index.html)",
            md_escape(&sel.label),
            u.trim_end_matches('/'),
            sel.run.run_id
        ),
        None => md_escape(&sel.label),
    };
    let regressed = c.regressions();
    let improved = c
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::Improved)
        .count();
    let mut head = format!(
        "### perfhouse: {} → {}\n\n",
        link(&c.baseline),
        link(&c.candidate)
    );
    let _ = writeln!(
        head,
        "{} {regressed} regression{}, {improved} improvement{}, {} rows in all; {}{}.\n",
        if regressed > 0 { "🔴" } else { "🟢" },
        if regressed == 1 { "" } else { "s" },
        if improved == 1 { "" } else { "s" },
        c.rows.len(),
        c.noise_line(),
        all_rows_at(l)
    );
    if let Some(small) = &c.overall.small_samples {
        let _ = writeln!(head, "> {}.\n", md_escape(small));
    }
    head.push_str(&md_opening(c));
    // benchstat's summary line: judged rows, improved / regressed / unchanged / inconclusive,
    // the geometric mean and the correction.
    let _ = writeln!(head, "{}.\n", md_escape(&c.overall.line()));
    head.push_str(&decided_md(c, l));
    head
}

/// The comment's close: flags, diagnoses and the link to the whole site.
fn tail(c: &Comparison, site_url: Option<&str>) -> String {
    let mut tail = findings_md(c);
    if let Some(u) = site_url {
        let _ = writeln!(
            tail,
            "\nFull pages, charts and flamegraphs: {}/index.html",
            u.trim_end_matches('/')
        );
    }
    tail
}

/// The comment's middle, filled section by section in order of importance within `budget`
/// bytes: rows that do not fit are counted in `left_out`, never cut mid-row.
struct Body<'a> {
    budget: usize,
    header: String,
    layout: &'a ParamLayout,
    text: String,
    left_out: usize,
}

impl Body<'_> {
    /// A table of `list` (under a collapsed `title`, where given) with as many rows as fit;
    /// nothing where none does.
    fn section(&mut self, title: Option<&str>, list: &[&MetricComparison]) {
        if list.is_empty() {
            return;
        }
        let mut s = String::new();
        if let Some(t) = title {
            let _ = write!(s, "\n<details><summary>{t} ({})</summary>\n\n", list.len());
        }
        s.push_str(&self.header);
        let mut n = 0;
        for r in list {
            let line = md_row(r, &self.layout.varying(&r.params));
            if self.text.len() + s.len() + line.len() + 40 > self.budget {
                break;
            }
            s.push_str(&line);
            n += 1;
        }
        self.left_out += list.len() - n;
        if title.is_some() {
            s.push_str("\n</details>\n");
        }
        if n > 0 {
            self.text.push_str(&s);
        }
    }

    /// "Why each verdict", collapsed: each judged row's reason, as many as fit.
    fn why(&mut self, rows: &[&MetricComparison]) {
        let mut why = String::from("\n<details><summary>Why each verdict</summary>\n\n");
        for r in rows.iter().filter(|r| r.verdict != Verdict::Info) {
            let line = why_md(r, self.layout);
            if self.text.len() + why.len() + line.len() + 20 > self.budget {
                break;
            }
            why.push_str(&line);
        }
        why.push_str("\n</details>\n");
        self.text.push_str(&why);
    }
}

/// The PR report's line on the candidate's commit in history (`alerts --by commit`): how many
/// series moved there, and its entry on the site's alerts page (`alerts.html#commit-<sha>`).
pub fn commit_entry_line(e: &crate::query::alerts::CommitAlert, site_url: &str) -> String {
    let sha = e.git_commit.as_deref().unwrap_or_default();
    format!(
        "\nIn the suite's history, commit `{}` moved {} series ({} regressed, {} improved; geometric mean {}): {}/alerts.html#commit-{}\n",
        md_escape(crate::model::short_commit(sha)),
        e.series,
        e.regressions,
        e.improvements,
        crate::present::signed_pct(e.geomean),
        site_url.trim_end_matches('/'),
        crate::present::url_segment(sha)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixture as a PR comment, by hand: one regression and one improvement open it, the
    /// changed rows worst first (the regression, then the improvement), the inconclusive one
    /// collapsed, links to the run pages under the site's URL.
    #[test]
    fn the_pr_comment_of_a_hand_built_comparison() {
        let c = crate::report::fixture::comparison();
        let md = pr_markdown(&c, Some("https://o.github.io/r/"));
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(
            lines[..5],
            [
                "### perfhouse: [main](https://o.github.io/r/runs/r1/index.html) → [pr-7](https://o.github.io/r/runs/r2/index.html)",
                "",
                "🔴 1 regression, 1 improvement, 3 rows in all; noise thresholds per series (floor ±2%): 3 at the floor; all rows at model=m1.",
                "",
                "3 judged: 1 regressed, 1 improved, 0 unchanged, 1 inconclusive; geometric mean of ratios +3.3% over 3 judged rows; p Holm-corrected over 3 test(s).",
            ],
            "{md}"
        );
        let at = |needle: &str| md.find(needle).unwrap_or_else(|| panic!("{needle}: {md}"));
        let regressed = at(
            "| 🔴 regressed | latency (ms) | a → b | concurrency=8 | 5/5 | 10.00 | 12.00 | +20.0% | +10.0% … +30.0% | 0.024 |\n",
        );
        let improved = at(
            "| 🟢 improved | latency (ms) | a → b | concurrency=16 | 5/5 | 20.00 | 17.50 | -12.5% | -15.0% … -10.0% | 0.012 |\n",
        );
        let rest =
            at("<details><summary>Unchanged, inconclusive and informational rows (1)</summary>");
        let inconclusive =
            at("| 🟡 inconclusive (Holm-adjusted p = 0.060 ≥ 0.05) | throughput (req/s) |");
        assert!(regressed < improved && improved < rest && rest < inconclusive);
        assert!(
            md.contains("| 95% CI | Holm-adjusted p |"),
            "the Holm note heads p"
        );
        assert!(
            md.ends_with(
                "\nFull pages, charts and flamegraphs: https://o.github.io/r/index.html\n"
            )
        );
        assert!(!md.contains("did not fit"), "{md}");
    }

    /// Without changed rows the comment says so instead of an empty table.
    #[test]
    fn a_comment_without_changes_says_so() {
        let mut c = crate::report::fixture::comparison();
        c.rows.retain(|r| r.verdict == Verdict::Inconclusive);
        let md = pr_markdown(&c, None);
        assert!(
            md.starts_with(
                "### perfhouse: main → pr-7\n\n🟢 0 regressions, 0 improvements, 1 rows in all;"
            ),
            "{md}"
        );
        assert!(
            md.contains("\nNo metric changed beyond the noise threshold.\n"),
            "{md}"
        );
    }
}
