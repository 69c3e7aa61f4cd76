//! What machine and code a run measured: CPU model, online cores, NUMA nodes, kernel,
//! governor, THP, hostname, git state of the plan's directory, perfhouse version, and only
//! the environment variables a plan allows (never tokens).

use std::path::Path;
use std::process::Command;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

#[derive(Debug, Clone)]
pub struct Captured {
    pub env: Value,
    pub fingerprint: String,
    pub host: Option<String>,
    pub git_commit: Option<String>,
    pub git_branch: Option<String>,
    pub git_dirty: Option<bool>,
}

pub fn capture(plan_dir: &Path, allowlist: &[String]) -> Captured {
    let cpu_model = read("/proc/cpuinfo").and_then(|c| {
        c.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    });
    let cores = read("/sys/devices/system/cpu/online");
    let numa = read("/sys/devices/system/node/online");
    let kernel = read("/proc/sys/kernel/osrelease");
    let governor = read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    let thp = read("/sys/kernel/mm/transparent_hugepage/enabled");
    let host = read("/proc/sys/kernel/hostname");
    let git_commit = git(plan_dir, &["rev-parse", "HEAD"]);
    let git_branch = git(plan_dir, &["rev-parse", "--abbrev-ref", "HEAD"]);
    let git_dirty = git_commit
        .as_ref()
        .and_then(|_| git(plan_dir, &["status", "--porcelain"]))
        .map(|s| !s.is_empty());
    let mut vars = Map::new();
    for k in allowlist {
        if let Ok(v) = std::env::var(k) {
            vars.insert(k.clone(), Value::String(v));
        }
    }
    let env = json!({
        "cpu_model": cpu_model,
        "online_cores": cores,
        "numa_nodes": numa,
        "kernel": kernel,
        "governor": governor,
        "thp": thp,
        "hostname": host,
        "perfhouse_version": env!("CARGO_PKG_VERSION"),
        "vars": vars,
    });
    let fp = format!("{cpu_model:?}|{cores:?}|{numa:?}|{kernel:?}|{governor:?}");
    Captured {
        env,
        fingerprint: hex::encode(&Sha256::digest(fp.as_bytes())[..8]),
        host,
        git_commit,
        git_branch,
        git_dirty,
    }
}

/// Number of NUMA nodes online (`0-1` → 2).
pub fn numa_nodes() -> usize {
    read("/sys/devices/system/node/online")
        .and_then(|s| crate::runner::plan::parse_cores(&s).ok())
        .map(|v| v.len())
        .unwrap_or(1)
}
