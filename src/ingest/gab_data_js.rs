//! github-action-benchmark's history: the `dev/bench/data.js` it keeps on a `gh-pages` branch
//! (`window.BENCHMARK_DATA = {"lastUpdate", "repoUrl", "entries": {GROUP: [ENTRY, …]}}`), or
//! the same object as plain JSON. Upstream definition: benchmark-action/github-action-benchmark
//! `src/write.ts` (`DataJson`, `Benchmark`, `BenchmarkResult`) and `src/extract.ts` (what each
//! tool's `benches` hold).
//!
//! Each ENTRY (`{"commit": {id, message, timestamp, url, …}, "date", "tool", "benches":
//! [{name, value, unit, range?, extra?}]}`) is one run of suite `<--suite>.<GROUP>`, at
//! `date` (when the action measured it), with commit `commit.id` and label `commit_message`
//! (the message's first line, at most 200 characters). Each bench is a metric, named and
//! united as stored, its direction the one the action alerts by (`biggerIsBetter(tool)`:
//! `benchmarkjs`, `pytest` and `customBiggerIsBetter` bigger, every other tool smaller; a tool
//! it does not know, by its unit). A name met again in one entry (`go test -count 5`) is a
//! further repeat: the k-th occurrence of every name is trial k. `range` (a spread as text,
//! `± 3.44`) and `extra` (iterations, procs) are not kept: their text differs per tool. The
//! commit URL prefix is `<repoUrl>/commit/`. A run's digest covers its own entry, so
//! importing the same history later, grown, adds only the new entries.
//!
//! Go (`tool: go`): one series per benchmark and measure, whichever version of the action
//! wrote the entry (see [`go_measures`]).
//!
//! The file is streamed: one entry is held at a time, never the file (`data.js` grows without
//! bound: paradedb's reached 1.8 GB).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::adapter::{History, HistoryItem, HistoryRun, Sniff};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

const PREFIX: &str = "window.BENCHMARK_DATA";

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

/// A Go result line's remainder glued into one unit (`ns/op\t 15343 B/op\t 221 allocs/op`):
/// the first unit, then each further (value, unit). `None` for a plain unit.
fn glued(unit: &str) -> Option<(&str, Vec<(f64, &str)>)> {
    let mut tokens = unit.split_whitespace();
    let first = tokens.next()?;
    let rest: Vec<&str> = tokens.collect();
    if rest.is_empty() || !rest.len().is_multiple_of(2) {
        return None;
    }
    let pairs = rest
        .chunks(2)
        .map(|p| Some((p[0].parse::<f64>().ok()?, p[1])))
        .collect::<Option<Vec<_>>>()?;
    Some((first, pairs))
}

/// The time per op, the one measure a Go line always has, keeps the benchmark's own name.
const GO_TIME: &str = "ns/op";

/// A Go entry's benches as one series per benchmark and measure: `(name, value, unit)`.
///
/// The action stored a `-benchmem` (or `b.ReportMetric`) line three ways over its versions:
/// before v1.18 as one bench whose unit is the line's remainder glued (`ns/op\t 15343
/// B/op\t 221 allocs/op`, so the unit changed with every run's figures); for a while as
/// split benches only (`X - ns/op`, `X - B/op`, `X - allocs/op`); since, as both, the glued
/// one first. Here each becomes `X` in ns/op (the name a line without extra measures has, so
/// adding `-benchmem` continues the series), `X - B/op`, `X - allocs/op` (any other measure
/// `X - <unit>`), once: the split benches that restate the glued one just before them are
/// dropped.
fn go_measures(benches: Vec<Bench>) -> Vec<(String, f64, String)> {
    let mut out = Vec::with_capacity(benches.len());
    // The split names the last glued bench already gave (its line's restatement follows it).
    let mut restated: Vec<String> = Vec::new();
    for b in benches {
        if let Some((first, pairs)) = glued(&b.unit) {
            restated.clear();
            restated.push(format!("{} - {first}", b.name));
            let time_name = if first == GO_TIME {
                b.name.clone()
            } else {
                format!("{} - {first}", b.name)
            };
            out.push((time_name, b.value, first.to_string()));
            for (value, unit) in pairs {
                let name = format!("{} - {unit}", b.name);
                restated.push(name.clone());
                out.push((name, value, unit.to_string()));
            }
            continue;
        }
        if let Some(i) = restated.iter().position(|n| *n == b.name) {
            restated.swap_remove(i);
            continue;
        }
        restated.clear();
        let name = match b.name.strip_suffix(" - ns/op") {
            Some(base) if b.unit == GO_TIME => base.to_string(),
            _ => b.name,
        };
        out.push((name, b.value, b.unit));
    }
    out
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

/// One entry as a run of suite `<--suite>.<group>`.
fn run_of(
    path: &Path,
    group: &str,
    index: usize,
    value: serde_json::Value,
) -> Result<HistoryRun, IngestError> {
    let entry = Entry::deserialize(&value).map_err(|e| IngestError::Field {
        path: path.to_path_buf(),
        line: 0,
        field: format!("entries.{group}[{index}]"),
        expected: format!(
            "{{commit: {{id, message}}, date, tool, benches: [{{name, value, unit}}]}} ({e})"
        ),
    })?;
    let measures = if entry.tool == "go" {
        go_measures(entry.benches)
    } else {
        entry
            .benches
            .into_iter()
            .map(|b| (b.name, b.value, b.unit))
            .collect()
    };
    // The k-th occurrence of a name is repeat k.
    let mut trials: Vec<ParsedTrial> = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    for (name, value, unit) in measures {
        let k = seen.entry(name.clone()).or_insert(0);
        if trials.len() == *k {
            trials.push(ParsedTrial {
                repeat: Some(*k as i32),
                ..Default::default()
            });
        }
        trials[*k].metrics.push(Metric {
            trial_id: 0,
            better: better(&entry.tool, &unit),
            name,
            value,
            unit,
            origin: "github-action-benchmark".to_string(),
            version: None,
        });
        *k += 1;
    }
    let mut labels = BTreeMap::new();
    let message = first_line(&entry.commit.message);
    if !message.is_empty() {
        labels.insert("commit_message".to_string(), message);
    }
    labels.insert("gab_tool".to_string(), entry.tool);
    Ok(HistoryRun {
        path: path.to_path_buf(),
        group: Some(group.to_string()),
        commit: entry.commit.id,
        date_ms: Some(entry.date),
        env: "{}".to_string(),
        labels,
        trials,
        identity: Some(serde_json::json!({"group": group, "entry": value})),
        ..Default::default()
    })
}

/// Reads the history at `root` (the file, or a directory holding `data.js`) whole.
pub fn parse(root: &Path) -> Result<History, IngestError> {
    let mut history = History::default();
    stream(root, &mut |item| {
        match item {
            HistoryItem::Head { commit_url } => history.commit_url = commit_url,
            HistoryItem::Run(run) => history.runs.push(*run),
            HistoryItem::Warning(w) => history.warnings.push(w),
        }
        Ok(())
    })?;
    Ok(history)
}

/// Streams the history at `root`: its head, then one run per entry, in the file's order,
/// holding one entry at a time. The commit URL (`repoUrl`) may come after `entries` (the
/// action's own history has it last): a first pass then reads past them for it.
pub fn stream(
    root: &Path,
    each: &mut dyn FnMut(HistoryItem) -> Result<(), IngestError>,
) -> Result<(), IngestError> {
    let path = find_data_js(root).ok_or_else(|| IngestError::NothingFound {
        path: root.to_path_buf(),
        looked_for: "a github-action-benchmark data.js (window.BENCHMARK_DATA = …)".to_string(),
    })?;
    let head = read(&path, None)?;
    if !head.entries {
        return Err(IngestError::Parse {
            path: path.clone(),
            line: 1,
            message: "missing field `entries` (expected github-action-benchmark's data.js object)"
                .to_string(),
        });
    }
    each(HistoryItem::Head {
        commit_url: head
            .repo_url
            .filter(|u| !u.is_empty())
            .map(|u| format!("{}/commit/", u.trim_end_matches('/'))),
    })?;
    let mut on_entry = |group: &str, index: usize, value: serde_json::Value| {
        each(HistoryItem::Run(Box::new(run_of(&path, group, index, value)?)))
    };
    read(&path, Some(&mut on_entry))?;
    Ok(())
}

/// The file's reader, past `window.BENCHMARK_DATA =` where it starts so (line 1 holds the
/// prefix, so the JSON's line numbers stand).
fn open_json(path: &Path) -> Result<BufReader<std::fs::File>, IngestError> {
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = BufReader::with_capacity(1 << 20, std::fs::File::open(path).map_err(io)?);
    let buf = reader.fill_buf().map_err(io)?;
    let blank = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
    if buf[blank..].starts_with(PREFIX.as_bytes()) {
        let after = blank + PREFIX.len();
        let eq = buf[after..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .map(|i| after + i)
            .filter(|&i| buf[i] == b'=')
            .ok_or_else(|| IngestError::Parse {
                path: path.to_path_buf(),
                line: 1,
                message: format!("expected `{PREFIX} = {{…}}`"),
            })?;
        reader.consume(eq + 1);
    }
    Ok(reader)
}

/// What one pass over the file saw of its top-level object.
#[derive(Default)]
struct Head {
    repo_url: Option<String>,
    entries: bool,
    last_update: bool,
}

/// Takes each entry: (group, index in the group, the entry).
type OnEntry<'a> = &'a mut dyn FnMut(&str, usize, serde_json::Value) -> Result<(), IngestError>;

/// One pass over the file. Without `on_entry`, the head only: `entries` are read past (no
/// value kept) and the pass ends at them when `repoUrl` came before.
fn read(path: &Path, on_entry: Option<OnEntry>) -> Result<Head, IngestError> {
    let mut pass = Pass {
        head: Head::default(),
        head_only: on_entry.is_none(),
        on_entry,
        failed: None,
        done: false,
    };
    let mut de = serde_json::Deserializer::from_reader(open_json(path)?);
    match (&mut pass).deserialize(&mut de) {
        Ok(()) => {}
        Err(_) if pass.done => {}
        Err(e) => {
            return Err(pass.failed.take().unwrap_or_else(|| IngestError::Parse {
                path: path.to_path_buf(),
                line: e.line(),
                message: format!("{e} (expected github-action-benchmark's data.js object)"),
            }));
        }
    }
    // What follows the object (`;`, blank lines) is not read: the action writes nothing else.
    Ok(pass.head)
}

/// The state of one [`read`]: serde's visitors below fill it.
struct Pass<'a> {
    head: Head,
    head_only: bool,
    on_entry: Option<OnEntry<'a>>,
    /// What `on_entry` failed with (serde carries only its own error type through).
    failed: Option<IngestError>,
    /// The head pass stopped early, having all it needs.
    done: bool,
}

impl<'de> DeserializeSeed<'de> for &mut Pass<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for &mut Pass<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("github-action-benchmark's data.js object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "repoUrl" => self.head.repo_url = map.next_value::<Option<String>>()?,
                "lastUpdate" => {
                    map.next_value::<IgnoredAny>()?;
                    self.head.last_update = true;
                }
                "entries" => {
                    self.head.entries = true;
                    if self.head_only && self.head.repo_url.is_some() {
                        self.done = true;
                        return Err(de::Error::custom("the head is read"));
                    }
                    if self.head_only {
                        map.next_value::<IgnoredAny>()?;
                    } else {
                        map.next_value_seed(Groups(&mut *self))?;
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// `entries`: group → its entries.
struct Groups<'p, 'a>(&'p mut Pass<'a>);

impl<'de> DeserializeSeed<'de> for Groups<'_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Groups<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("`entries`: an object of benchmark groups")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(group) = map.next_key::<String>()? {
            map.next_value_seed(Group {
                pass: &mut *self.0,
                name: &group,
            })?;
        }
        Ok(())
    }
}

/// One group's entries, handed over one at a time.
struct Group<'p, 'a, 'g> {
    pass: &'p mut Pass<'a>,
    name: &'g str,
}

impl<'de> DeserializeSeed<'de> for Group<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Group<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "`entries.{}`: an array of entries", self.name)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while let Some(value) = seq.next_element::<serde_json::Value>()? {
            let on_entry = self.pass.on_entry.as_mut().expect("a full pass");
            if let Err(e) = on_entry(self.name, index, value) {
                self.pass.failed = Some(e);
                return Err(de::Error::custom("stopped"));
            }
            index += 1;
        }
        Ok(())
    }
}

/// Whether a plain-JSON file is a data.js object (`entries` and `lastUpdate`), read in one
/// pass that keeps nothing: for files too large for [`Sniff::doc`].
fn is_data_json(path: &Path) -> bool {
    read(path, None).is_ok_and(|h| h.entries && (h.last_update || h.repo_url.is_some()))
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

    fn stream_history(
        &self,
        root: &Path,
        each: &mut dyn FnMut(HistoryItem) -> Result<(), IngestError>,
    ) -> Result<(), IngestError> {
        stream(root, each)
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
        if input.first_line().trim_start().starts_with(PREFIX) {
            return true;
        }
        // A file past what `doc` reads (64 MiB) is judged by a pass that keeps nothing.
        let large = std::fs::metadata(input.path()).is_ok_and(|m| m.len() > 64 << 20);
        if large {
            return input.first_line().trim_start().starts_with('{')
                && is_data_json(input.path());
        }
        input.doc().is_some_and(|d| {
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
