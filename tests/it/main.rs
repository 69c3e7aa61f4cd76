//! The integration tests, one binary (as ripgrep's tests/tests.rs): DataFusion links once.
//! Each module is one area; `common` holds the helpers they share.

// A test is one scenario, read top to bottom: the 80-line rule is for production code.
#![allow(clippy::too_many_lines)]

mod common;

mod browser;
mod capacity_seam;
mod check;
mod checksums;
mod compact;
mod compare;
mod corpus;
mod docs;
mod engines;
mod figures;
mod github_action;
mod golden;
mod history;
mod ingest_aiperf;
mod ingest_aiperf_multirun;
mod ingest_aiperf_summary;
mod ingest_asv;
mod ingest_defects;
mod ingest_folded;
mod ingest_formats;
mod ingest_guidellm;
mod ingest_history;
mod ingest_lmcache;
mod ingest_new_formats;
mod ingest_perf_script;
mod ingest_streaming;
mod ingest_vllm;
mod interop;
mod kedro;
mod made_here;
mod made_here_b;
mod nothing_lost;
mod numbers;
mod object_store;
mod publish;
mod reliability;
mod report;
mod runner_seam;
mod server_metrics;
mod site;
mod suspicions;
mod sweep;
mod tomli;
mod validity;
mod views;
mod write_faults;
