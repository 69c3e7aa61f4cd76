//! Arms that are git revisions (`git = "origin/main"`, `git = "HEAD"`): each revision is
//! checked out once in a worktree of its own (`git worktree add --detach`, never touching the
//! repository's working tree or index), built there once with the plan's `run.build`, and its
//! trials run there. The repository is the one holding the plan's working directory; the
//! arm's commands run at the same place inside the worktree.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// A revision checked out and built.
#[derive(Debug, Clone)]
pub struct Checkout {
    pub rev: String,
    pub commit: String,
    /// Where the arm's commands run (the plan's workdir, inside the worktree).
    pub workdir: PathBuf,
}

/// `git -C dir args…`: its trimmed stdout, or an error naming the command, the directory and
/// git's message (shared with `perfhouse publish`).
pub fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .with_context(|| {
            format!(
                "running git {} in {} (is git installed?)",
                args.join(" "),
                dir.display()
            )
        })?;
    if !o.status.success() {
        bail!(
            "git {} failed in {}: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&o.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// The full commit id of `rev` in the repository at `dir`.
pub fn resolve(dir: &Path, rev: &str) -> Result<String> {
    git(
        dir,
        &["rev-parse", "--verify", &format!("{rev}^{{commit}}")],
    )
    .with_context(|| format!("git revision {rev:?} does not name a commit"))
}

/// The commits after `good` up to and including `bad`, oldest first, along the ancestry path
/// (what `git bisect` walks).
pub fn between(dir: &Path, good: &str, bad: &str) -> Result<Vec<String>> {
    let out = git(
        dir,
        &[
            "rev-list",
            "--reverse",
            "--ancestry-path",
            &format!("{good}..{bad}"),
        ],
    )?;
    Ok(out.lines().map(str::to_string).collect())
}

/// The commit's first line, for reports.
pub fn subject(dir: &Path, commit: &str) -> String {
    git(dir, &["log", "-1", "--format=%s", commit]).unwrap_or_default()
}

/// Checks `commit` out under `root/<commit>` (reused when it is there and built) and runs
/// `build` in it once; `workdir` is the plan's working directory in the main checkout.
pub fn checkout(
    workdir: &Path,
    root: &Path,
    rev: &str,
    commit: &str,
    build: Option<&str>,
) -> Result<Checkout> {
    let top = PathBuf::from(git(workdir, &["rev-parse", "--show-toplevel"])?);
    let rel = workdir
        .canonicalize()?
        .strip_prefix(top.canonicalize()?)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let tree = root.join(commit);
    let built = tree.join(".perfhouse-built");
    if !tree.exists() {
        std::fs::create_dir_all(root).with_context(|| root.display().to_string())?;
        git(
            &top,
            &[
                "worktree",
                "add",
                "--detach",
                &tree.to_string_lossy(),
                commit,
            ],
        )?;
    }
    let dir = tree.join(&rel);
    if let Some(cmd) = build
        && !built.exists()
    {
        let log = tree.join(".perfhouse-build.log");
        let o = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .current_dir(&dir)
            .output()
            .with_context(|| format!("running the build `{cmd}` in {}", dir.display()))?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        std::fs::write(&log, &text).with_context(|| log.display().to_string())?;
        if !o.status.success() {
            let tail: Vec<&str> = text.lines().rev().take(10).collect();
            bail!(
                "build `{cmd}` of {rev} ({}) failed with {}; last lines of {}:\n{}",
                &commit[..commit.len().min(10)],
                o.status,
                log.display(),
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            );
        }
        std::fs::write(&built, b"").with_context(|| built.display().to_string())?;
    }
    Ok(Checkout {
        rev: rev.to_string(),
        commit: commit.to_string(),
        workdir: dir,
    })
}

/// Removes the worktrees under `root` (and git's records of them).
pub fn remove_all(workdir: &Path, root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for e in entries.flatten() {
        let _ = git(
            workdir,
            &["worktree", "remove", "--force", &e.path().to_string_lossy()],
        );
    }
    let _ = git(workdir, &["worktree", "prune"]);
    let _ = std::fs::remove_dir_all(root);
}
