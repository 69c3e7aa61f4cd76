//! `check`: every table file, row linkage and kept input verified, and every leftover listed.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use datafusion::arrow::array::{AsArray, RecordBatch};

use crate::warehouse::blobs::sha256_file;
use crate::warehouse::read::schema_differences;
use crate::warehouse::{Result, RunEntry, Table, Warehouse, WarehouseError, checksum, utf8_column};

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
        let committed: HashSet<String> = self
            .runs_tolerant(&mut report.problems)?
            .into_iter()
            .map(|r| r.run_id)
            .collect();
        report.runs = committed.len();
        let mut referenced = HashSet::new();
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
                let seen = Seen {
                    committed: &committed,
                    referenced: &mut referenced,
                };
                orphans += self.check_file(table, &path, seen, &mut report);
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

    /// Checks one table file into `report`: readable, its columns, its rows' runs (and, for
    /// `artifacts`, the kept inputs they name). Returns how many of its rows belong to runs
    /// that never committed. A `runs` file's damage was reported by `runs_tolerant` already.
    fn check_file(&self, table: Table, path: &Path, seen: Seen, report: &mut CheckReport) -> usize {
        if fs::metadata(path).is_ok_and(|m| m.len() == 0) {
            if table != Table::Runs {
                report.problems.push(format!("{}: 0 bytes", path.display()));
            }
            return 0;
        }
        let batches = match Self::read_file(path) {
            Ok(b) => b,
            Err(e) => {
                if table != Table::Runs {
                    report
                        .problems
                        .push(format!("unreadable: {}", problem_text(&e)));
                }
                return 0;
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
                    .filter(|&i| !seen.committed.contains(ids.value(i)))
                    .count();
            }
        }
        if file_orphans > 0 {
            report.leftovers.push(format!(
                "{}: {file_orphans} rows of runs that never committed",
                path.display()
            ));
        }
        if table == Table::Artifacts {
            self.check_kept_inputs(&batches, path, seen, &mut report.problems);
        }
        file_orphans
    }

    /// Every kept input a committed run's `artifacts` row names, hashed against its row's
    /// sha256 (and remembered in `seen.referenced`, so it is no leftover).
    fn check_kept_inputs(
        &self,
        batches: &[RecordBatch],
        path: &Path,
        seen: Seen,
        problems: &mut Vec<String>,
    ) {
        for b in batches {
            let cols = (
                utf8_column(b, "run_id", path),
                utf8_column(b, "sha256", path),
                utf8_column(b, "stored_path", path),
            );
            let (Ok(ids), Ok(shas), Ok(stored)) = cols else {
                continue; // reported as a schema difference
            };
            for i in 0..b.num_rows() {
                if !seen.committed.contains(ids.value(i)) {
                    continue;
                }
                seen.referenced.insert(self.root.join(stored.value(i)));
                let blob = self.root.join(stored.value(i));
                match sha256_file(&blob) {
                    Ok((sha, _)) if sha == shas.value(i) => {}
                    Ok(_) => problems.push(format!(
                        "{}: content does not match its sha256",
                        blob.display()
                    )),
                    Err(e) => problems.push(format!("kept input missing: {e}")),
                }
            }
        }
    }

    /// Leftovers outside the tables: compaction staging, unfinished runs, blobs no committed
    /// run uses and temporary blob copies.
    pub(super) fn loose_ends(&self, referenced: &HashSet<PathBuf>) -> Vec<(PathBuf, String)> {
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
}

/// The runs a check found committed, and the kept inputs their rows name so far.
struct Seen<'a> {
    committed: &'a HashSet<String>,
    referenced: &'a mut HashSet<PathBuf>,
}

/// A read error as `check` lists it: a damaged file as `PATH: what` (its own message points
/// at `check`, which is where it is printed).
fn problem_text(e: &WarehouseError) -> String {
    match e {
        WarehouseError::Damaged { path, what } => format!("{}: {what}", path.display()),
        other => other.to_string(),
    }
}

/// Files in a table directory that are not landed Parquet (`*.tmp` of a writer that died).
pub(super) fn stray_files(table_dir: &Path) -> Vec<PathBuf> {
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
