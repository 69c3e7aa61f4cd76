//! `perfhouse run PLAN.toml`: executes a plan's trials with a fresh setup/teardown around
//! each, samples CPU, profiles, extracts metrics, collects tool outputs, and lands everything
//! as one run. See [`plan`] for the file format and [`proc`] for process control.

pub mod bisect;
pub mod capacity;
pub mod counters;
pub mod decide;
pub mod env;
pub mod exec;
pub mod find_capacity;
pub mod git;
pub mod plan;
pub mod proc;
pub mod profile;
pub mod sampler;
pub mod scrape;
pub mod valgrind;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use crate::ingest;
use crate::model::{
    Metric, Phase, Run, RunData, RunStatus, Trial, TrialStatus, now_us, params_text,
};
use crate::warehouse::Warehouse;
use plan::{Extract, MetricRule, MetricSource, Plan, Planned};

/// Set by SIGINT/SIGTERM: the current trial is stopped (its processes killed), torn down, and
/// the run lands with what was done.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The cancel flag of commands that must run to the end even after an interruption: the
/// teardown (bounded by the plan's timeout instead), so servers are stopped cleanly.
static NEVER: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub plan: PathBuf,
    pub labels: BTreeMap<String, String>,
    /// Arms that replace the plan's (`--git-arm NAME=REV`).
    pub git_arms: Vec<(String, String)>,
    pub dry_run: bool,
    pub fail_fast: bool,
    pub quiet: bool,
    /// Keep the per-trial scratch directories (logs, perf data) instead of removing them.
    pub keep_scratch: bool,
    /// Add interleaved repeats while a metric is inconclusive (`--until-decided`).
    pub until_decided: Option<decide::UntilDecided>,
    /// Where git arms' worktrees live and stay (bisect reuses them across steps); `None`: in
    /// the run's scratch directory, removed after the run.
    pub worktrees: Option<PathBuf>,
    /// The run's `source` (`runner` unless given; `calibrate` for A/A calibration runs).
    pub source: Option<String>,
    /// Search each arm's capacity at the plan's `[capacity]` SLOs instead of running its
    /// schedule (`--find-capacity`; see [`find_capacity`]).
    pub find_capacity: bool,
}

/// What `perfhouse calibrate` runs: the plan's arm (the first unless `arm`) against itself,
/// `repeats` times each.
#[derive(Debug, Clone)]
pub struct CalibrateOptions {
    pub plan: PathBuf,
    pub repeats: u32,
    pub arm: Option<String>,
    pub labels: BTreeMap<String, String>,
}

#[derive(Debug)]
pub struct RunOutcome {
    pub run_id: Option<String>,
    pub suite: String,
    pub trials: usize,
    pub failed: usize,
    pub warnings: Vec<String>,
    /// The dry-run schedule.
    pub schedule: Option<String>,
    /// `--find-capacity`'s answers.
    pub capacity: Option<find_capacity::CapacityReport>,
}

/// The schedule as text: one line per trial in execution order.
pub fn schedule_text(plan: &Plan) -> String {
    trials_text(&plan.schedule())
}

fn trials_text(schedule: &[Planned]) -> String {
    let mut s = String::from("seq  arm  params  repeat  phase\n");
    for (i, t) in schedule.iter().enumerate() {
        s.push_str(&format!(
            "{i}  {}  {}  {}  {}\n",
            t.arm.name,
            params_text(&t.params),
            t.repeat,
            if t.warmup { "warmup" } else { "measured" }
        ));
    }
    s
}

struct Progress {
    bar: Option<indicatif::ProgressBar>,
    plain: bool,
    total: usize,
}

impl Progress {
    fn new(total: usize, quiet: bool) -> Progress {
        let tty = std::io::stderr().is_terminal();
        let bar = (!quiet && tty).then(|| {
            let b = indicatif::ProgressBar::new(total as u64);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "trial {pos}/{len} {bar:25} {msg} (ETA {eta})",
                )
                .expect("valid template"),
            );
            b
        });
        Progress {
            bar,
            plain: !quiet && !tty,
            total,
        }
    }

    fn start(&self, i: usize, t: &Planned) {
        let msg = format!("{} {} #{}", t.arm.name, params_text(&t.params), t.repeat);
        if let Some(b) = &self.bar {
            b.set_message(msg);
        } else if self.plain {
            eprintln!("trial {}/{} {msg}", i + 1, self.total);
        }
    }

    fn done(&self, status: &str, secs: f64) {
        if let Some(b) = &self.bar {
            b.inc(1);
        } else if self.plain {
            eprintln!("  {status} ({secs:.2} s)");
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// What one trial produced.
struct TrialResult {
    trial: Trial,
    data: RunData,
    warnings: Vec<String>,
    /// Per `[[scrape]]` target: (scrapes, failures, the first failure's reason).
    scrapes: Vec<(String, ScrapeTally)>,
}

/// Scrapes of one target, and how many failed (first reason kept).
#[derive(Debug, Clone, Default)]
struct ScrapeTally {
    scrapes: usize,
    failures: usize,
    first_error: Option<String>,
}

pub fn execute(
    wh: &Warehouse,
    rt: &tokio::runtime::Handle,
    opts: &RunOptions,
) -> Result<RunOutcome> {
    let mut plan = Plan::load(&opts.plan)?;
    if !opts.git_arms.is_empty() {
        plan.use_git_arms(&opts.git_arms);
    }
    if opts.dry_run {
        let (schedule, text) = if opts.find_capacity {
            let round = find_capacity::Driver::new(&plan, &opts.plan)?.first_round(&plan);
            let text = format!(
                "{}(the first round of --find-capacity: later rounds depend on its results)\n",
                trials_text(&round)
            );
            (round, text)
        } else {
            let s = plan.schedule();
            let text = trials_text(&s);
            (s, text)
        };
        return Ok(RunOutcome {
            run_id: None,
            suite: plan.suite.clone(),
            trials: schedule.len(),
            failed: 0,
            warnings: Vec::new(),
            schedule: Some(text),
            capacity: None,
        });
    }
    install_signal_handlers();
    execute_with(
        wh,
        rt,
        plan,
        opts,
        &exec::Processes::default(),
        &INTERRUPTED,
    )
}

/// SIGINT/SIGTERM set [`INTERRUPTED`]: the current trial is torn down and the run lands.
pub fn install_signal_handlers() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

/// The figures a plan names (`[[scrape]] figures`) whose metric no scrape of the run returned:
/// they would show nothing, silently. Each is named once, with the scraped metrics that share
/// the longest start with it (a typo's likely target). Nothing is said when no scrape got
/// through (the failed scrapes are warned about already).
fn unscraped_figures(plan: &Plan, samples: &[crate::model::ScrapeSample]) -> Vec<String> {
    if samples.is_empty() {
        return Vec::new();
    }
    let seen: std::collections::BTreeSet<&str> = samples
        .iter()
        .flat_map(|s| [s.family.as_str(), s.name.as_str()])
        .collect();
    let mut out = Vec::new();
    for f in plan.scrape.iter().flat_map(|s| &s.figures) {
        let Ok(fig) = crate::query::figures::ServerFigure::parse(f) else {
            continue;
        };
        if seen.contains(fig.metric.as_str()) {
            continue;
        }
        let shared = |m: &str| {
            m.bytes()
                .zip(fig.metric.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        };
        let mut near: Vec<&str> = seen.iter().copied().collect();
        near.sort_by_key(|m| (std::cmp::Reverse(shared(m)), *m));
        near.truncate(3);
        out.push(format!(
            "server figure `{f}`: no scrape of this run returned a metric `{}`, so it shows nothing (scraped, nearest first: {})",
            fig.metric,
            near.join(", ")
        ));
    }
    out
}

/// `perfhouse calibrate`: the plan's arm (the first, or `--arm`) against an identical copy
/// of itself (`<arm>~aa`), `--repeats` each, interleaved; stored with source `calibrate` and
/// label `calibration=<arm>` (see `query::noise`).
pub fn calibrate(
    wh: &Warehouse,
    rt: &tokio::runtime::Handle,
    args: &CalibrateOptions,
    quiet: bool,
) -> Result<RunOutcome> {
    if args.repeats < 5 {
        bail!(
            "--repeats {}: an A/A calibration needs at least 5 repeats per arm",
            args.repeats
        );
    }
    let mut plan = Plan::load(&args.plan)?;
    let arms = plan.arms();
    let arm = match &args.arm {
        Some(name) => arms
            .iter()
            .find(|a| &a.name == name)
            .cloned()
            .with_context(|| {
                format!(
                    "--arm {name}: the plan's arms are {}",
                    arms.iter()
                        .map(|a| a.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?,
        None => arms[0].clone(),
    };
    let twin = plan::Arm {
        name: crate::query::noise::aa_twin(&arm.name),
        ..arm.clone()
    };
    plan.arms = vec![arm.clone(), twin];
    // The plan's own note describes its A/B ("gzip vs zstd"); this run is neither.
    plan.note = Some(format!(
        "A/A calibration: arm {} against an identical copy of itself ({}), {} repeats each, interleaved",
        arm.name,
        crate::query::noise::aa_twin(&arm.name),
        args.repeats
    ));
    plan.run.repeats = args.repeats;
    plan.run.order = plan::Order::Interleaved;
    let mut labels = args.labels.clone();
    labels.insert("calibration".into(), arm.name.clone());
    let opts = RunOptions {
        plan: args.plan.clone(),
        labels,
        git_arms: Vec::new(),
        quiet,
        source: Some("calibrate".into()),
        ..RunOptions::default()
    };
    install_signal_handlers();
    execute_with(
        wh,
        rt,
        plan,
        &opts,
        &exec::Processes::default(),
        &INTERRUPTED,
    )
}

/// [`execute`] with the executor and cancel flag given: the real processes and SIGINT in
/// `perfhouse run`, a scripted executor and a flag of their own in tests of scheduling,
/// interleaving, discard-first, timeouts and cancellation.
pub fn execute_with(
    wh: &Warehouse,
    rt: &tokio::runtime::Handle,
    plan: Plan,
    opts: &RunOptions,
    exec: &dyn exec::Executor,
    cancel: &AtomicBool,
) -> Result<RunOutcome> {
    // Held to the commit: `gc` removes nothing of a running writer (`Warehouse::writing`).
    let _writing = wh.writing()?;
    let run_id = uuid::Uuid::now_v7().to_string();
    let workdir = workdir_of(&plan)?;
    let scratch = std::env::temp_dir().join(format!("perfhouse-run-{run_id}"));
    std::fs::create_dir_all(&scratch).with_context(|| scratch.display().to_string())?;
    let captured = env::capture(&workdir, &plan.env_allowlist);
    let mut warnings = captured.warnings.clone();
    let mut labels = opts.labels.clone();
    commit_message_label(&workdir, &captured, &mut labels);
    let mut search = capacity_search(&plan, opts, &mut labels)?;
    plan_labels(&plan, &mut labels);
    // The plan as it was given: what `history` and `alerts` tell a user to run again to
    // confirm a pending change (`query::history::attach_reruns`).
    labels
        .entry("plan".into())
        .or_insert_with(|| opts.plan.display().to_string());
    // Git arms: one worktree per revision, built once, before any trial.
    let trees = opts
        .worktrees
        .clone()
        .unwrap_or_else(|| scratch.join("worktrees"));
    let arm_dirs = checkout_git_arms(&plan, &workdir, &trees, &mut labels)?;
    let profiling = profiling_of(&plan, &mut warnings);
    // Said once for the run (a warning and a note on its page), not per trial.
    let mut run_notes = Vec::new();
    let counting = counting_of(&plan, &mut warnings, &mut run_notes);
    run_notes.extend(valgrind_note(&plan)?);
    let schedule = match &mut search {
        Some(d) => d.first_round(&plan),
        None => plan.schedule(),
    };
    let base = base_run(&run_id, &plan, opts, &captured, labels);
    let mut trials = Trials::new(schedule.len(), warnings, run_notes);
    let rounds = Rounds {
        cx: TrialContext {
            wh,
            rt,
            plan: &plan,
            scratch: &scratch,
            run_id: &run_id,
            profiling: profiling.as_ref(),
            counters: counting.as_deref(),
            exec,
            cancel,
        },
        arm_dirs: &arm_dirs,
        workdir: &workdir,
        opts,
        base: &base,
    };
    rounds.run(schedule, &mut search, &mut trials)?;
    let interrupted = cancel.load(Ordering::SeqCst);
    let capacity = closing_notes(&plan, &mut trials, search.as_ref(), interrupted);
    let run = finished(&base, &trials.data, interrupted, trials.planned_total);
    wh.append_run(&run, &trials.data)?;
    if opts.worktrees.is_none() && !arm_dirs.is_empty() {
        git::remove_all(&workdir, &trees);
    }
    if !opts.keep_scratch {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    Ok(RunOutcome {
        run_id: Some(run_id),
        suite: plan.suite,
        trials: trials.data.trials.len(),
        failed: trials.failed,
        warnings: trials.warnings,
        schedule: None,
        capacity,
    })
}

/// The directory the plan's commands run in (`run.workdir`, relative to the plan's).
fn workdir_of(plan: &Plan) -> Result<PathBuf> {
    let workdir = match &plan.run.workdir {
        Some(w) => plan.dir.join(w),
        None => plan.dir.clone(),
    };
    workdir
        .canonicalize()
        .with_context(|| format!("run.workdir {}", workdir.display()))
}

/// The commit's first line, as imports of other tools' histories keep it: the trend's hover
/// and the alerts name the commit by what it did.
fn commit_message_label(
    workdir: &Path,
    captured: &env::Captured,
    labels: &mut BTreeMap<String, String>,
) {
    if let Some(commit) = &captured.git_commit
        && !labels.contains_key("commit_message")
    {
        let subject = git::subject(workdir, commit);
        if !subject.is_empty() {
            labels.insert("commit_message".into(), subject.chars().take(200).collect());
        }
    }
}

/// The capacity search of `--find-capacity`, if asked for. It judges levels by `[capacity]`'s
/// SLOs: the run's `slo` label, so that `perfhouse sweep` and the site judge its probes by
/// them too.
fn capacity_search(
    plan: &Plan,
    opts: &RunOptions,
    labels: &mut BTreeMap<String, String>,
) -> Result<Option<find_capacity::Driver>> {
    if !opts.find_capacity {
        return Ok(None);
    }
    let d = find_capacity::Driver::new(plan, &opts.plan)?;
    labels
        .entry("slo".into())
        .or_insert_with(|| d.slos().to_string());
    labels.insert(
        "find_capacity".into(),
        plan.capacity
            .as_ref()
            .map_or(String::new(), |c| c.load.clone()),
    );
    Ok(Some(d))
}

/// The labels the plan gives every run: its SLOs, and the server figures compare and the
/// sweep table show (`query::figures::ServerFigure`); labels given on the command line win.
fn plan_labels(plan: &Plan, labels: &mut BTreeMap<String, String>) {
    if !plan.slo.is_empty() {
        labels
            .entry("slo".into())
            .or_insert_with(|| plan.slo.join(","));
    }
    let mut server_figures: Vec<&str> = Vec::new();
    for f in plan.scrape.iter().flat_map(|s| &s.figures) {
        if !server_figures.contains(&f.as_str()) {
            server_figures.push(f);
        }
    }
    if !server_figures.is_empty() {
        labels
            .entry(crate::query::figures::SERVER_FIGURES_LABEL.into())
            .or_insert_with(|| server_figures.join(","));
    }
}

/// Checks out each git arm's revision into a worktree under `trees` (built once, before any
/// trial), labelling the run with the commit each arm ran; returns each arm's directory.
fn checkout_git_arms(
    plan: &Plan,
    workdir: &Path,
    trees: &Path,
    labels: &mut BTreeMap<String, String>,
) -> Result<BTreeMap<String, PathBuf>> {
    let mut arm_dirs: BTreeMap<String, PathBuf> = BTreeMap::new();
    for a in plan.arms() {
        if let Some(rev) = &a.git {
            let commit = git::resolve(workdir, rev)?;
            let c = git::checkout(workdir, trees, rev, &commit, plan.run.build.as_deref())?;
            labels.insert(format!("git.{}", a.name), commit);
            arm_dirs.insert(a.name.clone(), c.workdir);
        }
    }
    Ok(arm_dirs)
}

/// The plan's `[profile]` where this machine can profile; else a warning, and the trials
/// run unprofiled.
fn profiling_of(plan: &Plan, warnings: &mut Vec<String>) -> Option<plan::Profile> {
    let p = plan.profile.as_ref()?;
    match profile::available() {
        Ok(()) => Some(p.clone()),
        Err(why) => {
            warnings.push(format!(
                "profiling off for this run: {why}; trials run unprofiled"
            ));
            None
        }
    }
}

/// The `[counters]` events perf counts on this machine, with a warning for those it does
/// not and a note saying what was counted; `None` (never zeros) where perf cannot count.
fn counting_of(
    plan: &Plan,
    warnings: &mut Vec<String>,
    run_notes: &mut Vec<String>,
) -> Option<Vec<String>> {
    let c = plan.counters.as_ref()?;
    let counted = match counters::probe(&c.events) {
        Ok(counted) => counted,
        Err(why) => {
            let text = format!(
                "hardware counters off for this run: {why}; no counter is recorded (never \
                 zeros), and the commands run without perf"
            );
            warnings.push(text.clone());
            run_notes.push(text);
            return None;
        }
    };
    let missing: Vec<String> = c
        .events
        .iter()
        .filter(|e| !counted.contains(e))
        .map(|e| counters::user_space(e))
        .collect();
    if !missing.is_empty() {
        warnings.push(format!(
            "hardware counters: perf stat does not count {} on this machine \
             (`<not supported>`); not recorded",
            missing.join(", ")
        ));
    }
    run_notes.push(format!(
        "hardware counters (perf stat, user space) per trial: {}{}",
        counted
            .iter()
            .map(|e| counters::user_space(e))
            .collect::<Vec<_>>()
            .join(", "),
        if missing.is_empty() {
            String::new()
        } else {
            format!("; not counted here: {}", missing.join(", "))
        }
    ));
    Some(counted)
}

/// The run's note on `[valgrind]`: which tool and caches, and what its figures mean. A plan
/// that asks for valgrind where there is none is an error.
fn valgrind_note(plan: &Plan) -> Result<Option<String>> {
    let Some(v) = &plan.valgrind else {
        return Ok(None);
    };
    let version =
        valgrind::available().map_err(|why| anyhow::anyhow!("the plan's [valgrind]: {why}"))?;
    Ok(Some(format!(
        "under {version} {} (simulated caches {}): instructions and estimated cycles = L1 \
         hits + 5·LL hits + 35·RAM hits per trial; the trials' wall time, CPU time and \
         peak RSS are valgrind's",
        v.tool.as_str(),
        valgrind::CACHES.join(" ")
    )))
}

/// The run's row as it starts: its times are set again when it finishes ([`finished`]).
fn base_run(
    run_id: &str,
    plan: &Plan,
    opts: &RunOptions,
    captured: &env::Captured,
    labels: BTreeMap<String, String>,
) -> Run {
    let started = now_us();
    Run {
        run_id: run_id.to_string(),
        suite: plan.suite.clone(),
        started_at_us: started,
        finished_at_us: started,
        ingested_at_us: started,
        source: opts.source.clone().unwrap_or_else(|| "runner".to_string()),
        git_commit: captured.git_commit.clone(),
        git_branch: captured.git_branch.clone(),
        git_dirty: captured.git_dirty,
        host: captured.host.clone(),
        env_fingerprint: Some(captured.fingerprint.clone()),
        env: captured.env.to_string(),
        labels,
        input_digest: hex::encode(Sha256::digest(format!("runner:{run_id}").as_bytes())),
        status: RunStatus::Ok,
    }
}

/// What a run's trials produced so far.
struct Trials {
    data: RunData,
    /// Per scrape target: scrapes and failures over the run (warned once, noted at the end).
    scrape_tally: BTreeMap<String, ScrapeTally>,
    failed: usize,
    next_id: usize,
    planned_total: usize,
    warnings: Vec<String>,
}

impl Trials {
    /// No trial run yet, `planned` planned; the run's warnings and notes so far.
    fn new(planned: usize, warnings: Vec<String>, notes: Vec<String>) -> Trials {
        Trials {
            data: RunData {
                notes,
                ..RunData::default()
            },
            scrape_tally: BTreeMap::new(),
            failed: 0,
            next_id: 0,
            planned_total: planned,
            warnings,
        }
    }

    /// Adds one trial's rows, warnings and scrape counts; a target's first failing scrapes
    /// are warned about once for the run.
    fn absorb(&mut self, r: TrialResult) {
        self.warnings.extend(r.warnings);
        for (target, t) in r.scrapes {
            let run = self.scrape_tally.entry(target.clone()).or_default();
            if t.failures > 0 && run.failures == 0 {
                self.warnings.push(format!(
                    "scrape `{target}`: {} of {} scrapes failed in trial {} ({}); the trial \
                     goes on, and the run's notes count every failure",
                    t.failures,
                    t.scrapes,
                    r.trial.trial_id,
                    t.first_error.as_deref().unwrap_or("no reason")
                ));
            }
            run.scrapes += t.scrapes;
            run.failures += t.failures;
            if run.first_error.is_none() {
                run.first_error = t.first_error;
            }
        }
        let data = &mut self.data;
        data.trials.push(r.trial);
        data.requests.extend(r.data.requests);
        data.metrics.extend(r.data.metrics);
        data.cpu_samples.extend(r.data.cpu_samples);
        data.scrape_samples.extend(r.data.scrape_samples);
        data.stacks.extend(r.data.stacks);
        data.artifacts.extend(r.data.artifacts);
    }
}

/// Everything the rounds of a run share: how to run a trial, where each arm runs, the
/// options and the run's row as it started.
struct Rounds<'a> {
    cx: TrialContext<'a>,
    arm_dirs: &'a BTreeMap<String, PathBuf>,
    workdir: &'a Path,
    opts: &'a RunOptions,
    base: &'a Run,
}

/// Where `--until-decided` stands: the warehouse's noise model (read once, at the first
/// look), the looks taken and the repeats per arm so far.
struct Rerun {
    noise: Option<crate::query::noise::NoiseModel>,
    look: u32,
    repeats: u32,
}

impl Rounds<'_> {
    /// The rounds of trials: the plan's schedule, then, with --find-capacity, each round the
    /// search asks for, or, with --until-decided, more repeats while the metric is open.
    fn run(
        &self,
        mut schedule: Vec<Planned>,
        search: &mut Option<find_capacity::Driver>,
        t: &mut Trials,
    ) -> Result<()> {
        let plan = self.cx.plan;
        let mut rerun = Rerun {
            noise: None,
            look: 0,
            repeats: plan.run.repeats,
        };
        loop {
            let stopped = self.run_schedule(&schedule, t)?;
            if plan.run.discard_first {
                mark_discarded(&mut t.data);
            }
            if stopped {
                break;
            }
            let next = match (search.as_mut(), &self.opts.until_decided) {
                // --find-capacity: judge the round, run the next.
                (Some(d), _) => {
                    let so_far = finished(self.base, &t.data, false, t.planned_total);
                    Some(d.judge(self.cx.rt, self.cx.scratch, &so_far, &t.data, plan)?)
                        .filter(|s| !s.is_empty())
                }
                (None, Some(u)) => self.until_decided(u, &mut rerun, t)?,
                (None, None) => None,
            };
            let Some(next) = next else { break };
            t.planned_total += next.len();
            schedule = next;
        }
        Ok(())
    }

    /// Runs `schedule` in order; returns whether the run stopped early (interrupted, or
    /// `--fail-fast` after a failed trial).
    fn run_schedule(&self, schedule: &[Planned], t: &mut Trials) -> Result<bool> {
        let progress = Progress::new(schedule.len(), self.opts.quiet);
        let mut stopped = false;
        for (i, planned) in schedule.iter().enumerate() {
            if self.cx.cancel.load(Ordering::SeqCst) {
                t.warnings.push(format!(
                    "interrupted: {} of {} trials not run",
                    schedule.len() - i,
                    schedule.len()
                ));
                stopped = true;
                break;
            }
            progress.start(i, planned);
            let t0 = Instant::now();
            let dir = self
                .arm_dirs
                .get(&planned.arm.name)
                .map_or(self.workdir, |d| d);
            let r = run_trial(&self.cx, dir, t.next_id as i32, planned)?;
            t.next_id += 1;
            progress.done(r.trial.status.as_str(), t0.elapsed().as_secs_f64());
            let trial_failed = r.trial.status != TrialStatus::Ok;
            t.failed += usize::from(trial_failed);
            t.absorb(r);
            if trial_failed && self.opts.fail_fast {
                let text = format!("--fail-fast: stopped after trial {} failed", t.next_id);
                t.warnings.push(text);
                stopped = true;
                break;
            }
        }
        progress.finish();
        Ok(stopped)
    }

    /// Confirm by rerun: while the chosen metric is inconclusive, the repeats double (up to
    /// `--max-repeats`); returns the next round, `None` when decided or out of repeats.
    fn until_decided(
        &self,
        u: &decide::UntilDecided,
        rerun: &mut Rerun,
        t: &mut Trials,
    ) -> Result<Option<Vec<Planned>>> {
        let plan = self.cx.plan;
        rerun.look += 1;
        let (look, repeats) = (rerun.look, rerun.repeats);
        let looks = u.looks(plan.run.repeats);
        let alpha = decide::ALPHA / f64::from(looks);
        let noise = match &rerun.noise {
            Some(n) => n,
            None => rerun
                .noise
                .insert(decide::noise_model(self.cx.rt, self.cx.wh)?),
        };
        let probe = finished(self.base, &t.data, false, t.planned_total);
        let (rt, scratch) = (self.cx.rt, self.cx.scratch);
        let verdicts = decide::verdicts(rt, noise, scratch, &probe, &t.data, &u.metric, alpha)?;
        let open = verdicts
            .iter()
            .filter(|(_, v)| *v == crate::stats::verdict::Verdict::Inconclusive)
            .count();
        t.data.notes.push(format!(
            "--until-decided {} look {look} of {looks} at {repeats} repeats (α {alpha:.4} per look): {}",
            u.metric,
            verdicts
                .iter()
                .map(|(p, v)| format!("{p}: {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        if verdicts.is_empty() {
            t.warnings.push(format!(
                "--until-decided: no rows of metric {:?} to decide on (check its name with `perfhouse compare`)",
                u.metric
            ));
            return Ok(None);
        }
        if open == 0 || repeats >= u.max_repeats {
            return Ok(None);
        }
        let more = repeats.min(u.max_repeats - repeats);
        rerun.repeats += more;
        Ok(Some(plan.more_repeats(repeats, more)))
    }
}

/// The notes a run ends with: the plan's own, scrape failures per target, the capacity
/// search's answers (returned too) and an interruption; unscraped figures are warned about.
fn closing_notes(
    plan: &Plan,
    t: &mut Trials,
    search: Option<&find_capacity::Driver>,
    interrupted: bool,
) -> Option<find_capacity::CapacityReport> {
    t.data.notes.extend(plan.note.iter().cloned());
    for (target, s) in &t.scrape_tally {
        if s.failures > 0 {
            t.data.notes.push(format!(
                "scrape `{target}`: {} of {} scrapes failed (first: {})",
                s.failures,
                s.scrapes,
                s.first_error.as_deref().unwrap_or("no reason")
            ));
        }
    }
    t.warnings
        .extend(unscraped_figures(plan, &t.data.scrape_samples));
    let capacity = search.map(|d| d.report(&t.data));
    if let Some(r) = &capacity {
        t.data
            .notes
            .push(find_capacity::report_text(r).trim_end().to_string());
    }
    if interrupted {
        t.data.notes.push(format!(
            "interrupted (SIGINT/SIGTERM) after {} of {} trials",
            t.data.trials.len(),
            t.planned_total
        ));
    }
    capacity
}

/// Marks the first measured repeat of every arm × params as a discarded cold start.
fn mark_discarded(data: &mut RunData) {
    let mut measured: Vec<Trial> = data
        .trials
        .iter()
        .filter(|t| t.phase == Phase::Measured)
        .cloned()
        .collect();
    ingest::mark_cold_starts(&mut measured);
    for m in measured.into_iter().filter(|m| m.discarded) {
        if let Some(t) = data.trials.iter_mut().find(|t| t.trial_id == m.trial_id) {
            t.discarded = true;
            t.discard_reason = m.discard_reason;
        }
    }
}

/// The run as it lands after `data`: `base` with the status its trials give (interrupted when
/// cancelled, partial when fewer than `planned` ran) and the finish time.
fn finished(base: &Run, data: &RunData, interrupted: bool, planned: usize) -> Run {
    let status = match RunStatus::of(&data.trials) {
        _ if interrupted => RunStatus::Interrupted,
        // --fail-fast stopped it before the end.
        RunStatus::Ok if data.trials.len() < planned => RunStatus::Partial,
        s => s,
    };
    Run {
        finished_at_us: now_us(),
        ingested_at_us: now_us(),
        status,
        ..base.clone()
    }
}

/// What every trial of a run shares: the warehouse, the plan and where and how it runs.
struct TrialContext<'a> {
    wh: &'a Warehouse,
    rt: &'a tokio::runtime::Handle,
    plan: &'a Plan,
    scratch: &'a Path,
    run_id: &'a str,
    profiling: Option<&'a plan::Profile>,
    /// The `[counters]` events perf counts on this machine (`None`: none asked for, or none
    /// counted here).
    counters: Option<&'a [String]>,
    exec: &'a dyn exec::Executor,
    cancel: &'a AtomicBool,
}

/// Why a trial failed: the message, the exit code where there is one, and the log whose tail
/// explains it.
type Failure = (String, Option<i32>, PathBuf);

/// One trial in flight, run as its stages: [`TrialRun::setup`], [`TrialRun::wait_ready`],
/// [`TrialRun::measure`] (sampler and profiler around the command), [`TrialRun::teardown`]
/// (always), then [`TrialRun::finish`] (the failure recorded, or metrics and files collected).
struct TrialRun<'a> {
    cx: &'a TrialContext<'a>,
    /// The arm's working directory (its git worktree for a `git` arm).
    workdir: &'a Path,
    planned: &'a Planned,
    dir: PathBuf,
    marker: String,
    env: Vec<(String, String)>,
    logs: TrialLogs,
    trial: Trial,
    data: RunData,
    warnings: Vec<String>,
    failure: Option<Failure>,
    scrapes: Vec<(String, ScrapeTally)>,
}

struct TrialLogs {
    setup: File,
    stdout: File,
    stderr: File,
    teardown: File,
}

fn run_trial(
    cx: &TrialContext,
    workdir: &Path,
    trial_id: i32,
    planned: &Planned,
) -> Result<TrialResult> {
    let mut t = TrialRun::new(cx, workdir, trial_id, planned)?;
    t.setup()?;
    t.wait_ready()?;
    t.measure()?;
    // Teardown always, to its end even after an interruption (bounded by the timeout), then
    // no process of this trial may survive.
    t.teardown()?;
    t.finish()
}

impl<'a> TrialRun<'a> {
    fn new(
        cx: &'a TrialContext<'a>,
        workdir: &'a Path,
        trial_id: i32,
        planned: &'a Planned,
    ) -> Result<TrialRun<'a>> {
        let plan = cx.plan;
        let dir = cx.scratch.join(format!("t{trial_id}"));
        std::fs::create_dir_all(&dir)?;
        let marker = format!("{}:{trial_id}", cx.run_id);
        let mut env: Vec<(String, String)> = plan
            .run
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        env.extend(planned.arm.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        env.extend(planned.params.iter().map(|(k, v)| (k.clone(), v.clone())));
        env.push((
            "PERFHOUSE_TRIAL_DIR".to_string(),
            dir.to_string_lossy().into_owned(),
        ));
        env.push(("PERFHOUSE_ARM".to_string(), planned.arm.name.clone()));
        env.push(("PERFHOUSE_REPEAT".to_string(), planned.repeat.to_string()));
        let log = |name: &str| {
            File::create(dir.join(name)).with_context(|| dir.join(name).display().to_string())
        };
        let logs = TrialLogs {
            setup: log("setup.log")?,
            stdout: log("stdout.log")?,
            stderr: log("stderr.log")?,
            teardown: log("teardown.log")?,
        };
        let mut trial = Trial {
            phase: if planned.warmup {
                Phase::Warmup
            } else {
                Phase::Measured
            },
            concurrency: crate::model::concurrency_param(&planned.params),
            ..Trial::measured(
                trial_id,
                &planned.arm.name,
                planned.params.clone(),
                planned.repeat,
            )
        };
        // The executor contains the trial's processes (a cgroup where it can) and ends them
        // all after teardown (`exec::Processes`).
        trial.containment = Some(cx.exec.begin(&marker));
        Ok(TrialRun {
            cx,
            workdir,
            planned,
            dir,
            marker,
            env,
            logs,
            trial,
            data: RunData::default(),
            warnings: Vec::new(),
            failure: None,
            scrapes: Vec::new(),
        })
    }

    fn trial_id(&self) -> i32 {
        self.trial.trial_id
    }

    /// Runs one command of the trial, its output to `out`/`err`.
    fn step(
        &self,
        step: exec::Step,
        cmd: &str,
        (out, err): (&File, &File),
        timeout: std::time::Duration,
        cancel: &AtomicBool,
    ) -> std::io::Result<proc::Outcome> {
        self.cx.exec.run(&exec::Spec {
            step,
            cmd,
            workdir: self.workdir,
            env: &self.env,
            marker: &self.marker,
            stdout: out,
            stderr: err,
            timeout,
            cancel,
        })
    }

    fn interrupted(&mut self, what: &str) {
        self.trial.status = TrialStatus::Interrupted;
        let log = if what == "command" {
            "stderr.log"
        } else {
            "setup.log"
        };
        self.failure = Some((
            format!("interrupted (SIGINT/SIGTERM) during the {what}"),
            None,
            self.dir.join(log),
        ));
    }

    fn setup(&mut self) -> Result<()> {
        let Some(setup) = &self.cx.plan.run.setup else {
            return Ok(());
        };
        let logs = (&self.logs.setup, &self.logs.setup);
        let r = self.step(
            exec::Step::Setup,
            setup,
            logs,
            self.cx.plan.run.timeout,
            self.cx.cancel,
        )?;
        if r.cancelled {
            self.interrupted("setup");
        } else if !r.ok() {
            self.failure = Some((
                format!("setup {}", describe(&r)),
                r.code,
                self.dir.join("setup.log"),
            ));
        }
        Ok(())
    }

    /// Polls the plan's readiness check until it passes, the run is interrupted or its
    /// timeout passes.
    fn wait_ready(&mut self) -> Result<()> {
        let run = &self.cx.plan.run;
        let Some(ready) = run.ready.as_ref().filter(|_| self.failure.is_none()) else {
            return Ok(());
        };
        let deadline = Instant::now() + run.ready_timeout;
        loop {
            let logs = (&self.logs.setup, &self.logs.setup);
            let r = self.step(
                exec::Step::Ready,
                ready,
                logs,
                run.ready_timeout,
                self.cx.cancel,
            )?;
            if r.ok() {
                return Ok(());
            }
            if self.cx.cancel.load(Ordering::SeqCst) {
                self.interrupted("readiness check");
                return Ok(());
            }
            if Instant::now() >= deadline {
                self.failure = Some((
                    format!(
                        "not ready after {:?} (`{ready}` {})",
                        run.ready_timeout,
                        describe(&r)
                    ),
                    r.code,
                    self.dir.join("setup.log"),
                ));
                return Ok(());
            }
            std::thread::sleep(run.ready_interval);
        }
    }

    /// Starts the profiler of the plan's `[profile]` on its target's processes, if any.
    fn start_profiler(&mut self) -> Option<(profile::Profiler, plan::Profile)> {
        let p = self.cx.profiling?;
        let plan = self.cx.plan;
        let re = plan
            .sample
            .as_ref()
            .and_then(|s| s.processes.get(&p.target))
            .cloned()
            .unwrap_or_else(|| p.target.clone());
        let mut st = sampler::State::new(
            sampler::Config {
                interval: std::time::Duration::from_millis(100),
                cores: None,
                processes: vec![(p.target.clone(), regex::Regex::new(&re).ok()?)],
            },
            self.trial_id(),
        );
        st.scan();
        match profile::start(
            p.kind,
            p.frequency,
            p.call_graph,
            &st.pids_of(&p.target),
            &self.dir,
        ) {
            Ok(prof) => Some((prof, p.clone())),
            Err(why) => {
                self.warnings
                    .push(format!("trial {}: not profiled: {why}", self.trial_id()));
                None
            }
        }
    }

    /// The measured command, with the sampler and the profiler around it only.
    fn measure(&mut self) -> Result<()> {
        if self.failure.is_some() {
            return Ok(());
        }
        let plan = self.cx.plan;
        let trial_id = self.trial_id();
        let sampling = plan.sample.as_ref().map(|s| sampler::Config {
            interval: s.interval,
            cores: s.core_set.as_ref().map(|c| c.iter().copied().collect()),
            processes: s.matchers.clone(),
        });
        let profiler = self.start_profiler();
        let sampler = sampling.map(|cfg| sampler::start(self.cx.rt, cfg, trial_id));
        let scrapers = self.start_scrapers();
        let command = self.measured_command();
        self.trial.started_at_us = Some(now_us());
        let logs = (&self.logs.stdout, &self.logs.stderr);
        let r = self.step(
            exec::Step::Command,
            &command,
            logs,
            plan.run.timeout,
            self.cx.cancel,
        )?;
        self.trial.finished_at_us = Some(now_us());
        self.trial.wall_ns = Some(r.wall.as_nanos() as i64);
        self.trial.usage = r.usage;
        self.trial.exit_code = r.code;
        if let Some(s) = sampler {
            self.data.cpu_samples = s.stop(self.cx.rt);
        }
        self.stop_scrapers(scrapers);
        if let Some(profiler) = profiler {
            self.finish_profile(profiler)?;
        }
        self.judge_command(&r);
        Ok(())
    }

    /// Starts a scraper for every `[[scrape]]` target with an endpoint.
    fn start_scrapers(&self) -> Vec<(String, scrape::Running)> {
        self.cx
            .plan
            .scrape
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let running = scrape::start(
                    scrape::Config {
                        target: s.target(),
                        endpoint: s.endpoint.clone()?,
                        interval: s.interval,
                        timeout: s.timeout(),
                        keep: s.keep_re.clone(),
                        raw: s.raw.then(|| self.dir.join(format!("scrape-{i}.prom"))),
                    },
                    self.trial_id(),
                );
                Some((s.target(), running))
            })
            .collect()
    }

    /// The arm's command line, under perf stat or valgrind where the plan asks, which start
    /// it and count it (and every process it starts).
    fn measured_command(&self) -> String {
        let plan = self.cx.plan;
        let command = match &self.planned.arm.args {
            Some(a) => format!("{} {a}", plan.run.command),
            None => plan.run.command.clone(),
        };
        match (self.cx.counters, &plan.valgrind) {
            (Some(events), _) => counters::wrap(&command, events, &self.dir.join(counters::OUT)),
            (None, Some(v)) => valgrind::wrap(&command, v.tool, &v.args, &self.dir),
            (None, None) => command,
        }
    }

    /// Stops the scrapers, keeping their samples and each target's tally.
    fn stop_scrapers(&mut self, scrapers: Vec<(String, scrape::Running)>) {
        for (target, running) in scrapers {
            let out = running.stop();
            self.data.scrape_samples.extend(out.samples);
            self.scrapes.push((
                target,
                ScrapeTally {
                    scrapes: out.scrapes,
                    failures: out.failures,
                    first_error: out.first_error,
                },
            ));
        }
    }

    /// Stops the profiler and keeps its stacks as the trial's; a profile that is lost is a
    /// warning, not a failed trial.
    fn finish_profile(&mut self, (prof, p): (profile::Profiler, plan::Profile)) -> Result<()> {
        let trial_id = self.trial_id();
        match prof.finish(&self.dir) {
            Ok(folded) => {
                let f = ingest::folded::parse(&self.dir.join("perf.folded"), &folded[..])?;
                self.data.stacks.extend(f.stacks.into_iter().map(|mut s| {
                    s.trial_id = trial_id;
                    s.target = p.target.clone();
                    s.kind = p.kind;
                    s
                }));
            }
            Err(why) => self
                .warnings
                .push(format!("trial {trial_id}: profile lost: {why}")),
        }
        Ok(())
    }

    /// The trial's status from how its command ended: interrupted, timed out or failed.
    fn judge_command(&mut self, r: &proc::Outcome) {
        if r.cancelled {
            self.interrupted("command");
        } else if r.timed_out {
            self.trial.status = TrialStatus::Timeout;
            self.failure = Some((
                format!("command timed out after {:?}", self.cx.plan.run.timeout),
                None,
                self.dir.join("stderr.log"),
            ));
        } else if !r.ok() {
            self.failure = Some((
                format!("command {}", describe(r)),
                r.code,
                self.dir.join("stderr.log"),
            ));
        }
    }

    /// The plan's teardown, not cancellable (it runs to its end after an interruption), then
    /// the executor ends every process of the trial that is left.
    fn teardown(&mut self) -> Result<()> {
        let trial_id = self.trial_id();
        if let Some(td) = &self.cx.plan.run.teardown {
            let logs = (&self.logs.teardown, &self.logs.teardown);
            let r = self.step(
                exec::Step::Teardown,
                td,
                logs,
                self.cx.plan.run.timeout,
                &NEVER,
            )?;
            if !r.ok() {
                self.warnings
                    .push(format!("trial {trial_id}: teardown {}", describe(&r)));
            }
        }
        match self.cx.exec.end(&self.marker) {
            Ok(notes) => self
                .warnings
                .extend(notes.into_iter().map(|n| format!("trial {trial_id}: {n}"))),
            Err(why) => bail!("trial {trial_id}: {why}; stopping the run"),
        }
        Ok(())
    }

    /// A failed trial records why (its log's tail, secrets redacted); a good one gets the
    /// plan's metrics and collected files.
    fn finish(mut self) -> Result<TrialResult> {
        let trial_id = self.trial_id();
        if let Some((why, code, log_path)) = self.failure.take() {
            if self.trial.status == TrialStatus::Ok {
                self.trial.status = TrialStatus::Failed;
            }
            self.trial.exit_code = self.trial.exit_code.or(code);
            let tail = env::redact(&proc::tail(&log_path, 2000), &self.env);
            self.trial.stderr_tail = Some(format!("{why}\n{tail}").trim_end().to_string());
        } else {
            for m in &self.cx.plan.metrics {
                match extract(m, &self.dir).and_then(|v| {
                    let scaled = v * m.scale;
                    // The ingest policy for values that are not finite, here too: not stored.
                    if scaled.is_finite() {
                        Ok(scaled)
                    } else {
                        Err(format!(
                            "value {v} × scale {} is not a finite number; left out",
                            m.scale
                        ))
                    }
                }) {
                    Ok(v) => self.data.metrics.push(Metric {
                        trial_id,
                        name: m.name.clone(),
                        value: v,
                        unit: m.unit.clone(),
                        better: m.better,
                        origin: "runner".to_string(),
                        version: None,
                    }),
                    Err(why) => self
                        .warnings
                        .push(format!("trial {trial_id}: metric `{}`: {why}", m.name)),
                }
            }
            self.read_counts();
            for c in &self.cx.plan.collect {
                collect(
                    self.cx.wh,
                    c,
                    &self.dir,
                    self.workdir,
                    trial_id,
                    &mut self.data,
                    &mut self.warnings,
                )?;
            }
        }
        Ok(TrialResult {
            trial: self.trial,
            data: self.data,
            warnings: self.warnings,
            scrapes: self.scrapes,
        })
    }
}

impl TrialRun<'_> {
    /// The counts `[counters]` (perf stat) or `[valgrind]` wrote for this trial, as metrics;
    /// a trial without them says why in a warning.
    fn read_counts(&mut self) {
        let trial_id = self.trial_id();
        let read = match (self.cx.counters, &self.cx.plan.valgrind) {
            (Some(_), _) => counters::read(&self.dir.join(counters::OUT), trial_id),
            (None, Some(v)) => valgrind::read(&self.dir, v.tool, trial_id).map(|(m, _)| m),
            (None, None) => return,
        };
        match read {
            Ok(m) => self.data.metrics.extend(m),
            Err(why) => self
                .warnings
                .push(format!("trial {trial_id}: no counts: {why}")),
        }
    }
}

fn describe(r: &proc::Outcome) -> String {
    match (r.timed_out, r.code) {
        (true, _) => format!("timed out after {:.1} s", r.wall.as_secs_f64()),
        (false, Some(c)) => format!("exited {c}"),
        (false, None) => "was killed by a signal".to_string(),
    }
}

/// A metric from the trial's stdout, stderr or a file.
pub fn extract(m: &MetricRule, dir: &Path) -> Result<f64, String> {
    let (path, what) = match &m.source {
        MetricSource::Stdout => (dir.join("stdout.log"), "stdout".to_string()),
        MetricSource::Stderr => (dir.join("stderr.log"), "stderr".to_string()),
        MetricSource::File(f) => (dir.join(f), f.clone()),
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{what}: {e}"))?;
    extract_from(m, &text).map_err(|e| format!("{what}: {e}"))
}

pub fn extract_from(m: &MetricRule, text: &str) -> Result<f64, String> {
    if let Extract::Regex(re) = &m.extract {
        let caps = text
            .lines()
            .rev()
            .find_map(|l| re.captures(l))
            .ok_or_else(|| format!("no line matches /{re}/"))?;
        let s = caps
            .get(1)
            .or_else(|| caps.get(0))
            .expect("a match")
            .as_str();
        s.trim()
            .parse::<f64>()
            .map_err(|_| format!("matched `{s}`, not a number"))
    } else {
        let Extract::Json(ptr) = &m.extract else {
            return Err("no regex or JSON pointer".to_string());
        };
        let doc: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let v = doc
            .pointer(ptr)
            .ok_or_else(|| format!("no value at {ptr}"))?;
        v.as_f64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .ok_or_else(|| format!("{ptr} is `{v}`, not a number"))
    }
}

/// Ingests a trial's tool outputs (glob relative to the trial directory, else the workdir).
fn collect(
    wh: &Warehouse,
    c: &plan::Collect,
    dir: &Path,
    workdir: &Path,
    trial_id: i32,
    data: &mut RunData,
    warnings: &mut Vec<String>,
) -> Result<()> {
    let format = c.format;
    let base = if Path::new(&c.path).is_absolute() {
        PathBuf::new()
    } else {
        dir.to_path_buf()
    };
    let mut found: Vec<PathBuf> = glob::glob(&base.join(&c.path).to_string_lossy())
        .map(|g| g.flatten().collect())
        .unwrap_or_default();
    if found.is_empty() && !Path::new(&c.path).is_absolute() {
        found = glob::glob(&workdir.join(&c.path).to_string_lossy())
            .map(|g| g.flatten().collect())
            .unwrap_or_default();
    }
    if found.is_empty() {
        warnings.push(format!(
            "trial {trial_id}: collect `{}` matched no file",
            c.path
        ));
        return Ok(());
    }
    let files = ingest::discover(&found, format)?;
    for f in files {
        let parsed = match ingest::parse_file(&f, format) {
            Ok(p) => p,
            Err(e) => {
                warnings.push(format!("trial {trial_id}: {e}"));
                continue;
            }
        };
        warnings.extend(parsed.warnings);
        for t in parsed.trials {
            data.requests.extend(t.requests.into_iter().map(|mut r| {
                r.trial_id = trial_id;
                r
            }));
            data.metrics.extend(t.metrics.into_iter().map(|mut m| {
                m.trial_id = trial_id;
                m
            }));
            data.stacks.extend(t.stacks.into_iter().map(|mut s| {
                s.trial_id = trial_id;
                s
            }));
        }
        let mut a = wh.store_blob(&f, &f.strip_prefix(dir).unwrap_or(&f).to_string_lossy())?;
        a.trial_id = Some(trial_id);
        data.artifacts.push(a);
    }
    Ok(())
}

/// Writes the outcome for people.
pub fn report(outcome: &RunOutcome, w: &mut impl Write) -> std::io::Result<()> {
    if let Some(c) = &outcome.capacity {
        write!(w, "{}", find_capacity::report_text(c))?;
    }
    match (&outcome.schedule, &outcome.run_id) {
        (Some(s), _) => write!(w, "{s}"),
        (None, Some(id)) => writeln!(
            w,
            "run {id} landed in suite {}: {} trials, {} failed",
            outcome.suite, outcome.trials, outcome.failed
        ),
        _ => Ok(()),
    }
}
