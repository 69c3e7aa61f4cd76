//! Ingest: external tool outputs → model values. One file per format; this module holds what
//! they share: errors, format detection, directory walking, and turning parsed files into the
//! trials of one run.
//!
//! Each input file is one trial. `key=value` segments of its path (Hive style, as in
//! `arm=fastokens/concurrency=8/repeat=1/profile_export.jsonl`) set the trial's arm (`arm=`),
//! repeat (`repeat=`) and parameters (any other key); `--arm` and `--param` give defaults for
//! what the path does not say.

pub mod aiperf;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::model::{Params, Phase, Request, RunData, Trial};

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
    #[error("{path}: unrecognised input; known formats: {known}. Give --format explicitly")]
    Unknown { path: PathBuf, known: String },
    #[error("{path}: no input files found here (looked for {looked_for})")]
    NothingFound { path: PathBuf, looked_for: String },
    #[error("{path}: path segment `{segment}`: {expected}")]
    PathKey {
        path: PathBuf,
        segment: String,
        expected: String,
    },
}

/// Input formats this build ingests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Detect from the file name and content.
    Auto,
    /// aiperf `profile_export.jsonl` (per-request records, both schema generations).
    Aiperf,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Aiperf => "aiperf",
        }
    }
}

/// Concrete formats (not `auto`), for messages.
const KNOWN: &str = "aiperf (profile_export.jsonl)";

/// Expands directories into the input files they hold (sorted, so ingest order is stable).
pub fn discover(paths: &[PathBuf], format: Format) -> Result<Vec<PathBuf>, IngestError> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let before = out.len();
            for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
                let entry = entry.map_err(|e| IngestError::Io {
                    path: e.path().unwrap_or(path).to_path_buf(),
                    source: e
                        .into_io_error()
                        .unwrap_or_else(|| io::Error::other("walk failed")),
                })?;
                let name = entry.file_name().to_string_lossy();
                if entry.file_type().is_file()
                    && (name == "profile_export.jsonl" || name == "profile_export.jsonl.gz")
                {
                    out.push(entry.into_path());
                }
            }
            if out.len() == before {
                return Err(IngestError::NothingFound {
                    path: path.clone(),
                    looked_for: format!(
                        "{} files",
                        if format == Format::Auto {
                            KNOWN
                        } else {
                            "profile_export.jsonl"
                        }
                    ),
                });
            }
        } else {
            File::open(path).map_err(|source| IngestError::Io {
                path: path.clone(),
                source,
            })?;
            out.push(path.clone());
        }
    }
    Ok(out)
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

/// Resolves `auto` for one file by its first line.
pub fn detect(path: &Path) -> Result<Format, IngestError> {
    let reader = open_input(path)?;
    let mut first = String::new();
    // Bounded: a binary file without newlines must not be read whole.
    reader
        .take(1 << 20)
        .read_line(&mut first)
        .map_err(|source| IngestError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if aiperf::sniff(&first) {
        return Ok(Format::Aiperf);
    }
    Err(IngestError::Unknown {
        path: path.to_path_buf(),
        known: KNOWN.to_string(),
    })
}

/// One parsed input file, before it becomes a trial.
#[derive(Debug)]
pub struct ParsedFile {
    pub path: PathBuf,
    pub format: Format,
    pub requests: Vec<Request>,
    pub warnings: Vec<String>,
}

pub fn parse_file(path: &Path, format: Format) -> Result<ParsedFile, IngestError> {
    let format = if format == Format::Auto {
        detect(path)?
    } else {
        format
    };
    let reader = open_input(path)?;
    match format {
        Format::Aiperf => {
            let recs = aiperf::parse_jsonl(path, reader)?;
            Ok(ParsedFile {
                path: path.to_path_buf(),
                format,
                requests: recs.requests,
                warnings: recs.warnings,
            })
        }
        Format::Auto => unreachable!("resolved above"),
    }
}

/// Options that apply to every trial of an ingest batch.
#[derive(Debug, Clone, Default)]
pub struct TrialDefaults {
    pub arm: Option<String>,
    pub params: Params,
    /// Mark the first repeat of every arm × params as a discarded cold start.
    pub discard_first: bool,
}

/// Arm, repeat and params of one file, from its path's `key=value` segments over the defaults.
pub fn trial_keys(
    path: &Path,
    defaults: &TrialDefaults,
) -> Result<(String, Option<i32>, Params), IngestError> {
    let mut arm = defaults.arm.clone();
    let mut repeat = None;
    let mut params = defaults.params.clone();
    for comp in path.parent().into_iter().flat_map(|p| p.components()) {
        let seg = comp.as_os_str().to_string_lossy();
        let Some((k, v)) = seg.split_once('=') else {
            continue;
        };
        if k.is_empty() {
            continue;
        }
        match k {
            "arm" => arm = Some(v.to_string()),
            "repeat" => {
                repeat = Some(v.parse::<i32>().map_err(|_| IngestError::PathKey {
                    path: path.to_path_buf(),
                    segment: seg.to_string(),
                    expected: "repeat=<integer>".to_string(),
                })?)
            }
            _ => {
                params.insert(k.to_string(), v.to_string());
            }
        }
    }
    Ok((arm.unwrap_or_else(|| "default".to_string()), repeat, params))
}

/// Turns parsed files into the trials and rows of one run. Trials are numbered in execution
/// order (by their first request's start); repeats not given by the path are numbered in that
/// order within each arm × params.
///
/// Returns the run's rows and, indexed by trial id, the file each trial came from.
pub fn assemble(
    files: Vec<ParsedFile>,
    defaults: &TrialDefaults,
) -> Result<(RunData, Vec<PathBuf>), IngestError> {
    struct Pending {
        file: ParsedFile,
        arm: String,
        repeat: Option<i32>,
        params: Params,
        first_ns: i64,
    }
    let mut pending = Vec::new();
    for file in files {
        let (arm, repeat, params) = trial_keys(&file.path, defaults)?;
        let first_ns = file
            .requests
            .iter()
            .map(|r| r.start_ns)
            .min()
            .unwrap_or(i64::MAX);
        pending.push(Pending {
            file,
            arm,
            repeat,
            params,
            first_ns,
        });
    }
    pending.sort_by(|a, b| {
        a.first_ns
            .cmp(&b.first_ns)
            .then_with(|| a.file.path.cmp(&b.file.path))
    });
    let mut next_repeat: BTreeMap<(String, Params), i32> = BTreeMap::new();
    let mut data = RunData::default();
    let mut sources = Vec::new();
    for (seq, p) in pending.into_iter().enumerate() {
        sources.push(p.file.path.clone());
        let trial_id = seq as i32;
        let counter = next_repeat
            .entry((p.arm.clone(), p.params.clone()))
            .or_insert(0);
        let repeat = p.repeat.unwrap_or(*counter);
        *counter = (*counter).max(repeat + 1);
        let starts = p.file.requests.iter().map(|r| r.start_ns);
        let ends = p.file.requests.iter().filter_map(|r| r.end_ns);
        let (start, end) = (starts.min(), ends.max());
        let concurrency = p
            .params
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("concurrency"))
            .and_then(|(_, v)| v.parse::<i64>().ok());
        data.trials.push(Trial {
            trial_id,
            arm: p.arm,
            params: p.params,
            repeat,
            seq: seq as i32,
            phase: Phase::Measured,
            discarded: false,
            discard_reason: None,
            concurrency,
            exit_code: None,
            status: "ok".to_string(),
            stderr_tail: None,
            started_at_us: start.map(|s| s / 1000),
            finished_at_us: end.map(|e| e / 1000),
            wall_ns: start.zip(end).map(|(s, e)| e - s),
        });
        data.requests
            .extend(p.file.requests.into_iter().map(|mut r| {
                r.trial_id = trial_id;
                r
            }));
    }
    if defaults.discard_first {
        mark_cold_starts(&mut data.trials);
    }
    Ok((data, sources))
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
