//! Writes a SYNTHETIC run of N request rows into a warehouse, for benchmarks only.
//!
//! The rows replicate the real per-request records of the bundled dynamo-frontend dataset
//! (latency, TTFT, ITL, tokens), cycled with seeded jitter and re-timed into `trials` trials
//! of back-to-back requests. The run carries `source = synthetic` and the label
//! `synthetic=replicated-real-records` so it can never be mistaken for a measurement.
//!
//! cargo run --release --example synth_requests -- WAREHOUSE ROWS [TRIALS]

use std::collections::BTreeMap;
use std::path::PathBuf;

use perfhouse::ingest::{self, Format};
use perfhouse::model::*;
use perfhouse::stats::Rng;
use perfhouse::warehouse::Warehouse;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let wh = Warehouse::open(PathBuf::from(args.get(1).expect("WAREHOUSE")))?;
    let rows: usize = args.get(2).expect("ROWS").parse()?;
    let trials: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(100);
    let data_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/dynamo-frontend/data");
    let mut real = Vec::new();
    for f in ingest::discover(&[data_dir], Format::Aiperf)? {
        for t in ingest::parse_file(&f, Format::Aiperf)?.trials {
            real.extend(t.requests.into_iter().filter(|r| r.latency_ns.is_some()));
        }
    }
    let mut rng = Rng::new(1);
    let per_trial = rows.div_ceil(trials);
    let mut data = RunData::default();
    data.requests.reserve(rows);
    for t in 0..trials {
        let arm = if t % 2 == 0 { "a" } else { "b" };
        let params = BTreeMap::from([("concurrency".to_string(), "32".to_string())]);
        data.trials.push(Trial {
            concurrency: Some(32),
            exit_code: Some(0),
            ..Trial::measured(t as i32, arm, params, (t / 2) as i32)
        });
        let mut clock = 1_800_000_000_000_000_000i64 + t as i64 * 1_000_000_000_000;
        for i in 0..per_trial.min(rows - data.requests.len()) {
            let src = &real[(t * per_trial + i) % real.len()];
            let jitter = 1.0 + 0.05 * rng.normal();
            let lat = (src.latency_ns.unwrap() as f64 * jitter) as i64;
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
    let now = now_us();
    let run = Run {
        run_id: uuid::Uuid::now_v7().to_string(),
        suite: "synthetic-bench".into(),
        started_at_us: now,
        finished_at_us: now,
        ingested_at_us: now,
        source: "synthetic".into(),
        git_commit: None,
        git_branch: None,
        git_dirty: None,
        host: None,
        env_fingerprint: None,
        env: "{}".into(),
        labels: BTreeMap::from([(
            "synthetic".to_string(),
            "replicated-real-records".to_string(),
        )]),
        input_digest: format!("synthetic-{rows}-{trials}-{now}"),
        status: perfhouse::model::RunStatus::Ok,
    };
    wh.append_run(&run, &data)?;
    println!(
        "wrote {} synthetic request rows in {} trials as run {}",
        data.requests.len(),
        trials,
        run.run_id
    );
    Ok(())
}
