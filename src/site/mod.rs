//! The static site: view models (already formatted values), askama pages, plotters charts.
//!
//! Every link is relative, so the site works under any sub-path (GitHub Pages serves it at
//! `https://org.github.io/repo/`). Output depends only on the warehouse: no build timestamps,
//! everything sorted, and files whose bytes did not change are not rewritten.

/// Open alerts listed on the index (the rest: `perfhouse alerts`, the feed).
const INDEX_ALERTS: usize = 25;

mod cache;
pub mod charts;
pub mod feed;
pub mod flame;
/// How values are written: [`crate::present`] (shared with the reports).
pub use crate::present as format;
pub mod load;
pub mod pages;
pub mod trend;
pub mod writer;

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::query::compare::CompareError;
use crate::query::{Query, QueryError};
use charts::ChartError;
use format::time;
pub use format::{ParamLayout, cmp_params, num, params_text, slug};

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

use load::*;
pub use pages::compare::*;
pub use pages::index::*;
pub use pages::run::*;
pub use pages::series::*;
pub use pages::transfer::*;
pub use writer::BuildReport;
use writer::*;

/// Newest runs per suite listed on the index; the rest are reached from the suite's series.
const INDEX_RUNS: usize = 15;

/// How to build.
#[derive(Debug, Default)]
pub struct BuildOptions {
    /// Ignore the cache a previous build left in the output (`site::cache`): render every page.
    pub full: bool,
    /// The cache of the output, being read while the warehouse opens ([`Preload::start`]).
    pub preload: Option<Preload>,
}

/// The build cache of an output directory, read on a thread of its own: a command starts it
/// before it opens the warehouse, so the two overlap.
#[derive(Debug)]
pub struct Preload(std::thread::JoinHandle<cache::Cache>);

impl Preload {
    pub fn start(out: &Path) -> Preload {
        let out = out.to_path_buf();
        Preload(std::thread::spawn(move || cache::Cache::load(&out)))
    }
}

/// The cache's folder in the output directory: not part of the site (`publish` leaves it out).
pub const CACHE_DIR: &str = cache::DIR;

/// Builds the whole site into `out`, reusing what an earlier build there rendered from the
/// same inputs.
pub async fn build(query: &Query, out: &Path) -> Result<BuildReport, SiteError> {
    build_with(query, out, BuildOptions::default()).await
}

/// Builds the whole site into `out`.
pub async fn build_with(
    query: &Query,
    out: &Path,
    opts: BuildOptions,
) -> Result<BuildReport, SiteError> {
    let mut clock = std::time::Instant::now();
    let mut cache = match (opts.full, opts.preload) {
        (true, _) => cache::Cache::default(),
        (false, Some(Preload(loading))) => loading.join().unwrap_or_default(),
        (false, None) => cache::Cache::load(out),
    };
    crate::query::trace_phase("load the build cache", &mut clock);
    let mut w = Writer {
        out: out.to_path_buf(),
        report: BuildReport::default(),
        files: Vec::new(),
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

    // Commit links, from the runs read above (the run's `commit_url` label).
    let commit_urls: BTreeMap<&str, String> = runs
        .iter()
        .filter(|r| r.labels.contains("commit_url"))
        .filter_map(|r| {
            let url = crate::model::parse_params(&r.labels).remove("commit_url")?;
            Some((r.run_id.as_str(), url))
        })
        .collect();
    // History once: the series pages, the alerts, the dashboard and the noise model read it.
    crate::query::trace_phase("runs and notes", &mut clock);
    let history = cached_history(query, &runs, &mut cache).await?;
    crate::query::trace_phase("history and change points", &mut clock);
    let (views, mut headlines) =
        history_pages(&mut w, query, &css, &notes_by_run, &commit_urls, &history).await?;
    crate::query::trace_phase("series and suite pages", &mut clock);
    w.put("feed.xml", feed::atom(&views.alerts).as_bytes())?;
    let closed = views.alerts.iter().filter(|a| !a.open).count();
    // The index lists open alerts by commit, newest first (stale ones last).
    let mut alerts: Vec<AlertView> = views.commits;
    let more_alerts = alerts.len().saturating_sub(INDEX_ALERTS);
    alerts.truncate(INDEX_ALERTS);
    let mut suites: Vec<SuiteView> = Vec::new();
    for r in &runs {
        if suites.last().is_none_or(|s| s.name != r.suite) {
            let (heads, other_series) = headlines.remove(&r.suite).unwrap_or_default();
            suites.push(SuiteView {
                name: r.suite.clone(),
                headlines: heads,
                other_series,
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
            alerts,
            more_alerts,
            closed,
        },
    )?;

    let opts = crate::query::compare::CompareOptions {
        noise: crate::query::noise::NoiseModel::from_series(query, &history).await?,
        ..Default::default()
    };
    // A run's pages are rendered again only where their inputs changed (`site::cache`).
    let arms = run_arms(query).await?;
    // Goodput and sweep pages follow the SLOs in force (a label, or `--slo` for this build).
    let slos: Vec<SloRow> = query.rows("SELECT suite, slo FROM slo").await?;
    let slo_of = |suite: &str| {
        slos.iter()
            .find(|s| s.suite == suite || s.suite == "*")
            .map_or("", |s| s.slo.as_str())
    };
    let mut stale: Vec<(&RunRow, String)> = Vec::new();
    for r in &runs {
        let key = page_key(
            r,
            notes_by_run.get(r.run_id.as_str()),
            &css,
            arms.get(&r.run_id).map_or(0, Vec::len),
            &opts.noise,
            slo_of(&r.suite),
        );
        match cache.fresh(out, &r.run_id, &key) {
            Some(cached) => {
                w.report.unchanged += cached.files.len();
                w.report.reused += 1;
                w.report.runs += 1;
            }
            None => stale.push((r, key)),
        }
    }
    crate::query::trace_phase("index, noise model and page keys", &mut clock);
    let only: Vec<&str> = stale.iter().map(|(r, _)| r.run_id.as_str()).collect();
    // By run ids even when every run is stale: `Prefetch::load` reads them a slice at a time.
    let pre = Prefetch::load(query, arms, Some(&only[..])).await?;
    crate::query::trace_phase("run page data", &mut clock);
    // Load a slice of runs (latencies in one statement for the slice), render their pages on
    // every core, write them in order: memory holds one slice's rows and pages.
    for (slice, ids) in stale
        .chunks(load::LATENCY_RUNS_PER_STATEMENT)
        .zip(only.chunks(load::LATENCY_RUNS_PER_STATEMENT))
    {
        let with: Vec<&str> = ids
            .iter()
            .copied()
            .filter(|id| pre.with_requests.contains(*id))
            .collect();
        let mut latencies = load::latencies(query, &with).await?;
        let mut loaded = Vec::with_capacity(slice.len());
        for (r, _) in slice {
            let lat = latencies.remove(&r.run_id).unwrap_or_default();
            loaded.push((*r, load::run(query, r, &pre, lat, &opts).await?));
        }
        let rendered = crate::parallel::par_map(&loaded, |(r, data)| {
            render_run(r, notes_by_run.get(r.run_id.as_str()), &css, &pre, data)
        });
        for ((r, key), files) in slice.iter().zip(rendered) {
            let first_file = w.files.len();
            for (rel, bytes) in files? {
                w.put(&rel, &bytes)?;
            }
            w.report.runs += 1;
            let files = w.files[first_file..].to_vec();
            cache.pages.insert(
                r.run_id.clone(),
                cache::RunPages {
                    key: key.clone(),
                    files,
                },
            );
        }
    }
    let live: std::collections::HashSet<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
    cache.pages.retain(|id, _| live.contains(id.as_str()));
    crate::query::trace_phase("run pages", &mut clock);
    cache.save(out)?;
    crate::query::trace_phase("save the build cache", &mut clock);
    Ok(w.report)
}

/// The files of one run's pages (relative path, bytes), in the order they are written:
/// rendered from what `load::run` read, no query issued.
fn render_run(
    r: &RunRow,
    notes: Option<&Vec<&NoteRow>>,
    css: &str,
    pre: &Prefetch,
    data: &load::RunLoad,
) -> Result<Vec<(String, Vec<u8>)>, SiteError> {
    let mut out = writer::Rendered::default();
    let dir = format!("runs/{}", r.run_id);
    let mut page = run_page(r, notes, css, pre, data.latencies.clone())?;
    page.cpu_charts = cpu_charts(&data.cpu)?;
    let none = Vec::new();
    let medians = pre.metric_medians.get(&r.run_id).unwrap_or(&none);
    if let Some(t) = transfer_page(r, medians, css)? {
        out.page(&format!("{dir}/transfer.html"), &t)?;
        page.transfer = true;
    }
    if let Some(s) = &data.sweep {
        out.page(
            &format!("{dir}/sweep.html"),
            &pages::sweep::sweep_page(s, css)?,
        )?;
        page.sweep = true;
    }
    let profiles = &data.profiles;
    for (file, bytes, view) in profile_views(profiles)? {
        out.put(&format!("{dir}/{file}"), bytes);
        page.profiles.push(view);
    }
    for (file, mut compare) in compare_pages(r, &data.comparisons, css)? {
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
            out.put(&format!("{dir}/{rel}"), svg);
            compare.diffs.push(KeyValue {
                key: rel,
                value: title,
            });
        }
        page.compares.push(KeyValue {
            key: file.clone(),
            value: format!("{} vs {}", compare.baseline, compare.candidate),
        });
        out.page(&format!("{dir}/{file}"), &compare)?;
    }
    out.page(&format!("{dir}/index.html"), &page)?;
    Ok(out.files)
}

#[derive(serde::Deserialize)]
struct SloRow {
    suite: String,
    slo: String,
}

/// The digest of what a run's pages are made of (see `site::cache`).
fn page_key(
    r: &RunRow,
    notes: Option<&Vec<&NoteRow>>,
    css: &str,
    arms: usize,
    noise: &crate::query::noise::NoiseModel,
    slo: &str,
) -> String {
    let mut h = Sha256::new();
    h.update(format!("{r:?}\n{css}\n{slo}\n").as_bytes());
    for n in notes.into_iter().flatten() {
        h.update(format!("{n:?}\n").as_bytes());
    }
    // A/B pages judge with the suite's noise model, which every new run may move.
    if arms > 1 {
        h.update(noise.digest(&r.suite).as_bytes());
    }
    hex::encode(h.finalize())
}

/// History (with change points) from the cached rows of runs seen before and the queried rows
/// of the others; the cache keeps exactly the runs of the warehouse.
async fn cached_history(
    query: &Query,
    runs: &[RunRow],
    cache: &mut cache::Cache,
) -> Result<Vec<crate::query::history::Series>, SiteError> {
    use crate::query::history;
    let missing: Vec<&str> = runs
        .iter()
        .map(|r| r.run_id.as_str())
        .filter(|id| !cache.points.contains_key(*id))
        .collect();
    let mut clock = std::time::Instant::now();
    if !missing.is_empty() {
        let only = (missing.len() < runs.len()).then_some(&missing[..]);
        if let Some(new) = only {
            // A few new runs: their figures once, for the history rows and their pages.
            query.materialize_runs(new).await?;
            crate::query::trace_phase("figures of the new runs", &mut clock);
        }
        let rows = history::point_rows(query, None, None, only).await?;
        crate::query::trace_phase("history rows of the new runs", &mut clock);
        for id in &missing {
            cache.points.insert(id.to_string(), Vec::new());
        }
        for row in rows {
            cache
                .points
                .entry(row.run_id.clone())
                .or_default()
                .push(row);
        }
    }
    let live: std::collections::HashSet<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
    cache.points.retain(|id, _| live.contains(id.as_str()));
    // What the cache saves is made now, so the rows can move into the series, not be copied.
    cache.stage_points();
    let rows = std::mem::take(&mut cache.points)
        .into_values()
        .flatten()
        .collect();
    let mut series = history::series_from_rows(query, rows).await?;
    crate::query::trace_phase("history series from rows", &mut clock);
    history::find_all_changes(&mut series, &Default::default());
    crate::query::trace_phase("change points", &mut clock);
    Ok(series)
}
