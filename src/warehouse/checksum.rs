//! Checksums of table files: a 64-bit digest of a file's every byte, carried in its name
//! (`<stem>.xxh64-<16 hex digits>.parquet`), computed as the file is written and verified
//! before any of it is read.
//!
//! The digest: the file cut into 8 MiB chunks (the last one shorter), each chunk's XXH64
//! (seed 0), and the XXH64 (seed 0) of those digests as little-endian `u64`s, in order. The
//! chunks let a reader hash one large file on every core; the book's warehouse chapter shows
//! the same computed with Python's `xxhash` ([`digest_of`]).
//!
//! Why a whole-file digest, and why in the name (the book's "Guarantees", RELIABILITY.md):
//!
//! * The locked parquet crate (59.3) cannot write page checksums (`column/page.rs`: "TODO: Add
//!   support for crc checksum"); it can only verify them, with its `crc` feature. Page
//!   checksums would also leave the footer and the page indexes bare, and a flipped byte there
//!   (a statistic, an offset) can prune or misplace rows without an error: in a small file (a
//!   `runs` or `annotations` file) the footer is most of the bytes.
//! * XXH64 runs at memory speed (several GB/s a core), and parquet already builds it (for
//!   bloom filters), so it costs no new code to compile; a damaged file goes unnoticed with
//!   odds of 2⁻⁶⁴. CRC-32 (`crc32fast`) was the first choice, for its guarantee that any burst
//!   of up to 32 flipped bits is found, but its fast path needs its `std` feature, which
//!   rebuilds flate2, parquet and all of DataFusion; without it, its table-driven fallback is
//!   at a third or less of XXH64's speed (RELIABILITY.md).
//! * In the name, the digest lands with the file in the same rename (no second file, no
//!   second write that can fail apart from it), travels with every copy (`import`, a push to a
//!   bucket, `cp -r`, `aws s3 sync`), and no flipped byte can change or remove it.
//!
//! Files without the tag (written before checksums, or by another tool) are read as before,
//! unverified; `perfhouse check` counts them and `perfhouse compact` rewrites them with one.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use bytes::Bytes;
use datafusion::parquet::arrow::async_writer::AsyncFileWriter;
use futures::TryStreamExt;
use object_store::path::Path as Key;
use object_store::{GetOptions, GetResultPayload, ObjectStore};

use super::layered::{Layer, Layered};

/// What sits between a file's stem and `.parquet` when it carries a checksum.
const TAG: &str = ".xxh64-";
const SUFFIX: &str = ".parquet";
/// The digest's chunk: what one core hashes of a large file.
const CHUNK: usize = 8 << 20;

/// `name` (`<stem>.parquet`, with or without a checksum already) carrying `digest`.
pub fn name_with(name: &str, digest: u64) -> String {
    format!("{}{TAG}{digest:016x}{SUFFIX}", stem(name))
}

/// `name` without `.parquet` and without its checksum, where it has one.
pub fn stem(name: &str) -> &str {
    let base = name.strip_suffix(SUFFIX).unwrap_or(name);
    match base.rsplit_once(TAG) {
        Some((stem, hex)) if parse_hex(hex).is_some() => stem,
        _ => base,
    }
}

/// The digest a file's name says it has (`None`: a file written without one).
pub fn expected(name: &str) -> Option<u64> {
    let (_, hex) = name.strip_suffix(SUFFIX)?.rsplit_once(TAG)?;
    parse_hex(hex)
}

fn parse_hex(hex: &str) -> Option<u64> {
    (hex.len() == 16 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then(|| u64::from_str_radix(hex, 16).ok())
        .flatten()
}

/// The digest `path`'s name says it has.
pub fn expected_of(path: &Path) -> Option<u64> {
    expected(&path.file_name()?.to_string_lossy())
}

/// What is wrong when a file's bytes do not match its name's digest.
pub fn mismatch(found: u64, want: u64) -> String {
    format!(
        "its bytes' digest is {found:016x}, its name says {want:016x}: the file changed after it was written"
    )
}

/// The digest of bytes fed in any pieces (see the module docs).
#[derive(Clone)]
pub struct Digester {
    chunk: twox_hash::XxHash64,
    in_chunk: usize,
    outer: twox_hash::XxHash64,
}

impl Default for Digester {
    fn default() -> Self {
        Digester {
            chunk: twox_hash::XxHash64::with_seed(0),
            in_chunk: 0,
            outer: twox_hash::XxHash64::with_seed(0),
        }
    }
}

impl Digester {
    pub fn update(&mut self, mut bytes: &[u8]) {
        use std::hash::Hasher;
        while !bytes.is_empty() {
            let take = bytes.len().min(CHUNK - self.in_chunk);
            self.chunk.write(&bytes[..take]);
            self.in_chunk += take;
            bytes = &bytes[take..];
            if self.in_chunk == CHUNK {
                self.end_chunk();
            }
        }
    }

    fn end_chunk(&mut self) {
        use std::hash::Hasher;
        let done = std::mem::replace(&mut self.chunk, twox_hash::XxHash64::with_seed(0));
        self.outer.write(&done.finish().to_le_bytes());
        self.in_chunk = 0;
    }

    pub fn finish(&self) -> u64 {
        use std::hash::Hasher;
        let mut this = self.clone();
        if this.in_chunk > 0 {
            this.end_chunk();
        }
        this.outer.finish()
    }
}

/// The digest of `bytes` (a whole file).
pub fn digest_of(bytes: &[u8]) -> u64 {
    let mut d = Digester::default();
    d.update(bytes);
    d.finish()
}

/// `Err(what is wrong)` where `bytes`, read from `path`, do not match its name's digest.
pub fn verify_bytes(path: &Path, bytes: &[u8]) -> Result<(), String> {
    match expected_of(path) {
        Some(want) => {
            let found = digest_of(bytes);
            (found == want)
                .then_some(())
                .ok_or_else(|| mismatch(found, want))
        }
        None => Ok(()),
    }
}

/// The digest of the file at `path`, its chunks hashed on every core (a 250 MB file is one
/// query's whole input, read before the query may trust any of it).
pub fn of_file(path: &Path) -> io::Result<u64> {
    use std::hash::Hasher;
    use std::os::unix::fs::FileExt;
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    let chunks = len.div_ceil(CHUNK as u64);
    let threads = std::thread::available_parallelism()
        .map(|n| n.get() as u64)
        .unwrap_or(1)
        .min(chunks)
        .max(1);
    // Chunks [first, last) of the file, each's XXH64 in order.
    // Read 1 MiB at a time (8 MiB buffers, one per thread, were 14 MB of a query's peak).
    const READ: usize = 1 << 20;
    let hash_chunks = |first: u64, last: u64| -> io::Result<Vec<u64>> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; READ.min(len as usize)];
        for c in first..last {
            let mut at = c * CHUNK as u64;
            let end = (at + CHUNK as u64).min(len);
            let mut hasher = twox_hash::XxHash64::with_seed(0);
            while at < end {
                let want = (end - at).min(READ as u64) as usize;
                file.read_exact_at(&mut buf[..want], at)?;
                hasher.write(&buf[..want]);
                at += want as u64;
            }
            out.push(hasher.finish());
        }
        Ok(out)
    };
    let per = chunks.div_ceil(threads);
    let parts: Vec<io::Result<Vec<u64>>> = if threads == 1 {
        vec![hash_chunks(0, chunks)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|i| {
                    s.spawn(move || hash_chunks((i * per).min(chunks), ((i + 1) * per).min(chunks)))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    };
    let mut outer = twox_hash::XxHash64::with_seed(0);
    for part in parts {
        for d in part? {
            outer.write(&d.to_le_bytes());
        }
    }
    Ok(outer.finish())
}

/// `Err(what is wrong)` where the file at `path` does not match its name's digest (files
/// without one pass unread).
pub fn verify_file(path: &Path) -> Result<(), String> {
    let Some(want) = expected_of(path) else {
        return Ok(());
    };
    let found = of_file(path).map_err(|e| format!("cannot be read to verify it: {e}"))?;
    (found == want)
        .then_some(())
        .ok_or_else(|| mismatch(found, want))
}

/// A writer that passes every byte on and keeps their digest: what the Parquet writer writes
/// through, so the checksum costs no second read.
pub struct HashingWriter<W> {
    inner: W,
    digester: Digester,
}

impl<W> HashingWriter<W> {
    pub fn new(inner: W) -> Self {
        HashingWriter {
            inner,
            digester: Digester::default(),
        }
    }

    /// The writer and the digest of everything written through it.
    pub fn finish(self) -> (W, u64) {
        let digest = self.digester.finish();
        (self.inner, digest)
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.digester.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// [`HashingWriter`] for the async Parquet writer (a compaction's output uploaded in parts).
pub struct HashingAsyncWriter<W> {
    inner: W,
    digester: Digester,
}

impl<W> HashingAsyncWriter<W> {
    pub fn new(inner: W) -> Self {
        HashingAsyncWriter {
            inner,
            digester: Digester::default(),
        }
    }

    /// The digest of everything written through it.
    pub fn digest(&self) -> u64 {
        self.digester.finish()
    }
}

impl<W: AsyncFileWriter> AsyncFileWriter for HashingAsyncWriter<W> {
    fn write(
        &mut self,
        bs: Bytes,
    ) -> futures::future::BoxFuture<'_, datafusion::parquet::errors::Result<()>> {
        self.digester.update(&bs);
        self.inner.write(bs)
    }

    fn complete(
        &mut self,
    ) -> futures::future::BoxFuture<'_, datafusion::parquet::errors::Result<()>> {
        self.inner.complete()
    }
}

/// The digest of a whole object: a local file hashed on every core, else its stream.
pub async fn digest_of_object(
    store: &dyn ObjectStore,
    location: &Key,
) -> object_store::Result<u64> {
    let got = store.get_opts(location, GetOptions::default()).await?;
    let generic = |e: Box<dyn std::error::Error + Send + Sync>| object_store::Error::Generic {
        store: "perfhouse",
        source: e,
    };
    match got.payload {
        GetResultPayload::File(_, path) => tokio::task::spawn_blocking(move || of_file(&path))
            .await
            .map_err(|e| generic(e.into()))?
            .map_err(|e| generic(e.into())),
        GetResultPayload::Stream(mut stream) => {
            let mut digester = Digester::default();
            while let Some(chunk) = stream.try_next().await? {
                digester.update(&chunk);
            }
            Ok(digester.finish())
        }
    }
}

/// An object store that reads each object whose name carries a checksum whole, and checks it,
/// before it serves the first byte of it (once per object for the store's life): what
/// perfhouse's query engine reads a warehouse through, local (`file://`) or in a bucket. A
/// mismatch is an error naming the object; DataFusion then stops the statement, so no answer
/// is ever computed from a damaged file. Everything else passes through.
pub type VerifyingStore = Layered<Verifier>;

/// The [`Layer`] of a [`VerifyingStore`]: what it has verified so far.
#[derive(Debug, Default)]
pub struct Verifier {
    /// Per object: `None` once verified, `Some(what is wrong)` once found damaged.
    seen: Mutex<HashMap<Key, Arc<tokio::sync::OnceCell<Option<String>>>>>,
}

impl VerifyingStore {
    pub fn new(inner: Arc<dyn ObjectStore>) -> VerifyingStore {
        Layered::with(inner, Verifier::default())
    }

    /// Records `location` as verified already (checked before the session opened).
    pub fn mark_verified(&self, location: Key) {
        self.layer().seen.lock().expect("not poisoned").insert(
            location,
            Arc::new(tokio::sync::OnceCell::new_with(Some(None))),
        );
    }
}

#[async_trait]
impl Layer for Verifier {
    const NAME: &'static str = "VerifyingStore";

    /// Ok where `location` matches its checksum (or carries none).
    async fn before_read(
        &self,
        inner: &dyn ObjectStore,
        location: &Key,
    ) -> object_store::Result<()> {
        let Some(want) = location.filename().and_then(expected) else {
            return Ok(());
        };
        let cell = Arc::clone(
            self.seen
                .lock()
                .expect("not poisoned")
                .entry(location.clone())
                .or_default(),
        );
        let outcome = cell
            .get_or_try_init(|| async {
                let found = digest_of_object(inner, location).await?;
                Ok::<_, object_store::Error>((found != want).then(|| mismatch(found, want)))
            })
            .await?;
        match outcome {
            None => Ok(()),
            Some(what) => Err(object_store::Error::Generic {
                store: "perfhouse",
                source: format!("{location}: damaged ({what})").into(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_digest_and_give_it_back() {
        let n = name_with("0190-0.parquet", 0x1a2b_3c4d_5e6f_7081);
        assert_eq!(n, "0190-0.xxh64-1a2b3c4d5e6f7081.parquet");
        assert_eq!(expected(&n), Some(0x1a2b_3c4d_5e6f_7081));
        assert_eq!(stem(&n), "0190-0");
        // Renaming a name with a digest replaces it, never stacks a second one.
        assert_eq!(name_with(&n, 7), "0190-0.xxh64-0000000000000007.parquet");
        // Files without one: another tool's dotted names are not taken for digests.
        for plain in [
            "0190-0.parquet",
            "part-0.snappy.parquet",
            "x.xxh64-1A2B3C4D5E6F7081.parquet",
            "x.xxh64-1a2b3c4d.parquet",
            "x.xxh64-1a2b3c4d5e6f7081.parquet.tmp",
        ] {
            assert_eq!(expected(plain), None, "{plain}");
        }
        assert_eq!(stem("part-0.snappy.parquet"), "part-0.snappy");
    }

    /// The digest is the same however the bytes arrive (one piece, many, a file hashed on
    /// every core), is the documented chunk tree, and changes with any one flipped byte.
    #[test]
    fn the_digest_is_one_definition_and_sees_a_flipped_byte() {
        use std::hash::Hasher;
        let dir = tempfile::tempdir().unwrap();
        let body: Vec<u8> = (0..(2 * CHUNK as u32) + 17)
            .map(|i| (i * 7 % 253) as u8)
            .collect();
        let digest = digest_of(&body);
        let mut tree = twox_hash::XxHash64::with_seed(0);
        for chunk in body.chunks(CHUNK) {
            tree.write(&twox_hash::XxHash64::oneshot(0, chunk).to_le_bytes());
        }
        assert_eq!(digest, tree.finish());
        let mut pieces = Digester::default();
        for piece in body.chunks(1000) {
            pieces.update(piece);
        }
        assert_eq!(pieces.finish(), digest);
        let path = dir.path().join(name_with("f.parquet", digest));
        std::fs::write(&path, &body).unwrap();
        assert_eq!(of_file(&path).unwrap(), digest);
        assert_eq!(verify_file(&path), Ok(()));
        let mut bad = body.clone();
        for at in [0, 1, body.len() / 2, CHUNK + 3, body.len() - 1] {
            for bit in [0x01u8, 0x80, 0xff] {
                bad[at] ^= bit;
                assert!(verify_bytes(&path, &bad).is_err(), "byte {at} ^ {bit:#x}");
                bad[at] ^= bit;
            }
        }
        bad[body.len() / 2] ^= 0x10;
        std::fs::write(&path, &bad).unwrap();
        let err = verify_file(&path).unwrap_err();
        assert!(err.contains("changed after it was written"), "{err}");
        assert_eq!(digest_of(b""), twox_hash::XxHash64::with_seed(0).finish());
    }

    /// What a session verified when it opened is keyed as DataFusion reads it (the local
    /// store's listing), so no file is hashed twice; an object not verified yet is checked
    /// on its first read, and a damaged one refused, named.
    #[tokio::test]
    async fn the_verifying_store_knows_the_files_checked_at_open_and_checks_the_rest() {
        use object_store::ObjectStoreExt;
        let dir = tempfile::tempdir().unwrap();
        let part = dir.path().join("requests").join("suite=a%20b");
        std::fs::create_dir_all(&part).unwrap();
        let body = b"PAR1 some bytes PAR1".to_vec();
        let seen = part.join(name_with("r-0.parquet", digest_of(&body)));
        let fresh = part.join(name_with("r-1.parquet", digest_of(&body)));
        std::fs::write(&seen, &body).unwrap();
        std::fs::write(&fresh, &body).unwrap();
        let store = VerifyingStore::new(Arc::new(object_store::local::LocalFileSystem::new()));
        let abs = std::path::absolute(&seen).unwrap();
        store.mark_verified(Key::from_absolute_path(abs).unwrap());
        // Damaged after the session checked it: the mark is what the reads find.
        let mut bad = body.clone();
        bad[6] ^= 1;
        std::fs::write(&seen, &bad).unwrap();
        std::fs::write(&fresh, &bad).unwrap();
        let prefix = Key::from_absolute_path(std::path::absolute(&part).unwrap()).unwrap();
        let mut listed: Vec<Key> = store
            .list(Some(&prefix))
            .map_ok(|m| m.location)
            .try_collect()
            .await
            .unwrap();
        listed.sort();
        assert_eq!(listed.len(), 2);
        assert!(store.get(&listed[0]).await.is_ok(), "{}", listed[0]);
        let err = store.get(&listed[1]).await.unwrap_err().to_string();
        assert!(
            err.contains("r-1.xxh64-") && err.contains("changed after it was written"),
            "{err}"
        );
    }

    #[test]
    fn the_hashing_writer_hashes_what_it_writes() {
        let mut w = HashingWriter::new(Vec::new());
        w.write_all(b"PAR1").unwrap();
        w.write_all(&[0u8; 1000]).unwrap();
        let (bytes, digest) = w.finish();
        assert_eq!(digest, digest_of(&bytes));
    }
}
