//! The advisory locks of the commit protocol: one writer into the partitions at a time,
//! readers that a compaction's swap waits for, and writers that `gc` must not run under.

use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::time::{Duration, Instant};

use super::{Result, Warehouse, WarehouseError, io_err};

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
    pub(super) fn acquire(root: &Path) -> Result<Lock> {
        Self::take(&root.join(".lock"), libc::LOCK_EX)
    }

    /// Blocks until `op` (`LOCK_EX` / `LOCK_SH`) is granted on `path` (created if needed).
    pub(super) fn take(path: &Path, op: libc::c_int) -> Result<Lock> {
        let file = Self::open(path)?;
        // SAFETY: flock on a descriptor we own; it blocks until the lock is free.
        if unsafe { libc::flock(file.as_raw_fd(), op) } != 0 {
            return Err(io_err(path)(io::Error::last_os_error()));
        }
        Ok(Lock(file))
    }

    /// Tries `op` without blocking: `None` while another descriptor holds a conflicting lock.
    pub(super) fn try_take(path: &Path, op: libc::c_int) -> Result<Option<Lock>> {
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
    pub(super) fn take_within(
        path: &Path,
        op: libc::c_int,
        wait: Duration,
        holder: &str,
    ) -> Result<Lock> {
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

impl Warehouse {
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
}
