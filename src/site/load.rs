//! Every query the site issues, and the row types the views give back: [`shared`] reads what
//! the index, alerts, suite and series pages and the feed show (and what every run page
//! shares), [`Prefetch`] and [`run`] what run pages show, a slice of runs at a time. The pages
//! render from these owned values; nothing below `site::pages` holds a `Query`.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::query::Query;
use crate::site::SiteError;

// ---- rows read from the views -------------------------------------------------------------

#[derive(Debug, Deserialize)]
pub(crate) struct RunRecord {
    pub(crate) run_id: String,
    pub(crate) suite: String,
    pub(crate) run_no: u64,
    pub(crate) started_at: String,
    pub(crate) finished_at: String,
    pub(crate) source: String,
    pub(crate) status: crate::model::RunStatus,
    pub(crate) git_commit: Option<String>,
    pub(crate) git_branch: Option<String>,
    pub(crate) host: Option<String>,
    pub(crate) env_fingerprint: Option<String>,
    pub(crate) labels: String,
    pub(crate) n_trials: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct TrialSummary {
    pub(crate) trial_id: i64,
    pub(crate) seq: i64,
    pub(crate) arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub(crate) params: crate::model::Params,
    pub(crate) repeat: i64,
    pub(crate) status: crate::model::TrialStatus,
    pub(crate) discarded: bool,
    pub(crate) discard_reason: Option<String>,
    pub(crate) requests: Option<i64>,
    pub(crate) completed: Option<i64>,
    pub(crate) errors: Option<i64>,
    pub(crate) cancelled: Option<i64>,
    pub(crate) throughput_rps: Option<f64>,
    pub(crate) latency_p50_ms: Option<f64>,
    pub(crate) latency_p99_ms: Option<f64>,
    pub(crate) ttft_p50_ms: Option<f64>,
    pub(crate) littles_law_ratio: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ArmFigureMedians {
    pub(crate) arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub(crate) params: crate::model::Params,
    pub(crate) n_trials: i64,
    /// The registry's figures (`query::figures`), by column name.
    #[serde(flatten)]
    pub(crate) figures: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ArmMetricMedian {
    pub(crate) arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub(crate) params: crate::model::Params,
    pub(crate) name: String,
    pub(crate) unit: String,
    pub(crate) better: crate::stats::verdict::Direction,
    pub(crate) n_trials: i64,
    pub(crate) median: f64,
    pub(crate) min: f64,
    pub(crate) max: f64,
    pub(crate) restates_requests: bool,
}

#[derive(Debug, Deserialize)]
pub(crate) struct SuiteSlo {
    pub(crate) suite: String,
    pub(crate) slo: String,
}

/// What the whole site shares, read once.
pub(crate) struct Shared {
    /// Every run, by suite, newest first.
    pub(crate) runs: Vec<RunRecord>,
    /// Annotations, by run and time.
    pub(crate) notes: Vec<RunNote>,
    /// History with change points (cached rows of runs seen before, queried for the rest).
    pub(crate) history: Vec<crate::query::history::Series>,
    /// Every alert (change points and triaged ones), open first.
    pub(crate) alerts: Vec<crate::query::alerts::Alert>,
    /// How A/B pages judge: with the noise model of the history.
    pub(crate) compare: crate::query::compare::CompareOptions,
    /// Arms of each run in order of first execution.
    pub(crate) arms: BTreeMap<String, Vec<String>>,
    /// The SLOs in force (a label, or `--slo` for this build).
    pub(crate) slos: Vec<SuiteSlo>,
}

impl Shared {
    /// The SLOs of `suite` (its own, else the `*` entry), or empty.
    pub(crate) fn slo_of(&self, suite: &str) -> &str {
        self.slos
            .iter()
            .find(|s| s.suite == suite || s.suite == "*")
            .map_or("", |s| s.slo.as_str())
    }
}

/// Reads what the whole site shares; `cache` gives the history rows of runs seen before and
/// keeps those of the rest.
pub(crate) async fn shared(
    query: &Query,
    cache: &mut crate::site::cache::Cache,
) -> Result<Shared, SiteError> {
    let mut clock = std::time::Instant::now();
    let runs: Vec<RunRecord> = query
        .rows(
            "SELECT r.run_id, r.suite, r.run_no, r.started_at, r.finished_at, r.source, r.status, \
             r.git_commit, r.git_branch, r.host, r.env_fingerprint, r.labels, t.n AS n_trials \
             FROM runs r LEFT JOIN (SELECT run_id, count(*) AS n FROM trials GROUP BY run_id) t \
             ON r.run_id = t.run_id ORDER BY r.suite, r.run_no DESC",
        )
        .await?;
    let notes: Vec<RunNote> = query
        .rows("SELECT run_id, at, text FROM annotations ORDER BY run_id, at, text")
        .await?;
    crate::query::trace_phase("runs and notes", &mut clock);
    let history = cached_history(query, &runs, cache).await?;
    crate::query::trace_phase("history and change points", &mut clock);
    let alerts = crate::query::alerts::alerts(query, &history).await?;
    let noise = crate::query::noise::NoiseModel::from_series(query, &history).await?;
    let arms = run_arms(query).await?;
    let slos: Vec<SuiteSlo> = query.rows("SELECT suite, slo FROM slo").await?;
    crate::query::trace_phase("alerts, noise model, arms and SLOs", &mut clock);
    Ok(Shared {
        runs,
        notes,
        history,
        alerts,
        compare: crate::query::compare::CompareOptions {
            noise,
            ..Default::default()
        },
        arms,
        slos,
    })
}

/// Runs per statement of the history rows of a build that has none of them cached: the
/// figures of a run are its own, so a slice at a time gives the same rows while a statement
/// holds one slice's request values (every request of 10,000 runs at once was most of a full
/// build's peak memory).
const HISTORY_RUNS_PER_STATEMENT: usize = 500;

/// History (with change points) from the cached rows of runs seen before and the queried rows
/// of the others; the cache keeps exactly the runs of the warehouse.
async fn cached_history(
    query: &Query,
    runs: &[RunRecord],
    cache: &mut crate::site::cache::Cache,
) -> Result<Vec<crate::query::history::Series>, SiteError> {
    use crate::query::history;
    let missing: Vec<&str> = runs
        .iter()
        .map(|r| r.run_id.as_str())
        .filter(|id| !cache.points.contains_key(*id))
        .collect();
    let mut clock = std::time::Instant::now();
    if !missing.is_empty() {
        let mut rows = Vec::new();
        if missing.len() <= HISTORY_RUNS_PER_STATEMENT && missing.len() < runs.len() {
            // A few new runs: their figures once, for the history rows and their pages.
            query.materialize_runs(&missing).await?;
            crate::query::trace_phase("figures of the new runs", &mut clock);
            rows = history::point_rows(query, None, None, Some(&missing)).await?;
        } else if missing.len() <= HISTORY_RUNS_PER_STATEMENT {
            rows = history::point_rows(query, None, None, None).await?;
        } else {
            for slice in missing.chunks(HISTORY_RUNS_PER_STATEMENT) {
                rows.extend(history::point_rows(query, None, None, Some(slice)).await?);
            }
        }
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
    // The runs' labels are loaded already: no query for the plans.
    let pending: std::collections::HashSet<&str> =
        history::pending_newest(&series).into_iter().collect();
    let plans: BTreeMap<String, String> = runs
        .iter()
        .filter(|r| pending.contains(r.run_id.as_str()))
        .filter_map(|r| Some((r.run_id.clone(), history::plan_label(&r.labels)?)))
        .collect();
    history::give_reruns(&mut series, &plans);
    crate::query::trace_phase("change points", &mut clock);
    Ok(series)
}

#[derive(Debug, Deserialize)]
pub(crate) struct RunNote {
    pub(crate) run_id: String,
    pub(crate) at: String,
    pub(crate) text: String,
}

/// A run's completed request latencies (ms) over its kept trials, by parameter set and arm:
/// what its latency CDFs are drawn from.
pub(crate) type Latencies = BTreeMap<crate::model::Params, BTreeMap<String, Vec<f64>>>;

/// Runs per statement of [`latencies`]: a statement's rows are every request of its runs.
pub(crate) const LATENCY_RUNS_PER_STATEMENT: usize = 50;

/// The entry of `key`, made on first use: a key is copied once, not once per row.
fn slot<'a, V: Default>(map: &'a mut BTreeMap<String, V>, key: &str) -> &'a mut V {
    if !map.contains_key(key) {
        map.insert(key.to_string(), V::default());
    }
    map.get_mut(key).expect("inserted above")
}

/// [`Latencies`] of the runs `ids`, in one statement, decoded from the Arrow columns directly
/// (one row per request: 100 million of them as JSON rows would cost more than the query).
pub(crate) async fn latencies(
    query: &Query,
    ids: &[&str],
) -> Result<BTreeMap<String, Latencies>, SiteError> {
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::arrow::datatypes::{DataType, Int64Type};
    if ids.is_empty() {
        return Ok(BTreeMap::new());
    }
    let batches = query
        .sql(&format!(
            "SELECT q.run_id, t.arm, t.params, q.latency_ns FROM measured_requests q \
             JOIN trials t ON q.run_id = t.run_id AND q.trial_id = t.trial_id \
             WHERE {} AND q.completed AND q.latency_ns IS NOT NULL AND t.kept",
            crate::query::runs_in("q.run_id", ids)
        ))
        .await?;
    // run → params (as stored) → arm → latencies; params are parsed once per distinct text.
    let mut by_text: BTreeMap<String, BTreeMap<String, BTreeMap<String, Vec<f64>>>> =
        BTreeMap::new();
    let utf8 = |a: &datafusion::arrow::array::ArrayRef| {
        datafusion::arrow::compute::cast(a, &DataType::Utf8)
            .map_err(|e| SiteError::from(crate::query::QueryError::Decode(e.to_string())))
    };
    for b in &batches {
        let (runs, arms, params) = (utf8(b.column(0))?, utf8(b.column(1))?, utf8(b.column(2))?);
        let (runs, arms, params) = (
            runs.as_string::<i32>(),
            arms.as_string::<i32>(),
            params.as_string::<i32>(),
        );
        let lat = b.column(3).as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            if lat.is_null(i) {
                continue;
            }
            let run = slot(&mut by_text, runs.value(i));
            let set = slot(run, params.value(i));
            slot(set, arms.value(i)).push(lat.value(i) as f64 / 1e6);
        }
    }
    Ok(by_text
        .into_iter()
        .map(|(run, sets)| {
            let mut out = Latencies::new();
            for (text, arms) in sets {
                let merged = out.entry(crate::model::parse_params(&text)).or_default();
                for (arm, mut v) in arms {
                    merged.entry(arm).or_default().append(&mut v);
                }
            }
            (run, out)
        })
        .collect())
}

/// What every run page needs, read in a few queries for the whole warehouse instead of a
/// dozen per run (a 1,000-run asv history would otherwise cost ~10,000 queries).
pub(crate) struct Prefetch {
    pub(crate) medians: BTreeMap<String, Vec<ArmFigureMedians>>,
    pub(crate) metric_medians: BTreeMap<String, Vec<ArmMetricMedian>>,
    pub(crate) trials: BTreeMap<String, Vec<TrialSummary>>,
    /// Arms of each run in order of first execution.
    pub(crate) arms: BTreeMap<String, Vec<String>>,
    pub(crate) with_requests: std::collections::HashSet<String>,
    pub(crate) with_cpu: std::collections::HashSet<String>,
    /// Runs with scraped server metrics (`[[scrape]]`).
    pub(crate) with_scrape: std::collections::HashSet<String>,
    pub(crate) with_stacks: std::collections::HashSet<String>,
}

#[derive(Deserialize)]
pub(crate) struct Keyed<T> {
    pub(crate) run_id: String,
    #[serde(flatten)]
    pub(crate) row: T,
}

#[derive(Deserialize)]
pub(crate) struct RunArm {
    pub(crate) run_id: String,
    pub(crate) arm: String,
}

#[derive(Deserialize)]
pub(crate) struct RunOnly {
    pub(crate) run_id: String,
}

pub(crate) async fn grouped<T: serde::de::DeserializeOwned>(
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

pub(crate) async fn ids(
    query: &Query,
    sql: &str,
) -> Result<std::collections::HashSet<String>, SiteError> {
    let rows: Vec<RunOnly> = query.rows(sql).await?;
    Ok(rows.into_iter().map(|r| r.run_id).collect())
}

/// Arms of each run in order of first execution.
pub(crate) async fn run_arms(query: &Query) -> Result<BTreeMap<String, Vec<String>>, SiteError> {
    let arm_rows: Vec<RunArm> = query
        .rows("SELECT run_id, arm FROM trials GROUP BY run_id, arm ORDER BY run_id, min(seq), arm")
        .await?;
    let mut arms: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for a in arm_rows {
        arms.entry(a.run_id).or_default().push(a.arm);
    }
    Ok(arms)
}

/// Runs per statement of [`Prefetch::load`]: the figures are per run, so reading them a slice
/// of runs at a time gives the same rows while bounding what a statement holds (each trial's
/// quantiles keep every request's values until the trial is done: over 10,000 runs of 10,000
/// requests in one statement that was ~12 GB).
const RUNS_PER_STATEMENT: usize = 1000;

impl Prefetch {
    /// Reads what the pages of the runs `only` need (every run's where `None`).
    pub(crate) async fn load(
        query: &Query,
        arms: BTreeMap<String, Vec<String>>,
        only: Option<&[&str]>,
    ) -> Result<Prefetch, SiteError> {
        let mut pre = Prefetch {
            medians: BTreeMap::new(),
            metric_medians: BTreeMap::new(),
            trials: BTreeMap::new(),
            arms,
            with_requests: Default::default(),
            with_cpu: Default::default(),
            with_scrape: Default::default(),
            with_stacks: Default::default(),
        };
        // (filter, the runs it keeps)
        let filters: Vec<(String, Option<&[&str]>)> = match only {
            None => vec![(String::new(), None)],
            Some([]) => vec![(" WHERE false".to_string(), None)],
            Some(ids) => ids
                .chunks(RUNS_PER_STATEMENT)
                .map(|chunk| {
                    (
                        format!(" WHERE {}", crate::query::runs_in("run_id", chunk)),
                        Some(chunk),
                    )
                })
                .collect(),
        };
        for (f, runs) in &filters {
            pre.load_slice(query, f, *runs).await?;
        }
        Ok(pre)
    }

    /// Adds the rows of the runs filter `f` keeps (`runs`: those runs, where it names them).
    async fn load_slice(
        &mut self,
        query: &Query,
        f: &str,
        runs: Option<&[&str]>,
    ) -> Result<(), SiteError> {
        let select = |view, order| {
            format!(
                "SELECT * FROM {}{f} ORDER BY run_id, {order}",
                query.relation(view, runs)
            )
        };
        let medians = select("arm_medians", "params, arm");
        self.medians.extend(grouped(query, &medians).await?);
        let metric_medians = select("metric_medians", "name, params, arm");
        self.metric_medians
            .extend(grouped(query, &metric_medians).await?);
        let trials = select("trial_figures", "seq, trial_id");
        self.trials.extend(grouped(query, &trials).await?);
        for (table, runs) in [
            ("requests", &mut self.with_requests),
            ("cpu_samples", &mut self.with_cpu),
            ("stacks", &mut self.with_stacks),
            ("scrape_samples", &mut self.with_scrape),
        ] {
            let sql = format!("SELECT DISTINCT run_id FROM {table}{f}");
            runs.extend(ids(query, &sql).await?);
        }
        Ok(())
    }
}

// ---- one run's rows ---------------------------------------------------------------------------

#[derive(Deserialize)]
pub(crate) struct CpuPoint {
    pub(crate) trial_id: i64,
    pub(crate) arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub(crate) params: crate::model::Params,
    pub(crate) t_ns: i64,
    /// `cores busy` or a sampled process's name (view `cpu_over_time`).
    pub(crate) series: String,
    pub(crate) cores: Option<f64>,
    /// The trial's first sample: time 0 of its chart.
    pub(crate) t0: i64,
}

/// The view `cpu_over_time` of run `run_id`'s kept trials, each sample with its trial's first
/// sample time (time 0 of its chart).
pub(crate) async fn cpu_rows(query: &Query, run_id: &str) -> Result<Vec<CpuPoint>, SiteError> {
    Ok(query
        .rows(&format!(
            "SELECT o.trial_id, t.arm, t.params, o.t_ns, o.series, o.cores, s.t0 \
             FROM cpu_over_time o \
             JOIN trials t ON o.run_id = t.run_id AND o.trial_id = t.trial_id \
             JOIN (SELECT run_id, trial_id, min(t_ns) AS t0 FROM cpu_samples WHERE scope <> 'cpu' \
                   GROUP BY run_id, trial_id) s ON o.run_id = s.run_id AND o.trial_id = s.trial_id \
             WHERE o.run_id = {} AND t.kept ORDER BY o.trial_id, o.series, o.t_ns",
            crate::query::lit(run_id)
        ))
        .await?)
}

#[derive(Deserialize)]
pub(crate) struct ScrapePoint {
    pub(crate) trial_id: i64,
    pub(crate) arm: String,
    #[serde(with = "crate::model::params_as_json")]
    pub(crate) params: crate::model::Params,
    pub(crate) t_ns: i64,
    /// What a server figure names (view `scrape_over_time`).
    pub(crate) metric: String,
    /// What the point is (view `scrape_over_time`'s `stat`).
    pub(crate) stat: crate::query::figures::IntervalStat,
    pub(crate) value: Option<f64>,
    /// The trial's first scrape: time 0 of its chart.
    pub(crate) t0: i64,
}

/// The server metrics over time (view `scrape_over_time`) of run `run_id`'s kept trials, of
/// the metrics its named server figures (`[[scrape]] figures`) are of; nothing where it names
/// none.
pub(crate) async fn scrape_rows(
    query: &Query,
    r: &RunRecord,
) -> Result<Vec<ScrapePoint>, SiteError> {
    let named = crate::query::figures::server_figures(&crate::model::parse_params(&r.labels));
    let mut metrics: Vec<String> = named.iter().map(|f| crate::query::lit(&f.metric)).collect();
    metrics.dedup();
    if metrics.is_empty() {
        return Ok(Vec::new());
    }
    Ok(query
        .rows(&format!(
            "SELECT o.trial_id, t.arm, t.params, o.t_ns, o.metric, o.stat, o.value, s.t0 \
             FROM scrape_over_time o \
             JOIN trials t ON o.run_id = t.run_id AND o.trial_id = t.trial_id \
             JOIN (SELECT run_id, trial_id, min(t_ns) AS t0 FROM scrape_samples \
                   WHERE run_id = {id} GROUP BY run_id, trial_id) s \
               ON o.run_id = s.run_id AND o.trial_id = s.trial_id \
             WHERE o.run_id = {id} AND t.kept AND o.metric IN ({}) \
             ORDER BY o.metric, o.stat, o.trial_id, o.t_ns",
            metrics.join(", "),
            id = crate::query::lit(&r.run_id)
        ))
        .await?)
}

#[derive(Deserialize)]
pub(crate) struct MergedStack {
    pub(crate) arm: String,
    pub(crate) target: String,
    pub(crate) kind: crate::model::StackKind,
    pub(crate) stack: String,
    pub(crate) weight: f64,
}

/// Stacks of a run's kept trials, merged across repeats: (arm, target, kind) → stacks.
pub(crate) type Profiles = BTreeMap<(String, String, crate::model::StackKind), Vec<(String, f64)>>;

pub(crate) async fn profiles(query: &Query, run_id: &str) -> Result<Profiles, SiteError> {
    let rows: Vec<MergedStack> = query
        .rows(&format!(
            "SELECT t.arm, s.target, s.kind, s.stack, sum(s.weight) AS weight FROM stacks s \
             JOIN trials t ON s.run_id = t.run_id AND s.trial_id = t.trial_id \
             WHERE s.run_id = {} AND (t.kept OR t.phase = 'measured') \
             GROUP BY t.arm, s.target, s.kind, s.stack ORDER BY t.arm, s.target, s.kind, s.stack",
            crate::query::lit(run_id)
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

/// (baseline arm, candidate arm, their comparison).
pub(crate) type ArmComparison = (String, String, crate::query::compare::Comparison);

/// Whether a run's trials vary a load parameter over three or more values (then it has a
/// sweep page), from the parameters the site already read.
pub(crate) fn sweeps_load(trials: &[TrialSummary]) -> bool {
    crate::query::sweep::load_param(trials.iter().map(|t| &t.params)).is_some()
}

/// The A/B comparisons of run `r`'s arms: the arm that ran first is the baseline, each other
/// arm a candidate, through the same comparison as `perfhouse compare`.
pub(crate) async fn comparisons(
    query: &Query,
    r: &RunRecord,
    arms: &[String],
    opts: &crate::query::compare::CompareOptions,
) -> Result<Vec<ArmComparison>, SiteError> {
    use crate::query::compare::{RunInfo, Selection};
    let mut out = Vec::new();
    let Some((first, rest)) = arms.split_first() else {
        return Ok(out);
    };
    for cand in rest {
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
        let c = crate::query::compare::compare(query, sel(first), sel(cand), opts).await?;
        out.push((first.clone(), cand.clone(), c));
    }
    Ok(out)
}

/// Everything one run's pages show beyond the prefetched rows ([`Prefetch`]): read here, so
/// rendering them issues no query.
pub(crate) struct RunLoad {
    pub(crate) latencies: Latencies,
    pub(crate) cpu: Vec<CpuPoint>,
    pub(crate) scrape: Vec<ScrapePoint>,
    pub(crate) sweep: Option<crate::query::sweep::Sweep>,
    pub(crate) profiles: Profiles,
    pub(crate) comparisons: Vec<ArmComparison>,
}

/// Reads what run `r`'s pages show (each part only where the prefetch says the run has it).
pub(crate) async fn run(
    query: &Query,
    r: &RunRecord,
    pre: &Prefetch,
    latencies: Latencies,
    opts: &crate::query::compare::CompareOptions,
) -> Result<RunLoad, SiteError> {
    let trials = pre.trials.get(&r.run_id).map(Vec::as_slice).unwrap_or(&[]);
    let arms = pre.arms.get(&r.run_id).map(Vec::as_slice).unwrap_or(&[]);
    Ok(RunLoad {
        latencies,
        cpu: if pre.with_cpu.contains(&r.run_id) {
            cpu_rows(query, &r.run_id).await?
        } else {
            Vec::new()
        },
        scrape: if pre.with_scrape.contains(&r.run_id) {
            scrape_rows(query, r).await?
        } else {
            Vec::new()
        },
        sweep: if sweeps_load(trials) {
            crate::query::sweep::sweep(query, &r.run_id, None).await?
        } else {
            None
        },
        profiles: if pre.with_stacks.contains(&r.run_id) {
            profiles(query, &r.run_id).await?
        } else {
            Profiles::new()
        },
        comparisons: comparisons(query, r, arms, opts).await?,
    })
}
