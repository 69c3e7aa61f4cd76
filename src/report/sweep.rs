//! `perfhouse sweep` as text: a load sweep's levels, knee and capacity per arm, and the
//! frontier across a suite's sweeps.

use std::fmt::Write;

use super::table::{TextLayout, grid};
use crate::present::sweep::{sweep_capacity, sweep_knee};
use crate::query::sweep::{ArmSweep, SuiteFrontier, Sweep};
/// A load sweep: per arm its levels, knee and capacity at SLO; then the shift. `csv`: the
/// levels only, one row per arm × level.
pub fn sweep(s: &Sweep, layout: TextLayout) -> String {
    // The sweep's own columns, its cost and the server figures the run names.
    let all = crate::present::sweep::columns(s);
    let columns: Vec<&str> = all.iter().map(String::as_str).collect();
    let rows = |a: &ArmSweep| crate::present::sweep::rows(s, a);
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
pub fn suite_frontier(f: &SuiteFrontier, layout: TextLayout) -> String {
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
pub fn suite_frontier_left_out(f: &SuiteFrontier) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::sweep::{FrontierPoint, LeftOut, RunRef, Shift, SuitePoint, SuiteRun};

    fn run(run_no: u64, commit: Option<&str>) -> RunRef {
        RunRef {
            run_no,
            run_id: format!("r{run_no}"),
            commit: commit.map(String::from),
        }
    }

    /// Two runs sweeping concurrency, one point each, the second dominated; a third run
    /// sweeps rate and is left out. The commit is cut to 12 characters in the table only.
    #[test]
    fn the_frontier_across_a_suite_by_hand() {
        let point = |arm: &str, load, per_user, output, dominated| FrontierPoint {
            arm: arm.into(),
            load,
            per_user_tps: per_user,
            output_tps: output,
            dominated,
        };
        let f = SuiteFrontier {
            suite: "llm".into(),
            load: "concurrency".into(),
            runs: vec![
                SuiteRun {
                    run: run(1, Some("0123456789abcdef")),
                    gpus: Some(2.0),
                    points: 1,
                },
                SuiteRun {
                    run: run(2, None),
                    gpus: None,
                    points: 1,
                },
            ],
            frontier: vec![
                SuitePoint {
                    run: run(1, Some("0123456789abcdef")),
                    point: point("a", 8.0, 40.0, 300.0, false),
                },
                SuitePoint {
                    run: run(2, None),
                    point: point("b", 16.0, 20.0, 250.0, true),
                },
            ],
            left_out: vec![LeftOut {
                run: run(3, None),
                load: "rate".into(),
            }],
        };
        let table = suite_frontier(&f, TextLayout::Table);
        let expected = "\
llm: Pareto frontier across 2 run(s) that sweep concurrency: per-user against total output tok/s (per GPU where gpus is set); 1 point(s) on the frontier of 2

run  run_id  commit        gpus  arm  load  per_user_tps  output_tps  frontier
#1   r1      0123456789ab  2     a    8     40            300         yes
#2   r2                          b    16    20            250         dominated

left out (they sweep another load parameter than concurrency; not mixed): #3 (r3, sweeps rate)
";
        assert_eq!(table, expected, "{table}");
        let csv = suite_frontier(&f, TextLayout::Csv);
        assert_eq!(
            csv.lines().nth(1),
            Some("#1,r1,0123456789abcdef,2,a,8,40,300,yes")
        );
    }

    /// A sweep without arms still says its load, its SLOs (or how to set them) and its shift.
    #[test]
    fn a_sweep_heading_names_its_load_and_slos() {
        let s = Sweep {
            run_id: "r4".into(),
            suite: "llm".into(),
            run_no: 4,
            load: "concurrency".into(),
            slo: String::new(),
            arms: Vec::new(),
            shift: Some(Shift {
                baseline: "a".into(),
                candidate: "b".into(),
                ratio: 1.1,
                ci: None,
                text: "b sustains +10% more".into(),
            }),
            frontier: Vec::new(),
            gpus: None,
            cost_per_hour: None,
            server_figures: Vec::new(),
        };
        assert_eq!(
            sweep(&s, TextLayout::Table),
            "llm #4 (r4): load = concurrency; SLOs: none (set --slo or the suite's slo label)\n\nb sustains +10% more\n"
        );
    }
}
