//! `perfhouse noise` and `perfhouse calibrate` as text: the noise model per series, and the
//! A/A noise of each measure of a calibration run.

use std::fmt::Write;

use super::table::{TextLayout, grid};
use crate::present::fmt_value;
use crate::query::noise::{Entry, MeasureNoise};
use crate::stats::noise::{ChangeRule, FLOOR, TARGET, Z};
use crate::stats::verdict::band_pct;

/// `perfhouse noise` as text: the model per series, percentages.
pub fn noise(entries: &[Entry], layout: TextLayout) -> String {
    let pct = |v: Option<f64>| v.map_or(String::new(), |v| format!("{:.2}", v * 100.0));
    let num = |v: Option<usize>| v.map_or(String::new(), |v| v.to_string());
    let run = |v: Option<u64>| v.map_or(String::new(), |r| format!("#{r}"));
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
                run(e.since_run),
                num(e.deltas),
                pct(e.two_runs),
                pct(Some(e.change_threshold)),
                format!(
                    "{} ({})",
                    e.change_rule.describe(),
                    e.change_rule_from.name()
                ),
                run(e.unstable_since),
                run(e.calibration_run),
                num(e.calibration_trials),
                pct(e.aa_3v3),
            ]
        })
        .collect();
    let mut w = grid(&header, &rows, layout);
    if layout == TextLayout::Table {
        let _ = writeln!(w, "{} series; {}", entries.len(), noise_legend());
    }
    w
}

/// What the noise table's columns mean, the rules stated from the constants that apply them
/// (`stats::noise`, `query::thresholds`).
fn noise_legend() -> String {
    format!(
        "σ = relative run-to-run noise of the newest level (since its last change point or break, from run `since`); \
         unstable_since = the series switches between two levels from that run (no change is called inside); \
         two_runs = z·√2·σ, at least ±{floor} (z = {z:.2}: a {target} false-positive target); \
         change = the smallest change point history calls here: change_rule's σs of the local run-to-run noise, at least its floor \
         (default {rule}; the suite's or metric's `{label}` label sets its own); \
         aa_3v3 = A/A threshold at 3 vs 3 from the newest calibration",
        floor = band_pct(FLOOR),
        z = Z,
        target = band_pct(TARGET),
        rule = ChangeRule::DEFAULT.describe(),
        label = crate::query::thresholds::LABEL,
    )
}

/// `perfhouse calibrate`'s table: each measure's A/A noise side by side (wall time, CPU time,
/// instructions, peak RSS, …), with the smallest change a comparison of the calibration's
/// size can call by it.
pub fn calibration_noise(list: &[MeasureNoise], layout: TextLayout) -> String {
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
pub fn calibration_noise_note(list: &[MeasureNoise]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::thresholds::RuleSource;

    /// σ 1 % over 12 deltas since #4: two runs z·√2·σ = 2.576 · 1.414 · 1 % = 3.64 %; change
    /// 2.75 · 1 % = 2.75 %, over the 2 % floor.
    fn entry() -> Entry {
        Entry {
            suite: "svc".into(),
            metric: "latency".into(),
            arm: "default".into(),
            params: Default::default(),
            sigma: Some(0.01),
            since_run: Some(4),
            unstable_since: None,
            deltas: Some(12),
            two_runs: Some(crate::stats::noise::two_run_threshold(0.01)),
            calibration_run: None,
            calibration_trials: None,
            aa_3v3: None,
            change_threshold: ChangeRule::DEFAULT.threshold(Some(0.01)),
            change_rule: ChangeRule::DEFAULT,
            change_rule_from: RuleSource::Default,
        }
    }

    #[test]
    fn the_noise_row_and_its_footer_state_the_rules_in_force() {
        let csv = noise(&[entry()], TextLayout::Csv);
        assert_eq!(
            csv.lines().nth(1),
            Some("svc,latency,default,—,1.00,#4,12,3.64,2.75,\"2.75σ, at least 2% (default)\",,,,")
        );
        let table = noise(&[entry()], TextLayout::Table);
        let footer = table.lines().last().unwrap();
        assert!(
            footer.starts_with("1 series; σ = relative run-to-run noise"),
            "{footer}"
        );
        assert!(
            footer
                .contains("two_runs = z·√2·σ, at least ±2% (z = 2.58: a 1% false-positive target)"),
            "{footer}"
        );
        assert!(
            footer.contains("change = the smallest change point history calls here: change_rule's σs of the local run-to-run noise, at least its floor (default 2.75σ, at least 2%; the suite's or metric's `change_threshold` label sets its own)"),
            "{footer}"
        );
    }

    /// Wall time at 10 vs 10 trials: CV 5 %, A/A ±4 %, floor ±2 %, callable ±4 %.
    #[test]
    fn calibration_noise_in_a_table_and_a_note() {
        let m = MeasureNoise {
            metric: "wall_ms".into(),
            unit: "ms".into(),
            params: Default::default(),
            trials: 20,
            median: 12.5,
            cv: 0.05,
            per_side: 10,
            aa: Some(0.04),
            floor: 0.02,
            callable: 0.04,
        };
        let csv = calibration_noise(std::slice::from_ref(&m), TextLayout::Csv);
        assert_eq!(
            csv.lines().nth(1),
            Some("—,wall_ms,ms,20,12.50,5.000,4.000,2.000,4.000")
        );
        assert_eq!(
            calibration_noise_note(&[m]),
            "A/A noise per measure at 10 vs 10 trials (CV; A/A threshold; smallest change a comparison of that size can call): wall_ms 5 %, ±4 %, ±4 %"
        );
    }
}
