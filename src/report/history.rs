//! `perfhouse history` as text: one line per series, its findings in one cell.

use super::table::{TextLayout, grid};
use crate::present::fmt_value;
use crate::query::alerts::{CONFIRM_BREAK, REJECT_BREAK, break_alert_id};
use crate::query::history::Series;

/// History series, one line each: `table` aligned for people, `csv` for tools.
pub fn history(series: &[Series], format: TextLayout) -> String {
    let header = [
        "suite", "metric", "arm", "params", "runs", "latest", "changes",
    ];
    let rows: Vec<Vec<String>> = series
        .iter()
        .map(|s| {
            vec![
                s.suite.clone(),
                super::with_unit(&s.metric, &s.unit),
                s.arm.clone(),
                crate::present::params_text(&s.params),
                s.points.len().to_string(),
                fmt_value(s.points.last().map(|p| p.value)),
                findings(s).join("; "),
            ]
        })
        .collect();
    grid(&header, &rows, format)
}

/// " 7b83b729c7" after a run number, where the run has a commit.
fn at(commit: &Option<String>) -> String {
    commit
        .as_deref()
        .map(|g| format!(" {}", crate::model::short_commit(g)))
        .unwrap_or_default()
}

/// What history found in a series, in this order: its changes, drifts, pending move,
/// suspected and rejected breaks and unstable stretches, one phrase each.
fn findings(s: &Series) -> Vec<String> {
    let mut out: Vec<String> = s
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
        .collect();
    out.extend(s.drifts.iter().map(|d| {
        format!(
            "{} drift from #{}{} to #{}: {:+.1}% over {} runs (one finding, not {} change points)",
            if d.regression {
                "regressing"
            } else {
                "improving"
            },
            d.run_no,
            at(&d.git_commit),
            d.last_run_no,
            d.total * 100.0,
            d.runs,
            d.steps
        )
    }));
    out.extend(s.pending.iter().map(|p| {
        let here = format!(" at #{}{}", p.run_no, at(&p.git_commit));
        crate::present::pending_text(p, &s.unit, &here)
    }));
    out.extend(breaks(s));
    out.extend(s.unstable.iter().map(|u| {
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
    }));
    out
}

/// The suspected breaks of a series (each with the alert that triages it), then the ones
/// triage rejected.
fn breaks(s: &Series) -> Vec<String> {
    let jump = |i: usize| fmt_value(Some(s.points[i].value / s.points[i - 1].value));
    let suspected = s.suspected_breaks.iter().map(|&i| {
        let b = &s.points[i];
        format!(
            "suspected break at #{}{}: ×{} (a new segment; no change called across it; alert {}: triage `{CONFIRM_BREAK}` confirms, `{REJECT_BREAK}` rejects)",
            b.run_no,
            at(&b.git_commit),
            jump(i),
            break_alert_id(&s.suite, &s.metric, &s.arm, &s.params, &b.run_id),
        )
    });
    let rejected = s.rejected_breaks.iter().map(|&i| {
        let b = &s.points[i];
        format!(
            "rejected break at #{}{}: ×{} (triaged {REJECT_BREAK}: one segment, judged as a change)",
            b.run_no,
            at(&b.git_commit),
            jump(i),
        )
    });
    suspected.chain(rejected).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::history::{Change, DriftSpan, Point};
    use crate::stats::changepoint::Evidence;

    fn point(run_no: u64, value: f64, commit: Option<&str>) -> Point {
        Point {
            run_id: format!("r{run_no}"),
            run_no,
            started_at: String::new(),
            git_commit: commit.map(String::from),
            value,
            version: None,
            env_fingerprint: None,
            lo: None,
            hi: None,
        }
    }

    /// Four runs of latency at concurrency=8: 10, 10, 12 (a +20 % regression at #3, commit
    /// 1234567890abcdef), then ×100 at #4, a break triage rejected; a drift from #1 to #3.
    fn series() -> Series {
        let commit = "1234567890abcdef";
        Series {
            suite: "svc".into(),
            metric: "latency".into(),
            unit: "ms".into(),
            better: crate::stats::verdict::Direction::LowerIsBetter,
            arm: "default".into(),
            params: [("concurrency".to_string(), "8".to_string())].into(),
            points: vec![
                point(1, 10.0, None),
                point(2, 10.0, None),
                point(3, 12.0, Some(commit)),
                point(4, 1200.0, None),
            ],
            changes: vec![Change {
                run_id: "r3".into(),
                run_no: 3,
                git_commit: Some(commit.into()),
                mean_before: 10.0,
                mean_after: 12.0,
                level_before: 10.0,
                level_after: 12.0,
                magnitude: 0.2,
                p_value: 0.01,
                sigma: Some(0.05),
                threshold: 0.1375,
                regression: true,
                evidence: Evidence {
                    sigmas: Some(4.0),
                    before: 2,
                    after: 1,
                    p: Some(0.01),
                },
            }],
            breaks: Vec::new(),
            suspected_breaks: Vec::new(),
            rejected_breaks: vec![3],
            noise: None,
            unstable: Vec::new(),
            minor: Vec::new(),
            levels: Vec::new(),
            rule: crate::stats::noise::ChangeRule::DEFAULT,
            rule_source: Default::default(),
            pending: None,
            drifts: vec![DriftSpan {
                start: 0,
                end: 2,
                run_id: "r1".into(),
                run_no: 1,
                git_commit: None,
                last_run_no: 3,
                from: 10.0,
                to: 12.0,
                total: 0.2,
                runs: 3,
                steps: 2,
                regression: true,
            }],
        }
    }

    /// The cells by hand: the commit cut to 10 characters, 0.1375 as ±13.8 %, the jump
    /// 1200 / 12 = 100 written as `fmt_value` writes 100.
    #[test]
    fn a_series_line_names_each_finding() {
        let csv = history(&[series()], TextLayout::Csv);
        let expected = "suite,metric,arm,params,runs,latest,changes\n\
            svc,latency (ms),default,concurrency=8,4,1200,\"regression at #3 1234567890: +20.0% (4.0σ · 2 runs before, 1 after · p = 0.010; threshold ±13.8%); \
            regressing drift from #1 to #3: +20.0% over 3 runs (one finding, not 2 change points); \
            rejected break at #4: ×100.0 (triaged invalid: one segment, judged as a change)\"\n";
        assert_eq!(csv, expected);
        let table = history(&[series()], TextLayout::Table);
        assert!(table.starts_with("suite  metric        arm      params         runs  latest  changes\nsvc    latency (ms)  default  concurrency=8  4     1200    regression at #3"), "{table}");
    }
}
