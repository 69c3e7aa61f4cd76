//! `perfhouse publish`: a gh-pages commit through a temporary worktree.

use crate::common;

use std::fs;

use common::*;

#[test]
fn publish_commits_the_site_without_touching_the_working_tree() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    fs::write(repo.join("a.txt"), "one\n").unwrap();
    git(&repo, &["add", "a.txt"]);
    git(
        &repo,
        &[
            "-c",
            "user.email=t@t",
            "-c",
            "user.name=t",
            "commit",
            "-qm",
            "first",
        ],
    );
    // A dirty working tree and a staged change that must survive untouched.
    fs::write(repo.join("a.txt"), "two\n").unwrap();
    fs::write(repo.join("b.txt"), "staged\n").unwrap();
    git(&repo, &["add", "b.txt"]);
    let status = git(&repo, &["status", "--porcelain"]);
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let wh = dir.path().join("wh");
    let site = dir.path().join("site");
    ok(
        &wh,
        &[
            "ingest",
            "--suite",
            "ops",
            two_arms(dir.path(), 3).to_str().unwrap(),
        ],
    );
    ok(&wh, &["site", "--out", site.to_str().unwrap()]);
    let args = [
        "publish",
        "--repo",
        repo.to_str().unwrap(),
        "--site",
        site.to_str().unwrap(),
    ];
    let out = ok(&wh, &args);
    assert!(out.contains("published"), "{out}");
    assert_eq!(git(&repo, &["status", "--porcelain"]), status);
    assert_eq!(git(&repo, &["rev-parse", "HEAD"]), head);
    assert_eq!(
        git(&repo, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        "main"
    );
    let files = git(&repo, &["ls-tree", "-r", "--name-only", "gh-pages"]);
    assert!(
        files.lines().any(|f| f == "index.html") && files.lines().any(|f| f == ".nojekyll"),
        "{files}"
    );
    assert!(
        !files.lines().any(|f| f == "a.txt"),
        "only the site is on the branch"
    );
    assert_eq!(
        git(&repo, &["worktree", "list"]).lines().count(),
        1,
        "temporary worktree removed"
    );
    // The same site again: nothing new.
    let again = ok(&wh, &args);
    assert!(again.contains("nothing to publish"), "{again}");
    assert_eq!(git(&repo, &["rev-list", "--count", "gh-pages"]).trim(), "1");
}
