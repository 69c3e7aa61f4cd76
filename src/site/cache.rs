//! The site's cache, in `<out>/.perfhouse-cache/` (never published: `publish` leaves it out): what a rebuild may reuse because the warehouse never changes it. A committed run is
//! immutable, so
//! - its **history rows** (one median per series) are read once and kept here
//!   (`points.jsonl`, one line per run, appended to), and a rebuild queries only the runs it
//!   has not seen;
//! - its **pages** (run page, A/B pages, flamegraphs, transfer charts) are rendered again only
//!   when a digest of their inputs changes: the run's row, its notes, the stylesheet, and for a
//!   run with two or more arms the noise model of its suite (A/B verdicts use it)
//!   (`pages.json`).
//!
//! Beside the cache, `files.txt` records every file the last build put, whatever perfhouse
//! build wrote it: the next build removes those it does not put again (`writer::prune`).
//!
//! Everything is keyed by the perfhouse build (`build.rs` hashes sources, templates and the
//! lock file), so another build never reuses a page. A missing, unreadable or foreign cache is
//! a full build; `perfhouse site --full` ignores it. The series pages, the index and the feed
//! are rendered on every build (every new run changes them); the cache only saves work and
//! never changes a byte of the output: a cached build equals a full one (tests/it/site.rs).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::query::history::RunMedian;
use crate::site::SiteError;
use crate::stats::verdict::Direction;

pub(crate) const DIR: &str = ".perfhouse-cache";
const PAGES: &str = "pages.json";
const POINTS: &str = "points.jsonl";
const FILES: &str = "files.txt";
/// The perfhouse build that wrote a cache (see `build.rs`).
const BUILD: &str = env!("PERFHOUSE_BUILD_HASH");

#[derive(Debug, Default)]
pub(crate) struct Cache {
    /// Per run: the digest of its pages' inputs and the files they are.
    pub(crate) pages: BTreeMap<String, RunPages>,
    /// Per run: its history rows (empty for a run with none, e.g. a calibration).
    pub(crate) points: BTreeMap<String, Vec<RunMedian>>,
    /// What was read: the pages file's bytes and the runs `points.jsonl` holds.
    loaded_pages: Option<Vec<u8>>,
    loaded_runs: Option<std::collections::BTreeSet<String>>,
    /// What [`Cache::save`] writes to `points.jsonl`, made by [`Cache::stage_points`].
    points_out: Option<PointsOut>,
}

#[derive(Debug)]
enum PointsOut {
    /// Lines of runs added since the load.
    Append(Vec<u8>),
    /// The whole file (a run went away, or there was no usable file).
    Replace(Vec<u8>),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RunPages {
    pub(crate) key: String,
    pub(crate) files: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct PagesFile {
    build: String,
    pages: BTreeMap<String, RunPages>,
}

/// One line of `points.jsonl` after the first (`{"build": …}`): a run and its rows, the run's
/// columns said once.
#[derive(Serialize, Deserialize)]
struct RunLine {
    run_id: String,
    run_no: u64,
    started_at: String,
    git_commit: Option<String>,
    env_fingerprint: Option<String>,
    /// (suite, metric, unit, better, arm, params as JSON, value, lo, hi, version).
    #[allow(clippy::type_complexity)]
    points: Vec<(
        String,
        String,
        String,
        Direction,
        String,
        String,
        Option<f64>,
        Option<f64>,
        Option<f64>,
        Option<String>,
    )>,
}

impl RunLine {
    fn new(run_id: &str, rows: &[RunMedian]) -> RunLine {
        let first = rows.first();
        RunLine {
            run_id: run_id.to_string(),
            run_no: first.map_or(0, |r| r.run_no),
            started_at: first.map(|r| r.started_at.clone()).unwrap_or_default(),
            git_commit: first.and_then(|r| r.git_commit.clone()),
            env_fingerprint: first.and_then(|r| r.env_fingerprint.clone()),
            points: rows
                .iter()
                .map(|r| {
                    (
                        r.suite.clone(),
                        r.metric.clone(),
                        r.unit.clone(),
                        r.better,
                        r.arm.clone(),
                        crate::model::params_json(&r.params),
                        r.value,
                        r.lo,
                        r.hi,
                        r.version.clone(),
                    )
                })
                .collect(),
        }
    }

    fn rows(self) -> Vec<RunMedian> {
        let run = (self.run_id, self.run_no, self.started_at, self.git_commit);
        self.points
            .into_iter()
            .map(
                |(suite, metric, unit, better, arm, params, value, lo, hi, version)| RunMedian {
                    suite,
                    metric,
                    unit,
                    better,
                    arm,
                    params: crate::model::parse_params(&params),
                    run_id: run.0.clone(),
                    run_no: run.1,
                    started_at: run.2.clone(),
                    git_commit: run.3.clone(),
                    env_fingerprint: self.env_fingerprint.clone(),
                    version,
                    value,
                    lo,
                    hi,
                },
            )
            .collect()
    }
}

#[derive(Serialize, Deserialize)]
struct Header {
    build: String,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SiteError + use<> {
    let path = path.to_path_buf();
    move |source| SiteError::Io { path, source }
}

/// Writes `bytes` to `path` through a temporary file renamed over it, so a build that dies
/// leaves the old file or the new one, never half of one.
fn replace(path: &Path, bytes: &[u8]) -> Result<(), SiteError> {
    let dir = path.parent().expect("cache file has a parent");
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let tmp = dir.join(format!(
        "{}.{}.tmp",
        path.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// The output's record of the files the last build put (`files.txt`, one relative path a
/// line): what the next build may remove ([`crate::site::writer::prune`]). Unlike the cache it
/// is not keyed by the perfhouse build: it says what is in the folder, whoever wrote it. None
/// (no record: a folder no build of this version wrote to) removes nothing.
pub(crate) fn put_files(out: &Path) -> Vec<String> {
    std::fs::read_to_string(Cache::dir(out).join(FILES))
        .map(|text| text.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Records `files` as what the output holds from its builds (through a renamed temporary file).
pub(crate) fn record_put_files<'a>(
    out: &Path,
    files: impl Iterator<Item = &'a str>,
) -> Result<(), SiteError> {
    let mut text = String::new();
    for f in files {
        text.push_str(f);
        text.push('\n');
    }
    replace(&Cache::dir(out).join(FILES), text.as_bytes())
}

impl Cache {
    fn dir(out: &Path) -> PathBuf {
        out.join(DIR)
    }

    /// The cache a previous build left in `out`: what of it this build of perfhouse wrote and
    /// can read. Anything else is ignored (and replaced on save).
    pub(crate) fn load(out: &Path) -> Cache {
        let mut cache = Cache::default();
        let dir = Self::dir(out);
        if let Ok(bytes) = std::fs::read(dir.join(PAGES))
            && let Ok(file) = serde_json::from_slice::<PagesFile>(&bytes)
            && file.build == BUILD
        {
            cache.pages = file.pages;
            cache.loaded_pages = Some(bytes);
        }
        let Ok(text) = std::fs::read_to_string(dir.join(POINTS)) else {
            return cache;
        };
        let mut lines = text.lines();
        let header = lines
            .next()
            .and_then(|l| serde_json::from_str::<Header>(l).ok());
        if header.is_none_or(|h| h.build != BUILD) {
            return cache;
        }
        let mut runs = std::collections::BTreeSet::new();
        for line in lines {
            // A line torn by a build that died, and whatever follows it, is not read (and the
            // file is written anew on save).
            let Ok(run) = serde_json::from_str::<RunLine>(line) else {
                cache.points.clear();
                return cache;
            };
            runs.insert(run.run_id.clone());
            cache.points.insert(run.run_id.clone(), run.rows());
        }
        cache.loaded_runs = Some(runs);
        cache
    }

    /// Makes what [`Cache::save`] writes to `points.jsonl` from the points now held: the lines
    /// of the runs added since the load when runs were only added, else the whole file. After
    /// it the points may be moved out (the site builds its series from them).
    pub(crate) fn stage_points(&mut self) {
        let line = |id: &str, rows: &[RunMedian]| {
            let mut l = serde_json::to_vec(&RunLine::new(id, rows)).expect("rows serialize");
            l.push(b'\n');
            l
        };
        self.points_out = Some(match &self.loaded_runs {
            Some(old) if old.iter().all(|id| self.points.contains_key(id)) => PointsOut::Append(
                self.points
                    .iter()
                    .filter(|(id, _)| !old.contains(*id))
                    .flat_map(|(id, rows)| line(id, rows))
                    .collect(),
            ),
            _ => {
                let mut bytes = serde_json::to_vec(&Header {
                    build: BUILD.to_string(),
                })
                .expect("header serializes");
                bytes.push(b'\n');
                for (id, rows) in &self.points {
                    bytes.extend(line(id, rows));
                }
                PointsOut::Replace(bytes)
            }
        });
    }

    /// Writes what changed: `pages.json` replaced when it differs, `points.jsonl` appended to
    /// when runs were only added, replaced when any went away (as staged by
    /// [`Cache::stage_points`], which this calls where the build did not).
    pub(crate) fn save(mut self, out: &Path) -> Result<(), SiteError> {
        let dir = Self::dir(out);
        if self.points_out.is_none() {
            self.stage_points();
        }
        let pages = serde_json::to_vec(&PagesFile {
            build: BUILD.to_string(),
            pages: self.pages,
        })
        .expect("pages serialize");
        if self.loaded_pages.as_ref() != Some(&pages) {
            replace(&dir.join(PAGES), &pages)?;
        }
        match self.points_out.expect("staged above") {
            PointsOut::Append(new) => {
                if !new.is_empty() {
                    let path = dir.join(POINTS);
                    let mut f = std::fs::OpenOptions::new()
                        .append(true)
                        .open(&path)
                        .map_err(io(&path))?;
                    f.write_all(&new).map_err(io(&path))?;
                }
                Ok(())
            }
            PointsOut::Replace(bytes) => replace(&dir.join(POINTS), &bytes),
        }
    }

    /// Whether the run's pages were rendered from the same inputs and are all still in `out`.
    pub(crate) fn fresh(&self, out: &Path, run_id: &str, key: &str) -> Option<&RunPages> {
        self.pages
            .get(run_id)
            .filter(|p| p.key == key && p.files.iter().all(|f| out.join(f).is_file()))
    }
}
