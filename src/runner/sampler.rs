//! CPU sampling on a tokio task: `/proc/stat` (aggregate and per core) and `/proc/<pid>/stat`
//! of named processes (cmdline regex, descendants included) → `cpu_samples`, from which the
//! views derive `cores_busy`, `proc_cores` and `cpu_ms_per_req`.
//!
//! Formats: proc(5). `/proc/stat` `cpuN` lines hold user nice system idle iowait irq softirq
//! steal (guest time is already inside user): busy = user+nice (user), system+irq+softirq
//! (system), idle = idle+iowait, total = all eight. `/proc/<pid>/stat` fields 14/15 are
//! utime/stime; the comm field (2) may contain spaces and parentheses, so fields are counted
//! after the last `)`. Processes are (re)discovered every second; between discoveries only the
//! known pids are read, which keeps the sampler's own cost low.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use regex::Regex;

use crate::model::CpuSample;

#[derive(Debug, Clone)]
pub struct Config {
    pub interval: Duration,
    /// Cores to sample (all when `None`).
    pub cores: Option<BTreeSet<u32>>,
    pub processes: Vec<(String, Regex)>,
}

/// One `cpu`/`cpuN` line: (scope, user, system, idle, total).
pub fn parse_stat_line(line: &str) -> Option<(String, i64, i64, i64, i64)> {
    let mut it = line.split_whitespace();
    let scope = it.next()?;
    if !scope.starts_with("cpu") {
        return None;
    }
    let v: Vec<i64> = it.take(8).map(|x| x.parse().ok()).collect::<Option<_>>()?;
    if v.len() < 4 {
        return None;
    }
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    Some((
        scope.to_string(),
        at(0) + at(1),
        at(2) + at(5) + at(6),
        at(3) + at(4),
        v.iter().sum(),
    ))
}

/// `/proc/<pid>/stat` → (ppid, utime, stime).
pub fn parse_pid_stat(text: &str) -> Option<(i32, i64, i64)> {
    let (_, rest) = text.rsplit_once(')')?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some((
        f.get(1)?.parse().ok()?,
        f.get(11)?.parse().ok()?,
        f.get(12)?.parse().ok()?,
    ))
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// Sampling state of one trial.
pub struct State {
    cfg: Config,
    trial_id: i32,
    /// pid → process name it is counted under.
    tracked: HashMap<i32, String>,
    last_scan: Option<Instant>,
    /// Pids already given a first sample.
    seen: std::collections::HashSet<i32>,
    started_ns: i64,
    boot_ns: Option<i64>,
    pub samples: Vec<CpuSample>,
}

impl State {
    pub fn new(cfg: Config, trial_id: i32) -> State {
        State {
            cfg,
            trial_id,
            tracked: HashMap::new(),
            last_scan: None,
            seen: Default::default(),
            started_ns: now_ns(),
            boot_ns: boot_time().map(|b| b * 1_000_000_000),
            samples: Vec::new(),
        }
    }

    /// Finds the processes matching each regex, and their descendants.
    pub fn scan(&mut self) {
        self.tracked.clear();
        let mut parent: HashMap<i32, i32> = HashMap::new();
        let mut roots: Vec<(i32, String)> = Vec::new();
        let me = std::process::id() as i32;
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return;
        };
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            if pid == me {
                continue;
            }
            if let Some((ppid, _, _)) = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| parse_pid_stat(&s))
            {
                parent.insert(pid, ppid);
            }
            let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
                continue;
            };
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            let cmd = cmd.trim();
            if let Some((name, _)) = self.cfg.processes.iter().find(|(_, re)| re.is_match(cmd)) {
                roots.push((pid, name.clone()));
            }
        }
        for (pid, name) in &roots {
            self.tracked.insert(*pid, name.clone());
        }
        // Descendants: walk each pid's ancestry up to a matched root.
        for &pid in parent.keys() {
            let mut p = pid;
            for _ in 0..64 {
                let Some(&pp) = parent.get(&p) else { break };
                if let Some(name) = roots.iter().find(|(r, _)| *r == pp).map(|(_, n)| n.clone()) {
                    self.tracked.entry(pid).or_insert(name);
                    break;
                }
                p = pp;
            }
        }
        self.last_scan = Some(Instant::now());
    }

    /// Pids currently counted under `name`.
    pub fn pids_of(&self, name: &str) -> Vec<i32> {
        let mut v: Vec<i32> = self
            .tracked
            .iter()
            .filter(|(_, n)| *n == name)
            .map(|(p, _)| *p)
            .collect();
        v.sort_unstable();
        v
    }

    pub fn sample(&mut self) {
        let t_ns = now_ns();
        self.sample_cores(t_ns);
        if self.cfg.processes.is_empty() {
            return;
        }
        // Until something matches (the command is still starting), look on every sample.
        if self.tracked.is_empty()
            || self
                .last_scan
                .is_none_or(|t| t.elapsed() >= Duration::from_secs(1))
        {
            self.scan();
        }
        self.track_children();
        let tracked: BTreeMap<i32, String> =
            self.tracked.iter().map(|(p, n)| (*p, n.clone())).collect();
        for (pid, name) in tracked {
            self.sample_process(t_ns, pid, &name);
        }
    }

    /// One sample of every CPU line of `/proc/stat` (the total and each core the config
    /// keeps).
    fn sample_cores(&mut self, t_ns: i64) {
        let Ok(stat) = std::fs::read_to_string("/proc/stat") else {
            return;
        };
        for line in stat.lines().take_while(|l| l.starts_with("cpu")) {
            let Some((scope, user, system, idle, total)) = parse_stat_line(line) else {
                continue;
            };
            if let (Some(cores), Some(n)) = (
                &self.cfg.cores,
                scope
                    .strip_prefix("cpu")
                    .and_then(|n| n.parse::<u32>().ok()),
            ) && !cores.contains(&n)
            {
                continue;
            }
            self.samples.push(CpuSample {
                trial_id: self.trial_id,
                t_ns,
                scope,
                user_ticks: user,
                system_ticks: system,
                idle_ticks: idle,
                total_ticks: total,
            });
        }
    }

    /// Children of tracked processes join at once (a server forking workers, `taskset`
    /// exec'ing the real program), not at the next full scan.
    fn track_children(&mut self) {
        let mut frontier: Vec<(i32, String)> =
            self.tracked.iter().map(|(p, n)| (*p, n.clone())).collect();
        while let Some((pid, name)) = frontier.pop() {
            let Ok(kids) = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
            else {
                continue;
            };
            for kid in kids
                .split_whitespace()
                .filter_map(|k| k.parse::<i32>().ok())
            {
                if let std::collections::hash_map::Entry::Vacant(e) = self.tracked.entry(kid) {
                    e.insert(name.clone());
                    frontier.push((kid, name.clone()));
                }
            }
        }
    }

    /// One sample of the tracked process `pid` (matched as `name`), from `/proc/<pid>/stat`;
    /// nothing where it has ended.
    fn sample_process(&mut self, t_ns: i64, pid: i32, name: &str) {
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return;
        };
        let Some((_, ut, st)) = parse_pid_stat(&text) else {
            return;
        };
        // A process that started during the trial ran from its start: a zero sample there
        // makes its Δ exact even when it was found a sample or two late.
        if self.seen.insert(pid)
            && let (Some(boot), Some(start)) = (self.boot_ns, start_ticks(&text))
        {
            let start_ns = boot + start * 10_000_000;
            if start_ns > self.started_ns && start_ns < t_ns {
                self.samples.push(CpuSample {
                    trial_id: self.trial_id,
                    t_ns: start_ns,
                    scope: format!("proc:{name}:{pid}"),
                    user_ticks: 0,
                    system_ticks: 0,
                    idle_ticks: 0,
                    total_ticks: 0,
                });
            }
        }
        self.samples.push(CpuSample {
            trial_id: self.trial_id,
            t_ns,
            scope: format!("proc:{name}:{pid}"),
            user_ticks: ut,
            system_ticks: st,
            idle_ticks: 0,
            total_ticks: 0,
        });
    }
}

/// A sampler running on the runtime until [`Running::stop`].
pub struct Running {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<State>,
}

pub fn start(rt: &tokio::runtime::Handle, cfg: Config, trial_id: i32) -> Running {
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let interval = cfg.interval;
    let task = rt.spawn(async move {
        let mut state = State::new(cfg, trial_id);
        let mut tick = tokio::time::interval(interval);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = tick.tick() => state.sample(),
                _ = &mut stopped => {
                    state.sample();
                    break;
                }
            }
        }
        state
    });
    Running { stop, task }
}

impl Running {
    /// Takes a last sample and returns every sample of the trial.
    pub fn stop(self, rt: &tokio::runtime::Handle) -> Vec<CpuSample> {
        let _ = self.stop.send(());
        rt.block_on(self.task)
            .map(|s| s.samples)
            .unwrap_or_default()
    }
}

/// `/proc/<pid>/stat` field 22: start time in ticks after boot.
fn start_ticks(text: &str) -> Option<i64> {
    let (_, rest) = text.rsplit_once(')')?;
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Boot time (s since the epoch) from `/proc/stat`'s `btime`.
fn boot_time() -> Option<i64> {
    std::fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("btime ").and_then(|v| v.trim().parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_captured_proc_files() {
        // Expected values read off the capture by hand (tests/fixtures/samples/procfs):
        // `cpu  54595 0 9516 21020 210 0 171 573 0 0` → user+nice 54595, system+irq+softirq
        // 9516+0+171 = 9687, idle+iowait 21020+210 = 21230, total of the first eight 86085.
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/samples/procfs");
        let stat = std::fs::read_to_string(dir.join("proc_stat.local-capture.txt")).unwrap();
        let mut lines = stat.lines();
        assert_eq!(
            parse_stat_line(lines.next().unwrap()),
            Some(("cpu".to_string(), 54595, 9687, 21230, 86085))
        );
        // `cpu0 27456 0 4271 11008 30 0 16 261 0 0`
        assert_eq!(
            parse_stat_line(lines.next().unwrap()),
            Some(("cpu0".to_string(), 27456, 4287, 11038, 43042))
        );
        let cores = stat
            .lines()
            .filter_map(parse_stat_line)
            .filter(|l| l.0 != "cpu")
            .count();
        assert_eq!(cores, 2, "the capture is of a 2-CPU machine");
        // `8140 (cat) R 8125 … 0 0 …`: ppid 8125, utime 0, stime 0 (fields 4, 14, 15).
        let pid = std::fs::read_to_string(dir.join("proc_self_stat.local-capture.txt")).unwrap();
        assert_eq!(parse_pid_stat(&pid), Some((8125, 0, 0)));
        assert_eq!(start_ticks(&pid), Some(43287));
        assert_eq!(
            parse_pid_stat("12 (a) b) c) S 7 1 1 0 -1 0 0 0 0 0 40 9 0 0"),
            Some((7, 40, 9))
        );
    }
}
