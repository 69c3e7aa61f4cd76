//! `import`: the runs of a bundled warehouse copied in, file by file, `runs` last.

use std::fs::{self, File};
use std::io::Write;

use crate::warehouse::files::{fsync_dir, rename_noreplace};
use crate::warehouse::locks::Lock;
use crate::warehouse::{Result, RunEntry, Table, Warehouse, WarehouseError, checksum, io_err};

impl Warehouse {
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
}
