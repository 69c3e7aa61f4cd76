//! The Parquet warehouse: Hive-partitioned tables, atomic append, blobs, compaction.
//!
//! Layout: `<root>/<table>/suite=<suite, percent-encoded>/<file>.parquet`, raw inputs under
//! `<root>/artifacts/blobs/<sha256[..2]>/<sha256>`. A run's files are written one table at a
//! time, each as `*.parquet.tmp` → fsync → rename, and the `runs` file goes last: readers see a
//! run's rows only through `runs`, so a writer that dies half-way leaves nothing visible.

pub mod batch;
pub mod checksum;
pub mod layered;
pub mod remote;
pub mod schema;

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

/// An advisory `flock(2)` on a file of the warehouse, released when dropped (or when the
/// process dies, so a killed writer never leaves a lock behind).
///
/// Two locks make the commit protocol:
/// * `<root>/.lock`, exclusive: held by every write *into a table partition* (a run's commit,
///   `annotate`, `import`, `compact`, `gc`). Streamed part files are written outside the
///   partitions (under `.inflight/<run>/`) and moved in under this lock, so a compaction never
///   sees a file of a run that is still being written, and `gc` (holding it) may treat every
///   uncommitted row it finds in a partition as garbage.
/// * `<root>/.readers.lock`: shared by every reader (a [`crate::query::Query`], the `runs`
///   listing) for as long as it reads; `compact` takes it exclusively only around each swap of
///   a partition, so a reader sees the old files or the new ones, never a missing file.
pub struct Lock(File);

impl Lock {
    fn acquire(root: &Path) -> Result<Lock> {
        Self::take(&root.join(".lock"), libc::LOCK_EX)
    }

    /// Blocks until `op` (`LOCK_EX` / `LOCK_SH`) is granted on `path` (created if needed).
    fn take(path: &Path, op: libc::c_int) -> Result<Lock> {
        let file = Self::open(path)?;
        // SAFETY: flock on a descriptor we own; it blocks until the lock is free.
        if unsafe { libc::flock(file.as_raw_fd(), op) } != 0 {
            return Err(io_err(path)(io::Error::last_os_error()));
        }
        Ok(Lock(file))
    }

    /// Tries `op` without blocking: `None` while another descriptor holds a conflicting lock.
    fn try_take(path: &Path, op: libc::c_int) -> Result<Option<Lock>> {
        let file = Self::open(path)?;
        // SAFETY: flock on a descriptor we own; LOCK_NB makes it return at once.
        if unsafe { libc::flock(file.as_raw_fd(), op | libc::LOCK_NB) } == 0 {
            return Ok(Some(Lock(file)));
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
            Ok(None)
        } else {
            Err(io_err(path)(err))
        }
    }

    /// `op` on `path`, polling until `wait` has passed; then an error saying who holds it.
    fn take_within(path: &Path, op: libc::c_int, wait: Duration, holder: &str) -> Result<Lock> {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(lock) = Self::try_take(path, op)? {
                return Ok(lock);
            }
            if Instant::now() >= deadline {
                return Err(WarehouseError::Busy {
                    path: path.to_path_buf(),
                    waited: wait,
                    holder: holder.to_string(),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn open(path: &Path) -> Result<File> {
        File::options()
            .create(true)
            .append(true)
            .open(path)
            // A warehouse the reader may not write to: a read-only descriptor still locks.
            // Where that fails too, the first error is the cause (an I/O error creating it,
            // not the "No such file" of a lock file that was never made).
            .or_else(|first| File::open(path).map_err(|_| first))
            .map_err(io_err(path))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // SAFETY: unlocking our own descriptor (closing it would release the lock too).
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

/// How long a new reader waits for a compaction's swap before it goes in anyway.
pub const INTENT_WAIT: Duration = Duration::from_secs(10);

/// How long `compact` waits for readers to finish before it gives up on a partition swap.
pub const READERS_WAIT: Duration = Duration::from_secs(600);

/// What [`Warehouse::damage_on_open`] found: the first damaged table file and what is wrong
/// with it, if any, and the files it verified by their checksum.
pub type DamageOnOpen = (Option<(PathBuf, String)>, Vec<PathBuf>);

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

    /// The batches of one table file, its checksum verified first (see [`checksum`]).
    fn read_file(path: &Path) -> Result<Vec<RecordBatch>> {
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
    fn read_runs_file(suite: &str, path: &Path) -> Result<Vec<RunEntry>> {
        run_entries(suite, &Self::read_file(path)?, path)
    }

    /// A shared lock on `.readers.lock` for as long as the guard lives: `compact` swaps no
    /// partition while it is held (see [`Lock`]).
    ///
    /// A compaction about to swap holds `.compact.lock` exclusively while it waits for the
    /// readers already in; a new reader first passes through that lock (shared), so a stream
    /// of readers cannot starve the swap (and, with it, every writer waiting on `.lock`). A
    /// reader nested in another of the same process (which the waiting swap would deadlock)
    /// goes in after [`INTENT_WAIT`] regardless.
    pub fn read_lock(&self) -> Result<Lock> {
        let intent = Lock::take_within(
            &self.root.join(".compact.lock"),
            libc::LOCK_SH,
            INTENT_WAIT,
            "a compaction is swapping a partition",
        );
        let readers = Lock::take(&self.root.join(".readers.lock"), libc::LOCK_SH)?;
        drop(intent);
        Ok(readers)
    }

    /// Held (shared) by every writer from its first staged byte to its commit (`ingest`,
    /// `run`): `gc` takes it exclusively, without waiting, before it removes what a writer may
    /// be holding (unfinished runs in `.inflight/`, temporary blob copies, kept inputs no
    /// committed run refers to yet). While any writer holds it, `gc` leaves all of those
    /// alone, whatever the grace period: a writer's files are never removed under it.
    pub fn writing(&self) -> Result<Lock> {
        fs::create_dir_all(&self.root).map_err(io_err(&self.root))?;
        Lock::take(&self.root.join(".writers.lock"), libc::LOCK_SH)
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

    /// Copies a raw input file into the content-addressed blob store (see
    /// [`Warehouse::hash_and_stage`]); returns its artifact row (the caller sets `trial_id`; `sha256` is the file's
    /// digest). Storing the same bytes twice keeps one copy.
    pub fn store_blob(&self, source: &Path, name: &str) -> Result<Artifact> {
        self.hash_and_stage(source)?.keep(name)
    }

    /// The copying half of [`Warehouse::store_blob`], to run ahead (ingest hashes and copies
    /// on another core while it parses). `source` is hashed first; where its bytes are stored
    /// already, nothing is copied. Otherwise it is copied by the kernel (`copy_file_range`,
    /// through `std::io::copy`: on this project's VM 2.8 GB took 0.8–1.0 s that way against
    /// 1.7–7 s written from a user buffer) into a temporary file of this writer's own
    /// (`artifacts/blobs/incoming/`), fsynced, and [`StagedBlob::keep`] moves it to its content
    /// address. The copy must be the bytes the digest names: if the input's identity (device,
    /// inode, size, modification and change times) differs after the copy from before the
    /// hash, or the copy's length does, it is copied again, hashing each byte written.
    /// Dropping the staged blob removes the copy, so a failed ingest leaves nothing.
    /// (Starting the write-back as the copy grows, with `sync_file_range`, was tried: it
    /// blocked on the disk queue and cost 1–2 s at 1 M records.)
    pub fn hash_and_stage(&self, source: &Path) -> Result<StagedBlob> {
        let before = file_identity(source);
        let (sha, bytes) = sha256_file(source)?;
        self.stage_hashed(source, before, &sha, bytes)
    }

    /// The rest of [`Warehouse::hash_and_stage`], given the identity `source` had before it
    /// was hashed and what the hash found.
    fn stage_hashed(
        &self,
        source: &Path,
        before: Option<FileIdentity>,
        sha: &str,
        bytes: i64,
    ) -> Result<StagedBlob> {
        let mut staged = self.staged(source, sha, bytes);
        if staged.dest.exists() {
            return Ok(staged);
        }
        let incoming = self.root.join("artifacts/blobs/incoming");
        fs::create_dir_all(&incoming).map_err(io_err(&incoming))?;
        let tmp = incoming.join(format!("{}.tmp", uuid::Uuid::now_v7()));
        let copied = (|| {
            let mut out = File::create_new(&tmp).map_err(io_err(&tmp))?;
            let mut input = File::open(source).map_err(io_err(source))?;
            let n = std::io::copy(&mut input, &mut out).map_err(io_err(&tmp))?;
            if n != bytes as u64 || before.is_none() || file_identity(source) != before {
                // Changed since it was hashed (or no identity to tell): one pass that hashes
                // exactly what it writes.
                drop(out);
                fs::remove_file(&tmp).map_err(io_err(&tmp))?;
                let (sha, bytes, out) = copy_hashing(source, &tmp)?;
                staged = self.staged(source, &sha, bytes);
                if staged.dest.exists() {
                    let _ = fs::remove_file(&tmp);
                    return Ok(staged);
                }
                out.sync_all().map_err(io_err(&tmp))?;
            } else {
                out.sync_all().map_err(io_err(&tmp))?;
            }
            staged.tmp = Some(tmp.clone());
            Ok(staged)
        })();
        if copied.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        copied
    }

    /// Where the blob of `sha` (a hex SHA-256) goes, nothing copied yet.
    fn staged(&self, source: &Path, sha: &str, bytes: i64) -> StagedBlob {
        let prefix = &sha[..2];
        let rel = format!("artifacts/blobs/{prefix}/{sha}");
        StagedBlob {
            source: source.to_path_buf(),
            dest: self.root.join(&rel),
            dir: self.root.join("artifacts/blobs").join(prefix),
            rel,
            sha: sha.to_string(),
            bytes,
            tmp: None,
        }
    }

    /// Removes the kept inputs `stored` (paths relative to the root, as in `artifacts`) that a
    /// writer created and then failed to commit, unless some `artifacts` row refers to them
    /// (another writer of the same bytes committed meanwhile). Under the commit lock, so no
    /// commit comes between the look and the removal; a writer that found the blob stored
    /// before it was removed fails its commit on it ("kept input vanished") and lands nothing.
    pub fn discard_blobs(&self, stored: &[String]) -> Result<()> {
        if stored.is_empty() {
            return Ok(());
        }
        let _lock = Lock::acquire(&self.root)?;
        let mut referenced = std::collections::HashSet::new();
        for (_, path) in self.table_files(Table::Artifacts)? {
            // An unreadable artifacts file may be what refers to them: keep them all.
            let batches = Self::read_file(&path)?;
            for b in &batches {
                let paths = utf8_column(b, "stored_path", &path)?;
                for i in 0..b.num_rows() {
                    referenced.insert(paths.value(i).to_string());
                }
            }
        }
        for rel in stored.iter().filter(|r| !referenced.contains(*r)) {
            let path = self.root.join(rel);
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_err(&path)(e)),
            }
            if let Some(dir) = path.parent() {
                let _ = fs::remove_dir(dir);
            }
        }
        Ok(())
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
            if let Some(what) = crate::model::names::run_problem(run, data) {
                return Err(WarehouseError::BadName {
                    run: run.run_id.clone(),
                    what,
                });
            }
            if let Some(m) = data.metrics.iter().find(|m| !m.value.is_finite()) {
                return Err(WarehouseError::NonFinite {
                    run: run.run_id.clone(),
                    what: format!("metric `{}` of trial {} is {}", m.name, m.trial_id, m.value),
                });
            }
            if let Some(s) = data.stacks.iter().find(|s| !s.weight.is_finite()) {
                return Err(WarehouseError::NonFinite {
                    run: run.run_id.clone(),
                    what: format!("a stack of trial {} weighs {}", s.trial_id, s.weight),
                });
            }
            // A scraped NaN (a summary without observations) is no value: the scraper leaves
            // it out. A bucket bound (`le`) may be +Inf.
            if let Some(s) = data.scrape_samples.iter().find(|s| !s.value.is_finite()) {
                return Err(WarehouseError::NonFinite {
                    run: run.run_id.clone(),
                    what: format!(
                        "scraped sample `{}` of trial {} is {}",
                        s.name, s.trial_id, s.value
                    ),
                });
            }
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
                Table::ScrapeSamples,
                data.scrape_samples.len(),
                batch::scrape_samples(id, &data.scrape_samples),
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
        // Streamed parts first, then one file per table; `runs` is last in the list: until
        // its file lands, none of these rows is visible. A commit that fails before then (disk
        // full, read-only) removes what it landed: a failed ingest leaves no bytes behind.
        let mut landed = Vec::new();
        let runs_dir = self.partition_dir(Table::Runs, suite);
        let committed = self.land_all(&fresh, tables, suite, &lead.run_id, &mut landed);
        // The `runs` file is the commit: once it is in place (even where the directory's
        // fsync after it failed) the run is visible, and its files stay.
        let runs_landed = landed.iter().any(|p| p.starts_with(&runs_dir));
        if committed.is_err() && !runs_landed {
            for path in landed.iter().rev() {
                let _ = fs::remove_file(path);
            }
        }
        committed?;
        Ok(outcome)
    }

    /// The file moves and writes of [`Warehouse::append_runs`]' commit, in order, each landed
    /// file's path pushed to `landed`.
    fn land_all(
        &self,
        fresh: &[(&Run, &RunData)],
        tables: Vec<(Table, Vec<RecordBatch>)>,
        suite: &str,
        lead: &str,
        landed: &mut Vec<PathBuf>,
    ) -> Result<()> {
        for (run, data) in fresh {
            // A kept input removed between storing and committing (a `gc` racing an ingest of
            // an old, unreferenced blob): fail the commit rather than refer to nothing.
            for a in &data.artifacts {
                let blob = self.root.join(&a.stored_path);
                if !blob.is_file() {
                    return Err(io_err(&blob)(io::Error::new(
                        io::ErrorKind::NotFound,
                        "kept input vanished before the run committed; ingest again",
                    )));
                }
            }
            self.land_inflight(&run.run_id, landed)?;
        }
        for (table, batches) in tables {
            if !batches.is_empty() {
                let dir = self.partition_dir(table, suite);
                // A fault-test hook: the disk fills as this table's file is written
                // (`benches/faults.sh` and the tests use it where no small tmpfs can be had).
                if std::env::var("PERFHOUSE_FAULT_ENOSPC").is_ok_and(|t| t == table.name()) {
                    return Err(io_err(&dir)(io::Error::from_raw_os_error(libc::ENOSPC)));
                }
                write_landing(&dir, &format!("{lead}-0.parquet"), &batches, landed)?;
            }
        }
        Ok(())
    }

    /// Starts writing a run whose rows are too many to hold (requests streamed from a large
    /// input): its part files go under `<root>/.inflight/<run_id>/`, outside every table, and
    /// move into their partitions when the run commits ([`Warehouse::append_runs`], under the
    /// lock). The returned guard holds a lock on that directory for as long as it lives, so
    /// `gc` knows the writer is alive; dropped, it removes the directory (after a commit it is
    /// empty, before one it holds rows nobody will see).
    pub fn begin_run(&self, run_id: &str) -> Result<InFlight> {
        let dir = self.inflight_dir(run_id);
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let lock = Lock::take(&dir.join(".lock"), libc::LOCK_EX)?;
        Ok(InFlight { dir, _lock: lock })
    }

    fn inflight_dir(&self, run_id: &str) -> PathBuf {
        self.root
            .join(".inflight")
            .join(encode_partition_value(run_id))
    }

    /// Moves the part files a run streamed under `.inflight/<run_id>/` into their partitions
    /// (without replacing anything). Called under the lock, before any other file of the run.
    fn land_inflight(&self, run_id: &str, landed: &mut Vec<PathBuf>) -> Result<()> {
        let dir = self.inflight_dir(run_id);
        if !dir.is_dir() {
            return Ok(());
        }
        for table in Table::ALL {
            let tdir = dir.join(table.name());
            let Ok(parts) = fs::read_dir(&tdir) else {
                continue;
            };
            for part in parts {
                let part = part.map_err(io_err(&tdir))?.path();
                let Some(suite_dir) = part.file_name().map(|n| n.to_owned()) else {
                    continue;
                };
                let live = self.table_dir(table).join(&suite_dir);
                fs::create_dir_all(&live).map_err(io_err(&live))?;
                for file in fs::read_dir(&part).map_err(io_err(&part))? {
                    let file = file.map_err(io_err(&part))?.path();
                    if file.extension().is_some_and(|e| e == "parquet")
                        && let Some(name) = file.file_name()
                    {
                        rename_noreplace(&file, &live.join(name))?;
                        landed.push(live.join(name));
                    }
                }
                fsync_dir(&live)?;
            }
        }
        Ok(())
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
        bundle.refuse_compacted()?;
        // `Table::ALL` ends with `runs`: every other table's files land first.
        for table in Table::ALL {
            for (suite, path, name) in bundle.files_of_runs(table, |id| ids.contains(id))? {
                let dir = self.partition_dir(table, &suite);
                fs::create_dir_all(&dir).map_err(io_err(&dir))?;
                let tmp = dir.join(format!("{name}.tmp"));
                // Read once: verified against its name's checksum as it is copied, and landed
                // with one (a bundle written before checksums gets its files' here).
                let copied = (|| {
                    let bytes = fs::read(&path).map_err(io_err(&path))?;
                    let digest = checksum::digest_of(&bytes);
                    if let Some(want) = checksum::expected(&name)
                        && want != digest
                    {
                        return Err(WarehouseError::Damaged {
                            path: path.clone(),
                            what: checksum::mismatch(digest, want),
                        });
                    }
                    let mut out = File::create_new(&tmp).map_err(io_err(&tmp))?;
                    out.write_all(&bytes).map_err(io_err(&tmp))?;
                    out.sync_all().map_err(io_err(&tmp))?;
                    Ok(dir.join(checksum::name_with(&name, digest)))
                })();
                if copied.is_err() {
                    let _ = fs::remove_file(&tmp);
                }
                rename_noreplace(&tmp, &copied?)?;
                fsync_dir(&dir)?;
            }
        }
        Ok(new.len())
    }

    /// Import copies a bundle's files whole, each named for its run; a compacted bundle's
    /// `compact-…` files hold many runs, so it is refused, naming one, rather than "imported"
    /// with nothing copied.
    fn refuse_compacted(&self) -> Result<()> {
        for table in Table::ALL {
            let files = self.table_files(table)?;
            let merged = files.iter().find(|(_, p)| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("compact-"))
            });
            if let Some((_, path)) = merged {
                return Err(WarehouseError::Schema {
                    path: path.clone(),
                    what: "a file of many runs (the bundle was compacted): import copies one \
                           run's files at a time; import from the warehouse before it was \
                           compacted, or query it directly with --warehouse; nothing was \
                           imported"
                        .to_string(),
                });
            }
        }
        Ok(())
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
        write_atomic(&dir, &file, &[b])?;
        Ok(())
    }

    /// Records a triage event of an alert on a committed run: one create-only file, written
    /// aside and renamed into place under the warehouse lock (like a note), so a reader sees
    /// the event whole or not at all, and `compact` merges it like any other row.
    pub fn record_alert(&self, event: &crate::model::AlertEvent) -> Result<()> {
        self.record_alerts(std::slice::from_ref(event))
    }

    /// Records triage events of several alerts (a commit entry's series): one file per suite,
    /// each landing whole (so a suite's alerts change state together), all under one lock.
    pub fn record_alerts(&self, events: &[crate::model::AlertEvent]) -> Result<()> {
        let mut by_suite: std::collections::BTreeMap<String, Vec<crate::model::AlertEvent>> =
            Default::default();
        // The runs read once for all events (a commit entry has dozens).
        let suites: HashMap<String, String> = self
            .runs()?
            .into_iter()
            .map(|r| (r.run_id, r.suite))
            .collect();
        for event in events {
            let suite = suites
                .get(&event.run_id)
                .ok_or_else(|| WarehouseError::UnknownRun(event.run_id.clone()))?;
            if !event.magnitude.is_finite() {
                return Err(WarehouseError::NonFinite {
                    run: event.run_id.clone(),
                    what: "alert magnitude".into(),
                });
            }
            by_suite
                .entry(suite.clone())
                .or_default()
                .push(event.clone());
        }
        let _lock = Lock::acquire(&self.root)?;
        for (suite, events) in by_suite {
            let b = batch::alert_events(&events).map_err(|source| WarehouseError::Arrow {
                table: "alerts",
                source,
            })?;
            let dir = self.partition_dir(Table::Alerts, &suite);
            let file = format!(
                "{}-alert-{}.parquet",
                events[0].run_id,
                uuid::Uuid::now_v7()
            );
            write_atomic(&dir, &file, &[b])?;
        }
        Ok(())
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
                if files.len() < 2 && files.iter().all(|p| checksum::expected_of(p).is_some()) {
                    // One file, with its checksum: verified all the same (compact is a reader).
                    for path in &files {
                        checksum::verify_file(path).map_err(|what| WarehouseError::Damaged {
                            path: path.clone(),
                            what,
                        })?;
                    }
                    continue;
                }
                // Which files hold only committed rows, from their run_id column alone; then
                // each file is streamed, batch by batch, into the merged file of its kind, so
                // memory stays at one batch and one row group, whatever the partition holds.
                let classes = files
                    .iter()
                    .map(|path| {
                        // Nothing is merged from a file whose bytes are not the ones written.
                        checksum::verify_file(path).map_err(|what| WarehouseError::Damaged {
                            path: path.clone(),
                            what,
                        })?;
                        all_committed(path, &committed)
                    })
                    .collect::<Result<Vec<bool>>>()?;
                let kept_files = classes.iter().filter(|c| **c).count();
                let orphan_files = classes.len() - kept_files;
                // Already one file of committed rows (and at most one of orphans), each with
                // its checksum: done. A file written before checksums is rewritten with one.
                let unverified = files.iter().any(|p| checksum::expected_of(p).is_none());
                if kept_files <= 1 && orphan_files <= 1 && !unverified {
                    continue;
                }
                let staging = self.root.join(".staging").join(table.name());
                let _ = fs::remove_dir_all(&staging);
                fs::create_dir_all(&staging).map_err(io_err(&staging))?;
                let stamp = uuid::Uuid::now_v7();
                // A file with nothing to merge it with (rewritten to get its digest) keeps
                // its name's stem, so a run's files stay named for it (`import` copies them).
                let alone = |want: bool, merged: String| {
                    let mut of_class = files.iter().zip(&classes).filter(|(_, c)| **c == want);
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
                let (mut kept, mut orphans): (Option<PartWriter>, Option<PartWriter>) =
                    (None, None);
                for (path, committed_only) in files.iter().zip(classes) {
                    let (writer, name) = if committed_only {
                        (&mut kept, kept_name.clone())
                    } else {
                        (&mut orphans, orphans_name.clone())
                    };
                    let file = File::open(path).map_err(io_err(path))?;
                    let perr = |source| WarehouseError::Parquet {
                        path: path.clone(),
                        source,
                    };
                    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
                        .map_err(perr)?
                        .with_batch_size(65_536)
                        .build()
                        .map_err(perr)?;
                    for batch in reader {
                        let batch =
                            batch.map_err(|e| perr(ParquetError::ArrowError(e.to_string())))?;
                        check_schema(table, std::slice::from_ref(&batch), path)?;
                        // Files written before a column was added lack it: give them the
                        // table's schema (NULLs) so one file can hold them all.
                        let batch =
                            conform(table, &batch).map_err(|source| WarehouseError::Arrow {
                                table: table.name(),
                                source,
                            })?;
                        if writer.is_none() {
                            *writer = Some(PartWriter::create(&staging, &name, table.schema())?);
                        }
                        writer.as_mut().expect("created").append(&batch)?;
                    }
                }
                for w in [kept, orphans].into_iter().flatten() {
                    w.finish()?;
                }
                let live = self.partition_dir(table, &suite);
                // No reader may hold the old file names across the swap; new readers wait
                // at the intent lock meanwhile.
                let intent = Lock::take(&self.root.join(".compact.lock"), libc::LOCK_EX)?;
                let readers = Lock::take_within(
                    &self.root.join(".readers.lock"),
                    libc::LOCK_EX,
                    READERS_WAIT,
                    "a reader of the warehouse is still open",
                )?;
                exchange(&staging, &live)?;
                fs::remove_dir_all(&staging).map_err(io_err(&staging))?;
                drop(readers);
                drop(intent);
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
    /// What a writer that died left behind and `perfhouse gc` removes: temporary files, rows
    /// of runs that never committed, unfinished runs in `.inflight/`, kept inputs no run uses.
    pub leftovers: Vec<String>,
}

/// What `perfhouse gc` removed (or, with `dry_run`, would remove) and what it left alone.
#[derive(Debug, Default)]
pub struct GcReport {
    pub removed: Vec<String>,
    pub bytes: u64,
    /// Leftovers younger than the grace period, or of a writer still running.
    pub spared: Vec<String>,
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

/// A read error as `check` lists it: a damaged file as `PATH: what` (its own message points
/// at `check`, which is where it is printed).
fn problem_text(e: &WarehouseError) -> String {
    match e {
        WarehouseError::Damaged { path, what } => format!("{}: {what}", path.display()),
        other => other.to_string(),
    }
}

fn age(path: &Path) -> Duration {
    fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .unwrap_or_default()
}

fn size_of(path: &Path) -> u64 {
    walkdir::WalkDir::new(path)
        .into_iter()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// Files in a table directory that are not landed Parquet (`*.tmp` of a writer that died).
fn stray_files(table_dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(table_dir)
        .min_depth(2)
        .max_depth(2)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_none_or(|e| e != "parquet"))
        .collect()
}

impl Warehouse {
    /// Committed runs read file by file: a `runs` file that cannot be read is a problem of
    /// its own, not the end of the check. The caller holds the readers lock.
    fn runs_tolerant(&self, problems: &mut Vec<String>) -> Result<Vec<RunEntry>> {
        let mut out = Vec::new();
        for (suite, path) in self.table_files(Table::Runs)? {
            if fs::metadata(&path).is_ok_and(|m| m.len() == 0) {
                problems.push(format!(
                    "{}: 0 bytes (a runs file must never be empty: the runs it held are invisible)",
                    path.display()
                ));
                continue;
            }
            match Self::read_runs_file(&suite, &path) {
                Ok(r) => out.extend(r),
                Err(e) => problems.push(format!("unreadable runs file: {}", problem_text(&e))),
            }
        }
        Ok(out)
    }

    /// Verifies every Parquet file (readable, schema as `schema.rs` says), the linkage of every
    /// row to a committed run, every kept raw input against its SHA-256, and lists every
    /// leftover `gc` would remove.
    pub fn check(&self) -> Result<CheckReport> {
        // One reader from the first file to the last: a compaction cannot swap a partition
        // between listing a file and reading it.
        let _readers = self.read_lock()?;
        let mut report = CheckReport::default();
        let committed: std::collections::HashSet<String> = self
            .runs_tolerant(&mut report.problems)?
            .into_iter()
            .map(|r| r.run_id)
            .collect();
        report.runs = committed.len();
        let mut referenced = std::collections::HashSet::new();
        let mut unverified = 0usize;
        for table in Table::ALL {
            let mut orphans = 0usize;
            for stray in stray_files(&self.table_dir(table)) {
                report.leftovers.push(format!(
                    "{}: not a landed file (a writer died before renaming it)",
                    stray.display()
                ));
            }
            for (_, path) in self.table_files(table)? {
                report.files += 1;
                unverified += usize::from(checksum::expected_of(&path).is_none());
                if fs::metadata(&path).is_ok_and(|m| m.len() == 0) {
                    if table != Table::Runs {
                        report.problems.push(format!("{}: 0 bytes", path.display()));
                    }
                    continue;
                }
                let batches = match Self::read_file(&path) {
                    Ok(b) => b,
                    Err(e) => {
                        if table != Table::Runs {
                            report
                                .problems
                                .push(format!("unreadable: {}", problem_text(&e)));
                        }
                        continue;
                    }
                };
                let mut file_orphans = 0usize;
                for b in &batches {
                    report.rows += b.num_rows();
                    for what in schema_differences(table, b) {
                        report.problems.push(format!("{}: {what}", path.display()));
                    }
                    if table != Table::Runs
                        && let Some(ids) = b.column_by_name("run_id")
                        && let Some(ids) = ids.as_string_opt::<i32>()
                    {
                        file_orphans += (0..b.num_rows())
                            .filter(|&i| !committed.contains(ids.value(i)))
                            .count();
                    }
                }
                orphans += file_orphans;
                if file_orphans > 0 {
                    report.leftovers.push(format!(
                        "{}: {file_orphans} rows of runs that never committed",
                        path.display()
                    ));
                }
                if table == Table::Artifacts {
                    for b in &batches {
                        let cols = (
                            utf8_column(b, "run_id", &path),
                            utf8_column(b, "sha256", &path),
                            utf8_column(b, "stored_path", &path),
                        );
                        let (Ok(ids), Ok(shas), Ok(stored)) = cols else {
                            continue; // reported above as a schema difference
                        };
                        for i in 0..b.num_rows() {
                            if !committed.contains(ids.value(i)) {
                                continue;
                            }
                            referenced.insert(self.root.join(stored.value(i)));
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
                    "{}: {orphans} rows of runs that never committed (invisible; `perfhouse gc` removes them)",
                    table.name()
                ));
            }
        }
        if unverified > 0 {
            report.notes.push(format!(
                "{unverified} table files carry no checksum in their name (written before checksums, or by another tool): read unverified; `perfhouse compact` rewrites them with one"
            ));
        }
        for (path, what) in self.loose_ends(&referenced) {
            report.leftovers.push(format!("{}: {what}", path.display()));
        }
        Ok(report)
    }

    /// Leftovers outside the tables: compaction staging, unfinished runs, blobs no committed
    /// run uses and temporary blob copies.
    fn loose_ends(
        &self,
        referenced: &std::collections::HashSet<PathBuf>,
    ) -> Vec<(PathBuf, String)> {
        let mut out = Vec::new();
        let staging = self.root.join(".staging");
        if staging.exists() {
            out.push((staging, "a compaction that did not finish".to_string()));
        }
        if let Ok(dirs) = fs::read_dir(self.root.join(".inflight")) {
            for d in dirs.flatten() {
                out.push((
                    d.path(),
                    "a run being written, or one whose writer died".to_string(),
                ));
            }
        }
        let blobs = self.root.join("artifacts/blobs");
        for e in walkdir::WalkDir::new(&blobs)
            .min_depth(2)
            .max_depth(2)
            .into_iter()
            .flatten()
        {
            let p = e.path().to_path_buf();
            if p.extension().is_some_and(|x| x == "tmp") {
                out.push((p, "a temporary copy of a kept input".to_string()));
            } else if !referenced.contains(&p) {
                out.push((p, "a kept input no committed run refers to".to_string()));
            }
        }
        out
    }

    /// Removes what writers that died left behind: `*.tmp` files and rows of runs that never
    /// committed in the tables (safe at once: every write into a partition holds the lock that
    /// `gc` holds), finished compaction staging, and, once older than `grace`, unfinished runs
    /// whose writer no longer holds their lock and kept inputs that no committed run uses.
    /// With `dry_run`, only says what it would remove.
    pub fn gc(&self, grace: Duration, dry_run: bool) -> Result<GcReport> {
        let _lock = Lock::acquire(&self.root)?;
        // Held until gc returns: a writer starting meanwhile waits for it (see `writing`).
        let writers = Lock::try_take(&self.root.join(".writers.lock"), libc::LOCK_EX)?;
        let mut report = GcReport::default();
        let committed: std::collections::HashSet<String> =
            self.runs()?.into_iter().map(|r| r.run_id).collect();
        let remove = |path: &Path, why: &str, report: &mut GcReport| -> Result<()> {
            let bytes = size_of(path);
            if !dry_run {
                let r = if path.is_dir() {
                    fs::remove_dir_all(path)
                } else {
                    fs::remove_file(path)
                };
                match r {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                    Err(e) => return Err(io_err(path)(e)),
                }
            }
            report.bytes += bytes;
            report.removed.push(format!("{} ({why})", path.display()));
            Ok(())
        };
        let mut referenced = std::collections::HashSet::new();
        let mut blobs_unsure = false;
        for table in Table::ALL {
            for stray in stray_files(&self.table_dir(table)) {
                remove(&stray, "temporary file of a writer that died", &mut report)?;
            }
            for (_, path) in self.table_files(table)? {
                let Ok(batches) = Self::read_file(&path) else {
                    // Damage, not a leftover: `check` reports it, gc keeps it, and keeps every
                    // blob too, since this file may be what refers to them.
                    blobs_unsure |= table == Table::Artifacts;
                    continue;
                };
                if table == Table::Runs {
                    continue;
                }
                let (mut rows, mut live) = (0usize, 0usize);
                for b in &batches {
                    let Ok(ids) = utf8_column(b, "run_id", &path) else {
                        live += 1; // a foreign file: not ours to judge
                        blobs_unsure |= table == Table::Artifacts;
                        continue;
                    };
                    rows += b.num_rows();
                    for i in 0..b.num_rows() {
                        if committed.contains(ids.value(i)) {
                            live += 1;
                            if table == Table::Artifacts
                                && let Ok(stored) = utf8_column(b, "stored_path", &path)
                            {
                                referenced.insert(self.root.join(stored.value(i)));
                            }
                        }
                    }
                }
                if live == 0 && rows > 0 {
                    remove(&path, "rows of runs that never committed", &mut report)?;
                } else if live < rows {
                    report.spared.push(format!(
                        "{}: mixes committed rows with {} of runs that never committed (left as it is)",
                        path.display(),
                        rows - live
                    ));
                }
            }
        }
        for (path, what) in self.loose_ends(&referenced) {
            if path.ends_with(".staging") {
                remove(&path, &what, &mut report)?;
                continue;
            }
            let blob = path.starts_with(self.root.join("artifacts"));
            if writers.is_none() {
                report.spared.push(format!(
                    "{}: {what}; a writer is running (it holds .writers.lock): left for a gc when none is",
                    path.display()
                ));
                continue;
            }
            if blob && blobs_unsure {
                report.spared.push(format!(
                    "{}: {what}, kept while an artifacts file cannot be read",
                    path.display()
                ));
                continue;
            }
            let young = age(&path) < grace;
            let writing = path.parent().is_some_and(|p| p.ends_with(".inflight"))
                && Lock::try_take(&path.join(".lock"), libc::LOCK_EX)?.is_none();
            if writing {
                report
                    .spared
                    .push(format!("{}: its writer is still running", path.display()));
            } else if young {
                report.spared.push(format!(
                    "{}: {what}, younger than the grace period ({grace:?})",
                    path.display()
                ));
            } else {
                remove(&path, &what, &mut report)?;
            }
        }
        Ok(report)
    }
}

#[derive(Debug, Default)]
pub struct CompactReport {
    /// (table, suite, files merged)
    pub merged: Vec<(&'static str, String, usize)>,
    /// Partitions another compaction committed first (object stores: see `remote::compact`).
    pub raced: Vec<String>,
}

/// A raw input copied ahead into the blob store under a temporary name (see
/// [`Warehouse::hash_and_stage`]).
#[derive(Debug)]
pub struct StagedBlob {
    source: PathBuf,
    dest: PathBuf,
    dir: PathBuf,
    rel: String,
    sha: String,
    bytes: i64,
    /// The copy, where the blob was not stored yet.
    tmp: Option<PathBuf>,
}

impl StagedBlob {
    /// The input's SHA-256 (hex).
    pub fn sha(&self) -> &str {
        &self.sha
    }

    /// Moves the copy to its content address (or, where those bytes are stored already, makes
    /// that blob young again so `gc`'s grace period spares it until the run commits) and
    /// returns the artifact row.
    pub fn keep(self, name: &str) -> Result<Artifact> {
        Ok(self.keep_created(name)?.0)
    }

    /// [`StagedBlob::keep`], also saying whether this call created the blob (true) or found
    /// those bytes stored already (false): a writer whose commit then fails removes what it
    /// created ([`Warehouse::discard_blobs`]).
    pub fn keep_created(mut self, name: &str) -> Result<(Artifact, bool)> {
        let mut created = false;
        match self.tmp.take() {
            Some(tmp) => {
                // A copy staged in `incoming/` lands in a directory that may not exist yet.
                fs::create_dir_all(&self.dir).map_err(io_err(&self.dir))?;
                match rename_noreplace(&tmp, &self.dest) {
                    Ok(()) => created = true,
                    // Another writer stored the same bytes first.
                    Err(WarehouseError::Exists(_)) => {
                        let _ = fs::remove_file(&tmp);
                    }
                    Err(e) => {
                        let _ = fs::remove_file(&tmp);
                        return Err(e);
                    }
                }
                fsync_dir(&self.dir)?;
            }
            None if self.dest.exists() => {
                let _ = File::options()
                    .append(true)
                    .open(&self.dest)
                    .and_then(|f| f.set_modified(std::time::SystemTime::now()));
            }
            // Stored when staged, gone since (an unreferenced blob past its grace period):
            // copy it again, if the input still holds the bytes its digest names.
            None => {
                fs::create_dir_all(&self.dir).map_err(io_err(&self.dir))?;
                let tmp = self
                    .dir
                    .join(format!("{}.{}.tmp", self.sha, uuid::Uuid::now_v7()));
                self.tmp = Some(tmp.clone());
                let (sha, _, file) = copy_hashing(&self.source, &tmp)?;
                if sha != self.sha {
                    return Err(WarehouseError::Schema {
                        path: self.source.clone(),
                        what: format!(
                            "changed while it was ingested (was {}, now {sha})",
                            self.sha
                        ),
                    });
                }
                file.sync_all().map_err(io_err(&tmp))?;
                return self.keep_created(name);
            }
        }
        Ok((
            Artifact {
                trial_id: None,
                name: name.to_string(),
                sha256: self.sha.clone(),
                bytes: self.bytes,
                stored_path: self.rel.clone(),
            },
            created,
        ))
    }
}

impl Drop for StagedBlob {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = fs::remove_file(tmp);
            // The prefix directory too, where this copy made it and nothing else is in it
            // (a writer about to copy into it recreates it: `copy_into`).
            let _ = fs::remove_dir(&self.dir);
        }
    }
}

/// (device, inode, size, mtime s, mtime ns, ctime s, ctime ns) of a file.
type FileIdentity = (u64, u64, u64, i64, i64, i64, i64);

/// What tells whether a file changed between two looks at it: (device, inode, size,
/// modification time, change time). `None` where it cannot be read (or off Unix).
fn file_identity(path: &Path) -> Option<FileIdentity> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = fs::metadata(path).ok()?;
        Some((
            m.dev(),
            m.ino(),
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        ))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// Copies `source` to `dest` (created, never replaced, not yet fsynced) and returns the
/// SHA-256 (hex) and size of the bytes copied, read once, with the open copy.
fn copy_hashing(source: &Path, dest: &Path) -> Result<(String, i64, File)> {
    let mut out = File::create_new(dest).map_err(io_err(dest))?;
    let (sha, bytes) = digest(source, Some((dest, &mut out)))?;
    Ok((sha, bytes, out))
}

/// SHA-256 (hex) and size of a file.
pub fn sha256_file(path: &Path) -> Result<(String, i64)> {
    digest(path, None)
}

/// SHA-256 (hex) and size of `path`, read in 1 MiB chunks, each also written to `copy` where
/// given.
fn digest(path: &Path, mut copy: Option<(&Path, &mut File)>) -> Result<(String, i64)> {
    let mut file = File::open(path).map_err(io_err(path))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0i64;
    loop {
        let n = file.read(&mut buf).map_err(io_err(path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        if let Some((dest, out)) = copy.as_mut() {
            out.write_all(&buf[..n]).map_err(io_err(dest))?;
        }
        bytes += n as i64;
    }
    Ok((hex::encode(hasher.finalize()), bytes))
}

/// Whether every row of the Parquet file at `path` belongs to a run in `committed` (or has no
/// run id), reading its `run_id` column only.
fn all_committed(path: &Path, committed: &std::collections::HashSet<String>) -> Result<bool> {
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
fn utf8_column<'a>(
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
fn schema_differences(table: Table, batch: &RecordBatch) -> Vec<String> {
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
fn conform(table: Table, batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
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

fn check_schema(table: Table, batches: &[RecordBatch], path: &Path) -> Result<()> {
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

/// A run being written (see [`Warehouse::begin_run`]).
pub struct InFlight {
    dir: PathBuf,
    _lock: Lock,
}

impl InFlight {
    /// A writer for one more file of `table` rows of this run (`part` numbers the files).
    pub fn part_writer(
        &self,
        table: Table,
        suite: &str,
        run_id: &str,
        part: usize,
    ) -> Result<PartWriter> {
        let dir = self
            .dir
            .join(table.name())
            .join(format!("suite={}", encode_partition_value(suite)));
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        PartWriter::create(&dir, &format!("{run_id}-p{part}.parquet"), table.schema())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A file of one table's rows written batch by batch (each batch flushed as a row group, so
/// memory stays at one batch), landing under its final name only on [`PartWriter::finish`].
/// Dropped unfinished, it removes its temporary file.
pub struct PartWriter {
    writer: Option<ArrowWriter<checksum::HashingWriter<File>>>,
    /// The name it lands under, less its checksum.
    name: String,
    tmp: PathBuf,
    dir: PathBuf,
}

impl PartWriter {
    /// A writer of `dir/name` (through `name.tmp`; `dir` exists).
    fn create(
        dir: &Path,
        name: &str,
        schema: datafusion::arrow::datatypes::SchemaRef,
    ) -> Result<PartWriter> {
        let tmp = dir.join(format!("{name}.tmp"));
        let file = File::create(&tmp).map_err(io_err(&tmp))?;
        let writer = ArrowWriter::try_new(
            checksum::HashingWriter::new(file),
            schema,
            Some(part_props()),
        )
        .map_err(|source| WarehouseError::Parquet {
            path: tmp.clone(),
            source,
        })?;
        Ok(PartWriter {
            writer: Some(writer),
            name: name.to_string(),
            tmp,
            dir: dir.to_path_buf(),
        })
    }

    /// Adds `batch` to the row group being built (a new one starts every 1 M rows).
    fn append(&mut self, batch: &RecordBatch) -> Result<()> {
        let w = self.writer.as_mut().expect("not finished");
        w.write(batch).map_err(|source| WarehouseError::Parquet {
            path: self.tmp.clone(),
            source,
        })
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let perr = |source| WarehouseError::Parquet {
            path: self.tmp.clone(),
            source,
        };
        let w = self.writer.as_mut().expect("not finished");
        w.write(batch).map_err(perr)?;
        w.flush().map_err(perr)
    }

    /// Lands the file (fsync, rename without replacing) under its name with its checksum;
    /// returns its path.
    pub fn finish(mut self) -> Result<PathBuf> {
        let writer = self.writer.take().expect("not finished");
        let perr = |source| WarehouseError::Parquet {
            path: self.tmp.clone(),
            source,
        };
        let landed = (|| {
            let (file, digest) = writer.into_inner().map_err(perr)?.finish();
            file.sync_all().map_err(io_err(&self.tmp))?;
            drop(file);
            let path = self.dir.join(checksum::name_with(&self.name, digest));
            rename_noreplace(&self.tmp, &path)?;
            Ok(path)
        })();
        if landed.is_err() {
            let _ = fs::remove_file(&self.tmp);
        }
        let path = landed?;
        synced_after(&self.dir, &path)?;
        Ok(path)
    }
}

impl Drop for PartWriter {
    fn drop(&mut self) {
        if self.writer.is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// How every warehouse Parquet file is written (Snappy pages; other engines read it).
pub(crate) fn part_props() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build()
}

/// Writes `batches` to `dir/name` through `name.tmp`, fsync, rename, fsync of the directory;
/// the file lands under `name` with its checksum in it ([`checksum::name_with`]), and that
/// path is returned.
pub fn write_atomic(dir: &Path, name: &str, batches: &[RecordBatch]) -> Result<PathBuf> {
    write_landing(dir, name, batches, &mut Vec::new())
}

/// [`write_atomic`], pushing the file's path to `landed` as soon as it is in place (before the
/// directory's fsync, which may still fail), so a commit that fails can find what it landed.
fn write_landing(
    dir: &Path,
    name: &str,
    batches: &[RecordBatch],
    landed: &mut Vec<PathBuf>,
) -> Result<PathBuf> {
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let tmp = dir.join(format!("{name}.tmp"));
    let perr = |source| WarehouseError::Parquet {
        path: tmp.clone(),
        source,
    };
    let written = (|| {
        let file = File::create(&tmp).map_err(io_err(&tmp))?;
        let props = part_props();
        let schema = batches[0].schema();
        let mut writer =
            ArrowWriter::try_new(checksum::HashingWriter::new(file), schema, Some(props))
                .map_err(perr)?;
        for b in batches {
            writer.write(b).map_err(perr)?;
        }
        let (mut file, digest) = writer.into_inner().map_err(perr)?.finish();
        file.flush().map_err(io_err(&tmp))?;
        file.sync_all().map_err(io_err(&tmp))?;
        drop(file);
        let path = dir.join(checksum::name_with(name, digest));
        rename_noreplace(&tmp, &path)?;
        Ok(path)
    })();
    if written.is_err() {
        // A failed write (disk full, read-only) leaves nothing behind.
        let _ = fs::remove_file(&tmp);
    }
    let path = written?;
    landed.push(path.clone());
    synced_after(dir, &path)?;
    Ok(path)
}

/// The fsync of `dir` after `landed` was renamed into it, its failure saying so.
fn synced_after(dir: &Path, landed: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|source| WarehouseError::NotSynced {
            dir: dir.to_path_buf(),
            file: landed
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One read hashes and copies: the digest is `sha256_file`'s, the kept blob holds the
    /// bytes, a second staging of the same bytes copies nothing, and nothing stays in
    /// `incoming/` whether a staged copy is kept or dropped.
    #[test]
    fn hash_and_stage_copies_what_it_hashes() {
        let dir = tempfile::tempdir().unwrap();
        let wh = Warehouse::open(dir.path().join("wh")).unwrap();
        let src = dir.path().join("input.jsonl");
        // Several of the copy's 1 MiB chunks.
        let body: Vec<u8> = (0..(17u32 << 20)).map(|i| (i % 251) as u8).collect();
        fs::write(&src, &body).unwrap();
        let staged = wh.hash_and_stage(&src).unwrap();
        let (sha, bytes) = (staged.sha().to_string(), staged.bytes);
        assert_eq!((sha.clone(), bytes), sha256_file(&src).unwrap());
        let artifact = staged.keep("input.jsonl").unwrap();
        let stored = dir.path().join("wh").join(&artifact.stored_path);
        assert_eq!(fs::read(&stored).unwrap(), body);
        let incoming = dir.path().join("wh/artifacts/blobs/incoming");
        assert_eq!(fs::read_dir(&incoming).unwrap().count(), 0);
        // The same bytes again: already stored, so no copy is staged.
        let staged = wh.hash_and_stage(&src).unwrap();
        assert_eq!(staged.sha(), sha);
        assert!(staged.tmp.is_none());
        assert_eq!(fs::read_dir(&incoming).unwrap().count(), 0);
        // Changed in place with the same size and modification time: the digest tells, and
        // the new bytes are copied.
        let mut changed = body.clone();
        changed[5] ^= 1;
        rewrite_keeping_mtime(&src, &changed);
        let staged = wh.hash_and_stage(&src).unwrap();
        assert_eq!(staged.sha(), sha256_file(&src).unwrap().0);
        assert_ne!(staged.sha(), sha);
        let artifact = staged.keep("input.jsonl").unwrap();
        let stored = dir.path().join("wh").join(&artifact.stored_path);
        assert_eq!(fs::read(&stored).unwrap(), changed);
        // New bytes staged and dropped (a failed ingest): the copy goes.
        fs::write(&src, b"other").unwrap();
        let staged = wh.hash_and_stage(&src).unwrap();
        assert_eq!(fs::read_dir(&incoming).unwrap().count(), 1);
        drop(staged);
        assert_eq!(fs::read_dir(&incoming).unwrap().count(), 0);
    }

    /// Writes `bytes` over `path` in place and puts its old modification time back.
    fn rewrite_keeping_mtime(path: &Path, bytes: &[u8]) {
        let mtime = fs::metadata(path).unwrap().modified().unwrap();
        fs::write(path, bytes).unwrap();
        fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    }

    /// The input changes between its hash and its copy (another process rewrites it): the
    /// identity taken before the hash differs after the copy, so it is copied again hashing
    /// what it writes, and the kept blob is the bytes its digest names.
    #[test]
    fn an_input_changed_between_hash_and_copy_is_copied_again_with_its_own_digest() {
        let dir = tempfile::tempdir().unwrap();
        let wh = Warehouse::open(dir.path().join("wh")).unwrap();
        let src = dir.path().join("input.jsonl");
        let old: Vec<u8> = (0..(3u32 << 20)).map(|i| (i % 241) as u8).collect();
        fs::write(&src, &old).unwrap();
        let before = file_identity(&src);
        let (sha, bytes) = sha256_file(&src).unwrap();
        // Rewritten in place, same size, the old modification time put back.
        let mut new = old.clone();
        new[1 << 20] ^= 0xff;
        rewrite_keeping_mtime(&src, &new);
        let staged = wh.stage_hashed(&src, before, &sha, bytes).unwrap();
        let (new_sha, _) = sha256_file(&src).unwrap();
        assert_ne!(new_sha, sha);
        assert_eq!(staged.sha(), new_sha);
        let artifact = staged.keep("input.jsonl").unwrap();
        let stored = dir.path().join("wh").join(&artifact.stored_path);
        assert_eq!(fs::read(&stored).unwrap(), new);
        assert!(artifact.stored_path.ends_with(&new_sha));
        // Unchanged since the hash: the kernel's copy is kept as it is.
        let before = file_identity(&src);
        let (sha, bytes) = sha256_file(&src).unwrap();
        fs::remove_file(&stored).unwrap();
        let staged = wh.stage_hashed(&src, before, &sha, bytes).unwrap();
        assert_eq!(staged.sha(), sha);
        assert_eq!(fs::read(staged.tmp.as_ref().unwrap()).unwrap(), new);
    }

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
