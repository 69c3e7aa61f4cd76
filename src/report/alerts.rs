//! `perfhouse alerts` as text: one line per alert, or per commit (`--by commit`).

use std::fmt::Write;

use super::table::{TextLayout, grid};
use crate::present::signed_pct as pct;
use crate::query::alerts::{Alert, AlertKind, CommitAlert};

/// `perfhouse alerts --by commit` as text: one line per commit, newest first.
pub fn alerts_by_commit(list: &[CommitAlert], all: bool, layout: TextLayout) -> String {
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
    let rows: Vec<Vec<String>> = list.iter().map(commit_row).collect();
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

/// One commit's cells, in the order of [`alerts_by_commit`]'s header.
fn commit_row(c: &CommitAlert) -> Vec<String> {
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
        worst(c),
        c.why.clone(),
        state.to_string(),
        c.environment.as_str().to_string(),
        c.evidence.clone(),
        c.pending.to_string(),
        c.whole_run.clone().unwrap_or_default(),
    ]
}

/// A commit's three worst alerts: `metric · arm · params +12.0% [id]`, the default arm and
/// empty params left out.
fn worst(c: &CommitAlert) -> String {
    let worst: Vec<String> = c
        .alerts
        .iter()
        .take(3)
        .map(|a| {
            let mut s = a.metric.clone();
            if a.arm != "default" {
                let _ = write!(s, " · {}", a.arm);
            }
            let params = crate::present::params_text(&a.params);
            if !params.is_empty() {
                let _ = write!(s, " · {params}");
            }
            format!("{s} {} [{}]", pct(a.magnitude), a.alert_id)
        })
        .collect();
    worst.join("; ")
}

/// `perfhouse alerts` as text; `all`: closed ones are listed too. The table folds the pending
/// alerts of a whole-run move into that one finding (the CSV lists every alert, with the
/// whole-run move's id in its last column).
pub fn alerts(list: &[Alert], all: bool, layout: TextLayout) -> String {
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
    let folded = |a: &&Alert| {
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
                pct(a.magnitude),
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
    use super::*;

    /// A +12 % regression of latency (arm `fast`, concurrency=8) at run #7, commit abc.
    fn alert(kind: AlertKind, whole_run: Option<&str>) -> Alert {
        Alert {
            alert_id: "a1".into(),
            kind,
            suite: "svc".into(),
            metric: "latency".into(),
            unit: "ms".into(),
            arm: "fast".into(),
            params: [("concurrency".to_string(), "8".to_string())].into(),
            run_id: "r7".into(),
            run_no: Some(7),
            started_at: Some("2026-01-02T03:04:05Z".into()),
            git_commit: Some("abc".into()),
            magnitude: 0.12,
            regression: true,
            evidence: "4.0σ".into(),
            state: crate::model::TriageState::New,
            note: String::new(),
            updated_at: String::new(),
            detected: true,
            runs_ago: Some(2),
            stale: false,
            whole_run: whole_run.map(String::from),
        }
    }

    #[test]
    fn an_alert_line_and_the_folded_pending_ones() {
        let list = [
            alert(AlertKind::Change, None),
            alert(AlertKind::Pending, Some("w1")),
        ];
        let csv = alerts(&list, false, TextLayout::Csv);
        assert_eq!(
            csv.lines().nth(1),
            Some("a1,new,svc,latency,fast,concurrency=8,+12.0%,regression,#7,abc,4.0σ,,")
        );
        assert_eq!(csv.lines().count(), 3, "the CSV lists every alert");
        let table = alerts(&list, false, TextLayout::Table);
        assert_eq!(table.lines().count(), 3, "{table}");
        assert!(table.ends_with("2 alert(s) open, 1 pending ones folded into their whole-run moves; set a state with `perfhouse triage ALERT STATE --note TEXT` (a whole run's: accepted confirms an environment change)\n"), "{table}");
    }

    /// A commit where 3 series moved (2 regressed, 1 improved), geometric mean +5 %, range
    /// −4 % … +12 %: its worst alert named without the default arm.
    #[test]
    fn a_commit_line_counts_its_series_and_names_the_worst() {
        let mut a = alert(AlertKind::Change, None);
        a.arm = "default".into();
        let entry = CommitAlert {
            git_commit: Some("abc".into()),
            run_id: "r7".into(),
            run_no: Some(7),
            started_at: Some("2026-01-02T03:04:05Z".into()),
            suites: vec!["svc".into()],
            runs_ago: Some(2),
            series: 3,
            regressions: 2,
            improvements: 1,
            geomean: 0.05,
            min: -0.04,
            max: 0.12,
            minor: Vec::new(),
            relevant: true,
            why: "2 regressions".into(),
            open: true,
            stale: false,
            alerts: vec![a],
            suspected_environment: false,
            environment: crate::query::alerts::EnvironmentChange::None,
            pending: 0,
            whole_run: None,
            whole_run_id: None,
            evidence: "4.0σ".into(),
        };
        let csv = alerts_by_commit(&[entry], false, TextLayout::Csv);
        assert_eq!(
            csv.lines().nth(1),
            Some(
                "abc,#7,2,2026-01-02,3,2,1,+5.0%,-4.0% … +12.0%,latency · concurrency=8 +12.0% [a1],2 regressions,open,,4.0σ,0,"
            )
        );
    }
}
