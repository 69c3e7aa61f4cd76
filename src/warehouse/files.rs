//! Filesystem primitives every write goes through: a file lands by rename without replacing
//! anything, directories are fsynced after, and part files are written batch by batch with
//! their checksum in their name.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use datafusion::arrow::array::RecordBatch;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::basic::Compression;
use datafusion::parquet::file::properties::WriterProperties;

use super::{Result, WarehouseError, checksum, io_err};

/// Renames `from` to `to` unless `to` exists (`renameat2(RENAME_NOREPLACE)`): a file that
/// landed in the warehouse is never replaced.
pub(super) fn rename_noreplace(from: &Path, to: &Path) -> Result<()> {
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
pub(super) fn exchange(a: &Path, b: &Path) -> Result<()> {
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

pub(super) fn fsync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(dir))
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
    pub(super) fn create(
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
    pub(super) fn append(&mut self, batch: &RecordBatch) -> Result<()> {
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
pub(super) fn write_landing(
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
