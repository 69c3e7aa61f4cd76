//! `gc`: what writers that died left behind, removed once no writer can still need it.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
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
        let committed: HashSet<String> = self.runs()?.into_iter().map(|r| r.run_id).collect();
        let mut sweep = Sweep {
            dry_run,
            report: GcReport::default(),
            referenced: HashSet::new(),
            blobs_unsure: false,
        };
        for table in Table::ALL {
            for stray in stray_files(&self.table_dir(table)) {
                sweep.remove(&stray, "temporary file of a writer that died")?;
            }
            for (_, path) in self.table_files(table)? {
                self.gc_file(table, &path, &committed, &mut sweep)?;
            }
        }
        self.gc_loose_ends(grace, writers.is_some(), &mut sweep)?;
        Ok(sweep.report)
    }

    /// Removes a table file that holds only rows of runs that never committed (one that mixes
    /// them with committed rows is left as it is), noting the kept inputs committed
    /// `artifacts` rows refer to.
    fn gc_file(
        &self,
        table: Table,
        path: &Path,
        committed: &HashSet<String>,
        sweep: &mut Sweep,
    ) -> Result<()> {
        let Ok(batches) = Self::read_file(path) else {
            // Damage, not a leftover: `check` reports it, gc keeps it, and keeps every
            // blob too, since this file may be what refers to them.
            sweep.blobs_unsure |= table == Table::Artifacts;
            return Ok(());
        };
        if table == Table::Runs {
            return Ok(());
        }
        let (mut rows, mut live) = (0usize, 0usize);
        for b in &batches {
            let Ok(ids) = utf8_column(b, "run_id", path) else {
                live += 1; // a foreign file: not ours to judge
                sweep.blobs_unsure |= table == Table::Artifacts;
                continue;
            };
            rows += b.num_rows();
            for i in 0..b.num_rows() {
                if committed.contains(ids.value(i)) {
                    live += 1;
                    if table == Table::Artifacts
                        && let Ok(stored) = utf8_column(b, "stored_path", path)
                    {
                        sweep.referenced.insert(self.root.join(stored.value(i)));
                    }
                }
            }
        }
        if live == 0 && rows > 0 {
            sweep.remove(path, "rows of runs that never committed")?;
        } else if live < rows {
            sweep.report.spared.push(format!(
                "{}: mixes committed rows with {} of runs that never committed (left as it is)",
                path.display(),
                rows - live
            ));
        }
        Ok(())
    }

    /// The leftovers outside the tables: staging goes at once; unfinished runs and kept
    /// inputs only when no writer is running (`no_writer`: gc holds `.writers.lock`), no
    /// unreadable artifacts file may refer to them, and they are older than `grace`.
    fn gc_loose_ends(&self, grace: Duration, no_writer: bool, sweep: &mut Sweep) -> Result<()> {
        for (path, what) in self.loose_ends(&sweep.referenced) {
            if path.ends_with(".staging") {
                sweep.remove(&path, &what)?;
                continue;
            }
            let blob = path.starts_with(self.root.join("artifacts"));
            let spared = &mut sweep.report.spared;
            if !no_writer {
                spared.push(format!(
                    "{}: {what}; a writer is running (it holds .writers.lock): left for a gc when none is",
                    path.display()
                ));
                continue;
            }
            if blob && sweep.blobs_unsure {
                spared.push(format!(
                    "{}: {what}, kept while an artifacts file cannot be read",
                    path.display()
                ));
                continue;
            }
            let young = age(&path) < grace;
            let writing = path.parent().is_some_and(|p| p.ends_with(".inflight"))
                && Lock::try_take(&path.join(".lock"), libc::LOCK_EX)?.is_none();
            if writing {
                spared.push(format!("{}: its writer is still running", path.display()));
            } else if young {
                spared.push(format!(
                    "{}: {what}, younger than the grace period ({grace:?})",
                    path.display()
                ));
            } else {
                sweep.remove(&path, &what)?;
            }
        }
        Ok(())
    }
}

/// A gc under way: what it removed or spared so far, and what it learnt of the kept inputs
/// (those committed rows refer to; whether an unreadable artifacts file may refer to more).
struct Sweep {
    dry_run: bool,
    report: GcReport,
    referenced: HashSet<PathBuf>,
    blobs_unsure: bool,
}

impl Sweep {
    /// Removes `path` (a file or a whole directory; already gone is fine), unless a dry run,
    /// and reports it with `why`.
    fn remove(&mut self, path: &Path, why: &str) -> Result<()> {
        let bytes = size_of(path);
        if !self.dry_run {
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
        self.report.bytes += bytes;
        self.report
            .removed
            .push(format!("{} ({why})", path.display()));
        Ok(())
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
