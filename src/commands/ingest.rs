//! `perfhouse ingest`: discover → parse every file (nothing lands if one fails) → digest →
//! keep raw inputs → append the run atomically.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Result, bail};
use sha2::{Digest, Sha256};

use crate::cli::IngestArgs;
use crate::ingest::{self, Format, TrialDefaults};
use crate::model::{Run, now_us};
use crate::warehouse::{RunEntry, Warehouse, sha256_file};

/// Validated options of one ingest batch.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    pub paths: Vec<PathBuf>,
    pub format: Format,
    pub suite: String,
    pub defaults: TrialDefaults,
    pub labels: BTreeMap<String, String>,
    pub note: Option<String>,
    pub commit: Option<String>,
    pub branch: Option<String>,
    /// Leave out files that fail to parse instead of failing the batch.
    pub keep_going: bool,
}

impl IngestOptions {
    pub fn from_args(a: &IngestArgs) -> Result<IngestOptions> {
        if a.suite.trim().is_empty() {
            bail!("--suite is empty; name the suite the results belong to");
        }
        Ok(IngestOptions {
            paths: a.paths.clone(),
            format: a.format,
            suite: a.suite.clone(),
            defaults: TrialDefaults {
                arm: a.arm.clone(),
                params: a.params.iter().cloned().collect(),
                discard_first: a.discard_first,
                target: a.target.clone(),
                stack_kind: a.stack_kind.clone(),
            },
            labels: a.labels.iter().cloned().collect(),
            note: a.note.clone().filter(|n| !n.trim().is_empty()),
            commit: a.commit.clone(),
            branch: a.branch.clone(),
            keep_going: a.keep_going,
        })
    }

    /// Options with defaults for everything but the inputs and the suite.
    pub fn new(paths: Vec<PathBuf>, suite: &str) -> IngestOptions {
        IngestOptions {
            paths,
            format: Format::Auto,
            suite: suite.to_string(),
            defaults: TrialDefaults::default(),
            labels: BTreeMap::new(),
            note: None,
            commit: None,
            branch: None,
            keep_going: false,
        }
    }
}

#[derive(Debug)]
pub struct IngestOutcome {
    pub run_id: String,
    pub suite: String,
    /// False when the same inputs and options were ingested before.
    pub added: bool,
    pub trials: usize,
    pub requests: usize,
    pub warnings: Vec<String>,
    /// Files left out under `--keep-going`, with why.
    pub failed: Vec<String>,
}

impl IngestOutcome {
    fn existing(run: RunEntry, warnings: Vec<String>, failed: Vec<String>) -> IngestOutcome {
        IngestOutcome {
            run_id: run.run_id,
            suite: run.suite,
            added: false,
            trials: 0,
            requests: 0,
            warnings,
            failed,
        }
    }

    pub fn message(&self) -> String {
        if self.added {
            format!(
                "ingested run {} into suite {}: {} trials, {} requests",
                self.run_id, self.suite, self.trials, self.requests
            )
        } else {
            format!(
                "already ingested as run {} (suite {}); nothing added",
                self.run_id, self.suite
            )
        }
    }
}

pub fn ingest(wh: &Warehouse, opts: &IngestOptions) -> Result<IngestOutcome> {
    let files = ingest::discover(&opts.paths, opts.format)?;
    let mut parsed = Vec::with_capacity(files.len());
    let mut warnings = Vec::new();
    let mut formats = std::collections::BTreeSet::new();
    let mut failed = Vec::new();
    for f in &files {
        let p = match ingest::parse_file(f, opts.format) {
            Ok(p) => p,
            // With --keep-going a bad file is left out (nothing of it lands) and reported.
            Err(e) if opts.keep_going => {
                failed.push(e.to_string());
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        warnings.extend(p.warnings.iter().cloned());
        formats.insert(p.format.name());
        parsed.push(p);
    }
    if parsed.is_empty() {
        bail!("no input could be read:\n  {}", failed.join("\n  "));
    }
    let (mut data, sources) = ingest::assemble(parsed, &opts.defaults)?;

    // The digest covers what the run means: each file's content and trials, and the options.
    // Each input is hashed once: the same (sha256, bytes) name its blob below.
    let mut hashes = Vec::with_capacity(sources.len());
    let mut files_identity = Vec::with_capacity(sources.len());
    for (path, trial_ids) in &sources {
        let (sha, bytes) = sha256_file(path)?;
        files_identity.push(serde_json::json!({"sha256": sha, "trials": trial_ids}));
        hashes.push((sha, bytes));
    }
    let identity = serde_json::json!({
        "formats": formats,
        "suite": opts.suite,
        "files": files_identity,
        "trials": data.trials.iter().map(|t| serde_json::json!({
            "arm": t.arm, "params": t.params, "repeat": t.repeat, "discarded": t.discarded,
        })).collect::<Vec<_>>(),
        "labels": opts.labels,
        "commit": opts.commit,
        "branch": opts.branch,
    });
    let digest = hex::encode(Sha256::digest(identity.to_string().as_bytes()));
    if let Some(existing) = wh.find_by_digest(&digest)? {
        return Ok(IngestOutcome::existing(existing, warnings, failed));
    }

    for ((path, trial_ids), (sha, bytes)) in sources.iter().zip(&hashes) {
        let mut artifact = wh.store_blob(path, &path.to_string_lossy(), sha, *bytes)?;
        // A file of one trial belongs to it; a file of many belongs to the run.
        artifact.trial_id = match trial_ids.as_slice() {
            [one] => Some(*one),
            _ => None,
        };
        data.artifacts.push(artifact);
    }
    data.notes.extend(opts.note.iter().cloned());

    let now = now_us();
    let started = data
        .trials
        .iter()
        .filter_map(|t| t.started_at_us)
        .min()
        .unwrap_or(now);
    let finished = data
        .trials
        .iter()
        .filter_map(|t| t.finished_at_us)
        .max()
        .unwrap_or(now);
    let source = format!(
        "ingest:{}",
        formats.into_iter().collect::<Vec<_>>().join("+")
    );
    let run = Run {
        run_id: uuid::Uuid::now_v7().to_string(),
        suite: opts.suite.clone(),
        started_at_us: started,
        finished_at_us: finished,
        ingested_at_us: now,
        source,
        git_commit: opts.commit.clone(),
        git_branch: opts.branch.clone(),
        git_dirty: None,
        host: None,
        env_fingerprint: None,
        env: "{}".to_string(),
        labels: opts.labels.clone(),
        input_digest: digest,
        status: if data.trials.iter().all(|t| t.status == "ok") {
            "ok"
        } else if data.trials.iter().all(|t| t.status != "ok") {
            "failed"
        } else {
            "partial"
        }
        .to_string(),
    };
    if let Some(existing) = wh.append_run(&run, &data)? {
        return Ok(IngestOutcome::existing(existing, warnings, failed));
    }
    Ok(IngestOutcome {
        run_id: run.run_id,
        suite: run.suite,
        added: true,
        trials: data.trials.len(),
        requests: data.requests.len(),
        warnings,
        failed,
    })
}
