//! `perfhouse ingest`: discover → parse every file (nothing lands if one fails) → digest →
//! keep raw inputs → append the run atomically.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Result, bail};
use sha2::{Digest, Sha256};

use crate::cli::IngestArgs;
use crate::ingest::{self, Format, TrialDefaults};
use crate::model::{Run, RunStatus, now_us};
use crate::warehouse::{RunEntry, Table, Warehouse};

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
                stack_kind: a.stack_kind,
            },
            labels: a
                .labels
                .iter()
                .cloned()
                .chain(a.commit_url.clone().map(|u| ("commit_url".to_string(), u)))
                .collect(),
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
    /// What a many-run ingest (asv) did, in place of the one-run message.
    pub summary: Option<String>,
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
            summary: None,
        }
    }

    pub fn message(&self) -> String {
        if let Some(s) = &self.summary {
            s.clone()
        } else if self.added {
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
    let asv = opts.format == Format::Asv
        || opts.format == Format::Auto
            && opts.paths.len() == 1
            && opts.paths[0].is_dir()
            && ingest::asv::is_results_dir(Some(&opts.paths[0]));
    if asv {
        return ingest_asv(wh, opts);
    }
    let files = ingest::discover(&opts.paths, opts.format)?;
    let groups = ingest::artifact_groups(&files);
    // Inputs are hashed and copied into the blob store under temporary names on another core
    // while they are parsed on this one; only the inputs of a run about to commit are moved
    // to their content address (`StagedBlob::keep`), the others' copies are removed.
    let hasher = {
        let files = files.clone();
        let wh = wh.clone();
        std::thread::spawn(move || {
            files
                .into_iter()
                .map(|f| {
                    let kept = wh.hash_and_stage(&f);
                    (f, kept)
                })
                .collect::<Vec<_>>()
        })
    };
    let run_id = uuid::Uuid::now_v7().to_string();
    // Streamed rows wait outside the tables until the run commits (removed if it never does).
    let inflight = wh.begin_run(&run_id)?;
    let mut parsed: Vec<ingest::ParsedFile> = Vec::with_capacity(files.len());
    let mut index_of: Vec<Option<usize>> = vec![None; files.len()];
    let mut warnings = Vec::new();
    let mut formats = std::collections::BTreeSet::new();
    let mut failed = Vec::new();
    let mut next_trial = 0i32;
    let mut streamed = 0usize;
    // Files that stand alone first (their trials are numbered in this order), then the aiperf
    // summaries that join a JSONL's trial; a summary whose JSONL failed stands alone.
    let order: Vec<usize> = (0..files.len())
        .filter(|i| groups[*i].is_none())
        .chain((0..files.len()).filter(|i| groups[*i].is_some()))
        .collect();
    for i in order {
        let f = &files[i];
        let host = groups[i].and_then(|j| index_of[j]);
        let format = if opts.format == Format::Auto {
            match ingest::detect(f) {
                Ok(fmt) => fmt,
                Err(e) if opts.keep_going => {
                    failed.push(e.to_string());
                    continue;
                }
                Err(e) => return Err(e.into()),
            }
        } else {
            opts.format
        };
        // aiperf requests stream to a Parquet part file in bounded chunks.
        let mut part: Option<crate::warehouse::PartWriter> = None;
        let trial_id = next_trial;
        let mut sink = |mut chunk: Vec<crate::model::Request>| -> Result<(), ingest::IngestError> {
            let store =
                |e: crate::warehouse::WarehouseError| ingest::IngestError::Store(e.to_string());
            if part.is_none() {
                part = Some(
                    inflight
                        .part_writer(Table::Requests, &opts.suite, &run_id, i)
                        .map_err(store)?,
                );
            }
            for r in &mut chunk {
                r.trial_id = trial_id;
            }
            let b = crate::warehouse::batch::requests(&run_id, &chunk)
                .map_err(|e| ingest::IngestError::Store(e.to_string()))?;
            part.as_mut().expect("opened").write(&b).map_err(store)
        };
        let result = if format == Format::Aiperf && host.is_none() {
            ingest::parse_file_with(f, format, Some(&mut sink))
        } else {
            ingest::parse_file(f, format)
        };
        let p = match result {
            Ok(p) => p,
            // With --keep-going a bad file is left out (nothing of it lands) and reported.
            Err(e) if opts.keep_going => {
                failed.push(e.to_string());
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        if let Some(w) = part {
            w.finish()?;
        }
        streamed += p
            .trials
            .iter()
            .filter_map(|t| t.streamed.as_ref())
            .map(|s| s.count)
            .sum::<usize>();
        warnings.extend(p.warnings.iter().cloned());
        formats.insert(p.format.name());
        match host {
            Some(h) => parsed[h].join(p),
            None => {
                next_trial += p.trials.len() as i32;
                index_of[i] = Some(parsed.len());
                parsed.push(p);
            }
        }
    }
    if parsed.is_empty() {
        bail!("no input could be read:\n  {}", failed.join("\n  "));
    }
    // A commit the files name (pytest-benchmark's commit_info) when --commit does not; files
    // that disagree name none.
    let named: std::collections::BTreeSet<_> = parsed
        .iter()
        .filter_map(|p| p.commit.as_ref())
        .map(|c| (c.id.clone(), c.branch.clone(), c.dirty))
        .collect();
    let file_commit = (named.len() == 1).then(|| named.into_iter().next().expect("one"));
    let (mut data, sources) = ingest::assemble(parsed, &opts.defaults)?;

    // The digest covers what the run means: each file's content and trials, and the options.
    // Each input is hashed once: the same (sha256, bytes) name its blob below.
    let mut precomputed: std::collections::HashMap<PathBuf, _> =
        hasher.join().expect("hashing thread").into_iter().collect();
    let mut kept = Vec::with_capacity(sources.len());
    let mut files_identity = Vec::with_capacity(sources.len());
    for (path, trial_ids) in &sources {
        let staged = match precomputed.remove(path) {
            Some(h) => h?,
            None => wh.hash_and_stage(path)?,
        };
        files_identity.push(serde_json::json!({"sha256": staged.sha(), "trials": trial_ids}));
        kept.push((path.clone(), staged));
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
    let requests = data.requests.len() + streamed;

    for ((_, trial_ids), (path, staged)) in sources.iter().zip(kept) {
        let mut artifact = staged.keep(&path.to_string_lossy())?;
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
        run_id: run_id.clone(),
        suite: opts.suite.clone(),
        started_at_us: started,
        finished_at_us: finished,
        ingested_at_us: now,
        source,
        git_commit: opts
            .commit
            .clone()
            .or_else(|| file_commit.as_ref().map(|c| c.0.clone())),
        git_branch: opts
            .branch
            .clone()
            .or_else(|| file_commit.as_ref().and_then(|c| c.1.clone())),
        git_dirty: file_commit
            .as_ref()
            .filter(|_| opts.commit.is_none())
            .and_then(|c| c.2),
        host: None,
        env_fingerprint: None,
        env: "{}".to_string(),
        labels: opts.labels.clone(),
        input_digest: digest,
        status: RunStatus::of(&data.trials),
    };
    if let Some(existing) = wh.append_run(&run, &data)? {
        return Ok(IngestOutcome::existing(existing, warnings, failed));
    }
    drop(inflight);
    Ok(IngestOutcome {
        run_id: run.run_id,
        suite: run.suite,
        added: true,
        trials: data.trials.len(),
        requests,
        warnings,
        failed,
        summary: None,
    })
}

/// asv results: one run per results file (one commit on one machine), all appended at once.
fn ingest_asv(wh: &Warehouse, opts: &IngestOptions) -> Result<IngestOutcome> {
    let [root] = opts.paths.as_slice() else {
        bail!(
            "--format asv takes one path: the asv results directory or the project holding results/"
        );
    };
    let runs = ingest::asv::parse_dir(root)?;
    let mut opts = opts.clone();
    if !opts.labels.contains_key("commit_url")
        && let Some(url) = ingest::asv::show_commit_url(root)
    {
        opts.labels.insert("commit_url".to_string(), url);
    }
    let opts = &opts;
    if runs.is_empty() {
        bail!(
            "{}: no asv results files (<machine>/<commit>-<env>.json) found",
            root.display()
        );
    }
    let bar = indicatif::ProgressBar::new(runs.len() as u64).with_message("asv results");
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} ({eta})")
            .expect("valid template"),
    );
    let now = now_us();
    let mut built = Vec::with_capacity(runs.len());
    let mut nulls = 0usize;
    let mut asv_warnings = Vec::new();
    for r in runs {
        bar.inc(1);
        nulls += r.failed.len();
        let mut file = ingest::ParsedFile {
            path: r.path.clone(),
            format: Format::Asv,
            trials: r.trials,
            warnings: Vec::new(),
            joined: Vec::new(),
            commit: None,
        };
        file.drop_non_finite();
        asv_warnings.append(&mut file.warnings);
        let (mut data, _) = ingest::assemble(vec![file], &opts.defaults)?;
        let mut artifact = wh.store_blob(&r.path, &r.path.to_string_lossy())?;
        artifact.trial_id = None;
        let identity = serde_json::json!({
            "formats": ["asv"], "suite": opts.suite, "sha256": artifact.sha256, "labels": opts.labels,
        });
        data.artifacts.push(artifact);
        data.notes.extend(opts.note.iter().cloned());
        let at = r.date_ms.map(|ms| ms * 1000).unwrap_or(now);
        let mut labels = opts.labels.clone();
        if !r.env_name.is_empty() {
            labels
                .entry("asv_env".to_string())
                .or_insert(r.env_name.clone());
        }
        let run = Run {
            run_id: uuid::Uuid::now_v7().to_string(),
            suite: opts.suite.clone(),
            started_at_us: at,
            finished_at_us: at,
            ingested_at_us: now,
            source: "ingest:asv".to_string(),
            git_commit: Some(r.commit),
            git_branch: opts.branch.clone(),
            git_dirty: None,
            host: Some(r.machine).filter(|m| !m.is_empty()),
            env_fingerprint: None,
            env: r.env,
            labels,
            input_digest: hex::encode(Sha256::digest(identity.to_string().as_bytes())),
            status: if r.failed.is_empty() {
                RunStatus::Ok
            } else {
                RunStatus::Partial
            },
        };
        built.push((run, data));
    }
    bar.finish_and_clear();
    let refs: Vec<(&Run, &crate::model::RunData)> = built.iter().map(|(r, d)| (r, d)).collect();
    let outcome = wh.append_runs(&refs)?;
    let added = outcome.iter().filter(|o| o.is_none()).count();
    let mut warnings = asv_warnings;
    if nulls > 0 {
        warnings.push(format!(
            "{nulls} asv results were null (the benchmark failed or was skipped in asv); those runs are marked partial"
        ));
    }
    let last = built.last().expect("non-empty");
    Ok(IngestOutcome {
        run_id: last.0.run_id.clone(),
        suite: opts.suite.clone(),
        added: added > 0,
        trials: built.iter().map(|(_, d)| d.trials.len()).sum(),
        requests: 0,
        warnings,
        failed: Vec::new(),
        summary: Some(format!(
            "ingested {added} asv runs into suite {} ({} already present)",
            opts.suite,
            built.len() - added
        )),
    })
}
