//! The integration tests that measure time or CPU of real processes (the runner's cores-busy
//! sampling, a bisect between a fast and a slow revision). They are a binary of their own so
//! that cargo runs them after `tests/it` has finished, alone on the machine: run beside the
//! rest of the suite in one process, the other tests' load made a slow commit look like
//! noise (2 cores). Everything else is in `tests/it`.

// A test is one scenario, read top to bottom: the 80-line rule is for production code.
#![allow(clippy::too_many_lines)]

#[path = "../it/common/mod.rs"]
mod common;

mod capacity;
mod decisions;
mod runner;
