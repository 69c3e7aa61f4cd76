//! `perfhouse transfer-bench`: the demo's memory-transfer workload (`datasets/plans/transfer*.toml`).
//! Objects of one size are copied from a source buffer to a destination buffer, in a seeded
//! random order of slots (as a cache of objects scattered over memory is read), until a total
//! is copied; the buffers are backed by pages of one size: 4 KiB (`MADV_NOHUGEPAGE`) or 2 MiB
//! (`MADV_HUGEPAGE`, transparent huge pages). Both buffers are written once before timing, so
//! page faults are not in the figure. The total is copied in [`PASSES`] timed passes and the
//! fastest counts (as STREAM reports its best rate: a pass another process interrupted says
//! nothing about memory). It prints `gbps G` (bytes ÷ seconds ÷ 10⁹ of that pass) and
//! `huge_share S` (the share of the buffers the kernel backed with huge pages, from
//! `/proc/self/smaps`: 0 where transparent huge pages are off, whatever was asked).
//! The NUMA placement is the caller's (`numactl --interleave=all …` in transfer-numa.toml).

use std::time::Instant;

use anyhow::{Result, bail};

/// The sizes of pages it can ask for.
const SMALL_PAGE: usize = 4096;
const HUGE_PAGE: usize = 2 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct TransferBench {
    pub object_size: usize,
    pub page_size: usize,
    /// Bytes of each buffer (source and destination).
    pub buffer: usize,
    /// Bytes copied in the timed part.
    pub total: usize,
    pub seed: u64,
}

/// Timed passes over the total; the fastest is the figure.
pub const PASSES: usize = 8;

/// What one run measured.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    /// Of the fastest pass.
    pub gbps: f64,
    pub huge_share: f64,
    /// Copied in all passes, and their time.
    pub bytes: usize,
    pub seconds: f64,
}

/// An anonymous private mapping, unmapped on drop.
struct Mapping {
    ptr: *mut u8,
    len: usize,
}

impl Mapping {
    /// `len` bytes aligned to a huge page, advised to be backed by pages of `page_size`.
    fn new(len: usize, page_size: usize) -> Result<Mapping> {
        let padded = len + HUGE_PAGE;
        // SAFETY: an anonymous private mapping with no address hint; the result is checked.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                padded,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            bail!(
                "mmap of {padded} bytes failed: {}",
                std::io::Error::last_os_error()
            );
        }
        // Whole huge pages: the start rounded up to 2 MiB, the rest of the padding unmapped.
        let start = (raw as usize).next_multiple_of(HUGE_PAGE);
        let (head, tail) = (start - raw as usize, padded - (start - raw as usize) - len);
        // SAFETY: both ranges lie inside the mapping made above and are not used after.
        unsafe {
            if head > 0 {
                libc::munmap(raw, head);
            }
            if tail > 0 {
                libc::munmap((start + len) as *mut libc::c_void, tail);
            }
        }
        let advice = if page_size >= HUGE_PAGE {
            libc::MADV_HUGEPAGE
        } else {
            libc::MADV_NOHUGEPAGE
        };
        // SAFETY: advice on the aligned range just kept; failure (a kernel without THP) only
        // means small pages, which `huge_share` then reports.
        unsafe {
            libc::madvise(start as *mut libc::c_void, len, advice);
        }
        Ok(Mapping {
            ptr: start as *mut u8,
            len,
        })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the range was mapped by `new` and nothing refers to it after drop.
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}

/// The bytes of `[start, start + len)` the kernel backs with huge pages, from smaps'
/// `AnonHugePages` of the mappings inside it.
fn huge_bytes(start: usize, len: usize) -> usize {
    let Ok(text) = std::fs::read_to_string("/proc/self/smaps") else {
        return 0;
    };
    let mut inside = false;
    let mut total = 0;
    for line in text.lines() {
        let head = line.split_whitespace().next().unwrap_or("");
        if let Some((a, b)) = head.split_once('-')
            && let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
        {
            inside = a >= start && b <= start + len;
        } else if inside && let Some(kb) = line.strip_prefix("AnonHugePages:") {
            total += kb
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<usize>()
                .unwrap_or(0)
                * 1024;
        }
    }
    total
}

/// The slot order: every slot once, shuffled by a seeded xorshift (Fisher–Yates).
fn order(slots: usize, seed: u64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..slots).collect();
    let mut x = seed | 1;
    for i in (1..slots).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.swap(i, (x % (i as u64 + 1)) as usize);
    }
    v
}

pub fn measure(b: &TransferBench) -> Result<Measured> {
    if b.page_size != SMALL_PAGE && b.page_size != HUGE_PAGE {
        bail!(
            "--page-size {}: 4096 (4 KiB pages) or 2097152 (2 MiB transparent huge pages)",
            b.page_size
        );
    }
    if b.object_size == 0 || b.object_size > b.buffer {
        bail!(
            "--object-size {}: between 1 byte and the buffer ({} bytes)",
            b.object_size,
            b.buffer
        );
    }
    let len = b.buffer.next_multiple_of(HUGE_PAGE);
    let src = Mapping::new(len, b.page_size)?;
    let dst = Mapping::new(len, b.page_size)?;
    // Fault every page in before timing (and give the source non-zero bytes).
    // SAFETY: both ranges are `len` bytes of the mappings above, writable, not aliased.
    unsafe {
        std::ptr::write_bytes(src.ptr, 0x5a, len);
        std::ptr::write_bytes(dst.ptr, 0, len);
    }
    let huge = huge_bytes(src.ptr as usize, len) + huge_bytes(dst.ptr as usize, len);
    let slots = len / b.object_size;
    let order = order(slots, b.seed);
    // Each pass copies whole rounds of every slot, at least total / PASSES bytes.
    let per_pass = (b.total / PASSES).max(1);
    let slot_bytes = slots * b.object_size;
    let (mut seconds, mut bytes, mut best) = (0.0, 0, 0.0f64);
    // One object at position k of the order goes to the slot of the next (not its own), so
    // source and destination differ in their place within a page.
    let copy_round = || {
        for (k, &slot) in order.iter().enumerate() {
            let from = slot * b.object_size;
            let to = order[(k + 1) % slots] * b.object_size;
            // SAFETY: `from` and `to` are slot offsets below `slots * object_size <= len`,
            // in two distinct mappings.
            unsafe {
                std::ptr::copy_nonoverlapping(src.ptr.add(from), dst.ptr.add(to), b.object_size);
            }
        }
    };
    for _ in 0..PASSES {
        let start = Instant::now();
        let mut copied = 0;
        while copied < per_pass {
            copy_round();
            copied += slot_bytes;
        }
        let s = start.elapsed().as_secs_f64();
        best = best.max(copied as f64 / s / 1e9);
        seconds += s;
        bytes += copied;
    }
    // Keep the copies observable.
    // SAFETY: inside the destination mapping.
    std::hint::black_box(unsafe { *dst.ptr.add(len / 2) });
    Ok(Measured {
        gbps: best,
        huge_share: huge as f64 / (2 * len) as f64,
        bytes,
        seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_slot_is_visited_once_in_a_seeded_order() {
        let o = order(1000, 7);
        let mut sorted = o.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
        assert_ne!(o[..10], sorted[..10]);
        assert_eq!(o, order(1000, 7));
    }

    #[test]
    fn a_small_transfer_copies_what_it_says() {
        let m = measure(&TransferBench {
            object_size: 4096,
            page_size: 4096,
            buffer: 4 << 20,
            total: 8 << 20,
            seed: 1,
        })
        .unwrap();
        // 8 passes of at least 1 MiB, each a whole round of the 4 MiB buffer.
        assert_eq!(m.bytes, PASSES * (4 << 20));
        assert!(m.gbps > 0.0 && m.seconds > 0.0);
        assert!((0.0..=1.0).contains(&m.huge_share));
        assert!(
            measure(&TransferBench {
                page_size: 8192,
                ..TransferBench {
                    object_size: 4096,
                    page_size: 4096,
                    buffer: 4 << 20,
                    total: 4 << 20,
                    seed: 1
                }
            })
            .is_err()
        );
    }
}
