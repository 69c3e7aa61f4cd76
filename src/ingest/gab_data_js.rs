//! github-action-benchmark's history: the `dev/bench/data.js` it keeps on a `gh-pages` branch
//! (`window.BENCHMARK_DATA = {"lastUpdate", "repoUrl", "entries": {GROUP: [ENTRY, …]}}`), or
//! the same object as plain JSON. Upstream definition: benchmark-action/github-action-benchmark
//! `src/write.ts` (`DataJson`, `Benchmark`, `BenchmarkResult`).
//!
//! Each ENTRY (`{"commit": {id, message, timestamp, url, …}, "date", "tool", "benches":
//! [{name, value, unit, range?, extra?}]}`) is one run of suite `<--suite>.<GROUP>`, at
//! `date` (when the action measured it), with commit `commit.id` and label `commit_message`
//! (the message's first line, at most 200 characters). Each bench is a metric of the run's one
//! trial (arm `default`), named and united as stored, its direction the one the action
//! alerts by (`biggerIsBetter(tool)`: `benchmarkjs`, `pytest` and `customBiggerIsBetter`
//! bigger, every other tool smaller; a tool it does not know, by its unit). `range` (a
//! spread as text, `± 3.44`) and `extra` (iterations, procs) are not kept: their text differs
//! per tool. The commit URL prefix is `<repoUrl>/commit/`. A run's digest covers its own entry,
//! so importing the same history later, grown, adds only the new entries.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::adapter::{History, HistoryRun, Sniff};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

const PREFIX: &str = "window.BENCHMARK_DATA";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DataJson {
    repo_url: Option<String>,
    entries: BTreeMap<String, Vec<serde_json::Value>>,
}

#[derive(Deserialize)]
struct Entry {
    commit: Commit,
    date: i64,
    tool: String,
    benches: Vec<Bench>,
}

#[derive(Deserialize)]
struct Commit {
    id: String,
    #[serde(default)]
    message: String,
}

#[derive(Deserialize)]
struct Bench {
    name: String,
    value: f64,
    unit: String,
}

/// The direction github-action-benchmark judges `tool`'s values by (`biggerIsBetter`).
fn better(tool: &str, unit: &str) -> Better {
    match tool {
        "benchmarkjs" | "pytest" | "customBiggerIsBetter" => Better::Higher,
        "cargo" | "go" | "benchmarkluau" | "googlecpp" | "catch2" | "julia" | "jmh"
        | "benchmarkdotnet" | "customSmallerIsBetter" => Better::Lower,
        _ if unit.contains("/s") || unit.ends_with("/sec") || unit.contains("per sec") => {
            Better::Higher
        }
        _ => Better::Lower,
    }
}

/// The file a directory holds the history in (`data.js`, as under `dev/bench/`).
fn find_data_js(root: &Path) -> Option<PathBuf> {
    if root.is_file() {
        return Some(root.to_path_buf());
    }
    walkdir::WalkDir::new(root)
        .max_depth(3)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .map(walkdir::DirEntry::into_path)
        .find(|p| p.file_name().is_some_and(|n| n == "data.js") && starts_as_data_js(p))
}

fn starts_as_data_js(path: &Path) -> bool {
    Sniff::new(path).first_line().trim_start().starts_with(PREFIX)
}

/// Whether `dir` holds a github-action-benchmark history (`data.js` within three levels).
pub fn is_history_dir(dir: &Path) -> bool {
    dir.is_dir() && find_data_js(dir).is_some()
}

fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// Reads the history at `root` (the file, or a directory holding `data.js`).
pub fn parse(root: &Path) -> Result<History, IngestError> {
    let path = find_data_js(root).ok_or_else(|| IngestError::NothingFound {
        path: root.to_path_buf(),
        looked_for: "a github-action-benchmark data.js (window.BENCHMARK_DATA = …)".to_string(),
    })?;
    let text = std::fs::read_to_string(&path).map_err(|source| IngestError::Io {
        path: path.clone(),
        source,
    })?;
    // `window.BENCHMARK_DATA = {…}` (line 1 holds the prefix, so JSON line numbers stand).
    let json = match text.trim_start().strip_prefix(PREFIX) {
        Some(rest) => rest
            .trim_start()
            .strip_prefix('=')
            .ok_or_else(|| IngestError::Parse {
                path: path.clone(),
                line: 1,
                message: format!("expected `{PREFIX} = {{…}}`"),
            })?
            .trim_end()
            .trim_end_matches(';'),
        None => text.as_str(),
    };
    let parse_err = |e: serde_json::Error| IngestError::Parse {
        path: path.clone(),
        line: e.line(),
        message: format!("{e} (expected github-action-benchmark's data.js object)"),
    };
    let doc: DataJson = serde_json::from_str(json).map_err(parse_err)?;
    let mut runs = Vec::new();
    for (group, entries) in doc.entries {
        for (i, value) in entries.into_iter().enumerate() {
            let entry: Entry = serde_json::from_value(value.clone()).map_err(|e| {
                IngestError::Field {
                    path: path.clone(),
                    line: 0,
                    field: format!("entries.{group}[{i}]"),
                    expected: format!("{{commit: {{id, message}}, date, tool, benches: [{{name, value, unit}}]}} ({e})"),
                }
            })?;
            let metrics: Vec<Metric> = entry
                .benches
                .iter()
                .map(|b| Metric {
                    trial_id: 0,
                    name: b.name.clone(),
                    value: b.value,
                    unit: b.unit.clone(),
                    better: better(&entry.tool, &b.unit),
                    origin: "github-action-benchmark".to_string(),
                    version: None,
                })
                .collect();
            let mut labels = BTreeMap::new();
            let message = first_line(&entry.commit.message);
            if !message.is_empty() {
                labels.insert("commit_message".to_string(), message);
            }
            labels.insert("gab_tool".to_string(), entry.tool.clone());
            runs.push(HistoryRun {
                path: path.clone(),
                group: Some(group.clone()),
                commit: entry.commit.id.clone(),
                date_ms: Some(entry.date),
                env: "{}".to_string(),
                labels,
                trials: vec![ParsedTrial {
                    metrics,
                    ..Default::default()
                }],
                identity: Some(serde_json::json!({"group": group, "entry": value})),
                ..Default::default()
            });
        }
    }
    Ok(History {
        runs,
        commit_url: doc
            .repo_url
            .filter(|u| !u.is_empty())
            .map(|u| format!("{}/commit/", u.trim_end_matches('/'))),
        warnings: Vec::new(),
    })
}

/// github-action-benchmark's `data.js` as an [`super::adapter::Adapter`].
pub struct Adapter;

/// The registered adapter (`super::registry!`).
pub static ADAPTER: Adapter = Adapter;

impl super::adapter::Adapter for Adapter {
    fn name(&self) -> &'static str {
        "gab-data-js"
    }

    fn description(&self) -> &'static str {
        "github-action-benchmark's history (gh-pages dev/bench/data.js, or a directory holding it): one run per commit entry, a suite per benchmark group"
    }

    fn hint(&self) -> &'static str {
        "dev/bench/data.js"
    }

    fn many_runs(&self) -> bool {
        true
    }

    fn history(&self, root: &Path) -> Result<History, IngestError> {
        parse(root)
    }

    fn claims_name(&self, path: &Path, name: &str) -> bool {
        name == "data.js" && starts_as_data_js(path)
    }

    fn walk_auto(&self, _path: &Path, _name: &str) -> bool {
        false // the whole history is one ingest; see `commands::ingest`
    }

    fn walks(&self, _path: &Path, name: &str) -> bool {
        name == "data.js"
    }

    fn sniff(&self, input: &Sniff) -> bool {
        input.first_line().trim_start().starts_with(PREFIX)
            || input.doc().is_some_and(|d| {
                d.get("entries").is_some_and(|e| e.is_object()) && d.get("lastUpdate").is_some()
            })
    }

    fn parse(
        &self,
        path: &Path,
        _input: Box<dyn std::io::BufRead>,
        _sink: Option<super::RequestSink>,
    ) -> Result<super::adapter::Parsed, IngestError> {
        Err(IngestError::Parse {
            path: path.to_path_buf(),
            line: 1,
            message: "a data.js holds many runs: ingest it alone (`perfhouse ingest --suite S data.js`)".to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn direction_is_the_actions_own() {
        assert_eq!(better("cargo", "ns/iter"), Better::Lower);
        assert_eq!(better("benchmarkjs", "ops/sec"), Better::Higher);
        assert_eq!(better("pytest", "iter/sec"), Better::Higher);
        // The action judges JMH's ops/s as smaller-is-better; kept as it alerts.
        assert_eq!(better("jmh", "ops/s"), Better::Lower);
        assert_eq!(better("somethingNew", "req/s"), Better::Higher);
        assert_eq!(better("somethingNew", "ms"), Better::Lower);
    }

    #[test]
    fn a_commit_message_keeps_its_first_line_bounded() {
        assert_eq!(first_line("Fix it\n\nlong body"), "Fix it");
        let long = "é".repeat(300);
        assert_eq!(first_line(&long).chars().count(), 201);
    }
}
