//! Reports rendered from a [`Comparison`]: an aligned text table for the terminal and GitHub
//! Markdown for pull requests (JSON comes from serde directly).

use std::fmt::Write;

use crate::query::compare::{Comparison, Row};
use crate::site::ParamLayout;

/// A figure with a precision that suits its size.
pub fn fmt_value(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(v) if !v.is_finite() => "—".into(),
        Some(v) if v.abs() >= 1000.0 => format!("{v:.0}"),
        Some(v) if v.abs() >= 100.0 => format!("{v:.1}"),
        Some(v) if v.abs() >= 1.0 => format!("{v:.2}"),
        Some(v) => format!("{v:.4}"),
    }
}

pub fn pct(r: Option<f64>) -> String {
    r.map_or("—".into(), |r| format!("{:+.1}%", (r - 1.0) * 100.0))
}

pub fn ci(row: &Row) -> String {
    match (row.ci_low, row.ci_high) {
        (Some(lo), Some(hi)) => format!("{} … {}", pct(Some(lo)), pct(Some(hi))),
        _ => "—".into(),
    }
}

/// Parameters common to every row are said once in the header; rows name what varies.
fn layout(c: &Comparison) -> ParamLayout {
    ParamLayout::new(c.rows.iter().map(|r| r.params.as_str()))
}

fn fixed_text(l: &ParamLayout) -> Option<String> {
    let parts: Vec<String> = l.fixed.iter().map(|(k, v)| format!("{k}={v}")).collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

pub fn p(row: &Row) -> String {
    row.p_value.map_or("—".into(), |p| format!("{p:.3}"))
}

fn severity(verdict: &str) -> u8 {
    match verdict {
        "regressed" => 0,
        "inconclusive" => 1,
        "improved" => 2,
        "unchanged" => 3,
        _ => 4,
    }
}

/// The terminal table; `color` adds ANSI colours to verdicts.
pub fn table(c: &Comparison, color: bool) -> String {
    let l = layout(c);
    let params = |json: &str| l.varying(json);
    let header = [
        "metric",
        "arm",
        "params",
        "n",
        "baseline",
        "candidate",
        "change",
        "95% CI",
        "p",
        "verdict",
    ];
    let mut cells: Vec<[String; 10]> = c
        .rows
        .iter()
        .map(|r| {
            [
                if r.unit.is_empty() {
                    r.metric.clone()
                } else {
                    format!("{} ({})", r.metric, r.unit)
                },
                r.arm.clone(),
                params(&r.params),
                format!("{}/{}", r.n_baseline, r.n_candidate),
                fmt_value(r.median_baseline),
                fmt_value(r.median_candidate),
                pct(r.ratio),
                ci(r),
                p(r),
                r.verdict.to_string(),
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
    let _ = writeln!(
        out,
        "noise threshold ±{:.0}%; medians over measured, non-discarded trials\n",
        c.threshold * 100.0
    );
    for (i, row) in cells.iter().enumerate() {
        let mut line = String::new();
        for (j, cell) in row.iter().enumerate() {
            let pad = widths[j] - cell.chars().count();
            let numeric = (3..9).contains(&j) && i > 0;
            let text = if j == 9 && color && i > 0 {
                let code = match cell.as_str() {
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
    for r in c.rows.iter().filter(|r| r.verdict != "info") {
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

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// GitHub Markdown: worst verdicts first, reasons collapsed.
pub fn markdown(c: &Comparison) -> String {
    let l = layout(c);
    let params = |json: &str| l.varying(json);
    let mut rows: Vec<&Row> = c.rows.iter().collect();
    rows.sort_by_key(|r| severity(r.verdict));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### perfhouse: {} → {}\n",
        md_escape(&c.baseline.label),
        md_escape(&c.candidate.label)
    );
    let regressed = c.regressions();
    let _ = writeln!(
        out,
        "{} regression{}; noise threshold ±{:.0}%{}.\n",
        regressed,
        if regressed == 1 { "" } else { "s" },
        c.threshold * 100.0,
        fixed_text(&l)
            .map(|f| format!("; all rows at {}", md_escape(&f)))
            .unwrap_or_default()
    );
    let _ = writeln!(
        out,
        "| verdict | metric | arm | params | n | baseline | candidate | change | 95% CI | p |"
    );
    let _ = writeln!(out, "|---|---|---|---|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        let icon = match r.verdict {
            "regressed" => "🔴",
            "improved" => "🟢",
            "inconclusive" => "🟡",
            _ => "⚪",
        };
        let _ = writeln!(
            out,
            "| {icon} {} | {} | {} | {} | {}/{} | {} | {} | {} | {} | {} |",
            r.verdict,
            md_escape(&if r.unit.is_empty() {
                r.metric.clone()
            } else {
                format!("{} ({})", r.metric, r.unit)
            }),
            md_escape(&r.arm),
            md_escape(&params(&r.params)),
            r.n_baseline,
            r.n_candidate,
            fmt_value(r.median_baseline),
            fmt_value(r.median_candidate),
            pct(r.ratio),
            ci(r),
            p(r)
        );
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
    for r in rows.iter().filter(|r| r.verdict != "info") {
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

/// History series, one line each: `table` aligned for people, `csv` for tools.
pub fn history(
    series: &[crate::query::history::Series],
    format: crate::cli::OutputFormat,
) -> String {
    let header = [
        "suite", "metric", "arm", "params", "runs", "latest", "changes",
    ];
    let mut rows: Vec<[String; 7]> = series
        .iter()
        .map(|s| {
            let changes: Vec<String> = s
                .changes
                .iter()
                .map(|c| {
                    format!(
                        "{} at #{}{}: {:+.1}% (p={:.3})",
                        if c.regression {
                            "regression"
                        } else {
                            "improvement"
                        },
                        c.run_no,
                        c.git_commit
                            .as_ref()
                            .map(|g| format!(" {}", &g[..g.len().min(10)]))
                            .unwrap_or_default(),
                        c.magnitude * 100.0,
                        c.p_value
                    )
                })
                .collect();
            [
                s.suite.clone(),
                if s.unit.is_empty() {
                    s.metric.clone()
                } else {
                    format!("{} ({})", s.metric, s.unit)
                },
                s.arm.clone(),
                crate::model::params_text(&s.params),
                s.points.len().to_string(),
                fmt_value(s.points.last().map(|p| p.value)),
                changes.join("; "),
            ]
        })
        .collect();
    let mut out = String::new();
    if matches!(format, crate::cli::OutputFormat::Csv) {
        let quote = |c: &str| {
            if c.contains([',', '"', '\n']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.to_string()
            }
        };
        let _ = writeln!(out, "{}", header.join(","));
        for r in &rows {
            let _ = writeln!(
                out,
                "{}",
                r.iter().map(|c| quote(c)).collect::<Vec<_>>().join(",")
            );
        }
        return out;
    }
    rows.insert(0, header.map(String::from));
    let widths: Vec<usize> = (0..7)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    out
}
