//! The seam between the runner's logic (schedule, interleaving, discard-first, timeouts,
//! cancellation, what a trial records) and the processes it starts, as hyperfine's
//! `Executor`: [`Processes`] runs real commands; tests script an [`Executor`] of their own.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::proc::{self, Cgroup, Outcome};

/// Which of a trial's commands this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Setup,
    Ready,
    Command,
    Teardown,
}

/// One command of one trial.
pub struct Spec<'a> {
    pub step: Step,
    pub cmd: &'a str,
    pub workdir: &'a Path,
    /// The trial's environment (plan, arm and matrix values, `PERFHOUSE_*`).
    pub env: &'a [(String, String)],
    /// `PERFHOUSE_TRIAL_ID`'s value: names the trial.
    pub marker: &'a str,
    pub stdout: &'a File,
    pub stderr: &'a File,
    pub timeout: Duration,
    /// Stop the command when set (Ctrl-C); the teardown gets one that never is.
    pub cancel: &'a AtomicBool,
}

pub trait Executor: Sync {
    /// Before a trial's first command: sets up what keeps its processes together, and says
    /// how (`trials.containment`).
    fn begin(&self, marker: &str) -> String;
    /// Runs one command to its end (or its timeout, or cancellation).
    fn run(&self, spec: &Spec) -> std::io::Result<Outcome>;
    /// After the teardown: ends every process of the trial that is still alive. Notes on what
    /// was killed, or why some survived (which stops the run).
    fn end(&self, marker: &str) -> Result<Vec<String>, String>;
}

/// Real processes: `bash -c` in a process group, inside a cgroup of the trial's own where
/// the machine allows (killed with `cgroup.kill`), then the environment-marker sweep.
#[derive(Default)]
pub struct Processes {
    cgroups: Mutex<HashMap<String, Cgroup>>,
}

impl Processes {
    fn cgroup_name(marker: &str) -> String {
        format!("perfhouse-{}", marker.replace(':', "-t"))
    }
}

impl Executor for Processes {
    fn begin(&self, marker: &str) -> String {
        match Cgroup::create(&Self::cgroup_name(marker)) {
            Ok(cg) => {
                if let Ok(mut m) = self.cgroups.lock() {
                    m.insert(marker.to_string(), cg);
                }
                "cgroup".to_string()
            }
            Err(_) => "marker-sweep".to_string(),
        }
    }

    fn run(&self, s: &Spec) -> std::io::Result<Outcome> {
        let cgroups = self
            .cgroups
            .lock()
            .map_err(|_| std::io::Error::other("cgroup table poisoned"))?;
        proc::run(
            s.cmd,
            s.workdir,
            s.env,
            s.marker,
            s.stdout,
            s.stderr,
            s.timeout,
            s.cancel,
            cgroups.get(s.marker),
        )
    }

    fn end(&self, marker: &str) -> Result<Vec<String>, String> {
        let mut notes = Vec::new();
        let cg = self.cgroups.lock().ok().and_then(|mut m| m.remove(marker));
        if let Some(cg) = cg {
            match cg.kill() {
                Ok(0) => {}
                Ok(n) => notes.push(format!(
                    "killed {n} leftover process(es) of the trial's cgroup"
                )),
                Err(left) => return Err(format!("processes {left:?} survived cgroup.kill")),
            }
        }
        match proc::sweep(marker) {
            Ok(0) => {}
            Ok(n) => notes.push(format!(
                "killed {n} leftover process(es) that escaped the process group"
            )),
            Err(left) => return Err(format!("processes {left:?} survived SIGKILL")),
        }
        Ok(notes)
    }
}
