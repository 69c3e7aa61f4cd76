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
    /// Stopped because the run was interrupted (SIGINT/SIGTERM to perfhouse).
    pub cancelled: bool,
    pub wall: Duration,
    /// The kernel's accounting of the command and the descendants it waited for (`wait4`),
    /// with its cgroup's memory peak; `None` where a scripted executor gives none.
    pub usage: Option<crate::model::Usage>,
}

impl Outcome {
    pub fn ok(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }
}

/// A cgroup v2 of one trial, where the machine lets perfhouse make one (cgroup2 mounted and
/// writable, as for root here): every command of the trial starts inside it, so no process
/// escapes it (`setsid`, double forks and `env -i` daemons included), and [`Cgroup::kill`]
/// ends them all with `cgroup.kill`, as systemd does.
#[derive(Debug)]
pub struct Cgroup {
    dir: std::path::PathBuf,
    /// `<dir>/cgroup.procs` as a C string, written from the child before `exec`.
    procs: std::ffi::CString,
}

impl Cgroup {
    /// A new cgroup `name` beside perfhouse's own, or why there is none.
    pub fn create(name: &str) -> Result<Cgroup, String> {
        let mountinfo =
            std::fs::read_to_string("/proc/self/mountinfo").map_err(|e| e.to_string())?;
        // Fields: … mount-point … - fstype source options
        let mount = mountinfo
            .lines()
            .find_map(|l| {
                let (pre, post) = l.split_once(" - ")?;
                (post.split_whitespace().next()? == "cgroup2")
                    .then(|| pre.split_whitespace().nth(4).map(str::to_string))?
            })
            .ok_or("no cgroup2 file system is mounted")?;
        let own = std::fs::read_to_string("/proc/self/cgroup")
            .map_err(|e| e.to_string())?
            .lines()
            .find_map(|l| l.strip_prefix("0::").map(str::to_string))
            .ok_or("perfhouse is in no cgroup v2")?;
        let parent = Path::new(&mount).join(own.trim_start_matches('/'));
        let dir = parent.join(name);
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        if !dir.join("cgroup.kill").exists() {
            let _ = std::fs::remove_dir(&dir);
            return Err("the kernel has no cgroup.kill (Linux < 5.14)".to_string());
        }
        let procs = std::ffi::CString::new(dir.join("cgroup.procs").as_os_str().as_encoded_bytes())
            .map_err(|e| e.to_string())?;
        Ok(Cgroup { dir, procs })
    }

    /// `memory.peak`: the most memory the cgroup's processes held together since it was made
    /// (page cache included); `None` where the memory controller is not enabled for it
    /// (cgroup v1 memory, as on hybrid hosts) or the kernel predates the file (Linux 5.19).
    pub fn memory_peak(&self) -> Option<i64> {
        std::fs::read_to_string(self.dir.join("memory.peak"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Pids still in the cgroup.
    pub fn pids(&self) -> Vec<i32> {
        std::fs::read_to_string(self.dir.join("cgroup.procs"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    }

    /// SIGKILLs every process in the cgroup and waits (≤ 2 s) until it is empty. Returns how
    /// many there were, or the pids that are still there.
    pub fn kill(&self) -> Result<usize, Vec<i32>> {
        let found = self.pids().len();
        if found == 0 {
            return Ok(0);
        }
        let _ = std::fs::write(self.dir.join("cgroup.kill"), "1");
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            let left = self.pids();
            if left.is_empty() {
                return Ok(found);
            }
            if Instant::now() > deadline {
                return Err(left);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        let _ = self.kill();
        let _ = std::fs::remove_dir(&self.dir);
    }
}

#[allow(clippy::too_many_arguments)]
/// Runs `bash -c cmd` in a new process group (inside `cgroup` when given), output appended
/// to the given files, killed (whole group) when `timeout` passes.
pub fn run(
    cmd: &str,
    dir: &Path,
    env: &[(String, String)],
    marker: &str,
    stdout: &File,
    stderr: &File,
    timeout: Duration,
    cancel: &std::sync::atomic::AtomicBool,
    cgroup: Option<&Cgroup>,
) -> std::io::Result<Outcome> {
    let start = Instant::now();
    let mut command = Command::new("bash");
    if let Some(cg) = cgroup {
        join_cgroup_at_exec(&mut command, cg);
    }
    let child = command
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        // The perfhouse binary itself, for plans whose workload it ships (transfer-bench);
        // a plan's own `PERFHOUSE` wins.
        .envs(std::env::current_exe().ok().map(|exe| ("PERFHOUSE", exe)))
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env(MARKER, marker)
        .stdin(Stdio::null())
        .stdout(stdout.try_clone()?)
        .stderr(stderr.try_clone()?)
        .process_group(0)
        .spawn()?;
    let pid = child.id() as i32;
    // A thread waits, so a fast command returns at once and a slow one is bounded. It reaps
    // the child with wait4 (not `Child::wait`) for the resource usage the kernel kept.
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = wait4(pid);
        // Reaped above: dropping the handle neither waits nor kills.
        drop(child);
        let _ = tx.send(());
        status
    });
    let ended = wait_bounded(&rx, pid, start + timeout, cancel);
    let (status, mut usage) = waiter.join().expect("waiter thread")?;
    let wall = start.elapsed();
    usage.cgroup_memory_peak_bytes = cgroup.and_then(Cgroup::memory_peak);
    Ok(Outcome {
        code: status.code(),
        timed_out: ended == Ended::TimedOut,
        cancelled: ended == Ended::Cancelled,
        wall,
        usage: Some(usage),
    })
}

/// Makes the child of `command` move itself into `cg` before it execs, so every process it
/// starts is in the cgroup from its first instruction.
fn join_cgroup_at_exec(command: &mut Command, cg: &Cgroup) {
    let procs = cg.procs.clone();
    // SAFETY: the closure runs in the forked child before exec and calls only
    // async-signal-safe functions (open, write, close) on memory prepared before the fork.
    unsafe {
        command.pre_exec(move || {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // "0" moves the writing process itself.
            let n = libc::write(fd, b"0".as_ptr().cast(), 1);
            libc::close(fd);
            if n != 1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// How the wait for a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// It exited (whatever its status).
    Exited,
    /// Its deadline passed: its group was killed.
    TimedOut,
    /// `cancel` was set: its group was killed.
    Cancelled,
}

/// Waits for the waiter thread's word on `done` until `deadline`, in short slices so Ctrl-C
/// (which only perfhouse's own group receives) is noticed; kills the group `pid` leads when
/// the deadline passes or `cancel` is set.
fn wait_bounded(
    done: &mpsc::Receiver<()>,
    pid: i32,
    deadline: Instant,
    cancel: &std::sync::atomic::AtomicBool,
) -> Ended {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match done.recv_timeout(left.min(Duration::from_millis(100))) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => return Ended::Exited,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let cancelled = cancel.load(std::sync::atomic::Ordering::SeqCst);
                if cancelled || left.is_zero() {
                    kill_group(pid);
                    return if cancelled {
                        Ended::Cancelled
                    } else {
                        Ended::TimedOut
                    };
                }
            }
        }
    }
}

/// Waits for child `pid` to end and reaps it, with the resource usage the kernel accounted to
/// it: its own and that of every descendant it waited for (`wait4(2)`, as `/usr/bin/time`
/// reads it). A descendant nobody waited for (a daemon that double-forked) is not in it.
fn wait4(pid: i32) -> std::io::Result<(std::process::ExitStatus, crate::model::Usage)> {
    use std::os::unix::process::ExitStatusExt;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data; all-zero bytes are a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: both pointers are to live locals of the right types; wait4 writes only them.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    // suseconds_t is i64 on Linux x86-64 but i32 on macOS: the conversion is not useless there.
    #[allow(clippy::useless_conversion)]
    let ns = |t: libc::timeval| i64::from(t.tv_sec) * 1_000_000_000 + i64::from(t.tv_usec) * 1_000;
    let usage = crate::model::Usage {
        // Linux reports ru_maxrss in KiB.
        peak_rss_bytes: ru.ru_maxrss as i64 * 1024,
        cgroup_memory_peak_bytes: None,
        user_cpu_ns: ns(ru.ru_utime),
        system_cpu_ns: ns(ru.ru_stime),
        voluntary_ctx_switches: ru.ru_nvcsw as i64,
        involuntary_ctx_switches: ru.ru_nivcsw as i64,
        major_faults: ru.ru_majflt as i64,
        minor_faults: ru.ru_minflt as i64,
    };
    Ok((std::process::ExitStatus::from_raw(status), usage))
}

/// SIGTERM to the group, then SIGKILL after a grace period.
pub fn kill_group(pgid: i32) {
    // SAFETY: killpg has no memory preconditions; a stale pgid only makes it fail (ESRCH).
    unsafe {
        libc::killpg(pgid, libc::SIGTERM);
    }
    let deadline = Instant::now() + Duration::from_millis(500);
    while Instant::now() < deadline {
        // SAFETY: signal 0 only probes whether the group still exists.
        if unsafe { libc::killpg(pgid, 0) } != 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: as above; SIGKILL to a group that may already be gone.
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
        // SAFETY: kill has no memory preconditions; a pid that exited only makes it fail.
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
                // SAFETY: as above.
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
