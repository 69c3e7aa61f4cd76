//! Which measure decided (issue 42 item 4): a command's work is seen through several
//! measures at once — wall time, CPU time, instruction counts (`figures::MEASURES`) — each
//! judged by its own noise (its A/A calibration or history threshold, at least its own
//! floor). Per arm × params of a comparison, the measure that decides is the **most precise
//! one that called a change** (the smallest noise threshold among those that said regressed
//! or improved): a 1 % change in instructions is called where wall time, ±6 % noisy here,
//! cannot see it, and the report says so rather than leaving a reader to weigh the rows.
//! Where no measure called a change, none decided, and the most precise one's verdict
//! stands. Measures that call opposite changes are said to disagree.

use serde::Serialize;

use super::MetricComparison;
use crate::query::figures::measure;
use crate::stats::verdict::Verdict;
use crate::stats::verdict::change_text;

/// One measure's verdict in a [`Decision`].
#[derive(Debug, Clone, Serialize)]
pub struct MeasureVerdict {
    pub metric: String,
    pub verdict: Verdict,
    /// Candidate ÷ baseline median.
    pub ratio: Option<f64>,
    /// The noise threshold it was judged with, and where that came from.
    pub threshold: f64,
    pub threshold_from: &'static str,
}

/// The measures of one arm × params and the one that decided.
#[derive(Debug, Clone, Serialize)]
pub struct Decision {
    pub arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub params: crate::model::Params,
    /// The most precise measure that called a change; `None` where none did.
    pub decided_by: Option<String>,
    /// The deciding measure's verdict, or where none decided the most precise one's.
    pub verdict: Verdict,
    /// Some measures called a regression and others an improvement.
    pub disagree: bool,
    /// Every measure of the work present, most precise (smallest threshold) first.
    pub measures: Vec<MeasureVerdict>,
    /// The decision in one sentence (reports and the site).
    pub text: String,
}

/// The decisions of a comparison's rows: one per arm × params with at least two judged
/// measures of the work (with one, its row says it all).
pub fn decisions(rows: &[MetricComparison]) -> Vec<Decision> {
    let mut groups: Vec<(&str, &crate::model::Params, Vec<&MetricComparison>)> = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.verdict != Verdict::Info && measure(&r.metric).is_some())
    {
        match groups
            .iter_mut()
            .find(|(a, p, _)| *a == r.arm && **p == r.params)
        {
            Some(g) => g.2.push(r),
            None => groups.push((&r.arm, &r.params, vec![r])),
        }
    }
    groups
        .into_iter()
        .filter(|g| g.2.len() >= 2)
        .map(|(arm, params, rs)| decision(arm, params, rs))
        .collect()
}

/// The decision of one arm × params from its measures `rs` (two or more): the most precise
/// measure that called a change decides.
fn decision(arm: &str, params: &crate::model::Params, mut rs: Vec<&MetricComparison>) -> Decision {
    // Equal thresholds (two counts at their floor): the registry's order, which puts the
    // exact count (instructions) before the estimate made of it.
    let rank = |r: &MetricComparison| {
        crate::query::figures::MEASURES
            .iter()
            .position(|m| m.name == r.metric)
    };
    rs.sort_by(|a, b| {
        a.threshold
            .total_cmp(&b.threshold)
            .then_with(|| rank(a).cmp(&rank(b)))
    });
    let called: Vec<&&MetricComparison> = rs
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Regressed | Verdict::Improved))
        .collect();
    let disagree = called.iter().any(|r| r.verdict == Verdict::Regressed)
        && called.iter().any(|r| r.verdict == Verdict::Improved);
    let decider = called.first().map(|r| **r);
    let verdict = decider.unwrap_or(rs[0]).verdict;
    Decision {
        arm: arm.to_string(),
        params: params.clone(),
        decided_by: decider.map(|d| d.metric.clone()),
        verdict,
        disagree,
        measures: rs
            .iter()
            .map(|r| MeasureVerdict {
                metric: r.metric.clone(),
                verdict: r.verdict,
                ratio: r.ratio,
                threshold: r.threshold,
                threshold_from: r.threshold_from,
            })
            .collect(),
        text: decision_text(&rs, decider, disagree),
    }
}

/// The decision in one sentence: the deciding measure (if any) and what the others said.
fn decision_text(
    rs: &[&MetricComparison],
    decider: Option<&MetricComparison>,
    disagree: bool,
) -> String {
    let one = |r: &MetricComparison| {
        format!(
            "{} {} ({}, noise ±{} from {})",
            r.metric,
            r.verdict,
            change_text(r.ratio),
            crate::stats::verdict::band_pct(r.threshold),
            r.threshold_from
        )
    };
    let others: Vec<String> = rs
        .iter()
        .filter(|r| decider.is_none_or(|d| d.metric != r.metric))
        .map(|r| one(r))
        .collect();
    match decider {
        Some(d) => format!(
            "{} by {} ({}, beyond its ±{} noise from {}){}; {}",
            d.verdict,
            d.metric,
            change_text(d.ratio),
            crate::stats::verdict::band_pct(d.threshold),
            d.threshold_from,
            if disagree {
                "; the measures disagree"
            } else {
                ""
            },
            others.join(", ")
        ),
        None => format!(
            "no measure of the work called a change: {}",
            others.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::verdict::Direction;

    fn row(metric: &str, verdict: Verdict, ratio: f64, threshold: f64) -> MetricComparison {
        MetricComparison {
            metric: metric.into(),
            unit: String::new(),
            better: Direction::LowerIsBetter,
            arm: "a → b".into(),
            params: Default::default(),
            n_baseline: 5,
            n_candidate: 5,
            median_baseline: Some(1.0),
            median_candidate: Some(ratio),
            ratio: Some(ratio),
            ci_low: None,
            ci_high: None,
            p_value: None,
            test: crate::stats::verdict::Test::MannWhitney,
            threshold,
            threshold_source: String::new(),
            threshold_from: "calibration",
            p_adjusted: None,
            cliffs_delta: None,
            baseline_values: Vec::new(),
            candidate_values: Vec::new(),
            verdict,
            reason: String::new(),
            verdict_note: None,
        }
    }

    #[test]
    fn the_most_precise_measure_that_called_a_change_decides() {
        let rows = [
            row("wall_ms", Verdict::Inconclusive, 1.012, 0.062),
            row("instructions", Verdict::Regressed, 1.010, 0.002),
            row("cpu_ms", Verdict::Inconclusive, 1.02, 0.041),
            row("estimated_cycles", Verdict::Regressed, 1.010, 0.002),
            // Not a measure of the work: left out.
            row("peak_rss_bytes", Verdict::Unchanged, 1.0, 0.02),
        ];
        let d = decisions(&rows);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].decided_by.as_deref(), Some("instructions"));
        assert_eq!(d[0].verdict, Verdict::Regressed);
        let order: Vec<&str> = d[0].measures.iter().map(|m| m.metric.as_str()).collect();
        assert_eq!(
            order,
            ["instructions", "estimated_cycles", "cpu_ms", "wall_ms"]
        );
        assert_eq!(
            d[0].text,
            "regressed by instructions (+1.0%, beyond its ±0.2% noise from calibration); \
             estimated_cycles regressed (+1.0%, noise ±0.2% from calibration), \
             cpu_ms inconclusive (+2.0%, noise ±4.1% from calibration), \
             wall_ms inconclusive (+1.2%, noise ±6.2% from calibration)"
        );
    }

    #[test]
    fn history_calls_a_one_percent_step_of_an_instruction_count_not_of_a_time() {
        // 20 runs at 1e9 instructions, 20 at +1 %, each moved by a few instructions.
        let values: Vec<f64> = (0..40)
            .map(|i| if i < 20 { 1e9 } else { 1.01e9 } + f64::from(i % 3) * 7.0)
            .collect();
        let at = |metric: &str| {
            let opts = crate::stats::changepoint::Options {
                rule: crate::query::thresholds::default_rule(metric),
                ..Default::default()
            };
            crate::stats::changepoint::detect(&values, &opts).changes
        };
        let c = at("instructions");
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].index, 20);
        // A time's change floor is 2 %: the same step is no change of wall time.
        assert!(at("wall_ms").is_empty());
    }

    #[test]
    fn none_decides_without_a_call_and_opposite_calls_disagree() {
        let quiet = [
            row("wall_ms", Verdict::Inconclusive, 1.01, 0.06),
            row("instructions", Verdict::Unchanged, 1.0, 0.002),
        ];
        let d = decisions(&quiet);
        assert_eq!(
            (d[0].decided_by.clone(), d[0].verdict),
            (None, Verdict::Unchanged)
        );
        assert!(
            d[0].text
                .starts_with("no measure of the work called a change: instructions unchanged")
        );
        let split = [
            row("wall_ms", Verdict::Improved, 0.9, 0.03),
            row("instructions", Verdict::Regressed, 1.01, 0.002),
        ];
        let d = decisions(&split);
        assert!(d[0].disagree);
        assert_eq!(d[0].decided_by.as_deref(), Some("instructions"));
        // One measure alone: its row says it all.
        assert!(decisions(&quiet[..1]).is_empty());
    }
}
