//! The change rule of each series (`stats::noise::ChangeRule`: how many local σs, and the
//! smallest magnitude, a change point must show), set per suite or per metric by the
//! `change_threshold` label, as a suite's SLOs are set by its `slo` label: the newest run of
//! the suite that carries the label says it (`perfhouse ingest --label change_threshold=…`,
//! `perfhouse run PLAN --label …`), and it holds until a newer run says otherwise.
//!
//! The label is a comma-separated list of `[METRIC=]SPEC`, SPEC one or both of `Kσ` (or
//! `Ksigma`) and `F%`, separated by a space or `/`:
//!
//! - `change_threshold=3%`: the suite's floor is 3 % (its σs stay the default);
//! - `change_threshold=2.5σ/1%,time_load=6%`: the suite's rule is 2.5σ, at least 1 %, and the
//!   series of the metric `time_load` (every arm and params) need 6 % (at 2.5σ).
//!
//! A metric's entry overrides the suite's per part, the suite's the default.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Query, QueryError};
use crate::stats::noise::ChangeRule;

/// The run label that sets a suite's or a metric's change rule.
pub const LABEL: &str = "change_threshold";

/// Where a series' change rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleSource {
    /// [`ChangeRule::DEFAULT`].
    #[default]
    Default,
    /// The suite's `change_threshold` label.
    Suite,
    /// The label's entry for the series' metric.
    Metric,
}

impl RuleSource {
    pub fn name(self) -> &'static str {
        match self {
            RuleSource::Default => "default",
            RuleSource::Suite => "suite",
            RuleSource::Metric => "metric",
        }
    }
}

/// The parts of a rule one entry of the label sets.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Partial {
    pub sigmas: Option<f64>,
    pub floor: Option<f64>,
}

impl Partial {
    fn over(self, base: ChangeRule) -> ChangeRule {
        ChangeRule {
            sigmas: self.sigmas.unwrap_or(base.sigmas),
            floor: self.floor.unwrap_or(base.floor),
        }
    }
}

/// One suite's label, parsed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SuiteRules {
    pub suite: Option<Partial>,
    pub metrics: BTreeMap<String, Partial>,
}

impl SuiteRules {
    /// The label's value parsed; the error names the entry and what was expected.
    pub fn parse(label: &str) -> Result<SuiteRules, String> {
        let mut out = SuiteRules::default();
        for entry in label.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (metric, spec) = match entry.rsplit_once('=') {
                Some((m, s)) if !m.trim().is_empty() => (Some(m.trim()), s),
                _ => (None, entry),
            };
            let part = partial(spec).map_err(|why| format!("{entry:?}: {why}"))?;
            match metric {
                Some(m) => {
                    out.metrics.insert(m.to_string(), part);
                }
                None => out.suite = Some(part),
            }
        }
        Ok(out)
    }

    /// The rule of `metric`'s series, and which entry set it.
    pub fn rule(&self, metric: &str) -> (ChangeRule, RuleSource) {
        let base = default_rule(metric);
        let suite = self.suite.map_or(base, |p| p.over(base));
        match (self.metrics.get(metric), self.suite) {
            (Some(m), _) => (m.over(suite), RuleSource::Metric),
            (None, Some(_)) => (suite, RuleSource::Suite),
            (None, None) => (suite, RuleSource::Default),
        }
    }
}

/// The rule of `metric`'s series where no label sets one: [`ChangeRule::DEFAULT`], at the
/// measure's own floor (an instruction count's is a tenth: `figures::floor_scale`, issue 42).
pub fn default_rule(metric: &str) -> ChangeRule {
    ChangeRule {
        floor: ChangeRule::DEFAULT.floor * super::figures::floor_scale(metric),
        ..ChangeRule::DEFAULT
    }
}

/// Checks the `change_threshold` label among `labels` (`--label K=V` pairs) before a run is
/// stored: `Err` names the label, the entry and what was expected.
pub fn check_labels(labels: &[(String, String)]) -> Result<(), String> {
    match labels.iter().find(|(k, _)| k == LABEL) {
        Some((_, v)) => SuiteRules::parse(v)
            .map(|_| ())
            .map_err(|e| format!("--label {LABEL}={v}: {e}")),
        None => Ok(()),
    }
}

/// `Kσ` / `Ksigma` and `F%`, separated by a space or `/`.
fn partial(spec: &str) -> Result<Partial, String> {
    let expected = "expected `Kσ` (or `Ksigma`), `F%`, or both as `Kσ/F%` (e.g. `3%`, `2.5σ/1%`)";
    let mut p = Partial::default();
    let tokens: Vec<&str> = spec
        .split(|c: char| c == '/' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.is_empty() {
        return Err(expected.to_string());
    }
    for t in tokens {
        let number = |x: &str| x.trim().parse::<f64>().ok().filter(|v| v.is_finite());
        if let Some(x) = t.strip_suffix('%') {
            match number(x) {
                Some(v) if v > 0.0 && v < 100.0 => p.floor = Some(v / 100.0),
                _ => return Err(format!("{t:?}: a floor between 0 and 100 %; {expected}")),
            }
        } else if let Some(x) = t.strip_suffix('σ').or_else(|| t.strip_suffix("sigma")) {
            match number(x) {
                Some(v) if v > 0.0 => p.sigmas = Some(v),
                _ => return Err(format!("{t:?}: a positive number of σs; {expected}")),
            }
        } else {
            return Err(format!("{t:?}: {expected}"));
        }
    }
    Ok(p)
}

/// Each suite's rules: from the newest of its runs that carries the label (calibration runs
/// aside). A label that does not parse is skipped, as `perfhouse ingest` refuses one.
pub async fn load(q: &Query) -> Result<BTreeMap<String, SuiteRules>, QueryError> {
    #[derive(serde::Deserialize)]
    struct Labelled {
        suite: String,
        labels: String,
    }
    let rows: Vec<Labelled> = q
        .rows(&format!(
            "SELECT suite, labels FROM runs WHERE labels LIKE '%\"{LABEL}\"%' \
             ORDER BY started_at, run_id"
        ))
        .await?;
    let mut out = BTreeMap::new();
    for r in rows {
        let labels: BTreeMap<String, String> = serde_json::from_str(&r.labels).unwrap_or_default();
        if let Some(rules) = labels.get(LABEL).and_then(|l| SuiteRules::parse(l).ok()) {
            // Oldest first: a newer run's label replaces an older one's.
            out.insert(r.suite, rules);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_set_a_suite_and_its_metrics_their_rules() {
        let r = SuiteRules::parse("2.5σ/1%, time_load=6%,time_save = 4sigma").unwrap();
        let d = ChangeRule::DEFAULT;
        assert_eq!(
            r.rule("other"),
            (
                ChangeRule {
                    sigmas: 2.5,
                    floor: 0.01
                },
                RuleSource::Suite
            )
        );
        assert_eq!(
            r.rule("time_load"),
            (
                ChangeRule {
                    sigmas: 2.5,
                    floor: 0.06
                },
                RuleSource::Metric
            )
        );
        assert_eq!(
            r.rule("time_save").0,
            ChangeRule {
                sigmas: 4.0,
                floor: 0.01
            }
        );
        // A metric's entry alone: the rest from the default.
        let r = SuiteRules::parse("time_load=6%").unwrap();
        assert_eq!(r.rule("x"), (d, RuleSource::Default));
        assert_eq!(r.rule("time_load").0.sigmas, d.sigmas);
        // A threshold of 6σ/6 % at σ = 1.5 %: 9 %; at σ unknown: the floor.
        let six = ChangeRule {
            sigmas: 6.0,
            floor: 0.06,
        };
        assert!((six.threshold(Some(0.015)) - 0.09).abs() < 1e-15);
        assert_eq!(six.threshold(None), 0.06);
        assert_eq!(six.describe(), "6σ, at least 6%");
    }

    #[test]
    fn a_bad_label_says_which_entry_and_what_was_expected() {
        let e = SuiteRules::parse("3%,time_load=six%").unwrap_err();
        assert!(
            e.starts_with("\"time_load=six%\": \"six%\": a floor between 0 and 100 %"),
            "{e}"
        );
        assert!(
            SuiteRules::parse("3")
                .unwrap_err()
                .contains("expected `Kσ`")
        );
        assert!(SuiteRules::parse("0σ").is_err());
        assert!(SuiteRules::parse("time_load=").is_err());
    }
}
