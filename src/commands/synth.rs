//! `perfhouse synth`: SYNTHETIC request rows for benchmarks, never for measurements.
//!
//! The rows replicate the real per-request records of an aiperf capture (latency, TTFT, ITL,
//! tokens), cycled with seeded jitter (±5 % normal on the latency) and re-timed into trials of
//! back-to-back requests at concurrency 32. Every run carries `source = synthetic` and the label
//! `synthetic=replicated-real-records`, so it can never be mistaken for a measurement.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};

use crate::cli::SynthArgs;
use crate::ingest::{self, Format};
use crate::model::{Phase, Request, Run, RunData, Trial, now_us};
use crate::stats::Rng;
use crate::warehouse::Warehouse;

/// Writes `args.runs` runs; returns (runs, rows) written.
pub fn synth(wh: &Warehouse, args: &SynthArgs, quiet: bool) -> Result<(usize, usize)> {
    if args.trials == 0 || args.rows < args.trials || args.batch == 0 {
        bail!("--rows must be at least --trials, and --trials and --batch at least 1");
    }
    let real = real_records(args)?;
    let mut source = Replay {
        real: &real,
        k: 0,
        rng: Rng::new(args.seed),
    };
    let base = now_us();
    let bar = if quiet {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(args.runs as u64).with_message("synthetic runs")
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} ({eta})")
            .expect("valid template"),
    );
    let mut written = (0usize, 0usize);
    for first in (0..args.runs).step_by(args.batch) {
        let mut batch: Vec<(Run, RunData)> = Vec::new();
        for n in first..(first + args.batch).min(args.runs) {
            let data = source.run_data(args, n);
            // Runs a second apart, in order and all in the past, so history and run numbers
            // follow `n` and a run written later is the newest.
            let at = base - (args.runs - n) as i64 * 1_000_000;
            written.1 += data.requests.len();
            batch.push((synthetic_run(args, n, at), data));
        }
        let refs: Vec<(&Run, &RunData)> = batch.iter().map(|(r, d)| (r, d)).collect();
        wh.append_runs(&refs)?;
        written.0 += batch.len();
        bar.inc(batch.len() as u64);
    }
    bar.finish_and_clear();
    Ok(written)
}

/// The aiperf request records under `args.from` that have a latency: what is replicated.
fn real_records(args: &SynthArgs) -> Result<Vec<Request>> {
    let mut real: Vec<Request> = Vec::new();
    for f in ingest::discover(
        std::slice::from_ref(&args.from),
        Format::of(&ingest::aiperf::ADAPTER),
    )
    .with_context(|| format!("reading {}", args.from.display()))?
    {
        for t in ingest::parse_file(&f, Format::of(&ingest::aiperf::ADAPTER))?.trials {
            real.extend(t.requests.into_iter().filter(|r| r.latency_ns.is_some()));
        }
    }
    if real.is_empty() {
        bail!(
            "{}: no aiperf request records to replicate",
            args.from.display()
        );
    }
    Ok(real)
}

/// The real records cycled through (`k`: the position, across runs) with seeded jitter.
struct Replay<'a> {
    real: &'a [Request],
    k: usize,
    rng: Rng,
}

impl Replay<'_> {
    /// Run `n`'s trials (arms a and b alternating, concurrency 32) and `args.rows` requests
    /// shared among them, each trial's back to back from its own start time.
    fn run_data(&mut self, args: &SynthArgs, n: usize) -> RunData {
        let per_trial = args.rows.div_ceil(args.trials);
        let mut data = RunData::default();
        data.requests.reserve(args.rows);
        for t in 0..args.trials {
            let arm = if t % 2 == 0 { "a" } else { "b" };
            let params = BTreeMap::from([("concurrency".to_string(), "32".to_string())]);
            data.trials.push(Trial {
                concurrency: Some(32),
                exit_code: Some(0),
                ..Trial::measured(t as i32, arm, params, (t / 2) as i32)
            });
            let mut clock = 1_800_000_000_000_000_000i64
                + n as i64 * 10_000_000_000_000
                + t as i64 * 1_000_000_000_000;
            for _ in 0..per_trial.min(args.rows - data.requests.len()) {
                let src = &self.real[self.k % self.real.len()];
                self.k += 1;
                let jitter = 1.0 + 0.05 * self.rng.normal();
                let lat = (src.latency_ns.expect("filtered") as f64 * jitter) as i64;
                let mut r = src.clone();
                r.trial_id = t as i32;
                r.phase = Some(Phase::Measured);
                r.credit_ns = Some(clock);
                r.start_ns = clock + 50_000;
                r.end_ns = Some(r.start_ns + lat);
                r.latency_ns = Some(lat);
                clock += lat / 32;
                data.requests.push(r);
            }
        }
        data
    }
}

/// Run `n`'s row: `source = synthetic` and labelled as replicated, so it is never taken for
/// a measurement.
fn synthetic_run(args: &SynthArgs, n: usize, at: i64) -> Run {
    Run {
        labels: BTreeMap::from([(
            "synthetic".to_string(),
            "replicated-real-records".to_string(),
        )]),
        ..Run::new(
            uuid::Uuid::now_v7().to_string(),
            "synthetic-bench",
            "synthetic",
            at,
            format!("synthetic-{}-{n}-{}", args.seed, uuid::Uuid::now_v7()),
        )
    }
}
