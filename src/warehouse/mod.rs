//! The Parquet warehouse: Hive-partitioned tables, atomic append, blobs, compaction.
//!
//! Layout: `<root>/<table>/suite=<suite, percent-encoded>/<file>.parquet`, raw inputs under
//! `<root>/artifacts/blobs/<sha256[..2]>/<sha256>`. A run's files are written one table at a
//! time, each as `*.parquet.tmp` → fsync → rename, and the `runs` file goes last: readers see a
//! run's rows only through `runs`, so a writer that dies half-way leaves nothing visible.

pub mod batch;
pub mod schema;

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::error::ArrowError;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::parquet::basic::Compression;
use datafusion::parquet::errors::ParquetError;
use datafusion::parquet::file::properties::WriterProperties;
use sha2::{Digest, Sha256};

pub use schema::{SCHEMA_VERSION, Table};

use crate::model::{Annotation, Artifact, Run, RunData};

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

/// An exclusive advisory lock on the warehouse (`<root>/.lock`), held by appends and
/// compaction so a compaction never drops a file that a concurrent append is writing.
struct Lock(File);

impl Lock {
    fn acquire(root: &Path) -> Result<Lock> {
        let path = root.join(".lock");
        let file = File::options()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io_err(&path))?;
        // SAFETY: flock on a descriptor we own; blocks until the lock is free.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(io_err(&path)(io::Error::last_os_error()));
        }
        Ok(Lock(file))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // SAFETY: unlocking our own descriptor (closing it would release the lock too).
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

pub struct Warehouse {
    root: PathBuf,
}

impl Warehouse {
    /// Opens (creating if needed) a warehouse at `root`.
    pub fn open(root: impl Into<PathBuf>) -> Result<Warehouse> {
        let root = root.into();
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

    fn read_file(path: &Path) -> Result<Vec<RecordBatch>> {
        let file = File::open(path).map_err(io_err(path))?;
        let perr = |source| WarehouseError::Parquet {
            path: path.to_path_buf(),
            source,
        };
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(perr)?
            .build()
            .map_err(perr)?;
        reader
            .collect::<Result<Vec<_>, ArrowError>>()
            .map_err(|e| perr(ParquetError::ArrowError(e.to_string())))
    }

    /// Every committed run (one row per `runs` row).
    pub fn runs(&self) -> Result<Vec<RunEntry>> {
        let mut out = Vec::new();
        for (suite, path) in self.table_files(Table::Runs)? {
            for batch in Self::read_file(&path)? {
                let ids = batch
                    .column_by_name("run_id")
                    .expect("runs.run_id")
                    .as_string::<i32>();
                let digests = batch
                    .column_by_name("input_digest")
                    .expect("runs.input_digest")
                    .as_string::<i32>();
                for i in 0..batch.num_rows() {
                    out.push(RunEntry {
                        run_id: ids.value(i).to_string(),
                        suite: suite.clone(),
                        input_digest: digests.value(i).to_string(),
                    });
                }
            }
        }
        Ok(out)
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

    /// Copies a raw input file into the content-addressed blob store; returns its artifact row
    /// (the caller sets `trial_id`). `sha` and `bytes` are the file's [`sha256_file`], which
    /// the caller has already computed for the run's digest. Storing the same bytes twice keeps
    /// one copy.
    pub fn store_blob(&self, source: &Path, name: &str, sha: &str, bytes: i64) -> Result<Artifact> {
        let rel = format!("artifacts/blobs/{}/{}", &sha[..2], sha);
        let dest = self.root.join(&rel);
        if !dest.exists() {
            let dir = dest.parent().expect("blob has a parent");
            fs::create_dir_all(dir).map_err(io_err(dir))?;
            let tmp = dest.with_extension("tmp");
            fs::copy(source, &tmp).map_err(io_err(&tmp))?;
            File::open(&tmp)
                .and_then(|f| f.sync_all())
                .map_err(io_err(&tmp))?;
            fs::rename(&tmp, &dest).map_err(io_err(&dest))?;
        }
        Ok(Artifact {
            trial_id: None,
            name: name.to_string(),
            sha256: sha.to_string(),
            bytes,
            stored_path: rel,
        })
    }

    /// Appends one run atomically: every table's file first, `runs` last. When a run with the
    /// same `input_digest` is already committed, nothing is written and that run is returned
    /// (checked under the lock, so two concurrent ingests of one input add it once).
    pub fn append_run(&self, run: &Run, data: &RunData) -> Result<Option<RunEntry>> {
        Ok(self.append_runs(&[(run, data)])?.pop().flatten())
    }

    /// Appends many runs of one suite at once (an asv history): one file per table for all of
    /// them, `runs` last, so a thousand runs cost a handful of files rather than thousands.
    /// Returns, per run, the committed run with the same digest where there was one (that run
    /// is then left out).
    pub fn append_runs(&self, runs: &[(&Run, &RunData)]) -> Result<Vec<Option<RunEntry>>> {
        let Some((first, _)) = runs.first() else {
            return Ok(Vec::new());
        };
        let suite = first.suite.as_str();
        if runs.iter().any(|(r, _)| r.suite.is_empty()) {
            return Err(WarehouseError::EmptySuite);
        }
        assert!(
            runs.iter().all(|(r, _)| r.suite == suite),
            "append_runs takes runs of one suite"
        );
        let _lock = Lock::acquire(&self.root)?;
        let committed = self.runs()?;
        let by_digest: HashMap<&str, &RunEntry> = committed
            .iter()
            .map(|r| (r.input_digest.as_str(), r))
            .collect();
        let mut ids: std::collections::HashSet<&str> =
            committed.iter().map(|r| r.run_id.as_str()).collect();
        let mut digests = std::collections::HashSet::new();
        let mut outcome = Vec::with_capacity(runs.len());
        let mut fresh = Vec::new();
        for (run, data) in runs {
            if let Some(existing) = by_digest.get(run.input_digest.as_str()) {
                outcome.push(Some((*existing).clone()));
                continue;
            }
            if !ids.insert(run.run_id.as_str()) {
                return Err(WarehouseError::DuplicateRun(run.run_id.clone()));
            }
            // The same input twice in one batch lands once.
            if !digests.insert(run.input_digest.as_str()) {
                outcome.push(None);
                continue;
            }
            outcome.push(None);
            fresh.push((*run, *data));
        }
        let Some((lead, _)) = fresh.first() else {
            return Ok(outcome);
        };
        let arrow = |table: Table| {
            move |source| WarehouseError::Arrow {
                table: table.name(),
                source,
            }
        };
        // `Table::ALL` ends with `runs`, which must land last.
        let mut tables: Vec<(Table, Vec<RecordBatch>)> =
            Table::ALL.into_iter().map(|t| (t, Vec::new())).collect();
        let mut push =
            |table: Table, rows: usize, b: Result<RecordBatch, ArrowError>| -> Result<()> {
                if rows > 0 {
                    let slot = tables
                        .iter_mut()
                        .find(|(t, _)| *t == table)
                        .expect("listed");
                    slot.1.push(b.map_err(arrow(table))?);
                }
                Ok(())
            };
        for (run, data) in &fresh {
            let id = run.run_id.as_str();
            let notes: Vec<Annotation> = data
                .notes
                .iter()
                .map(|text| Annotation {
                    run_id: id.to_string(),
                    at_us: run.ingested_at_us,
                    text: text.clone(),
                })
                .collect();
            push(
                Table::Trials,
                data.trials.len(),
                batch::trials(id, &data.trials),
            )?;
            push(
                Table::Metrics,
                data.metrics.len(),
                batch::metrics(id, &data.metrics),
            )?;
            push(
                Table::Requests,
                data.requests.len(),
                batch::requests(id, &data.requests),
            )?;
            push(
                Table::CpuSamples,
                data.cpu_samples.len(),
                batch::cpu_samples(id, &data.cpu_samples),
            )?;
            push(
                Table::Stacks,
                data.stacks.len(),
                batch::stacks(id, &data.stacks),
            )?;
            push(
                Table::Artifacts,
                data.artifacts.len(),
                batch::artifacts(id, &data.artifacts),
            )?;
            push(Table::Annotations, notes.len(), batch::annotations(&notes))?;
            push(Table::Runs, 1, batch::runs(run))?;
        }
        // `runs` is last in the list: until its file lands, none of these rows is visible.
        for (table, batches) in tables {
            if !batches.is_empty() {
                let dir = self.partition_dir(table, suite);
                write_atomic(&dir, &format!("{}-0.parquet", lead.run_id), &batches)?;
            }
        }
        Ok(outcome)
    }

    /// Opens a writer for one more file of `table` rows of a run not yet committed (requests
    /// streamed from a large input). Its rows stay invisible until the run's `runs` row lands;
    /// a run that never lands leaves an orphan file that `check` reports and `discard` removes.
    pub fn part_writer(
        &self,
        table: Table,
        suite: &str,
        run_id: &str,
        part: usize,
    ) -> Result<PartWriter> {
        let dir = self.partition_dir(table, suite);
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let name = format!("{run_id}-p{part}.parquet");
        let tmp = dir.join(format!("{name}.tmp"));
        let file = File::create(&tmp).map_err(io_err(&tmp))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build();
        let writer = ArrowWriter::try_new(file, table.schema(), Some(props)).map_err(|source| {
            WarehouseError::Parquet {
                path: tmp.clone(),
                source,
            }
        })?;
        Ok(PartWriter {
            writer: Some(writer),
            path: dir.join(name),
            tmp,
            dir,
        })
    }

    /// Copies the runs of another warehouse (a bundled dataset kept as Parquet, e.g. a real
    /// `perfhouse run` with its CPU samples and stacks) that this one lacks: every table's
    /// files first, `runs` last, each file landing without replacing anything. Returns how
    /// many runs were added. Files are copied whole, so a bundle should hold whole runs only.
    pub fn import(&self, bundle: &Warehouse) -> Result<usize> {
        let _lock = Lock::acquire(&self.root)?;
        let have: std::collections::HashSet<String> = self
            .runs()?
            .into_iter()
            .flat_map(|r| [r.run_id, r.input_digest])
            .collect();
        let new: Vec<RunEntry> = bundle
            .runs()?
            .into_iter()
            .filter(|r| !have.contains(&r.run_id) && !have.contains(&r.input_digest))
            .collect();
        if new.is_empty() {
            return Ok(0);
        }
        let ids: std::collections::HashSet<&str> = new.iter().map(|r| r.run_id.as_str()).collect();
        // `Table::ALL` ends with `runs`: every other table's files land first.
        for table in Table::ALL {
            for (suite, path) in bundle.table_files(table)? {
                let name = path
                    .file_name()
                    .expect("a file")
                    .to_string_lossy()
                    .into_owned();
                let Some(id) = name.get(..36) else { continue };
                if !ids.contains(id) {
                    continue;
                }
                let dir = self.partition_dir(table, &suite);
                fs::create_dir_all(&dir).map_err(io_err(&dir))?;
                let tmp = dir.join(format!("{name}.tmp"));
                fs::copy(&path, &tmp).map_err(io_err(&tmp))?;
                File::open(&tmp)
                    .and_then(|f| f.sync_all())
                    .map_err(io_err(&tmp))?;
                rename_noreplace(&tmp, &dir.join(&name))?;
                fsync_dir(&dir)?;
            }
        }
        Ok(new.len())
    }

    /// Appends a note to an existing run.
    pub fn annotate(&self, run_id: &str, text: &str, at_us: i64) -> Result<()> {
        let entry = self.find_run(run_id)?;
        let _lock = Lock::acquire(&self.root)?;
        let note = Annotation {
            run_id: run_id.to_string(),
            at_us,
            text: text.to_string(),
        };
        let b = batch::annotations(&[note]).map_err(|source| WarehouseError::Arrow {
            table: "annotations",
            source,
        })?;
        let dir = self.partition_dir(Table::Annotations, &entry.suite);
        let file = format!("{run_id}-note-{}.parquet", uuid::Uuid::now_v7());
        write_atomic(&dir, &file, &[b])
    }

    /// Merges each suite's files per table into one file. Rows of runs that never committed
    /// (no `runs` row: a writer died half-way) are kept in a file of their own, never dropped.
    /// The new partition directory is built aside and swapped in with one atomic
    /// `renameat2(RENAME_EXCHANGE)`, so readers see either the old files or the new one.
    pub fn compact(&self) -> Result<CompactReport> {
        let _lock = Lock::acquire(&self.root)?;
        let committed: std::collections::HashSet<String> =
            self.runs()?.into_iter().map(|r| r.run_id).collect();
        let mut report = CompactReport::default();
        for table in Table::ALL {
            let mut by_suite: HashMap<String, Vec<PathBuf>> = HashMap::new();
            for (suite, path) in self.table_files(table)? {
                by_suite.entry(suite).or_default().push(path);
            }
            let mut suites: Vec<_> = by_suite.into_iter().collect();
            suites.sort();
            for (suite, files) in suites {
                if files.len() < 2 {
                    continue;
                }
                let (mut kept, mut orphans) = (Vec::new(), Vec::new());
                let (mut kept_files, mut orphan_files) = (0, 0);
                for path in &files {
                    let batches = Self::read_file(path)?;
                    let all_committed = batches.iter().all(|b| {
                        let ids = b.column_by_name("run_id").expect("every table has run_id");
                        let ids = ids.as_string::<i32>();
                        (0..b.num_rows())
                            .all(|i| ids.is_null(i) || committed.contains(ids.value(i)))
                    });
                    if all_committed {
                        kept_files += 1;
                        kept.extend(batches);
                    } else {
                        orphan_files += 1;
                        orphans.extend(batches);
                    }
                }
                // Already one file of committed rows (and at most one of orphans): done.
                if kept_files <= 1 && orphan_files <= 1 {
                    continue;
                }
                let staging = self.root.join(".staging").join(table.name());
                let _ = fs::remove_dir_all(&staging);
                fs::create_dir_all(&staging).map_err(io_err(&staging))?;
                let stamp = uuid::Uuid::now_v7();
                if !kept.is_empty() {
                    write_atomic(&staging, &format!("compact-{stamp}.parquet"), &kept)?;
                }
                if !orphans.is_empty() {
                    write_atomic(&staging, &format!("uncommitted-{stamp}.parquet"), &orphans)?;
                }
                let live = self.partition_dir(table, &suite);
                exchange(&staging, &live)?;
                fs::remove_dir_all(&staging).map_err(io_err(&staging))?;
                report
                    .merged
                    .push((table.name(), suite.clone(), files.len()));
            }
        }
        let _ = fs::remove_dir_all(self.root.join(".staging"));
        Ok(report)
    }
}

/// What `perfhouse check` found.
#[derive(Debug, Default)]
pub struct CheckReport {
    pub files: usize,
    pub rows: usize,
    pub runs: usize,
    /// Unreadable files, schema mismatches, missing or corrupt blobs: the warehouse is damaged.
    pub problems: Vec<String>,
    /// Rows of runs that never committed (a writer died): invisible, kept, worth knowing.
    pub notes: Vec<String>,
}

impl Warehouse {
    /// Verifies every Parquet file (readable, schema as `schema.rs` says), the linkage of every
    /// row to a committed run, and every kept raw input against its SHA-256.
    pub fn check(&self) -> Result<CheckReport> {
        let mut report = CheckReport::default();
        let committed: std::collections::HashSet<String> =
            self.runs()?.into_iter().map(|r| r.run_id).collect();
        report.runs = committed.len();
        for table in Table::ALL {
            let expected = table.schema();
            let mut orphans = 0usize;
            for (_, path) in self.table_files(table)? {
                report.files += 1;
                let batches = match Self::read_file(&path) {
                    Ok(b) => b,
                    Err(e) => {
                        report.problems.push(format!("unreadable: {e}"));
                        continue;
                    }
                };
                for b in &batches {
                    report.rows += b.num_rows();
                    for field in expected.fields() {
                        match b.schema().field_with_name(field.name()) {
                            Ok(f) if f.data_type() == field.data_type() => {}
                            Ok(f) => report.problems.push(format!(
                                "{}: column {} is {}, expected {}",
                                path.display(),
                                field.name(),
                                f.data_type(),
                                field.data_type()
                            )),
                            Err(_) if field.is_nullable() => {}
                            Err(_) => report.problems.push(format!(
                                "{}: column {} is missing",
                                path.display(),
                                field.name()
                            )),
                        }
                    }
                    if table != Table::Runs
                        && let Some(ids) = b.column_by_name("run_id")
                    {
                        let ids = ids.as_string::<i32>();
                        orphans += (0..b.num_rows())
                            .filter(|&i| !committed.contains(ids.value(i)))
                            .count();
                    }
                }
                if table == Table::Artifacts {
                    for b in &batches {
                        let shas = b
                            .column_by_name("sha256")
                            .expect("artifacts.sha256")
                            .as_string::<i32>();
                        let stored = b
                            .column_by_name("stored_path")
                            .expect("artifacts.stored_path")
                            .as_string::<i32>();
                        for i in 0..b.num_rows() {
                            let blob = self.root.join(stored.value(i));
                            match sha256_file(&blob) {
                                Ok((sha, _)) if sha == shas.value(i) => {}
                                Ok(_) => report.problems.push(format!(
                                    "{}: content does not match its sha256",
                                    blob.display()
                                )),
                                Err(e) => report.problems.push(format!("kept input missing: {e}")),
                            }
                        }
                    }
                }
            }
            if orphans > 0 {
                report.notes.push(format!(
                    "{}: {orphans} rows of runs that never committed (invisible; kept for inspection)",
                    table.name()
                ));
            }
        }
        Ok(report)
    }
}

#[derive(Debug, Default)]
pub struct CompactReport {
    /// (table, suite, files merged)
    pub merged: Vec<(&'static str, String, usize)>,
}

/// SHA-256 (hex) and size of a file, read in 64 KiB chunks.
pub fn sha256_file(path: &Path) -> Result<(String, i64)> {
    let mut file = File::open(path).map_err(io_err(path))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut bytes = 0i64;
    loop {
        let n = file.read(&mut buf).map_err(io_err(path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        bytes += n as i64;
    }
    Ok((hex::encode(hasher.finalize()), bytes))
}

/// Renames `from` to `to` unless `to` exists (`renameat2(RENAME_NOREPLACE)`): a file that
/// landed in the warehouse is never replaced.
fn rename_noreplace(from: &Path, to: &Path) -> Result<()> {
    match renameat2(from, to, libc::RENAME_NOREPLACE) {
        Ok(()) => Ok(()),
        Err(err) => {
            let _ = fs::remove_file(from);
            if err.kind() == io::ErrorKind::AlreadyExists {
                return Err(WarehouseError::Exists(to.to_path_buf()));
            }
            Err(io_err(to)(err))
        }
    }
}

/// Atomically swaps two directories (Linux `renameat2(RENAME_EXCHANGE)`).
fn exchange(a: &Path, b: &Path) -> Result<()> {
    renameat2(a, b, libc::RENAME_EXCHANGE).map_err(io_err(b))?;
    fsync_dir(b.parent().expect("partition has a parent"))
}

/// Linux `renameat2(2)` relative to the working directory, with `flags`.
fn renameat2(from: &Path, to: &Path, flags: libc::c_uint) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let cf = CString::new(from.as_os_str().as_bytes()).expect("path without NUL");
    let ct = CString::new(to.as_os_str().as_bytes()).expect("path without NUL");
    // SAFETY: two valid NUL-terminated paths; the syscall has no other preconditions.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            cf.as_ptr(),
            libc::AT_FDCWD,
            ct.as_ptr(),
            flags,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn fsync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
}

/// A file of one table's rows written batch by batch (each batch flushed as a row group, so
/// memory stays at one batch), landing under its final name only on [`PartWriter::finish`].
/// Dropped unfinished, it removes its temporary file.
pub struct PartWriter {
    writer: Option<ArrowWriter<File>>,
    path: PathBuf,
    tmp: PathBuf,
    dir: PathBuf,
}

impl PartWriter {
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let perr = |source| WarehouseError::Parquet {
            path: self.tmp.clone(),
            source,
        };
        let w = self.writer.as_mut().expect("not finished");
        w.write(batch).map_err(perr)?;
        w.flush().map_err(perr)
    }

    /// Lands the file (fsync, rename without replacing); returns its path.
    pub fn finish(mut self) -> Result<PathBuf> {
        let writer = self.writer.take().expect("not finished");
        let perr = |source| WarehouseError::Parquet {
            path: self.tmp.clone(),
            source,
        };
        let file = writer.into_inner().map_err(perr)?;
        file.sync_all().map_err(io_err(&self.tmp))?;
        drop(file);
        rename_noreplace(&self.tmp, &self.path)?;
        fsync_dir(&self.dir)?;
        Ok(self.path.clone())
    }
}

impl Drop for PartWriter {
    fn drop(&mut self) {
        if self.writer.is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `batches` to `dir/name` through `name.tmp`, fsync, rename, fsync of the directory.
pub fn write_atomic(dir: &Path, name: &str, batches: &[RecordBatch]) -> Result<()> {
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let path = dir.join(name);
    let tmp = dir.join(format!("{name}.tmp"));
    let perr = |source| WarehouseError::Parquet {
        path: tmp.clone(),
        source,
    };
    let file = File::create(&tmp).map_err(io_err(&tmp))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let schema = batches[0].schema();
    let mut writer = ArrowWriter::try_new(file, schema, Some(props)).map_err(perr)?;
    for b in batches {
        writer.write(b).map_err(perr)?;
    }
    let mut file = writer.into_inner().map_err(perr)?;
    file.flush().map_err(io_err(&tmp))?;
    file.sync_all().map_err(io_err(&tmp))?;
    drop(file);
    rename_noreplace(&tmp, &path)?;
    fsync_dir(dir)
}

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
