//! The runner's logic without processes: a scripted executor (`runner::exec::Executor`)
//! stands in for `bash -c`, so scheduling, interleaving, discard-first, timeouts and
//! cancellation are checked exactly and in milliseconds. `tests/timing/runner.rs` keeps the same
//! behaviours on real processes.

use crate::common;

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::*;
use perfhouse::runner::exec::{Executor, Spec, Step};
use perfhouse::runner::plan::Plan;
use perfhouse::runner::proc::Outcome;
use perfhouse::runner::{RunOptions, execute_with};
use perfhouse::warehouse::Warehouse;

/// Every command it is asked to run, as `step arm repeat SIZE`; `script` decides the outcome.
struct Scripted<F: Fn(&Spec, usize) -> Outcome + Sync> {
    calls: Mutex<Vec<String>>,
    ended: Mutex<Vec<String>>,
    script: F,
}

fn var<'a>(s: &'a Spec, k: &str) -> &'a str {
    s.env
        .iter()
        .find(|(n, _)| n == k)
        .map_or("", |(_, v)| v.as_str())
}

impl<F: Fn(&Spec, usize) -> Outcome + Sync> Executor for Scripted<F> {
    fn begin(&self, _marker: &str) -> String {
        "scripted".to_string()
    }

    fn run(&self, s: &Spec) -> std::io::Result<Outcome> {
        let mut calls = self.calls.lock().unwrap();
        calls.push(format!(
            "{:?} {} {} {}",
            s.step,
            var(s, "PERFHOUSE_ARM"),
            var(s, "PERFHOUSE_REPEAT"),
            var(s, "SIZE")
        ));
        let n = calls.len() - 1;
        drop(calls);
        Ok((self.script)(s, n))
    }

    fn end(&self, marker: &str) -> Result<Vec<String>, String> {
        self.ended.lock().unwrap().push(marker.to_string());
        Ok(Vec::new())
    }
}

fn ok_outcome() -> Outcome {
    Outcome {
        code: Some(0),
        timed_out: false,
        cancelled: false,
        wall: Duration::from_millis(5),
        usage: None,
    }
}

fn plan(dir: &Path, text: &str) -> Plan {
    let mut p = Plan::parse(text).unwrap();
    p.dir = dir.to_path_buf();
    p
}

fn run_with<F: Fn(&Spec, usize) -> Outcome + Sync>(
    dir: &Path,
    text: &str,
    exec: &Scripted<F>,
    cancel: &AtomicBool,
) -> perfhouse::runner::RunOutcome {
    let wh = Warehouse::open(dir.join("wh")).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let opts = RunOptions {
        quiet: true,
        ..Default::default()
    };
    execute_with(&wh, rt.handle(), plan(dir, text), &opts, exec, cancel).unwrap()
}

fn scripted<F: Fn(&Spec, usize) -> Outcome + Sync>(script: F) -> Scripted<F> {
    Scripted {
        calls: Mutex::new(Vec::new()),
        ended: Mutex::new(Vec::new()),
        script,
    }
}

#[test]
fn interleaved_repeats_alternate_arms_with_setup_and_teardown_around_each() {
    let dir = tempfile::tempdir().unwrap();
    let exec = scripted(|s, _| {
        if s.step == Step::Command {
            writeln!(&*s.stdout, "rate {}", var(s, "SIZE")).unwrap();
        }
        ok_outcome()
    });
    let out = run_with(
        dir.path(),
        r#"
suite = "seam"
[run]
repeats = 2
setup = "start"
command = "measure"
teardown = "stop"
[[arm]]
name = "A"
[[arm]]
name = "B"
[matrix]
SIZE = [1, 2]
[[metric]]
name = "rate"
regex = 'rate ([0-9]+)'
unit = "x"
better = "higher"
"#,
        &exec,
        &AtomicBool::new(false),
    );
    assert_eq!((out.trials, out.failed), (8, 0));
    let commands: Vec<String> = exec
        .calls
        .lock()
        .unwrap()
        .iter()
        .filter(|c| c.starts_with("Command"))
        .cloned()
        .collect();
    // Repeat by repeat, every arm × size in turn: A,B,A,B.
    assert_eq!(
        commands,
        [
            "Command A 0 1",
            "Command B 0 1",
            "Command A 0 2",
            "Command B 0 2",
            "Command A 1 1",
            "Command B 1 1",
            "Command A 1 2",
            "Command B 1 2",
        ]
    );
    let calls = exec.calls.lock().unwrap();
    assert_eq!(calls.len(), 24, "setup, command, teardown per trial");
    assert!(calls.chunks(3).all(|c| c[0].starts_with("Setup")
        && c[1].starts_with("Command")
        && c[2].starts_with("Teardown")));
    assert_eq!(exec.ended.lock().unwrap().len(), 8);
    let wh = dir.path().join("wh");
    assert_eq!(
        scalar(
            &wh,
            "select count(*) from trials where containment = 'scripted'"
        ),
        8
    );
    assert_eq!(
        scalar(&wh, "select sum(value) from metrics where name = 'rate'"),
        12.0,
        "the metric each command printed (1+2 per arm per repeat)"
    );
}

#[test]
fn discard_first_marks_each_arm_and_params_first_measured_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let exec = scripted(|_, _| ok_outcome());
    run_with(
        dir.path(),
        r#"
suite = "seam"
[run]
repeats = 3
warmup = 1
discard_first = true
command = "measure"
[[arm]]
name = "A"
[[arm]]
name = "B"
"#,
        &exec,
        &AtomicBool::new(false),
    );
    let rows = query(
        &dir.path().join("wh"),
        "select arm, repeat, phase, discarded from trials order by seq",
    );
    let got: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {}",
                r["arm"], r["repeat"], r["phase"], r["discarded"]
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            r#""A" 0 "warmup" false"#,
            r#""B" 0 "warmup" false"#,
            r#""A" 0 "measured" true"#,
            r#""B" 0 "measured" true"#,
            r#""A" 1 "measured" false"#,
            r#""B" 1 "measured" false"#,
            r#""A" 2 "measured" false"#,
            r#""B" 2 "measured" false"#,
        ]
    );
}

#[test]
fn a_timed_out_command_is_recorded_and_still_torn_down() {
    let dir = tempfile::tempdir().unwrap();
    let exec = scripted(|s, _| {
        if s.step == Step::Command && var(s, "PERFHOUSE_ARM") == "slow" {
            Outcome {
                code: None,
                timed_out: true,
                cancelled: false,
                wall: s.timeout,
                usage: None,
            }
        } else {
            ok_outcome()
        }
    });
    let out = run_with(
        dir.path(),
        r#"
suite = "seam"
[run]
command = "measure"
teardown = "stop"
timeout = "2s"
[[arm]]
name = "slow"
[[arm]]
name = "fast"
"#,
        &exec,
        &AtomicBool::new(false),
    );
    assert_eq!((out.trials, out.failed), (2, 1));
    let wh = dir.path().join("wh");
    let rows = query(
        &wh,
        "select arm, status, stderr_tail from trials order by seq",
    );
    assert_eq!(rows[0]["status"], "timeout");
    assert!(
        rows[0]["stderr_tail"]
            .as_str()
            .unwrap()
            .starts_with("command timed out after 2s")
    );
    assert_eq!(rows[1]["status"], "ok");
    assert_eq!(scalar(&wh, "select status from runs"), "partial");
    let calls = exec.calls.lock().unwrap();
    assert_eq!(
        calls.iter().filter(|c| c.starts_with("Teardown")).count(),
        2
    );
}

#[test]
fn cancellation_stops_the_command_runs_the_teardown_and_lands_an_interrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let cancel = AtomicBool::new(false);
    let exec = scripted(|s, n| {
        // Ctrl-C during the second trial's command.
        if s.step == Step::Command && n == 4 {
            s.cancel.store(true, Ordering::SeqCst);
            return Outcome {
                code: None,
                timed_out: false,
                cancelled: true,
                wall: Duration::from_millis(1),
                usage: None,
            };
        }
        // The teardown's flag is never set, even now.
        if s.step == Step::Teardown {
            assert!(!s.cancel.load(Ordering::SeqCst));
        }
        ok_outcome()
    });
    let out = run_with(
        dir.path(),
        r#"
suite = "seam"
[run]
repeats = 3
setup = "start"
command = "measure"
teardown = "stop"
"#,
        &exec,
        &cancel,
    );
    assert!(cancel.load(Ordering::SeqCst));
    assert_eq!(out.trials, 2, "the third trial never starts");
    assert!(
        out.warnings
            .iter()
            .any(|w| w == "interrupted: 1 of 3 trials not run")
    );
    let calls = exec.calls.lock().unwrap().clone();
    assert_eq!(
        calls
            .iter()
            .map(|c| &c[..c.find(' ').unwrap()])
            .collect::<Vec<_>>(),
        [
            "Setup", "Command", "Teardown", "Setup", "Command", "Teardown"
        ]
    );
    let wh = dir.path().join("wh");
    let rows = query(&wh, "select status from trials order by seq");
    assert_eq!(rows[0]["status"], "ok");
    assert_eq!(rows[1]["status"], "interrupted");
    assert_eq!(scalar(&wh, "select status from runs"), "interrupted");
}
