//! perfhouse: run benchmarks, keep every result in a Parquet warehouse, publish what they mean.
//!
//! The pipeline flows one way:
//!
//! ```text
//! tool outputs ─► ingest ─► model ─► warehouse (Hive-partitioned Parquet)
//!                                      ─► query (DataFusion SQL views) ─► site (askama + SVG)
//! ```
//!
//! * [`model`]: plain data types, units normalised (ns, bytes, µs timestamps).
//! * [`ingest`]: one file per external format, parsed into `model` values.
//! * [`warehouse`]: the Arrow schemas (one place), atomic Parquet append, blobs, compaction.
//! * [`parallel`]: `par_map`, per-item work of a build on every core.
//! * [`query`]: a DataFusion `SessionContext` with every table and the derived-figure views.
//! * [`present`]: how values are written (numbers, units, p-values, sweeps), below both the
//!   site and the reports.
//! * [`site`]: view models, askama pages and hand-written SVG charts.
//! * [`commands`]: wires the layers together for each subcommand; [`cli`] holds the flags.

// Production functions stay under 80 lines (Cargo.toml `too_many_lines`, clippy.toml); a unit
// test may walk through a longer scenario.
#![cfg_attr(test, allow(clippy::too_many_lines))]

pub mod cli;
pub mod commands;
/// Files other projects wrote, kept beside a clone in `../shared/fixtures/` (never in the
/// repository): where they are, for the tests and the demo's Kedro history.
#[path = "fixtures_dir.rs"]
pub mod fixtures;
pub mod ingest;
pub mod model;
pub mod parallel;
pub mod present;
pub mod query;
pub mod report;
pub mod runner;
pub mod site;
pub mod stats;
pub mod warehouse;
