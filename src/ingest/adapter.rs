//! The one interface every input format implements (as Bencher's `Adaptable`, inferno's
//! `Collapse`): its name and description, how its files are named, how its content is
//! recognised, what it can hold, and how it parses. Adding a format is one file with a
//! `pub static ADAPTER` implementing [`Adapter`] plus one line in `super::registry!`.
//! Auto-detection asks each adapter in turn; nothing else decides what a file is.

use std::cell::OnceCell;
use std::io::{BufRead, Read};
use std::path::Path;

use super::{CommitInfo, IngestError, ParsedTrial, RequestSink, open_input};

/// The stacks of one trial a stack format gives (folded files, `perf script`), with what was
/// skipped on the way.
#[derive(Debug, Default)]
pub struct Folded {
    pub stacks: Vec<crate::model::Stack>,
    pub warnings: Vec<String>,
}

/// What one file parsed into.
#[derive(Debug, Default)]
pub struct Parsed {
    pub trials: Vec<ParsedTrial>,
    pub warnings: Vec<String>,
    pub commit: Option<CommitInfo>,
}

impl Parsed {
    pub fn trials(trials: Vec<ParsedTrial>) -> Parsed {
        Parsed {
            trials,
            ..Default::default()
        }
    }

    /// Trials and the warnings their parse gathered (no commit).
    pub fn with_warnings(
        trials: Vec<ParsedTrial>,
        warnings: impl IntoIterator<Item = String>,
    ) -> Parsed {
        Parsed {
            trials,
            warnings: warnings.into_iter().collect(),
            commit: None,
        }
    }
}

pub trait Adapter: Sync {
    /// The `--format` value (and `ingest:<name>` in a run's `source`).
    fn name(&self) -> &'static str;

    /// One line for `--help`.
    fn description(&self) -> &'static str;

    /// A few words on what it reads, for "known formats" and "looked for" messages.
    fn hint(&self) -> &'static str;

    /// Its requests stream to Parquet in bounded chunks while parsing (a `sink` is used).
    fn streams(&self) -> bool {
        false
    }

    /// One input is many runs, a history another tool kept (an asv results directory, a
    /// github-action-benchmark `data.js`): read whole by [`Adapter::history`], not per file.
    fn many_runs(&self) -> bool {
        false
    }

    /// The runs of a history (formats whose [`Adapter::many_runs`] is true).
    fn history(&self, root: &Path) -> Result<History, IngestError> {
        Err(IngestError::Parse {
            path: root.to_path_buf(),
            line: 1,
            message: format!("{} is not a history format", self.name()),
        })
    }

    /// The runs of a history one at a time, in the history's order (formats whose
    /// [`Adapter::many_runs`] is true): `each` takes [`HistoryItem::Head`] first, then every
    /// run and warning, and stops the read by returning an error (which this returns). A
    /// history too large to hold (a github-action-benchmark `data.js` of gigabytes) streams
    /// here, holding one entry at a time; by default the whole [`Adapter::history`] is read
    /// first and handed over.
    fn stream_history(
        &self,
        root: &Path,
        each: &mut dyn FnMut(HistoryItem) -> Result<(), IngestError>,
    ) -> Result<(), IngestError> {
        let history = self.history(root)?;
        each(HistoryItem::Head {
            commit_url: history.commit_url,
        })?;
        for w in history.warnings {
            each(HistoryItem::Warning(w))?;
        }
        for run in history.runs {
            each(HistoryItem::Run(Box::new(run)))?;
        }
        Ok(())
    }

    /// The file name alone says a file is of this format (`profile_export.jsonl`,
    /// `new/estimates.json`): auto-detection takes it without reading it.
    fn claims_name(&self, _path: &Path, _name: &str) -> bool {
        false
    }

    /// Files a directory walk with `--format auto` picks up (by name only).
    fn walk_auto(&self, path: &Path, name: &str) -> bool {
        self.claims_name(path, name)
    }

    /// Files a directory walk with `--format <this format>` picks up.
    fn walks(&self, path: &Path, name: &str) -> bool;

    /// Whether the content is of this format (`--format auto`, when no name claimed it).
    fn sniff(&self, input: &Sniff) -> bool;

    /// For content no adapter took: whether it came close to this format, and what failed
    /// (`vllm-bench: has duration, lacks request_throughput`), for "unrecognised input".
    fn near(&self, _input: &Sniff) -> Option<String> {
        None
    }

    /// Parses one file; `sink`, when given, takes streamed requests (aiperf).
    fn parse(
        &self,
        path: &Path,
        input: Box<dyn BufRead>,
        sink: Option<RequestSink>,
    ) -> Result<Parsed, IngestError>;
}

/// A [`Document`] of a report parsed whole as text, `json` or `text`: a JSON report is any
/// `.json` file, known by a sniff of its parsed document; a text report (a tool's console
/// output) a `*.txt`/`*.log` file that is not JSON, known by a sniff of its text. Takes the
/// kind, name, description and hint, and finds `sniff` (of the `&Value` or the `&str`) and
/// `parse(&Path, &str) -> Result<Vec<ParsedTrial>, IngestError>` in the calling module; or,
/// as a last argument, the parser of the whole [`Parsed`] (warnings, a commit).
macro_rules! report_document {
    ($kind:ident, $name:expr, $description:expr, $hint:expr) => {
        $crate::ingest::adapter::report_document!($kind, $name, $description, $hint, |path, text| {
            Ok($crate::ingest::adapter::Parsed::trials(parse(path, text)?))
        })
    };
    ($kind:ident, $name:expr, $description:expr, $hint:expr, $parse:expr) => {
        $crate::ingest::adapter::Document {
            name: $name,
            description: $description,
            hint: $hint,
            claims: $crate::ingest::adapter::no_name,
            walks: $crate::ingest::adapter::report_document!(@walks $kind),
            sniff: $crate::ingest::adapter::report_document!(@sniff $kind),
            parse: $crate::ingest::adapter::Reader::Text($parse),
        }
    };
    (@walks json) => {
        $crate::ingest::adapter::json_file
    };
    (@walks text) => {
        $crate::ingest::adapter::text_file
    };
    (@sniff json) => {
        |input| input.doc().is_some_and(sniff)
    };
    (@sniff text) => {
        |input| input.doc().is_none() && input.text().is_some_and(sniff)
    };
}
pub(crate) use report_document;

/// A JSON report's [`Document`] ([`report_document`]).
macro_rules! json_document {
    ($($args:tt)*) => { $crate::ingest::adapter::report_document!(json, $($args)*) };
}
pub(crate) use json_document;

/// A text report's [`Document`] ([`report_document`]).
macro_rules! text_document {
    ($($args:tt)*) => { $crate::ingest::adapter::report_document!(text, $($args)*) };
}
pub(crate) use text_document;

/// A history another tool kept, read whole: one [`HistoryRun`] per commit it measured.
#[derive(Debug, Default)]
pub struct History {
    pub runs: Vec<HistoryRun>,
    /// The commit URL prefix the history names (asv's `show_commit_url`, a repository's
    /// `…/commit/`): the runs' `commit_url` label unless `--commit-url` gives one.
    pub commit_url: Option<String>,
    /// Files or entries left out, said once each (asv skips them too).
    pub warnings: Vec<String>,
}

/// What [`Adapter::stream_history`] hands over: the head before any run.
#[derive(Debug)]
pub enum HistoryItem {
    /// What the history says of all its runs: the commit URL prefix (as [`History::commit_url`]).
    Head { commit_url: Option<String> },
    /// Boxed: a run is large beside the other items.
    Run(Box<HistoryRun>),
    /// A file or entry left out, said once (as [`History::warnings`]).
    Warning(String),
}

/// One run of a [`History`]: one commit measured (on one machine, in one group).
#[derive(Debug, Default)]
pub struct HistoryRun {
    /// The file kept as the run's raw input (asv: its results file; data.js: the whole file).
    pub path: std::path::PathBuf,
    /// A group the history files it under (a github-action-benchmark benchmark set): the
    /// run's suite is then `<--suite>.<group>`.
    pub group: Option<String>,
    pub commit: String,
    pub date_ms: Option<i64>,
    pub machine: String,
    /// asv's environment name (label `asv_env`).
    pub env_name: String,
    /// JSON object text (machine, environment).
    pub env: String,
    /// Labels the history gives the run (`commit_message`).
    pub labels: std::collections::BTreeMap<String, String>,
    pub trials: Vec<ParsedTrial>,
    /// Benchmarks whose result is missing (failed in the tool): the run is partial.
    pub failed: Vec<String>,
    /// What the run's digest covers when its file holds other runs too (data.js): its own
    /// content, so a longer history imported later adds only its new runs. `None`: the
    /// file's SHA-256 (asv, one file per run).
    pub identity: Option<serde_json::Value>,
}

/// The shape every adapter but aiperf's and asv's shares: fixed name rules, a content
/// sniff, and a parser of the whole text or of a stream of folded stacks.
pub struct Document {
    pub name: &'static str,
    pub description: &'static str,
    pub hint: &'static str,
    /// File names the format claims outright (auto-detection without reading them).
    pub claims: fn(&Path, &str) -> bool,
    pub walks: fn(&Path, &str) -> bool,
    pub sniff: fn(&Sniff) -> bool,
    pub parse: Reader,
}

/// How a [`Document`] reads its input.
pub enum Reader {
    /// The whole file as text, parsed in one go.
    Text(fn(&Path, &str) -> Result<Parsed, IngestError>),
    /// A stream of stacks (folded files, `perf script`): one trial of stacks.
    Stacks(fn(&Path, Box<dyn BufRead>) -> Result<Folded, IngestError>),
}

impl Adapter for Document {
    fn name(&self) -> &'static str {
        self.name
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn hint(&self) -> &'static str {
        self.hint
    }

    fn claims_name(&self, path: &Path, name: &str) -> bool {
        (self.claims)(path, name)
    }

    fn walks(&self, path: &Path, name: &str) -> bool {
        (self.walks)(path, name)
    }

    fn sniff(&self, input: &Sniff) -> bool {
        (self.sniff)(input)
    }

    fn parse(
        &self,
        path: &Path,
        input: Box<dyn BufRead>,
        _sink: Option<RequestSink>,
    ) -> Result<Parsed, IngestError> {
        match self.parse {
            Reader::Text(parse) => parse(path, &read_text(path, input)?),
            Reader::Stacks(parse) => {
                let f = parse(path, input)?;
                Ok(Parsed {
                    trials: vec![ParsedTrial {
                        stacks: f.stacks,
                        ..Default::default()
                    }],
                    warnings: f.warnings,
                    commit: None,
                })
            }
        }
    }
}

/// A [`Document`] that also says when content came close to it ([`Adapter::near`]).
pub struct Near {
    pub document: Document,
    pub near: fn(&Sniff) -> Option<String>,
}

impl Adapter for Near {
    fn name(&self) -> &'static str {
        self.document.name()
    }

    fn description(&self) -> &'static str {
        self.document.description()
    }

    fn hint(&self) -> &'static str {
        self.document.hint()
    }

    fn claims_name(&self, path: &Path, name: &str) -> bool {
        self.document.claims_name(path, name)
    }

    fn walks(&self, path: &Path, name: &str) -> bool {
        self.document.walks(path, name)
    }

    fn sniff(&self, input: &Sniff) -> bool {
        self.document.sniff(input)
    }

    fn near(&self, input: &Sniff) -> Option<String> {
        (self.near)(input).map(|why| format!("closest format: {} ({why})", self.name()))
    }

    fn parse(
        &self,
        path: &Path,
        input: Box<dyn BufRead>,
        sink: Option<RequestSink>,
    ) -> Result<Parsed, IngestError> {
        self.document.parse(path, input, sink)
    }
}

/// A line of input as messages show it: trimmed, at most 80 characters, in backticks.
pub fn shown(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(80) {
        Some((i, _)) => format!("`{}…`", &line[..i]),
        None => format!("`{line}`"),
    }
}

/// Never claims a file by its name alone.
pub fn no_name(_: &Path, _: &str) -> bool {
    false
}

/// `*.json` files.
pub fn json_file(_: &Path, name: &str) -> bool {
    name.ends_with(".json")
}

/// Text logs (`*.txt`, `*.log`, `*.perf`, `*.script`).
pub fn text_file(_: &Path, name: &str) -> bool {
    [".txt", ".log", ".perf", ".script"]
        .iter()
        .any(|e| name.ends_with(e))
}

/// A file as auto-detection sees it, each view read at most once and bounded: the first line
/// (≤ 1 MiB, so a binary file without newlines is not read whole), the text (≤ 64 MiB) and
/// the JSON document it holds, if any.
pub struct Sniff<'a> {
    path: &'a Path,
    first: OnceCell<Result<String, String>>,
    bytes: OnceCell<Result<Vec<u8>, String>>,
    doc: OnceCell<Option<serde_json::Value>>,
}

impl<'a> Sniff<'a> {
    pub fn new(path: &'a Path) -> Sniff<'a> {
        Sniff {
            path,
            first: OnceCell::new(),
            bytes: OnceCell::new(),
            doc: OnceCell::new(),
        }
    }

    /// The file looked at.
    pub fn path(&self) -> &Path {
        self.path
    }

    /// The first line (empty when unreadable).
    pub fn first_line(&self) -> &str {
        self.first
            .get_or_init(|| {
                let mut first = String::new();
                open_input(self.path)
                    .map_err(|e| e.to_string())?
                    .take(1 << 20)
                    .read_line(&mut first)
                    .map_err(|e| e.to_string())?;
                Ok(first)
            })
            .as_deref()
            .unwrap_or("")
    }

    fn bytes(&self) -> &[u8] {
        self.bytes
            .get_or_init(|| {
                let mut bytes = Vec::new();
                open_input(self.path)
                    .map_err(|e| e.to_string())?
                    .take(64 << 20)
                    .read_to_end(&mut bytes)
                    .map_err(|e| e.to_string())?;
                Ok(bytes)
            })
            .as_deref()
            .unwrap_or(&[])
    }

    /// The content as text, if it is UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(self.bytes()).ok()
    }

    /// The JSON document the file holds (Google Benchmark's `NaN`/`Infinity` allowed).
    pub fn doc(&self) -> Option<&serde_json::Value> {
        self.doc
            .get_or_init(|| {
                serde_json::from_slice::<serde_json::Value>(self.bytes())
                    .ok()
                    .or_else(|| serde_json::from_str(&super::text::sanitize(self.text()?)).ok())
            })
            .as_ref()
    }

    /// What the content is, for "unrecognised input" when no adapter came close: a JSON
    /// document's top-level keys, else the first non-blank line (numbered, truncated).
    pub fn seen(&self) -> String {
        if let Some(doc) = self.doc() {
            return match doc {
                serde_json::Value::Object(m) => {
                    let keys: Vec<String> = m.keys().take(8).map(|k| format!("`{k}`")).collect();
                    let more = if m.len() > 8 { ", …" } else { "" };
                    format!(
                        "it is a JSON object with keys {}{more}, which no format requires together",
                        keys.join(", ")
                    )
                }
                serde_json::Value::Array(a) => {
                    format!(
                        "it is a JSON array of {} items that no format reads",
                        a.len()
                    )
                }
                _ => "it is a bare JSON value".to_string(),
            };
        }
        let Some(text) = self.text() else {
            return "it is not UTF-8 text".to_string();
        };
        match text.lines().enumerate().find(|(_, l)| !l.trim().is_empty()) {
            Some((i, l)) => format!("line {}, {}, starts no known format", i + 1, shown(l)),
            None => "it is empty".to_string(),
        }
    }

    /// The first line that is neither blank nor a `#` comment, of a file that is not JSON.
    pub fn first_text_line(&self, skip_comments: bool) -> Option<&str> {
        if self.doc().is_some() {
            return None;
        }
        self.text()?
            .lines()
            .find(|l| !(l.trim().is_empty() || skip_comments && l.starts_with('#')))
    }
}

/// Reads a whole input as text (the document formats), naming the file on failure.
pub fn read_text(path: &Path, mut input: Box<dyn BufRead>) -> Result<String, IngestError> {
    let mut text = String::new();
    input
        .read_to_string(&mut text)
        .map_err(|source| IngestError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::super::{ADAPTERS, Format};

    #[test]
    fn every_format_has_one_name_and_auto_none() {
        let names: Vec<_> = ADAPTERS.iter().map(|a| a.name()).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        assert!(!names.contains(&"auto"));
        assert!(Format::AUTO.adapter().is_none());
        assert_eq!(Format::all().len(), ADAPTERS.len() + 1);
        for a in ADAPTERS {
            assert_eq!(Format::from_name(a.name()).unwrap().name(), a.name());
            assert!(!a.description().is_empty() && !a.hint().is_empty());
        }
    }
}
