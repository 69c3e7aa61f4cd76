//! Ingest: external tool outputs → model values. One file per format; this module holds what
//! they share: errors, format detection, directory walking, and turning parsed files into the
//! trials of one run.
//!
//! Each input file is one trial. `key=value` segments of its path (Hive style, as in
//! `arm=fastokens/concurrency=8/repeat=1/profile_export.jsonl`) set the trial's arm (`arm=`),
//! repeat (`repeat=`) and parameters (any other key); `--arm` and `--param` give defaults for
//! what the path does not say.

pub mod adapter;
#[cfg(test)]
mod fuzz;
pub mod text;

/// Every input format, in detection order (names first, then content, in this order): one
/// line each. A format is its file (an `ADAPTER` implementing [`adapter::Adapter`], which
/// holds its name, description, detection and capabilities) and its line here; nothing else
/// names it.
macro_rules! registry {
    ($($format:ident),* $(,)?) => {
        $(pub mod $format;)*
        /// Every adapter, in detection order.
        pub static ADAPTERS: &[&dyn adapter::Adapter] = &[$(&$format::ADAPTER),*];
    };
}

registry! {
    aiperf,
    aiperf_aggregate,
    aiperf_summary,
    asv,
    gab_data_js,
    criterion,
    jmh,
    benchmarkdotnet,
    julia_benchmarktools,
    bmf,
    gab_custom,
    catch2_xml,
    iai,
    criterion_bencher,
    libtest_bench,
    go_bench,
    catch2,
    asv_console,
    benchmarkjs,
    hyperfine,
    guidellm,
    vllm_bench,
    metrics_json,
    gbench,
    pytest_benchmark,
    lmcache,
    perf_script,
    perf_stat,
    folded,
}

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::model::{Metric, Params, Request, RunData, Stack, Trial};

#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}:{line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}:{line}: field `{field}`: expected {expected}")]
    Field {
        path: PathBuf,
        line: usize,
        field: String,
        expected: String,
    },
    /// No format took the file: `saw` says what it resembled (an adapter's
    /// [`adapter::Adapter::near`]) or what it is, naming the line that failed.
    #[error("{path}: unrecognised input; known formats: {known}. {saw}. Give --format explicitly")]
    Unknown {
        path: PathBuf,
        known: String,
        saw: String,
    },
    #[error("{path}: no input files found here (looked for {looked_for})")]
    NothingFound { path: PathBuf, looked_for: String },
    #[error("{path}: {kind}; give a regular file or a directory")]
    NotAFile { path: PathBuf, kind: &'static str },
    /// Writing streamed rows failed (disk full, permissions).
    #[error("{0}")]
    Store(String),
    #[error("{path}: path segment `{segment}`: {expected}")]
    PathKey {
        path: PathBuf,
        segment: String,
        expected: String,
    },
    /// A name or value the file gives (an arm, a metric) past its bound (`model::names`).
    #[error("{path}: {what}; nothing was ingested")]
    Name { path: PathBuf, what: String },
}

/// An input format: `auto` (detect per file) or one registered adapter, whose name,
/// description and detection it answers with.
#[derive(Clone, Copy)]
pub struct Format(Option<&'static dyn adapter::Adapter>);

impl Format {
    /// Detect from the file name and content.
    pub const AUTO: Format = Format(None);

    /// The format of one adapter (`Format::of(&aiperf::ADAPTER)`).
    pub const fn of(adapter: &'static dyn adapter::Adapter) -> Format {
        Format(Some(adapter))
    }

    /// Every format, `auto` first, then the adapters in registry order (as `--help` lists them).
    pub fn all() -> &'static [Format] {
        static ALL: std::sync::LazyLock<Vec<Format>> = std::sync::LazyLock::new(|| {
            std::iter::once(Format::AUTO)
                .chain(ADAPTERS.iter().map(|a| Format::of(*a)))
                .collect()
        });
        &ALL
    }

    /// The adapter (`None` for `auto`).
    pub fn adapter(self) -> Option<&'static dyn adapter::Adapter> {
        self.0
    }

    /// The format a `--format` / plan `format` value names (case-insensitive).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::all()
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(name.trim()))
    }

    /// One line for `--help`.
    pub fn description(self) -> &'static str {
        self.0
            .map_or("Detect from the file name and content", |a| a.description())
    }

    pub fn name(self) -> &'static str {
        self.0.map_or("auto", |a| a.name())
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Format {}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Concrete formats (not `auto`), for messages: `name (what it reads)` each.
fn known() -> String {
    ADAPTERS
        .iter()
        .map(|a| format!("{} ({})", a.name(), a.hint()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Names aiperf gives the files of one artifact directory.
pub(crate) fn is_aiperf_jsonl(name: &str) -> bool {
    name == "profile_export.jsonl" || name == "profile_export.jsonl.gz"
}

pub(crate) fn is_aiperf_summary(name: &str) -> bool {
    matches!(
        name,
        "profile_export_aiperf.json"
            | "profile_export_aiperf.json.gz"
            | "profile_export_aiperf.csv"
            | "profile_export_aiperf.csv.gz"
            | "phase_manifest.json"
    )
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// For each input, the index of the input it joins: an aiperf summary (`profile_export_aiperf.json`,
/// `.csv`, `phase_manifest.json`) joins the `profile_export.jsonl` of its artifact directory, so
/// one aiperf run is one trial with both its requests and aiperf's own figures. A CSV is left
/// out where the JSON beside it says the same (see [`discover`]).
pub fn artifact_groups(files: &[PathBuf]) -> Vec<Option<usize>> {
    files
        .iter()
        .map(|f| {
            if !is_aiperf_summary(&file_name(f)) {
                return None;
            }
            files
                .iter()
                .position(|j| j.parent() == f.parent() && is_aiperf_jsonl(&file_name(j)))
        })
        .collect()
}

/// Expands directories into the input files they hold (sorted, so ingest order is stable).
pub fn discover(paths: &[PathBuf], format: Format) -> Result<Vec<PathBuf>, IngestError> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let before = out.len();
            walk_dir(path, format, &mut out)?;
            if out.len() == before {
                return Err(IngestError::NothingFound {
                    path: path.clone(),
                    looked_for: format!(
                        "{} files",
                        match format.adapter() {
                            None => known(),
                            Some(a) => a.hint().to_string(),
                        }
                    ),
                });
            }
        } else {
            regular_file(path)?;
            out.push(path.clone());
        }
    }
    Ok(out)
}

/// The files under `dir` that `format` (or, for auto, any format by name) picks up.
fn walk_dir(dir: &Path, format: Format, out: &mut Vec<PathBuf>) -> Result<(), IngestError> {
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| IngestError::Io {
            path: e.path().unwrap_or(dir).to_path_buf(),
            source: e
                .into_io_error()
                .unwrap_or_else(|| io::Error::other("walk failed")),
        })?;
        let name = entry.file_name().to_string_lossy();
        let wanted = match format.adapter() {
            Some(a) => a.walks(entry.path(), &name),
            // auto: every file name that says what it is.
            None => ADAPTERS.iter().any(|a| a.walk_auto(entry.path(), &name)),
        };
        if entry.file_type().is_file() && wanted && !restated(entry.path(), &name) {
            out.push(entry.into_path());
        }
    }
    Ok(())
}

/// Whether a file found by a walk restates another aiperf wrote beside it.
fn restated(path: &Path, name: &str) -> bool {
    // aiperf ≥ 0.13 also writes each phase's summary under `phases/<phase>/`: the
    // artifact directory's own summary (the profiling phase) is the one that counts.
    let per_phase = is_aiperf_summary(name)
        && path
            .parent()
            .and_then(Path::parent)
            .is_some_and(|p| p.file_name().is_some_and(|n| n == "phases"));
    // aiperf writes the same summary as JSON and CSV: take the JSON.
    per_phase
        || name.starts_with("profile_export_aiperf.csv")
            && path.with_file_name("profile_export_aiperf.json").exists()
}

/// Refuses a path that is not a regular file it can open: a FIFO, socket or device would
/// block or never end.
fn regular_file(path: &Path) -> Result<(), IngestError> {
    let meta = std::fs::metadata(path).map_err(|source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.is_file() {
        let ft = meta.file_type();
        use std::os::unix::fs::FileTypeExt;
        let kind = if ft.is_fifo() {
            "a FIFO"
        } else if ft.is_socket() {
            "a socket"
        } else if ft.is_block_device() || ft.is_char_device() {
            "a device"
        } else {
            "not a regular file"
        };
        return Err(IngestError::NotAFile {
            path: path.to_path_buf(),
            kind,
        });
    }
    File::open(path).map_err(|source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(())
}

/// Opens an input file for reading, decompressing gzip (recognised by its magic bytes) so
/// archived tool outputs (`profile_export.jsonl.gz`) ingest as they are.
pub fn open_input(path: &Path) -> Result<Box<dyn BufRead>, IngestError> {
    let io_err = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = BufReader::with_capacity(1 << 20, File::open(path).map_err(io_err)?);
    let gz = file.fill_buf().map_err(io_err)?.starts_with(&[0x1f, 0x8b]);
    Ok(if gz {
        Box::new(BufReader::with_capacity(
            1 << 20,
            flate2::bufread::MultiGzDecoder::new(file),
        ))
    } else {
        Box::new(file)
    })
}

/// Resolves `auto` for one file by its name, else its content.
pub fn detect(path: &Path) -> Result<Format, IngestError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A name that says what the file is wins (its content is then held to that format);
    // then each adapter looks at the content, in registry order.
    if let Some(a) = ADAPTERS.iter().find(|a| a.claims_name(path, &name)) {
        return Ok(Format::of(*a));
    }
    // Fail on an unreadable file here, naming it, rather than as "unrecognised".
    open_input(path)?;
    let sniff = adapter::Sniff::new(path);
    if let Some(a) = ADAPTERS.iter().find(|a| a.sniff(&sniff)) {
        return Ok(Format::of(*a));
    }
    let saw = ADAPTERS
        .iter()
        .find_map(|a| a.near(&sniff))
        .unwrap_or_else(|| sniff.seen());
    Err(IngestError::Unknown {
        path: path.to_path_buf(),
        known: known(),
        saw,
    })
}

/// One trial as a file describes it; keys the file does not give come from the path and the
/// command line.
#[derive(Debug, Default)]
pub struct ParsedTrial {
    pub arm: Option<String>,
    pub params: Params,
    pub repeat: Option<i32>,
    pub requests: Vec<Request>,
    /// `trial_id` is assigned when the run is assembled.
    pub metrics: Vec<Metric>,
    /// `trial_id` and `target` are assigned when the run is assembled.
    pub stacks: Vec<Stack>,
    pub exit_code: Option<i32>,
    pub failed: bool,
    /// Requests handed to a sink instead of kept in `requests`: their count and the earliest
    /// start / latest end (ns), which order and time the trial.
    pub streamed: Option<aiperf::StreamSummary>,
}

/// The commit a tool says its results belong to (pytest-benchmark's `commit_info`).
#[derive(Debug, Clone, PartialEq)]
pub struct CommitInfo {
    pub id: String,
    pub branch: Option<String>,
    pub dirty: Option<bool>,
}

/// One parsed input file: one trial (an aiperf JSONL) or several (a hyperfine export).
#[derive(Debug)]
pub struct ParsedFile {
    pub path: PathBuf,
    pub format: Format,
    pub trials: Vec<ParsedTrial>,
    pub warnings: Vec<String>,
    /// Files of the same artifact directory whose figures joined this file's trial
    /// (see [`artifact_groups`]).
    pub joined: Vec<PathBuf>,
    pub commit: Option<CommitInfo>,
}

impl ParsedFile {
    /// perfhouse's one policy for values that are not finite (`inf`, `nan`, `1e400` read as
    /// `inf`, a scale that overflows): they are not measurements, so they are not stored. Each
    /// is left out with a warning naming the file, trial and metric; the rest of the file
    /// lands. The warehouse refuses any that reach it ([`crate::warehouse::Warehouse::append_runs`]).
    pub fn drop_non_finite(&mut self) {
        for (i, t) in self.trials.iter_mut().enumerate() {
            let path = &self.path;
            let warnings = &mut self.warnings;
            t.metrics.retain(|m| {
                let keep = m.value.is_finite();
                if !keep {
                    warnings.push(format!(
                        "{}: trial {i}: metric `{}` is {} (not a finite number); left out",
                        path.display(),
                        m.name,
                        m.value
                    ));
                }
                keep
            });
            let before = t.stacks.len();
            t.stacks.retain(|s| s.weight.is_finite() && s.weight >= 0.0);
            if t.stacks.len() < before {
                warnings.push(format!(
                    "{}: trial {i}: {} stacks with a weight that is not a finite, non-negative number; left out",
                    path.display(),
                    before - t.stacks.len()
                ));
            }
        }
    }

    /// Adds an aiperf summary's metrics to this file's (one) trial.
    pub fn join(&mut self, other: ParsedFile) {
        if let Some(t) = self.trials.first_mut() {
            t.metrics
                .extend(other.trials.into_iter().flat_map(|t| t.metrics));
        }
        self.warnings.extend(other.warnings);
        self.joined.push(other.path);
    }
}

/// Requests in bounded chunks, for inputs too large to hold in memory.
pub type RequestSink<'a> = &'a mut dyn FnMut(Vec<Request>) -> Result<(), IngestError>;

/// Rows per chunk handed to a [`RequestSink`] (one Parquet row group each).
pub const CHUNK: usize = 65_536;

pub fn parse_file(path: &Path, format: Format) -> Result<ParsedFile, IngestError> {
    parse_file_with(path, format, None)
}

/// Parses one file; aiperf requests go to `sink` in chunks of [`CHUNK`] where one is given.
pub fn parse_file_with(
    path: &Path,
    format: Format,
    sink: Option<RequestSink>,
) -> Result<ParsedFile, IngestError> {
    let mut parsed = parse_any(path, format, sink)?;
    parsed.drop_non_finite();
    Ok(parsed)
}

fn parse_any(
    path: &Path,
    format: Format,
    sink: Option<RequestSink>,
) -> Result<ParsedFile, IngestError> {
    let format = if format == Format::AUTO {
        detect(path)?
    } else {
        format
    };
    let adapter = format.adapter().ok_or_else(|| IngestError::Unknown {
        path: path.to_path_buf(),
        known: known(),
        saw: "no format was detected".to_string(),
    })?;
    let parsed = adapter.parse(path, open_input(path)?, sink)?;
    Ok(ParsedFile {
        path: path.to_path_buf(),
        format,
        trials: parsed.trials,
        warnings: parsed.warnings,
        joined: Vec::new(),
        commit: parsed.commit,
    })
}

/// An input file and the ids of the trials it became.
pub type FileTrials = (PathBuf, Vec<i32>);

/// Options that apply to every trial of an ingest batch.
#[derive(Debug, Clone, Default)]
pub struct TrialDefaults {
    pub arm: Option<String>,
    pub params: Params,
    /// Mark the first repeat of every arm × params as a discarded cold start.
    pub discard_first: bool,
    /// Profiled target of folded stacks (default `default`).
    pub target: Option<String>,
    /// Overrides the detected stack kind (`oncpu`/`offcpu`).
    pub stack_kind: Option<crate::model::StackKind>,
}

/// Arm, repeat and params of one file, from its path's `key=value` segments over the defaults.
pub fn trial_keys(
    path: &Path,
    defaults: &TrialDefaults,
) -> Result<(String, Option<i32>, Params), IngestError> {
    let mut arm = defaults.arm.clone();
    let mut repeat = None;
    let mut params = defaults.params.clone();
    // aiperf's multi-run layout (`--num-profile-runs`, list-valued `--concurrency`):
    // `profile_runs/trial_0001/concurrency_16/…` is repeat 0 at concurrency 16.
    let mut in_profile_runs = false;
    for comp in path.parent().into_iter().flat_map(|p| p.components()) {
        let seg = comp.as_os_str().to_string_lossy();
        if seg == "profile_runs" {
            in_profile_runs = true;
            continue;
        }
        if in_profile_runs {
            if let Some(n) = seg
                .strip_prefix("trial_")
                .and_then(|n| n.parse::<i32>().ok())
            {
                repeat = Some(n - 1);
                continue;
            }
            if let Some((k, v)) = seg.rsplit_once('_')
                && !k.is_empty()
                && v.parse::<f64>().is_ok()
            {
                params.insert(k.to_string(), v.to_string());
                continue;
            }
        }
        let Some((k, v)) = seg.split_once('=') else {
            continue;
        };
        if k.is_empty() {
            continue;
        }
        let bad = |expected: String| IngestError::PathKey {
            path: path.to_path_buf(),
            segment: crate::model::names::short(&seg),
            expected,
        };
        // A key=value segment says what the trial is: an empty, `..`, over-long or
        // multi-line key or value would land a wrong name silently.
        if let Some(p) = crate::model::names::name_problem(k) {
            return Err(bad(format!("the key {p}")));
        }
        if let Some(p) = crate::model::names::name_problem(v) {
            return Err(bad(format!("the value {p} (expected {k}=<value>)")));
        }
        match k {
            "arm" => arm = Some(v.to_string()),
            "repeat" => {
                repeat = Some(
                    v.parse::<i32>()
                        .ok()
                        .filter(|r| *r >= 0)
                        .ok_or_else(|| bad("repeat=<integer ≥ 0>".to_string()))?,
                )
            }
            _ => {
                params.insert(k.to_string(), v.to_string());
            }
        }
    }
    Ok((arm.unwrap_or_else(|| "default".to_string()), repeat, params))
}

/// Turns parsed files into the trials and rows of one run. A trial's keys come from the file's
/// content over its path's `key=value` segments over the command line. Trials are numbered
/// (`trial_id`) in file order, so rows streamed while parsing carry their final id; `seq` is
/// the execution order (by the first request's start where known, else file order), and
/// repeats not given are numbered in that order within each arm × params.
///
/// Returns the run's rows and, per input file, its path and the ids of its trials.
pub fn assemble(
    files: Vec<ParsedFile>,
    defaults: &TrialDefaults,
) -> Result<(RunData, Vec<FileTrials>), IngestError> {
    let mut sources = Vec::new();
    let mut joined = Vec::new();
    let mut pending = Vec::new();
    for (file_index, file) in files.into_iter().enumerate() {
        pending.extend(keyed(
            file_index,
            file.path.clone(),
            file.trials,
            defaults,
            pending.len(),
        )?);
        sources.push((file.path, Vec::new()));
        joined.push(file.joined);
    }
    // Stable: trials without timestamps keep their file and in-file order.
    pending.sort_by(|a, b| {
        a.first_ns
            .cmp(&b.first_ns)
            .then_with(|| a.file_index.cmp(&b.file_index))
    });
    let mut next_repeat: BTreeMap<(String, Params), i32> = BTreeMap::new();
    let mut data = RunData::default();
    for (seq, p) in pending.into_iter().enumerate() {
        sources[p.file_index].1.push(p.trial_id);
        let counter = next_repeat
            .entry((p.arm.clone(), p.params.clone()))
            .or_insert(0);
        let repeat = p.repeat.unwrap_or(*counter);
        *counter = (*counter).max(repeat + 1);
        land(&mut data, p, seq as i32, repeat, defaults);
    }
    if defaults.discard_first {
        mark_cold_starts(&mut data.trials);
    }
    data.trials.sort_by_key(|t| t.trial_id);
    let extra: Vec<FileTrials> = sources
        .iter()
        .zip(joined)
        .flat_map(|((_, ids), j)| j.into_iter().map(move |p| (p, ids.clone())))
        .collect();
    sources.extend(extra);
    Ok((data, sources))
}

/// A trial with its keys settled, waiting for its place in the run's order.
struct Pending {
    trial_id: i32,
    file_index: usize,
    trial: ParsedTrial,
    arm: String,
    repeat: Option<i32>,
    params: Params,
    /// Its first request's start (`i64::MAX` when unknown): the execution order.
    first_ns: i64,
}

/// The trials of file `file_index` with their keys: the content's over the path's
/// `key=value` segments over the command line; numbered from `first_id`.
fn keyed(
    file_index: usize,
    path: PathBuf,
    trials: Vec<ParsedTrial>,
    defaults: &TrialDefaults,
    first_id: usize,
) -> Result<Vec<Pending>, IngestError> {
    let (arm, repeat, params) = trial_keys(&path, defaults)?;
    if let Some(what) = names_problem(&trials) {
        return Err(IngestError::Name { path, what });
    }
    let mut out = Vec::new();
    for trial in trials {
        let first_ns = match &trial.streamed {
            Some(s) => s.first_start_ns,
            None => trial.requests.iter().map(|r| r.start_ns).min(),
        }
        .unwrap_or(i64::MAX);
        let mut p = params.clone();
        p.extend(trial.params.clone());
        out.push(Pending {
            trial_id: (first_id + out.len()) as i32,
            file_index,
            arm: trial.arm.clone().unwrap_or_else(|| arm.clone()),
            repeat: trial.repeat.or(repeat),
            params: p,
            first_ns,
            trial,
        });
    }
    Ok(out)
}

/// Lands one trial, `seq`-th in execution order, as repeat `repeat`: its trial row and its
/// requests, metrics and stacks under its id.
fn land(data: &mut RunData, p: Pending, seq: i32, repeat: i32, defaults: &TrialDefaults) {
    let trial_id = p.trial_id;
    let (start, end) = match &p.trial.streamed {
        Some(s) => (s.first_start_ns, s.last_end_ns),
        None => (
            p.trial.requests.iter().map(|r| r.start_ns).min(),
            p.trial.requests.iter().filter_map(|r| r.end_ns).max(),
        ),
    };
    let concurrency = crate::model::concurrency_param(&p.params);
    data.trials.push(Trial {
        concurrency,
        exit_code: p.trial.exit_code,
        status: if p.trial.failed {
            crate::model::TrialStatus::Failed
        } else {
            crate::model::TrialStatus::Ok
        },
        started_at_us: start.map(|s| s / 1000),
        finished_at_us: end.map(|e| e / 1000),
        wall_ns: start.zip(end).map(|(s, e)| e - s),
        seq,
        ..Trial::measured(trial_id, &p.arm, p.params, repeat)
    });
    data.requests
        .extend(p.trial.requests.into_iter().map(|mut r| {
            r.trial_id = trial_id;
            r
        }));
    data.metrics
        .extend(p.trial.metrics.into_iter().map(|mut m| {
            m.trial_id = trial_id;
            m
        }));
    let target = defaults
        .target
        .clone()
        .unwrap_or_else(|| "default".to_string());
    data.stacks.extend(p.trial.stacks.into_iter().map(|mut s| {
        s.trial_id = trial_id;
        s.target = target.clone();
        if let Some(k) = defaults.stack_kind {
            s.kind = k;
        }
        s
    }));
}

/// The first arm, parameter or metric name (or value) of `trials` past its bound.
fn names_problem(trials: &[ParsedTrial]) -> Option<String> {
    use crate::model::names::{name_problem, short, value_problem};
    trials.iter().find_map(|t| {
        t.arm
            .as_deref()
            .and_then(|a| name_problem(a).map(|p| format!("an arm name {p}")))
            .or_else(|| {
                t.params.iter().find_map(|(k, v)| {
                    name_problem(k)
                        .map(|p| format!("a parameter name {p}"))
                        .or_else(|| {
                            value_problem(v).map(|p| format!("parameter `{}` {p}", short(k)))
                        })
                })
            })
            .or_else(|| {
                t.metrics
                    .iter()
                    .find_map(|m| name_problem(&m.name).map(|p| format!("a metric name {p}")))
            })
    })
}

/// Marks the lowest repeat of each arm × params as a discarded cold start.
pub fn mark_cold_starts(trials: &mut [Trial]) {
    let mut first: BTreeMap<(String, Params), (i32, usize)> = BTreeMap::new();
    for (i, t) in trials.iter().enumerate() {
        let e = first
            .entry((t.arm.clone(), t.params.clone()))
            .or_insert((t.repeat, i));
        if t.repeat < e.0 {
            *e = (t.repeat, i);
        }
    }
    for (_, (_, i)) in first {
        trials[i].discarded = true;
        trials[i].discard_reason = Some("cold start".to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Text that is often almost JSON: the shapes parsers meet when a writer is killed.
    fn jsonish() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                Just("{".to_string()),
                Just("}".to_string()),
                Just("[".to_string()),
                Just("]".to_string()),
                Just(",".to_string()),
                Just(":".to_string()),
                Just("\"metadata\"".to_string()),
                Just("\"metrics\"".to_string()),
                Just("\"results\"".to_string()),
                Just("\"benchmarks\"".to_string()),
                Just("\"times\"".to_string()),
                Just("\"value\"".to_string()),
                Just("NaN".to_string()),
                Just("\n".to_string()),
                "-?[0-9]{1,20}(\\.[0-9]{1,5})?".prop_map(|s| s),
                "\"[a-z_]{0,8}\"".prop_map(|s| s),
            ],
            0..60,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn no_input_makes_a_parser_panic(text in prop_oneof![jsonish(), ".{0,300}"]) {
            let p = Path::new("fuzz");
            let _ = aiperf::parse_jsonl(p, text.as_bytes());
            let _ = hyperfine::parse(p, &text);
            let _ = metrics_json::parse(p, &text);
            let _ = gbench::parse(p, &text);
            let _ = pytest_benchmark::parse(p, &text);
            let _ = criterion::parse(Path::new("fuzz/new/estimates.json"), &text);
            let _ = folded::parse(p, text.as_bytes());
            let _ = perf_script::parse(p, text.as_bytes());
            let _ = aiperf_summary::parse(p, &text);
            let _ = lmcache::parse(p, &text);
            let _ = catch2_xml::parse(p, &text);
        }
    }
}
