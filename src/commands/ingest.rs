//! `perfhouse ingest`: discover → parse every file (nothing lands if one fails) → digest →
//! keep raw inputs → append the run atomically.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Result, bail};
use sha2::{Digest, Sha256};

use crate::cli::IngestArgs;
use crate::ingest::{self, Format, TrialDefaults};
use crate::model::{Run, RunStatus, now_us};
use crate::warehouse::{RunEntry, StagedBlob, Table, Warehouse, WarehouseError};

type WarehouseResult<T> = std::result::Result<T, WarehouseError>;

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
    /// Land trials without any figure (refused otherwise).
    pub allow_empty: bool,
}

impl IngestOptions {
    pub fn from_args(a: &IngestArgs) -> Result<IngestOptions> {
        if a.suite.trim().is_empty() {
            bail!("--suite is empty; name the suite the results belong to");
        }
        use crate::model::names::{name_problem, short, value_problem};
        if let Some(p) = name_problem(&a.suite) {
            bail!("--suite {p}");
        }
        if let Some(p) = a.arm.as_deref().and_then(name_problem) {
            bail!("--arm {p}");
        }
        for (k, v) in a.labels.iter().chain(&a.params) {
            if let Some(p) = name_problem(k) {
                bail!("--label/--param name `{}` {p}", short(k));
            }
            if let Some(p) = value_problem(v) {
                bail!("--label/--param `{}` {p}", short(k));
            }
        }
        crate::query::thresholds::check_labels(&a.labels).map_err(anyhow::Error::msg)?;
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
            allow_empty: a.allow_empty,
        })
    }

    /// Options with defaults for everything but the inputs and the suite.
    pub fn new(paths: Vec<PathBuf>, suite: &str) -> IngestOptions {
        IngestOptions {
            paths,
            format: Format::AUTO,
            suite: suite.to_string(),
            defaults: TrialDefaults::default(),
            labels: BTreeMap::new(),
            note: None,
            commit: None,
            branch: None,
            keep_going: false,
            allow_empty: false,
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
    // Held to the commit: `gc` removes nothing of a running writer (`Warehouse::writing`).
    let _writing = wh.writing()?;
    if let Some(history) = history_format(opts)? {
        return ingest_history(wh, opts, history);
    }
    let files = ingest::discover(&opts.paths, opts.format)?;
    // Inputs are hashed and copied into the blob store under temporary names on another core
    // while they are parsed on this one; only the inputs of a run about to commit are moved
    // to their content address (`StagedBlob::keep`), the others' copies are removed.
    let hasher = Hasher::spawn(wh, &files);
    let run_id = uuid::Uuid::now_v7().to_string();
    // Streamed rows wait outside the tables until the run commits (removed if it never does).
    let inflight = wh.begin_run(&run_id)?;
    let read = read_files(&files, opts, &inflight, &run_id)?;
    let file_commit = file_commit(&read.parsed);
    let (mut data, sources) = ingest::assemble(read.parsed, &opts.defaults)?;
    if !opts.allow_empty {
        refuse_empty(&data, read.streamed, &sources)?;
    }
    let (digest, kept) = digest(wh, hasher, &sources, &read.formats, &data, opts)?;
    if let Some(existing) = wh.find_by_digest(&digest)? {
        return Ok(IngestOutcome::existing(
            existing,
            read.warnings,
            read.failed,
        ));
    }
    let requests = data.requests.len() + read.streamed;
    let created = keep_inputs(kept, &sources, &mut data)?;
    data.notes.extend(opts.note.iter().cloned());
    let run = run_row(run_id, opts, &data, &read.formats, file_commit, digest);
    let appended = match wh.append_run(&run, &data) {
        Ok(a) => a,
        Err(e) => {
            // Nothing of a failed ingest stays behind (a killed one's leftovers are gc's).
            if let Err(d) = wh.discard_blobs(&created) {
                eprintln!("warning: {d} (run `perfhouse gc` to remove the kept inputs)");
            }
            return Err(e.into());
        }
    };
    if let Some(existing) = appended {
        return Ok(IngestOutcome::existing(
            existing,
            read.warnings,
            read.failed,
        ));
    }
    drop(inflight);
    Ok(IngestOutcome {
        run_id: run.run_id,
        suite: run.suite,
        added: true,
        trials: data.trials.len(),
        requests,
        warnings: read.warnings,
        failed: read.failed,
        summary: None,
    })
}

/// What reading the input files gave.
struct Read {
    parsed: Vec<ingest::ParsedFile>,
    warnings: Vec<String>,
    /// The formats the files were read as (the run's `source` names them).
    formats: std::collections::BTreeSet<&'static str>,
    /// Files left out under `--keep-going`, with why.
    failed: Vec<String>,
    /// Request rows streamed to the run's in-flight part files.
    streamed: usize,
}

/// Detects and parses every file (aiperf requests streamed to `inflight` in bounded chunks);
/// an aiperf summary joins the trial of the JSONL of its artifact directory.
fn read_files(
    files: &[PathBuf],
    opts: &IngestOptions,
    inflight: &crate::warehouse::InFlight,
    run_id: &str,
) -> Result<Read> {
    let groups = ingest::artifact_groups(files);
    let mut read = Read {
        parsed: Vec::with_capacity(files.len()),
        warnings: Vec::new(),
        formats: Default::default(),
        failed: Vec::new(),
        streamed: 0,
    };
    let mut index_of: Vec<Option<usize>> = vec![None; files.len()];
    let mut next_trial = 0i32;
    // Files that stand alone first (their trials are numbered in this order), then the aiperf
    // summaries that join a JSONL's trial; a summary whose JSONL failed stands alone.
    let order: Vec<usize> = (0..files.len())
        .filter(|i| groups[*i].is_none())
        .chain((0..files.len()).filter(|i| groups[*i].is_some()))
        .collect();
    for i in order {
        let host = groups[i].and_then(|j| index_of[j]);
        // With --keep-going a bad file is left out (nothing of it lands) and reported.
        let p = match read_file(&files[i], i, host, next_trial, opts, inflight, run_id) {
            Ok(p) => p,
            // (an input's fault only: a store that fails stops the ingest)
            Err(e) if opts.keep_going && e.downcast_ref::<ingest::IngestError>().is_some() => {
                read.failed.push(e.to_string());
                continue;
            }
            Err(e) => return Err(e),
        };
        read.streamed += p
            .trials
            .iter()
            .filter_map(|t| t.streamed.as_ref())
            .map(|s| s.count)
            .sum::<usize>();
        read.warnings.extend(p.warnings.iter().cloned());
        read.formats.insert(p.format.name());
        match host {
            Some(h) => read.parsed[h].join(p),
            None => {
                next_trial += p.trials.len() as i32;
                index_of[i] = Some(read.parsed.len());
                read.parsed.push(p);
            }
        }
    }
    if read.parsed.is_empty() {
        bail!("no input could be read:\n  {}", read.failed.join("\n  "));
    }
    Ok(read)
}

/// Reads file `i` (trials numbered from `trial_id`): its requests stream to a part file of
/// the run where its format streams and it joins no other file's trial.
fn read_file(
    f: &std::path::Path,
    i: usize,
    host: Option<usize>,
    trial_id: i32,
    opts: &IngestOptions,
    inflight: &crate::warehouse::InFlight,
    run_id: &str,
) -> Result<ingest::ParsedFile, anyhow::Error> {
    let format = if opts.format == Format::AUTO {
        ingest::detect(f)?
    } else {
        opts.format
    };
    let mut part: Option<crate::warehouse::PartWriter> = None;
    let mut sink = |mut chunk: Vec<crate::model::Request>| -> Result<(), ingest::IngestError> {
        let store = |e: WarehouseError| ingest::IngestError::Store(e.to_string());
        if part.is_none() {
            part = Some(
                inflight
                    .part_writer(Table::Requests, &opts.suite, run_id, i)
                    .map_err(store)?,
            );
        }
        for r in &mut chunk {
            r.trial_id = trial_id;
        }
        let b = crate::warehouse::batch::requests(run_id, &chunk)
            .map_err(|e| ingest::IngestError::Store(e.to_string()))?;
        part.as_mut().expect("opened").write(&b).map_err(store)
    };
    let p = if format.adapter().is_some_and(|a| a.streams()) && host.is_none() {
        ingest::parse_file_with(f, format, Some(&mut sink))?
    } else {
        ingest::parse_file(f, format)?
    };
    if let Some(w) = part {
        w.finish()?;
    }
    Ok(p)
}

/// A commit the files name (pytest-benchmark's commit_info), when they agree on one:
/// (id, branch, dirty).
type FileCommit = (String, Option<String>, Option<bool>);

fn file_commit(parsed: &[ingest::ParsedFile]) -> Option<FileCommit> {
    let named: std::collections::BTreeSet<_> = parsed
        .iter()
        .filter_map(|p| p.commit.as_ref())
        .map(|c| (c.id.clone(), c.branch.clone(), c.dirty))
        .collect();
    (named.len() == 1).then(|| named.into_iter().next().expect("one"))
}

/// The run's digest: what the run means (each file's content and trials, and the options).
/// Each input is hashed once (by the hasher, or here for a file it did not take): the same
/// (sha256, bytes) name its blob when kept. Returns the staged inputs with it.
fn digest(
    wh: &Warehouse,
    hasher: Hasher,
    sources: &[ingest::FileTrials],
    formats: &std::collections::BTreeSet<&'static str>,
    data: &crate::model::RunData,
    opts: &IngestOptions,
) -> Result<(String, Vec<(PathBuf, StagedBlob)>)> {
    let mut precomputed: std::collections::HashMap<PathBuf, _> =
        hasher.join().into_iter().collect();
    let mut kept = Vec::with_capacity(sources.len());
    let mut files_identity = Vec::with_capacity(sources.len());
    for (path, trial_ids) in sources {
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
    Ok((
        hex::encode(Sha256::digest(identity.to_string().as_bytes())),
        kept,
    ))
}

/// Moves each staged input to its content address and adds its artifact row (a file of one
/// trial belongs to it, a file of many to the run). Returns the blobs this ingest stored
/// first, which a failed commit removes again.
fn keep_inputs(
    kept: Vec<(PathBuf, StagedBlob)>,
    sources: &[ingest::FileTrials],
    data: &mut crate::model::RunData,
) -> Result<Vec<String>> {
    let mut created = Vec::new();
    for ((_, trial_ids), (path, staged)) in sources.iter().zip(kept) {
        let (mut artifact, new) = staged.keep_created(&path.to_string_lossy())?;
        if new {
            created.push(artifact.stored_path.clone());
        }
        artifact.trial_id = match trial_ids.as_slice() {
            [one] => Some(*one),
            _ => None,
        };
        data.artifacts.push(artifact);
    }
    Ok(created)
}

/// The run's `runs` row: its time span from its trials' (now where none says), `source` the
/// formats read, the commit from `--commit` or, failing that, the one the files name.
fn run_row(
    run_id: String,
    opts: &IngestOptions,
    data: &crate::model::RunData,
    formats: &std::collections::BTreeSet<&'static str>,
    file_commit: Option<FileCommit>,
    digest: String,
) -> Run {
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
    Run {
        run_id,
        suite: opts.suite.clone(),
        started_at_us: started,
        finished_at_us: finished,
        ingested_at_us: now,
        source: format!(
            "ingest:{}",
            formats.iter().copied().collect::<Vec<_>>().join("+")
        ),
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
    }
}

/// Refuses a run that would land no figure: trials without a metric, request, stack or CPU
/// sample show nothing anywhere, so the input was probably not what the user meant to give.
fn refuse_empty(
    data: &crate::model::RunData,
    streamed: usize,
    sources: &[ingest::FileTrials],
) -> Result<()> {
    let figures = data.metrics.len()
        + data.requests.len()
        + streamed
        + data.stacks.len()
        + data.cpu_samples.len()
        + data.scrape_samples.len();
    if figures > 0 {
        return Ok(());
    }
    let files: Vec<String> = sources
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    let hint = "check that the file is the tool's full output (not a summary of another file), or give --format";
    bail!(
        "{}: nothing to land: {} trial(s) without a single metric, request, stack or sample. {hint}. Give --allow-empty to land the trials anyway",
        files.join(", "),
        data.trials.len()
    )
}

/// The thread that hashes and stages the inputs while they are parsed. Joined when dropped,
/// so an ingest that fails removes the copies it staged (each [`StagedBlob`] removes its copy
/// when dropped) before the process exits, instead of leaving a detached thread mid-copy.
struct Hasher(Option<std::thread::JoinHandle<Hashed>>);

/// Each input with what hashing and staging it gave.
type Hashed = Vec<(PathBuf, WarehouseResult<StagedBlob>)>;

impl Hasher {
    fn spawn(wh: &Warehouse, files: &[PathBuf]) -> Hasher {
        let files = files.to_vec();
        let wh = wh.clone();
        Hasher(Some(std::thread::spawn(move || {
            files
                .into_iter()
                .map(|f| {
                    let kept = wh.hash_and_stage(&f);
                    (f, kept)
                })
                .collect::<Vec<_>>()
        })))
    }

    fn join(mut self) -> Hashed {
        self.0
            .take()
            .expect("joined once")
            .join()
            .expect("hashing thread")
    }
}

impl Drop for Hasher {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            let _ = h.join();
        }
    }
}

/// The history format `opts` names, where it names one: given (`--format asv`), or, with
/// `auto`, a single asv results directory or a single file detected as one.
fn history_format(opts: &IngestOptions) -> Result<Option<&'static dyn ingest::adapter::Adapter>> {
    if let Some(a) = opts.format.adapter() {
        return Ok(a.many_runs().then_some(a));
    }
    let [path] = opts.paths.as_slice() else {
        return Ok(None);
    };
    if path.is_dir() {
        if ingest::asv::is_results_dir(Some(path)) {
            return Ok(Some(&ingest::asv::ADAPTER));
        }
        // A gh-pages checkout or its dev/bench/ directory.
        return Ok(
            ingest::gab_data_js::is_history_dir(path).then_some(&ingest::gab_data_js::ADAPTER as _)
        );
    }
    if !path.is_file() {
        return Ok(None);
    }
    // Only the history formats are asked (a full `detect` here would read the file again
    // for every single-file ingest, before `read_files` detects it).
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sniff = ingest::adapter::Sniff::new(path);
    Ok(ingest::ADAPTERS
        .iter()
        .copied()
        .filter(|a| a.many_runs())
        .find(|a| a.claims_name(path, &name) || a.sniff(&sniff)))
}

/// Runs of one suite held before they are appended together (one file per table): at most
/// this many metric rows, or [`BATCH_RUNS`] runs. A history streams through in such batches,
/// so what an import holds is one entry and one batch, whatever the history's size.
const BATCH_METRICS: usize = 2 * ingest::CHUNK;
const BATCH_RUNS: usize = 5_000;

/// A history another tool kept (asv results, a github-action-benchmark `data.js`): one run
/// per commit it measured, appended a batch of one suite's runs at a time, in the history's
/// order; the runs already here (same digest) are left out, so importing a longer history
/// later adds only the new runs, and an import stopped midway adds the rest when run again.
fn ingest_history(
    wh: &Warehouse,
    opts: &IngestOptions,
    adapter: &'static dyn ingest::adapter::Adapter,
) -> Result<IngestOutcome> {
    let [root] = opts.paths.as_slice() else {
        bail!(
            "--format {} takes one path: the history (asv: the results directory or the project holding results/)",
            adapter.name()
        );
    };
    let bar =
        indicatif::ProgressBar::new_spinner().with_message(format!("{} history", adapter.name()));
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg}: {pos} runs ({elapsed})")
            .expect("valid template"),
    );
    let mut import = HistoryImport {
        wh,
        opts: opts.clone(),
        adapter,
        now: now_us(),
        batch: Vec::new(),
        batch_metrics: 0,
        suites: Vec::new(),
        runs: 0,
        added: 0,
        trials: 0,
        nulls: 0,
        warnings: Vec::new(),
        kept: Default::default(),
        created: Vec::new(),
        last: None,
        failed: None,
    };
    let read = adapter.stream_history(root, &mut |item| {
        match item {
            ingest::adapter::HistoryItem::Head { commit_url } => {
                if let Some(url) = commit_url {
                    import
                        .opts
                        .labels
                        .entry("commit_url".to_string())
                        .or_insert(url);
                }
            }
            ingest::adapter::HistoryItem::Warning(w) => import.warnings.push(w),
            ingest::adapter::HistoryItem::Run(run) => {
                bar.inc(1);
                // The warehouse's error is kept whole; the reader only needs to stop.
                if let Err(e) = import.add(*run) {
                    import.failed = Some(e);
                    return Err(ingest::IngestError::Store("stopped".to_string()));
                }
            }
        }
        Ok(())
    });
    bar.finish_and_clear();
    let flushed = match read {
        Ok(()) => import.flush(),
        Err(e) => Err(import.failed.take().unwrap_or_else(|| e.into())),
    };
    if let Err(e) = flushed {
        // Batches committed before stay (importing again adds the rest); the kept input they
        // refer to stays with them (`discard_blobs` removes only what nothing refers to).
        if let Err(d) = wh.discard_blobs(&import.created) {
            eprintln!("warning: {d} (run `perfhouse gc` to remove the kept inputs)");
        }
        return Err(e);
    }
    import.outcome(root)
}

/// The state of one [`ingest_history`]: the batch being filled and what was done so far.
struct HistoryImport<'a> {
    wh: &'a Warehouse,
    opts: IngestOptions,
    adapter: &'static dyn ingest::adapter::Adapter,
    now: i64,
    /// Runs of one suite, not yet appended.
    batch: Vec<(Run, crate::model::RunData)>,
    batch_metrics: usize,
    /// Suites in the order their first run came.
    suites: Vec<String>,
    runs: usize,
    added: usize,
    trials: usize,
    /// Results the history says are missing (failed benchmarks).
    nulls: usize,
    warnings: Vec<String>,
    /// A file several runs come from (data.js) is kept once.
    kept: std::collections::HashMap<PathBuf, crate::model::Artifact>,
    /// Kept inputs this import created: removed again if it fails before referring to them.
    created: Vec<String>,
    /// The last run's id and suite.
    last: Option<(String, String)>,
    /// What stopped the import while the history was read.
    failed: Option<anyhow::Error>,
}

impl HistoryImport<'_> {
    /// One run of the history into the batch; the batch is appended first when the run is
    /// of another suite or the batch is full.
    fn add(&mut self, mut r: ingest::adapter::HistoryRun) -> Result<()> {
        self.nulls += r.failed.len();
        let suite = match &r.group {
            Some(g) => format!("{}.{g}", self.opts.suite),
            None => self.opts.suite.clone(),
        };
        let mut data = self.rows(&mut r)?;
        let artifact = self.kept(&r.path)?;
        // asv's digest is its results file's, as it always was (so a warehouse holding an
        // earlier import adds nothing); a run that shares its file names its own content.
        let (format, labels) = (self.adapter.name(), &self.opts.labels);
        let identity = match &r.identity {
            None => serde_json::json!({
                "formats": [format], "suite": suite, "sha256": artifact.sha256, "labels": labels,
            }),
            Some(run) => serde_json::json!({
                "formats": [format], "suite": suite, "run": run, "labels": labels,
            }),
        };
        data.artifacts.push(artifact);
        data.notes.extend(self.opts.note.iter().cloned());
        let run = self.run_row(r, suite, &identity);
        self.enqueue(run, data)
    }

    /// The rows of a run's trials (values that are not finite dropped, with a warning).
    fn rows(&mut self, r: &mut ingest::adapter::HistoryRun) -> Result<crate::model::RunData> {
        let mut file = ingest::ParsedFile {
            path: r.path.clone(),
            format: Format::of(self.adapter),
            trials: std::mem::take(&mut r.trials),
            warnings: Vec::new(),
            joined: Vec::new(),
            commit: None,
        };
        file.drop_non_finite();
        self.warnings.append(&mut file.warnings);
        let (data, _) = ingest::assemble(vec![file], &self.opts.defaults)?;
        Ok(data)
    }

    /// The kept input of the file at `path`, kept once however many runs come from it.
    fn kept(&mut self, path: &std::path::Path) -> Result<crate::model::Artifact> {
        if let Some(a) = self.kept.get(path) {
            return Ok(a.clone());
        }
        let (mut a, new) = self
            .wh
            .hash_and_stage(path)?
            .keep_created(&path.to_string_lossy())?;
        if new {
            self.created.push(a.stored_path.clone());
        }
        a.trial_id = None;
        self.kept.insert(path.to_path_buf(), a.clone());
        Ok(a)
    }

    /// The run row of a history run of `suite`, its digest that of `identity`.
    fn run_row(
        &self,
        r: ingest::adapter::HistoryRun,
        suite: String,
        identity: &serde_json::Value,
    ) -> Run {
        let opts = &self.opts;
        let at = r.date_ms.map(|ms| ms * 1000).unwrap_or(self.now);
        let mut labels = opts.labels.clone();
        for (k, v) in &r.labels {
            labels.entry(k.clone()).or_insert_with(|| v.clone());
        }
        if !r.env_name.is_empty() {
            labels
                .entry("asv_env".to_string())
                .or_insert(r.env_name.clone());
        }
        Run {
            run_id: uuid::Uuid::now_v7().to_string(),
            suite,
            started_at_us: at,
            finished_at_us: at,
            ingested_at_us: self.now,
            source: format!("ingest:{}", self.adapter.name()),
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
        }
    }

    /// Puts a run in the batch, appending the batch before (another suite) or after (full).
    fn enqueue(&mut self, run: Run, data: crate::model::RunData) -> Result<()> {
        if self
            .batch
            .first()
            .is_some_and(|(b, _)| b.suite != run.suite)
        {
            self.flush()?;
        }
        if !self.suites.contains(&run.suite) {
            self.suites.push(run.suite.clone());
        }
        self.runs += 1;
        self.trials += data.trials.len();
        self.batch_metrics += data.metrics.len();
        self.last = Some((run.run_id.clone(), run.suite.clone()));
        self.batch.push((run, data));
        if self.batch_metrics >= BATCH_METRICS || self.batch.len() >= BATCH_RUNS {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends the batch (one commit).
    fn flush(&mut self) -> Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let refs: Vec<(&Run, &crate::model::RunData)> =
            self.batch.iter().map(|(r, d)| (r, d)).collect();
        let outcome = self.wh.append_runs(&refs)?;
        self.added += outcome.iter().filter(|o| o.is_none()).count();
        self.batch.clear();
        self.batch_metrics = 0;
        Ok(())
    }

    fn outcome(self, root: &std::path::Path) -> Result<IngestOutcome> {
        let Some((run_id, suite)) = self.last else {
            bail!(
                "{}: no runs found in this {} history (what it looked for: {})",
                root.display(),
                self.adapter.name(),
                self.adapter.hint()
            );
        };
        let mut warnings = self.warnings;
        if self.nulls > 0 {
            warnings.push(format!(
                "{} {} results were missing (the benchmark failed or was skipped); those runs are marked partial",
                self.nulls,
                self.adapter.name()
            ));
        }
        let into = if self.suites.len() == 1 {
            format!("suite {}", self.suites[0])
        } else {
            format!("{} suites ({})", self.suites.len(), self.suites.join(", "))
        };
        Ok(IngestOutcome {
            run_id,
            suite,
            added: self.added > 0,
            trials: self.trials,
            requests: 0,
            warnings,
            failed: Vec::new(),
            summary: Some(format!(
                "ingested {} {} runs into {into} ({} already present)",
                self.added,
                self.adapter.name(),
                self.runs - self.added
            )),
        })
    }
}
