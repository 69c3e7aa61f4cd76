//! Reports rendered from a [`Comparison`]: an aligned text table for the terminal and GitHub
//! Markdown for pull requests (JSON comes from serde directly).

use std::fmt::Write;

pub use crate::present::sweep::{sweep_capacity, sweep_knee};
pub use crate::present::{ParamLayout, ci, fmt_value, html_escape, p, pct};
use crate::query::compare::{Comparison, MetricComparison};
use crate::stats::verdict::Verdict;

/// Parameters common to every row are said once in the header; rows name what varies.
fn layout(c: &Comparison) -> ParamLayout {
    ParamLayout::new(c.rows.iter().map(|r| &r.params))
}

fn fixed_text(l: &ParamLayout) -> Option<String> {
    let parts: Vec<String> = l
        .fixed
        .iter()
        .map(|(k, v)| format!("{k}={}", crate::present::param_value(k, v)))
        .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// The terminal table; `color` adds ANSI colours to verdicts.
pub fn table(c: &Comparison, color: bool) -> String {
    let l = layout(c);
    let params = |p: &crate::model::Params| l.varying(p);
    let header = [
        "metric",
        "arm",
        "params",
        "n",
        "baseline",
        "candidate",
        "change",
        "95% CI",
        c.p_heading(),
        "verdict",
    ];
    let mut cells: Vec<[String; 10]> = c
        .rows
        .iter()
        .map(|r| {
            [
                metric_label(r),
                r.arm.clone(),
                params(&r.params),
                format!("{}/{}", r.n_baseline, r.n_candidate),
                fmt_value(r.median_baseline),
                fmt_value(r.median_candidate),
                pct(r.ratio),
                ci(r),
                p(r),
                verdict_cell(r),
            ]
        })
        .collect();
    cells.insert(0, header.map(String::from));
    let widths: Vec<usize> = (0..10)
        .map(|i| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "baseline:  {}  ({})",
        c.baseline.label, c.baseline.run.run_id
    );
    let _ = writeln!(
        out,
        "candidate: {}  ({})",
        c.candidate.label, c.candidate.run.run_id
    );
    if let Some(small) = &c.overall.small_samples {
        let _ = writeln!(out, "note: {small}");
    }
    for line in c.opening() {
        let _ = writeln!(out, "summary: {line}");
    }
    let _ = writeln!(
        out,
        "{}; medians over measured, non-discarded trials\n",
        c.noise_line()
    );
    for (i, row) in cells.iter().enumerate() {
        let mut line = String::new();
        for (j, cell) in row.iter().enumerate() {
            let pad = widths[j] - cell.chars().count();
            let numeric = (3..9).contains(&j) && i > 0;
            let text = if j == 9 && color && i > 0 {
                let code = match cell.split(' ').next().unwrap_or_default() {
                    "regressed" => "31;1",
                    "improved" => "32;1",
                    "inconclusive" => "33",
                    _ => "2",
                };
                format!("\x1b[{code}m{cell}\x1b[0m")
            } else {
                cell.clone()
            };
            if numeric {
                let _ = write!(line, "{}{}  ", " ".repeat(pad), text);
            } else {
                let _ = write!(line, "{}{}  ", text, " ".repeat(pad));
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(out, "\noverall: {}", c.overall.line());
    if !c.decisions.is_empty() {
        let _ = writeln!(out, "\nwhich measure decided:");
        for d in &c.decisions {
            let _ = writeln!(out, "  {} {}: {}", d.arm, params(&d.params), d.text);
        }
    }
    if !c.summaries.is_empty() {
        let _ = writeln!(out, "\nacross params:");
        for s in &c.summaries {
            let _ = writeln!(
                out,
                "  {} {}: mean change {} over {} params, worst {} at {}",
                s.metric,
                s.arm,
                pct(Some(s.mean_ratio)),
                s.params_compared,
                pct(Some(s.worst_ratio)),
                params(&s.worst_params)
            );
        }
    }
    for (title, list) in [("flags", &c.flags), ("diagnoses", &c.diagnoses)] {
        if !list.is_empty() {
            let _ = writeln!(out, "\n{title}:");
            for f in list {
                let _ = writeln!(out, "  - {f}");
            }
        }
    }
    let _ = writeln!(out, "\nwhy:");
    for r in c.rows.iter().filter(|r| r.verdict != Verdict::Info) {
        let _ = writeln!(
            out,
            "  {} {} {}: {} ({})",
            r.metric,
            r.arm,
            params(&r.params),
            r.verdict,
            r.reason
        );
    }
    out
}

/// A row's verdict, with the short reason of an inconclusive row whose CI excludes no change:
/// `inconclusive (2 trials per arm, Welch t on logs p = 0.075 ≥ 0.05)`.
fn verdict_cell(r: &MetricComparison) -> String {
    match &r.verdict_note {
        Some(note) => format!("{} ({note})", r.verdict),
        None => r.verdict.to_string(),
    }
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// GitHub Markdown: worst verdicts first, reasons collapsed.
pub fn markdown(c: &Comparison) -> String {
    let l = layout(c);
    let params = |p: &crate::model::Params| l.varying(p);
    let mut rows: Vec<&MetricComparison> = c.rows.iter().collect();
    rows.sort_by_key(|r| r.verdict);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### perfhouse: {} → {}\n",
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
        fixed_text(&l)
            .map(|f| format!("; all rows at {}", md_escape(&f)))
            .unwrap_or_default(),
        // benchstat's summary: judged, improved / regressed / unchanged / inconclusive, the
        // geometric mean.
        md_escape(&c.overall.line())
    );
    out.push_str(&decided_md(c, &params));
    out.push_str(&md_header(c));
    for r in &rows {
        out.push_str(&md_row(r, &params(&r.params)));
    }
    for (title, list) in [("Flags", &c.flags), ("Diagnoses", &c.diagnoses)] {
        if !list.is_empty() {
            let _ = writeln!(out, "\n**{title}**\n");
            for f in list {
                let _ = writeln!(out, "- {}", md_escape(f));
            }
        }
    }
    let _ = writeln!(out, "\n<details><summary>Why each verdict</summary>\n");
    for r in rows.iter().filter(|r| r.verdict != Verdict::Info) {
        let _ = writeln!(
            out,
            "- {} {} {}: **{}**: {}",
            md_escape(&r.metric),
            md_escape(&r.arm),
            md_escape(&params(&r.params)),
            r.verdict,
            md_escape(&r.reason)
        );
    }
    let _ = writeln!(out, "\n</details>");
    out
}

/// Which measure of the work decided, per arm × params (`query::measures`), as Markdown
/// bullets under a bold title; empty where the comparison has no two such measures.
fn decided_md(c: &Comparison, params: &dyn Fn(&crate::model::Params) -> String) -> String {
    if c.decisions.is_empty() {
        return String::new();
    }
    let mut out = String::from("**Which measure decided** (each judged by its own noise)\n\n");
    for d in &c.decisions {
        let _ = writeln!(
            out,
            "- {} {}: {}",
            md_escape(&d.arm),
            md_escape(&params(&d.params)),
            md_escape(&d.text)
        );
    }
    out.push('\n');
    out
}

/// How [`history`] lays out its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextLayout {
    /// Aligned columns, for people.
    Table,
    /// Comma-separated with a header row, for tools.
    Csv,
}

/// History series, one line each: `table` aligned for people, `csv` for tools.
pub fn history(series: &[crate::query::history::Series], format: TextLayout) -> String {
    let header = [
        "suite", "metric", "arm", "params", "runs", "latest", "changes",
    ];
    // " 7b83b729c7" after a run number, where the run has a commit.
    let at = |c: &Option<String>| {
        c.as_deref()
            .map(|g| format!(" {}", crate::model::short_commit(g)))
            .unwrap_or_default()
    };
    let rows: Vec<Vec<String>> = series
        .iter()
        .map(|s| {
            let changes: Vec<String> = s
                .changes
                .iter()
                .map(|c| {
                    format!(
                        "{} at #{}{}: {} ({}; threshold ±{:.1}%)",
                        if c.regression {
                            "regression"
                        } else {
                            "improvement"
                        },
                        c.run_no,
                        at(&c.git_commit),
                        crate::present::signed_pct(c.magnitude),
                        c.evidence.text(),
                        c.threshold * 100.0
                    )
                })
                .chain(s.drifts.iter().map(|d| {
                    format!(
                        "{} drift from #{}{} to #{}: {:+.1}% over {} runs (one finding, not {} change points)",
                        if d.regression { "regressing" } else { "improving" },
                        d.run_no,
                        at(&d.git_commit),
                        d.last_run_no,
                        d.total * 100.0,
                        d.runs,
                        d.steps
                    )
                }))
                .chain(s.pending.iter().map(|p| {
                    let here = format!(" at #{}{}", p.run_no, at(&p.git_commit));
                    crate::present::pending_text(p, &s.unit, &here)
                }))
                .chain(s.suspected_breaks.iter().map(|&i| {
                    let (a, b) = (&s.points[i - 1], &s.points[i]);
                    format!(
                        "suspected break at #{}{}: ×{} (a new segment; no change called across it; alert {}: triage `{}` confirms, `{}` rejects)",
                        b.run_no,
                        at(&b.git_commit),
                        fmt_value(Some(b.value / a.value)),
                        crate::query::alerts::break_alert_id(
                            &s.suite, &s.metric, &s.arm, &s.params, &b.run_id
                        ),
                        crate::query::alerts::CONFIRM_BREAK,
                        crate::query::alerts::REJECT_BREAK
                    )
                }))
                .chain(s.rejected_breaks.iter().map(|&i| {
                    let (a, b) = (&s.points[i - 1], &s.points[i]);
                    format!(
                        "rejected break at #{}{}: ×{} (triaged {}: one segment, judged as a change)",
                        b.run_no,
                        at(&b.git_commit),
                        fmt_value(Some(b.value / a.value)),
                        crate::query::alerts::REJECT_BREAK
                    )
                }))
                .chain(s.unstable.iter().map(|u| {
                    format!(
                        "unstable from #{}{}: switches between {} and {} ({:.0}% low, {} switches{})",
                        u.run_no,
                        at(&u.git_commit),
                        fmt_value(Some(u.low)),
                        fmt_value(Some(u.high)),
                        u.low_share * 100.0,
                        u.switches,
                        if u.ongoing { ", to date" } else { "" }
                    )
                }))
                .collect();
            vec![
                s.suite.clone(),
                if s.unit.is_empty() {
                    s.metric.clone()
                } else {
                    format!("{} ({})", s.metric, s.unit)
                },
                s.arm.clone(),
                crate::present::params_text(&s.params),
                s.points.len().to_string(),
                fmt_value(s.points.last().map(|p| p.value)),
                changes.join("; "),
            ]
        })
        .collect();
    grid(&header, &rows, format)
}

/// A comparison's opening summary ([`Comparison::opening`]) as a Markdown list, or nothing.
fn md_opening(c: &Comparison) -> String {
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

/// The header of a comparison's Markdown table, its p column headed as the table prints it.
fn md_header(c: &Comparison) -> String {
    format!(
        "| verdict | metric | arm | params | n | baseline | candidate | change | 95% CI | {} |\n|---|---|---|---|---:|---:|---:|---:|---:|---:|\n",
        c.p_heading()
    )
}

/// One Markdown table row of a comparison (verdict icon, metric with unit, medians, change,
/// CI, p), ending in a newline.
fn md_row(r: &MetricComparison, params: &str) -> String {
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

/// `metric (unit)`, or the metric alone when it has no unit.
fn metric_label(r: &MetricComparison) -> String {
    if r.unit.is_empty() {
        r.metric.clone()
    } else {
        format!("{} ({})", r.metric, r.unit)
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

/// GitHub's limit for one comment body.
pub const COMMENT_LIMIT: usize = 65_536;

/// A pull-request comment: the verdict count, the rows that changed (worst regression first),
/// everything else collapsed, links into the published site, at most [`COMMENT_LIMIT`] chars.
pub fn pr_markdown(c: &Comparison, site_url: Option<&str>) -> String {
    let l = layout(c);
    let params = |p: &crate::model::Params| l.varying(p);
    let mut rows: Vec<&MetricComparison> = c.rows.iter().collect();
    rows.sort_by(|a, b| badness(b).total_cmp(&badness(a)));
    let link = |sel: &crate::query::compare::Selection| match site_url {
        Some(u) => format!(
            "[{}]({}/runs/{}/index.html)",
            md_escape(&sel.label),
            u.trim_end_matches('/'),
            sel.run.run_id
        ),
        None => md_escape(&sel.label),
    };
    let mut head = String::new();
    let regressed = c.regressions();
    let improved = c
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::Improved)
        .count();
    let _ = writeln!(
        head,
        "### perfhouse: {} → {}\n",
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
        fixed_text(&l)
            .map(|f| format!("; all rows at {}", md_escape(&f)))
            .unwrap_or_default()
    );
    if let Some(small) = &c.overall.small_samples {
        let _ = writeln!(head, "> {}.\n", md_escape(small));
    }
    head.push_str(&md_opening(c));
    // benchstat's summary line: judged rows, improved / regressed / unchanged / inconclusive,
    // the geometric mean and the correction.
    let _ = writeln!(head, "{}.\n", md_escape(&c.overall.line()));
    head.push_str(&decided_md(c, &params));
    let line = |r: &MetricComparison| md_row(r, &params(&r.params));
    let header = &md_header(c);
    let (changed, rest): (Vec<&MetricComparison>, Vec<&MetricComparison>) = rows
        .iter()
        .partition(|r| matches!(r.verdict, Verdict::Regressed | Verdict::Improved));
    let mut tail = String::new();
    for (title, list) in [("Flags", &c.flags), ("Diagnoses", &c.diagnoses)] {
        if !list.is_empty() {
            let _ = writeln!(tail, "\n**{title}**\n");
            for f in list {
                let _ = writeln!(tail, "- {}", md_escape(f));
            }
        }
    }
    if let Some(u) = site_url {
        let _ = writeln!(
            tail,
            "\nFull pages, charts and flamegraphs: {}/index.html",
            u.trim_end_matches('/')
        );
    }
    // Sections in order of importance; rows that do not fit are counted, never cut mid-row.
    let budget = COMMENT_LIMIT - 600 - head.len() - tail.len();
    let mut body = String::new();
    let mut left_out = 0usize;
    let mut section = |title: Option<&str>, list: &[&MetricComparison], body: &mut String| {
        if list.is_empty() {
            return;
        }
        let mut s = String::new();
        if let Some(t) = title {
            let _ = write!(s, "\n<details><summary>{t} ({})</summary>\n\n", list.len());
        }
        s.push_str(header);
        let mut n = 0;
        for r in list {
            let l = line(r);
            if body.len() + s.len() + l.len() + 40 > budget {
                break;
            }
            s.push_str(&l);
            n += 1;
        }
        left_out += list.len() - n;
        if title.is_some() {
            s.push_str("\n</details>\n");
        }
        if n > 0 {
            body.push_str(&s);
        }
    };
    if changed.is_empty() {
        body.push_str("No metric changed beyond the noise threshold.\n");
    } else {
        section(None, &changed, &mut body);
    }
    section(
        Some("Unchanged, inconclusive and informational rows"),
        &rest,
        &mut body,
    );
    let mut why = String::from("\n<details><summary>Why each verdict</summary>\n\n");
    for r in rows.iter().filter(|r| r.verdict != Verdict::Info) {
        let l = format!(
            "- {} {} {}: **{}**: {}\n",
            md_escape(&r.metric),
            md_escape(&r.arm),
            md_escape(&params(&r.params)),
            r.verdict,
            md_escape(&r.reason)
        );
        if body.len() + why.len() + l.len() + 20 > budget {
            break;
        }
        why.push_str(&l);
    }
    why.push_str("\n</details>\n");
    body.push_str(&why);
    if left_out > 0 {
        let _ = writeln!(
            body,
            "\n{left_out} more rows did not fit in a comment; see the site or `perfhouse compare`."
        );
    }
    let out = format!("{head}{body}{tail}");
    debug_assert!(out.chars().count() <= COMMENT_LIMIT);
    out
}

/// A forest plot of the changes (point = median ratio − 1, bar = its 95% CI), inline SVG.
fn forest_svg(rows: &[&MetricComparison], label: &dyn Fn(&MetricComparison) -> String) -> String {
    let rows: Vec<&&MetricComparison> = rows.iter().filter(|r| r.ratio.is_some()).collect();
    let (w, row_h, left) = (720.0, 22.0, 330.0);
    let h = 40.0 + row_h * rows.len() as f64;
    let lim = rows
        .iter()
        .flat_map(|r| [r.ratio, r.ci_low, r.ci_high])
        .flatten()
        .map(|x| (x - 1.0).abs())
        .fold(0.05f64, f64::max)
        .min(2.0);
    let x = |v: f64| left + ((v - 1.0).clamp(-lim, lim) + lim) / (2.0 * lim) * (w - left - 20.0);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\"><title>Change of each metric with its 95% CI</title>\
         <line x1=\"{0:.1}\" y1=\"20\" x2=\"{0:.1}\" y2=\"{1:.1}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\
         <text x=\"{0:.1}\" y=\"14\" font-size=\"11\" text-anchor=\"middle\">0%</text>\
         <text x=\"{2:.1}\" y=\"14\" font-size=\"11\">−{3:.0}%</text><text x=\"{4:.1}\" y=\"14\" font-size=\"11\" text-anchor=\"end\">+{3:.0}%</text>",
        x(1.0),
        h - 10.0,
        left,
        lim * 100.0,
        w - 20.0
    );
    for (i, r) in rows.iter().enumerate() {
        let y = 30.0 + row_h * i as f64 + row_h / 2.0;
        let color = match r.verdict {
            Verdict::Regressed => "#d55e00",
            Verdict::Improved => "#009e73",
            _ => "#0072b2",
        };
        let _ = write!(
            s,
            "<text x=\"4\" y=\"{:.1}\" font-size=\"12\">{}</text>",
            y + 4.0,
            html_escape(&label(r))
        );
        if let (Some(lo), Some(hi)) = (r.ci_low, r.ci_high) {
            let _ = write!(
                s,
                "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{color}\" stroke-width=\"2\"/>",
                x(lo),
                x(hi)
            );
        }
        let _ = write!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"{color}\"/>",
            x(r.ratio.unwrap_or(1.0))
        );
    }
    s.push_str("</svg>");
    s
}

/// One self-contained HTML file (inline CSS and SVG, no external requests).
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

pub fn pr_html(c: &Comparison, site_url: Option<&str>, css: &str) -> String {
    let l = layout(c);
    let mut rows: Vec<&MetricComparison> = c.rows.iter().collect();
    rows.sort_by(|a, b| badness(b).total_cmp(&badness(a)));
    let label = |r: &MetricComparison| {
        let p = l.varying(&r.params);
        format!(
            "{} {}{}",
            r.metric,
            r.arm,
            if p.is_empty() {
                String::new()
            } else {
                format!(" {p}")
            }
        )
    };
    let link = |sel: &crate::query::compare::Selection| match site_url {
        Some(u) => format!(
            "<a href=\"{}/runs/{}/index.html\">{}</a>",
            html_escape(u.trim_end_matches('/')),
            html_escape(&sel.run.run_id),
            html_escape(&sel.label)
        ),
        None => html_escape(&sel.label),
    };
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>perfhouse: {} → {}</title><style>{css}</style></head><body><main>\
         <h1>{} → {}</h1><p>{} regression(s); {}.</p>",
        html_escape(&c.baseline.label),
        html_escape(&c.candidate.label),
        link(&c.baseline),
        link(&c.candidate),
        c.regressions(),
        c.noise_line()
    );
    if let Some(small) = &c.overall.small_samples {
        let _ = write!(s, "<p class=\"note\">{}.</p>", html_escape(small));
    }
    let opening = c.opening();
    if !opening.is_empty() {
        s.push_str("<ul class=\"summary\">");
        for l in &opening {
            let _ = write!(s, "<li>{}</li>", html_escape(l));
        }
        s.push_str("</ul>");
    }
    let _ = write!(
        s,
        "<figure class=\"chart\">{}</figure>",
        forest_svg(&rows, &label)
    );
    let _ = write!(
        s,
        "<table class=\"compare\"><thead><tr><th>verdict</th><th>metric</th><th>arm</th><th>params</th><th>n</th><th>baseline</th><th>candidate</th><th>change</th><th>95% CI</th><th>{}</th><th>why</th></tr></thead><tbody>",
        c.p_heading()
    );
    for r in &rows {
        let _ = write!(
            s,
            "<tr><td class=\"verdict-{0}\">{0}</td><td>{1}</td><td>{2}</td><td>{3}</td><td class=\"num\">{4}/{5}</td><td class=\"num\">{6}</td><td class=\"num\">{7}</td><td class=\"num\">{8}</td><td class=\"num\">{9}</td><td class=\"num\">{10}</td><td class=\"why\">{11}</td></tr>",
            r.verdict,
            html_escape(&metric_label(r)),
            html_escape(&r.arm),
            html_escape(&l.varying(&r.params)),
            r.n_baseline,
            r.n_candidate,
            fmt_value(r.median_baseline),
            fmt_value(r.median_candidate),
            pct(r.ratio),
            html_escape(&ci(r)),
            p(r),
            html_escape(&r.reason)
        );
    }
    s.push_str("</tbody></table>");
    for (title, list) in [("Flags", &c.flags), ("Diagnoses", &c.diagnoses)] {
        if !list.is_empty() {
            let _ = write!(s, "<h2>{title}</h2><ul>");
            for f in list {
                let _ = write!(s, "<li>{}</li>", html_escape(f));
            }
            s.push_str("</ul>");
        }
    }
    s.push_str("</main></body></html>\n");
    s
}

/// A load sweep: per arm its levels, knee and capacity at SLO; then the shift. `csv`: the
/// levels only, one row per arm × level.
pub fn sweep(s: &crate::query::sweep::Sweep, layout: TextLayout) -> String {
    // The sweep's own columns, its cost and the server figures the run names.
    let all = crate::present::sweep::columns(s);
    let columns: Vec<&str> = all.iter().map(String::as_str).collect();
    let rows = |a: &crate::query::sweep::ArmSweep| crate::present::sweep::rows(s, a);
    if layout == TextLayout::Csv {
        let header: Vec<&str> = std::iter::once("arm")
            .chain(columns.iter().copied())
            .collect();
        let rows: Vec<Vec<String>> = s
            .arms
            .iter()
            .flat_map(|a| {
                rows(a)
                    .into_iter()
                    .map(|r| std::iter::once(a.arm.clone()).chain(r).collect())
            })
            .collect();
        return grid(&header, &rows, layout);
    }
    let mut w = format!(
        "{} #{} ({}): load = {}; SLOs: {}\n",
        s.suite,
        s.run_no,
        s.run_id,
        s.load,
        if s.slo.is_empty() {
            "none (set --slo or the suite's slo label)"
        } else {
            &s.slo
        }
    );
    for a in &s.arms {
        let _ = write!(w, "\n{}\n{}", a.arm, grid(&columns, &rows(a), layout));
        let _ = writeln!(w, "  knee: {}", sweep_knee(s, a));
        let _ = writeln!(w, "  capacity at SLO: {}", sweep_capacity(s, a));
    }
    if let Some(sh) = &s.shift {
        let _ = writeln!(w, "\n{}", sh.text);
    }
    w
}

/// The frontier across a suite's runs (`perfhouse sweep --suite`): a heading, then one row per
/// point, frontier first; the runs left out (another load parameter) last. `csv`: the rows only.
pub fn suite_frontier(f: &crate::query::sweep::SuiteFrontier, layout: TextLayout) -> String {
    let columns = crate::present::sweep::SUITE_FRONTIER_COLUMNS;
    let mut rows = crate::present::sweep::suite_frontier_rows(f);
    if layout == TextLayout::Csv {
        return grid(columns, &rows, layout);
    }
    // A commit's first 12 characters are enough to tell it.
    let commit = columns.iter().position(|c| *c == "commit").unwrap_or(0);
    for r in &mut rows {
        if let Some(c) = r.get_mut(commit) {
            *c = c.chars().take(12).collect();
        }
    }
    let on = f.frontier.iter().filter(|p| !p.point.dominated).count();
    let mut w = format!(
        "{}: Pareto frontier across {} run(s) that sweep {}: per-user against total output tok/s (per GPU where gpus is set); {} point(s) on the frontier of {}\n\n",
        f.suite,
        f.runs.len(),
        f.load,
        on,
        f.frontier.len()
    );
    w.push_str(&grid(columns, &rows, layout));
    if !f.left_out.is_empty() {
        let _ = writeln!(w, "\n{}", suite_frontier_left_out(f));
    }
    w
}

/// Which sweep runs the frontier across a suite leaves out, and why.
pub fn suite_frontier_left_out(f: &crate::query::sweep::SuiteFrontier) -> String {
    let runs: Vec<String> = f
        .left_out
        .iter()
        .map(|l| format!("#{} ({}, sweeps {})", l.run.run_no, l.run.run_id, l.load))
        .collect();
    format!(
        "left out (they sweep another load parameter than {}; not mixed): {}",
        f.load,
        runs.join(", ")
    )
}

/// Rows under a header: CSV with a header row (quoted where needed), or space-aligned
/// columns. Every text listing of the CLI (`history`, `noise`, `alerts`, `sweep`) goes through it.
pub fn grid(header: &[&str], rows: &[Vec<String>], layout: TextLayout) -> String {
    let mut w = String::new();
    if layout == TextLayout::Csv {
        let quote = |c: &str| {
            if c.contains([',', '"', '\n']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.to_string()
            }
        };
        let _ = writeln!(w, "{}", header.join(","));
        for r in rows {
            let _ = writeln!(
                w,
                "{}",
                r.iter().map(|c| quote(c)).collect::<Vec<_>>().join(",")
            );
        }
        return w;
    }
    let all: Vec<Vec<String>> = std::iter::once(header.iter().map(|h| h.to_string()).collect())
        .chain(rows.iter().cloned())
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            all.iter()
                .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    for r in &all {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, n)| format!("{c:<n$}"))
            .collect();
        let _ = writeln!(w, "{}", line.join("  ").trim_end());
    }
    w
}

/// `perfhouse noise` as text: the model per series, percentages.
pub fn noise(entries: &[crate::query::noise::Entry], layout: TextLayout) -> String {
    let pct = |v: Option<f64>| v.map_or(String::new(), |v| format!("{:.2}", v * 100.0));
    let num = |v: Option<usize>| v.map_or(String::new(), |v| v.to_string());
    let header = [
        "suite",
        "metric",
        "arm",
        "params",
        "sigma_pct",
        "since",
        "deltas",
        "two_runs_pct",
        "change_pct",
        "change_rule",
        "unstable_since",
        "calibration_run",
        "calibration_trials",
        "aa_3v3_pct",
    ];
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            vec![
                e.suite.clone(),
                e.metric.clone(),
                e.arm.clone(),
                crate::present::params_text(&e.params),
                pct(e.sigma),
                e.since_run.map_or(String::new(), |r| format!("#{r}")),
                num(e.deltas),
                pct(e.two_runs),
                pct(Some(e.change_threshold)),
                format!(
                    "{} ({})",
                    e.change_rule.describe(),
                    e.change_rule_from.name()
                ),
                e.unstable_since.map_or(String::new(), |r| format!("#{r}")),
                e.calibration_run.map_or(String::new(), |r| format!("#{r}")),
                num(e.calibration_trials),
                pct(e.aa_3v3),
            ]
        })
        .collect();
    let mut w = grid(&header, &rows, layout);
    if layout == TextLayout::Table {
        let _ = writeln!(
            w,
            "{} series; σ = relative run-to-run noise of the newest level (since its last change point or break, from run `since`); unstable_since = the series switches between two levels from that run (no change is called inside); two_runs = z·√2·σ (1 % target, ±2 % floor); change = the smallest change point history calls here, by change_rule (default, or the suite's or metric's `change_threshold` label); aa_3v3 = A/A threshold at 3 vs 3 from the newest calibration",
            entries.len()
        );
    }
    w
}

/// `perfhouse calibrate`'s table: each measure's A/A noise side by side (wall time, CPU time,
/// instructions, peak RSS, …), with the smallest change a comparison of the calibration's
/// size can call by it.
pub fn calibration_noise(list: &[crate::query::noise::MeasureNoise], layout: TextLayout) -> String {
    let pct = |v: f64| format!("{:.3}", v * 100.0);
    let header = [
        "params",
        "measure",
        "unit",
        "trials",
        "median",
        "cv_pct",
        "aa_pct",
        "floor_pct",
        "callable_pct",
    ];
    let rows: Vec<Vec<String>> = list
        .iter()
        .map(|m| {
            vec![
                crate::model::params_text(&m.params),
                m.metric.clone(),
                m.unit.clone(),
                m.trials.to_string(),
                fmt_value(Some(m.median)),
                pct(m.cv),
                m.aa.map_or(String::new(), pct),
                pct(m.floor),
                pct(m.callable),
            ]
        })
        .collect();
    let mut w = grid(&header, &rows, layout);
    if layout == TextLayout::Table {
        let per_side = list.first().map_or(0, |m| m.per_side);
        let _ = writeln!(
            w,
            "cv = standard deviation ÷ mean of the arm's and its A/A copy's trials pooled; aa = A/A threshold at {per_side} vs {per_side} trials (99th percentile of |median ratio − 1| over 2,000 random splits); floor = the measure's own (±0.2 % for instruction counts, ±2 % otherwise); callable = the smallest change a comparison of {per_side} vs {per_side} trials calls by this measure"
        );
    }
    w
}

/// [`calibration_noise`] in one paragraph, for the calibration run's notes (its page shows
/// notes as text): "A/A noise per measure at 10 vs 10 trials (CV; A/A threshold; smallest
/// callable change): wall_ms 27.8 %, ±37.4 %, ±37.4 %; …".
pub fn calibration_noise_note(list: &[crate::query::noise::MeasureNoise]) -> String {
    let pct = |v: f64| crate::present::fixed(v * 100.0, 3);
    let per_side = list.first().map_or(0, |m| m.per_side);
    let parts: Vec<String> = list
        .iter()
        .map(|m| {
            let params = crate::model::params_text(&m.params);
            format!(
                "{}{} {} %, {}, ±{} %",
                if m.params.is_empty() {
                    String::new()
                } else {
                    format!("{params} ")
                },
                m.metric,
                pct(m.cv),
                m.aa.map_or("—".to_string(), |a| format!("±{} %", pct(a))),
                pct(m.callable)
            )
        })
        .collect();
    format!(
        "A/A noise per measure at {per_side} vs {per_side} trials (CV; A/A threshold; smallest \
         change a comparison of that size can call): {}",
        parts.join("; ")
    )
}

/// `perfhouse alerts --by commit` as text: one line per commit, newest first.
pub fn alerts_by_commit(
    list: &[crate::query::alerts::CommitAlert],
    all: bool,
    layout: TextLayout,
) -> String {
    let header = [
        "commit",
        "run",
        "runs_ago",
        "date",
        "series",
        "regressed",
        "improved",
        "geomean",
        "range",
        "worst",
        "why",
        "state",
        "environment",
        "evidence",
        "pending",
        "whole_run",
    ];
    let pct = crate::present::signed_pct;
    let rows: Vec<Vec<String>> = list
        .iter()
        .map(|c| {
            let worst: Vec<String> = c
                .alerts
                .iter()
                .take(3)
                .map(|a| {
                    let params = crate::present::params_text(&a.params);
                    format!(
                        "{}{}{} {} [{}]",
                        a.metric,
                        if a.arm == "default" {
                            String::new()
                        } else {
                            format!(" · {}", a.arm)
                        },
                        if params.is_empty() {
                            String::new()
                        } else {
                            format!(" · {params}")
                        },
                        pct(a.magnitude),
                        a.alert_id
                    )
                })
                .collect();
            let state = if c.stale {
                "stale"
            } else if c.open {
                "open"
            } else {
                "closed"
            };
            vec![
                c.git_commit.clone().unwrap_or_else(|| c.run_id.clone()),
                c.run_no.map_or(String::new(), |n| format!("#{n}")),
                c.runs_ago.map_or(String::new(), |n| n.to_string()),
                c.started_at
                    .as_deref()
                    .map_or(String::new(), |d| d.chars().take(10).collect()),
                if c.minor.is_empty() {
                    c.series.to_string()
                } else {
                    format!("{} (+{} minor)", c.series, c.minor.len())
                },
                c.regressions.to_string(),
                c.improvements.to_string(),
                pct(c.geomean),
                format!("{} … {}", pct(c.min), pct(c.max)),
                worst.join("; "),
                c.why.clone(),
                state.to_string(),
                c.environment.clone(),
                c.evidence.clone(),
                c.pending.to_string(),
                c.whole_run.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let mut w = grid(&header, &rows, layout);
    if layout == TextLayout::Table {
        let _ = writeln!(
            w,
            "{} commit(s){}, newest first (stale: no recent run of any of its series; environment: a suspected, confirmed or rejected environment change); triage each alert with `perfhouse triage ALERT STATE --note TEXT`, a whole entry with `perfhouse triage commit:SHA STATE` (accepted confirms an environment change)",
            list.len(),
            if all { "" } else { " with open alerts" }
        );
    }
    w
}

/// `perfhouse alerts` as text; `all`: closed ones are listed too. The table folds the pending
/// alerts of a whole-run move into that one finding (the CSV lists every alert, with the
/// whole-run move's id in its last column).
pub fn alerts(list: &[crate::query::alerts::Alert], all: bool, layout: TextLayout) -> String {
    use crate::query::alerts::AlertKind;
    let header = [
        "alert",
        "state",
        "suite",
        "metric",
        "arm",
        "params",
        "change",
        "kind",
        "run",
        "commit",
        "evidence",
        "note",
        "whole_run",
    ];
    let folded = |a: &&crate::query::alerts::Alert| {
        layout == TextLayout::Table && a.kind == AlertKind::Pending && a.whole_run.is_some()
    };
    let rows: Vec<Vec<String>> = list
        .iter()
        .filter(|a| !folded(a))
        .map(|a| {
            vec![
                a.alert_id.clone(),
                a.state.to_string(),
                a.suite.clone(),
                a.metric.clone(),
                a.arm.clone(),
                crate::present::params_text(&a.params),
                crate::present::signed_pct(a.magnitude),
                a.kind.label(a.regression).into(),
                a.run_no.map_or(String::new(), |n| format!("#{n}")),
                a.git_commit.clone().unwrap_or_default(),
                a.evidence.clone(),
                a.note.clone(),
                a.whole_run.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let mut w = grid(&header, &rows, layout);
    if layout == TextLayout::Table {
        let _ = writeln!(
            w,
            "{} alert(s){}{}; set a state with `perfhouse triage ALERT STATE --note TEXT` (a whole run's: accepted confirms an environment change)",
            list.len(),
            if all { "" } else { " open" },
            match list.iter().filter(folded).count() {
                0 => String::new(),
                n => format!(", {n} pending ones folded into their whole-run moves"),
            }
        );
    }
    w
}

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
