//! Query: a DataFusion `SessionContext` over the warehouse, with each table registered under
//! its explicit schema (`raw_<table>`) and the named SQL views of `views/*.sql` on top. The views
//! named after the tables (`runs`, `trials`, `requests`, …) show committed runs only.

use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::error::DataFusionError;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use serde::de::DeserializeOwned;

use crate::warehouse::checksum::VerifyingStore;
use crate::warehouse::{Table, Warehouse};

pub mod alerts;
pub mod compare;
pub mod ddl;
pub mod figures;
pub mod history;
pub mod holistic;
pub mod noise;
pub mod samples;
pub mod slo;
pub mod sweep;
pub mod thresholds;
pub mod triage;
pub mod udf;
pub mod whole_run;

/// The view definitions, in creation order (later views build on earlier ones).
pub const VIEWS: &[(&str, &str)] = &[
    ("runs", include_str!("views/00_runs.sql")),
    ("trials", include_str!("views/01_trials.sql")),
    ("metrics", include_str!("views/01_metrics.sql")),
    ("requests", include_str!("views/01_requests.sql")),
    ("cpu_samples", include_str!("views/01_cpu_samples.sql")),
    (
        "scrape_samples",
        include_str!("views/01_scrape_samples.sql"),
    ),
    ("stacks", include_str!("views/01_stacks.sql")),
    ("artifacts", include_str!("views/01_artifacts.sql")),
    ("annotations", include_str!("views/01_annotations.sql")),
    ("alerts", include_str!("views/01_alerts.sql")),
    (
        "measured_requests",
        include_str!("views/02_measured_requests.sql"),
    ),
    ("trial_window", include_str!("views/10_trial_window.sql")),
    (
        "trial_requests",
        include_str!("views/11_trial_requests.sql"),
    ),
    (
        "trial_cpu_samples",
        include_str!("views/12_trial_cpu_samples.sql"),
    ),
    ("trial_cpu", include_str!("views/12_trial_cpu.sql")),
    ("trial_proc", include_str!("views/13_trial_proc.sql")),
    ("trial_metrics", include_str!("views/14_trial_metrics.sql")),
    ("cpu_over_time", include_str!("views/15_cpu_over_time.sql")),
    (
        "trial_scrape_samples",
        include_str!("views/16_trial_scrape_samples.sql"),
    ),
    ("trial_server", include_str!("views/17_trial_server.sql")),
    (
        "scrape_over_time",
        include_str!("views/18_scrape_over_time.sql"),
    ),
    ("trial_goodput", include_str!("views/19_trial_goodput.sql")),
    ("trial_figures", include_str!("views/20_trial_figures.sql")),
    // Generated from the figure registry (`figures::arm_medians_sql`).
    ("arm_medians", ""),
    (
        "arm_proc_medians",
        include_str!("views/31_arm_proc_medians.sql"),
    ),
    (
        "metric_medians",
        include_str!("views/32_metric_medians.sql"),
    ),
];

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("{0}")]
    DataFusion(#[from] DataFusionError),
    #[error("defining view `{view}`: {source}")]
    View {
        view: &'static str,
        source: DataFusionError,
    },
    #[error("reading query result: {0}")]
    Decode(String),
    /// A statement `perfhouse query` does not run: it would write or change the session.
    #[error(
        "{what} is not allowed here: `perfhouse query` is read-only and runs SELECT, WITH, VALUES, EXPLAIN, SHOW and DESCRIBE (export results with --format csv|json)"
    )]
    ReadOnly { what: String },
    /// A table file that cannot be read, named (the engine's message does not name it).
    #[error("{path}: damaged ({what}); `perfhouse check` lists every problem")]
    Damaged {
        path: std::path::PathBuf,
        what: String,
    },
}

/// A reading session. It holds the warehouse's readers lock for as long as it lives, so a
/// concurrent `compact` waits to swap partitions until it is dropped: every query of one
/// session sees the same files (see `warehouse::Lock`).
pub struct Query {
    ctx: SessionContext,
    /// None for an object-store warehouse, which has no locks (nothing there is ever replaced:
    /// see `warehouse::remote`).
    _readers: Option<crate::warehouse::Lock>,
    /// The runs whose per-run figures [`Query::materialize_runs`] holds in memory.
    parts: std::sync::Mutex<std::collections::HashSet<String>>,
    /// The local warehouse, to name a damaged file when a read fails (None: object store).
    warehouse: Option<Warehouse>,
}

impl Query {
    pub async fn open(warehouse: &Warehouse) -> Result<Query, QueryError> {
        Self::open_with(warehouse, &slo::Slos::default()).await
    }

    /// Opens with `slos` as every suite's SLOs (`--slo`), instead of each suite's newest `slo`
    /// label, where it is not empty.
    pub async fn open_with(warehouse: &Warehouse, slos: &slo::Slos) -> Result<Query, QueryError> {
        let readers = warehouse
            .read_lock()
            .map_err(|e| QueryError::Decode(e.to_string()))?;
        // A damaged file stops every reader, named, before anything is read: one whose bytes
        // differ from its name's checksum (a flipped byte would otherwise be read silently,
        // and answered from), or, written before checksums, one of 0 bytes or truncated (the
        // engine would skip an empty file without a word, and the runs it held would be
        // missing).
        let (damage, verified) = warehouse
            .damage_on_open()
            .map_err(|e| QueryError::Decode(e.to_string()))?;
        if let Some((path, what)) = damage {
            return Err(QueryError::Damaged { path, what });
        }
        let root =
            std::path::absolute(warehouse.root()).map_err(|e| QueryError::Decode(e.to_string()))?;
        let dir = |table: Table| format!("{}/", root.join(table.name()).display());
        // Files that land after this check (a note, a triage event) are verified as they are
        // first read.
        let local = VerifyingStore::new(std::sync::Arc::new(
            object_store::local::LocalFileSystem::new(),
        ));
        for path in verified {
            if let Ok(abs) = std::path::absolute(&path)
                && let Ok(key) = object_store::path::Path::from_absolute_path(abs)
            {
                local.mark_verified(key);
            }
        }
        let file_url = url::Url::parse("file://").expect("a URL");
        let ctx = Self::context_over(&dir, (&file_url, std::sync::Arc::new(local)), slos).await;
        let ctx = ctx.map_err(|e| name_damage(Some(warehouse), e))?;
        Ok(Query {
            ctx,
            _readers: Some(readers),
            parts: Default::default(),
            warehouse: Some(warehouse.clone()),
        })
    }

    /// Opens a warehouse in an object store (`warehouse::remote`): the same tables and views,
    /// read through the store.
    pub async fn open_remote(
        remote: &crate::warehouse::remote::Remote,
        slos: &slo::Slos,
    ) -> Result<Query, QueryError> {
        let dir = |table: Table| remote.table_url(table);
        // Listings through the compaction records: merged files and the ones they replaced
        // are never read together (`warehouse::remote::compact`).
        let store = remote
            .reader_store()
            .await
            .map_err(|e| QueryError::Decode(e.to_string()))?;
        let store = std::sync::Arc::new(VerifyingStore::new(store));
        let ctx = Self::context_over(&dir, (remote.store().0, store), slos).await?;
        Ok(Query {
            ctx,
            _readers: None,
            parts: Default::default(),
            warehouse: None,
        })
    }

    /// A session over the tables at `dir(table)`, reading through `store` (registered for
    /// `url`): every table file is checked against the checksum in its name before any of it
    /// is read (`warehouse::checksum`), so a flipped byte stops the statement, named.
    async fn context_over(
        dir: &dyn Fn(Table) -> String,
        (url, store): (&url::Url, std::sync::Arc<VerifyingStore>),
        slos: &slo::Slos,
    ) -> Result<SessionContext, QueryError> {
        // DATAFUSION_* variables tune the engine (e.g. DATAFUSION_EXECUTION_TARGET_PARTITIONS).
        let config = SessionConfig::from_env()?.with_information_schema(true);
        // PERFHOUSE_TWO_PHASE_QUANTILES=1 keeps DataFusion's own two-phase plan (for comparing).
        let mut state = datafusion::execution::SessionStateBuilder::new()
            .with_config(config)
            .with_default_features();
        if std::env::var_os("PERFHOUSE_TWO_PHASE_QUANTILES").is_none() {
            state = state
                .with_physical_optimizer_rule(std::sync::Arc::new(holistic::SinglePhaseHolistic));
        }
        // PERFHOUSE_UNSHARED_QUANTILES=1 keeps one copy of the values per statistic (for comparing).
        if std::env::var_os("PERFHOUSE_UNSHARED_QUANTILES").is_none() {
            state = state.with_optimizer_rule(std::sync::Arc::new(holistic::ShareHolistic));
        }
        let ctx = SessionContext::new_with_state(state.build());
        ctx.register_object_store(url, store);
        ctx.register_udaf(udf::quantile_cont_udaf());
        ctx.register_udaf(udf::median_udaf());
        ctx.register_udf(udf::run_in_udf());
        let mut clock = std::time::Instant::now();
        for table in Table::ALL {
            let schema = read_schema(table);
            let dir = dir(table);
            let options = ParquetReadOptions {
                schema: Some(&schema),
                table_partition_cols: vec![("suite".to_string(), DataType::Utf8)],
                ..Default::default()
            };
            ctx.register_parquet(format!("raw_{}", table.name()), &dir, options)
                .await?;
        }
        trace_phase("open: register the tables", &mut clock);
        let suites = snapshot_runs(&ctx).await?;
        trace_phase("open: snapshot of runs", &mut clock);
        register_slo(&ctx, slos, &suites).await?;
        trace_phase("open: slo", &mut clock);
        let arm_medians = figures::arm_medians_sql();
        for (view, sql) in VIEWS {
            let sql = if *view == "arm_medians" {
                arm_medians.clone()
            } else {
                sql.replace(COMMITTED_SQL, "committed(t.run_id)")
            };
            ctx.sql(&sql)
                .await
                .map_err(|source| QueryError::View { view, source })?;
        }
        trace_phase("open: views", &mut clock);
        Ok(ctx)
    }

    /// The SLOs the goodput views judge `suite` by (see `query::slo`).
    pub async fn slos(&self, suite: &str) -> Result<slo::Slos, QueryError> {
        #[derive(serde::Deserialize)]
        struct SloText {
            slo: String,
        }
        let rows: Vec<SloText> = self
            .rows(&format!(
                "SELECT slo FROM slo WHERE suite = {} OR suite = '*'",
                lit(suite)
            ))
            .await?;
        Ok(rows
            .first()
            .and_then(|r| slo::Slos::parse([r.slo.as_str()]).ok())
            .unwrap_or_default())
    }

    /// Computes the per-run views `trial_figures` and `metric_medians` for the runs `ids`
    /// once, into in-memory tables (`trial_figures_part`, `metric_medians_part`), and
    /// `arm_medians_part` over the first by the same SQL as `arm_medians` (a median per run,
    /// arm and params: restricting the input to whole runs changes no group). An incremental
    /// site build then plans the big views once, not once per statement that reads them
    /// ([`Query::relation`]).
    pub async fn materialize_runs(&self, ids: &[&str]) -> Result<(), QueryError> {
        if ids.is_empty() {
            return Ok(());
        }
        let filter = runs_in("run_id", ids);
        // The two are planned and run at once, on tasks of their own (planning the big views
        // is most of their cost, and it runs on the task that plans).
        let tasks: Vec<_> = ["trial_figures", "metric_medians"]
            .into_iter()
            .map(|view| {
                let ctx = self.ctx.clone();
                let sql = format!("SELECT * FROM {view} WHERE {filter}");
                tokio::spawn(async move {
                    let df = ctx.sql(&sql).await?;
                    let schema = std::sync::Arc::new(df.schema().as_arrow().clone());
                    let batches = df.collect().await?;
                    Ok::<_, DataFusionError>((view, schema, batches))
                })
            })
            .collect();
        for task in tasks {
            // A task that panicked passes its panic on (none is cancelled).
            let (view, schema, batches) = match task.await {
                Ok(done) => done?,
                Err(e) => std::panic::resume_unwind(e.into_panic()),
            };
            let table = datafusion::datasource::MemTable::try_new(schema, vec![batches])?;
            let name = format!("{view}_part");
            self.ctx.deregister_table(name.as_str())?;
            self.ctx
                .register_table(name.as_str(), std::sync::Arc::new(table))?;
        }
        self.ctx.deregister_table("arm_medians_part")?;
        self.ctx
            .sql(&figures::arm_medians_sql_over(
                "arm_medians_part",
                "trial_figures_part",
            ))
            .await?;
        *self.parts.lock().expect("not poisoned") = ids.iter().map(|i| i.to_string()).collect();
        Ok(())
    }

    /// The relation to read the per-run view `view` of the runs `ids` from: its in-memory
    /// part where [`Query::materialize_runs`] holds all of them, else the view.
    pub fn relation(&self, view: &str, ids: Option<&[&str]>) -> String {
        let parts = self.parts.lock().expect("not poisoned");
        match ids {
            Some(ids) if !ids.is_empty() && ids.iter().all(|id| parts.contains(*id)) => {
                format!("{view}_part")
            }
            _ => view.to_string(),
        }
    }

    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// Runs `sql`. With `PERFHOUSE_TRACE_SQL` set, each statement's wall time and row count go
    /// to stderr (for finding where a build's time goes).
    pub async fn sql(&self, sql: &str) -> Result<Vec<RecordBatch>, QueryError> {
        let start = std::time::Instant::now();
        if tracing() {
            let df = self.ctx.sql(sql).await?;
            let logical = start.elapsed();
            let state = self.ctx.state();
            let optimized = state.optimize(df.logical_plan())?;
            let optimize = start.elapsed();
            let plan = state
                .query_planner()
                .create_physical_plan(&optimized, &state)
                .await?;
            let physical = start.elapsed();
            let batches = datafusion::physical_plan::collect(plan, self.ctx.task_ctx()).await?;
            let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
            eprintln!(
                "sql {:>9.3} ms ({:.1} plan, {:.1} optimize, {:.1} physical, RSS {} MB) {rows:>7} rows  {sql}",
                start.elapsed().as_secs_f64() * 1e3,
                logical.as_secs_f64() * 1e3,
                (optimize - logical).as_secs_f64() * 1e3,
                (physical - optimize).as_secs_f64() * 1e3,
                rss_mb(),
            );
            return Ok(batches);
        }
        let batches = self.run(self.ctx.sql(sql).await).await?;
        Ok(batches)
    }

    /// Collects a planned statement, naming the damaged file where reading failed on one.
    async fn run(
        &self,
        df: Result<datafusion::dataframe::DataFrame, DataFusionError>,
    ) -> Result<Vec<RecordBatch>, QueryError> {
        let collected = match df {
            Ok(df) => df.collect().await,
            Err(e) => Err(e),
        };
        collected.map_err(|e| name_damage(self.warehouse.as_ref(), e.into()))
    }

    /// Runs a statement a user typed (`perfhouse query`): read-only. DDL (`CREATE EXTERNAL
    /// TABLE`, `CREATE VIEW`, `DROP`), DML (`INSERT`, `COPY … TO`) and statements that change
    /// the session (`SET`, transactions) are refused before anything runs, so no query can
    /// write a file (a `COPY` into a table's partition would replace a committed file).
    pub async fn user_sql(&self, sql: &str) -> Result<Vec<RecordBatch>, QueryError> {
        let options = datafusion::execution::context::SQLOptions::new()
            .with_allow_ddl(false)
            .with_allow_dml(false)
            .with_allow_statements(false);
        let df = match self.ctx.sql_with_options(sql, options).await {
            Ok(df) => df,
            Err(e) => {
                let text = e.to_string();
                return Err(
                    match [
                        "DDL not supported: ",
                        "DML not supported: ",
                        "Statement not supported: ",
                    ]
                    .iter()
                    .find_map(|p| text.split_once(p))
                    {
                        Some((_, what)) => QueryError::ReadOnly {
                            what: what.trim().to_string(),
                        },
                        None => e.into(),
                    },
                );
            }
        };
        self.run(Ok(df)).await
    }

    /// Runs `sql` and decodes each row into `T` by column name (through Arrow's JSON writer,
    /// so timestamps arrive as RFC 3339 strings and NULLs as missing fields).
    pub async fn rows<T: DeserializeOwned>(&self, sql: &str) -> Result<Vec<T>, QueryError> {
        let batches = self.sql(sql).await?;
        let json = batches_to_json(&batches).map_err(|e| QueryError::Decode(e.to_string()))?;
        serde_json::from_slice(&json).map_err(|e| QueryError::Decode(format!("{e} in {sql}")))
    }
}

/// `err`, or, where it came from a table file that cannot be read, that file named. The
/// engine's Parquet and I/O errors do not say which file; the warehouse is read again, file
/// by file, to find it (only after a failure, so a good read costs nothing).
fn name_damage(warehouse: Option<&Warehouse>, err: QueryError) -> QueryError {
    let text = err.to_string();
    let from_files = [
        "Parquet error",
        "parquet",
        "External error",
        "IO error",
        "Arrow error",
    ]
    .iter()
    .any(|k| text.contains(k));
    match warehouse {
        Some(wh) if from_files => match wh.find_damage() {
            Some((path, what)) => QueryError::Damaged { path, what },
            None => err,
        },
        _ => err,
    }
}

/// The schema a table is read with: the stored one, with strings as `Utf8View`. Parquet's
/// dictionary-encoded strings (run ids, arms, suites) then become views into one buffer
/// instead of a copy per row: at 100 million rows, 1.9 GB less moved per query.
fn read_schema(table: Table) -> datafusion::arrow::datatypes::SchemaRef {
    let schema = table.schema();
    use datafusion::arrow::datatypes::{Field, Schema};
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            if f.data_type() == &DataType::Utf8 {
                f.as_ref().clone().with_data_type(DataType::Utf8View)
            } else {
                f.as_ref().clone()
            }
        })
        .collect();
    std::sync::Arc::new(Schema::new(fields))
}

/// The committed-runs clause of the views named after the tables (`views/01_*.sql`). It is
/// the definition other engines use (`perfhouse schema --ddl`); perfhouse evaluates it as
/// `committed(t.run_id)` over the session's snapshot of `raw_runs` ([`udf::Committed`]).
pub const COMMITTED_SQL: &str = "t.run_id IN (SELECT run_id FROM raw_runs)";

/// Reads `raw_runs` once and puts it back as an in-memory table, with `committed(run_id)`
/// answering from the same rows: every statement of a session sees one set of committed
/// runs, even if a writer commits while the session is open. Returns the suites it holds.
async fn snapshot_runs(
    ctx: &SessionContext,
) -> Result<std::collections::BTreeSet<String>, QueryError> {
    let table = ctx.table("raw_runs").await?;
    let schema = std::sync::Arc::new(table.schema().as_arrow().clone());
    let batches = table.collect().await?;
    let mut runs = std::collections::HashSet::new();
    let mut suites = std::collections::BTreeSet::new();
    for b in &batches {
        let text = |name| -> Result<_, DataFusionError> {
            let col = b.column_by_name(name).expect("a column of raw_runs");
            Ok(datafusion::arrow::compute::cast(col, &DataType::Utf8)?)
        };
        let (ids, names) = (text("run_id")?, text("suite")?);
        let ids = datafusion::common::cast::as_string_array(&ids)?;
        runs.extend(ids.iter().flatten().map(str::to_owned));
        let names = datafusion::common::cast::as_string_array(&names)?;
        suites.extend(names.iter().flatten().map(str::to_owned));
    }
    let mem = datafusion::datasource::MemTable::try_new(schema, vec![batches])?;
    ctx.deregister_table("raw_runs")?;
    ctx.register_table("raw_runs", std::sync::Arc::new(mem))?;
    ctx.register_udf(udf::committed_udf(runs));
    Ok(suites)
}

/// Batches as a JSON array of objects (`--format json`).
pub fn batches_to_json(
    batches: &[RecordBatch],
) -> Result<Vec<u8>, datafusion::arrow::error::ArrowError> {
    let mut writer = datafusion::arrow::json::ArrayWriter::new(Vec::new());
    for b in batches {
        writer.write(b)?;
    }
    writer.finish()?;
    let out = writer.into_inner();
    Ok(if out.is_empty() { b"[]".to_vec() } else { out })
}

/// Batches as CSV with a header row (`--format csv`).
pub fn batches_to_csv(
    batches: &[RecordBatch],
) -> Result<Vec<u8>, datafusion::arrow::error::ArrowError> {
    let mut writer = datafusion::arrow::csv::WriterBuilder::new()
        .with_header(true)
        .build(Vec::new());
    for b in batches {
        writer.write(b)?;
    }
    Ok(writer.into_inner())
}

/// Batches as an aligned text table (`--format table`).
pub fn batches_to_table(
    batches: &[RecordBatch],
) -> Result<String, datafusion::arrow::error::ArrowError> {
    Ok(datafusion::arrow::util::pretty::pretty_format_batches(batches)?.to_string())
}

/// A filter keeping rows whose `col` is one of `ids`: `col BETWEEN lo AND hi` (which prunes
/// files and row groups by their statistics, as an `IN` list would) and
/// `run_in(col, 'id', …)` for each row. DataFusion's `IN` list over `Utf8View` hashes every
/// row through a generic comparator: 4× the time of this over 10 million rows.
pub fn runs_in(col: &str, ids: &[&str]) -> String {
    let (Some(lo), Some(hi)) = (ids.iter().min(), ids.iter().max()) else {
        return "false".to_string();
    };
    let list: Vec<String> = ids.iter().map(|id| lit(id)).collect();
    format!(
        "({col} BETWEEN {} AND {} AND run_in({col}, {}))",
        lit(lo),
        lit(hi),
        list.join(", ")
    )
}

/// Quotes a string as a SQL literal.
pub fn lit(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The `slo` table: `slos` for every suite (a row for each, and one for `'*'`) where given,
/// else each suite's newest run's `slo` label (a label that does not parse is ignored).
async fn register_slo(
    ctx: &SessionContext,
    slos: &slo::Slos,
    suites: &std::collections::BTreeSet<String>,
) -> Result<(), QueryError> {
    use datafusion::arrow::array::{ArrayRef, Float64Array, StringArray};
    use datafusion::arrow::datatypes::{Field, Schema};
    use std::sync::Arc;
    let mut rows: std::collections::BTreeMap<String, slo::Slos> = Default::default();
    if slos.is_empty() {
        let batches = ctx
            .sql(
                "SELECT suite, labels FROM raw_runs WHERE labels LIKE '%\"slo\"%' \
                 ORDER BY started_at, run_id",
            )
            .await?
            .collect()
            .await?;
        for b in &batches {
            let utf8 = |i| {
                datafusion::arrow::compute::cast(b.column(i), &DataType::Utf8)
                    .map_err(DataFusionError::from)
            };
            let (suites, labels) = (utf8(0)?, utf8(1)?);
            let suites = datafusion::common::cast::as_string_array(&suites)?;
            let labels = datafusion::common::cast::as_string_array(&labels)?;
            for i in 0..b.num_rows() {
                let label = crate::model::parse_params(labels.value(i)).remove("slo");
                if let Some(s) = label.and_then(|l| slo::Slos::parse([l.as_str()]).ok()) {
                    rows.insert(suites.value(i).to_string(), s);
                }
            }
        }
    } else {
        // One row per suite as well as '*': the goodput view then joins on `suite` alone, a
        // hash join whose build side is these few rows.
        rows.insert("*".into(), slos.clone());
        for suite in suites {
            rows.insert(suite.clone(), slos.clone());
        }
    }
    let ns = |m| -> ArrayRef {
        Arc::new(Float64Array::from(
            rows.values()
                .map(|s| s.per_request_ns(m))
                .collect::<Vec<_>>(),
        ))
    };
    let schema = Arc::new(Schema::new(vec![
        Field::new("suite", DataType::Utf8, false),
        Field::new("slo", DataType::Utf8, false),
        Field::new("ttft_ns", DataType::Float64, true),
        Field::new("itl_ns", DataType::Float64, true),
        Field::new("latency_ns", DataType::Float64, true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(StringArray::from(rows.keys().cloned().collect::<Vec<_>>())),
            Arc::new(StringArray::from(
                rows.values().map(|s| s.to_string()).collect::<Vec<_>>(),
            )),
            ns(slo::SloMetric::Ttft),
            ns(slo::SloMetric::Itl),
            ns(slo::SloMetric::Latency),
        ],
    )
    .map_err(|e| DataFusionError::ArrowError(Box::new(e), None))?;
    let table = datafusion::datasource::MemTable::try_new(schema, vec![vec![batch]])?;
    ctx.register_table("slo", Arc::new(table))?;
    Ok(())
}

/// Whether `PERFHOUSE_TRACE_SQL` is set: statements and build phases then report their wall
/// time on stderr.
pub fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("PERFHOUSE_TRACE_SQL").is_some())
}

/// The process's anonymous resident memory now (what the kernel had to zero), in MB (Linux; 0
/// elsewhere).
fn rss_mb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("RssAnon:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kb| kb / 1000)
}

/// With [`tracing`], reports the time since `since` under `label` and restarts the clock.
pub fn trace_phase(label: &str, since: &mut std::time::Instant) {
    if tracing() {
        eprintln!(
            "phase {:>7.3} ms  {label} (RSS {} MB)",
            since.elapsed().as_secs_f64() * 1e3,
            rss_mb()
        );
    }
    *since = std::time::Instant::now();
}
