//! `[counters]`: hardware counters of the measured command, per trial, in user space, by
//! running it under `perf stat -x,` (as rustc-perf counts `instructions:u`). Each event perf
//! counted is a metric of the trial, named and read as the `perf-stat` ingest format reads
//! `perf stat` output (`instructions:u` → `instructions_u`, `ingest::perf_stat`).
//!
//! Where the machine has no PMU (most virtual machines, this one included) perf prints
//! `<not supported>`: a probe before the first trial finds out, the run says so once (a
//! warning and a note of the run) and records nothing — never zeros — and the commands then
//! run without perf.

use std::path::Path;
use std::process::Command;

use crate::model::Metric;

/// What `[counters]` counts when it names no events.
pub const DEFAULT_EVENTS: [&str; 4] = ["instructions", "cycles", "branch-misses", "cache-misses"];

/// The file each trial's counters are written to, in its directory.
pub const OUT: &str = "perf-stat.csv";

/// `instructions` → `instructions:u`: counted in user space only (the kernel's work on the
/// command's behalf, and interrupts', stays out of the count).
pub fn user_space(event: &str) -> String {
    format!("{event}:u")
}

/// The metric name an event's count lands under (`instructions_u`).
pub fn metric_name(event: &str) -> String {
    crate::ingest::perf_stat::slug(&user_space(event))
}

/// Which of `events` perf counts on this machine, from one `perf stat -x, -e …:u -- true`;
/// the error says why none is (no perf, no permission, no PMU) in words for the run's
/// warning.
pub fn probe(events: &[String]) -> Result<Vec<String>, String> {
    let list: Vec<String> = events.iter().map(|e| user_space(e)).collect();
    let out = Command::new("perf")
        .args(["stat", "-x,", "-e", &list.join(","), "--", "true"])
        .output()
        .map_err(|e| format!("perf stat could not start ({e}): is linux-perf installed?"))?;
    let text = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        let last = text.lines().rev().find(|l| !l.trim().is_empty());
        return Err(format!(
            "perf stat failed: {}",
            last.unwrap_or("no message")
        ));
    }
    let counted = counted(&text, events);
    if counted.is_empty() {
        return Err(format!(
            "perf stat counts none of {} here (`<not supported>`: this machine shows perf no \
             hardware counters (PMU), as in most virtual machines)",
            list.join(", ")
        ));
    }
    Ok(counted)
}

/// The events of `events` that `perf stat -x,` output `text` holds a count of.
fn counted(text: &str, events: &[String]) -> Vec<String> {
    let Ok(parsed) = crate::ingest::perf_stat::parse(Path::new("perf stat"), text) else {
        return Vec::new();
    };
    let names: Vec<&str> = parsed
        .trials
        .iter()
        .flat_map(|t| &t.metrics)
        .map(|m| m.name.as_str())
        .collect();
    events
        .iter()
        .filter(|e| names.contains(&metric_name(e).as_str()))
        .cloned()
        .collect()
}

/// `command` under `perf stat`, its counts written to `out` (`-x,` CSV): perf starts the
/// command (`bash -c`) and counts it and every process it starts.
pub fn wrap(command: &str, events: &[String], out: &Path) -> String {
    let list: Vec<String> = events.iter().map(|e| user_space(e)).collect();
    format!(
        "exec perf stat -x, -o {} -e {} -- bash -c {}",
        shell_quote(&out.to_string_lossy()),
        list.join(","),
        shell_quote(command)
    )
}

/// The trial's counters from its `perf stat` output: one metric per counted event, origin
/// `perf-stat`; an event perf did not count is left out (never a zero).
pub fn read(out: &Path, trial_id: i32) -> Result<Vec<Metric>, String> {
    let text = std::fs::read_to_string(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let parsed = crate::ingest::perf_stat::parse(out, &text).map_err(|e| e.to_string())?;
    Ok(parsed
        .trials
        .into_iter()
        .flat_map(|t| t.metrics)
        .map(|m| Metric { trial_id, ..m })
        .collect())
}

/// `text` as one word for bash: in single quotes, each `'` as `'\''`.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_quoted_whole_and_events_are_counted_in_user_space() {
        let w = wrap(
            "echo 'a b' | gzip > $PERFHOUSE_TRIAL_DIR/o",
            &["instructions".into(), "branch-misses".into()],
            Path::new("/tmp/t 1/perf-stat.csv"),
        );
        assert_eq!(
            w,
            r#"exec perf stat -x, -o '/tmp/t 1/perf-stat.csv' -e instructions:u,branch-misses:u -- bash -c 'echo '\''a b'\'' | gzip > $PERFHOUSE_TRIAL_DIR/o'"#
        );
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf %s {}", shell_quote("it's $HOME")))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "it's $HOME");
        assert_eq!(metric_name("branch-misses"), "branch_misses_u");
    }

    #[test]
    fn only_counted_events_are_counted() {
        // perf 6.1 here (no PMU): `perf stat -x, -e instructions:u,task-clock:u -- true`.
        let text = "<not supported>,,instructions:u,0,100.00,,\n\
                    0.32,msec,task-clock:u,322017,100.00,0.398,CPUs utilized\n";
        let events = ["instructions".to_string(), "task-clock".to_string()];
        assert_eq!(counted(text, &events), ["task-clock"]);
        assert!(counted("<not supported>,,instructions:u,0,100.00,,\n", &events).is_empty());
    }
}
