//! Process control: every command in its own process group with `PERFHOUSE_TRIAL_ID` in its
//! environment; on timeout the group is killed, and after every trial `/proc` is swept for
//! processes carrying the trial's marker (daemons that `setsid` out of the group, as load
//! generators do) until none survives.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const MARKER: &str = "PERFHOUSE_TRIAL_ID";

/// How one command ended.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Exit code; `None` when killed by a signal.
    pub code: Option<i32>,
    pub timed_out: bool,
    pub wall: Duration,
}

impl Outcome {
    pub fn ok(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }
}

/// Runs `bash -c cmd` in a new process group, output appended to the given files, killed
/// (whole group) when `timeout` passes.
pub fn run(
    cmd: &str,
    dir: &Path,
    env: &[(String, String)],
    marker: &str,
    stdout: &File,
    stderr: &File,
    timeout: Duration,
    cancel: &std::sync::atomic::AtomicBool,
) -> std::io::Result<Outcome> {
    let start = Instant::now();
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env(MARKER, marker)
        .stdin(Stdio::null())
        .stdout(stdout.try_clone()?)
        .stderr(stderr.try_clone()?)
        .process_group(0)
        .spawn()?;
    let pid = child.id() as i32;
    // A thread waits, so a fast command returns at once and a slow one is bounded.
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = tx.send(());
        status
    });
    // Wait in short slices so Ctrl-C (which only perfhouse's own group receives) is noticed.
    let deadline = start + timeout;
    let mut timed_out = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left.min(Duration::from_millis(100))) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let cancelled = cancel.load(std::sync::atomic::Ordering::SeqCst);
                if cancelled || left.is_zero() {
                    timed_out = !cancelled;
                    kill_group(pid);
                    break;
                }
            }
        }
    }
    let status = waiter.join().expect("waiter thread")?;
    Ok(Outcome {
        code: status.code(),
        timed_out,
        wall: start.elapsed(),
    })
}

/// SIGTERM to the group, then SIGKILL after a grace period.
pub fn kill_group(pgid: i32) {
    unsafe {
        libc::killpg(pgid, libc::SIGTERM);
    }
    let deadline = Instant::now() + Duration::from_millis(500);
    while Instant::now() < deadline {
        if unsafe { libc::killpg(pgid, 0) } != 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Pids whose environment carries `MARKER=marker`.
pub fn marked(marker: &str) -> Vec<i32> {
    let needle = format!("{MARKER}={marker}");
    let me = std::process::id() as i32;
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        if env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()) && !is_zombie(pid) {
            out.push(pid);
        }
    }
    out
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(true)
}

/// Kills every process marked with `marker` (TERM, then KILL) and checks that none is left.
/// Returns how many were found, or the pids that survived.
pub fn sweep(marker: &str) -> Result<usize, Vec<i32>> {
    let found = marked(marker);
    if found.is_empty() {
        return Ok(0);
    }
    for &p in &found {
        unsafe {
            libc::kill(p, libc::SIGTERM);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let left = marked(marker);
        if left.is_empty() {
            return Ok(found.len());
        }
        if Instant::now() > deadline {
            for &p in &left {
                unsafe {
                    libc::kill(p, libc::SIGKILL);
                }
            }
            std::thread::sleep(Duration::from_millis(100));
            let survivors = marked(marker);
            return if survivors.is_empty() {
                Ok(found.len())
            } else {
                Err(survivors)
            };
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The last `max` bytes of a file, as text (a failed trial's stderr tail).
pub fn tail(path: &Path, max: usize) -> String {
    let bytes = std::fs::read(path).unwrap_or_default();
    let start = bytes.len().saturating_sub(max);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}
