//! `compact`: each partition's files merged into one, built aside and swapped in whole.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::path::{Path, PathBuf};

use datafusion::arrow::array::{Array, RecordBatch};
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::parquet::errors::ParquetError;

use crate::warehouse::files::{PartWriter, exchange};
use crate::warehouse::locks::{Lock, READERS_WAIT};
use crate::warehouse::{
    Result, Table, Warehouse, WarehouseError, check_schema, checksum, conform, io_err, utf8_column,
};

impl Warehouse {
    /// Merges each suite's files per table into one file. Rows of runs that never committed
    /// (no `runs` row: a writer died half-way) are kept in a file of their own, never dropped.
    /// The new partition directory is built aside and swapped in with one atomic
    /// `renameat2(RENAME_EXCHANGE)`, so readers see either the old files or the new one.
    pub fn compact(&self) -> Result<CompactReport> {
        let _lock = Lock::acquire(&self.root)?;
        let committed: HashSet<String> = self.runs()?.into_iter().map(|r| r.run_id).collect();
        let mut report = CompactReport::default();
        for table in Table::ALL {
            let mut by_suite: HashMap<String, Vec<PathBuf>> = HashMap::new();
            for (suite, path) in self.table_files(table)? {
                by_suite.entry(suite).or_default().push(path);
            }
            let mut suites: Vec<_> = by_suite.into_iter().collect();
            suites.sort();
            for (suite, files) in suites {
                if self.compact_partition(table, &suite, &files, &committed)? {
                    report.merged.push((table.name(), suite, files.len()));
                }
            }
        }
        let _ = fs::remove_dir_all(self.root.join(".staging"));
        Ok(report)
    }

    /// Compacts one partition, `files` being all of its files; returns whether it was
    /// rewritten (false: already one file of committed rows, at most one of orphans, each
    /// with its checksum, all verified).
    fn compact_partition(
        &self,
        table: Table,
        suite: &str,
        files: &[PathBuf],
        committed: &HashSet<String>,
    ) -> Result<bool> {
        if files.len() < 2 && files.iter().all(|p| checksum::expected_of(p).is_some()) {
            // One file, with its checksum: verified all the same (compact is a reader).
            for path in files {
                verified(path)?;
            }
            return Ok(false);
        }
        // Which files hold only committed rows, from their run_id column alone; then each
        // file is streamed, batch by batch, into the merged file of its kind, so memory
        // stays at one batch and one row group, whatever the partition holds.
        let classes = files
            .iter()
            .map(|path| {
                // Nothing is merged from a file whose bytes are not the ones written.
                verified(path)?;
                all_committed(path, committed)
            })
            .collect::<Result<Vec<bool>>>()?;
        let kept_files = classes.iter().filter(|c| **c).count();
        let orphan_files = classes.len() - kept_files;
        // Already one file of committed rows (and at most one of orphans), each with its
        // checksum: done. A file written before checksums is rewritten with one.
        let unverified = files.iter().any(|p| checksum::expected_of(p).is_none());
        if kept_files <= 1 && orphan_files <= 1 && !unverified {
            return Ok(false);
        }
        let staging = self.root.join(".staging").join(table.name());
        let _ = fs::remove_dir_all(&staging);
        fs::create_dir_all(&staging).map_err(io_err(&staging))?;
        merge_into(&staging, table, files, &classes)?;
        self.swap_in(&staging, &self.partition_dir(table, suite))?;
        Ok(true)
    }

    /// Swaps the partition built in `staging` for `live`, once no reader holds the old file
    /// names; new readers wait at the intent lock meanwhile.
    fn swap_in(&self, staging: &Path, live: &Path) -> Result<()> {
        let intent = Lock::take(&self.root.join(".compact.lock"), libc::LOCK_EX)?;
        let readers = Lock::take_within(
            &self.root.join(".readers.lock"),
            libc::LOCK_EX,
            READERS_WAIT,
            "a reader of the warehouse is still open",
        )?;
        exchange(staging, live)?;
        fs::remove_dir_all(staging).map_err(io_err(staging))?;
        drop(readers);
        drop(intent);
        Ok(())
    }
}

/// `path`'s bytes checked against the checksum its name carries.
fn verified(path: &Path) -> Result<()> {
    checksum::verify_file(path).map_err(|what| WarehouseError::Damaged {
        path: path.to_path_buf(),
        what,
    })
}

/// Streams `files` into `staging`: those whose `classes` entry is true (committed rows only)
/// into one file, the others (rows of runs that never committed) into another.
fn merge_into(staging: &Path, table: Table, files: &[PathBuf], classes: &[bool]) -> Result<()> {
    let stamp = uuid::Uuid::now_v7();
    // A file with nothing to merge it with (rewritten to get its digest) keeps its name's
    // stem, so a run's files stay named for it (`import` copies them).
    let alone = |want: bool, merged: String| {
        let mut of_class = files.iter().zip(classes).filter(|(_, c)| **c == want);
        match (of_class.next(), of_class.next()) {
            (Some((p, _)), None) => format!(
                "{}.parquet",
                checksum::stem(&p.file_name().expect("a file").to_string_lossy())
            ),
            _ => merged,
        }
    };
    let kept_name = alone(true, format!("compact-{stamp}.parquet"));
    let orphans_name = alone(false, format!("uncommitted-{stamp}.parquet"));
    let (mut kept, mut orphans): (Option<PartWriter>, Option<PartWriter>) = (None, None);
    for (path, committed_only) in files.iter().zip(classes) {
        let (writer, name) = if *committed_only {
            (&mut kept, &kept_name)
        } else {
            (&mut orphans, &orphans_name)
        };
        copy_batches(path, table, |batch| {
            if writer.is_none() {
                *writer = Some(PartWriter::create(staging, name, table.schema())?);
            }
            writer.as_mut().expect("created").append(batch)
        })?;
    }
    for w in [kept, orphans].into_iter().flatten() {
        w.finish()?;
    }
    Ok(())
}

/// Reads `path` batch by batch, each checked against and given the table's schema, into
/// `sink`.
fn copy_batches(
    path: &Path,
    table: Table,
    mut sink: impl FnMut(&RecordBatch) -> Result<()>,
) -> Result<()> {
    let file = File::open(path).map_err(io_err(path))?;
    let perr = |source| WarehouseError::Parquet {
        path: path.to_path_buf(),
        source,
    };
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(perr)?
        .with_batch_size(65_536)
        .build()
        .map_err(perr)?;
    for batch in reader {
        let batch = batch.map_err(|e| perr(ParquetError::ArrowError(e.to_string())))?;
        check_schema(table, std::slice::from_ref(&batch), path)?;
        // Files written before a column was added lack it: give them the table's schema
        // (NULLs) so one file can hold them all.
        let batch = conform(table, &batch).map_err(|source| WarehouseError::Arrow {
            table: table.name(),
            source,
        })?;
        sink(&batch)?;
    }
    Ok(())
}

#[derive(Debug, Default)]
pub struct CompactReport {
    /// (table, suite, files merged)
    pub merged: Vec<(&'static str, String, usize)>,
    /// Partitions another compaction committed first (object stores: see `remote::compact`).
    pub raced: Vec<String>,
}

/// Whether every row of the Parquet file at `path` belongs to a run in `committed` (or has no
/// run id), reading its `run_id` column only.
fn all_committed(path: &Path, committed: &HashSet<String>) -> Result<bool> {
    let perr = |source| WarehouseError::Parquet {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_err(path))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(perr)?;
    let mask =
        datafusion::parquet::arrow::ProjectionMask::columns(builder.parquet_schema(), ["run_id"]);
    for batch in builder.with_projection(mask).build().map_err(perr)? {
        let batch = batch.map_err(|e| perr(ParquetError::ArrowError(e.to_string())))?;
        let ids = utf8_column(&batch, "run_id", path)?;
        if !(0..batch.num_rows()).all(|i| ids.is_null(i) || committed.contains(ids.value(i))) {
            return Ok(false);
        }
    }
    Ok(true)
}
