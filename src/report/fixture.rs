//! One comparison built by hand, no warehouse: the value every report test renders, so each
//! expected cell can be worked out from the literals below.
//!
//! Two arms `a → b`, all rows at model=m1; the rows vary by concurrency:
//!
//! | metric             | concurrency | baseline | candidate | ratio | CI          | p → Holm      | verdict      |
//! |--------------------|-------------|----------|-----------|-------|-------------|---------------|--------------|
//! | latency (ms)       | 8           | 10       | 12        | 1.2   | 1.1 … 1.3   | 0.008 → 0.024 | regressed    |
//! | throughput (req/s) | 8           | 200      | 210       | 1.05  | 0.99 … 1.11 | 0.030 → 0.060 | inconclusive |
//! | latency (ms)       | 16          | 20       | 17.5      | 0.875 | 0.85 … 0.9  | 0.004 → 0.012 | improved     |

use crate::model::Params;
use crate::query::compare::measures::Decision;
use crate::query::compare::{Comparison, MetricComparison, Overall, RunInfo, Selection};
use crate::stats::verdict::{Direction, Test, Verdict};

fn params(concurrency: &str) -> Params {
    [("concurrency", concurrency), ("model", "m1")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The literals a row varies by; the rest is the same for every row.
struct Cells {
    metric: &'static str,
    unit: &'static str,
    better: Direction,
    concurrency: &'static str,
    medians: (f64, f64),
    ci: (f64, f64),
    p: (f64, f64),
    delta: f64,
    verdict: Verdict,
    reason: &'static str,
}

fn row(c: Cells) -> MetricComparison {
    let (b, k) = c.medians;
    MetricComparison {
        metric: c.metric.into(),
        unit: c.unit.into(),
        better: c.better,
        arm: "a → b".into(),
        params: params(c.concurrency),
        n_baseline: 5,
        n_candidate: 5,
        median_baseline: Some(b),
        median_candidate: Some(k),
        ratio: Some(k / b),
        ci_low: Some(c.ci.0),
        ci_high: Some(c.ci.1),
        p_value: Some(c.p.0),
        test: Test::MannWhitney,
        threshold: 0.02,
        threshold_source: "floor".into(),
        threshold_from: "floor",
        p_adjusted: Some(c.p.1),
        cliffs_delta: Some(c.delta),
        baseline_values: vec![b * 0.98, b * 0.99, b, b * 1.01, b * 1.02],
        candidate_values: vec![k * 0.98, k * 0.99, k, k * 1.01, k * 1.02],
        verdict: c.verdict,
        reason: c.reason.into(),
        verdict_note: None,
    }
}

fn selection(label: &str, run_id: &str, run_no: u64) -> Selection {
    Selection {
        run: RunInfo {
            run_id: run_id.into(),
            suite: "svc".into(),
            run_no,
            started_at: String::new(),
            git_commit: None,
            env_fingerprint: None,
        },
        arm: None,
        label: label.into(),
    }
}

/// The three rows of the module's table.
pub(crate) fn rows() -> Vec<MetricComparison> {
    let mut inconclusive = row(Cells {
        metric: "throughput",
        unit: "req/s",
        better: Direction::HigherIsBetter,
        concurrency: "8",
        medians: (200.0, 210.0),
        ci: (0.99, 1.11),
        p: (0.03, 0.06),
        delta: 0.6,
        verdict: Verdict::Inconclusive,
        reason: "CI includes no change; Holm-adjusted p = 0.060",
    });
    inconclusive.verdict_note = Some("Holm-adjusted p = 0.060 ≥ 0.05".into());
    vec![
        row(Cells {
            metric: "latency",
            unit: "ms",
            better: Direction::LowerIsBetter,
            concurrency: "8",
            medians: (10.0, 12.0),
            ci: (1.1, 1.3),
            p: (0.008, 0.024),
            delta: 1.0,
            verdict: Verdict::Regressed,
            reason: "CI beyond ±2%; Holm-adjusted p = 0.024",
        }),
        inconclusive,
        row(Cells {
            metric: "latency",
            unit: "ms",
            better: Direction::LowerIsBetter,
            concurrency: "16",
            medians: (20.0, 17.5),
            ci: (0.85, 0.9),
            p: (0.004, 0.012),
            delta: -1.0,
            verdict: Verdict::Improved,
            reason: "CI beyond ±2%; Holm-adjusted p = 0.012",
        }),
    ]
}

/// `main` (run r1) against `pr-7` (run r2): the three rows, a flag, a diagnosis and one
/// decision; geometric mean (1.2 · 1.05 · 0.875)^⅓ = 1.1025^⅓ ≈ 1.0331.
pub(crate) fn comparison() -> Comparison {
    Comparison {
        baseline: selection("main", "r1", 1),
        candidate: selection("pr-7", "r2", 2),
        threshold: 0.02,
        alpha: 0.05,
        overall: Overall {
            judged: 3,
            regressed: 1,
            improved: 1,
            unchanged: 0,
            inconclusive: 1,
            geomean_ratio: Some(1.0331),
            change_range: Some((-0.125, 0.2)),
            corrected_over: 3,
            multiple_comparisons: "holm",
            small_samples: None,
        },
        rows: rows(),
        summaries: Vec::new(),
        flags: vec!["different machines".into()],
        diagnoses: vec!["client-bound at concurrency=16".into()],
        decisions: vec![Decision {
            arm: "a → b".into(),
            params: params("8"),
            decided_by: Some("instructions".into()),
            verdict: Verdict::Regressed,
            disagree: false,
            measures: Vec::new(),
            text: "regressed by instructions".into(),
        }],
    }
}
