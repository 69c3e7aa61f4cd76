//! `perfhouse schema --ddl ENGINE`: the statements that make another engine read a warehouse
//! (a directory or a bucket) as perfhouse does: one `raw_<table>` per table over its
//! Hive-partitioned Parquet files (`suite=` directories), then the committed-rows views.
//!
//! The views matter: a run's rows land before its `runs` row (the commit), so a reader that
//! queries `raw_requests` directly may count rows of a run whose writer died before committing.
//! The views keep only rows whose run is in `raw_runs`, and number runs per suite as perfhouse
//! does (`run_no`). The derived figures (`trial_figures`, `arm_medians`, …) stay perfhouse's
//! (`perfhouse query`): they use its quantile function.
//!
//! A bucket that has been compacted holds, for a while, merged files next to the files they
//! replace (`warehouse::remote::compact`). Its `raw_<table>` views then leave out, by file
//! name, what the compaction records (`raw_compactions`) say is replaced or not yet committed:
//! DuckDB's `filename`, Spark's `input_file_name()`, Trino's `"$path"`.

use datafusion::arrow::datatypes::{DataType, TimeUnit};

use crate::warehouse::Table;

/// An engine that reads the warehouse's Parquet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// Spark SQL (temporary views over the files; `s3a://` for S3 through hadoop-aws).
    Spark,
    /// DuckDB (`read_parquet` with Hive partitioning; S3 through its httpfs extension).
    Duckdb,
    /// Trino's Hive connector (external tables; partitions registered by
    /// `system.sync_partition_metadata`).
    Trino,
}

/// The committed-rows views, as perfhouse itself defines them (`query/views/0*.sql`).
fn committed_views() -> impl Iterator<Item = (&'static str, &'static str)> {
    super::VIEWS
        .iter()
        .copied()
        .filter(|(name, _)| *name == "runs" || Table::ALL.iter().any(|t| t.name() == *name))
}

fn sql_type(engine: Engine, t: &DataType) -> &'static str {
    match (engine, t) {
        (Engine::Spark, DataType::Utf8) => "STRING",
        (_, DataType::Utf8) => "VARCHAR",
        (Engine::Spark, DataType::Int32) => "INT",
        (_, DataType::Int32) => "INTEGER",
        (_, DataType::Int64) => "BIGINT",
        (_, DataType::Float64) => "DOUBLE",
        (_, DataType::Boolean) => "BOOLEAN",
        (Engine::Trino, DataType::Timestamp(TimeUnit::Microsecond, _)) => "TIMESTAMP(6)",
        (_, DataType::Timestamp(_, _)) => "TIMESTAMP",
        (_, other) => unreachable!("no warehouse column is {other}"),
    }
}

fn columns(engine: Engine, schema: &datafusion::arrow::datatypes::Schema) -> String {
    let mut cols: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("{} {}", f.name(), sql_type(engine, f.data_type())))
        .collect();
    cols.push(format!("suite {}", sql_type(engine, &DataType::Utf8)));
    cols.join(", ")
}

/// Whether the warehouse may hold files a compaction replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compactions {
    /// A directory: compaction swaps files in with a rename, nothing to leave out.
    Directory,
    /// A bucket that has no compaction records yet.
    NotYet,
    /// A bucket with compaction records: the raw views leave out what they replace.
    Recorded,
}

/// The condition that keeps a row of `table` whose file is named `file` (an SQL expression):
/// its file is not replaced by a compaction, and is not a merged file no compaction commits.
fn visible(file: &str, table: &str) -> String {
    format!(
        "{file} NOT IN (SELECT file FROM raw_compactions WHERE table_name = '{table}' AND role = 'source') \
         AND ({file} NOT LIKE '{merged}%' OR {file} IN (SELECT file FROM raw_compactions WHERE table_name = '{table}' AND role = 'output'))",
        merged = crate::warehouse::remote::compact::MERGED_PREFIX
    )
}

/// The statements for `engine` over the warehouse at `location` (a URL or an absolute path).
/// `has_files(table)` says whether a table has files yet: Spark and DuckDB cannot bind a view
/// over a glob that matches nothing, so those tables are left out of their scripts (run it
/// again once they have files); Trino's external tables are declared whatever they hold.
pub fn ddl(
    engine: Engine,
    location: &str,
    has_files: &dyn Fn(Table) -> bool,
    compactions: Compactions,
) -> String {
    let location = location.trim_end_matches('/');
    let mut out = format!(
        "-- perfhouse warehouse at {location} (schema version {}): raw_<table> over the Parquet\n\
         -- files, then views of committed runs only. Query the views: a raw table may hold rows\n\
         -- of a run whose writer died before its `runs` row landed.\n",
        crate::warehouse::SCHEMA_VERSION
    );
    if engine == Engine::Trino {
        out.push_str(
            "-- Hive connector: run in a catalog of it (e.g. `USE hive.default`).\n\
             CREATE SCHEMA IF NOT EXISTS perfhouse;\nUSE perfhouse;\n",
        );
    }
    // Trino declares every table whatever it holds, so it always reads the records.
    let filtered = match (engine, compactions) {
        (_, Compactions::Directory) => false,
        (Engine::Trino, _) => true,
        (_, recorded) => recorded == Compactions::Recorded,
    };
    if compactions == Compactions::NotYet && engine != Engine::Trino {
        out.push_str(
            "-- No compactions yet. After a `perfhouse compact`, run `perfhouse schema --ddl` again:\n\
             -- these raw views would otherwise read merged files and the files they replace together.\n",
        );
    }
    if filtered {
        out.push_str(&compactions_table(engine, location));
    }
    for table in Table::ALL {
        if matches!(engine, Engine::Spark | Engine::Duckdb) && !has_files(table) {
            out.push_str(&format!(
                "-- raw_{}: no files yet (an empty glob does not bind); run `perfhouse schema --ddl` again once it has some.\n",
                table.name()
            ));
        } else {
            out.push_str(&raw_table(engine, location, table, filtered));
        }
    }
    for (name, sql) in committed_views() {
        let table = Table::ALL.into_iter().find(|t| t.name() == name);
        if engine != Engine::Trino
            && !(has_files(Table::Runs) && has_files(table.unwrap_or(Table::Runs)))
        {
            continue;
        }
        let create = match engine {
            Engine::Spark => "CREATE OR REPLACE TEMPORARY VIEW",
            Engine::Duckdb | Engine::Trino => "CREATE OR REPLACE VIEW",
        };
        let body = sql.replacen("CREATE VIEW", create, 1);
        out.push_str(body.trim_end());
        out.push_str(";\n");
    }
    out
}

/// Spark reads S3 through `s3a://`.
fn spark_location(l: &str) -> String {
    match l.strip_prefix("s3://") {
        Some(rest) => format!("s3a://{rest}"),
        None => l.to_string(),
    }
}

/// `raw_compactions`, over the compaction records: the raw tables' filter reads it.
fn compactions_table(engine: Engine, location: &str) -> String {
    let records = crate::warehouse::remote::compact::record_schema();
    let dir = format!(
        "{location}/{}",
        crate::warehouse::remote::compact::RECORDS_DIR
    );
    match engine {
        Engine::Spark => format!(
            "CREATE OR REPLACE TEMPORARY VIEW raw_compactions ({}) USING parquet OPTIONS (path '{}/suite=*', basePath '{}');\n",
            columns(engine, &records),
            spark_location(&dir),
            spark_location(&dir)
        ),
        Engine::Duckdb => format!(
            "CREATE OR REPLACE VIEW raw_compactions AS SELECT * FROM read_parquet('{dir}/*/*.parquet', hive_partitioning = true);\n"
        ),
        Engine::Trino => format!(
            "CREATE TABLE IF NOT EXISTS raw_compactions ({}) WITH (external_location = '{dir}', format = 'PARQUET', partitioned_by = ARRAY['suite']);\n\
             CALL system.sync_partition_metadata('perfhouse', 'raw_compactions', 'FULL');\n",
            columns(engine, &records)
        ),
    }
}

/// `raw_<table>` over a table's files; where `filtered`, the files are declared as
/// `files_<table>` and `raw_<table>` leaves out what the compaction records hide.
fn raw_table(engine: Engine, location: &str, table: Table, filtered: bool) -> String {
    let name = table.name();
    let dir = format!("{location}/{name}");
    let schema = table.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let names = names.join(", ");
    let files = if filtered { "files" } else { "raw" };
    match engine {
        // The `suite=*` glob keeps Spark's partition discovery off `artifacts/blobs/`.
        Engine::Spark => {
            let mut out = format!(
                "CREATE OR REPLACE TEMPORARY VIEW {files}_{name} ({}) USING parquet OPTIONS (path '{}/suite=*', basePath '{}');\n",
                columns(engine, &schema),
                spark_location(&dir),
                spark_location(&dir)
            );
            if filtered {
                // The file name is taken in a projection of its own: in a filter with
                // subqueries, Spark would evaluate `input_file_name()` away from the scan.
                out.push_str(&format!(
                    "CREATE OR REPLACE TEMPORARY VIEW raw_{name} AS SELECT {names}, suite FROM (SELECT *, regexp_extract(input_file_name(), '[^/]*$', 0) AS perfhouse_file FROM files_{name}) WHERE {};\n",
                    visible("perfhouse_file", name)
                ));
            }
            out
        }
        Engine::Duckdb if filtered => format!(
            "CREATE OR REPLACE VIEW raw_{name} AS SELECT * EXCLUDE (filename) FROM read_parquet('{dir}/*/*.parquet', hive_partitioning = true, union_by_name = true, filename = true) WHERE {};\n",
            visible("regexp_extract(filename, '[^/]*$')", name)
        ),
        Engine::Duckdb => format!(
            "CREATE OR REPLACE VIEW raw_{name} AS SELECT * FROM read_parquet('{dir}/*/*.parquet', hive_partitioning = true, union_by_name = true);\n"
        ),
        Engine::Trino => {
            let mut out = format!(
                "CREATE TABLE IF NOT EXISTS {files}_{name} ({}) WITH (external_location = '{dir}', format = 'PARQUET', partitioned_by = ARRAY['suite']);\n\
                 CALL system.sync_partition_metadata('perfhouse', '{files}_{name}', 'FULL');\n",
                columns(engine, &schema)
            );
            if filtered {
                out.push_str(&format!(
                    "CREATE OR REPLACE VIEW raw_{name} AS SELECT {names}, suite FROM files_{name} WHERE {};\n",
                    visible("regexp_extract(\"$path\", '[^/]*$')", name)
                ));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spark_reads_s3_through_s3a_and_anything_else_as_given() {
        assert_eq!(
            spark_location("s3://bucket/wh/runs"),
            "s3a://bucket/wh/runs"
        );
        assert_eq!(spark_location("/data/wh/runs"), "/data/wh/runs");
        assert_eq!(spark_location("gs://bucket/wh"), "gs://bucket/wh");
    }

    /// A table without files is left out of DuckDB's script (an empty glob does not bind);
    /// Trino declares it all the same.
    #[test]
    fn a_table_without_files_is_left_out_of_duckdb_only() {
        let none = |_: Table| false;
        let duck = ddl(Engine::Duckdb, "/wh/", &none, Compactions::Directory);
        assert!(duck.contains("-- raw_runs: no files yet"), "{duck}");
        assert!(!duck.contains("VIEW raw_runs AS"), "{duck}");
        let trino = ddl(Engine::Trino, "/wh/", &none, Compactions::Directory);
        assert!(
            trino.contains("CREATE TABLE IF NOT EXISTS raw_runs (")
                && trino.contains("external_location = '/wh/runs'"),
            "{trino}"
        );
    }
}
