//! `perf record` attached to a trial's target processes; `perf script` → inferno's
//! collapse-perf → `stacks`.
//!
//! On-CPU: `perf record -F <freq> -g` (or `--call-graph dwarf`) `-p <pids>`; `perf script`
//! without the period field, so each sample weighs 1 (weights are samples).
//! Off-CPU: `perf record -e sched:sched_switch -a -g` (system-wide: the switch back in happens
//! in another task's context); each switch-out of a target thread is weighted by the µs until
//! that thread is switched in again (as bcc's offcputime does), written back as the sample's
//! period so inferno's collapse sums µs per stack. Needs root (or perf_event_paranoid ≤ -1).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::runner::plan::StackKind;

pub struct Profiler {
    child: Child,
    data: PathBuf,
    kind: StackKind,
    pids: Vec<i32>,
}

/// Whether `perf` can record here (installed, and permitted: containers often forbid
/// perf_event_open), with the reason when not. Checked once per run with a 1-sample recording.
pub fn available() -> Result<(), String> {
    match Command::new("perf").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return Err(format!(
                "`perf --version` failed: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
        Err(e) => return Err(format!("perf is not installed ({e}); install linux-perf")),
    }
    let out =
        std::env::temp_dir().join(format!("perfhouse-perf-check-{}.data", std::process::id()));
    let o = Command::new("perf")
        .args(["record", "-q", "-g", "-o"])
        .arg(&out)
        .args(["--", "true"])
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&out);
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "perf record is not permitted here ({}); see /proc/sys/kernel/perf_event_paranoid",
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
        ))
    }
}

pub fn start(
    kind: StackKind,
    frequency: u32,
    call_graph: crate::runner::plan::CallGraph,
    pids: &[i32],
    dir: &Path,
) -> Result<Profiler, String> {
    available()?;
    if pids.is_empty() {
        return Err("no process matched the profile target".to_string());
    }
    let data = dir.join(match kind {
        StackKind::Oncpu => "perf-oncpu.data",
        StackKind::Offcpu => "perf-offcpu.data",
    });
    let mut cmd = Command::new("perf");
    cmd.arg("record").arg("-q").arg("-o").arg(&data);
    match kind {
        StackKind::Oncpu => {
            cmd.arg("-F").arg(frequency.to_string());
            let pid_list: Vec<String> = pids.iter().map(|p| p.to_string()).collect();
            cmd.arg("-p").arg(pid_list.join(","));
        }
        StackKind::Offcpu => {
            cmd.args(["-e", "sched:sched_switch", "-a"]);
        }
    }
    match call_graph {
        crate::runner::plan::CallGraph::Dwarf => cmd.args(["--call-graph", "dwarf"]),
        crate::runner::plan::CallGraph::Fp => cmd.arg("-g"),
    };
    // perf starts with its events disabled and is enabled through a control FIFO once it is
    // ready: its start-up (walking /proc for every existing task, `-a` above all) can take
    // longer than the command measured, and a fixed wait then recorded only its last ms.
    let control = control_fifos(dir);
    if let Some((ctl, ack)) = &control {
        cmd.args(["-D", "-1", "--control"]).arg(format!(
            "fifo:{},{}",
            ctl.display(),
            ack.display()
        ));
    }
    let log = std::fs::File::create(dir.join("perf-record.log")).map_err(|e| e.to_string())?;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("starting perf record: {e}"))?;
    match control {
        Some((ctl, ack)) => {
            if let Err(why) = enable(&ctl, &ack, std::time::Duration::from_secs(20)) {
                let _ = child.kill();
                let _ = child.wait();
                let log = std::fs::read_to_string(dir.join("perf-record.log")).unwrap_or_default();
                return Err(format!("{why}: {}", log.trim()));
            }
        }
        // perf without --control: give it a moment to attach.
        None => std::thread::sleep(std::time::Duration::from_millis(150)),
    }
    Ok(Profiler {
        child,
        data,
        kind,
        pids: pids.to_vec(),
    })
}

/// Two FIFOs for `perf record --control` where this perf has it, else `None`.
fn control_fifos(dir: &Path) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    static HAS_CONTROL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let has = *HAS_CONTROL.get_or_init(|| {
        Command::new("perf")
            .args(["record", "-h"])
            .output()
            .is_ok_and(|o| {
                String::from_utf8_lossy(&o.stdout).contains("--control")
                    || String::from_utf8_lossy(&o.stderr).contains("--control")
            })
    });
    if !has {
        return None;
    }
    let (ctl, ack) = (dir.join("perf-ctl.fifo"), dir.join("perf-ack.fifo"));
    for f in [&ctl, &ack] {
        let _ = std::fs::remove_file(f);
        let c = std::ffi::CString::new(f.as_os_str().as_encoded_bytes()).ok()?;
        // SAFETY: a valid NUL-terminated path; mkfifo has no other preconditions.
        if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
            return None;
        }
    }
    Some((ctl, ack))
}

/// Sends `enable` through perf's control FIFO and waits for its `ack`, i.e. until the events
/// are on. Done on a helper thread so a perf that died at start cannot hang the run.
fn enable(ctl: &Path, ack: &Path, wait: std::time::Duration) -> Result<(), String> {
    let (ctl, ack) = (ctl.to_path_buf(), ack.to_path_buf());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = (|| -> std::io::Result<String> {
            use std::io::{Read, Write};
            let mut c = std::fs::OpenOptions::new().write(true).open(&ctl)?;
            c.write_all(b"enable\n")?;
            let mut a = std::fs::File::open(&ack)?;
            let mut buf = [0u8; 16];
            let n = a.read(&mut buf)?;
            Ok(String::from_utf8_lossy(&buf[..n]).into_owned())
        })();
        let _ = tx.send(r);
    });
    match rx.recv_timeout(wait) {
        Ok(Ok(a)) if a.starts_with("ack") => Ok(()),
        Ok(Ok(a)) => Err(format!("perf answered `{}` to enable", a.trim())),
        Ok(Err(e)) => Err(format!("perf control FIFO: {e}")),
        Err(_) => Err(format!("perf did not start recording within {wait:?}")),
    }
}

impl Profiler {
    /// Stops recording (SIGINT, as Ctrl-C) and returns folded stacks (`stack weight` lines).
    pub fn finish(mut self, dir: &Path) -> Result<Vec<u8>, String> {
        // SAFETY: kill has no memory preconditions; the child is ours and not yet reaped.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGINT);
        }
        let status = self.child.wait().map_err(|e| e.to_string())?;
        if !self.data.exists() {
            let log = std::fs::read_to_string(dir.join("perf-record.log")).unwrap_or_default();
            return Err(format!(
                "perf record wrote nothing (exit {status}): {}",
                log.trim()
            ));
        }
        let fields = match self.kind {
            StackKind::Oncpu => "comm,pid,tid,time,event,ip,sym,dso",
            StackKind::Offcpu => "comm,pid,tid,time,event,trace,ip,sym,dso",
        };
        let out = Command::new("perf")
            .args(["script", "-F", fields, "-i"])
            .arg(&self.data)
            .stderr(Stdio::null())
            .output()
            .map_err(|e| format!("perf script: {e}"))?;
        if !out.status.success() {
            return Err(format!("perf script failed ({})", out.status));
        }
        let script = match self.kind {
            StackKind::Oncpu => out.stdout,
            StackKind::Offcpu => {
                weigh_offcpu(&String::from_utf8_lossy(&out.stdout), &self.pids).into_bytes()
            }
        };
        std::fs::write(dir.join("perf-script.txt"), &script).map_err(|e| e.to_string())?;
        let folded =
            crate::ingest::perf_script::parse_with(&dir.join("perf-script.txt"), &script[..], true)
                .map(|f| {
                    f.stacks
                        .iter()
                        .map(|s| format!("{} {}\n", s.stack, s.weight))
                        .collect::<String>()
                        .into_bytes()
                })
                .map_err(|e| e.to_string())?;
        Ok(folded)
    }
}

/// Rewrites `perf script` output of `sched:sched_switch` samples into one sample per
/// switch-out of a thread of `pids`, whose period is the µs until that thread ran again.
pub fn weigh_offcpu(script: &str, pids: &[i32]) -> String {
    struct Out {
        t: f64,
        head: String,
        stack: Vec<String>,
    }
    let mut pending: HashMap<i64, Out> = HashMap::new();
    let mut out = String::new();
    let mut blocks = script.split("\n\n");
    for block in blocks.by_ref() {
        let mut lines = block.lines().filter(|l| !l.trim().is_empty());
        let Some(head) = lines.next() else { continue };
        // `comm pid/tid time: sched:sched_switch: prev_comm=… prev_pid=N … ==> next_comm=… next_pid=M …`
        let Some((left, trace)) = head.split_once(" sched:sched_switch:") else {
            continue;
        };
        let Some(time) = left
            .split_whitespace()
            .last()
            .and_then(|t| t.trim_end_matches(':').parse::<f64>().ok())
        else {
            continue;
        };
        let field = |k: &str| {
            trace
                .split_whitespace()
                .find_map(|kv| kv.strip_prefix(k))
                .and_then(|v| v.parse::<i64>().ok())
        };
        let (Some(prev), Some(next)) = (field("prev_pid="), field("next_pid=")) else {
            continue;
        };
        if let Some(o) = pending.remove(&next) {
            let us = ((time - o.t) * 1e6).round().max(0.0) as u64;
            if us > 0 {
                out.push_str(&format!("{} {us} offcpu:\n", o.head));
                for l in &o.stack {
                    out.push_str(l);
                    out.push('\n');
                }
                out.push('\n');
            }
        }
        // The process id of the thread switching out is the event line's pid.
        let pid = left
            .split_whitespace()
            .find_map(|t| t.split_once('/').and_then(|(p, _)| p.parse::<i32>().ok()));
        if prev != 0 && pid.is_some_and(|p| pids.contains(&p)) {
            let head = left.trim_end().trim_end_matches(':').to_string();
            pending.insert(
                prev,
                Out {
                    t: time,
                    head: format!("{head}:"),
                    stack: lines.map(String::from).collect(),
                },
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offcpu_time_runs_from_switch_out_to_switch_in() {
        let script = "\
app 10/11 100.000000: sched:sched_switch: prev_comm=app prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
\t    ffff schedule ([kernel.kallsyms])
\t    aaaa futex_wait (/lib/libc.so)
\t    bbbb main (/app)

other 20/20 100.000500: sched:sched_switch: prev_comm=other prev_pid=20 prev_prio=120 prev_state=S ==> next_comm=app next_pid=11 next_prio=120
\t    ffff schedule ([kernel.kallsyms])

app 10/11 100.002000: sched:sched_switch: prev_comm=app prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=x next_pid=30 next_prio=120
\t    ffff schedule ([kernel.kallsyms])
\t    cccc epoll_wait (/lib/libc.so)

x 30/30 100.005000: sched:sched_switch: prev_comm=x prev_pid=30 prev_prio=120 prev_state=S ==> next_comm=app next_pid=11 next_prio=120
\t    ffff schedule ([kernel.kallsyms])
";
        let weighed = weigh_offcpu(script, &[10]);
        let folded =
            crate::ingest::perf_script::parse(Path::new("offcpu"), weighed.as_bytes()).unwrap();
        let mut got: Vec<(String, f64)> = folded
            .stacks
            .iter()
            .map(|s| (s.stack.clone(), s.weight))
            .collect();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        // 500 µs parked in futex_wait, then 3000 µs in epoll_wait; pid 20 and 30 are not targets.
        assert_eq!(
            got,
            vec![
                ("app;main;futex_wait;schedule".to_string(), 500.0),
                ("app;epoll_wait;schedule".to_string(), 3000.0),
            ]
            .into_iter()
            .collect::<Vec<_>>()
            .into_iter()
            .fold(Vec::new(), |mut v, x| {
                v.push(x);
                v.sort_by(|a: &(String, f64), b| a.0.cmp(&b.0));
                v
            })
        );
    }
}
