//! The static site: view models (already formatted values), askama pages, plotters charts.
//!
//! Every link is relative, so the site works under any sub-path (GitHub Pages serves it at
//! `https://org.github.io/repo/`). Output depends only on the warehouse: no build timestamps,
//! everything sorted, and files whose bytes did not change are not rewritten.

pub mod charts;
pub mod flame;

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use askama::Template;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::query::compare::{self, CompareError, CompareOptions, RunInfo, Selection};
use crate::query::{Query, QueryError, lit};
use crate::report;
use charts::{ChartError, Series};

#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Chart(#[from] ChartError),
    #[error(transparent)]
    Compare(#[from] CompareError),
    #[error("rendering {page}: {source}")]
    Render { page: String, source: askama::Error },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// The site's stylesheet (also inlined into `report --format html`).
pub const CSS: &str = include_str!("../../assets/style.css");

// ---- rows read from the views -------------------------------------------------------------

#[derive(Debug, Deserialize)]
struct RunRow {
    run_id: String,
    suite: String,
    run_no: u64,
    started_at: String,
    finished_at: String,
    source: String,
    status: String,
    git_commit: Option<String>,
    git_branch: Option<String>,
    host: Option<String>,
    env_fingerprint: Option<String>,
    labels: String,
    n_trials: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
struct TrialRow {
    trial_id: i64,
    seq: i64,
    arm: String,
    params: String,
    repeat: i64,
    status: String,
    discarded: bool,
    discard_reason: Option<String>,
    requests: Option<i64>,
    completed: Option<i64>,
    errors: Option<i64>,
    cancelled: Option<i64>,
    throughput_rps: Option<f64>,
    latency_p50_ms: Option<f64>,
    latency_p99_ms: Option<f64>,
    ttft_p50_ms: Option<f64>,
    littles_law_ratio: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
struct MedianRow {
    arm: String,
    params: String,
    n_trials: i64,
    /// The registry's figures (`query::figures`), by column name.
    #[serde(flatten)]
    figures: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
struct MetricMedianRow {
    arm: String,
    params: String,
    name: String,
    unit: String,
    better: String,
    n_trials: i64,
    median: f64,
    min: f64,
    max: f64,
    restates_requests: bool,
}

#[derive(Debug, Deserialize)]
struct NoteRow {
    run_id: String,
    at: String,
    text: String,
}

#[derive(Debug, Deserialize)]
struct LatencyRow {
    arm: String,
    params: String,
    latency_ns: i64,
}

// ---- formatting -----------------------------------------------------------------------------

/// A number for a table cell: a fixed number of decimals, `—` when missing.
pub fn num(v: Option<f64>, decimals: usize) -> String {
    match v {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => "—".to_string(),
    }
}

fn int(v: Option<i64>) -> String {
    v.map_or_else(|| "—".to_string(), |v| v.to_string())
}

/// `2025-10-07T05:00:07.532900Z` → `2025-10-07 05:00:07 UTC`.
fn time(ts: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(ts) {
        Ok(t) => t
            .with_timezone(&chrono::Utc)
            .format("%Y-%m-%d %H:%M:%S UTC")
            .to_string(),
        Err(_) => ts.to_string(),
    }
}

pub use crate::model::params_text;

/// What the trials of one run have in common: parameters with one value across every trial
/// are shown once in the run's header, so tables and chart titles name only what varies.
pub struct ParamLayout {
    pub fixed: BTreeMap<String, String>,
}

fn parse_params(json: &str) -> BTreeMap<String, String> {
    serde_json::from_str(json).unwrap_or_default()
}

impl ParamLayout {
    pub fn new<'a>(all: impl Iterator<Item = &'a str>) -> ParamLayout {
        let mut fixed: Option<BTreeMap<String, String>> = None;
        for json in all {
            let p = parse_params(json);
            fixed = Some(match fixed {
                None => p,
                Some(f) => f.into_iter().filter(|(k, v)| p.get(k) == Some(v)).collect(),
            });
        }
        ParamLayout {
            fixed: fixed.unwrap_or_default(),
        }
    }

    /// The varying part of a parameter set as `k=v k=v`, `—` when nothing varies.
    pub fn varying(&self, json: &str) -> String {
        let text: Vec<String> = parse_params(json)
            .into_iter()
            .filter(|(k, _)| !self.fixed.contains_key(k))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if text.is_empty() {
            "—".to_string()
        } else {
            text.join(" ")
        }
    }
}

/// Orders parameter sets as people read them: numbers by value (8 before 32), text by text.
pub fn cmp_params(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (parse_params(a), parse_params(b));
    for ((ka, va), (kb, vb)) in a.iter().zip(b.iter()) {
        let ord = ka
            .cmp(kb)
            .then_with(|| match (va.parse::<f64>(), vb.parse::<f64>()) {
                (Ok(x), Ok(y)) => x.total_cmp(&y),
                _ => va.cmp(vb),
            });
        if ord.is_ne() {
            return ord;
        }
    }
    a.len().cmp(&b.len())
}

// ---- view models ----------------------------------------------------------------------------

pub struct RunLink {
    pub href: String,
    pub number: String,
    pub run_id: String,
    pub started: String,
    pub source: String,
    pub status: String,
    pub trials: String,
    pub note: String,
}

pub struct SuiteView {
    pub name: String,
    pub href: String,
    pub runs: Vec<RunLink>,
    /// Runs not listed on the index (older than the newest few).
    pub more: usize,
}

pub struct RegressionView {
    pub suite: String,
    pub href: String,
    pub series: String,
    pub change: String,
    pub run: String,
    pub run_href: String,
}

#[derive(Template)]
#[template(path = "index.html")]
pub struct IndexPage {
    pub root: String,
    pub css: String,
    pub title: String,
    pub suites: Vec<SuiteView>,
    pub regressions: Vec<RegressionView>,
}

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

/// A file-name-safe, collision-resistant slug of a user string.
pub fn slug(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .take(6)
        .collect::<Vec<_>>()
        .join("-");
    let h = &hex::encode(Sha256::digest(name.as_bytes()))[..8];
    if clean.is_empty() {
        h.to_string()
    } else {
        format!("{}-{h}", &clean[..clean.len().min(40)])
    }
}

fn short_commit(c: &Option<String>) -> String {
    c.as_deref()
        .map(|c| crate::model::short_commit(c).to_string())
        .unwrap_or_default()
}

/// Suite and series pages; returns the open regressions (a series whose latest change point
/// is a regression) for the index.
async fn history_pages(
    w: &mut Writer,
    query: &Query,
    css: &str,
    notes: &BTreeMap<&str, Vec<&NoteRow>>,
) -> Result<Vec<RegressionView>, SiteError> {
    let all = crate::query::history::history(query, None, None, &Default::default()).await?;
    let mut by_suite: BTreeMap<&str, Vec<&crate::query::history::Series>> = BTreeMap::new();
    for s in &all {
        by_suite.entry(s.suite.as_str()).or_default().push(s);
    }
    let mut regressions = Vec::new();
    for (suite, series) in by_suite {
        let dir = format!("suites/{}", slug(suite));
        let layout = ParamLayout::new(series.iter().map(|s| s.params.as_str()));
        let mut links = Vec::new();
        for s in series {
            let file = format!(
                "{}.html",
                slug(&format!("{}|{}|{}", s.metric, s.arm, s.params))
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
            if let Some(c) = latest_change.filter(|c| c.regression) {
                regressions.push(RegressionView {
                    suite: suite.to_string(),
                    href: format!("{dir}/{file}"),
                    series: format!("{} · {} {}", s.metric, s.arm, params),
                    change: format!("{:+.1}% at #{}", c.magnitude * 100.0, c.run_no),
                    run: format!("#{}", c.run_no),
                    run_href: format!("runs/{}/index.html", c.run_id),
                });
            }
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
                    .map(|v| report::fmt_value(Some(*v)))
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
                "{} over {} runs of suite {suite}{}; dashed lines mark change points, diamonds runs with notes.",
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
                    "{} is better. {} runs; {} change point(s).",
                    if s.better == "higher" {
                        "Higher"
                    } else {
                        "Lower"
                    },
                    values.len(),
                    s.changes.len()
                ),
                chart,
                changes: s
                    .changes
                    .iter()
                    .map(|c| ChangeView {
                        href: format!("../../runs/{}/index.html", c.run_id),
                        run: format!("#{}", c.run_no),
                        commit: short_commit(&c.git_commit),
                        before: report::fmt_value(Some(c.mean_before)),
                        after: report::fmt_value(Some(c.mean_after)),
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
                        value: report::fmt_value(Some(p.value)),
                        range: match (p.lo, p.hi) {
                            (Some(lo), Some(hi)) => format!(
                                "{} – {}",
                                report::fmt_value(Some(lo)),
                                report::fmt_value(Some(hi))
                            ),
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
    Ok(regressions)
}

pub struct KeyValue {
    pub key: String,
    pub value: String,
}

pub struct MedianView {
    pub arm: String,
    pub params: String,
    pub n: String,
    /// One cell per figure of [`RunPage::figure_labels`].
    pub figures: Vec<String>,
}

pub struct MetricMedianView {
    pub arm: String,
    pub params: String,
    pub name: String,
    pub unit: String,
    pub better: String,
    pub n: String,
    pub median: String,
    pub range: String,
}

pub struct TrialView {
    pub seq: String,
    pub trial_id: String,
    pub arm: String,
    pub params: String,
    pub repeat: String,
    pub status: String,
    pub discarded: String,
    pub requests: String,
    pub completed: String,
    pub failed: String,
    pub throughput_rps: String,
    pub latency_p50_ms: String,
    pub latency_p99_ms: String,
    pub ttft_p50_ms: String,
    pub littles_law_ratio: String,
}

pub struct NoteView {
    pub at: String,
    pub text: String,
}

pub struct ChartView {
    pub svg: String,
}

/// The figures of the run page's per-arm medians table, in registry order.
fn run_page_figures() -> impl Iterator<Item = &'static crate::query::figures::Figure> {
    crate::query::figures::FIGURES.iter().filter(|f| f.run_page)
}

#[derive(Template)]
#[template(path = "run.html")]
pub struct RunPage {
    pub root: String,
    pub css: String,
    pub title: String,
    pub suite: String,
    pub number: String,
    pub meta: Vec<KeyValue>,
    pub notes: Vec<NoteView>,
    pub medians: Vec<MedianView>,
    /// Column headers of `medians`' figures (the registry's run-page figures).
    pub figure_labels: Vec<&'static str>,
    pub metric_medians: Vec<MetricMedianView>,
    /// aiperf summary medians left off the page (the run has the records they summarise).
    pub summary_hidden: usize,
    pub trials: Vec<TrialView>,
    pub charts: Vec<ChartView>,
    /// Links to the run's A/B pages (`compare-<arm>.html`).
    pub compares: Vec<KeyValue>,
    pub profiles: Vec<ProfileView>,
    pub cpu_charts: Vec<ChartView>,
    /// `transfer.html` when the run has GB/s metrics by object or page size.
    pub transfer: bool,
}

pub struct TransferRow {
    pub metric: String,
    pub placement: String,
    pub params: String,
    pub value: String,
}

#[derive(Template)]
#[template(path = "transfer.html")]
pub struct TransferPage {
    pub root: String,
    pub css: String,
    pub title: String,
    pub suite: String,
    pub number: String,
    pub charts: Vec<ChartView>,
    pub rows: Vec<TransferRow>,
}

const SIZE_KEYS: &[(&str, f64)] = &[
    ("object_size", 1.0),
    ("object_size_bytes", 1.0),
    ("object_size_mib", 1048576.0),
];

/// The transfer page of a run whose metrics are in GB/s by object size (LMCache's transfer
/// channel benchmark, the dd plan): GB/s vs object size and vs page size, a line per placement.
fn transfer_page(
    r: &RunRow,
    medians: &[MetricMedianRow],
    css: &str,
) -> Result<Option<TransferPage>, SiteError> {
    struct P {
        metric: String,
        line: String,
        size: Option<f64>,
        page: Option<f64>,
        params: BTreeMap<String, String>,
        value: f64,
    }
    let mut pts = Vec::new();
    for m in medians.iter().filter(|m| m.unit == "GB/s") {
        let params = parse_params(&m.params);
        let size = SIZE_KEYS.iter().find_map(|(k, scale)| {
            params
                .get(*k)
                .and_then(|v| v.parse::<f64>().ok())
                .map(|v| v * scale)
        });
        let page = params.get("page_size").and_then(|v| v.parse::<f64>().ok());
        if size.is_none() && page.is_none() {
            continue;
        }
        let value = m.median;
        let placement = params.get("numa").cloned().unwrap_or_else(|| m.arm.clone());
        pts.push(P {
            metric: m.name.clone(),
            line: placement,
            size,
            page,
            params,
            value,
        });
    }
    if pts.is_empty() {
        return Ok(None);
    }
    let mut charts = Vec::new();
    for (axis, label) in [
        ("size", "object size (log2 bytes)"),
        ("page", "page size (log2 bytes)"),
    ] {
        let mut lines: BTreeMap<(String, String), Vec<(f64, f64)>> = BTreeMap::new();
        for p in &pts {
            let (x, other) = if axis == "size" {
                (p.size, p.page)
            } else {
                (p.page, p.size)
            };
            let Some(x) = x else { continue };
            let other = other.map(|o| format!(" @{o}")).unwrap_or_default();
            lines
                .entry((p.metric.clone(), format!("{}{other}", p.line)))
                .or_default()
                .push((x.log2(), p.value));
        }
        let distinct: std::collections::BTreeSet<u64> =
            lines.values().flatten().map(|(x, _)| x.to_bits()).collect();
        if distinct.len() < 2 {
            continue;
        }
        let mut by_metric: BTreeMap<String, Vec<charts::Series>> = BTreeMap::new();
        for ((metric, line), mut points) in lines {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            by_metric.entry(metric).or_default().push(charts::Series {
                label: line,
                points,
            });
        }
        for (metric, series) in by_metric {
            let title = format!(
                "{metric} vs {}",
                if axis == "size" {
                    "object size"
                } else {
                    "page size"
                }
            );
            let desc = format!("{metric} in GB/s against {label}, one line per placement.");
            charts.push(ChartView {
                svg: charts::line_chart(&title, &desc, label, "GB/s", &series)?,
            });
        }
    }
    let mut rows: Vec<TransferRow> = pts
        .iter()
        .map(|p| TransferRow {
            metric: p.metric.clone(),
            placement: p.line.clone(),
            params: p
                .params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
            value: format!("{:.2}", p.value),
        })
        .collect();
    rows.sort_by(|a, b| {
        (&a.metric, &a.placement, &a.params).cmp(&(&b.metric, &b.placement, &b.params))
    });
    Ok(Some(TransferPage {
        root: "../../".into(),
        css: css.to_string(),
        title: format!("{} #{}: transfer", r.suite, r.run_no),
        suite: r.suite.clone(),
        number: format!("#{}", r.run_no),
        charts,
        rows,
    }))
}

#[derive(Deserialize)]
struct CpuRow {
    trial_id: i64,
    arm: String,
    params: String,
    scope: String,
    t_ns: i64,
    user_ticks: i64,
    system_ticks: i64,
    idle_ticks: i64,
    total_ticks: i64,
}

/// Cores busy over time (sum over sampled cores) and each sampled process's cores, for the
/// last kept trial of every arm, one chart per parameter set.
async fn cpu_charts(query: &Query, run_id: &str) -> Result<Vec<ChartView>, SiteError> {
    let rows: Vec<CpuRow> = query
        .rows(&format!(
            "SELECT c.trial_id, t.arm, t.params, c.scope, c.t_ns, c.user_ticks, c.system_ticks, c.idle_ticks, c.total_ticks \
             FROM cpu_samples c JOIN trials t ON c.run_id = t.run_id AND c.trial_id = t.trial_id \
             WHERE c.run_id = {} AND t.kept AND c.scope <> 'cpu' ORDER BY c.trial_id, c.scope, c.t_ns",
            lit(run_id)
        ))
        .await?;
    // The last kept trial of each arm × params.
    let mut chosen: BTreeMap<(String, String), i64> = BTreeMap::new();
    for r in &rows {
        let e = chosen
            .entry((r.params.clone(), r.arm.clone()))
            .or_insert(r.trial_id);
        *e = (*e).max(r.trial_id);
    }
    let mut per_params: BTreeMap<String, Vec<charts::Series>> = BTreeMap::new();
    for ((params, arm), trial) in &chosen {
        let samples: Vec<&CpuRow> = rows.iter().filter(|r| r.trial_id == *trial).collect();
        let t0 = samples.iter().map(|r| r.t_ns).min().unwrap_or(0);
        let mut scopes: BTreeMap<&str, Vec<&CpuRow>> = BTreeMap::new();
        for r in &samples {
            scopes.entry(r.scope.as_str()).or_default().push(r);
        }
        let mut busy: BTreeMap<i64, f64> = BTreeMap::new();
        let mut procs: BTreeMap<String, BTreeMap<i64, f64>> = BTreeMap::new();
        for (scope, v) in scopes {
            for pair in v.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                let dt = (b.t_ns - a.t_ns) as f64 / 1e9;
                if dt <= 0.0 {
                    continue;
                }
                if let Some(rest) = scope.strip_prefix("proc:") {
                    let name = rest.split(':').next().unwrap_or(rest).to_string();
                    let ticks =
                        (b.user_ticks + b.system_ticks - a.user_ticks - a.system_ticks) as f64;
                    *procs.entry(name).or_default().entry(b.t_ns).or_insert(0.0) +=
                        ticks / 100.0 / dt;
                } else {
                    let dtot = (b.total_ticks - a.total_ticks) as f64;
                    if dtot > 0.0 {
                        *busy.entry(b.t_ns).or_insert(0.0) +=
                            1.0 - (b.idle_ticks - a.idle_ticks) as f64 / dtot;
                    }
                }
            }
        }
        let list = per_params.entry(params.clone()).or_default();
        let secs = |t: i64| (t - t0) as f64 / 1e9;
        if !busy.is_empty() {
            list.push(charts::Series {
                label: format!("cores busy · {arm}"),
                points: busy.iter().map(|(t, v)| (secs(*t), *v)).collect(),
            });
        }
        for (name, pts) in procs {
            list.push(charts::Series {
                label: format!("{name} · {arm}"),
                points: pts.iter().map(|(t, v)| (secs(*t), *v)).collect(),
            });
        }
    }
    let layout = ParamLayout::new(per_params.keys().map(String::as_str));
    let mut out = Vec::new();
    for (params, series) in per_params.into_iter().take(8) {
        let at = layout.varying(&params);
        let title = if at.is_empty() {
            "CPU over time".to_string()
        } else {
            format!("CPU over time · {at}")
        };
        let desc = "Cores busy (sum over sampled cores) and each sampled process's cores, per sample interval, for the last kept trial of each arm.";
        out.push(ChartView {
            svg: charts::line_chart(&title, desc, "seconds into the trial", "cores", &series)?,
        });
    }
    Ok(out)
}

pub struct ShareView {
    pub name: String,
    pub weight: String,
    pub share: String,
}

/// One flamegraph (arm × target × kind, merged over kept trials) and its tables.
pub struct ProfileView {
    pub title: String,
    pub href: String,
    pub kind: String,
    pub unit: String,
    /// On-CPU: top self frames. Off-CPU: innermost user frames.
    pub top: Vec<ShareView>,
    /// Off-CPU only: time by what it waited for.
    pub categories: Vec<ShareView>,
}

fn share_views(v: Vec<flame::Share>) -> Vec<ShareView> {
    v.into_iter()
        .map(|s| ShareView {
            name: s.name,
            weight: if s.weight.fract() == 0.0 {
                format!("{}", s.weight as i64)
            } else {
                format!("{:.1}", s.weight)
            },
            share: format!("{:.1}%", s.share * 100.0),
        })
        .collect()
}

#[derive(Deserialize)]
struct StackRow {
    arm: String,
    target: String,
    kind: String,
    stack: String,
    weight: f64,
}

/// Stacks of a run's kept trials, merged across repeats: (arm, target, kind) → stacks.
type Profiles = BTreeMap<(String, String, String), Vec<(String, f64)>>;

async fn load_profiles(query: &Query, run_id: &str) -> Result<Profiles, SiteError> {
    let rows: Vec<StackRow> = query
        .rows(&format!(
            "SELECT t.arm, s.target, s.kind, s.stack, sum(s.weight) AS weight FROM stacks s \
             JOIN trials t ON s.run_id = t.run_id AND s.trial_id = t.trial_id \
             WHERE s.run_id = {} AND (t.kept OR t.phase = 'measured') \
             GROUP BY t.arm, s.target, s.kind, s.stack ORDER BY t.arm, s.target, s.kind, s.stack",
            lit(run_id)
        ))
        .await?;
    let mut out: Profiles = BTreeMap::new();
    for r in rows {
        out.entry((r.arm, r.target, r.kind))
            .or_default()
            .push((r.stack, r.weight));
    }
    Ok(out)
}

/// Flamegraph SVGs and their views; files are numbered (names are user strings).
fn profile_views(profiles: &Profiles) -> Result<Vec<(String, Vec<u8>, ProfileView)>, SiteError> {
    let mut out = Vec::new();
    for (i, ((arm, target, kind), stacks)) in profiles.iter().enumerate() {
        let title = format!(
            "{arm} · {target} · {}",
            if kind == "offcpu" {
                "off-CPU"
            } else {
                "on-CPU"
            }
        );
        let bytes = flame::svg(&title, kind, stacks).map_err(|source| SiteError::Io {
            path: PathBuf::from(format!("flame/{i}.svg")),
            source,
        })?;
        let (top, categories) = if kind == "offcpu" {
            let (c, f) = flame::offcpu_breakdown(stacks, 15);
            (f, c)
        } else {
            (flame::top_self(stacks, 15), Vec::new())
        };
        let file = format!("flame/{i}.svg");
        out.push((
            file.clone(),
            bytes,
            ProfileView {
                title,
                href: file,
                kind: kind.clone(),
                unit: if kind == "offcpu" {
                    "µs".into()
                } else {
                    "samples".into()
                },
                top: share_views(top),
                categories: share_views(categories),
            },
        ));
    }
    Ok(out)
}

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

// ---- build ----------------------------------------------------------------------------------

/// What a build did.
#[derive(Debug, Default)]
pub struct BuildReport {
    pub written: usize,
    pub unchanged: usize,
    pub runs: usize,
}

struct Writer {
    out: PathBuf,
    report: BuildReport,
}

impl Writer {
    /// Writes `bytes` to `rel` under the output directory unless the file already holds them.
    fn put(&mut self, rel: &str, bytes: &[u8]) -> Result<(), SiteError> {
        let path = self.out.join(rel);
        if fs::read(&path).is_ok_and(|old| old == bytes) {
            self.report.unchanged += 1;
            return Ok(());
        }
        let dir = path.parent().expect("page has a parent");
        fs::create_dir_all(dir).map_err(|source| SiteError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        fs::write(&path, bytes).map_err(|source| SiteError::Io {
            path: path.clone(),
            source,
        })?;
        self.report.written += 1;
        Ok(())
    }

    fn page(&mut self, rel: &str, page: &impl Template) -> Result<(), SiteError> {
        let html = page.render().map_err(|source| SiteError::Render {
            page: rel.to_string(),
            source,
        })?;
        self.put(rel, html.as_bytes())
    }
}

/// What every run page needs, read in a few queries for the whole warehouse instead of a
/// dozen per run (a 1,000-run asv history would otherwise cost ~10,000 queries).
struct Prefetch {
    medians: BTreeMap<String, Vec<MedianRow>>,
    metric_medians: BTreeMap<String, Vec<MetricMedianRow>>,
    trials: BTreeMap<String, Vec<TrialRow>>,
    /// Arms of each run in order of first execution.
    arms: BTreeMap<String, Vec<String>>,
    with_requests: std::collections::HashSet<String>,
    with_cpu: std::collections::HashSet<String>,
    with_stacks: std::collections::HashSet<String>,
}

#[derive(Deserialize)]
struct Keyed<T> {
    run_id: String,
    #[serde(flatten)]
    row: T,
}

#[derive(Deserialize)]
struct RunArm {
    run_id: String,
    arm: String,
}

#[derive(Deserialize)]
struct RunOnly {
    run_id: String,
}

async fn grouped<T: serde::de::DeserializeOwned>(
    query: &Query,
    sql: &str,
) -> Result<BTreeMap<String, Vec<T>>, SiteError> {
    let rows: Vec<Keyed<T>> = query.rows(sql).await?;
    let mut out: BTreeMap<String, Vec<T>> = BTreeMap::new();
    for k in rows {
        out.entry(k.run_id).or_default().push(k.row);
    }
    Ok(out)
}

async fn ids(query: &Query, sql: &str) -> Result<std::collections::HashSet<String>, SiteError> {
    let rows: Vec<RunOnly> = query.rows(sql).await?;
    Ok(rows.into_iter().map(|r| r.run_id).collect())
}

impl Prefetch {
    async fn load(query: &Query) -> Result<Prefetch, SiteError> {
        let arm_rows: Vec<RunArm> = query
            .rows("SELECT run_id, arm FROM trials GROUP BY run_id, arm ORDER BY run_id, min(seq), arm")
            .await?;
        let mut arms: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for a in arm_rows {
            arms.entry(a.run_id).or_default().push(a.arm);
        }
        Ok(Prefetch {
            medians: grouped(
                query,
                "SELECT * FROM arm_medians ORDER BY run_id, params, arm",
            )
            .await?,
            metric_medians: grouped(
                query,
                "SELECT * FROM metric_medians ORDER BY run_id, name, params, arm",
            )
            .await?,
            trials: grouped(
                query,
                "SELECT * FROM trial_figures ORDER BY run_id, seq, trial_id",
            )
            .await?,
            arms,
            with_requests: ids(query, "SELECT DISTINCT run_id FROM requests").await?,
            with_cpu: ids(query, "SELECT DISTINCT run_id FROM cpu_samples").await?,
            with_stacks: ids(query, "SELECT DISTINCT run_id FROM stacks").await?,
        })
    }
}

/// Newest runs per suite listed on the index; the rest are reached from the suite's series.
const INDEX_RUNS: usize = 15;

/// Builds the whole site into `out`.
pub async fn build(query: &Query, out: &Path) -> Result<BuildReport, SiteError> {
    let mut w = Writer {
        out: out.to_path_buf(),
        report: BuildReport::default(),
    };
    let css_hash = &hex::encode(Sha256::digest(CSS.as_bytes()))[..10];
    let css = format!("assets/style.{css_hash}.css");
    w.put(&css, CSS.as_bytes())?;
    w.put(".nojekyll", b"")?;

    let runs: Vec<RunRow> = query
        .rows(
            "SELECT r.run_id, r.suite, r.run_no, r.started_at, r.finished_at, r.source, r.status, \
             r.git_commit, r.git_branch, r.host, r.env_fingerprint, r.labels, t.n AS n_trials \
             FROM runs r LEFT JOIN (SELECT run_id, count(*) AS n FROM trials GROUP BY run_id) t \
             ON r.run_id = t.run_id ORDER BY r.suite, r.run_no DESC",
        )
        .await?;
    let notes: Vec<NoteRow> = query
        .rows("SELECT run_id, at, text FROM annotations ORDER BY run_id, at, text")
        .await?;
    let mut notes_by_run: BTreeMap<&str, Vec<&NoteRow>> = BTreeMap::new();
    for n in &notes {
        notes_by_run.entry(n.run_id.as_str()).or_default().push(n);
    }

    let regressions = history_pages(&mut w, query, &css, &notes_by_run).await?;
    let mut suites: Vec<SuiteView> = Vec::new();
    for r in &runs {
        if suites.last().is_none_or(|s| s.name != r.suite) {
            suites.push(SuiteView {
                name: r.suite.clone(),
                href: format!("suites/{}/index.html", slug(&r.suite)),
                runs: Vec::new(),
                more: 0,
            });
        }
        let suite = suites.last_mut().expect("pushed above");
        if suite.runs.len() >= INDEX_RUNS {
            suite.more += 1;
            continue;
        }
        let note = notes_by_run
            .get(r.run_id.as_str())
            .and_then(|v| v.last())
            .map(|n| n.text.clone());
        suites.last_mut().expect("pushed above").runs.push(RunLink {
            href: format!("runs/{}/index.html", r.run_id),
            number: format!("#{}", r.run_no),
            run_id: r.run_id.clone(),
            started: time(&r.started_at),
            source: r.source.clone(),
            status: r.status.clone(),
            trials: r.n_trials.unwrap_or(0).to_string(),
            note: note.unwrap_or_default(),
        });
    }
    w.page(
        "index.html",
        &IndexPage {
            root: String::new(),
            css: css.clone(),
            title: "perfhouse".into(),
            suites,
            regressions,
        },
    )?;

    let pre = Prefetch::load(query).await?;
    let none = Vec::new();
    for r in &runs {
        let mut page = run_page(query, r, notes_by_run.get(r.run_id.as_str()), &css, &pre).await?;
        if pre.with_cpu.contains(&r.run_id) {
            page.cpu_charts = cpu_charts(query, &r.run_id).await?;
        }
        let medians = pre.metric_medians.get(&r.run_id).unwrap_or(&none);
        if let Some(t) = transfer_page(r, medians, &css)? {
            w.page(&format!("runs/{}/transfer.html", r.run_id), &t)?;
            page.transfer = true;
        }
        let profiles = if pre.with_stacks.contains(&r.run_id) {
            load_profiles(query, &r.run_id).await?
        } else {
            Profiles::new()
        };
        for (file, bytes, view) in profile_views(&profiles)? {
            w.put(&format!("runs/{}/{file}", r.run_id), &bytes)?;
            page.profiles.push(view);
        }
        let arms = pre.arms.get(&r.run_id).map(Vec::as_slice).unwrap_or(&[]);
        for (file, mut compare) in compare_pages(query, r, arms, &css).await? {
            // Differential flamegraphs: baseline arm → this candidate, per target × kind.
            let n = file
                .trim_start_matches("compare-")
                .trim_end_matches(".html")
                .to_string();
            for (j, ((arm, target, kind), after)) in profiles.iter().enumerate() {
                if *arm != compare.candidate {
                    continue;
                }
                let Some(before) =
                    profiles.get(&(compare.baseline.clone(), target.clone(), kind.clone()))
                else {
                    continue;
                };
                let title = format!(
                    "{} → {} · {target} · {kind}",
                    compare.baseline, compare.candidate
                );
                let svg = flame::differential(&title, kind, before, after).map_err(|source| {
                    SiteError::Io {
                        path: PathBuf::from(format!("flame/diff-{n}-{j}.svg")),
                        source,
                    }
                })?;
                let rel = format!("flame/diff-{n}-{j}.svg");
                w.put(&format!("runs/{}/{rel}", r.run_id), &svg)?;
                compare.diffs.push(KeyValue {
                    key: rel,
                    value: title,
                });
            }
            page.compares.push(KeyValue {
                key: file.clone(),
                value: format!("{} vs {}", compare.baseline, compare.candidate),
            });
            w.page(&format!("runs/{}/{file}", r.run_id), &compare)?;
        }
        w.page(&format!("runs/{}/index.html", r.run_id), &page)?;
        w.report.runs += 1;
    }
    Ok(w.report)
}

/// A/B pages of a run with several arms: the arm that ran first is the baseline, each other
/// arm a candidate, through the same comparison as `perfhouse compare`.
async fn compare_pages(
    query: &Query,
    r: &RunRow,
    arms: &[String],
    css: &str,
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
        let c = compare::compare(query, a, b, &CompareOptions::default()).await?;
        let layout = ParamLayout::new(c.rows.iter().map(|row| row.params.as_str()));
        let page = ComparePage {
            root: "../../".into(),
            css: css.to_string(),
            title: format!("{} #{}: {} vs {}", r.suite, r.run_no, first.arm, cand.arm),
            suite: r.suite.clone(),
            number: format!("#{}", r.run_no),
            baseline: first.arm.clone(),
            candidate: cand.arm.clone(),
            threshold: format!("±{:.0}%", c.threshold * 100.0),
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
                    baseline: report::fmt_value(row.median_baseline),
                    candidate: report::fmt_value(row.median_candidate),
                    change: report::pct(row.ratio),
                    ci: report::ci(row),
                    p: report::p(row),
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

async fn run_page(
    query: &Query,
    r: &RunRow,
    notes: Option<&Vec<&NoteRow>>,
    css: &str,
    pre: &Prefetch,
) -> Result<RunPage, SiteError> {
    let id = lit(&r.run_id);
    let medians: Vec<MedianRow> = pre.medians.get(&r.run_id).cloned().unwrap_or_default();
    let mut metric_medians: Vec<MetricMedianRow> = pre
        .metric_medians
        .get(&r.run_id)
        .cloned()
        .unwrap_or_default();
    // Figures that restate the run's own request records (aiperf's summary) stay off the page.
    let before = metric_medians.len();
    metric_medians.retain(|m| !m.restates_requests);
    let summary_hidden = before - metric_medians.len();
    let trials: Vec<TrialRow> = pre.trials.get(&r.run_id).cloned().unwrap_or_default();
    let latencies: Vec<LatencyRow> = if !pre.with_requests.contains(&r.run_id) {
        Vec::new()
    } else {
        query
            .rows(&format!(
                "SELECT t.arm, t.params, q.latency_ns FROM requests q \
             JOIN trials t ON q.run_id = t.run_id AND q.trial_id = t.trial_id \
             WHERE q.run_id = {id} AND coalesce(q.phase, 'measured') = 'measured' \
             AND q.error_code IS NULL AND NOT q.cancelled AND q.latency_ns IS NOT NULL \
             AND t.kept"
            ))
            .await?
    };

    let mut meta = vec![
        KeyValue {
            key: "run id".into(),
            value: r.run_id.clone(),
        },
        KeyValue {
            key: "started".into(),
            value: time(&r.started_at),
        },
        KeyValue {
            key: "finished".into(),
            value: time(&r.finished_at),
        },
        KeyValue {
            key: "source".into(),
            value: r.source.clone(),
        },
        KeyValue {
            key: "status".into(),
            value: r.status.clone(),
        },
    ];
    for (key, value) in [
        ("git commit", &r.git_commit),
        ("git branch", &r.git_branch),
        ("host", &r.host),
    ] {
        if let Some(v) = value {
            meta.push(KeyValue {
                key: key.into(),
                value: v.clone(),
            });
        }
    }
    let layout = ParamLayout::new(trials.iter().map(|t| t.params.as_str()));
    if !layout.fixed.is_empty() {
        let fixed: Vec<String> = layout
            .fixed
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        meta.push(KeyValue {
            key: "params (all trials)".into(),
            value: fixed.join(" "),
        });
    }
    let mut medians = medians;
    medians.sort_by(|a, b| cmp_params(&a.params, &b.params).then_with(|| a.arm.cmp(&b.arm)));
    metric_medians.sort_by(|a, b| {
        a.name
            .cmp(&b.name)
            .then_with(|| cmp_params(&a.params, &b.params))
            .then_with(|| a.arm.cmp(&b.arm))
    });
    if r.labels != "{}" {
        meta.push(KeyValue {
            key: "labels".into(),
            value: params_text(&r.labels),
        });
    }

    // Latency CDFs: one chart per parameter set, one line per arm, over kept trials' requests.
    let mut groups: BTreeMap<&str, BTreeMap<&str, Vec<f64>>> = BTreeMap::new();
    for l in &latencies {
        groups
            .entry(&l.params)
            .or_default()
            .entry(&l.arm)
            .or_default()
            .push(l.latency_ns as f64 / 1e6);
    }
    let mut groups: Vec<_> = groups.into_iter().collect();
    groups.sort_by(|a, b| cmp_params(a.0, b.0));
    let mut charts = Vec::new();
    for (params, arms) in groups {
        let series: Vec<Series> = arms
            .into_iter()
            .map(|(arm, mut v)| Series {
                label: format!("{arm} (n={})", v.len()),
                points: charts::cdf_points(&mut v, 400),
            })
            .collect();
        let title = match layout.varying(params).as_str() {
            "—" => "Request latency CDF".to_string(),
            v => format!("Request latency CDF, {v}"),
        };
        let desc = format!(
            "Cumulative distribution of request latency in milliseconds for arms {} at {}.",
            series
                .iter()
                .map(|s| s.label.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            params_text(params)
        );
        let svg = charts::line_chart(
            &title,
            &desc,
            "request latency (ms)",
            "fraction of requests",
            &series,
        )?;
        charts.push(ChartView { svg });
    }

    Ok(RunPage {
        root: "../../".into(),
        css: css.to_string(),
        title: format!("{} #{}", r.suite, r.run_no),
        suite: r.suite.clone(),
        number: format!("#{}", r.run_no),
        meta,
        notes: notes
            .map(|v| {
                v.iter()
                    .map(|n| NoteView {
                        at: time(&n.at),
                        text: n.text.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        medians: medians
            .into_iter()
            .map(|m| MedianView {
                arm: m.arm,
                params: layout.varying(&m.params),
                n: m.n_trials.to_string(),
                figures: run_page_figures()
                    .map(|f| num(m.figures.get(f.name).and_then(|v| v.as_f64()), f.decimals))
                    .collect(),
            })
            .collect(),
        figure_labels: run_page_figures().map(|f| f.label).collect(),
        summary_hidden,
        metric_medians: metric_medians
            .into_iter()
            .map(|m| MetricMedianView {
                arm: m.arm,
                params: layout.varying(&m.params),
                name: m.name,
                unit: m.unit,
                better: m.better,
                n: m.n_trials.to_string(),
                median: num(Some(m.median), 4),
                range: format!("{} – {}", num(Some(m.min), 4), num(Some(m.max), 4)),
            })
            .collect(),
        trials: trials
            .into_iter()
            .map(|t| TrialView {
                seq: t.seq.to_string(),
                trial_id: t.trial_id.to_string(),
                arm: t.arm,
                params: layout.varying(&t.params),
                repeat: t.repeat.to_string(),
                status: t.status,
                discarded: if t.discarded {
                    t.discard_reason.unwrap_or_else(|| "yes".into())
                } else {
                    String::new()
                },
                requests: int(t.requests),
                completed: int(t.completed),
                failed: format!("{} / {}", int(t.errors), int(t.cancelled)),
                throughput_rps: num(t.throughput_rps, 2),
                latency_p50_ms: num(t.latency_p50_ms, 2),
                latency_p99_ms: num(t.latency_p99_ms, 2),
                ttft_p50_ms: num(t.ttft_p50_ms, 2),
                littles_law_ratio: num(t.littles_law_ratio, 3),
            })
            .collect(),
        charts,
        compares: Vec::new(),
        profiles: Vec::new(),
        cpu_charts: Vec::new(),
        transfer: false,
    })
}
