//! The terminal table of a comparison, and [`grid`]: the aligned (or CSV) layout every text
//! listing of the CLI goes through.

use std::fmt::Write;

use super::{layout, metric_label, verdict_cell};
use crate::present::{ci, fmt_value, p, pct};
use crate::query::compare::Comparison;
use crate::stats::verdict::Verdict;

/// How [`grid`] (and every listing built on it) lays out its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextLayout {
    /// Aligned columns, for people.
    Table,
    /// Comma-separated with a header row, for tools.
    Csv,
}

/// The terminal table; `color` adds ANSI colours to verdicts.
pub fn table(c: &Comparison, color: bool) -> String {
    let mut out = head(c);
    out.push_str(&aligned(&cells(c), color));
    out.push_str(&tail(c));
    out
}

/// The comparison table's columns.
const COLUMNS: usize = 10;

/// The header row then one row of cells per comparison row, in the comparison's order.
fn cells(c: &Comparison) -> Vec<[String; COLUMNS]> {
    let l = layout(c);
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
    let rows = c.rows.iter().map(|r| {
        [
            metric_label(r),
            r.arm.clone(),
            l.varying(&r.params),
            format!("{}/{}", r.n_baseline, r.n_candidate),
            fmt_value(r.median_baseline),
            fmt_value(r.median_candidate),
            pct(r.ratio),
            ci(r),
            p(r),
            verdict_cell(r),
        ]
    });
    std::iter::once(header.map(String::from))
        .chain(rows)
        .collect()
}

/// The lines above the table: the two selections, the small-sample note, the opening summary
/// and which noise thresholds judged the rows.
fn head(c: &Comparison) -> String {
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
    out
}

/// The cells as space-aligned columns, numbers (n … p) right-aligned; `color`: the verdict
/// column in ANSI colours.
fn aligned(cells: &[[String; COLUMNS]], color: bool) -> String {
    let widths: Vec<usize> = (0..COLUMNS)
        .map(|i| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (i, row) in cells.iter().enumerate() {
        let mut line = String::new();
        for (j, cell) in row.iter().enumerate() {
            let pad = " ".repeat(widths[j] - cell.chars().count());
            let text = if j == COLUMNS - 1 && color && i > 0 {
                colored(cell)
            } else {
                cell.clone()
            };
            if (3..COLUMNS - 1).contains(&j) && i > 0 {
                let _ = write!(line, "{pad}{text}  ");
            } else {
                let _ = write!(line, "{text}{pad}  ");
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// A verdict cell in its ANSI colour: regressed bold red, improved bold green, inconclusive
/// yellow, the rest dim.
fn colored(cell: &str) -> String {
    let code = match cell.split(' ').next().unwrap_or_default() {
        "regressed" => "31;1",
        "improved" => "32;1",
        "inconclusive" => "33",
        _ => "2",
    };
    format!("\x1b[{code}m{cell}\x1b[0m")
}

/// The lines below the table: the overall line, which measure decided, the summaries across
/// params, flags and diagnoses, and why each judged row got its verdict.
fn tail(c: &Comparison) -> String {
    let l = layout(c);
    let mut out = format!("\noverall: {}\n", c.overall.line());
    if !c.decisions.is_empty() {
        let _ = writeln!(out, "\nwhich measure decided:");
        for d in &c.decisions {
            let _ = writeln!(out, "  {} {}: {}", d.arm, l.varying(&d.params), d.text);
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
                l.varying(&s.worst_params)
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
        let (params, verdict) = (l.varying(&r.params), r.verdict);
        let _ = writeln!(
            out,
            "  {} {} {params}: {verdict} ({})",
            r.metric, r.arm, r.reason
        );
    }
    out
}

/// Rows under a header: CSV with a header row (quoted where needed), or space-aligned
/// columns. Every text listing of the CLI (`history`, `noise`, `alerts`, `sweep`) goes through it.
pub fn grid(header: &[&str], rows: &[Vec<String>], layout: TextLayout) -> String {
    if layout == TextLayout::Csv {
        return csv(header, rows);
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
    let mut w = String::new();
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

/// [`grid`]'s CSV: a header row, then the rows, a cell quoted where it holds a comma, a quote
/// or a newline (RFC 4180).
fn csv(header: &[&str], rows: &[Vec<String>]) -> String {
    let quote = |c: &str| {
        if c.contains([',', '"', '\n']) {
            format!("\"{}\"", c.replace('"', "\"\""))
        } else {
            c.to_string()
        }
    };
    let mut w = format!("{}\n", header.join(","));
    for r in rows {
        let _ = writeln!(
            w,
            "{}",
            r.iter().map(|c| quote(c)).collect::<Vec<_>>().join(",")
        );
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixture's table, worked out by hand: params vary by concurrency only (model=m1 is
    /// shared, so not a cell); ratios 1.2, 1.05 and 17.5/20 = 0.875; numbers right-aligned.
    #[test]
    fn the_terminal_table_of_a_hand_built_comparison() {
        let text = table(&crate::report::fixture::comparison(), false);
        let expected = "\
baseline:  main  (r1)
candidate: pr-7  (r2)
noise thresholds per series (floor ±2%): 3 at the floor; medians over measured, non-discarded trials

metric              arm    params          n    baseline  candidate  change  95% CI           Holm-adjusted p  verdict
latency (ms)        a → b  concurrency=8   5/5     10.00      12.00  +20.0%  +10.0% … +30.0%            0.024  regressed
throughput (req/s)  a → b  concurrency=8   5/5     200.0      210.0   +5.0%   -1.0% … +11.0%            0.060  inconclusive (Holm-adjusted p = 0.060 ≥ 0.05)
latency (ms)        a → b  concurrency=16  5/5     20.00      17.50  -12.5%  -15.0% … -10.0%            0.012  improved

overall: 3 judged: 1 regressed, 1 improved, 0 unchanged, 1 inconclusive; geometric mean of ratios +3.3% over 3 judged rows; p Holm-corrected over 3 test(s)

which measure decided:
  a → b concurrency=8: regressed by instructions

flags:
  - different machines

diagnoses:
  - client-bound at concurrency=16

why:
  latency a → b concurrency=8: regressed (CI beyond ±2%; Holm-adjusted p = 0.024)
  throughput a → b concurrency=8: inconclusive (CI includes no change; Holm-adjusted p = 0.060)
  latency a → b concurrency=16: improved (CI beyond ±2%; Holm-adjusted p = 0.012)
";
        assert_eq!(text, expected, "{text}");
    }

    /// Colour wraps the verdict cell only, after padding is worked out on the plain text.
    #[test]
    fn colour_marks_verdicts_only() {
        let text = table(&crate::report::fixture::comparison(), true);
        assert!(text.contains("\x1b[31;1mregressed\x1b[0m"), "{text}");
        assert!(text.contains("\x1b[32;1mimproved\x1b[0m"), "{text}");
        assert!(text.contains("\x1b[33minconclusive ("), "{text}");
        assert!(!text.contains("\x1b[33mverdict"), "{text}");
    }

    #[test]
    fn grid_aligns_columns_and_quotes_csv_cells() {
        let rows = vec![
            vec!["a".to_string(), "1,5".to_string()],
            vec!["long name".to_string(), "say \"hi\"".to_string()],
        ];
        assert_eq!(
            grid(&["name", "value"], &rows, TextLayout::Table),
            "name       value\na          1,5\nlong name  say \"hi\"\n"
        );
        assert_eq!(
            grid(&["name", "value"], &rows, TextLayout::Csv),
            "name,value\na,\"1,5\"\nlong name,\"say \"\"hi\"\"\"\n"
        );
    }
}
