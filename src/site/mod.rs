//! The static site: view models (already formatted values), askama pages, hand-written SVG charts.
//!
//! Every link is relative, so the site works under any sub-path (GitHub Pages serves it at
//! `https://org.github.io/repo/`). Output depends only on the warehouse: no build timestamps,
//! everything sorted, and files whose bytes did not change are not rewritten.

/// Commit entries listed on the index (all of them: the alerts page).
const INDEX_ALERTS: usize = 10;

pub mod axis;
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
pub mod xy;

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::query::compare::CompareError;
use crate::query::{Query, QueryError};
use format::time;
pub use format::{ParamLayout, cmp_params, num, params_text, slug};

#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Compare(#[from] CompareError),
    #[error("rendering {page}: {source}")]
    Render { page: String, source: askama::Error },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// The site's stylesheet (also inlined into `report --format html`).
pub const CSS: &str = include_str!("../../assets/style.css");
/// The series pages' script (hover, zoom, log scale, overlays), one file per site.
pub const TREND_JS: &str = include_str!("../../assets/trend.js");

/// Where the series pages' script is written, relative to the site's root: named by its hash,
/// so a browser never runs a stale copy.
pub fn trend_js_path() -> &'static str {
    static PATH: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "assets/trend.{}.js",
            &hex::encode(Sha256::digest(TREND_JS.as_bytes()))[..10]
        )
    });
    &PATH
}

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

/// Builds the whole site into `out`: plan (the cache of an earlier build: which pages are
/// fresh), load ([`load::shared`], then the run pages' data a slice of runs at a time), render
/// (pure, on every core), write (only files whose bytes changed).
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
    let data = load::shared(query, &mut cache).await?;
    let mut w = Writer {
        out: out.to_path_buf(),
        report: BuildReport::default(),
        files: Vec::new(),
    };
    let css_hash = &hex::encode(Sha256::digest(CSS.as_bytes()))[..10];
    let css = format!("assets/style.{css_hash}.css");
    w.put(&css, CSS.as_bytes())?;
    w.put(trend_js_path(), TREND_JS.as_bytes())?;
    w.put(".nojekyll", b"")?;
    let ix = Indexes::new(&data);
    let sweeps = index_sweeps(query, &data).await?;
    let hrefs = render_overview(&mut w, &data, &ix, &sweeps, &css)?;
    crate::query::trace_phase("index, alerts, suite and series pages", &mut clock);
    build_runs(query, &mut w, &mut cache, &data, &ix, &hrefs, &css, out).await?;
    crate::query::trace_phase("run pages", &mut clock);
    cache.save(out)?;
    crate::query::trace_phase("save the build cache", &mut clock);
    w.report.removed = remove_left_over(out, &w.files)?;
    crate::query::trace_phase("remove what earlier builds left", &mut clock);
    Ok(w.report)
}

/// Removes what the last build put in `out` that this one (`put`) did not, recording first
/// both sets and then this build's alone, so a build that dies in between leaves a record
/// that still names every file to remove.
fn remove_left_over(out: &Path, put: &[String]) -> Result<usize, SiteError> {
    let earlier = cache::put_files(out);
    let kept: std::collections::HashSet<&str> = put.iter().map(String::as_str).collect();
    let left_over = || {
        earlier
            .iter()
            .map(String::as_str)
            .filter(|f| !kept.contains(f))
    };
    if left_over().next().is_some() {
        cache::record_put_files(out, put.iter().map(String::as_str).chain(left_over()))?;
    }
    let removed = writer::prune(out, &earlier, &kept)?;
    if earlier != put {
        cache::record_put_files(out, put.iter().map(String::as_str))?;
    }
    Ok(removed)
}

/// The sweep of each suite's newest run, where that run varies load: the index leads the
/// suite's section with its capacity and knee. Which newest runs vary load is read from their
/// trials' parameters in one query (`sweep::load_param`, as the run pages decide it), so the
/// sweep's own queries over `trial_figures` run only for those.
async fn index_sweeps(
    query: &Query,
    data: &Shared,
) -> Result<BTreeMap<String, crate::query::sweep::Sweep>, SiteError> {
    // Runs are by suite, newest first: the first of each suite is its newest.
    let mut seen = std::collections::BTreeSet::new();
    let newest: Vec<&RunRecord> = data
        .runs
        .iter()
        .filter(|r| seen.insert(r.suite.as_str()) && r.n_trials.unwrap_or(0) > 0)
        .collect();
    if newest.is_empty() {
        return Ok(BTreeMap::new());
    }
    #[derive(serde::Deserialize)]
    struct RunParams {
        run_id: String,
        #[serde(with = "crate::model::params_as_json")]
        params: crate::model::Params,
    }
    let ids: Vec<&str> = newest.iter().map(|r| r.run_id.as_str()).collect();
    let rows: Vec<RunParams> = query
        .rows(&format!(
            "SELECT DISTINCT run_id, params FROM trials WHERE {}",
            crate::query::runs_in("run_id", &ids)
        ))
        .await?;
    let mut out = BTreeMap::new();
    for r in newest {
        let params = rows
            .iter()
            .filter(|p| p.run_id == r.run_id)
            .map(|p| &p.params);
        if crate::query::sweep::load_param(params).is_some()
            && let Some(s) = crate::query::sweep::sweep(query, &r.run_id, None).await?
        {
            out.insert(r.suite.clone(), s);
        }
    }
    Ok(out)
}

/// Lookups over the shared data that several pages use.
struct Indexes<'a> {
    /// Run id → its notes, oldest first.
    notes: BTreeMap<&'a str, Vec<&'a RunNote>>,
    /// Run id → its `commit_url` label.
    commit_urls: BTreeMap<&'a str, String>,
    /// Run id → its `commit_message` label (the commit's first line).
    messages: BTreeMap<&'a str, String>,
    /// Run id → (previous, next) run of its suite.
    nav: BTreeMap<&'a str, (Option<&'a RunRecord>, Option<&'a RunRecord>)>,
    /// Run id → its series' change from their previous run ([`RunNav::changes`]).
    changes: BTreeMap<&'a str, Vec<(u64, f64)>>,
    /// Run id → what history found about the run as a whole ([`RunNav::findings`]).
    findings: BTreeMap<String, Vec<String>>,
}

impl<'a> Indexes<'a> {
    fn new(data: &'a Shared) -> Indexes<'a> {
        let mut notes: BTreeMap<&str, Vec<&RunNote>> = BTreeMap::new();
        for n in &data.notes {
            notes.entry(n.run_id.as_str()).or_default().push(n);
        }
        // Each run's labels are parsed once, and only where they name a commit.
        let (mut commit_urls, mut messages) = (BTreeMap::new(), BTreeMap::new());
        for r in &data.runs {
            if !r.labels.contains("commit_") {
                continue;
            }
            let mut labels = crate::model::parse_params(&r.labels);
            if let Some(url) = labels.remove("commit_url") {
                commit_urls.insert(r.run_id.as_str(), url);
            }
            if let Some(message) = labels.remove("commit_message") {
                messages.insert(r.run_id.as_str(), message);
            }
        }
        // Runs are by suite, newest first: the next run is the one before in the list.
        let mut nav = BTreeMap::new();
        for (i, r) in data.runs.iter().enumerate() {
            let same = |j: Option<usize>| {
                j.and_then(|j| data.runs.get(j))
                    .filter(|o: &&RunRecord| o.suite == r.suite)
            };
            nav.insert(
                r.run_id.as_str(),
                (same(Some(i + 1)), same(i.checked_sub(1))),
            );
        }
        // Each point of each series against the point before it.
        // 24 bytes a point (a series' stable id and the ratio), not the series' names: the
        // history of a 30,000-run build stays the largest thing held.
        let mut changes: BTreeMap<&str, Vec<(u64, f64)>> = BTreeMap::new();
        for s in &data.history {
            let id = series_id(&s.metric, &s.arm, &s.params);
            for w in s.points.windows(2) {
                let (before, now) = (w[0].value, w[1].value);
                if before != 0.0 && before.is_finite() && now.is_finite() {
                    changes
                        .entry(w[1].run_id.as_str())
                        .or_default()
                        .push((id, now / before - 1.0));
                }
            }
        }
        for v in changes.values_mut() {
            v.sort_by_key(|c| c.0);
        }
        Indexes {
            notes,
            commit_urls,
            messages,
            nav,
            changes,
            findings: run_findings(&data.history),
        }
    }
}

/// The pages over the whole history: suites and series, the alerts page, the feed and the
/// index. Returns each series' page for the run pages to link to.
fn render_overview(
    w: &mut Writer,
    data: &Shared,
    ix: &Indexes,
    sweeps: &BTreeMap<String, crate::query::sweep::Sweep>,
    css: &str,
) -> Result<pages::series::SeriesHrefs, SiteError> {
    let (hrefs, mut headlines) = pages::series::history_pages(
        w,
        css,
        &pages::series::RunFacts {
            notes: &ix.notes,
            commit_urls: &ix.commit_urls,
            messages: &ix.messages,
        },
        &data.history,
        &data.alerts,
    )?;
    let entries = |alerts: &[crate::query::alerts::Alert]| {
        crate::query::alerts::by_commit(alerts, &data.history)
            .into_iter()
            .map(|c| {
                let href = pages::commit_href(&ix.commit_urls, &c.run_id, c.git_commit.as_deref());
                pages::alerts::commit_entry(c, &hrefs, href)
            })
            .collect::<Vec<_>>()
    };
    // The feed: every commit entry, open or triaged (a triage updates its entry).
    w.put("feed.xml", feed::atom(&entries(&data.alerts)).as_bytes())?;
    let open: Vec<crate::query::alerts::Alert> = data
        .alerts
        .iter()
        .filter(|a| a.state.is_open())
        .cloned()
        .collect();
    let closed = data.alerts.len() - open.len();
    let page = pages::alerts::alerts_page(entries(&open), css, closed);
    w.page("alerts.html", &page)?;
    w.page("glossary.html", &pages::glossary::glossary_page(css))?;
    // The index leads with the newest relevant entries that are not stale: the alerts page's
    // first section, newest first already.
    let listed = page.sections.iter().map(|s| s.entries.len()).sum::<usize>();
    let mut latest = page
        .sections
        .into_iter()
        .find(|s| s.id == "relevant")
        .map_or_else(Vec::new, |s| s.entries);
    let more = listed.saturating_sub(INDEX_ALERTS.min(latest.len()));
    latest.truncate(INDEX_ALERTS);
    let (suites, all_runs) = suite_views(data, ix, sweeps, &mut headlines);
    for (suite, runs) in all_runs {
        let dir = pages::suite_dir(&suite);
        for (file, page) in pages::runs::runs_pages(&suite, runs, css) {
            w.page(&format!("{dir}/{file}"), &page)?;
        }
    }
    w.page(
        "index.html",
        &IndexPage {
            chrome: pages::Chrome::new(0, css, "perfhouse"),
            suites,
            newest: pages::index::newest_of(&latest),
            latest,
            entries: listed,
            more,
            closed,
        },
    )?;
    Ok(hrefs)
}

/// The index's suites (a sweep's capacity and knee, headlines and the newest runs of each), and
/// every run of each suite (its runs pages).
fn suite_views(
    data: &Shared,
    ix: &Indexes,
    sweeps: &BTreeMap<String, crate::query::sweep::Sweep>,
    headlines: &mut pages::series::Headlines,
) -> (Vec<SuiteView>, BTreeMap<String, Vec<RunLink>>) {
    let mut suites: Vec<SuiteView> = Vec::new();
    let mut all: BTreeMap<String, Vec<RunLink>> = BTreeMap::new();
    for r in &data.runs {
        if suites.last().is_none_or(|s| s.name != r.suite) {
            let (heads, other_series) = headlines.remove(&r.suite).unwrap_or_default();
            suites.push(SuiteView {
                name: r.suite.clone(),
                headlines: heads,
                other_series,
                href: pages::suite_href(&r.suite),
                sweep: sweeps.get(&r.suite).map(pages::index::sweep_lead),
                runs_href: format!("{}/runs.html", pages::suite_dir(&r.suite)),
                runs: Vec::new(),
                more: 0,
            });
        }
        let suite = suites.last_mut().expect("pushed above");
        let note = ix
            .notes
            .get(r.run_id.as_str())
            .and_then(|v| v.last())
            .map(|n| n.text.clone());
        let link = RunLink {
            href: pages::run_href(&r.run_id),
            number: format!("#{}", r.run_no),
            run_id: r.run_id.clone(),
            started: time(&r.started_at),
            source: r.source.clone(),
            status: r.status.to_string(),
            trials: r.n_trials.unwrap_or(0).to_string(),
            note: note.unwrap_or_default(),
            commit: crate::present::short_commit(&r.git_commit),
            commit_href: pages::commit_href(&ix.commit_urls, &r.run_id, r.git_commit.as_deref()),
        };
        if suite.runs.len() < INDEX_RUNS {
            suite.runs.push(link.clone());
        } else {
            suite.more += 1;
        }
        all.entry(r.suite.clone()).or_default().push(link);
    }
    (suites, all)
}

/// The run pages: those whose inputs changed since the cached build are loaded a slice of
/// runs at a time (latencies in one statement per slice), rendered on every core and written
/// in order, so memory holds one slice's rows and pages.
#[allow(clippy::too_many_arguments)]
async fn build_runs(
    query: &Query,
    w: &mut Writer,
    cache: &mut cache::Cache,
    data: &Shared,
    ix: &Indexes<'_>,
    hrefs: &pages::series::SeriesHrefs,
    css: &str,
    out: &Path,
) -> Result<(), SiteError> {
    let mut clock = std::time::Instant::now();
    let stale = stale_runs(w, cache, data, ix, css, out);
    crate::query::trace_phase("page keys", &mut clock);
    let only: Vec<&str> = stale.iter().map(|(r, _, _)| r.run_id.as_str()).collect();
    let arms = only
        .iter()
        .filter_map(|id| Some((id.to_string(), data.arms.get(*id)?.clone())))
        .collect();
    // By run ids even when every run is stale: `Prefetch::load` reads them a slice at a time.
    let pre = Prefetch::load(query, arms, Some(&only[..])).await?;
    crate::query::trace_phase("run page data", &mut clock);
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
        for (r, _, nav) in slice {
            let lat = latencies.remove(&r.run_id).unwrap_or_default();
            loaded.push((
                *r,
                nav,
                load::run(query, r, &pre, lat, &data.compare).await?,
            ));
        }
        let rendered = crate::parallel::par_map(&loaded, |(r, nav, data)| {
            let notes = ix.notes.get(r.run_id.as_str());
            render_run(r, notes, css, &pre, data, nav, hrefs)
        });
        for ((r, key, _), files) in slice.iter().zip(rendered) {
            write_run(w, cache, r, key, files?)?;
        }
    }
    let live: std::collections::HashSet<&str> =
        data.runs.iter().map(|r| r.run_id.as_str()).collect();
    cache.pages.retain(|id, _| live.contains(id.as_str()));
    Ok(())
}

/// The runs whose pages must be rendered again (their inputs changed since the cached build),
/// with each one's cache key and links; the rest count as reused.
fn stale_runs<'a>(
    w: &mut Writer,
    cache: &cache::Cache,
    data: &'a Shared,
    ix: &Indexes<'_>,
    css: &str,
    out: &Path,
) -> Vec<(&'a RunRecord, String, RunNav)> {
    let mut stale = Vec::new();
    for r in &data.runs {
        let nav = run_nav(r, ix);
        let key = page_key(
            r,
            ix.notes.get(r.run_id.as_str()),
            css,
            data.arms.get(&r.run_id).map_or(0, Vec::len),
            &data.compare.noise,
            data.slo_of(&r.suite),
            &nav,
        );
        match cache.fresh(out, &r.run_id, &key) {
            Some(cached) => {
                w.report.unchanged += cached.files.len();
                w.files.extend(cached.files.iter().cloned());
                w.report.reused += 1;
                w.report.runs += 1;
            }
            None => stale.push((r, key, nav)),
        }
    }
    stale
}

/// Writes one run's rendered files and keeps them in the cache under its key.
fn write_run(
    w: &mut Writer,
    cache: &mut cache::Cache,
    r: &RunRecord,
    key: &str,
    files: Vec<(String, Vec<u8>)>,
) -> Result<(), SiteError> {
    let first_file = w.files.len();
    for (rel, bytes) in files {
        w.put(&rel, &bytes)?;
    }
    w.report.runs += 1;
    let files = w.files[first_file..].to_vec();
    cache.pages.insert(
        r.run_id.clone(),
        cache::RunPages {
            key: key.to_string(),
            files,
        },
    );
    Ok(())
}

/// A run page's links beside its own: the previous and next run of its suite, its commit.
#[derive(Debug, Default, Clone)]
pub struct RunNav {
    /// (href from the run's page, "#n")
    pub prev: Option<(String, String)>,
    pub next: Option<(String, String)>,
    /// The commit's page (the run's `commit_url` label + the commit), or empty.
    pub commit_href: String,
    /// Each of the run's series ([`series_id`]) and its change from the series' previous run
    /// (0.032: +3.2 %), by id. Part of the page's cache key: a run ingested between two others
    /// moves it.
    pub changes: Vec<(u64, f64)>,
    /// What history found about the run as a whole: a whole-run move (`query::whole_run`),
    /// the series whose pending change starts here.
    pub findings: Vec<String>,
}

/// Per run, what history found about it as a whole, in words: its whole-run move (pending,
/// stayed or came back), and how many series have a pending change from it.
fn run_findings(history: &[crate::query::history::Series]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for w in crate::query::whole_run::find(history) {
        out.entry(w.run_id.clone()).or_default().push(w.text());
    }
    let mut pending: BTreeMap<&str, Vec<&crate::query::history::Series>> = BTreeMap::new();
    for s in history {
        if let Some(p) = &s.pending {
            pending.entry(p.run_id.as_str()).or_default().push(s);
        }
    }
    for (run, list) in pending {
        let names: Vec<String> = list
            .iter()
            .take(3)
            .filter_map(|s| {
                let p = s.pending.as_ref()?;
                Some(format!(
                    "{} {} ({})",
                    s.metric,
                    crate::present::signed_pct(p.magnitude),
                    p.evidence.text()
                ))
            })
            .collect();
        out.entry(run.to_string()).or_default().push(format!(
            "{} series moved beyond their noise from this run on, not change points yet (pending, confirmed by the next runs): {}{}",
            list.len(),
            names.join("; "),
            if list.len() > 3 { "; …" } else { "" }
        ));
    }
    out
}

impl RunNav {
    /// The change of the series (metric, arm, params) from its previous run, "+3.2%".
    pub fn change(&self, metric: &str, arm: &str, params: &crate::model::Params) -> Option<String> {
        let id = series_id(metric, arm, params);
        let i = self.changes.binary_search_by_key(&id, |c| c.0).ok()?;
        Some(crate::present::signed_pct(self.changes[i].1))
    }
}

/// A series' id that stays the same from build to build (the first 8 bytes of a SHA-256 of its
/// metric, arm and params): what a run page's cache key holds of it.
pub fn series_id(metric: &str, arm: &str, params: &crate::model::Params) -> u64 {
    let mut h = Sha256::new();
    h.update(metric.as_bytes());
    h.update([0]);
    h.update(arm.as_bytes());
    h.update([0]);
    h.update(crate::model::params_json(params).as_bytes());
    let d = h.finalize();
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

fn run_nav(r: &RunRecord, ix: &Indexes) -> RunNav {
    let link = |o: &RunRecord| {
        (
            format!("../{}/index.html", o.run_id),
            format!("#{}", o.run_no),
        )
    };
    let (prev, next) = ix.nav.get(r.run_id.as_str()).copied().unwrap_or_default();
    RunNav {
        prev: prev.map(link),
        next: next.map(link),
        commit_href: pages::commit_href(&ix.commit_urls, &r.run_id, r.git_commit.as_deref()),
        changes: ix
            .changes
            .get(r.run_id.as_str())
            .cloned()
            .unwrap_or_default(),
        findings: ix.findings.get(&r.run_id).cloned().unwrap_or_default(),
    }
}

/// The files of one run's pages (relative path, bytes), in the order they are written:
/// rendered from what `load::run` read, no query issued.
fn render_run(
    r: &RunRecord,
    notes: Option<&Vec<&RunNote>>,
    css: &str,
    pre: &Prefetch,
    data: &load::RunLoad,
    nav: &RunNav,
    hrefs: &pages::series::SeriesHrefs,
) -> Result<Vec<(String, Vec<u8>)>, SiteError> {
    let mut out = writer::Rendered::default();
    let dir = format!("runs/{}", r.run_id);
    let mut page = run_page(r, notes, css, pre, data.latencies.clone(), hrefs, nav)?;
    page.cpu_charts = cpu_charts(&data.cpu)?;
    page.server_charts = server_charts(r, &data.scrape)?;
    page.flags = pages::run::run_flags(&data.comparisons);
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
            let Some(before) = profiles.get(&(compare.baseline.clone(), target.clone(), *kind))
            else {
                continue;
            };
            let title = format!(
                "{} → {} · {target} · {kind}",
                compare.baseline, compare.candidate
            );
            let svg = flame::differential(&title, *kind, before, after).map_err(|source| {
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

/// The digest of what a run's pages are made of (see `site::cache`).
fn page_key(
    r: &RunRecord,
    notes: Option<&Vec<&RunNote>>,
    css: &str,
    arms: usize,
    noise: &crate::query::noise::NoiseModel,
    slo: &str,
    nav: &RunNav,
) -> String {
    let mut h = Sha256::new();
    h.update(format!("{r:?}\n{css}\n{slo}\n{nav:?}\n").as_bytes());
    for n in notes.into_iter().flatten() {
        h.update(format!("{n:?}\n").as_bytes());
    }
    // A/B pages judge with the suite's noise model, which every new run may move.
    if arms > 1 {
        h.update(noise.digest(&r.suite).as_bytes());
    }
    hex::encode(h.finalize())
}

#[cfg(test)]
mod run_nav_tests {
    use super::*;

    #[test]
    fn a_run_page_finds_each_series_change_by_its_stable_id() {
        let p = |k: &str, v: &str| crate::model::Params::from([(k.to_string(), v.to_string())]);
        let a = series_id("latency", "base", &p("c", "8"));
        // Any part of the key makes another series; the id does not depend on the build.
        assert_ne!(a, series_id("latency", "base", &p("c", "32")));
        assert_ne!(a, series_id("latency", "cand", &p("c", "8")));
        assert_ne!(a, series_id("latenc", "ybase", &p("c", "8")));
        assert_eq!(a, series_id("latency", "base", &p("c", "8")));
        let mut changes = vec![(a, 0.032), (series_id("rss", "base", &p("c", "8")), -0.5)];
        changes.sort_by_key(|c| c.0);
        let nav = RunNav {
            changes,
            ..RunNav::default()
        };
        assert_eq!(
            nav.change("latency", "base", &p("c", "8")).as_deref(),
            Some("+3.2%")
        );
        assert_eq!(
            nav.change("rss", "base", &p("c", "8")).as_deref(),
            Some("-50.0%")
        );
        assert_eq!(nav.change("rss", "base", &p("c", "32")), None);
    }
}
