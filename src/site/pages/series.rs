//! Suite and series pages (`templates/suite.html`, `templates/series.html`).

use std::collections::BTreeMap;

use askama::Template;

use crate::query::Query;
use crate::site::SiteError;
use crate::site::charts::{self};
use crate::site::format::*;
use crate::site::load::*;
use crate::site::writer::*;
use crate::site::*;

pub struct SeriesLink {
    pub href: String,
    pub metric: String,
    pub arm: String,
    pub params: String,
    pub spark: String,
    pub n: usize,
    pub latest: String,
    pub change: String,
    pub change_class: String,
}

#[derive(Template)]
#[template(path = "suite.html")]
pub struct SuitePage {
    pub root: String,
    pub css: String,
    pub title: String,
    pub suite: String,
    pub series: Vec<SeriesLink>,
}

pub struct ChangeView {
    pub href: String,
    pub run: String,
    pub commit: String,
    /// The commit's page (the run's `commit_url` label + the commit), or empty.
    pub commit_href: String,
    pub before: String,
    pub after: String,
    pub change: String,
    pub p: String,
    pub class: String,
    pub kind: String,
}

pub struct PointView {
    pub href: String,
    pub run: String,
    pub started: String,
    pub commit: String,
    /// The commit's page (the run's `commit_url` label + the commit), or empty.
    pub commit_href: String,
    pub value: String,
    pub range: String,
    pub note: String,
}

#[derive(Template)]
#[template(path = "series.html")]
pub struct SeriesPage {
    pub root: String,
    pub css: String,
    pub title: String,
    pub suite: String,
    pub metric: String,
    pub arm: String,
    pub params: String,
    pub unit: String,
    pub summary: String,
    pub chart: String,
    pub changes: Vec<ChangeView>,
    pub points: Vec<PointView>,
}

/// The page of a point's commit: the run's `commit_url` label (as asv's `show_commit_url`,
/// the commit id appended), or empty.
fn commit_href(urls: &BTreeMap<&str, String>, run_id: &str, commit: &Option<String>) -> String {
    match (urls.get(run_id), commit) {
        (Some(url), Some(c)) => format!("{url}{}", crate::site::format::url_segment(c)),
        _ => String::new(),
    }
}

/// Suite and series pages; returns every alert (change points and triaged ones, open first)
/// for the index and the feed. `commit_urls`: run id → its `commit_url` label.
pub(crate) async fn history_pages(
    w: &mut Writer,
    query: &Query,
    css: &str,
    notes: &BTreeMap<&str, Vec<&NoteRow>>,
    commit_urls: &BTreeMap<&str, String>,
) -> Result<Vec<AlertView>, SiteError> {
    let all = crate::query::history::history(query, None, None, &Default::default()).await?;
    let mut hrefs: BTreeMap<(String, String, String, crate::model::Params), (String, String)> =
        BTreeMap::new();
    let mut by_suite: BTreeMap<&str, Vec<&crate::query::history::Series>> = BTreeMap::new();
    for s in &all {
        by_suite.entry(s.suite.as_str()).or_default().push(s);
    }
    for (suite, series) in by_suite {
        let dir = format!("suites/{}", slug(suite));
        let layout = ParamLayout::new(series.iter().map(|s| &s.params));
        let mut links = Vec::new();
        for s in series {
            let file = format!(
                "{}.html",
                slug(&format!(
                    "{}|{}|{}",
                    s.metric,
                    s.arm,
                    crate::model::params_json(&s.params)
                ))
            );
            let params = layout.varying(&s.params);
            let values: Vec<f64> = s.points.iter().map(|p| p.value).collect();
            let latest_change = s.changes.last();
            let (change, class) = match latest_change {
                Some(c) => (
                    format!(
                        "{} at #{} ({:+.1}%)",
                        if c.regression {
                            "regressed"
                        } else {
                            "improved"
                        },
                        c.run_no,
                        c.magnitude * 100.0
                    ),
                    if c.regression {
                        "verdict-regressed"
                    } else {
                        "verdict-improved"
                    }
                    .to_string(),
                ),
                None => ("none".to_string(), String::new()),
            };
            hrefs.insert(
                (
                    s.suite.clone(),
                    s.metric.clone(),
                    s.arm.clone(),
                    s.params.clone(),
                ),
                (
                    format!("{dir}/{file}"),
                    format!("{} · {} {}", s.metric, s.arm, params),
                ),
            );
            links.push(SeriesLink {
                href: file.clone(),
                metric: if s.unit.is_empty() {
                    s.metric.clone()
                } else {
                    format!("{} ({})", s.metric, s.unit)
                },
                arm: s.arm.clone(),
                params: params.clone(),
                spark: charts::sparkline(&values, &format!("{} trend", s.metric)),
                n: values.len(),
                latest: values
                    .last()
                    .map(|v| fmt_value(Some(*v)))
                    .unwrap_or_default(),
                change,
                change_class: class,
            });
            let index_of: BTreeMap<&str, usize> = s
                .points
                .iter()
                .enumerate()
                .map(|(i, p)| (p.run_id.as_str(), i))
                .collect();
            let changes: Vec<(usize, bool)> = s
                .changes
                .iter()
                .filter_map(|c| index_of.get(c.run_id.as_str()).map(|i| (*i, c.regression)))
                .collect();
            let noted: Vec<usize> = s
                .points
                .iter()
                .enumerate()
                .filter(|(_, p)| notes.contains_key(p.run_id.as_str()))
                .map(|(i, _)| i)
                .collect();
            let bands: Vec<Option<(f64, f64)>> = s.points.iter().map(|p| p.lo.zip(p.hi)).collect();
            let title = format!("{} · {}", s.metric, s.arm);
            let description = format!(
                "{} over {} runs of suite {suite}{}; dashed lines mark change points, dotted grey lines known breaks (the benchmark's code or the machine changed), diamonds runs with notes.",
                s.metric,
                values.len(),
                if params.is_empty() {
                    String::new()
                } else {
                    format!(" at {params}")
                }
            );
            let chart = charts::trend_chart(&charts::Trend {
                title: &title,
                description: &description,
                y_label: if s.unit.is_empty() {
                    &s.metric
                } else {
                    &s.unit
                },
                values: &values,
                bands: &bands,
                changes: &changes,
                notes: &noted,
                breaks: &s.breaks,
            })?;
            let page = SeriesPage {
                root: "../../".into(),
                css: css.to_string(),
                title: format!("{suite}: {}", s.metric),
                suite: suite.to_string(),
                metric: s.metric.clone(),
                arm: s.arm.clone(),
                params,
                unit: s.unit.clone(),
                summary: format!(
                    "{} is better. {} runs; {} change point(s){}.",
                    if s.better == crate::stats::verdict::Direction::HigherIsBetter {
                        "Higher"
                    } else {
                        "Lower"
                    },
                    values.len(),
                    s.changes.len(),
                    match s.breaks.len() {
                        0 => String::new(),
                        n => format!(
                            "; {n} known break(s) where the benchmark's code or the machine changed (no change is called across one)"
                        ),
                    }
                ),
                chart,
                changes: s
                    .changes
                    .iter()
                    .map(|c| ChangeView {
                        href: format!("../../runs/{}/index.html", c.run_id),
                        run: format!("#{}", c.run_no),
                        commit: short_commit(&c.git_commit),
                        commit_href: commit_href(commit_urls, &c.run_id, &c.git_commit),
                        before: fmt_value(Some(c.mean_before)),
                        after: fmt_value(Some(c.mean_after)),
                        change: format!("{:+.1}%", c.magnitude * 100.0),
                        p: format!("{:.3}", c.p_value),
                        class: if c.regression {
                            "verdict-regressed"
                        } else {
                            "verdict-improved"
                        }
                        .into(),
                        kind: if c.regression {
                            "regression"
                        } else {
                            "improvement"
                        }
                        .into(),
                    })
                    .collect(),
                points: s
                    .points
                    .iter()
                    .map(|p| PointView {
                        href: format!("../../runs/{}/index.html", p.run_id),
                        run: format!("#{}", p.run_no),
                        started: time(&p.started_at),
                        commit: short_commit(&p.git_commit),
                        commit_href: commit_href(commit_urls, &p.run_id, &p.git_commit),
                        value: fmt_value(Some(p.value)),
                        range: match (p.lo, p.hi) {
                            (Some(lo), Some(hi)) => {
                                format!("{} – {}", fmt_value(Some(lo)), fmt_value(Some(hi)))
                            }
                            _ => String::new(),
                        },
                        note: notes
                            .get(p.run_id.as_str())
                            .and_then(|v| v.last())
                            .map(|n| n.text.clone())
                            .unwrap_or_default(),
                    })
                    .collect(),
            };
            w.page(&format!("{dir}/{file}"), &page)?;
        }
        w.page(
            &format!("{dir}/index.html"),
            &SuitePage {
                root: "../../".into(),
                css: css.to_string(),
                title: format!("{suite}: series"),
                suite: suite.to_string(),
                series: links,
            },
        )?;
    }
    let alerts = crate::query::alerts::alerts(query, &all).await?;
    Ok(alerts
        .into_iter()
        .map(|a| {
            let key = (
                a.suite.clone(),
                a.metric.clone(),
                a.arm.clone(),
                a.params.clone(),
            );
            let (href, series) = hrefs.get(&key).cloned().unwrap_or_default();
            AlertView {
                open: crate::query::alerts::is_open(&a.state),
                class: if a.regression {
                    "verdict-regressed"
                } else {
                    "verdict-improved"
                }
                .into(),
                kind: if a.regression {
                    "regression"
                } else {
                    "improvement"
                }
                .into(),
                change: format!("{:+.1}%", a.magnitude * 100.0),
                run: a.run_no.map_or(String::new(), |n| format!("#{n}")),
                run_href: format!("runs/{}/index.html", a.run_id),
                commit: short_commit(&a.git_commit),
                commit_href: commit_urls
                    .get(a.run_id.as_str())
                    .cloned()
                    .unwrap_or_default(),
                started: a.started_at.clone().unwrap_or_default(),
                series: if series.is_empty() {
                    format!("{} · {}", a.metric, a.arm)
                } else {
                    series
                },
                href,
                id: a.alert_id,
                state: a.state,
                suite: a.suite,
                note: a.note,
                updated: a.updated_at,
            }
        })
        .collect())
}
