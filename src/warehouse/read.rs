//! Reading the warehouse's table files: each checked against its checksum, the `runs`
//! listing, the search for a damaged file, and the comparison of a file's columns with the
//! table's schema.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::error::ArrowError;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::parquet::errors::ParquetError;

use super::{Result, RunEntry, Table, Warehouse, WarehouseError, checksum, io_err};

/// What [`Warehouse::damage_on_open`] found: the first damaged table file and what is wrong
/// with it, if any, and the files it verified by their checksum.
pub type DamageOnOpen = (Option<(PathBuf, String)>, Vec<PathBuf>);

impl Warehouse {
    /// The batches of one table file, its checksum verified first (see [`checksum`]).
    pub(super) fn read_file(path: &Path) -> Result<Vec<RecordBatch>> {
        let bytes = fs::read(path).map_err(io_err(path))?;
        read_parquet(bytes::Bytes::from(bytes), path)
    }

    /// Every committed run (one row per `runs` row).
    pub fn runs(&self) -> Result<Vec<RunEntry>> {
        let _readers = self.read_lock()?;
        let mut out = Vec::new();
        for (suite, path) in self.table_files(Table::Runs)? {
            out.extend(Self::read_runs_file(&suite, &path)?);
        }
        Ok(out)
    }

    /// The runs of one `runs` file; a file of another schema is an error naming the column.
    pub(super) fn read_runs_file(suite: &str, path: &Path) -> Result<Vec<RunEntry>> {
        run_entries(suite, &Self::read_file(path)?, path)
    }

    /// Every table file checked before a reading session opens: one that carries a checksum
    /// is read whole and hashed (any flipped byte, in its data, its page indexes or its
    /// footer, is found), one written before checksums is judged from its ends (0 bytes, or
    /// not Parquet at either end: truncated, overwritten). Returns the first damaged file
    /// and what is wrong with it, and the files verified by their checksum (a reader need
    /// not hash them again). The files are shared among the cores; a large one is hashed on
    /// all of them ([`checksum::of_file`]).
    pub fn damage_on_open(&self) -> Result<DamageOnOpen> {
        let mut files = Vec::new();
        for table in Table::ALL {
            files.extend(self.table_files(table)?.into_iter().map(|(_, p)| p));
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let workers = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(files.len())
            .max(1);
        let judge = |path: &Path| match checksum::expected_of(path) {
            Some(_) => parquet_ends(path).or_else(|| checksum::verify_file(path).err()),
            None => parquet_ends(path),
        };
        let found: Vec<(usize, String)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    s.spawn(|| {
                        let mut bad = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(path) = files.get(i) else { break };
                            if let Some(what) = judge(path) {
                                bad.push((i, what));
                                // The others stop at their next file.
                                next.store(files.len(), std::sync::atomic::Ordering::Relaxed);
                                break;
                            }
                        }
                        bad
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        if let Some((i, what)) = found.into_iter().min_by_key(|(i, _)| *i) {
            return Ok((Some((files[i].clone(), what)), Vec::new()));
        }
        files.retain(|p| checksum::expected_of(p).is_some());
        Ok((None, files))
    }

    /// The first table file that fails to decode, reading each whole: called after a read
    /// failed, to name the file (the engine's own message does not).
    pub fn find_damage(&self) -> Option<(PathBuf, String)> {
        for table in Table::ALL {
            for (_, path) in self.table_files(table).ok()? {
                if let Some(what) = parquet_ends(&path) {
                    return Some((path, what));
                }
                if let Err(e) = Self::read_file(&path) {
                    let what = match e {
                        WarehouseError::Parquet { source, .. } => source.to_string(),
                        WarehouseError::Damaged { what, .. } => what,
                        other => other.to_string(),
                    };
                    return Some((path, what));
                }
            }
        }
        None
    }

    pub fn find_by_digest(&self, digest: &str) -> Result<Option<RunEntry>> {
        Ok(self.runs()?.into_iter().find(|r| r.input_digest == digest))
    }

    pub fn find_run(&self, run_id: &str) -> Result<RunEntry> {
        self.runs()?
            .into_iter()
            .find(|r| r.run_id == run_id)
            .ok_or_else(|| WarehouseError::UnknownRun(run_id.to_string()))
    }
}

/// What is wrong with a Parquet file seen from its ends (`None`: both magic numbers there).
fn parquet_ends(path: &Path) -> Option<String> {
    use std::os::unix::fs::FileExt;
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) => return Some(e.to_string()),
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len == 0 {
        return Some("0 bytes".to_string());
    }
    if len < 12 {
        return Some(format!("{len} bytes, too short to be Parquet"));
    }
    let (mut head, mut tail) = ([0u8; 4], [0u8; 4]);
    if file.read_exact_at(&mut head, 0).is_err() || file.read_exact_at(&mut tail, len - 4).is_err()
    {
        return Some("cannot be read".to_string());
    }
    if &head != b"PAR1" || &tail != b"PAR1" {
        return Some(
            "not a Parquet file at its start or end (truncated or overwritten)".to_string(),
        );
    }
    None
}

/// The batches of one Parquet file (from disk or an object store's bytes), after its bytes
/// are checked against the checksum its name carries; `path` names it in errors.
pub(crate) fn read_parquet(reader: bytes::Bytes, path: &Path) -> Result<Vec<RecordBatch>> {
    checksum::verify_bytes(path, &reader).map_err(|what| WarehouseError::Damaged {
        path: path.to_path_buf(),
        what,
    })?;
    let perr = |source| WarehouseError::Parquet {
        path: path.to_path_buf(),
        source,
    };
    let reader = ParquetRecordBatchReaderBuilder::try_new(reader)
        .map_err(perr)?
        .build()
        .map_err(perr)?;
    reader
        .collect::<Result<Vec<_>, ArrowError>>()
        .map_err(|e| perr(ParquetError::ArrowError(e.to_string())))
}

/// The runs listed in the batches of one `runs` file of `suite`.
pub(crate) fn run_entries(
    suite: &str,
    batches: &[RecordBatch],
    path: &Path,
) -> Result<Vec<RunEntry>> {
    let mut out = Vec::new();
    for batch in batches {
        let ids = utf8_column(batch, "run_id", path)?;
        let digests = utf8_column(batch, "input_digest", path)?;
        for i in 0..batch.num_rows() {
            out.push(RunEntry {
                run_id: ids.value(i).to_string(),
                suite: suite.to_string(),
                input_digest: digests.value(i).to_string(),
            });
        }
    }
    Ok(out)
}

/// A Utf8 column of a warehouse file, or an error naming the file and what differs (a file
/// written by another tool may carry `large_string` or an integer `run_id`).
pub(super) fn utf8_column<'a>(
    batch: &'a RecordBatch,
    name: &str,
    path: &Path,
) -> Result<&'a datafusion::arrow::array::StringArray> {
    let col = batch
        .column_by_name(name)
        .ok_or_else(|| WarehouseError::Schema {
            path: path.to_path_buf(),
            what: format!("column {name} is missing"),
        })?;
    col.as_string_opt::<i32>()
        .ok_or_else(|| WarehouseError::Schema {
            path: path.to_path_buf(),
            what: format!("column {name} is {}, expected Utf8", col.data_type()),
        })
}

/// Every difference between a file's columns and the table's schema (empty when it fits).
pub(super) fn schema_differences(table: Table, batch: &RecordBatch) -> Vec<String> {
    let mut out = Vec::new();
    for field in table.schema().fields() {
        match batch.schema().field_with_name(field.name()) {
            Ok(f) if f.data_type() == field.data_type() => {}
            Ok(f) => out.push(format!(
                "column {} is {}, expected {}",
                field.name(),
                f.data_type(),
                field.data_type()
            )),
            Err(_) if field.is_nullable() => {}
            Err(_) => out.push(format!("column {} is missing", field.name())),
        }
    }
    out
}

/// `batch` with the table's schema: its columns in the table's order, NULLs for a nullable
/// column it lacks (call after [`check_schema`]).
pub(super) fn conform(table: Table, batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    let schema = table.schema();
    let columns = schema
        .fields()
        .iter()
        .map(|f| match batch.column_by_name(f.name()) {
            Some(c) => c.clone(),
            None => datafusion::arrow::array::new_null_array(f.data_type(), batch.num_rows()),
        })
        .collect();
    RecordBatch::try_new(schema, columns)
}

pub(super) fn check_schema(table: Table, batches: &[RecordBatch], path: &Path) -> Result<()> {
    match batches
        .iter()
        .flat_map(|b| schema_differences(table, b))
        .next()
    {
        None => Ok(()),
        Some(what) => Err(WarehouseError::Schema {
            path: path.to_path_buf(),
            what: format!(
                "{what} (a {} file of another schema; see `perfhouse check`)",
                table.name()
            ),
        }),
    }
}
