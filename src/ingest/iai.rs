//! iai, iai-callgrind and gungraun (its successor) benchmark output, as Bencher reads it.
//!
//! Text: a benchmark name line, then two-space-indented metric lines, optionally under tool
//! banners (`  ======= DHAT ====…`): iai 0.1 writes `  Instructions:  1243 (+1.139138%)`,
//! iai-callgrind ≥ 0.13 / gungraun `  Instructions:  1734|1650  (+5.09090%) [+1.04844x]`
//! (new|old; only the new value, left of `|`, is this run's). ANSI colours are removed; a
//! name spread over several lines (an id holding newlines) is joined with spaces. JSON
//! (`--output-format=json|pretty-json`): one summary object per benchmark
//! (`module_path`, `id`, `details`, `profiles[].summaries.total.summary.<Tool>.<Metric>`),
//! after any libtest preamble and before any trailing text.
//!
//! Each benchmark is one trial: the arm is the module path (`crate::group::function`); the
//! id after it becomes param `id` and its arguments (`short:10` → `id=short`, `args=10`)
//! param `args`. Metrics are named by their label in snake case (`Instructions` →
//! `instructions`, `L1 Hits` → `l1_hits`, `Total read+write` → `total_read_write`; JSON
//! keys map to the same: `Ir` → `instructions`, `TotalRW` → `total_read_write`), prefixed by
//! the tool for tools other than callgrind/cachegrind (`dhat.total_bytes`,
//! `memcheck.errors`). Units: `B` for byte counts, `%` for rates, `count` otherwise; all
//! lower is better but hit rates. Baselines (`old`), percentages and factors are not kept.
//!
//! Sections within a benchmark's text: with `show_intermediate`, each process/thread part
//! (`  ## pid: 2097219 thread: 1 part: 1`) is followed by `  ## Total`, the benchmark's
//! figure, which alone lands (as the JSON's `summaries.total`); a `  Comparison with <other>`
//! block (`compare_by_id`) holds the other benchmark's figures and is skipped. `show_grid`
//! output (`|-## Total`, `| Instructions: …`) is read as the plain one.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::text::{line_error, metric, no_benchmarks, slug, strip_ansi};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

static METRIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^  ([A-Za-z0-9][A-Za-z0-9 +/().-]*?):\s+([\d.]+|N/A)(?:\|([\d.]+|N/A))?(?:\s+\(([^)]*)\))?(?:\s+\[[^\]]*\])?\s*$")
        .unwrap()
});
/// What only iai's own lines look like (for detection).
static IAI_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^  (?:(?:Instructions|L1 Accesses|L2 Accesses|RAM Accesses|Estimated Cycles):\s+\d+(?:\s+\((?:[+-][\d.]+%|No change)\))?|[A-Za-z0-9 +/().-]+:\s+(?:[\d.]+|N/A)\|(?:[\d.]+|N/A)\s+\(.*\).*)\s*$")
        .unwrap()
});
static BANNER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^  =+ ([A-Z]+) =+\s*$").unwrap());

pub fn sniff(text: &str) -> bool {
    (text.contains("\"module_path\"") && text.contains("\"metrics_summary\""))
        || text
            .lines()
            .any(|l| IAI_LINE.is_match(&strip_ansi(l.trim_end_matches('\r'))))
}

fn unit_and_better(label: &str) -> (&'static str, Better) {
    let l = label.to_ascii_lowercase();
    if l.contains("rate") {
        let better = if l.contains("hit") {
            Better::Higher
        } else {
            Better::Lower
        };
        ("%", better)
    } else if l.contains("bytes") {
        ("B", Better::Lower)
    } else {
        ("count", Better::Lower)
    }
}

fn iai_metric(tool: Option<&str>, name: &str, value: f64) -> Metric {
    let (unit, better) = unit_and_better(name);
    let name = match tool.map(str::to_ascii_lowercase) {
        Some(t) if t != "callgrind" && t != "cachegrind" => format!("{t}.{name}"),
        _ => name.to_string(),
    };
    metric("iai", &name, value, unit, better)
}

/// `crate::group::function id:args` → the trial with arm and params.
fn trial(name: &str) -> ParsedTrial {
    let mut t = ParsedTrial::default();
    let (arm, rest) = name.split_once(' ').unwrap_or((name, ""));
    t.arm = Some(arm.to_string());
    let rest = rest.trim();
    if !rest.is_empty() {
        match rest.split_once(':') {
            Some((id, args)) => {
                t.params.insert("id".to_string(), id.trim().to_string());
                if !args.trim().is_empty() {
                    t.params.insert("args".to_string(), args.trim().to_string());
                }
            }
            None => {
                t.params.insert("id".to_string(), rest.to_string());
            }
        }
    }
    t
}

/// A JSON metric key in the text's snake case (`D1MissRate` → `d1_miss_rate`).
fn json_name(key: &str) -> String {
    match key {
        "Ir" => return "instructions".to_string(),
        "TotalRW" => return "total_read_write".to_string(),
        "L1hits" => return "l1_hits".to_string(),
        "LLhits" => return "ll_hits".to_string(),
        "RamHits" => return "ram_hits".to_string(),
        _ => {}
    }
    let chars: Vec<char> = key.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        let prev_lower = i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
        let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
        if c.is_uppercase() && i > 0 && (prev_lower || next_lower && chars[i - 1].is_uppercase()) {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    slug(&out)
}

fn parse_json(path: &Path, text: &str, start: usize) -> Result<Vec<ParsedTrial>, IngestError> {
    let mut trials = Vec::new();
    let stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    for v in stream {
        let Ok(v) = v else { break }; // trailing text after the summaries
        let Some(module) = v.get("module_path").and_then(Value::as_str) else {
            continue;
        };
        let mut t = trial(module);
        let id = v.get("id").and_then(Value::as_str);
        if let Some(id) = id {
            t.params.insert("id".to_string(), id.to_string());
        }
        if let Some(d) = v.get("details").and_then(Value::as_str) {
            t.params.insert("args".to_string(), d.to_string());
        }
        for p in v
            .get("profiles")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let tool = p.get("tool").and_then(Value::as_str);
            let summary = p
                .pointer("/summaries/total/summary")
                .and_then(Value::as_object);
            for kinds in summary.into_iter().flat_map(|s| s.values()) {
                for (key, m) in kinds.as_object().into_iter().flatten() {
                    let metrics = m.get("metrics");
                    let new = metrics.and_then(|x| {
                        x.get("Left")
                            .or_else(|| x.get("Both").and_then(|b| b.get(0)))
                    });
                    let value = new.and_then(|n| {
                        n.get("Int")
                            .or_else(|| n.get("Float"))
                            .and_then(Value::as_f64)
                    });
                    if let Some(value) = value {
                        t.metrics.push(iai_metric(tool, &json_name(key), value));
                    }
                }
            }
        }
        trials.push(t);
    }
    if trials.is_empty() {
        return Err(line_error(
            path,
            text[..start].lines().count() + 1,
            "expected gungraun/iai-callgrind JSON summaries with `module_path` and `profiles`",
        ));
    }
    Ok(trials)
}

/// Where the JSON summaries begin: the first line that opens an object, in a text that
/// names a `module_path`.
fn json_start(text: &str) -> Option<usize> {
    if !text.contains("\"module_path\"") {
        return None;
    }
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with('{') {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

/// Where the reading of the text output stands.
#[derive(Default)]
struct Scan {
    trials: Vec<ParsedTrial>,
    current: Option<Building>,
    /// The lines of the next benchmark's name (a long one wraps).
    name_lines: Vec<String>,
    /// The tool of the block being read (`DHAT`); none for the first, Callgrind's.
    tool: Option<String>,
    section: Section,
}

impl Scan {
    /// Reads one line (made plain); an error is the message for that line.
    fn line(&mut self, line: &str) -> Result<(), String> {
        if line.trim().is_empty() {
            self.trials.extend(self.current.take().map(Building::finish));
            self.name_lines.clear();
        } else if let Some(b) = BANNER.captures(line) {
            self.tool = Some(b[1].to_string());
            self.section = Section::Main;
        } else if let Some(h) = line.strip_prefix("  ## ") {
            self.section = if h.trim() == "Total" {
                Section::Total
            } else {
                match self.section {
                    Section::Part(n) => Section::Part(n + 1),
                    _ => Section::Part(1),
                }
            };
        } else if line.starts_with("  Comparison with ") {
            self.section = Section::Comparison;
        } else if let Some(c) = METRIC.captures(line) {
            self.metric(&c)?;
        } else if !line.starts_with(' ') {
            self.trials.extend(self.current.take().map(Building::finish));
            self.tool = None;
            self.section = Section::Main;
            self.name_lines.push(line.trim().to_string());
        }
        Ok(())
    }

    /// A metric line: the first starts the benchmark named by the lines above it.
    fn metric(&mut self, c: &regex::Captures) -> Result<(), String> {
        if self.current.is_none() {
            if self.name_lines.is_empty() {
                return Err("expected a benchmark name line before this metric line".into());
            }
            self.current = Some(Building::new(trial(&self.name_lines.join(" "))));
            self.name_lines.clear();
        }
        if &c[2] == "N/A" || self.section == Section::Comparison {
            return Ok(());
        }
        let value: f64 = c[2]
            .parse()
            .map_err(|_| format!("expected a number for `{}`, found `{}`", &c[1], &c[2]))?;
        if let Some(b) = self.current.as_mut() {
            b.entries.push(Entry {
                tool: self.tool.clone(),
                section: self.section,
                name: slug(&c[1]),
                value,
            });
        }
        Ok(())
    }
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    if let Some(start) = json_start(text) {
        return parse_json(path, text, start);
    }
    let mut scan = Scan::default();
    for (i, raw) in text.lines().enumerate() {
        let line = grid_to_plain(strip_ansi(raw.trim_end_matches('\r')).into_owned());
        scan.line(&line)
            .map_err(|message| line_error(path, i + 1, message))?;
    }
    let mut trials = scan.trials;
    trials.extend(scan.current.map(Building::finish));
    if trials.is_empty() {
        return Err(no_benchmarks(
            path,
            "iai/iai-callgrind/gungraun output: a benchmark name, then `  Instructions:  <n>` lines",
        ));
    }
    Ok(trials)
}

/// `show_grid` output (`|-## Total`, `| Instructions: …`, `|======== DHAT ===`) as the
/// plain two-space-indented lines.
fn grid_to_plain(line: String) -> String {
    match line.strip_prefix('|') {
        Some(rest) => {
            let rest = rest
                .strip_prefix('-')
                .or_else(|| rest.strip_prefix(' '))
                .unwrap_or(rest);
            format!("  {rest}")
        }
        None => line,
    }
}

/// Where a metric line stands within its benchmark's output.
#[derive(Clone, Copy, PartialEq, Default)]
enum Section {
    /// Directly under the name or a tool banner.
    #[default]
    Main,
    /// Under the n-th `## pid: … thread: …` (or `ppid:`) header of a tool: one process or
    /// thread of the benchmark (`show_intermediate`).
    Part(usize),
    /// Under `## Total`: the sum of the parts, the benchmark's figure.
    Total,
    /// Under `Comparison with <other bench>` (`compare_by_id`): the other benchmark's
    /// figures (left of `|`) against this one's; not this benchmark's.
    Comparison,
}

struct Entry {
    tool: Option<String>,
    section: Section,
    name: String,
    value: f64,
}

/// A text benchmark being read: its trial and the metric lines met so far.
struct Building {
    trial: ParsedTrial,
    entries: Vec<Entry>,
}

impl Building {
    fn new(trial: ParsedTrial) -> Building {
        Building {
            trial,
            entries: Vec::new(),
        }
    }

    /// The trial with one value per metric: for each tool, its `## Total` when it has one
    /// (its parts are the breakdown, not kept); a lone part as the figure; several parts
    /// without a total each under `part<n>.`.
    fn finish(self) -> ParsedTrial {
        let Building { mut trial, entries } = self;
        let mut tools: Vec<Option<String>> = Vec::new();
        for e in &entries {
            if !tools.contains(&e.tool) {
                tools.push(e.tool.clone());
            }
        }
        for tool in tools {
            let of_tool: Vec<&Entry> = entries.iter().filter(|e| e.tool == tool).collect();
            let has_total = of_tool.iter().any(|e| e.section == Section::Total);
            let parts = of_tool
                .iter()
                .filter(|e| matches!(e.section, Section::Part(_)))
                .map(|e| e.section)
                .fold(Vec::new(), |mut v, s| {
                    if !v.contains(&s) {
                        v.push(s);
                    }
                    v
                })
                .len();
            for e in of_tool {
                let name = match e.section {
                    Section::Total | Section::Main => e.name.clone(),
                    Section::Part(_) if has_total => continue,
                    Section::Part(_) if parts <= 1 => e.name.clone(),
                    Section::Part(n) => format!("part{n}.{}", e.name),
                    Section::Comparison => continue,
                };
                trial
                    .metrics
                    .push(iai_metric(tool.as_deref(), &name, e.value));
            }
        }
        trial
    }
}

/// iai / iai-callgrind / gungraun output as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::text_document!(
    "iai",
    "iai, iai-callgrind and gungraun output (text or JSON summaries): each benchmark is a trial",
    "iai / iai-callgrind / gungraun output"
);

#[cfg(test)]
mod tests {
    use super::*;

    /// One metric per name: (name, value) of a trial.
    fn figures(t: &ParsedTrial) -> Vec<(&str, f64)> {
        t.metrics.iter().map(|m| (m.name.as_str(), m.value)).collect()
    }

    #[test]
    fn parts_give_way_to_the_total_and_comparisons_are_skipped() {
        // The shape of iai-callgrind's `show_intermediate` + `show_grid` doc example
        // (iai-callgrind/src/common.rs `OutputFormat::show_grid`), values shortened.
        let grid = "b::g::f three:3\n|======== CALLGRIND ====\n|-## pid: 1 part: 1 thread: 1   |N/A\n\
            | Command:            target/release/thread 3\n| Instructions:     4697|N/A  (*********)\n\
            |-## pid: 2 part: 1 thread: 2   |N/A\n| Instructions:     35452|N/A  (*********)\n\
            |-## Total\n| Instructions:     40149|N/A  (*********)\n\
            |======== DHAT ====\n|-## pid: 1 ppid: 0   |N/A\n| Total bytes:   2774|N/A  (*********)\n\
            |-## pid: 2 ppid: 1   |N/A\n| Total bytes:   156158|N/A  (*********)\n\
            |-## Total\n| Total bytes:   158932|N/A  (*********)\n\
            |-Comparison with f two:2\n| Instructions:     10494117|40149  (-0.06475%) [-1.00065x]\n";
        let t = parse(Path::new("x"), grid).unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!(
            figures(&t[0]),
            [("instructions", 40149.0), ("dhat.total_bytes", 158932.0)]
        );
        // Parts without a total: one is the figure, several are told apart.
        let one = "b::g::f\n  ## pid: 7 part: 1 thread: 1   |N/A\n  Instructions:  12|N/A  (*********)\n";
        assert_eq!(figures(&parse(Path::new("x"), one).unwrap()[0]), [("instructions", 12.0)]);
        let two = format!("{one}  ## pid: 7 part: 1 thread: 2   |N/A\n  Instructions:  30|N/A  (*********)\n");
        assert_eq!(
            figures(&parse(Path::new("x"), &two).unwrap()[0]),
            [("part1.instructions", 12.0), ("part2.instructions", 30.0)]
        );
    }

    #[test]
    fn multi_line_names_tools_and_old_values() {
        let text = "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n\
            m::g::f id:string with two\nlines\n  ======= DHAT ====\n  Total bytes:  29499|N/A  (*********)\n  ======= CALLGRIND ====\n  Instructions:  1734|1650  (+5.09090%) [+1.04844x]\n\
            \x20 LL Hit Rate:  99.5|N/A  (*********)\niai_short\n  Instructions:                1243 (+1.139138%)\n  RAM Accesses:  2 (No change)\n";
        let t = parse(Path::new("x"), text).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].arm.as_deref(), Some("m::g::f"));
        assert_eq!(t[0].params["args"], "string with two lines");
        let m: Vec<_> = t[0]
            .metrics
            .iter()
            .map(|m| (m.name.as_str(), m.value, m.unit.as_str()))
            .collect();
        assert_eq!(
            m,
            [
                ("dhat.total_bytes", 29499.0, "B"),
                ("instructions", 1734.0, "count"),
                ("ll_hit_rate", 99.5, "%")
            ]
        );
        assert_eq!(t[0].metrics[2].better, Better::Higher);
        assert_eq!(t[1].arm.as_deref(), Some("iai_short"));
        assert_eq!(t[1].metrics[1].name, "ram_accesses");
        assert_eq!(json_name("D1MissRate"), "d1_miss_rate");
        assert_eq!(json_name("SuppressedContexts"), "suppressed_contexts");
        assert!(!sniff("  iterations       : 20 (warmup 3)\n"));
    }
}
