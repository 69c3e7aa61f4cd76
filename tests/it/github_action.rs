//! The GitHub Action's scripts (`action/`), end to end on this machine: the PR comment against
//! a local stand-in for GitHub's REST API (created once, then updated; a fork's job posts
//! nothing), the job summary and annotations from a real comparison, and the install from a
//! release asset served locally (checksum verified; `cargo install` where no asset matches).

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use common::*;

/// PATH with the perfhouse under test first.
fn path_with_perfhouse(extra: Option<&Path>) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_perfhouse"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut dirs: Vec<PathBuf> = extra.into_iter().map(Path::to_path_buf).collect();
    dirs.push(bin);
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap().into_string().unwrap()
}

fn script(name: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new("bash");
    c.arg(repo().join("action").join(name)).args(args);
    c.env("PATH", path_with_perfhouse(None));
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("bash runs")
}

struct Api {
    child: Child,
    url: String,
    log: PathBuf,
}

impl Drop for Api {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Api {
    fn start(dir: &Path) -> Api {
        let log = dir.join("requests.log");
        std::fs::write(&log, "").unwrap();
        let mut child = Command::new("python3")
            .arg(repo().join("tests/fixtures/github-api/server.py"))
            .arg(&log)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Api {
            child,
            url: format!("http://127.0.0.1:{}", line.trim()),
            log,
        }
    }

    fn requests(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn comments(&self) -> Vec<serde_json::Value> {
        let o = Command::new("curl")
            .args(["-fsS", &format!("{}/state", self.url)])
            .output()
            .unwrap();
        serde_json::from_slice(&o.stdout).unwrap()
    }
}

#[test]
fn the_pr_comment_is_created_once_then_updated_and_a_fork_posts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let api = Api::start(dir.path());
    let env = [
        ("GITHUB_API_URL", api.url.as_str()),
        ("GITHUB_REPOSITORY", "octo/widgets"),
        ("GITHUB_TOKEN", "t0ken"),
        ("PR_NUMBER", "7"),
    ];
    let first = dir.path().join("first.md");
    std::fs::write(&first, "**perfhouse**: 1 regressed\n").unwrap();
    let o = script("comment.sh", &[first.to_str().unwrap()], &env);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("commented on #7"), "{}", stdout(&o));
    // The second push to the same PR: the same comment, updated.
    let second = dir.path().join("second.md");
    std::fs::write(&second, "**perfhouse**: 0 regressed\n").unwrap();
    let o = script("comment.sh", &[second.to_str().unwrap()], &env);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("updated comment 1000 on #7"),
        "{}",
        stdout(&o)
    );
    let comments = api.comments();
    assert_eq!(comments.len(), 1, "{comments:?}");
    let body = comments[0]["body"].as_str().unwrap();
    assert!(
        body.contains("0 regressed") && !body.contains("1 regressed"),
        "{body}"
    );
    assert!(body.contains("<!-- perfhouse-report -->"));
    let calls: Vec<String> = api
        .requests()
        .iter()
        .map(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        calls,
        [
            "GET /repos/octo/widgets/issues/7/comments?per_page=100&page=1",
            "POST /repos/octo/widgets/issues/7/comments",
            "GET /repos/octo/widgets/issues/7/comments?per_page=100&page=1",
            "PATCH /repos/octo/widgets/issues/comments/1000",
        ]
    );
    assert!(api.requests().iter().all(|l| l.ends_with("Bearer t0ken")));

    // A fork's pull request: no call at all; the report and PR number are left for upload.
    let before = api.requests().len();
    let art = dir.path().join("artifact");
    let mut fork = env.to_vec();
    fork[3] = ("PR_NUMBER", "9");
    fork.push(("IS_FORK", "true"));
    fork.push(("ARTIFACT_DIR", art.to_str().unwrap()));
    let o = script("publish-report.sh", &[first.to_str().unwrap()], &fork);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        api.requests().len(),
        before,
        "a fork's job made an API call"
    );
    assert_eq!(
        std::fs::read_to_string(art.join("pr-number")).unwrap(),
        "9\n"
    );
    assert_eq!(
        std::fs::read(art.join("report.md")).unwrap(),
        std::fs::read(&first).unwrap()
    );
    // The comment workflow then posts it (with write permission) from the artifact.
    let o = script(
        "comment.sh",
        &[art.join("report.md").to_str().unwrap()],
        &[env[0], env[1], env[2], ("PR_NUMBER", "9")],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(api.comments().len(), 2);
}

#[test]
fn the_report_goes_to_the_job_summary_with_annotations_and_fails_on_regression() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    let input = two_arms(dir.path(), 4);
    ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "s",
            "--format",
            "metrics-json",
            input.to_str().unwrap(),
        ],
    );
    let summary = dir.path().join("summary.md");
    let out = dir.path().join("out");
    let env = [
        ("PERFHOUSE_WAREHOUSE", wh.to_str().unwrap()),
        ("BASELINE", "latest@base"),
        ("CANDIDATE", "latest@cand"),
        ("OUT_DIR", out.to_str().unwrap()),
        ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
    ];
    let o = script("report.sh", &[], &env);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), report);
    let annotations: Vec<String> = stdout(&o)
        .lines()
        .filter(|l| l.starts_with("::error"))
        .map(str::to_string)
        .collect();
    assert!(
        annotations.iter().any(|a| a.starts_with("::error title=perfhouse regressed::op_0000_latency_with_a_long_descriptive_name (base → cand) 40%")),
        "{annotations:?}"
    );
    // The metrics the candidate did not slow down are not annotated.
    assert!(
        !annotations.iter().any(|a| a.contains("op_0003")),
        "{annotations:?}"
    );
    let mut fail = env.to_vec();
    fail.push(("FAIL_ON_REGRESSION", "true"));
    let o = script("report.sh", &[], &fail);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
}

/// A free loopback port (bound, then released for the server to take).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn install_takes_the_release_asset_verifies_it_and_falls_back_to_cargo_install() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    let stage = dir.path().join("stage");
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_perfhouse"), stage.join("perfhouse")).unwrap();
    let arch = String::from_utf8(Command::new("uname").arg("-m").output().unwrap().stdout).unwrap();
    let target = match arch.trim() {
        "x86_64" => "x86_64-unknown-linux-gnu",
        "aarch64" => "aarch64-unknown-linux-gnu",
        other => panic!("no release target for {other}"),
    };
    let asset = format!("perfhouse-v0.1.0-{target}.tar.xz");
    let sh = |cmd: &str| {
        let o = Command::new("bash")
            .args(["-c", cmd])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    sh(&format!(
        "tar -C stage -cf - perfhouse | xz -1 > assets/{asset} && (cd assets && sha256sum {asset} > {asset}.sha256)"
    ));
    let port = free_port();
    let mut server = Command::new("python3")
        .args([
            "-m",
            "http.server",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
        ])
        .current_dir(&assets)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}");
    for _ in 0..100 {
        if Command::new("curl")
            .args(["-fsS", "-o", "/dev/null", &url])
            .status()
            .unwrap()
            .success()
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let bin = dir.path().join("bin");
    let gh_path = dir.path().join("github_path");
    let env = [
        ("PERFHOUSE_VERSION", "0.1.0"),
        ("PERFHOUSE_RELEASE_URL", url.as_str()),
        ("PERFHOUSE_BIN_DIR", bin.to_str().unwrap()),
        ("GITHUB_PATH", gh_path.to_str().unwrap()),
    ];
    let start = std::time::Instant::now();
    let o = script("install.sh", &[], &env);
    eprintln!(
        "install from the local release asset: {:.2} s",
        start.elapsed().as_secs_f64()
    );
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("SHA-256 verified"), "{}", stdout(&o));
    let v = Command::new(bin.join("perfhouse"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&v.stdout).trim(), "perfhouse 0.1.0");
    assert_eq!(
        std::fs::read_to_string(&gh_path).unwrap().trim(),
        bin.to_str().unwrap()
    );

    // A tampered asset is refused.
    sh(&format!("echo 0000 > assets/{asset}.sha256"));
    std::fs::remove_file(bin.join("perfhouse")).unwrap();
    let o = script("install.sh", &[], &env);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("does not match the published 0000"),
        "{}",
        stdout(&o)
    );
    assert!(!bin.join("perfhouse").exists());

    // No asset for this version: `cargo install` (a recording stand-in for cargo here: the
    // real one would build for minutes).
    let fake = dir.path().join("fakebin");
    std::fs::create_dir_all(&fake).unwrap();
    let args_file = dir.path().join("cargo-args");
    std::fs::write(
        fake.join("cargo"),
        format!(
            "#!/bin/sh\necho \"$@\" > {}\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=$2; shift; done\nmkdir -p \"$root/bin\" && printf '#!/bin/sh\\necho built\\n' > \"$root/bin/perfhouse\" && chmod +x \"$root/bin/perfhouse\"\n",
            args_file.display()
        ),
    )
    .unwrap();
    sh(&format!("chmod +x {}", fake.join("cargo").display()));
    let root = dir.path().join("cargo-root");
    let mut c = Command::new("bash");
    c.arg(repo().join("action/install.sh"))
        .env("PATH", path_with_perfhouse(Some(&fake)))
        .envs(env)
        .env("PERFHOUSE_VERSION", "9.9.9")
        .env("PERFHOUSE_CARGO_ROOT", &root);
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&args_file).unwrap().trim(),
        format!(
            "install --locked --features cloud --root {} --version 9.9.9 perfhouse",
            root.display()
        )
    );
    let v = Command::new(bin.join("perfhouse")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&v.stdout).trim(), "built");
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn git_arms_replace_the_plans_arms_base_first() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        "suite = \"s\"\n[run]\nrepeats = 2\ncommand = \"true\"\n[[arm]]\nname = \"only\"\nenv = { X = \"1\" }\n",
    )
    .unwrap();
    let out = ok(
        &dir.path().join("wh"),
        &[
            "run",
            plan.to_str().unwrap(),
            "--git-arm",
            "base=origin/main",
            "--git-arm",
            "head=HEAD",
            "--dry-run",
        ],
    );
    let arms: Vec<&str> = out
        .lines()
        .filter_map(|l| {
            ["base", "head", "only"]
                .into_iter()
                .find(|a| l.contains(&format!(" {a} ")))
        })
        .collect();
    assert_eq!(arms, ["base", "head", "base", "head"], "{out}");
}

/// A run in a git checkout keeps its commit's first line (label `commit_message`), as imports
/// of other tools' histories do: the trend's hover and the alerts show what the commit did.
#[test]
fn a_run_in_a_git_checkout_keeps_its_commits_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(
        repo.join("plan.toml"),
        "suite = \"s\"\n[run]\nrepeats = 1\ncommand = \"true\"\n[[arm]]\nname = \"only\"\n",
    )
    .unwrap();
    git(&repo, &["add", "plan.toml"]);
    git(
        &repo,
        &[
            "commit",
            "-q",
            "-m",
            "Speed up the tokenizer\n\nThe body is not kept.",
        ],
    );
    let wh = dir.path().join("wh");
    ok(
        &wh,
        &["run", repo.join("plan.toml").to_str().unwrap(), "-q"],
    );
    let labels = scalar(&wh, "select labels from runs");
    let labels: serde_json::Value = serde_json::from_str(labels.as_str().unwrap()).unwrap();
    assert_eq!(labels["commit_message"], "Speed up the tokenizer");
    let head = git(&repo, &["rev-parse", "HEAD"]);
    assert_eq!(
        scalar(&wh, "select git_commit from runs").as_str().unwrap(),
        head.trim()
    );
}
