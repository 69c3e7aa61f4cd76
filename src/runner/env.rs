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
    /// Allow-listed variables that look like secrets (their values are not stored).
    pub warnings: Vec<String>,
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
    let mut warnings = Vec::new();
    for k in allowlist {
        if let Ok(v) = std::env::var(k) {
            if is_secret_name(k) {
                warnings.push(format!(
                    "env_allowlist names `{k}`, which looks like a secret: stored as [redacted]"
                ));
                vars.insert(k.clone(), Value::String("[redacted]".to_string()));
            } else {
                vars.insert(k.clone(), Value::String(v));
            }
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
        warnings,
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

/// Whether a variable's name says it holds a secret (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
/// `DB_PASSWORD`, `API_KEY`, …).
pub fn is_secret_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    [
        "TOKEN",
        "SECRET",
        "KEY",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "AUTH",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// `text` with the value of every secret-looking variable (of perfhouse's environment and
/// `extra`, the trial's own) replaced by `[redacted NAME]`, and any `NAME=value` whose name
/// looks secret too: a failing command's output is stored, and it may have printed `env`.
pub fn redact(text: &str, extra: &[(String, String)]) -> String {
    let mut secrets: Vec<(String, String)> = std::env::vars()
        .chain(extra.iter().cloned())
        .filter(|(k, v)| is_secret_name(k) && v.len() >= 4)
        .collect();
    // Longest first, so a value that contains another is replaced whole.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.1.len()));
    let mut out = text.to_string();
    for (k, v) in &secrets {
        out = out.replace(v.as_str(), &format!("[redacted {k}]"));
    }
    static ASSIGN: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = ASSIGN.get_or_init(|| {
        regex::Regex::new(r"(?i)\b([A-Z0-9_]*(?:TOKEN|SECRET|KEY|PASSWORD|PASSWD|CREDENTIAL|AUTH)[A-Z0-9_]*)=([^\s\[]\S*)")
            .expect("a valid pattern")
    });
    re.replace_all(&out, "$1=[redacted]").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_by_value_and_by_assignment() {
        let extra = vec![
            ("MY_API_TOKEN".to_string(), "tok-123456".to_string()),
            (
                "PLAIN".to_string(),
                "tok-123456-not-secret-name".to_string(),
            ),
        ];
        let text =
            "curl -H 'Authorization: tok-123456' failed\nDB_PASSWORD=hunter22 x\nPATH=/usr/bin";
        let r = redact(text, &extra);
        assert!(!r.contains("tok-123456'"), "{r}");
        assert!(r.contains("[redacted MY_API_TOKEN]"), "{r}");
        assert!(r.contains("DB_PASSWORD=[redacted]"), "{r}");
        assert!(!r.contains("hunter22"), "{r}");
        assert!(r.contains("PATH=/usr/bin"), "{r}");
        assert!(is_secret_name("GITHUB_TOKEN") && !is_secret_name("PATH"));
    }
}
