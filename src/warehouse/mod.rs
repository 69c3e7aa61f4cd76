//! The Parquet warehouse: Hive-partitioned tables, atomic append, blobs, compaction.
//!
//! Layout: `<root>/<table>/suite=<suite, percent-encoded>/<file>.parquet`, raw inputs under
//! `<root>/artifacts/blobs/<sha256[..2]>/<sha256>`. A run's files are written one table at a
//! time, each as `*.parquet.tmp` → fsync → rename, and the `runs` file goes last: readers see a
//! run's rows only through `runs`, so a writer that dies half-way leaves nothing visible.
//!
//! This file holds what every part shares: opening a warehouse, its paths and its errors.
//! The rest is split by concern:
//! * [`locks`]: the `flock`s of the commit protocol (writers, readers, compaction's swap);
//! * [`read`]: reading table files, the `runs` listing, damage and schema checks;
//! * [`blobs`]: the content-addressed store of raw inputs;
//! * [`append`]: a run's commit, streamed (in-flight) runs, notes and alert events;
//! * [`maintenance`]: `compact`, `check`, `gc` and `import`;
//! * [`files`]: filesystem primitives (landing a file without replacing, fsyncs, part files).

pub mod batch;
pub mod checksum;
pub mod layered;
pub mod remote;
pub mod schema;

mod append;
mod blobs;
mod files;
mod locks;
mod maintenance;
mod read;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use datafusion::arrow::error::ArrowError;
use datafusion::parquet::errors::ParquetError;

pub use append::InFlight;
pub use blobs::{StagedBlob, sha256_file};
pub use files::{PartWriter, write_atomic};
pub use locks::{INTENT_WAIT, Lock, READERS_WAIT};
pub use maintenance::{CheckReport, CompactReport, GcReport};
pub use read::DamageOnOpen;
pub use schema::{SCHEMA_VERSION, Table};

// Shared with `remote` (an object-store warehouse reads and merges the same files).
pub(crate) use files::part_props;
use read::{check_schema, conform, utf8_column};
pub(crate) use read::{read_parquet, run_entries};

#[derive(Debug, thiserror::Error)]
pub enum WarehouseError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}: {source}")]
    Parquet { path: PathBuf, source: ParquetError },
    #[error("building the {table} batch: {source}")]
    Arrow {
        table: &'static str,
        source: ArrowError,
    },
    #[error("run {0} is already in the warehouse; refusing to write over it")]
    DuplicateRun(String),
    #[error("{0}: already exists; refusing to replace a warehouse file")]
    Exists(PathBuf),
    #[error("suite name is empty: give --suite NAME")]
    EmptySuite,
    #[error("no run {0} in the warehouse (see `perfhouse query \"select run_id from runs\"`)")]
    UnknownRun(String),
    #[error("{path}: still locked after {waited:?} ({holder}); nothing was changed")]
    Busy {
        path: PathBuf,
        waited: Duration,
        holder: String,
    },
    #[error("{path}: {what}")]
    Schema { path: PathBuf, what: String },
    /// The store's own message says what failed and why (it nests its causes in it), so it
    /// is not chained again as a source.
    #[error("{what}: {cause}")]
    Store {
        what: String,
        cause: object_store::Error,
    },
    #[error("{0}")]
    Location(String),
    #[error("run {run}: {what}: values that are not finite are never stored; nothing was written")]
    NonFinite { run: String, what: String },
    /// A table file that cannot be read: every reading command stops on it, naming it.
    #[error(
        "{path}: damaged ({what}); nothing was read past it. `perfhouse check` lists every problem"
    )]
    Damaged { path: PathBuf, what: String },
    /// A file landed (renamed into place), then the fsync of its directory failed: the file
    /// is there, but its name may not survive a power loss.
    #[error("{dir}: {source}, syncing the directory after {file} landed in it")]
    NotSynced {
        dir: PathBuf,
        file: String,
        source: io::Error,
    },
    /// A name or value past its bound, or one that cannot be a name (see `crate::model::names`).
    #[error("run {run}: {what}; nothing was written")]
    BadName { run: String, what: String },
}

type Result<T, E = WarehouseError> = std::result::Result<T, E>;

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> WarehouseError + '_ {
    move |source| WarehouseError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Percent-encodes a suite name for its Hive partition directory. Letters, digits and `-_.`
/// stay as they are; DataFusion, DuckDB and pyarrow all decode `%XX` in partition values, so
/// any name round-trips and none can escape the table directory.
pub fn encode_partition_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_') || (b == b'.' && !out.is_empty()) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn decode_partition_value(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A committed run as listed from the `runs` table.
#[derive(Debug, Clone)]
pub struct RunEntry {
    pub run_id: String,
    pub suite: String,
    pub input_digest: String,
}

#[derive(Debug, Clone)]
pub struct Warehouse {
    root: PathBuf,
}

impl Warehouse {
    /// Opens (creating if needed) a warehouse at `root`.
    pub fn open(root: impl Into<PathBuf>) -> Result<Warehouse> {
        let root = root.into();
        // A `file://` warehouse compacted as an object store keeps merged files next to the
        // ones they replace until `gc`; only the object-store reader tells them apart.
        if root.join(remote::compact::RECORDS_DIR).is_dir() {
            return Err(WarehouseError::Location(format!(
                "{}: holds compaction records of an object-store warehouse (compactions/): open it as --warehouse file://{}",
                root.display(),
                std::path::absolute(&root)
                    .unwrap_or_else(|_| root.clone())
                    .display()
            )));
        }
        for table in Table::ALL {
            let dir = root.join(table.name());
            fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        }
        Ok(Warehouse { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn table_dir(&self, table: Table) -> PathBuf {
        self.root.join(table.name())
    }

    fn partition_dir(&self, table: Table, suite: &str) -> PathBuf {
        self.table_dir(table)
            .join(format!("suite={}", encode_partition_value(suite)))
    }

    /// The files of `table` that hold the runs `wanted` picks, by the run id their name starts
    /// with (`<run_id>-0.parquet`, `<run_id>-p<N>.parquet`; a batch's files are named by its
    /// first run): (suite, path, file name), sorted by path. Files are copied whole by `import`
    /// and `push`, so a warehouse to copy from should hold whole runs (not a compacted one).
    pub fn files_of_runs(
        &self,
        table: Table,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<Vec<(String, PathBuf, String)>> {
        let mut out = Vec::new();
        for (suite, path) in self.table_files(table)? {
            let name = path
                .file_name()
                .expect("a file")
                .to_string_lossy()
                .into_owned();
            if name.get(..36).is_some_and(&wanted) {
                out.push((suite, path, name));
            }
        }
        Ok(out)
    }

    /// Parquet files of a table, with the suite each belongs to, sorted by path.
    pub fn table_files(&self, table: Table) -> Result<Vec<(String, PathBuf)>> {
        let mut out = Vec::new();
        let dir = self.table_dir(table);
        let Ok(entries) = fs::read_dir(&dir) else {
            return Ok(out);
        };
        for entry in entries {
            let entry = entry.map_err(io_err(&dir))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(encoded) = name.strip_prefix("suite=") else {
                continue;
            };
            let suite = decode_partition_value(encoded);
            let part = entry.path();
            for file in fs::read_dir(&part).map_err(io_err(&part))? {
                let path = file.map_err(io_err(&part))?.path();
                if path.extension().is_some_and(|e| e == "parquet") {
                    out.push((suite.clone(), path));
                }
            }
        }
        out.sort_by(|a, b| a.1.cmp(&b.1));
        Ok(out)
    }
}

impl Warehouse {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_values_round_trip_and_stay_inside() {
        for s in [
            "dynamo-frontend",
            "<script>alert(1)</script>",
            "../../etc",
            "a b/c",
            ".",
            "é",
        ] {
            let enc = encode_partition_value(s);
            assert!(!enc.contains('/') && !enc.starts_with('.'), "{enc}");
            assert_eq!(decode_partition_value(&enc), s);
        }
        assert_eq!(encode_partition_value("dynamo-frontend"), "dynamo-frontend");
        assert_eq!(encode_partition_value("a b"), "a%20b");
    }
}
