//! The content-addressed store of raw inputs (`artifacts/blobs/<sha[..2]>/<sha>`): hashed,
//! copied ahead under a temporary name, kept under their digest, discarded when a commit
//! fails.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::files::{fsync_dir, rename_noreplace};
use super::locks::Lock;
use super::{Result, Table, Warehouse, WarehouseError, io_err, utf8_column};
use crate::model::Artifact;

impl Warehouse {
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
}
