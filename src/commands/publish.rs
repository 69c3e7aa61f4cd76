//! `perfhouse publish`: commits the built site to a branch (gh-pages) through a temporary
//! `git worktree`, so the user's working tree, index and current branch are never touched.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::runner::git::git;

/// Removes the temporary worktree however publishing ends.
struct Worktree {
    repo: PathBuf,
    path: PathBuf,
}

impl Drop for Worktree {
    fn drop(&mut self) {
        let _ = Command::new("git")
            .arg("-C")
            .arg(&self.repo)
            .args(["worktree", "remove", "--force"])
            .arg(&self.path)
            .output();
        let _ = std::fs::remove_dir_all(&self.path);
        let _ = Command::new("git")
            .arg("-C")
            .arg(&self.repo)
            .args(["worktree", "prune"])
            .output();
    }
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    // The site's files (`site::writer::files`: the builder's cache is not the site's).
    for (rel, path) in
        crate::site::writer::files(from).with_context(|| from.display().to_string())?
    {
        let dest = to.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).with_context(|| parent.display().to_string())?;
        }
        std::fs::copy(&path, &dest).with_context(|| dest.display().to_string())?;
    }
    Ok(())
}

/// Returns the new commit, or `None` when the branch already holds exactly this site.
pub fn publish(repo: &Path, site: &Path, branch: &str, message: &str) -> Result<Option<String>> {
    if !site.join("index.html").is_file() {
        bail!(
            "{}: no index.html; build the site first (perfhouse site --out {})",
            site.display(),
            site.display()
        );
    }
    let root = PathBuf::from(git(repo, &["rev-parse", "--show-toplevel"])?);
    git(&root, &["check-ref-format", "--branch", branch])
        .with_context(|| format!("`{branch}` is not a valid branch name"))?;
    let site = site.canonicalize()?;
    let path = std::env::temp_dir().join(format!(
        "perfhouse-publish-{}-{}",
        std::process::id(),
        crate::model::now_us()
    ));
    let exists = git(
        &root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("refs/heads/{branch}"),
        ],
    )
    .is_ok();
    let wt = branch_worktree(&root, &path, branch, exists)?;
    replace_contents(&wt.path, &site)?;
    git(&wt.path, &["add", "-A", "."])?;
    let staged = git(&wt.path, &["status", "--porcelain"])?;
    if staged.is_empty() && exists {
        return Ok(None);
    }
    commit(&root, &wt.path, message)?;
    Ok(Some(git(&wt.path, &["rev-parse", "HEAD"])?))
}

/// A worktree of `branch` at `path` (removed when dropped); where the branch does not
/// exist yet, an empty orphan branch of that name.
fn branch_worktree(root: &Path, path: &Path, branch: &str, exists: bool) -> Result<Worktree> {
    let p = path.to_string_lossy().into_owned();
    if exists {
        git(root, &["worktree", "add", "--quiet", &p, branch])?;
    } else {
        git(root, &["worktree", "add", "--quiet", "--detach", &p])?;
    }
    let wt = Worktree {
        repo: root.to_path_buf(),
        path: path.to_path_buf(),
    };
    if !exists {
        git(&wt.path, &["checkout", "--quiet", "--orphan", branch])?;
        git(
            &wt.path,
            &["rm", "-r", "-f", "--quiet", "--ignore-unmatch", "."],
        )?;
    }
    Ok(wt)
}

/// Replaces everything in the worktree `wt` but its `.git` with the site: the branch holds
/// the site and nothing else.
fn replace_contents(wt: &Path, site: &Path) -> Result<()> {
    for entry in std::fs::read_dir(wt)? {
        let entry = entry?;
        if entry.file_name() == ".git" {
            continue;
        }
        let p = entry.path();
        if p.is_dir() {
            std::fs::remove_dir_all(&p)?;
        } else {
            std::fs::remove_file(&p)?;
        }
    }
    copy_tree(site, wt)
}

/// Commits what is staged in `wt` with `message` (even nothing: a first publish of an empty
/// site still makes the branch).
fn commit(root: &Path, wt: &Path, message: &str) -> Result<()> {
    let mut commit = Command::new("git");
    commit.arg("-C").arg(wt);
    // A CI machine may have no identity configured.
    if git(root, &["config", "user.email"]).is_err() {
        commit.args([
            "-c",
            "user.email=perfhouse@localhost",
            "-c",
            "user.name=perfhouse",
        ]);
    }
    let o = commit
        .args(["commit", "--quiet", "--allow-empty", "-m", message])
        .output()?;
    if !o.status.success() {
        bail!(
            "git commit failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        );
    }
    Ok(())
}
