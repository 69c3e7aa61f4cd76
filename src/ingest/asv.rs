//! airspeed velocity (asv 0.6) results, so projects migrating from asv bring their history.
//!
//! Upstream definition: `asv/results.py` (github.com/airspeed-velocity/asv). A results
//! directory holds `benchmarks.json` (name → `unit`, `type`, `param_names`) and one directory
//! per machine with `machine.json` and one file per commit × environment. In a results file,
//! `result_columns` names the columns of every `results[name]` row (asv 0.6, file version 2):
//! `result` is one value per combination of `params` (their cartesian product, in order),
//! `null` where the benchmark failed; Python's json writes `NaN`/`Infinity` literals.
//!
//! Each results file becomes one run: `git_commit` = `commit_hash`, start = `date` (ms),
//! host = the machine, env = `machine.json` and the file's `params`. Within it, one trial per
//! distinct parameter combination (`param_names` → values, as asv prints them) holds one
//! metric per benchmark (`time` → `s`, lower is better; `mem`/`peakmem` → bytes).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::adapter::{History, HistoryRun};
use super::{IngestError, ParsedTrial};
use super::text::metric;
use crate::model::{Better, Params};

/// `show_commit_url` of the asv project that holds `root` (its `asv.conf.json` beside
/// `results/`), if it says one. asv allows `//` comments in that file; lines starting with
/// one are skipped.
pub fn show_commit_url(root: &Path) -> Option<String> {
    let candidates = [
        root.join("asv.conf.json"),
        root.parent()?.join("asv.conf.json"),
    ];
    let conf = candidates.iter().find(|p| p.is_file())?;
    let text = std::fs::read_to_string(conf).ok()?;
    let doc: serde_json::Value = serde_json::from_str(&relaxed_json(&text)).ok()?;
    doc.get("show_commit_url")?
        .as_str()
        .filter(|u| !u.is_empty())
        .map(str::to_string)
}

/// JSON as asv's own loader takes it (`asv.conf.json` as `asv quickstart` writes it): `//`
/// comments outside strings removed, and a comma before `}` or `]` dropped.
pub fn relaxed_json(text: &str) -> String {
    crate::ingest::text::rewrite_outside_strings(text, |rest, out| {
        if rest.starts_with("//") {
            // To the end of the line, which stays.
            return rest.find('\n').unwrap_or(rest.len());
        }
        if rest.starts_with(['}', ']']) {
            let trimmed = out.trim_end().len();
            if out[..trimmed].ends_with(',') {
                out.truncate(trimmed - 1);
            }
        }
        0
    })
}

/// Whether `dir` is (or holds, as `results/`) an asv results directory.
pub fn is_results_dir(dir: Option<&Path>) -> bool {
    dir.is_some_and(|d| {
        d.join("benchmarks.json").is_file() || d.join("results/benchmarks.json").is_file()
    })
}

/// Whether `dir` holds an asv machine directory (`<machine>/machine.json`).
fn has_machine_dir(dir: Option<&Path>) -> bool {
    dir.and_then(|d| std::fs::read_dir(d).ok())
        .is_some_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().join("machine.json").is_file())
        })
}

struct BenchInfo {
    unit: String,
    kind: String,
    param_names: Vec<String>,
}

fn read_json(path: &Path) -> Result<Value, IngestError> {
    let text = std::fs::read_to_string(path).map_err(|source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&super::text::sanitize(&text)).map_err(|e| IngestError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        message: e.to_string(),
    })
}

fn load_benchmarks(path: &Path) -> Result<BTreeMap<String, BenchInfo>, IngestError> {
    let doc = read_json(path)?;
    let obj = doc.as_object().ok_or_else(|| IngestError::Field {
        path: path.to_path_buf(),
        line: 1,
        field: "(root)".to_string(),
        expected: "an object of benchmark name → {unit, type, param_names}".to_string(),
    })?;
    Ok(obj
        .iter()
        .filter_map(|(name, b)| {
            let b = b.as_object()?;
            Some((
                name.clone(),
                BenchInfo {
                    unit: b
                        .get("unit")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    kind: b
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    param_names: b
                        .get("param_names")
                        .and_then(Value::as_array)
                        .map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str().map(String::from))
                                .collect()
                        })
                        .unwrap_or_default(),
                },
            ))
        })
        .collect())
}

/// Every results file under `root` (a results directory or a project holding `results/`),
/// sorted by path.
pub fn discover(root: &Path) -> Result<(PathBuf, Vec<PathBuf>), IngestError> {
    let results = if root.join("benchmarks.json").is_file() {
        root.to_path_buf()
    } else if root.join("results/benchmarks.json").is_file() {
        root.join("results")
    } else if root.file_name().is_some_and(|n| n == "benchmarks.json") {
        root.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        return Err(IngestError::NothingFound {
            path: root.to_path_buf(),
            looked_for: "an asv results directory (benchmarks.json beside <machine>/machine.json)"
                .to_string(),
        });
    };
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(&results)
        .min_depth(2)
        .max_depth(2)
        .sort_by_file_name()
    {
        let entry = entry.map_err(|e| IngestError::Io {
            path: results.clone(),
            source: e
                .into_io_error()
                .unwrap_or_else(|| std::io::Error::other("walk failed")),
        })?;
        let name = entry.file_name().to_string_lossy();
        if entry.file_type().is_file() && name.ends_with(".json") && name != "machine.json" {
            files.push(entry.into_path());
        }
    }
    Ok((results, files))
}

/// A benchmark's unit: from `benchmarks.json`, or, for a benchmark it no longer lists (renamed
/// or removed since those results were written), from its name as asv itself types a
/// benchmark: `time_`/`timeraw_` → seconds, `mem_`/`peakmem_` → bytes, `track_` → no unit.
fn unit_of(name: &str, info: Option<&BenchInfo>) -> (String, f64) {
    match info.map(|i| (i.kind.as_str(), i.unit.as_str())) {
        Some((_, "seconds")) | Some(("time", _)) => ("s".to_string(), 1.0),
        Some((_, "bytes")) => ("B".to_string(), 1.0),
        Some((_, u)) => (u.to_string(), 1.0),
        None => {
            let method = name.rsplit('.').next().unwrap_or(name);
            let unit = if method.starts_with("time_") || method.starts_with("timeraw_") {
                "s"
            } else if method.starts_with("mem_") || method.starts_with("peakmem_") {
                "B"
            } else {
                ""
            };
            (unit.to_string(), 1.0)
        }
    }
}

/// Cartesian product of parameter values, in asv's order (last parameter varies fastest).
fn combos(params: &[Vec<String>]) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    for values in params {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                values.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(v.clone());
                    p
                })
            })
            .collect();
    }
    out
}

/// Reads every results file of an asv results directory. As asv does, a file that is not
/// JSON or names no `commit_hash` (a stray file) is left out, with a warning naming it.
pub fn parse_dir(root: &Path) -> Result<History, IngestError> {
    let (results, files) = discover(root)?;
    let benches = load_benchmarks(&results.join("benchmarks.json"))?;
    let mut machines: BTreeMap<PathBuf, Value> = BTreeMap::new();
    let mut out = Vec::with_capacity(files.len());
    let mut warnings = Vec::new();
    for path in files {
        let dir = path.parent().expect("depth 2").to_path_buf();
        if !machines.contains_key(&dir) {
            let m = dir.join("machine.json");
            let v = if m.is_file() {
                read_json(&m)?
            } else {
                Value::Null
            };
            machines.insert(dir.clone(), v);
        }
        match parse_file(&path, &benches, &machines[&dir]) {
            Ok(run) => out.push(run),
            Err(e @ IngestError::Parse { .. }) => {
                warnings.push(format!("{e} (not an asv results file: left out, as asv does)"))
            }
            Err(IngestError::Field { field, .. }) if field == "commit_hash" => warnings.push(
                format!(
                    "{}: no `commit_hash` (not an asv results file: left out, as asv does)",
                    path.display()
                ),
            ),
            Err(e) => return Err(e),
        }
    }
    Ok(History {
        runs: out,
        commit_url: show_commit_url(root),
        warnings,
    })
}

/// One benchmark's row of a results file: a result per parameter combination, the values of
/// each parameter, and the benchmark's code version (a hash asv takes of its source).
struct Row {
    values: Vec<Value>,
    params: Vec<Vec<String>>,
    version: Option<String>,
}

impl Row {
    /// asv 0.6: a row aligned with `result_columns`; older files: `{result, params}` or a
    /// number.
    fn read(row: &Value, columns: &[&str]) -> Row {
        let (values, params, version) = if let Some(arr) = row.as_array() {
            let get = |c: &str| {
                columns
                    .iter()
                    .position(|x| *x == c)
                    .and_then(|i| arr.get(i))
                    .cloned()
                    .unwrap_or(Value::Null)
            };
            (get("result"), get("params"), get("version"))
        } else if let Some(obj) = row.as_object() {
            let get = |c: &str| obj.get(c).cloned().unwrap_or(Value::Null);
            (get("result"), get("params"), get("version"))
        } else {
            (Value::Array(vec![row.clone()]), Value::Null, Value::Null)
        };
        let values = match values {
            Value::Array(a) => a,
            Value::Null => vec![Value::Null],
            v => vec![v],
        };
        Row {
            values,
            params: param_values(&params),
            version: version.as_str().map(str::to_string),
        }
    }
}

/// Each parameter's values as text (strings without their quotes).
fn param_values(params: &Value) -> Vec<Vec<String>> {
    let text = |v: &Value| v.as_str().map(String::from).unwrap_or_else(|| v.to_string());
    params
        .as_array()
        .map(|ps| {
            ps.iter()
                .map(|p| {
                    p.as_array()
                        .map(|vs| vs.iter().map(text).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The results of one file, gathered benchmark by benchmark into one trial per parameter
/// combination.
#[derive(Default)]
struct Trials {
    by_params: BTreeMap<Params, ParsedTrial>,
    /// Benchmarks (or combinations) without a result: failed in asv.
    failed: Vec<String>,
}

impl Trials {
    /// Lands the row of benchmark `name`; an error is what `results.<name>` should have held.
    fn land(&mut self, name: &str, row: Row, info: Option<&BenchInfo>) -> Result<(), String> {
        let names: Vec<String> = info
            .map(|i| i.param_names.clone())
            .filter(|n| n.len() == row.params.len())
            .unwrap_or_else(|| {
                (0..row.params.len())
                    .map(|i| format!("param{}", i + 1))
                    .collect()
            });
        let combos = combos(&row.params);
        if combos.len() != row.values.len() {
            return Err(format!(
                "{} results (one per parameter combination), found {}",
                combos.len(),
                row.values.len()
            ));
        }
        let (unit, scale) = unit_of(name, info);
        for (combo, value) in combos.into_iter().zip(row.values) {
            let p: Params = names.iter().cloned().zip(combo).collect();
            let Some(v) = value.as_f64() else {
                self.failed.push(if p.is_empty() {
                    name.to_string()
                } else {
                    format!("{name}{p:?}")
                });
                continue;
            };
            let mut m = metric("asv", name, v * scale, &unit, Better::Lower);
            m.version = row.version.clone();
            self.by_params
                .entry(p.clone())
                .or_insert_with(|| ParsedTrial {
                    params: p,
                    ..Default::default()
                })
                .metrics
                .push(m);
        }
        Ok(())
    }
}

fn parse_file(
    path: &Path,
    benches: &BTreeMap<String, BenchInfo>,
    machine: &Value,
) -> Result<HistoryRun, IngestError> {
    let doc = read_json(path)?;
    let field = |f: &str, expected: &str| IngestError::Field {
        path: path.to_path_buf(),
        line: 1,
        field: f.to_string(),
        expected: expected.to_string(),
    };
    let commit = doc
        .get("commit_hash")
        .and_then(Value::as_str)
        .ok_or_else(|| field("commit_hash", "the commit's hash (a string)"))?
        .to_string();
    let results = doc
        .get("results")
        .and_then(Value::as_object)
        .ok_or_else(|| field("results", "an object of benchmark name → result row"))?;
    let columns: Vec<&str> = doc
        .get("result_columns")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut trials = Trials::default();
    for (name, row) in results {
        trials
            .land(name, Row::read(row, &columns), benches.get(name))
            .map_err(|expected| field(&format!("results.{name}"), &expected))?;
    }
    Ok(run(path, &doc, machine, commit, trials))
}

/// The run of one results file: its commit, date, machine and environment, and its trials.
fn run(path: &Path, doc: &Value, machine: &Value, commit: String, trials: Trials) -> HistoryRun {
    let machine_name = doc
        .pointer("/params/machine")
        .and_then(Value::as_str)
        .or_else(|| machine.get("machine").and_then(Value::as_str))
        .unwrap_or("")
        .to_string();
    let env = serde_json::json!({
        "machine": machine,
        "params": doc.get("params").cloned().unwrap_or(Value::Null),
        "env_name": doc.get("env_name").cloned().unwrap_or(Value::Null),
    });
    HistoryRun {
        path: path.to_path_buf(),
        group: None,
        labels: Default::default(),
        identity: None,
        commit,
        date_ms: doc.get("date").and_then(Value::as_i64),
        machine: machine_name,
        env_name: doc
            .get("env_name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        env: env.to_string(),
        trials: trials.by_params.into_values().collect(),
        failed: trials.failed,
    }
}

/// asv results as an [`super::adapter::Adapter`]: a results directory is many runs, so
/// `perfhouse ingest` reads it with [`parse_dir`]; a single results file is refused.
pub struct Adapter;

/// The registered adapter (`super::registry!`).
pub static ADAPTER: Adapter = Adapter;

impl super::adapter::Adapter for Adapter {
    fn name(&self) -> &'static str {
        "asv"
    }

    fn description(&self) -> &'static str {
        "airspeed velocity results/: every results file (one commit on one machine) is its own run"
    }

    fn hint(&self) -> &'static str {
        "results/ directory"
    }

    fn many_runs(&self) -> bool {
        true
    }

    fn history(&self, root: &Path) -> Result<History, IngestError> {
        parse_dir(root)
    }

    fn claims_name(&self, path: &Path, name: &str) -> bool {
        // A `benchmarks.json` is asv's only beside a machine directory (`<machine>/machine.json`):
        // GuideLLM names its report the same.
        path.is_dir() || name == "benchmarks.json" && has_machine_dir(path.parent())
    }

    fn walk_auto(&self, _path: &Path, _name: &str) -> bool {
        false // the whole directory is one ingest; see `commands::ingest`
    }

    fn walks(&self, _path: &Path, name: &str) -> bool {
        name == "benchmarks.json"
    }

    fn sniff(&self, _input: &super::adapter::Sniff) -> bool {
        false
    }

    fn parse(
        &self,
        path: &Path,
        _input: Box<dyn std::io::BufRead>,
        _sink: Option<super::RequestSink>,
    ) -> Result<super::adapter::Parsed, super::IngestError> {
        Err(super::IngestError::Parse {
            path: path.to_path_buf(),
            line: 1,
            message: "asv results hold one run per file: give the results directory (or the project's) to `perfhouse ingest --format asv`".to_string(),
        })
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_benchmark_no_longer_listed_is_typed_by_its_name_as_asv_types_it() {
        let u = |n: &str| super::unit_of(n, None).0;
        assert_eq!(u("benchmark_datacatalog.TimeDataCatalog.time_add_all"), "s");
        assert_eq!(u("bench.Suite.timeraw_import"), "s");
        assert_eq!(u("bench.Suite.peakmem_runners"), "B");
        assert_eq!(u("mem_list"), "B");
        assert_eq!(u("bench.Suite.track_items"), "");
        // "time" inside a class name does not make a method a timing.
        assert_eq!(u("bench.time_Suite.track_x"), "");
    }

    use super::*;

    #[test]
    fn a_row_reads_in_each_layout_asv_wrote() {
        // asv 0.6: aligned with `result_columns`.
        let columns = ["result", "params", "version"];
        let row = serde_json::json!([[1.5, null], [["1", "'a'"]], "abc"]);
        let r = Row::read(&row, &columns);
        assert_eq!(r.values, [serde_json::json!(1.5), Value::Null]);
        assert_eq!(r.params, [vec!["1".to_string(), "'a'".to_string()]]);
        assert_eq!(r.version.as_deref(), Some("abc"));
        // Older: `{result, params}`, or a bare number.
        let r = Row::read(&serde_json::json!({"result": 2.0}), &[]);
        assert_eq!((r.values.len(), r.params.len(), r.version), (1, 0, None));
        let r = Row::read(&serde_json::json!(3.25), &columns);
        assert_eq!(r.values, [serde_json::json!(3.25)]);
        // A parameter combination without a result is a failed one.
        let mut trials = Trials::default();
        let row = Row::read(&serde_json::json!([[1.5, null], [["1", "2"]]]), &columns[..2]);
        trials.land("suite.time_x", row, None).unwrap();
        assert_eq!(trials.failed, ["suite.time_x{\"param1\": \"2\"}"]);
        let t = &trials.by_params[&Params::from([("param1".into(), "1".into())])];
        assert_eq!(t.metrics[0].value, 1.5);
    }

    #[test]
    fn combinations_follow_asv_order() {
        let p = vec![
            vec!["1".to_string(), "2".to_string()],
            vec!["'a'".to_string(), "'b'".to_string()],
        ];
        assert_eq!(
            combos(&p),
            vec![
                vec!["1", "'a'"],
                vec!["1", "'b'"],
                vec!["2", "'a'"],
                vec!["2", "'b'"]
            ]
        );
        assert_eq!(combos(&[]), vec![Vec::<String>::new()]);
    }
}
