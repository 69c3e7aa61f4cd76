//! The plan file (TOML): what to run, how often, in which order, what to measure.
//! `perfhouse run --help` and the book (docs/src/plans.md) document every key; unknown keys are errors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::model::{Better, Params};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub suite: String,
    /// Free text shown with the run.
    #[serde(default)]
    pub note: Option<String>,
    pub run: RunSection,
    #[serde(default, rename = "arm")]
    pub arms: Vec<Arm>,
    /// Each key becomes an environment variable and a param; trials cover every combination.
    #[serde(default)]
    pub matrix: BTreeMap<String, Vec<toml::Value>>,
    #[serde(default)]
    pub sample: Option<Sample>,
    #[serde(default)]
    pub profile: Option<Profile>,
    /// Hardware counters of the measured command per trial, via `perf stat` (`runner::counters`).
    #[serde(default)]
    pub counters: Option<Counters>,
    /// The measured command under valgrind: instruction counts and estimated cycles
    /// (`runner::valgrind`).
    #[serde(default)]
    pub valgrind: Option<Valgrind>,
    #[serde(default)]
    pub collect: Vec<Collect>,
    /// Servers whose Prometheus metrics are sampled during each trial (`runner::scrape`).
    #[serde(default)]
    pub scrape: Vec<Scrape>,
    #[serde(default, rename = "metric")]
    pub metrics: Vec<MetricRule>,
    /// Environment variables recorded with the run (values), besides the machine facts.
    /// Nothing else of the environment is recorded: a published site must not leak tokens.
    #[serde(default)]
    pub env_allowlist: Vec<String>,
    /// The suite's service-level objectives (`ttft_ms<=200`, `p99(ttft_ms)<=500`; see
    /// `query::slo`), recorded as the run's `slo` label: goodput, SLO attainment and capacity
    /// at SLO are judged against the newest run's.
    #[serde(default)]
    pub slo: Vec<String>,
    /// What `perfhouse run --find-capacity` searches (see `runner::capacity`).
    #[serde(default)]
    pub capacity: Option<CapacitySection>,
    /// Directory of the plan file (commands run there unless `run.workdir` says otherwise).
    #[serde(skip)]
    pub dir: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    Interleaved,
    Shuffled,
    Sequential,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    #[serde(default = "one")]
    pub repeats: u32,
    #[serde(default = "interleaved")]
    pub order: Order,
    /// Seed of `shuffled`.
    #[serde(default)]
    pub seed: u64,
    /// Warm-up trials per arm × params before the measured ones (kept, never counted).
    #[serde(default)]
    pub warmup: u32,
    /// Mark the first measured repeat of every arm × params as a discarded cold start.
    #[serde(default)]
    pub discard_first: bool,
    #[serde(default)]
    pub setup: Option<String>,
    /// Polled after setup until it exits 0 (or `ready_timeout` passes).
    #[serde(default)]
    pub ready: Option<String>,
    #[serde(default = "ready_timeout", with = "duration")]
    pub ready_timeout: Duration,
    #[serde(default = "ready_interval", with = "duration")]
    pub ready_interval: Duration,
    pub command: String,
    /// Run once per git arm in its worktree before any trial (`make`, `cargo build --release`).
    #[serde(default)]
    pub build: Option<String>,
    /// Run after every trial, also when it failed.
    #[serde(default)]
    pub teardown: Option<String>,
    /// Limit for each command of a trial.
    #[serde(default = "timeout", with = "duration")]
    pub timeout: Duration,
    /// Working directory of the commands, relative to the plan file.
    #[serde(default)]
    pub workdir: Option<PathBuf>,
    /// Environment for every command.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arm {
    pub name: String,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Appended to `run.command` for this arm.
    #[serde(default)]
    pub args: Option<String>,
    /// A git revision (`HEAD`, `origin/main`, a commit): the arm's trials run in a worktree
    /// of it, built once with `run.build` (see `runner::git`).
    #[serde(default)]
    pub git: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    #[serde(default = "sample_interval", with = "duration")]
    pub interval: Duration,
    /// Cores whose busy share is summed (`0-3,8`); default all.
    #[serde(default)]
    pub cores: Option<String>,
    /// Name → cmdline regex; the matching processes and their descendants are sampled.
    #[serde(default)]
    pub processes: BTreeMap<String, String>,
    /// `cores`, validated (filled by [`Plan::parse`]).
    #[serde(skip)]
    pub core_set: Option<Vec<u32>>,
    /// `processes`, compiled (filled by [`Plan::parse`]).
    #[serde(skip)]
    pub matchers: Vec<(String, regex::Regex)>,
}

pub use crate::model::StackKind;

/// `[[scrape]]`: a Prometheus text endpoint sampled every `interval` while each trial's command
/// runs (`runner::scrape`); its samples land in `scrape_samples`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scrape {
    /// `http://host:port/path`.
    pub url: String,
    /// The `target` its samples are stored under (default: the URL's host:port).
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default = "scrape_interval", with = "duration")]
    pub interval: Duration,
    /// Limit of one scrape (default: the interval, between 1 s and 10 s).
    #[serde(default, with = "opt_duration")]
    pub timeout: Option<Duration>,
    /// A regex of the metric families kept (all where not given).
    #[serde(default)]
    pub keep: Option<String>,
    /// Server figures (`server.<metric>.<stat>`, see `query::figures::ServerFigure`) that
    /// compare and the sweep table show; recorded as the run's `server_figures` label.
    #[serde(default)]
    pub figures: Vec<String>,
    /// Keep each scrape's text verbatim in the trial's directory (`scrape-<n>.prom`; with
    /// `--keep-scratch` it stays).
    #[serde(default)]
    pub raw: bool,
    /// `url`, checked (filled by [`Plan::parse`]).
    #[serde(skip)]
    pub endpoint: Option<super::scrape::Endpoint>,
    /// `keep`, compiled (filled by [`Plan::parse`]).
    #[serde(skip)]
    pub keep_re: Option<regex::Regex>,
}

impl Scrape {
    /// The name its samples are stored under.
    pub fn target(&self) -> String {
        match (&self.name, &self.endpoint) {
            (Some(n), _) => n.clone(),
            (None, Some(e)) => e.authority(),
            (None, None) => self.url.clone(),
        }
    }

    /// The limit of one scrape.
    pub fn timeout(&self) -> Duration {
        self.timeout.unwrap_or_else(|| {
            self.interval
                .clamp(Duration::from_secs(1), Duration::from_secs(10))
        })
    }
}

/// `[capacity]`: the load parameter `--find-capacity` varies, the SLOs a level must meet, and
/// the search's range and resolution.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacitySection {
    /// `concurrency` (integer levels) or a request rate (`request_rate`, `rate`, `qps`): each
    /// probe sets it as a param and an environment variable, as a `[matrix]` key (a matrix
    /// key of that name is the dense sweep of a plain run; the search replaces it).
    pub load: String,
    /// The SLOs a level must meet (the plan's `slo` where not given).
    #[serde(default)]
    pub slo: Vec<String>,
    /// `10%` (bracket width at most 10 % of its lower end) or load units (`2`).
    #[serde(default = "ten_percent")]
    pub resolution: String,
    /// The first level.
    #[serde(default = "one_load")]
    pub start: f64,
    /// The highest level probed.
    pub max: f64,
    /// A level whose throughput is this share below a lower level's, with more latency, is
    /// over-saturated.
    #[serde(default = "ten_percent")]
    pub saturation: String,
    /// Validated (filled by [`Plan::parse`]).
    #[serde(skip)]
    pub search: Option<super::capacity::Search>,
    /// `slo`, else the plan's, parsed (filled by [`Plan::parse`]).
    #[serde(skip)]
    pub slos: crate::query::slo::Slos,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// A name of `[sample.processes]`, or a cmdline regex.
    pub target: String,
    #[serde(default = "oncpu")]
    pub kind: StackKind,
    #[serde(default = "frequency")]
    pub frequency: u32,
    #[serde(default)]
    pub call_graph: CallGraph,
}

/// How `perf record` walks a profiled stack (`profile.call_graph`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CallGraph {
    /// Frame pointers (`-g`): cheap; frames built without them are cut short.
    #[default]
    Fp,
    /// DWARF unwinding of a copied stack (`--call-graph dwarf`): whole stacks, larger data.
    Dwarf,
}

impl CallGraph {
    pub const ALL: [CallGraph; 2] = [CallGraph::Fp, CallGraph::Dwarf];

    pub fn as_str(self) -> &'static str {
        match self {
            CallGraph::Fp => "fp",
            CallGraph::Dwarf => "dwarf",
        }
    }
}

crate::model::stored_words!(CallGraph, "`profile.call_graph`");

/// `[counters]`: the measured command runs under `perf stat`, counting these events in user
/// space (`instructions:u`, …); each counted event is a metric of the trial, named as the
/// `perf-stat` ingest format names it (`instructions_u`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counters {
    /// perf event names without a modifier (`:u` is added).
    #[serde(default = "counter_events")]
    pub events: Vec<String>,
}

/// `[valgrind]`: the measured command runs under valgrind's cachegrind or callgrind with its
/// cache simulation on; instructions, cache hits and estimated cycles become metrics.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Valgrind {
    #[serde(default = "cachegrind")]
    pub tool: ValgrindTool,
    /// More valgrind options, after perfhouse's own (a later option wins: `--LL=…` sets
    /// another simulated last-level cache).
    #[serde(default)]
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValgrindTool {
    Cachegrind,
    Callgrind,
}

impl ValgrindTool {
    pub fn as_str(self) -> &'static str {
        match self {
            ValgrindTool::Cachegrind => "cachegrind",
            ValgrindTool::Callgrind => "callgrind",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Collect {
    /// An ingest format (`aiperf`, `hyperfine`, `metrics-json`, `folded`, …) or `auto`, by
    /// the registry's name.
    #[serde(default = "auto", deserialize_with = "ingest_format")]
    pub format: crate::ingest::Format,
    /// Glob, relative to the trial's directory (`$PERFHOUSE_TRIAL_DIR`) or absolute.
    pub path: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Stdout,
    Stderr,
    File,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricRule {
    pub name: String,
    /// First capture group (or the whole match) of the last matching line.
    #[serde(default)]
    pub regex: Option<String>,
    /// JSON pointer (`/results/0/mean`) into the source parsed as JSON.
    #[serde(default)]
    pub json: Option<String>,
    #[serde(default = "stdout")]
    pub from: Source,
    /// With `from = "file"`: the file, relative to the trial's directory.
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub unit: String,
    /// `lower` or `higher` (the stored words of [`Better`]).
    #[serde(default = "lower")]
    pub better: Better,
    /// Multiply the extracted number (unit conversion at the boundary).
    #[serde(default = "unit_scale")]
    pub scale: f64,
    /// `regex`/`json`, validated into one (filled by [`Plan::parse`]).
    #[serde(skip)]
    pub extract: Extract,
    /// `from`/`file`, validated into one (filled by [`Plan::parse`]).
    #[serde(skip)]
    pub source: MetricSource,
}

/// How a metric's number is found in its source.
#[derive(Debug, Clone)]
pub enum Extract {
    /// The first capture group (or the whole match) of the last matching line.
    Regex(regex::Regex),
    /// A JSON pointer into the source parsed as JSON.
    Json(String),
}

impl Default for Extract {
    fn default() -> Extract {
        Extract::Json(String::new())
    }
}

/// Where a metric is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum MetricSource {
    #[default]
    Stdout,
    Stderr,
    /// A file relative to the trial's directory.
    File(String),
}

fn one() -> u32 {
    1
}
fn one_load() -> f64 {
    1.0
}
fn ten_percent() -> String {
    "10%".to_string()
}
fn interleaved() -> Order {
    Order::Interleaved
}
fn ready_timeout() -> Duration {
    Duration::from_secs(60)
}
fn ready_interval() -> Duration {
    Duration::from_millis(200)
}
fn timeout() -> Duration {
    Duration::from_secs(600)
}
fn scrape_interval() -> Duration {
    Duration::from_secs(1)
}
fn sample_interval() -> Duration {
    Duration::from_millis(100)
}
fn oncpu() -> StackKind {
    StackKind::Oncpu
}
fn frequency() -> u32 {
    99
}
fn auto() -> crate::ingest::Format {
    crate::ingest::Format::AUTO
}

/// A `collect.format` by the ingest registry's name (`Format::from_name`), read once here.
fn ingest_format<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<crate::ingest::Format, D::Error> {
    let name = String::deserialize(d)?;
    crate::ingest::Format::from_name(&name).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "`collect.format` `{name}` is not an ingest format (`perfhouse ingest --help` lists them)"
        ))
    })
}
fn counter_events() -> Vec<String> {
    super::counters::DEFAULT_EVENTS
        .iter()
        .map(|e| e.to_string())
        .collect()
}
fn cachegrind() -> ValgrindTool {
    ValgrindTool::Cachegrind
}
fn stdout() -> Source {
    Source::Stdout
}
fn lower() -> Better {
    Better::Lower
}
fn unit_scale() -> f64 {
    1.0
}

/// `100ms`, `30s`, `15m`, `2h`, `1.5s`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("`{s}`: expected a duration like 100ms, 30s, 15m, 2h"))?;
    let secs = match unit.trim() {
        "ms" => n / 1e3,
        "s" | "" => n,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        "us" | "µs" => n / 1e6,
        other => return Err(format!("`{s}`: unknown unit `{other}` (ms, s, m, h)")),
    };
    Duration::try_from_secs_f64(secs)
        .map_err(|_| format!("`{s}`: not a duration this machine can wait"))
}

mod duration {
    use serde::{Deserialize, Deserializer};
    use std::time::Duration;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let s = String::deserialize(d)?;
        super::parse_duration(&s).map_err(serde::de::Error::custom)
    }
}

mod opt_duration {
    use serde::{Deserialize, Deserializer};
    use std::time::Duration;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let s = String::deserialize(d)?;
        super::parse_duration(&s)
            .map(Some)
            .map_err(serde::de::Error::custom)
    }
}

/// `0-3,8` → [0, 1, 2, 3, 8].
pub fn parse_cores(s: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || format!("`{s}`: expected cores like 0-3,8");
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) =
                    (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
                if a > b {
                    return Err(bad());
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().map_err(|_| bad())?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("{path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// toml's message names the line, the column and the key.
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

impl Plan {
    pub fn load(path: &Path) -> Result<Plan, PlanError> {
        let text = std::fs::read_to_string(path).map_err(|source| PlanError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let mut plan = Plan::parse(&text).map_err(|message| PlanError::Invalid {
            path: path.to_path_buf(),
            message,
        })?;
        plan.dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        Ok(plan)
    }

    /// Replaces the arms by git-revision arms `(name, rev)`, each with the first arm's
    /// environment and args (`run --git-arm`).
    pub fn use_git_arms(&mut self, arms: &[(String, String)]) {
        let first = self.arms().into_iter().next();
        self.arms = arms
            .iter()
            .map(|(name, rev)| Arm {
                name: name.clone(),
                env: first.as_ref().map(|a| a.env.clone()).unwrap_or_default(),
                args: first.as_ref().and_then(|a| a.args.clone()),
                git: Some(rev.clone()),
            })
            .collect();
    }

    /// Parses and validates; the error names the line and key where it can.
    pub fn parse(text: &str) -> Result<Plan, String> {
        let mut plan: Plan =
            toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())?;
        plan.check_top(text)?;
        if let Some(s) = &mut plan.sample {
            s.validate(text)?;
        }
        if let Some(p) = &plan.profile {
            p.validate(text)?;
        }
        for m in &mut plan.metrics {
            m.validate(text)?;
        }
        if let Some(c) = &plan.counters {
            c.validate(plan.valgrind.is_some(), text)?;
        }
        if let Some(c) = plan.capacity.as_mut() {
            validate_capacity(c, &plan.slo, text)?;
        }
        validate_scrapes(&mut plan.scrape, text)?;
        Ok(plan)
    }

    /// The top of the plan: a suite and a command, its SLOs, repeats, arm names and matrix.
    fn check_top(&self, text: &str) -> Result<(), String> {
        let line_of = |needle: &str| line_of(text, needle);
        if self.suite.trim().is_empty() {
            return Err(format!("{}`suite` is empty", line_of("suite")));
        }
        if self.run.command.trim().is_empty() {
            return Err(format!("{}`run.command` is empty", line_of("command")));
        }
        if let Err(e) = crate::query::slo::Slos::parse(self.slo.iter().map(String::as_str)) {
            return Err(format!("{}`slo`: {e}", line_of("slo")));
        }
        if self.run.repeats == 0 {
            return Err(format!(
                "{}`run.repeats` must be at least 1",
                line_of("repeats")
            ));
        }
        let mut names = std::collections::BTreeSet::new();
        for a in &self.arms {
            if a.name.trim().is_empty() || !names.insert(a.name.as_str()) {
                return Err(format!(
                    "{}`arm.name` `{}` is empty or given twice",
                    line_of("name"),
                    a.name
                ));
            }
        }
        for (k, v) in &self.matrix {
            if v.is_empty() {
                return Err(format!("{}`matrix.{k}` has no values", line_of(k)));
            }
            if let Some(bad) = v.iter().find(|x| x.is_array() || x.is_table()) {
                return Err(format!(
                    "{}`matrix.{k}`: `{bad}` is not a scalar",
                    line_of(k)
                ));
            }
        }
        Ok(())
    }

    /// Arms, or one arm `default` when the plan names none.
    pub fn arms(&self) -> Vec<Arm> {
        if self.arms.is_empty() {
            vec![Arm {
                name: "default".to_string(),
                env: BTreeMap::new(),
                args: None,
                git: None,
            }]
        } else {
            self.arms.clone()
        }
    }

    /// Every combination of the matrix, as params (in key order, values as written).
    pub fn param_sets(&self) -> Vec<Params> {
        let mut sets = vec![Params::new()];
        for (k, values) in &self.matrix {
            sets = sets
                .into_iter()
                .flat_map(|p| {
                    values.iter().map(move |v| {
                        let mut p = p.clone();
                        let text = match v {
                            toml::Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        p.insert(k.clone(), text);
                        p
                    })
                })
                .collect();
        }
        sets
    }

    /// The arm × params units of the schedule: params outer, arms inner (each unit runs
    /// every repeat).
    pub fn units(&self) -> Vec<(Arm, Params)> {
        let arms = self.arms();
        self.param_sets()
            .into_iter()
            .flat_map(|p| arms.iter().map(move |a| (a.clone(), p.clone())))
            .collect()
    }

    /// `count` more measured repeats of every arm × params, interleaved, numbered from
    /// `from` (what `--until-decided` adds while a metric is inconclusive).
    pub fn more_repeats(&self, from: u32, count: u32) -> Vec<Planned> {
        passes(&self.units(), from..from + count, false)
    }

    /// The trial schedule in execution order.
    pub fn schedule(&self) -> Vec<Planned> {
        self.schedule_of(&self.units())
    }

    /// The schedule of these arm × params units (in [`Plan::units`]' order) under the plan's
    /// warm-ups, repeats and order: the whole plan's, or one round of `--find-capacity`'s probes.
    pub fn schedule_of(&self, units: &[(Arm, Params)]) -> Vec<Planned> {
        // Warm-ups first, one pass per arm × params (interleaved across arms).
        let mut out = passes(units, 0..self.run.warmup, true);
        let mut measured = Vec::new();
        match self.run.order {
            // A,B,A,B…: each repeat visits every params × arm before the next repeat.
            Order::Interleaved | Order::Shuffled => {
                measured = passes(units, 0..self.run.repeats, false);
            }
            Order::Sequential => {
                // Arm by arm (in the plan's order), each arm's params in order.
                let arms = self.arms();
                let rank = |a: &Arm| arms.iter().position(|x| x.name == a.name);
                let mut by_arm: Vec<&(Arm, Params)> = units.iter().collect();
                by_arm.sort_by_key(|(a, _)| rank(a));
                for (a, p) in by_arm {
                    for r in 0..self.run.repeats {
                        measured.push(Planned {
                            arm: a.clone(),
                            params: p.clone(),
                            repeat: r as i32,
                            warmup: false,
                        });
                    }
                }
            }
        }
        if self.run.order == Order::Shuffled {
            // Fisher-Yates with the plan's seed; repeats are renumbered in execution order so
            // the first run of each arm × params is repeat 0 (the cold start).
            let mut rng = crate::stats::Rng::new(self.run.seed);
            for i in (1..measured.len()).rev() {
                let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                measured.swap(i, j);
            }
            let mut seen: BTreeMap<(String, Params), i32> = BTreeMap::new();
            for m in &mut measured {
                let c = seen
                    .entry((m.arm.name.clone(), m.params.clone()))
                    .or_insert(0);
                m.repeat = *c;
                *c += 1;
            }
        }
        out.extend(measured);
        out
    }
}

/// One pass over every unit (arms interleaved) per repeat number in `repeats`.
/// `line N: ` of the first line of `text` that starts with `needle`, or nothing.
fn line_of(text: &str, needle: &str) -> String {
    text.lines()
        .position(|l| l.trim_start().starts_with(needle))
        .map(|i| format!("line {}: ", i + 1))
        .unwrap_or_default()
}

impl Sample {
    /// Reads `cores` and the process regexes into their parsed forms; a sane interval.
    fn validate(&mut self, text: &str) -> Result<(), String> {
        let line_of = |needle: &str| line_of(text, needle);
        if let Some(c) = &self.cores {
            self.core_set = Some(
                parse_cores(c).map_err(|e| format!("{}`sample.cores`: {e}", line_of("cores")))?,
            );
        }
        for (name, re) in &self.processes {
            let re = regex::Regex::new(re)
                .map_err(|e| format!("{}`sample.processes.{name}`: {e}", line_of(name)))?;
            self.matchers.push((name.clone(), re));
        }
        if self.interval < Duration::from_millis(1) {
            return Err(format!(
                "{}`sample.interval` is below 1ms",
                line_of("interval")
            ));
        }
        Ok(())
    }
}

impl Profile {
    fn validate(&self, text: &str) -> Result<(), String> {
        if self.frequency == 0 {
            return Err(format!(
                "{}`profile.frequency` must be positive",
                line_of(text, "frequency")
            ));
        }
        Ok(())
    }
}

impl MetricRule {
    /// Reads `regex`/`json` into one [`Extract`] and `from`/`file` into one [`MetricSource`].
    fn validate(&mut self, text: &str) -> Result<(), String> {
        let line_of = |needle: &str| line_of(text, needle);
        self.extract = match (&self.regex, &self.json) {
            (Some(r), None) => Extract::Regex(regex::Regex::new(r).map_err(|e| {
                format!("{}`metric.regex` of `{}`: {e}", line_of("regex"), self.name)
            })?),
            (None, Some(p)) if p.is_empty() || p.starts_with('/') => Extract::Json(p.clone()),
            (None, Some(p)) => {
                return Err(format!(
                    "{}`metric.json` of `{}`: `{p}` is not a JSON pointer (starts with `/`)",
                    line_of("json"),
                    self.name
                ));
            }
            _ => {
                return Err(format!(
                    "{}metric `{}` needs exactly one of `regex` and `json`",
                    line_of("name"),
                    self.name
                ));
            }
        };
        self.source = match (self.from, &self.file) {
            (Source::Stdout, _) => MetricSource::Stdout,
            (Source::Stderr, _) => MetricSource::Stderr,
            (Source::File, Some(f)) => MetricSource::File(f.clone()),
            (Source::File, None) => {
                return Err(format!(
                    "{}metric `{}` reads `from = \"file\"` but names no `file`",
                    line_of("from"),
                    self.name
                ));
            }
        };
        Ok(())
    }
}

impl Counters {
    /// Perf event names without a modifier, and never under valgrind (`with_valgrind`).
    fn validate(&self, with_valgrind: bool, text: &str) -> Result<(), String> {
        let line_of = |needle: &str| line_of(text, needle);
        if with_valgrind {
            return Err(format!(
                "{}`[counters]` and `[valgrind]` together: perf would count valgrind's own \
                 work, not the command's; run one plan with each",
                line_of("[counters]")
            ));
        }
        if self.events.is_empty() {
            return Err(format!("{}`counters.events` is empty", line_of("events")));
        }
        let name = |e: &str| {
            e.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && e.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c))
        };
        if let Some(bad) = self.events.iter().find(|e| !name(e)) {
            return Err(format!(
                "{}`counters.events`: `{bad}` is not a perf event name (`instructions`, \
                 `branch-misses`; no modifier: user space `:u` is added)",
                line_of("events")
            ));
        }
        Ok(())
    }
}

fn passes(units: &[(Arm, Params)], repeats: std::ops::Range<u32>, warmup: bool) -> Vec<Planned> {
    let mut out = Vec::new();
    for r in repeats {
        for (a, p) in units {
            out.push(Planned {
                arm: a.clone(),
                params: p.clone(),
                repeat: r as i32,
                warmup,
            });
        }
    }
    out
}

/// The line of `key` inside the `[section]` table, as `line N: ` (empty where not found).
fn line_in_section(text: &str, section: &str, key: &str) -> String {
    let header = format!("[{section}]");
    let mut inside = false;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim_start();
        if t.starts_with('[') {
            inside = t.starts_with(&header);
            if inside && key.is_empty() {
                return format!("line {}: ", i + 1);
            }
        } else if inside
            && !key.is_empty()
            && t.strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with('='))
        {
            return format!("line {}: ", i + 1);
        }
    }
    String::new()
}

/// The line of `key` inside the `n`-th `[[section]]` table (from 0), as `line N: `; of its
/// header where `key` is empty or not found there.
fn line_in_array(text: &str, section: &str, n: usize, key: &str) -> String {
    let header = format!("[[{section}]]");
    let mut seen = 0usize;
    let mut head = None;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim_start();
        if t.starts_with('[') {
            if head.is_some() {
                break;
            }
            if t.starts_with(&header) {
                if seen == n {
                    head = Some(i);
                }
                seen += 1;
            }
        } else if head.is_some()
            && !key.is_empty()
            && t.strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with('='))
        {
            return format!("line {}: ", i + 1);
        }
    }
    head.map(|i| format!("line {}: ", i + 1))
        .unwrap_or_default()
}

/// Checks every `[[scrape]]`: an http URL, a positive interval, a regex `keep`, figures that
/// name a server figure, targets named once.
fn validate_scrapes(scrapes: &mut [Scrape], text: &str) -> Result<(), String> {
    let mut targets = std::collections::BTreeSet::new();
    for (i, s) in scrapes.iter_mut().enumerate() {
        let at = |key: &str| line_in_array(text, "scrape", i, key);
        s.endpoint = Some(
            super::scrape::Endpoint::parse(&s.url)
                .map_err(|e| format!("{}`scrape.url` {e}", at("url")))?,
        );
        if s.interval.is_zero() {
            return Err(format!(
                "{}`scrape.interval` must be more than 0 (like \"1s\")",
                at("interval")
            ));
        }
        if let Some(k) = &s.keep {
            s.keep_re = Some(
                regex::Regex::new(k).map_err(|e| format!("{}`scrape.keep`: {e}", at("keep")))?,
            );
        }
        for f in &s.figures {
            crate::query::figures::ServerFigure::parse(f)
                .map_err(|e| format!("{}`scrape.figures`: {e}", at("figures")))?;
        }
        if let Some(n) = &s.name
            && let Some(p) = crate::model::names::name_problem(n)
        {
            return Err(format!("{}`scrape.name` `{n}` {p}", at("name")));
        }
        let target = s.target();
        if !targets.insert(target.clone()) {
            return Err(format!(
                "{}two `[[scrape]]` are named `{target}`: give one a `name`",
                at("")
            ));
        }
    }
    Ok(())
}

/// Checks `[capacity]` and fills its search and SLOs.
fn validate_capacity(
    c: &mut CapacitySection,
    plan_slo: &[String],
    text: &str,
) -> Result<(), String> {
    let at = |key: &str| line_in_section(text, "capacity", key);
    let loads = crate::query::sweep::LOAD_PARAMS;
    if !loads.contains(&c.load.as_str()) {
        return Err(format!(
            "{}`capacity.load` `{}` is not a load parameter ({})",
            at("load"),
            c.load,
            loads.join(", ")
        ));
    }
    let own = !c.slo.is_empty();
    let slos = if own { c.slo.as_slice() } else { plan_slo };
    c.slos = crate::query::slo::Slos::parse(slos.iter().map(String::as_str))
        .map_err(|e| format!("{}`capacity.slo`: {e}", at("slo")))?;
    if c.slos.is_empty() {
        return Err(format!(
            "{}`[capacity]` needs SLOs to search for: `slo = [\"p99(latency_ms)<=500\"]` in it \
             (or the plan's `slo`)",
            at("")
        ));
    }
    let resolution = super::capacity::Resolution::parse(&c.resolution)
        .map_err(|e| format!("{}`capacity.resolution`: {e}", at("resolution")))?;
    let saturation = match super::capacity::Resolution::parse(&c.saturation) {
        Ok(super::capacity::Resolution::Relative(r)) if r < 1.0 => r,
        _ => {
            return Err(format!(
                "{}`capacity.saturation` `{}`: expected a share below 100% like \"10%\"",
                at("saturation"),
                c.saturation
            ));
        }
    };
    let integer = c.load == "concurrency";
    for (key, v) in [("start", c.start), ("max", c.max)] {
        if !(v.is_finite() && v > 0.0) || (integer && (v.fract() != 0.0 || v < 1.0)) {
            return Err(format!(
                "{}`capacity.{key}` {v}: expected a positive {}",
                at(key),
                if integer {
                    "whole number (a concurrency)"
                } else {
                    "number"
                }
            ));
        }
    }
    if c.max < c.start {
        return Err(format!(
            "{}`capacity.max` {} is below `start` {}",
            at("max"),
            c.max,
            c.start
        ));
    }
    c.search = Some(super::capacity::Search {
        start: c.start,
        max: c.max,
        resolution,
        integer,
        saturation,
    });
    Ok(())
}

/// One trial of the schedule.
#[derive(Debug, Clone)]
pub struct Planned {
    pub arm: Arm,
    pub params: Params,
    pub repeat: i32,
    pub warmup: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = r#"
suite = "s"
[run]
repeats = 2
command = "true"
[[arm]]
name = "A"
[[arm]]
name = "B"
[matrix]
SIZE = [1, 2]
"#;

    fn order(plan: &Plan) -> Vec<String> {
        plan.schedule()
            .iter()
            .map(|t| format!("{}{}{}", t.arm.name, t.params["SIZE"], t.repeat))
            .collect()
    }

    #[test]
    fn schedules_follow_the_order_mode() {
        let mut plan = Plan::parse(PLAN).unwrap();
        assert_eq!(
            order(&plan),
            ["A10", "B10", "A20", "B20", "A11", "B11", "A21", "B21"]
        );
        plan.run.order = Order::Sequential;
        assert_eq!(
            order(&plan),
            ["A10", "A11", "A20", "A21", "B10", "B11", "B20", "B21"]
        );
        plan.run.order = Order::Shuffled;
        plan.run.seed = 7;
        let shuffled = order(&plan);
        let mut sorted = shuffled.clone();
        sorted.sort();
        let mut expected = order(&Plan::parse(PLAN).unwrap());
        expected.sort();
        assert_eq!(sorted, expected, "same trials");
        assert_ne!(
            shuffled,
            order(&Plan::parse(PLAN).unwrap()),
            "but not interleaved"
        );
        // Same seed, same order; repeat 0 is always the first of its arm × params.
        assert_eq!(order(&plan), shuffled);
        for (i, t) in shuffled.iter().enumerate() {
            let earlier = shuffled[..i].iter().filter(|s| s[..2] == t[..2]).count();
            assert_eq!(t[2..].parse::<usize>().unwrap(), earlier);
        }
        plan.run.warmup = 1;
        assert_eq!(plan.schedule().iter().filter(|t| t.warmup).count(), 4);
        assert!(plan.schedule()[..4].iter().all(|t| t.warmup));
    }

    #[test]
    fn counters_and_valgrind_parse_with_defaults_and_refuse_each_other() {
        let base = "suite = \"s\"\n[run]\ncommand = \"x\"\n";
        let p = Plan::parse(&format!("{base}[counters]\n")).unwrap();
        assert_eq!(
            p.counters.unwrap().events,
            ["instructions", "cycles", "branch-misses", "cache-misses"]
        );
        let p = Plan::parse(&format!("{base}[valgrind]\ntool = \"callgrind\"\n")).unwrap();
        assert_eq!(p.valgrind.unwrap().tool, ValgrindTool::Callgrind);
        let e = Plan::parse(&format!("{base}[counters]\n[valgrind]\n")).unwrap_err();
        assert!(e.contains("line 4") && e.contains("together"), "{e}");
        let e = Plan::parse(&format!(
            "{base}[counters]\nevents = [\"instructions:u\"]\n"
        ))
        .unwrap_err();
        assert!(
            e.contains("line 5") && e.contains("`instructions:u`"),
            "{e}"
        );
        let e = Plan::parse(&format!("{base}[valgrind]\ntool = \"massif\"\n")).unwrap_err();
        assert!(e.contains("massif"), "{e}");
    }

    /// `collect.format` and `metric.better` are read into the registry's `Format` and the
    /// model's `Better` as the plan is parsed; a word neither knows fails the parse at its line.
    #[test]
    fn format_and_better_are_read_into_their_types() {
        let base = "suite = \"s\"\n[run]\ncommand = \"x\"\n";
        let p = Plan::parse(&format!(
            "{base}[[collect]]\npath = \"a\"\n[[collect]]\nformat = \"HyperFine\"\npath = \"b\"\n\
             [[metric]]\nname = \"m\"\nregex = \"x\"\n[[metric]]\nname = \"n\"\nregex = \"y\"\nbetter = \"higher\"\n"
        ))
        .unwrap();
        let formats: Vec<&str> = p.collect.iter().map(|c| c.format.name()).collect();
        assert_eq!(formats, ["auto", "hyperfine"]);
        let better: Vec<Better> = p.metrics.iter().map(|m| m.better).collect();
        assert_eq!(better, [Better::Lower, Better::Higher]);
        let e = Plan::parse(&format!(
            "{base}[[collect]]\nformat = \"nope\"\npath = \"a\"\n"
        ))
        .unwrap_err();
        assert!(
            e.contains("line 5") && e.contains("`collect.format` `nope` is not an ingest format"),
            "{e}"
        );
        let e = Plan::parse(&format!(
            "{base}[[metric]]\nname = \"m\"\nregex = \"x\"\nbetter = \"up\"\n"
        ))
        .unwrap_err();
        assert!(
            e.contains("line 7") && e.contains("`better` \"up\" is not one of higher, lower"),
            "{e}"
        );
    }

    /// `profile.call_graph` is read into `CallGraph` at its line: `fp` unless said.
    #[test]
    fn call_graph_is_read_into_its_type_at_its_line() {
        let base = "suite = \"s\"\n[run]\ncommand = \"x\"\n[profile]\ntarget = \"t\"\n";
        let graph = |extra: &str| {
            Plan::parse(&format!("{base}{extra}")).map(|p| p.profile.unwrap().call_graph)
        };
        assert_eq!(graph(""), Ok(CallGraph::Fp));
        assert_eq!(graph("call_graph = \"dwarf\"\n"), Ok(CallGraph::Dwarf));
        let e = graph("call_graph = \"lbr\"\n").unwrap_err();
        assert!(
            e.contains("line 6")
                && e.contains("`profile.call_graph` \"lbr\" is not one of fp, dwarf"),
            "{e}"
        );
    }

    #[test]
    fn errors_name_the_line_and_key() {
        let e = Plan::parse("suite = \"s\"\n[run]\ncommand = \"x\"\nrepeat = 3\n").unwrap_err();
        assert!(
            e.contains("line 4") && e.contains("unknown field `repeat`"),
            "{e}"
        );
        let e = Plan::parse("suite = \"s\"\n[run]\ncommand = \"x\"\ntimeout = \"5 parsecs\"\n")
            .unwrap_err();
        assert!(e.contains("line 4") && e.contains("parsecs"), "{e}");
        let e = Plan::parse(
            "suite = \"s\"\n[run]\ncommand = \"x\"\n[[metric]]\nname = \"m\"\nregex = \"(\"\n",
        )
        .unwrap_err();
        assert!(e.contains("line 6") && e.contains("metric.regex"), "{e}");
        let e = Plan::parse("suite = \"s\"\n[run]\ncommand = \"x\"\n[sample]\ncores = \"3-1\"\n")
            .unwrap_err();
        assert!(e.contains("line 5") && e.contains("sample.cores"), "{e}");
        let e = Plan::parse("suite = \"s\"\nslo = [\"ttft<=1\"]\n[run]\ncommand = \"x\"\n")
            .unwrap_err();
        assert!(
            e.contains("line 2") && e.contains("expected METRIC<=MS"),
            "{e}"
        );
        // `[capacity]`: each mistake names its line inside the section.
        let cap = |body: &str| {
            Plan::parse(&format!(
                "suite = \"s\"\nslo = [\"p99(ttft_ms)<=9\"]\n[run]\ncommand = \"x\"\n[capacity]\n{body}"
            ))
        };
        for (body, line, needle) in [
            ("load = \"users\"\nmax = 8\n", 6, "`capacity.load` `users`"),
            ("load = \"concurrency\"\nmax = 8.5\n", 7, "whole number"),
            (
                "load = \"concurrency\"\nstart = 16\nmax = 8\n",
                8,
                "below `start` 16",
            ),
            (
                "load = \"rate\"\nmax = 8\nresolution = \"0%\"\n",
                8,
                "capacity.resolution",
            ),
            (
                "load = \"rate\"\nmax = 8\nsaturation = \"2\"\n",
                8,
                "capacity.saturation",
            ),
            (
                "load = \"rate\"\nmax = 8\nslo = [\"p95(ttft_ms)<=1\"]\n",
                8,
                "capacity.slo",
            ),
        ] {
            let e = cap(body).unwrap_err();
            assert!(
                e.contains(&format!("line {line}: ")) && e.contains(needle),
                "{e}"
            );
        }
        let e = Plan::parse(
            "suite = \"s\"\n[run]\ncommand = \"x\"\n[capacity]\nload = \"concurrency\"\nmax = 8\n",
        )
        .unwrap_err();
        assert!(e.contains("line 4: `[capacity]` needs SLOs"), "{e}");
        // The plan's SLOs where the section names none; defaults for the rest.
        let p = cap("load = \"concurrency\"\nmax = 64\n").unwrap();
        let c = p.capacity.unwrap();
        assert_eq!(c.slos.to_string(), "p99(ttft_ms)<=9");
        assert_eq!(
            c.search,
            Some(crate::runner::capacity::Search {
                start: 1.0,
                max: 64.0,
                resolution: crate::runner::capacity::Resolution::Relative(0.1),
                integer: true,
                saturation: 0.1,
            })
        );
        // `[[scrape]]`: each mistake names its line inside its own table.
        let scrape = |body: &str| {
            Plan::parse(&format!(
                "suite = \"s\"\n[run]\ncommand = \"x\"\n[[scrape]]\nurl = \"http://h:1/m\"\n[[scrape]]\n{body}"
            ))
        };
        for (body, line, needle) in [
            (
                "url = \"https://h/m\"\n",
                7,
                "`scrape.url` `https://h/m`: expected an http:// URL",
            ),
            (
                "url = \"http://h:2/m\"\ninterval = \"0s\"\n",
                8,
                "`scrape.interval` must be more",
            ),
            ("url = \"http://h:2/m\"\nkeep = \"(\"\n", 8, "`scrape.keep`"),
            (
                "url = \"http://h:2/m\"\nfigures = [\"server.x.p95\"]\n",
                8,
                "`scrape.figures`: `server.x.p95`: expected server.<metric>.<stat>",
            ),
            (
                "url = \"http://h:1/other\"\n",
                6,
                "two `[[scrape]]` are named `h:1`",
            ),
            (
                "url = \"http://h:2/m\"\nevery = \"1s\"\n",
                8,
                "unknown field `every`",
            ),
        ] {
            let e = scrape(body).unwrap_err();
            assert!(
                e.contains(&format!("line {line}")) && e.contains(needle),
                "{body}: {e}"
            );
        }
        let p = scrape("name = \"b\"\nurl = \"http://h:1/m\"\ntimeout = \"3s\"\n").unwrap();
        assert_eq!(
            p.scrape.iter().map(|s| s.target()).collect::<Vec<_>>(),
            ["h:1", "b"]
        );
        assert_eq!(p.scrape[0].interval, Duration::from_secs(1));
        assert_eq!(p.scrape[0].timeout(), Duration::from_secs(1));
        assert_eq!(p.scrape[1].timeout(), Duration::from_secs(3));
        assert_eq!(parse_duration("100ms").unwrap(), Duration::from_millis(100));
        assert_eq!(parse_duration("15m").unwrap(), Duration::from_secs(900));
        assert_eq!(parse_cores("0-2,5").unwrap(), vec![0, 1, 2, 5]);
    }
}
