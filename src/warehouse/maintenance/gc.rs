//! `gc`: what writers that died left behind, removed once no writer can still need it.

use std::fs;
use std::io;
use std::path::Path;
use std::time::Duration;

use super::check::stray_files;
use crate::warehouse::locks::Lock;
use crate::warehouse::{Result, Table, Warehouse, io_err, utf8_column};

/// What `perfhouse gc` removed (or, with `dry_run`, would remove) and what it left alone.
#[derive(Debug, Default)]
pub struct GcReport {
    pub removed: Vec<String>,
    pub bytes: u64,
    /// Leftovers younger than the grace period, or of a writer still running.
    pub spared: Vec<String>,
}

impl Warehouse {
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
