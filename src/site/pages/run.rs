//! Run pages (`templates/run.html`): medians, trials, CPU over time, flamegraphs, rendered from
//! rows `site::load` read (no page here issues a query).

use std::collections::BTreeMap;

use askama::Template;

use crate::model::StackKind;
use crate::query::figures::IntervalStat;

use crate::site::charts::{self, Series};
use crate::site::format::*;
use crate::site::load::*;
use crate::site::xy;
use crate::site::{SiteError, flame};
use std::path::PathBuf;

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
    /// `name` as HTML that wraps between its parts (`present::wrap_name`).
    pub name_html: String,
    pub unit: String,
    pub better: String,
    pub n: String,
    pub median: String,
    pub range: String,
    /// Its series' page (from the run's page), or empty.
    pub href: String,
    /// The change from its series' previous run ("+3.2%"), or empty (its first run).
    pub change: String,
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
pub(crate) fn run_page_figures() -> impl Iterator<Item = &'static crate::query::figures::Figure> {
    crate::query::figures::FIGURES.iter().filter(|f| f.run_page)
}

#[derive(Template)]
#[template(path = "run.html")]
pub struct RunPage {
    pub chrome: crate::site::pages::Chrome,
    pub suite: String,
    pub number: String,
    /// The suite's page from the run's.
    pub suite_href: String,
    /// Previous and next run of the suite, the commit's page.
    pub nav: crate::site::RunNav,
    pub meta: Vec<KeyValue>,
    pub notes: Vec<NoteView>,
    pub medians: Vec<MedianView>,
    /// Column headers of `medians`' figures (the registry's run-page figures).
    pub figure_labels: Vec<&'static str>,
    pub metric_medians: Vec<MetricMedianView>,
    /// aiperf summary medians left off the page (the run has the records they summarise).
    pub summary_hidden: usize,
    pub trials: Vec<TrialView>,
    /// The metric medians table shows the arm (some row is not the default arm) and the
    /// params (some row has params that vary).
    pub metric_arms: bool,
    pub metric_params: bool,
    /// ... as one card per row on a phone (any column beside name, median and change), else
    /// a plain table whose names wrap.
    pub metric_cards: bool,
    /// ... its column labels for the phone's cards ([`crate::site::pages::card_labels`]) and
    /// the column its figures start at (`num3`: the third).
    pub metric_labels: String,
    pub metric_num_from: usize,
    /// ... and n and the range (some metric has more than one trial).
    pub metric_spread: bool,
    /// ... and the change from the previous run (some series has a run before this one).
    pub metric_change: bool,
    /// ... and which way is better, where metrics differ in it (else said once above, as
    /// `better_all`).
    pub metric_better: bool,
    pub better_all: String,
    /// The trials table is shown (more than one trial, or one that did not succeed).
    pub show_trials: bool,
    /// Any trial has requests: the request and load-test columns are shown.
    pub request_columns: bool,
    pub charts: Vec<ChartView>,
    /// Links to the run's A/B pages (`compare-<arm>.html`).
    pub compares: Vec<KeyValue>,
    pub profiles: Vec<ProfileView>,
    pub cpu_charts: Vec<ChartView>,
    /// The scraped server metrics its named server figures are of, over time.
    pub server_charts: Vec<ChartView>,
    /// `transfer.html` when the run has GB/s metrics by object or page size.
    pub transfer: bool,
    /// The run sweeps load: it has a sweep page.
    pub sweep: bool,
    /// What history found about the run as a whole (a whole-run move, pending changes).
    pub findings: Vec<String>,
    /// What qualifies its figures (client-bound arms, errors, no warm-up): the validity flags
    /// of its A/B comparisons ([`run_flags`]), shown above the medians they qualify.
    pub flags: Vec<String>,
}

/// The validity flags of a run's A/B comparisons, each once (the baseline arm's are found
/// again in each comparison it is part of), in the order found.
pub fn run_flags(comparisons: &[crate::site::load::ArmComparison]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in comparisons.iter().flat_map(|(_, _, c)| &c.flags) {
        if !out.contains(f) {
            out.push(f.clone());
        }
    }
    out
}

/// Cores busy over time (sum over sampled cores) and each sampled process's cores, for the
/// last kept trial of every arm, one chart per parameter set. The figures are the view
/// `cpu_over_time`'s; this only picks trials and draws.
pub(crate) fn cpu_charts(rows: &[CpuPoint]) -> Result<Vec<ChartView>, SiteError> {
    // The last kept trial of each arm × params.
    let mut chosen: BTreeMap<(crate::model::Params, String), i64> = BTreeMap::new();
    for r in rows {
        let e = chosen
            .entry((r.params.clone(), r.arm.clone()))
            .or_insert(r.trial_id);
        *e = (*e).max(r.trial_id);
    }
    let mut per_params: BTreeMap<crate::model::Params, Vec<charts::Series>> = BTreeMap::new();
    for ((params, arm), trial) in &chosen {
        let mut busy: Vec<(f64, f64)> = Vec::new();
        let mut procs: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
        for r in rows.iter().filter(|r| r.trial_id == *trial) {
            let Some(v) = r.cores else { continue };
            let point = ((r.t_ns - r.t0) as f64 / 1e9, v);
            if r.series == "cores busy" {
                busy.push(point);
            } else {
                procs.entry(r.series.as_str()).or_default().push(point);
            }
        }
        let list = per_params.entry(params.clone()).or_default();
        if !busy.is_empty() {
            list.push(Series {
                label: format!("cores busy · {arm}"),
                points: busy,
            });
        }
        for (name, points) in procs {
            list.push(Series {
                label: format!("{name} · {arm}"),
                points,
            });
        }
    }
    let layout = ParamLayout::new(per_params.keys());
    // Numeric parameters by value (concurrency 8 before 32).
    let mut per_params: Vec<_> = per_params.into_iter().collect();
    per_params.sort_by(|a, b| cmp_params(&a.0, &b.0));
    let mut out = Vec::new();
    for (params, series) in per_params.into_iter().take(8) {
        let at = layout.varying(&params);
        let title = if at.is_empty() {
            "CPU over time".to_string()
        } else {
            format!("CPU over time · {at}")
        };
        let desc = "Cores busy (sum over sampled cores) and each sampled process's cores, per sample interval, for the last kept trial of each arm.";
        let series = series.into_iter().map(|s| (s.label, s.points)).collect();
        out.push(ChartView {
            svg: xy::lines(
                &title,
                desc,
                "seconds into the trial",
                "cores",
                series,
                &|i, _| xy::arm_colour(i),
            )
            .html(),
        });
    }
    Ok(out)
}

/// Most lines of one server-metric chart (arm × parameter sets beyond it are left out).
const SERVER_CHART_LINES: usize = 12;

/// One chart per metric the run's named server figures (`[[scrape]] figures`) are of: its
/// rate (counters, a histogram's observations), mean observation (histograms) or value
/// (gauges) per scrape interval, one line per arm × parameter set (its last kept trial), on
/// the time axis of the CPU charts. The figures are the view `scrape_over_time`'s; this only
/// picks trials and draws.
pub(crate) fn server_charts(
    r: &RunRecord,
    rows: &[ScrapePoint],
) -> Result<Vec<ChartView>, SiteError> {
    let mut last: BTreeMap<(crate::model::Params, String), i64> = BTreeMap::new();
    for row in rows {
        let e = last
            .entry((row.params.clone(), row.arm.clone()))
            .or_insert(row.trial_id);
        *e = (*e).max(row.trial_id);
    }
    let layout = ParamLayout::new(last.keys().map(|(p, _)| p));
    let named = crate::query::figures::server_figures(&crate::model::parse_params(&r.labels));
    // (metric, stat) in the order the figures name them; a histogram's quantiles are drawn
    // as its mean observation per interval.
    let mut charts: Vec<(String, IntervalStat)> = Vec::new();
    for f in &named {
        for &stat in IntervalStat::drawn_for(f.stat) {
            let key = (f.metric.clone(), stat);
            if !charts.contains(&key) && rows.iter().any(|x| x.metric == key.0 && x.stat == key.1) {
                charts.push(key);
            }
        }
    }
    let mut lines: Vec<(&(crate::model::Params, String), &i64)> = last.iter().collect();
    lines.sort_by(|a, b| cmp_params(&a.0.0, &b.0.0).then_with(|| xy::arm_order(&a.0.1, &b.0.1)));
    lines.truncate(SERVER_CHART_LINES);
    Ok(charts
        .into_iter()
        .filter_map(|(metric, stat)| server_chart(&metric, stat, &lines, rows, &layout))
        .collect())
}

/// The chart of one server metric's `stat`: a line per (params, arm) of `lines` (its last
/// kept trial) that has points; None where none has.
fn server_chart(
    metric: &str,
    stat: IntervalStat,
    lines: &[(&(crate::model::Params, String), &i64)],
    rows: &[ScrapePoint],
    layout: &ParamLayout,
) -> Option<ChartView> {
    let mut series = Vec::new();
    for &((params, arm), trial) in lines {
        let points: Vec<(f64, f64)> = rows
            .iter()
            .filter(|x| x.trial_id == *trial && x.metric == metric && x.stat == stat)
            .filter_map(|x| Some(((x.t_ns - x.t0) as f64 / 1e9, x.value?)))
            .collect();
        if points.is_empty() {
            continue;
        }
        let at = layout.varying(params);
        let label = if at.is_empty() || at == "—" {
            arm.clone()
        } else {
            format!("{arm} · {at}")
        };
        series.push((label, points));
    }
    if series.is_empty() {
        return None;
    }
    let (what, unit) = match stat {
        IntervalStat::Rate => ("per second", "/s".to_string()),
        IntervalStat::Mean => ("mean observation", unit_of(metric)),
        IntervalStat::Value => ("value", unit_of(metric)),
    };
    let title = format!("{metric} · {what}");
    let desc = format!(
        "The server's {metric} ({what}) per scrape interval, for the last kept trial of each arm and parameter set."
    );
    let y = if unit.is_empty() {
        what.to_string()
    } else {
        format!("{what} ({unit})")
    };
    Some(ChartView {
        svg: xy::lines(
            &title,
            &desc,
            "seconds into the trial",
            &y,
            series,
            &|i, _| xy::arm_colour(i),
        )
        .html(),
    })
}

/// The unit a metric's values are in, as its server figures say (`_seconds` → s).
fn unit_of(metric: &str) -> String {
    crate::query::figures::ServerFigure::parse(&format!("server.{metric}.max"))
        .map(|f| f.unit())
        .unwrap_or_default()
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
    pub kind: StackKind,
    pub unit: String,
    /// On-CPU: top self frames. Off-CPU: innermost user frames.
    pub top: Vec<ShareView>,
    /// Off-CPU only: time by what it waited for.
    pub categories: Vec<ShareView>,
}

pub(crate) fn share_views(v: Vec<flame::Share>) -> Vec<ShareView> {
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

/// Flamegraph SVGs and their views; files are numbered (names are user strings).
pub(crate) fn profile_views(
    profiles: &Profiles,
) -> Result<Vec<(String, Vec<u8>, ProfileView)>, SiteError> {
    let mut out = Vec::new();
    for (i, ((arm, target, kind), stacks)) in profiles.iter().enumerate() {
        let title = format!(
            "{arm} · {target} · {}",
            if *kind == StackKind::Offcpu {
                "off-CPU"
            } else {
                "on-CPU"
            }
        );
        let bytes = flame::svg(&title, *kind, stacks).map_err(|source| SiteError::Io {
            path: PathBuf::from(format!("flame/{i}.svg")),
            source,
        })?;
        let (top, categories) = if *kind == StackKind::Offcpu {
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
                kind: *kind,
                unit: if *kind == StackKind::Offcpu {
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

/// The run's facts at the top of its page: id, times, source, status, commit, branch, host.
fn run_meta(r: &RunRecord) -> Vec<KeyValue> {
    let once = time(&r.finished_at) == time(&r.started_at);
    let mut meta = vec![
        KeyValue {
            key: "run id".into(),
            value: r.run_id.clone(),
        },
        // An imported result has one time for both: said once.
        KeyValue {
            key: if once {
                "started and finished"
            } else {
                "started"
            }
            .into(),
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
            value: r.status.to_string(),
        },
    ];
    if once {
        meta.retain(|kv| kv.key != "finished");
    }
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
    meta
}

/// Latency CDFs: one chart per parameter set, one line per arm in the arm's colour (the same
/// on the sweep page: `site::xy::arm_order`).
fn latency_charts(latencies: Latencies, layout: &ParamLayout) -> Result<Vec<ChartView>, SiteError> {
    let mut groups: Vec<_> = latencies.into_iter().collect();
    groups.sort_by(|a, b| cmp_params(&a.0, &b.0));
    let mut arms: Vec<String> = groups.iter().flat_map(|(_, a)| a.keys().cloned()).collect();
    arms.sort_by(|a, b| xy::arm_order(a, b));
    arms.dedup();
    let mut charts = Vec::new();
    for (params, by_arm) in groups {
        let mut by_arm: Vec<(String, Vec<f64>)> = by_arm.into_iter().collect();
        by_arm.sort_by(|a, b| xy::arm_order(&a.0, &b.0));
        let colours: Vec<&'static str> = by_arm
            .iter()
            .map(|(arm, _)| xy::arm_colour(arms.iter().position(|a| a == arm).unwrap_or(0)))
            .collect();
        let series: Vec<(String, Vec<(f64, f64)>)> = by_arm
            .into_iter()
            .map(|(arm, mut v)| {
                (
                    format!("{} (n={})", arm_label(&arm), v.len()),
                    charts::cdf_points(&mut v, 400),
                )
            })
            .collect();
        let title = match layout.varying(&params).as_str() {
            "—" => "Request latency CDF".to_string(),
            v => format!("Request latency CDF, {v}"),
        };
        let desc = format!(
            "Cumulative distribution of request latency in milliseconds for arms {} at {}.",
            series
                .iter()
                .map(|s| s.0.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            params_text(&params)
        );
        let chart = xy::lines(
            &title,
            &desc,
            "request latency (ms)",
            "fraction of requests",
            series,
            &|i, _| colours[i],
        );
        charts.push(ChartView { svg: chart.html() });
    }
    Ok(charts)
}

pub(crate) fn run_page(
    r: &RunRecord,
    notes: Option<&Vec<&RunNote>>,
    css: &str,
    pre: &Prefetch,
    latencies: Latencies,
    hrefs: &crate::site::pages::series::SeriesHrefs,
    nav: &crate::site::RunNav,
) -> Result<RunPage, SiteError> {
    let mut medians: Vec<ArmFigureMedians> =
        pre.medians.get(&r.run_id).cloned().unwrap_or_default();
    let mut metric_medians: Vec<ArmMetricMedian> = pre
        .metric_medians
        .get(&r.run_id)
        .cloned()
        .unwrap_or_default();
    // Figures that restate the run's own request records (aiperf's summary) stay off the page.
    let before = metric_medians.len();
    metric_medians.retain(|m| !m.restates_requests);
    let summary_hidden = before - metric_medians.len();
    let trials: Vec<TrialSummary> = pre.trials.get(&r.run_id).cloned().unwrap_or_default();
    let layout = ParamLayout::new(trials.iter().map(|t| &t.params));
    let meta = page_meta(r, &layout);
    medians.sort_by(|a, b| cmp_params(&a.params, &b.params).then_with(|| a.arm.cmp(&b.arm)));
    metric_medians.sort_by(|a, b| {
        a.name
            .cmp(&b.name)
            .then_with(|| cmp_params(&a.params, &b.params))
            .then_with(|| a.arm.cmp(&b.arm))
    });
    let charts = latency_charts(latencies, &layout)?;
    // Per-arm figures no row has (an LLM figure in a compressor's run) are no column.
    let shown: Vec<&crate::query::figures::Figure> = run_page_figures()
        .filter(|f| medians.iter().any(|m| figure(m, f).is_some()))
        .collect();
    let columns = MetricColumns::of(&metric_medians, &layout, nav);
    Ok(RunPage {
        chrome: crate::site::pages::Chrome::new(2, css, format!("{} #{}", r.suite, r.run_no))
            .suite(&r.suite)
            .here(format!("#{}", r.run_no)),
        suite: r.suite.clone(),
        number: format!("#{}", r.run_no),
        suite_href: format!("../../{}", crate::site::pages::suite_href(&r.suite)),
        nav: nav.clone(),
        meta,
        notes: notes.map_or(Vec::new(), |v| note_views(v)),
        medians: median_views(medians, &shown, &layout),
        figure_labels: shown.iter().map(|f| f.label).collect(),
        summary_hidden,
        metric_arms: columns.arms,
        metric_params: columns.params,
        metric_cards: columns.arms || columns.params || columns.spread || columns.better,
        metric_labels: crate::site::pages::card_labels(&columns.labels()),
        metric_num_from: 2 + usize::from(columns.arms) + usize::from(columns.params),
        metric_spread: columns.spread,
        metric_change: columns.change,
        metric_better: columns.better,
        better_all: metric_medians
            .first()
            .map_or(String::new(), |m| m.better.as_str().to_string()),
        findings: nav.findings.clone(),
        metric_medians: metric_median_views(r, metric_medians, &layout, hrefs, nav),
        request_columns: trials.iter().any(|t| t.requests.is_some_and(|n| n > 0)),
        // One successful trial (an ingested asv or criterion result) has nothing to list that
        // the metadata and medians do not say.
        show_trials: trials.len() > 1
            || trials
                .iter()
                .any(|t| t.status != crate::model::TrialStatus::Ok),
        trials: trials.into_iter().map(|t| trial_view(t, &layout)).collect(),
        charts,
        compares: Vec::new(),
        profiles: Vec::new(),
        cpu_charts: Vec::new(),
        server_charts: Vec::new(),
        transfer: false,
        sweep: false,
        flags: Vec::new(),
    })
}

/// A row's value of a registry figure, where it has one.
fn figure(m: &ArmFigureMedians, f: &crate::query::figures::Figure) -> Option<f64> {
    m.figures.get(f.name).and_then(|v| v.as_f64())
}

fn note_views(notes: &[&RunNote]) -> Vec<NoteView> {
    notes
        .iter()
        .map(|n| NoteView {
            at: time(&n.at),
            text: n.text.clone(),
        })
        .collect()
}

/// The run's facts ([`run_meta`]), the params every trial shares and the run's labels.
fn page_meta(r: &RunRecord, layout: &ParamLayout) -> Vec<KeyValue> {
    let mut meta = run_meta(r);
    if !layout.fixed.is_empty() {
        let fixed: Vec<String> = layout
            .fixed
            .iter()
            .map(|(k, v)| format!("{k}={}", crate::present::param_value(k, v)))
            .collect();
        meta.push(KeyValue {
            key: "params (all trials)".into(),
            value: fixed.join(" "),
        });
    }
    if r.labels != "{}" {
        meta.push(KeyValue {
            key: "labels".into(),
            value: params_text(&crate::model::parse_params(&r.labels)),
        });
    }
    meta
}

/// The columns of the metric medians table beside name and median. Columns that would say
/// the same on every row (one arm, params that do not vary, one trial per metric, one
/// direction) are left out: 1,000 asv runs' pages stay small. A table of names and figures
/// alone (`table.figures`: the stylesheet aligns its columns, no class per cell) fits a phone;
/// any other column makes it one card per row.
struct MetricColumns {
    arms: bool,
    params: bool,
    spread: bool,
    change: bool,
    better: bool,
}

impl MetricColumns {
    fn of(rows: &[ArmMetricMedian], layout: &ParamLayout, nav: &crate::site::RunNav) -> Self {
        MetricColumns {
            arms: rows.iter().any(|m| m.arm != "default"),
            params: rows.iter().any(|m| layout.varying(&m.params) != "—"),
            spread: rows.iter().any(|m| m.n_trials > 1),
            change: !nav.changes.is_empty(),
            better: rows
                .windows(2)
                .any(|w| w[0].better.as_str() != w[1].better.as_str()),
        }
    }

    /// The columns' labels, in the template's order.
    fn labels(&self) -> Vec<&'static str> {
        let optional = |on: bool, label: &'static str| on.then_some(label);
        [
            Some("metric"),
            optional(self.arms, "arm"),
            optional(self.params, "params"),
            optional(self.spread, "n"),
            Some("median"),
            optional(self.spread, "range"),
            optional(self.change, "vs previous run"),
            optional(self.better, "better"),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// The per-arm medians table: rows without any load-test figure (an asv or criterion run:
/// scalar metrics only) say nothing the metric medians below do not.
fn median_views(
    medians: Vec<ArmFigureMedians>,
    shown: &[&crate::query::figures::Figure],
    layout: &ParamLayout,
) -> Vec<MedianView> {
    medians
        .into_iter()
        .filter(|m| run_page_figures().any(|f| figure(m, f).is_some()))
        .map(|m| MedianView {
            arm: arm_label(&m.arm),
            params: layout.varying(&m.params),
            n: m.n_trials.to_string(),
            figures: shown
                .iter()
                .map(|f| {
                    let v = figure(&m, f);
                    // Bytes as KiB/MiB/GiB: 268435456 is read as 256 MiB.
                    if f.unit == "B" {
                        crate::present::fmt_quantity(v, f.unit)
                    } else {
                        num(v, f.decimals)
                    }
                })
                .collect(),
        })
        .collect()
}

/// The metric medians table: each row links its series' page and says its change from the
/// series' previous run.
fn metric_median_views(
    r: &RunRecord,
    rows: Vec<ArmMetricMedian>,
    layout: &ParamLayout,
    hrefs: &crate::site::pages::series::SeriesHrefs,
    nav: &crate::site::RunNav,
) -> Vec<MetricMedianView> {
    rows.into_iter()
        .map(|m| MetricMedianView {
            href: hrefs
                .get(&(
                    r.suite.clone(),
                    m.name.clone(),
                    m.arm.clone(),
                    m.params.clone(),
                ))
                .map_or(String::new(), |(h, _)| format!("../../{h}")),
            change: nav.change(&m.name, &m.arm, &m.params).unwrap_or_default(),
            arm: arm_label(&m.arm),
            // None: an empty cell, which a phone's card leaves out.
            params: Some(layout.varying(&m.params))
                .filter(|p| p != "—")
                .unwrap_or_default(),
            name_html: crate::present::wrap_name(&m.name),
            name: m.name,
            unit: m.unit.clone(),
            better: m.better.as_str().to_string(),
            n: m.n_trials.to_string(),
            median: fmt_quantity(Some(m.median), &m.unit),
            // One trial has no range to show.
            range: if m.n_trials > 1 {
                format!(
                    "{} – {}",
                    fmt_quantity(Some(m.min), &m.unit),
                    fmt_quantity(Some(m.max), &m.unit)
                )
            } else {
                String::new()
            },
        })
        .collect()
}

/// One row of the trials table.
fn trial_view(t: TrialSummary, layout: &ParamLayout) -> TrialView {
    TrialView {
        seq: t.seq.to_string(),
        trial_id: t.trial_id.to_string(),
        arm: arm_label(&t.arm),
        params: layout.varying(&t.params),
        repeat: t.repeat.to_string(),
        status: t.status.to_string(),
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::RunNav;
    use crate::stats::verdict::Direction;

    fn run_row() -> RunRecord {
        RunRecord {
            run_id: "r7".into(),
            suite: "kv".into(),
            run_no: 7,
            started_at: "2026-12-01T10:00:00Z".into(),
            finished_at: "2026-12-01T10:00:00Z".into(),
            source: "asv".into(),
            status: crate::model::RunStatus::Ok,
            git_commit: Some("abc1234def".into()),
            git_branch: None,
            host: None,
            env_fingerprint: None,
            labels: "{}".into(),
            n_trials: Some(2),
        }
    }

    fn metric(name: &str, median: f64, (min, max): (f64, f64), restates: bool) -> ArmMetricMedian {
        ArmMetricMedian {
            arm: "default".into(),
            params: Default::default(),
            name: name.into(),
            unit: "ms".into(),
            better: Direction::LowerIsBetter,
            n_trials: 2,
            median,
            min,
            max,
            restates_requests: restates,
        }
    }

    fn empty_prefetch() -> Prefetch {
        Prefetch {
            medians: BTreeMap::new(),
            metric_medians: BTreeMap::new(),
            trials: BTreeMap::new(),
            arms: BTreeMap::new(),
            with_requests: Default::default(),
            with_cpu: Default::default(),
            with_scrape: Default::default(),
            with_stacks: Default::default(),
        }
    }

    fn trial(seq: i64, status: &str) -> TrialSummary {
        TrialSummary {
            trial_id: seq,
            seq,
            arm: "default".into(),
            params: Default::default(),
            repeat: seq,
            status: status.parse().expect("a trial status"),
            discarded: false,
            discard_reason: None,
            requests: None,
            completed: None,
            errors: None,
            cancelled: None,
            throughput_rps: None,
            latency_p50_ms: None,
            latency_p99_ms: None,
            ttft_p50_ms: None,
            littles_law_ratio: None,
        }
    }

    /// The page of a run of one metric over two trials, with a summary median the page
    /// leaves off, whose series moved +3.2 % from its previous run.
    fn one_metric_page() -> RunPage {
        let r = run_row();
        let mut pre = empty_prefetch();
        pre.metric_medians.insert(
            "r7".into(),
            vec![
                metric("get_latency", 1.5, (1.4, 1.6), false),
                metric("aiperf.request_latency", 9.0, (9.0, 9.0), true),
            ],
        );
        pre.trials
            .insert("r7".into(), vec![trial(1, "ok"), trial(2, "ok")]);
        let params = crate::model::Params::default();
        let mut hrefs = crate::site::pages::series::SeriesHrefs::new();
        hrefs.insert(
            (
                "kv".into(),
                "get_latency".into(),
                "default".into(),
                params.clone(),
            ),
            ("suites/kv/get.html".into(), "get_latency · default".into()),
        );
        let nav = RunNav {
            changes: vec![(
                crate::site::series_id("get_latency", "default", &params),
                0.032,
            )],
            ..RunNav::default()
        };
        run_page(&r, None, "c.css", &pre, Latencies::new(), &hrefs, &nav).unwrap()
    }

    /// The metric links its series, says its change from the previous run and its range.
    #[test]
    fn a_run_page_links_its_series_and_says_the_change() {
        let page = one_metric_page();
        let keys: Vec<&str> = page.meta.iter().map(|kv| kv.key.as_str()).collect();
        // One time for start and finish: said once.
        assert_eq!(
            keys,
            [
                "run id",
                "started and finished",
                "source",
                "status",
                "git commit"
            ]
        );
        assert_eq!(page.summary_hidden, 1);
        assert_eq!(page.metric_medians.len(), 1);
        let m = &page.metric_medians[0];
        assert_eq!(m.href, "../../suites/kv/get.html");
        assert_eq!(m.change, "+3.2%");
        assert_eq!(m.median, "1.5 ms");
        assert_eq!(m.range, "1.4 ms – 1.6 ms");
        // Two trials: n and the range are columns, so each row is a card on a phone; one arm
        // and one direction are not.
        assert!(page.metric_spread && page.metric_cards && page.metric_change);
        assert!(!page.metric_arms && !page.metric_params && !page.metric_better);
        assert_eq!(page.better_all, "lower");
        assert!(page.show_trials && !page.request_columns);
        assert!(
            page.medians.is_empty(),
            "no load-test figure: no per-arm table"
        );
        let html = page.render().unwrap();
        crate::site::pages::assert_numbers_read_well(&html);
        assert!(html.contains("<a href=\"../../suites/kv/get.html\">get_latency</a>"));
        // Labelled once on the table for the phone's cards, each row without per-cell marks.
        assert!(
            html.contains(
                "<table class=\"cards lab num2\" style=\"--c1:'metric';--c2:'n';--c3:'median';--c4:'range';--c5:'vs previous run'\">"
            ),
            "{html}"
        );
        assert!(
            html.contains("<td>1.5 ms<td>1.4 ms – 1.6 ms<td>+3.2%\n"),
            "{html}"
        );
        assert!(!html.contains("aiperf.request_latency"));
    }

    /// The page's HTML, rendered in memory, as a golden (`src/site/pages/snapshots/`; bless
    /// with `INSTA_UPDATE=always` after an intended change and review the diff).
    #[test]
    fn golden_run_page_in_memory() {
        let html = one_metric_page().render().unwrap();
        crate::site::pages::assert_numbers_read_well(&html);
        insta::assert_snapshot!("run_page", html);
    }

    /// One successful trial lists no trials table; a failed one does.
    #[test]
    fn the_trials_table_shows_only_what_the_medians_do_not() {
        let r = run_row();
        let mut pre = empty_prefetch();
        let hrefs = crate::site::pages::series::SeriesHrefs::new();
        let nav = RunNav::default();
        pre.trials.insert("r7".into(), vec![trial(1, "ok")]);
        let page = run_page(&r, None, "c.css", &pre, Latencies::new(), &hrefs, &nav).unwrap();
        assert!(!page.show_trials && !page.metric_change);
        pre.trials.insert("r7".into(), vec![trial(1, "failed")]);
        let page = run_page(&r, None, "c.css", &pre, Latencies::new(), &hrefs, &nav).unwrap();
        assert!(page.show_trials);
        assert_eq!(page.trials[0].status, "failed");
        assert_eq!(page.trials[0].failed, "— / —");
    }

    /// The validity flags of a run's A/B comparisons are said once each, above the per-arm
    /// medians they qualify.
    #[test]
    fn validity_flags_show_once_above_the_medians() {
        let mut ab = crate::report::fixture::comparison();
        ab.flags = vec!["a: no warm-up".into(), "b: b at c=8 is client-bound".into()];
        let mut ac = crate::report::fixture::comparison();
        ac.flags = vec!["a: no warm-up".into()];
        let comparisons = vec![
            ("a".to_string(), "b".to_string(), ab),
            ("a".into(), "c".into(), ac),
        ];
        assert_eq!(
            run_flags(&comparisons),
            ["a: no warm-up", "b: b at c=8 is client-bound"]
        );
        let mut page = one_metric_page();
        page.medians = vec![MedianView {
            arm: "a".into(),
            params: String::new(),
            n: "2".into(),
            figures: Vec::new(),
        }];
        page.flags = run_flags(&comparisons);
        let html = page.render().unwrap();
        crate::site::pages::assert_numbers_read_well(&html);
        let medians = html.find("<h2>Per-arm medians</h2>").unwrap();
        assert!(html.contains(
            "<details class=\"flag warning\"><summary>⚠ 2 validity flags on these figures</summary><p><a href=\"../../glossary.html#validity-flag\">What a validity flag is</a></p><ul><li>a: no warm-up</li>"
        ));
        let flag = html.find("<li>a: no warm-up</li>").unwrap();
        let table = medians + html[medians..].find("<table>").unwrap();
        assert!(medians < flag && flag < table);
        assert_eq!(html.matches("no warm-up").count(), 1);
    }
}
