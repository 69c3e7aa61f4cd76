//! Plain data types of the pipeline. Units are normalised at the ingest edge: durations in
//! nanoseconds, times as Unix nanoseconds or UTC microseconds (named so), sizes in bytes.
//! Nothing here does I/O.

use std::collections::BTreeMap;

/// Parameters of a trial (`concurrency=8`, `payload=64`). A `BTreeMap` so the JSON form has
/// sorted keys and equal parameter sets compare equal as strings in SQL.
pub type Params = BTreeMap<String, String>;

/// The text forms of a state enum, from its `ALL` and `as_str` alone (one place for its
/// words): `Display`, `FromStr` whose error names the bad word and the good ones, and serde as
/// the same word. Tables store `as_str`, so rows read back through `Deserialize` and a word
/// that is none of them fails the read naming it.
macro_rules! stored_words {
    ($ty:ident, $what:literal) => {
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = String;

            fn from_str(s: &str) -> Result<$ty, String> {
                $ty::ALL
                    .into_iter()
                    .find(|v| v.as_str() == s)
                    .ok_or_else(|| {
                        let words: Vec<&str> = $ty::ALL.iter().map(|v| v.as_str()).collect();
                        format!(
                            concat!($what, " {:?} is not one of {}"),
                            s,
                            words.join(", ")
                        )
                    })
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                let word: String = serde::Deserialize::deserialize(d)?;
                word.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use stored_words;

/// Where a trial's results count: warmup trials and requests never enter medians.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Warmup,
    Measured,
}

impl Phase {
    pub const ALL: [Phase; 2] = [Phase::Warmup, Phase::Measured];

    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Warmup => "warmup",
            Phase::Measured => "measured",
        }
    }
}

/// Whether a bigger number is better (throughput) or worse (latency): a metric's stored
/// direction (`metrics.better`). Comparisons judge by `stats::verdict::Direction`, its superset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
}

impl Better {
    pub const ALL: [Better; 2] = [Better::Higher, Better::Lower];

    /// The stored form read back (`higher`; anything else is lower-is-better, as stored
    /// metrics are always one of the two).
    pub fn from_name(name: &str) -> Better {
        name.parse().unwrap_or(Better::Lower)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Better::Higher => "higher",
            Better::Lower => "lower",
        }
    }
}

/// How a trial ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrialStatus {
    Ok,
    /// A command exited non-zero, or the tool's output says the trial failed.
    Failed,
    /// The command ran past the plan's `timeout`.
    Timeout,
    /// SIGINT/SIGTERM stopped it.
    Interrupted,
}

impl TrialStatus {
    pub const ALL: [TrialStatus; 4] = [
        TrialStatus::Ok,
        TrialStatus::Failed,
        TrialStatus::Timeout,
        TrialStatus::Interrupted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TrialStatus::Ok => "ok",
            TrialStatus::Failed => "failed",
            TrialStatus::Timeout => "timeout",
            TrialStatus::Interrupted => "interrupted",
        }
    }
}

/// How a run ended, from its trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    Ok,
    /// Every trial failed.
    Failed,
    /// Some trials failed (or some results were missing).
    Partial,
    /// SIGINT/SIGTERM stopped it; what ran landed.
    Interrupted,
}

impl RunStatus {
    pub const ALL: [RunStatus; 4] = [
        RunStatus::Ok,
        RunStatus::Failed,
        RunStatus::Partial,
        RunStatus::Interrupted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Ok => "ok",
            RunStatus::Failed => "failed",
            RunStatus::Partial => "partial",
            RunStatus::Interrupted => "interrupted",
        }
    }

    /// The one rule: `ok` when every trial is, `failed` when none is (or none ran),
    /// `partial` in between.
    pub fn of(trials: &[Trial]) -> RunStatus {
        let ok = trials
            .iter()
            .filter(|t| t.status == TrialStatus::Ok)
            .count();
        if ok == trials.len() && ok > 0 {
            RunStatus::Ok
        } else if ok == 0 {
            RunStatus::Failed
        } else {
            RunStatus::Partial
        }
    }
}

/// What a stack's weight measures; `ingest --stack-kind` takes its words (clap's value enum).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum StackKind {
    /// Weight in samples of a thread on CPU.
    Oncpu,
    /// Weight in µs a thread spent off CPU (blocked).
    Offcpu,
}

impl StackKind {
    pub const ALL: [StackKind; 2] = [StackKind::Oncpu, StackKind::Offcpu];

    pub fn as_str(self) -> &'static str {
        match self {
            StackKind::Oncpu => "oncpu",
            StackKind::Offcpu => "offcpu",
        }
    }
}

/// An alert's triage state (the newest event of the alert in the `alerts` table; none: `New`),
/// as Perfherder and LNT keep them. The table stores [`TriageState::as_str`], so a warehouse
/// written before this type reads back unchanged; a stored word that is none of these is an
/// error naming it, not a silent `New`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum TriageState {
    /// Detected, nobody has looked.
    New,
    /// Someone is on it (still open).
    Acknowledged,
    /// Noise or a broken run, not a change.
    Invalid,
    /// A later change undid it.
    Fixed,
    /// The new level is the new baseline: the series starts a new segment at the alert's run.
    Accepted,
}

impl TriageState {
    pub const ALL: [TriageState; 5] = [
        TriageState::New,
        TriageState::Acknowledged,
        TriageState::Invalid,
        TriageState::Fixed,
        TriageState::Accepted,
    ];

    /// The stored and printed word.
    pub fn as_str(self) -> &'static str {
        match self {
            TriageState::New => "new",
            TriageState::Acknowledged => "acknowledged",
            TriageState::Invalid => "invalid",
            TriageState::Fixed => "fixed",
            TriageState::Accepted => "accepted",
        }
    }

    /// Still wants a look: `new` or `acknowledged`.
    pub fn is_open(self) -> bool {
        matches!(self, TriageState::New | TriageState::Acknowledged)
    }
}

stored_words!(Phase, "trial phase");
stored_words!(TrialStatus, "trial status");
stored_words!(RunStatus, "run status");
stored_words!(StackKind, "stack kind");
stored_words!(TriageState, "triage state");
stored_words!(Better, "`better`");

/// One `perfhouse run` or one ingest batch.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub run_id: String,
    pub suite: String,
    pub started_at_us: i64,
    pub finished_at_us: i64,
    pub ingested_at_us: i64,
    /// `runner` or `ingest:<format>`.
    pub source: String,
    pub git_commit: Option<String>,
    pub git_branch: Option<String>,
    pub git_dirty: Option<bool>,
    pub host: Option<String>,
    pub env_fingerprint: Option<String>,
    /// JSON object.
    pub env: String,
    pub labels: BTreeMap<String, String>,
    pub input_digest: String,
    pub status: RunStatus,
}

impl Run {
    /// A run of `suite` from `source` at `at_us` (started, finished and ingested then) whose
    /// input hashed to `input_digest`, knowing nothing else: no git facts, no host, env `{}`,
    /// no labels, status ok. Callers set what they know with struct update syntax.
    pub fn new(
        run_id: impl Into<String>,
        suite: impl Into<String>,
        source: impl Into<String>,
        at_us: i64,
        input_digest: impl Into<String>,
    ) -> Run {
        Run {
            run_id: run_id.into(),
            suite: suite.into(),
            started_at_us: at_us,
            finished_at_us: at_us,
            ingested_at_us: at_us,
            source: source.into(),
            git_commit: None,
            git_branch: None,
            git_dirty: None,
            host: None,
            env_fingerprint: None,
            env: "{}".into(),
            labels: BTreeMap::new(),
            input_digest: input_digest.into(),
            status: RunStatus::Ok,
        }
    }
}

/// The closed-loop concurrency a trial's `concurrency` parameter (any case) gives, if numeric.
pub fn concurrency_param(params: &Params) -> Option<i64> {
    params
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("concurrency"))
        .and_then(|(_, v)| v.parse().ok())
}

/// One execution of one arm with one parameter set.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    pub trial_id: i32,
    pub arm: String,
    pub params: Params,
    pub repeat: i32,
    /// Execution order within the run, from 0.
    pub seq: i32,
    pub phase: Phase,
    pub discarded: bool,
    pub discard_reason: Option<String>,
    /// Closed-loop concurrency when known (from the `concurrency` parameter); used by Little's law.
    pub concurrency: Option<i64>,
    pub exit_code: Option<i32>,
    pub status: TrialStatus,
    pub stderr_tail: Option<String>,
    /// How the runner made sure no process of the trial outlived it: `cgroup` (a cgroup v2
    /// per trial, ended with `cgroup.kill`) or `marker-sweep` (process group + a `/proc` sweep
    /// for the trial's environment marker). `None` for ingested trials.
    pub containment: Option<String>,
    pub started_at_us: Option<i64>,
    pub finished_at_us: Option<i64>,
    pub wall_ns: Option<i64>,
    /// What the kernel counted for the measured command (runner trials; `None` for ingested
    /// ones and for trials stored before it was recorded).
    pub usage: Option<Usage>,
}

/// The kernel's accounting of a trial's measured command, recorded on every runner trial:
/// `wait4`'s resource usage of the command (`bash -c …`) with every descendant it waited for
/// (what `/usr/bin/time` reports), and the trial cgroup's `memory.peak` where there is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// `ru_maxrss` × 1024: the largest resident set any one process of the command's tree
    /// reached (`/usr/bin/time -f %M`, in bytes), not their sum.
    pub peak_rss_bytes: i64,
    /// The trial cgroup's `memory.peak` when the command ended: every process of the trial
    /// together (setup's servers too, since the trial began), page cache included; `None`
    /// where the trial has no cgroup with the memory controller (cgroup v1 memory, as here,
    /// or Linux < 5.19).
    pub cgroup_memory_peak_bytes: Option<i64>,
    pub user_cpu_ns: i64,
    pub system_cpu_ns: i64,
    /// Context switches: voluntary (the command waited: I/O, a lock, sleep) and involuntary
    /// (the scheduler took the CPU away: contention).
    pub voluntary_ctx_switches: i64,
    pub involuntary_ctx_switches: i64,
    /// Page faults that needed I/O (major) and those served from memory (minor).
    pub major_faults: i64,
    pub minor_faults: i64,
}

impl Trial {
    /// A successful measured trial executed `seq = trial_id`-th, with nothing else known yet.
    pub fn measured(trial_id: i32, arm: &str, params: Params, repeat: i32) -> Trial {
        Trial {
            trial_id,
            arm: arm.to_string(),
            params,
            repeat,
            seq: trial_id,
            phase: Phase::Measured,
            discarded: false,
            discard_reason: None,
            concurrency: None,
            exit_code: None,
            status: TrialStatus::Ok,
            stderr_tail: None,
            containment: None,
            started_at_us: None,
            finished_at_us: None,
            wall_ns: None,
            usage: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    pub trial_id: i32,
    pub name: String,
    pub value: f64,
    pub unit: String,
    pub better: Better,
    /// Which adapter or extractor produced it.
    pub origin: String,
    /// The version of the benchmark's own code where the tool records one (asv's `version`):
    /// where it changes, a series starts a new segment and no change is called across it.
    pub version: Option<String>,
}

/// One request of a load test (an aiperf record).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Request {
    pub trial_id: i32,
    pub phase: Option<Phase>,
    pub credit_ns: Option<i64>,
    pub start_ns: i64,
    pub end_ns: Option<i64>,
    pub ttft_ns: Option<i64>,
    /// Mean inter-token latency of this request.
    pub itl_ns: Option<i64>,
    pub latency_ns: Option<i64>,
    pub input_tokens: Option<i64>,
    pub output_tokens: Option<i64>,
    pub error_code: Option<i32>,
    pub error_type: Option<String>,
    pub cancelled: bool,
    pub worker_id: Option<String>,
}

/// Cumulative CPU ticks (USER_HZ) of one scope at one instant.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuSample {
    pub trial_id: i32,
    pub t_ns: i64,
    /// `cpu` (aggregate), `cpu3`, or `proc:<name>:<pid>`.
    pub scope: String,
    pub user_ticks: i64,
    pub system_ticks: i64,
    pub idle_ticks: i64,
    pub total_ticks: i64,
}

/// One sample of a server's Prometheus metrics (`[[scrape]]`), taken during a trial: the value
/// of one series at one scrape.
#[derive(Debug, Clone, PartialEq)]
pub struct ScrapeSample {
    pub trial_id: i32,
    /// Unix ns midway between sending the scrape and reading its last byte (every sample of
    /// one scrape has the same time).
    pub t_ns: i64,
    /// The scrape's name (`[[scrape]] name`, else the URL's host:port).
    pub target: String,
    /// The metric family (`# TYPE` name): `x` for `x_bucket`, `x_sum` and `x_count`.
    pub family: String,
    /// `counter`, `gauge`, `histogram`, `summary` or `untyped` (the family's `# TYPE`).
    pub kind: String,
    /// The sample's own name (`x_bucket`, `requests_total`).
    pub name: String,
    /// The labels but `le`, as a JSON object with sorted keys (`{}` without labels).
    pub labels: String,
    /// A histogram bucket's upper bound (`le`; `+Inf` is infinity), else `None`.
    pub le: Option<f64>,
    pub value: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stack {
    pub trial_id: i32,
    pub target: String,
    pub kind: StackKind,
    pub stack: String,
    pub weight: f64,
}

/// A raw input file kept verbatim under `artifacts/blobs/`.
#[derive(Debug, Clone, PartialEq)]
pub struct Artifact {
    pub trial_id: Option<i32>,
    pub name: String,
    pub sha256: String,
    pub bytes: i64,
    /// Relative to the warehouse root.
    pub stored_path: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    pub run_id: String,
    pub at_us: i64,
    pub text: String,
}

/// One triage event of an alert (the newest event of an alert is its state): written by
/// `Warehouse::record_alert`, read back by `query::alerts`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct AlertEvent {
    pub alert_id: String,
    pub suite: String,
    pub run_id: String,
    pub metric: String,
    pub arm: String,
    #[serde(with = "params_as_json")]
    pub params: Params,
    pub git_commit: Option<String>,
    pub magnitude: f64,
    pub regression: bool,
    pub state: TriageState,
    pub note: String,
    pub at_us: i64,
}

/// Everything one run adds to the warehouse.
#[derive(Debug, Clone, Default)]
pub struct RunData {
    pub trials: Vec<Trial>,
    pub metrics: Vec<Metric>,
    pub requests: Vec<Request>,
    pub cpu_samples: Vec<CpuSample>,
    pub scrape_samples: Vec<ScrapeSample>,
    pub stacks: Vec<Stack>,
    pub artifacts: Vec<Artifact>,
    pub notes: Vec<String>,
}

/// Params as a JSON object with sorted keys (the form stored in `trials.params`).
pub fn params_json(params: &Params) -> String {
    serde_json::to_string(params).expect("a map of strings always serialises")
}

/// Orders parameter sets as people read them: numbers by value (8 before 32), text by text.
pub fn cmp_params(a: &Params, b: &Params) -> std::cmp::Ordering {
    for ((ka, va), (kb, vb)) in a.iter().zip(b.iter()) {
        let ord = ka
            .cmp(kb)
            .then_with(|| match (va.parse::<f64>(), vb.parse::<f64>()) {
                (Ok(x), Ok(y)) => x.total_cmp(&y),
                _ => va.cmp(vb),
            });
        if ord.is_ne() {
            return ord;
        }
    }
    a.len().cmp(&b.len())
}

/// A relative change in percent with its sign, one decimal: `+6.6%`, `-5.2%`; a change that
/// rounds to nothing is `0.0%` (never `-0.0%` or `+0.0%`). `d` is the fraction (0.066 for
/// +6.6 %). Every page, report, table and message writes a change with it
/// (`present::signed_pct`); it lives here so the statistics' own reasons can too.
pub fn signed_pct(d: f64) -> String {
    if !d.is_finite() {
        return "—".into();
    }
    let r = (d * 1000.0).round() / 10.0;
    if r == 0.0 {
        "0.0%".into()
    } else {
        format!("{r:+.1}%")
    }
}

/// `{"concurrency":"8","isl":"200"}` → `concurrency=8 isl=200` (`—` when empty): the one way
/// every page, table and message writes a parameter set.
pub fn params_text(params: &Params) -> String {
    if params.is_empty() {
        return "—".to_string();
    }
    params
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A parameter set as stored (`trials.params`, JSON with sorted keys), read once where it
/// leaves the warehouse; everything downstream works on the map. Text that is not such an
/// object (a file edited by another tool) reads as one parameter `params` holding it.
pub fn parse_params(json: &str) -> Params {
    // Most series have none: skip the parser for the empty object (the same answer).
    if json == "{}" {
        return Params::new();
    }
    serde_json::from_str(json).unwrap_or_else(|_| {
        if json.trim().is_empty() {
            Params::new()
        } else {
            Params::from([("params".to_string(), json.to_string())])
        }
    })
}

/// serde glue: a `Params` that travels as its stored JSON text (SQL rows, `compare --format
/// json`), typed in between.
pub mod params_as_json {
    use super::{Params, params_json, parse_params};

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Params, D::Error> {
        let text: String = serde::Deserialize::deserialize(d)?;
        Ok(parse_params(&text))
    }

    pub fn serialize<S: serde::Serializer>(p: &Params, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&params_json(p))
    }
}

/// The first 10 characters of a commit id (characters, not bytes: a `--commit` is user input).
pub fn short_commit(commit: &str) -> &str {
    match commit.char_indices().nth(10) {
        Some((i, _)) => &commit[..i],
        None => commit,
    }
}

pub fn now_us() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

/// Bounds on what a run stores as names and short values, checked once where a run is written
/// ([`crate::warehouse::Warehouse::append_runs`]) and, naming the file, where it is ingested:
/// a 50 MB arm name took a gigabyte to ingest and wrote 382 MB of site.
pub mod names {
    use super::{Run, RunData};

    /// Suite, arm, metric, unit, and parameter and label keys.
    pub const NAME_MAX: usize = 256;
    /// Parameter and label values (a commit URL template, an SLO list).
    pub const VALUE_MAX: usize = 4096;

    /// Why `s` cannot be a name (`None` where it can): empty, longer than [`NAME_MAX`] bytes,
    /// `.` or `..`, or holding a control character (a newline would break every table a
    /// user reads it in).
    pub fn name_problem(s: &str) -> Option<String> {
        if s.is_empty() {
            return Some("is empty".to_string());
        }
        if s == "." || s == ".." {
            return Some(format!("is `{s}`, which names a directory, not a thing"));
        }
        bounded(s, NAME_MAX)
    }

    /// Why `s` cannot be a parameter or label value: longer than [`VALUE_MAX`] bytes or
    /// holding a control character other than a tab.
    pub fn value_problem(s: &str) -> Option<String> {
        bounded(s, VALUE_MAX)
    }

    fn bounded(s: &str, max: usize) -> Option<String> {
        if s.len() > max {
            return Some(format!(
                "is {} bytes long, more than the {max} allowed",
                s.len()
            ));
        }
        s.chars()
            .find(|c| c.is_control() && *c != '\t')
            .map(|c| format!("holds the control character {c:?}"))
    }

    /// The first name or value of `run` and `data` past its bound, phrased with its field.
    pub fn run_problem(run: &Run, data: &RunData) -> Option<String> {
        let name = |field: String, s: &str| name_problem(s).map(|p| format!("{field} {p}"));
        let value = |field: String, s: &str| value_problem(s).map(|p| format!("{field} {p}"));
        name("suite name".into(), &run.suite)
            .or_else(|| {
                run.labels.iter().find_map(|(k, v)| {
                    name("a label name".into(), k)
                        .or_else(|| value(format!("label `{}`", short(k)), v))
                })
            })
            .or_else(|| {
                data.trials.iter().find_map(|t| {
                    name(format!("the arm of trial {}", t.trial_id), &t.arm).or_else(|| {
                        t.params.iter().find_map(|(k, v)| {
                            name(format!("a parameter name of trial {}", t.trial_id), k).or_else(
                                || {
                                    value(
                                        format!("parameter `{}` of trial {}", short(k), t.trial_id),
                                        v,
                                    )
                                },
                            )
                        })
                    })
                })
            })
            .or_else(|| {
                data.metrics.iter().find_map(|m| {
                    name(format!("a metric name of trial {}", m.trial_id), &m.name).or_else(|| {
                        (!m.unit.is_empty())
                            .then(|| {
                                name(format!("the unit of metric `{}`", short(&m.name)), &m.unit)
                            })
                            .flatten()
                    })
                })
            })
    }

    /// The first 40 characters of `s` (for naming a field whose name is itself too long).
    pub fn short(s: &str) -> String {
        match s.char_indices().nth(40) {
            Some((i, _)) => format!("{}…", &s[..i]),
            None => s.to_string(),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn names_are_bounded_and_printable() {
            assert_eq!(name_problem("fastokens"), None);
            assert_eq!(name_problem(&"a".repeat(NAME_MAX)), None);
            assert_eq!(
                name_problem(&"a".repeat(NAME_MAX + 1)).unwrap(),
                "is 257 bytes long, more than the 256 allowed"
            );
            assert_eq!(name_problem("").unwrap(), "is empty");
            assert!(name_problem("..").unwrap().contains("directory"));
            assert_eq!(
                name_problem("a\nb").unwrap(),
                "holds the control character '\\n'"
            );
            assert_eq!(value_problem(""), None);
            assert_eq!(value_problem("a\tb"), None);
            assert!(value_problem(&"v".repeat(VALUE_MAX + 1)).is_some());
        }

        #[test]
        fn a_run_names_its_first_bad_field() {
            let mut data = RunData::default();
            data.trials.push(super::super::Trial::measured(
                3,
                &"x".repeat(1 << 20),
                Default::default(),
                0,
            ));
            let run = Run::new("r", "s", "test", 0, "");
            assert_eq!(
                run_problem(&run, &data).unwrap(),
                "the arm of trial 3 is 1048576 bytes long, more than the 256 allowed"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every state's word parses back to it, through `FromStr`, serde and clap alike; the
    /// words are the five the `alerts` table has always stored.
    #[test]
    fn triage_states_round_trip_through_their_words() {
        let words: Vec<&str> = TriageState::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(
            words,
            ["new", "acknowledged", "invalid", "fixed", "accepted"]
        );
        for s in TriageState::ALL {
            assert_eq!(s.as_str().parse::<TriageState>(), Ok(s));
            assert_eq!(s.to_string(), s.as_str());
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.as_str()));
            assert_eq!(serde_json::from_str::<TriageState>(&json).unwrap(), s);
            assert_eq!(
                <TriageState as clap::ValueEnum>::from_str(s.as_str(), false),
                Ok(s)
            );
        }
        // `ingest --stack-kind` takes the stored words.
        for k in StackKind::ALL {
            assert_eq!(
                <StackKind as clap::ValueEnum>::from_str(k.as_str(), false),
                Ok(k)
            );
        }
        let open: Vec<TriageState> = TriageState::ALL
            .into_iter()
            .filter(|s| s.is_open())
            .collect();
        assert_eq!(open, [TriageState::New, TriageState::Acknowledged]);
        assert_eq!(
            "Accepted".parse::<TriageState>(),
            Err("triage state \"Accepted\" is not one of new, acknowledged, invalid, fixed, accepted".into())
        );
    }

    /// The other stored enums read back the same way: each word parses to its variant, and a
    /// word the table never held is an error naming it and the words it may be.
    #[test]
    fn stored_enums_read_back_their_words_and_name_a_bad_one() {
        fn round_trip<T>(all: &[T])
        where
            T: Copy + PartialEq + std::fmt::Debug + std::fmt::Display,
            T: std::str::FromStr<Err = String> + serde::de::DeserializeOwned,
        {
            for &v in all {
                let word = v.to_string();
                assert_eq!(word.parse::<T>(), Ok(v));
                assert_eq!(
                    serde_json::from_str::<T>(&format!("\"{word}\"")).unwrap(),
                    v
                );
            }
        }
        round_trip(&Phase::ALL);
        round_trip(&TrialStatus::ALL);
        round_trip(&RunStatus::ALL);
        round_trip(&StackKind::ALL);
        assert_eq!(
            serde_json::from_str::<Phase>("\"cooldown\"")
                .unwrap_err()
                .to_string(),
            "trial phase \"cooldown\" is not one of warmup, measured"
        );
        assert_eq!(
            "skipped".parse::<TrialStatus>(),
            Err("trial status \"skipped\" is not one of ok, failed, timeout, interrupted".into())
        );
        assert_eq!(
            "done".parse::<RunStatus>(),
            Err("run status \"done\" is not one of ok, failed, partial, interrupted".into())
        );
        assert_eq!(
            "wall".parse::<StackKind>(),
            Err("stack kind \"wall\" is not one of oncpu, offcpu".into())
        );
    }
}
