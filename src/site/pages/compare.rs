//! A/B pages of a run's arms (`templates/compare.html`).

use askama::Template;

use crate::query::Query;
use crate::query::compare::{self, CompareOptions, RunInfo, Selection};
use crate::site::format::*;
use crate::site::load::*;
use crate::site::*;
use crate::site::{SiteError, format};

pub struct CompareRowView {
    pub verdict: String,
    pub metric: String,
    pub params: String,
    pub n: String,
    pub baseline: String,
    pub candidate: String,
    pub change: String,
    pub ci: String,
    pub p: String,
    pub reason: String,
}

#[derive(Template)]
#[template(path = "compare.html")]
pub struct ComparePage {
    pub root: String,
    pub css: String,
    pub title: String,
    pub suite: String,
    pub number: String,
    pub baseline: String,
    pub candidate: String,
    pub threshold: String,
    pub fixed_params: String,
    pub rows: Vec<CompareRowView>,
    pub flags: Vec<String>,
    pub diagnoses: Vec<String>,
    /// Differential flamegraphs (baseline → candidate) per target × kind.
    pub diffs: Vec<KeyValue>,
}

/// A/B pages of a run with several arms: the arm that ran first is the baseline, each other
/// arm a candidate, through the same comparison as `perfhouse compare`.
pub(crate) async fn compare_pages(
    query: &Query,
    r: &RunRow,
    arms: &[String],
    css: &str,
    opts: &CompareOptions,
) -> Result<Vec<(String, ComparePage)>, SiteError> {
    struct Arm {
        arm: String,
    }
    let arms: Vec<Arm> = arms.iter().map(|a| Arm { arm: a.clone() }).collect();
    let mut out = Vec::new();
    let Some((first, rest)) = arms.split_first() else {
        return Ok(out);
    };
    for (i, cand) in rest.iter().enumerate() {
        // Built directly, not parsed from `RUN@ARM`: arm names may contain `@`.
        let sel = |arm: &str| Selection {
            run: RunInfo {
                run_id: r.run_id.clone(),
                suite: r.suite.clone(),
                run_no: r.run_no,
                started_at: r.started_at.clone(),
                git_commit: r.git_commit.clone(),
                env_fingerprint: r.env_fingerprint.clone(),
            },
            arm: Some(arm.to_string()),
            label: format!("{} #{} @{arm}", r.suite, r.run_no),
        };
        let (a, b) = (sel(&first.arm), sel(&cand.arm));
        let c = compare::compare(query, a, b, opts).await?;
        let layout = ParamLayout::new(c.rows.iter().map(|row| &row.params));
        let page = ComparePage {
            root: "../../".into(),
            css: css.to_string(),
            title: format!("{} #{}: {} vs {}", r.suite, r.run_no, first.arm, cand.arm),
            suite: r.suite.clone(),
            number: format!("#{}", r.run_no),
            baseline: first.arm.clone(),
            candidate: cand.arm.clone(),
            threshold: c.noise_line(),
            fixed_params: layout
                .fixed
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
            rows: c
                .rows
                .iter()
                .map(|row| CompareRowView {
                    verdict: row.verdict.to_string(),
                    metric: if row.unit.is_empty() {
                        row.metric.clone()
                    } else {
                        format!("{} ({})", row.metric, row.unit)
                    },
                    params: layout.varying(&row.params),
                    n: format!("{}/{}", row.n_baseline, row.n_candidate),
                    baseline: fmt_value(row.median_baseline),
                    candidate: fmt_value(row.median_candidate),
                    change: pct(row.ratio),
                    ci: format::ci(row),
                    p: format::p(row),
                    reason: row.reason.clone(),
                })
                .collect(),
            flags: c.flags.clone(),
            diagnoses: c.diagnoses.clone(),
            diffs: Vec::new(),
        };
        // Arm names are user strings: the file name is the candidate's position, not its name.
        out.push((format!("compare-{}.html", i + 1), page));
    }
    Ok(out)
}
