//! Writing rows: a batch of runs committed atomically (`runs` last), runs streamed through
//! `.inflight/` and landed at their commit, and the notes and alert events added to
//! committed runs.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::PathBuf;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::error::ArrowError;

use super::files::{PartWriter, fsync_dir, rename_noreplace, write_atomic, write_landing};
use super::locks::Lock;
use super::{
    Result, RunEntry, Table, Warehouse, WarehouseError, batch, encode_partition_value, io_err,
};
use crate::model::{Annotation, Run, RunData};

impl Warehouse {
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
        // Checked under the lock: two concurrent ingests of one input add it once.
        let committed = self.runs()?;
        let (outcome, fresh) = pick_fresh(runs, &committed)?;
        let Some((lead, _)) = fresh.first() else {
            return Ok(outcome);
        };
        let tables = table_batches(&fresh)?;
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
}

/// Refuses a run the warehouse never stores: a name past its bound, or a value that is not
/// finite (nothing of the batch is written then).
fn refuse_unstorable(run: &Run, data: &RunData) -> Result<()> {
    if let Some(what) = crate::model::names::run_problem(run, data) {
        return Err(WarehouseError::BadName {
            run: run.run_id.clone(),
            what,
        });
    }
    let non_finite = |what: String| {
        Err(WarehouseError::NonFinite {
            run: run.run_id.clone(),
            what,
        })
    };
    if let Some(m) = data.metrics.iter().find(|m| !m.value.is_finite()) {
        return non_finite(format!(
            "metric `{}` of trial {} is {}",
            m.name, m.trial_id, m.value
        ));
    }
    if let Some(s) = data.stacks.iter().find(|s| !s.weight.is_finite()) {
        return non_finite(format!(
            "a stack of trial {} weighs {}",
            s.trial_id, s.weight
        ));
    }
    // A scraped NaN (a summary without observations) is no value: the scraper leaves
    // it out. A bucket bound (`le`) may be +Inf.
    if let Some(s) = data.scrape_samples.iter().find(|s| !s.value.is_finite()) {
        return non_finite(format!(
            "scraped sample `{}` of trial {} is {}",
            s.name, s.trial_id, s.value
        ));
    }
    Ok(())
}

/// Which of `runs` to write: per run, the committed run with the same digest where there is
/// one (that run is then left out), and the runs to write. A run that cannot be stored or
/// whose id is taken is an error; the same input twice in one batch lands once.
#[allow(clippy::type_complexity)]
fn pick_fresh<'a>(
    runs: &[(&'a Run, &'a RunData)],
    committed: &[RunEntry],
) -> Result<(Vec<Option<RunEntry>>, Vec<(&'a Run, &'a RunData)>)> {
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
        refuse_unstorable(run, data)?;
        if let Some(existing) = by_digest.get(run.input_digest.as_str()) {
            outcome.push(Some((*existing).clone()));
            continue;
        }
        if !ids.insert(run.run_id.as_str()) {
            return Err(WarehouseError::DuplicateRun(run.run_id.clone()));
        }
        outcome.push(None);
        if digests.insert(run.input_digest.as_str()) {
            fresh.push((*run, *data));
        }
    }
    Ok((outcome, fresh))
}

/// The rows of `fresh` as one list of batches per table, in `Table::ALL`'s order (which ends
/// with `runs`, the file that must land last); a table no run has rows for gets none.
fn table_batches(fresh: &[(&Run, &RunData)]) -> Result<Vec<(Table, Vec<RecordBatch>)>> {
    let mut tables: Vec<(Table, Vec<RecordBatch>)> =
        Table::ALL.into_iter().map(|t| (t, Vec::new())).collect();
    let mut push = |table: Table, rows: usize, b: Result<RecordBatch, ArrowError>| -> Result<()> {
        if rows > 0 {
            let slot = tables
                .iter_mut()
                .find(|(t, _)| *t == table)
                .expect("listed");
            slot.1.push(b.map_err(|source| WarehouseError::Arrow {
                table: table.name(),
                source,
            })?);
        }
        Ok(())
    };
    for (run, data) in fresh {
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
        let cpu = &data.cpu_samples;
        push(Table::CpuSamples, cpu.len(), batch::cpu_samples(id, cpu))?;
        let scraped = &data.scrape_samples;
        push(
            Table::ScrapeSamples,
            scraped.len(),
            batch::scrape_samples(id, scraped),
        )?;
        push(
            Table::Stacks,
            data.stacks.len(),
            batch::stacks(id, &data.stacks),
        )?;
        let artifacts = &data.artifacts;
        push(
            Table::Artifacts,
            artifacts.len(),
            batch::artifacts(id, artifacts),
        )?;
        push(Table::Annotations, notes.len(), batch::annotations(&notes))?;
        push(Table::Runs, 1, batch::runs(run))?;
    }
    Ok(tables)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, digest: &str) -> Run {
        Run::new(id, "s", "test", 0, digest)
    }

    /// a and b share input d1: a lands, b does not; c's input d2 is committed already as x:
    /// c lands neither and x is returned for it.
    #[test]
    fn an_input_lands_once_and_a_committed_one_names_its_run() {
        let (a, b, c) = (run("a", "d1"), run("b", "d1"), run("c", "d2"));
        let data = RunData::default();
        let committed = [RunEntry {
            run_id: "x".into(),
            suite: "s".into(),
            input_digest: "d2".into(),
        }];
        let runs = [(&a, &data), (&b, &data), (&c, &data)];
        let (outcome, fresh) = pick_fresh(&runs, &committed).unwrap();
        let named: Vec<Option<&str>> = outcome
            .iter()
            .map(|o| o.as_ref().map(|e| e.run_id.as_str()))
            .collect();
        assert_eq!(named, [None, None, Some("x")]);
        let ids: Vec<&str> = fresh.iter().map(|(r, _)| r.run_id.as_str()).collect();
        assert_eq!(ids, ["a"]);
        // A new input under a run id already taken is refused.
        let taken = run("x", "d3");
        let err = pick_fresh(&[(&taken, &data)], &committed).unwrap_err();
        assert!(matches!(err, WarehouseError::DuplicateRun(id) if id == "x"));
    }
}
