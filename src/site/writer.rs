//! Writing the site: byte-identical rebuilds, and a file whose bytes did not change is
//! not rewritten (so a rebuild touches only what changed).

use std::fs;

use askama::Template;

use crate::site::SiteError;
use std::path::PathBuf;

// ---- build ----------------------------------------------------------------------------------

/// What a build did.
#[derive(Debug, Default)]
pub struct BuildReport {
    pub written: usize,
    pub unchanged: usize,
    pub runs: usize,
    /// Runs whose pages were already in the output, rendered from the same inputs
    /// (`site::cache`): neither rendered nor compared again.
    pub reused: usize,
    /// Files an earlier build left in the site's own folders that this one did not put
    /// ([`prune`]): removed.
    pub removed: usize,
}

impl BuildReport {
    /// ", 3 files an earlier build left removed" where it removed any, else nothing.
    pub fn removed_text(&self) -> String {
        if self.removed == 0 {
            String::new()
        } else {
            format!(
                ", {} an earlier build left removed",
                crate::present::count(self.removed, "file")
            )
        }
    }
}

pub(crate) struct Writer {
    pub(crate) out: PathBuf,
    pub(crate) report: BuildReport,
    /// Every file put so far (written or unchanged), relative to `out`.
    pub(crate) files: Vec<String>,
}

impl Writer {
    /// Writes `bytes` to `rel` under the output directory unless the file already holds them.
    pub(crate) fn put(&mut self, rel: &str, bytes: &[u8]) -> Result<(), SiteError> {
        self.files.push(rel.to_string());
        let path = self.out.join(rel);
        if fs::read(&path).is_ok_and(|old| old == bytes) {
            self.report.unchanged += 1;
            return Ok(());
        }
        let dir = path.parent().expect("page has a parent");
        fs::create_dir_all(dir).map_err(|source| SiteError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        fs::write(&path, bytes).map_err(|source| SiteError::Io {
            path: path.clone(),
            source,
        })?;
        self.report.written += 1;
        Ok(())
    }

    pub(crate) fn page(&mut self, rel: &str, page: &impl Template) -> Result<(), SiteError> {
        self.put(rel, render(rel, page)?.as_bytes())
    }
}

/// `page` rendered, its failure naming the page `rel`.
fn render(rel: &str, page: &impl Template) -> Result<String, SiteError> {
    page.render().map_err(|source| SiteError::Render {
        page: rel.to_string(),
        source,
    })
}

/// Pages rendered in memory (relative path, bytes), in order, for a [`Writer`] to write:
/// what a pure render of loaded data returns.
#[derive(Default)]
pub(crate) struct Rendered {
    pub(crate) files: Vec<(String, Vec<u8>)>,
}

impl Rendered {
    pub(crate) fn put(&mut self, rel: &str, bytes: Vec<u8>) {
        self.files.push((rel.to_string(), bytes));
    }

    pub(crate) fn page(&mut self, rel: &str, page: &impl Template) -> Result<(), SiteError> {
        self.put(rel, render(rel, page)?.into_bytes());
        Ok(())
    }
}

/// Removes the files an earlier build put in `out` (`earlier`, from the output's record of
/// them, [`crate::site::cache::put_files`]) that this build did not (`kept`): the pages of a
/// run no longer in the warehouse, a suite or series page at an address an earlier version
/// gave it, an earlier stylesheet; then each folder that leaves empty. Only what a build put is
/// ever removed, so a README or anything else beside the site stays. Called once a build has
/// written every file. Returns how many files it removed.
pub(crate) fn prune(
    out: &std::path::Path,
    earlier: &[String],
    kept: &std::collections::HashSet<&str>,
) -> Result<usize, SiteError> {
    let mut removed = 0;
    for rel in earlier.iter().filter(|f| !kept.contains(f.as_str())) {
        let path = out.join(rel);
        match fs::remove_file(&path) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => return Err(SiteError::Io { path, source }),
        }
        // Its folders, up to the output, while nothing else is in them.
        let mut dir = path.parent();
        while let Some(d) = dir.filter(|d| *d != out && d.starts_with(out)) {
            if fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
    }
    Ok(removed)
}

// ---- files ----------------------------------------------------------------------------------

/// The files of a built site under `dir`, as (path relative to `dir` with `/` separators,
/// path), sorted, the builder's cache (`site::cache`) left out: what `publish` copies to a
/// branch and uploads to a bucket.
pub fn files(dir: &std::path::Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() > 1 || e.file_name() != crate::site::CACHE_DIR)
    {
        let entry = entry.map_err(std::io::Error::other)?;
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(dir).expect("under dir");
            out.push((
                rel.to_string_lossy().replace('\\', "/"),
                entry.path().to_path_buf(),
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only what an earlier build put and this one did not goes, with each folder it leaves
    /// empty; a folder that holds anything else stays, and a file already gone is no error.
    #[test]
    fn prune_removes_left_over_files_and_the_folders_they_leave_empty() {
        let out = tempfile::tempdir().unwrap();
        let put = |rel: &str| {
            let p = out.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, rel).unwrap();
        };
        let built = [
            "index.html",
            "runs/a/index.html",
            "runs/a/flame/x.svg",
            "suites/old-12345678/op.html",
            "suites/s/kept.html",
            "suites/s/gone.html",
        ];
        for rel in built.iter().chain(&["suites/s/mine.txt"]) {
            put(rel);
        }
        // The record names what the earlier build put, one of them already gone.
        let earlier: Vec<String> = built
            .iter()
            .chain(&["suites/s/never-there.html"])
            .map(|f| f.to_string())
            .collect();
        let kept = ["index.html", "suites/s/kept.html"].into_iter().collect();
        assert_eq!(prune(out.path(), &earlier, &kept).unwrap(), 4);
        assert!(
            !out.path().join("runs").exists(),
            "runs/a/flame, runs/a, runs: all empty"
        );
        assert!(!out.path().join("suites/old-12345678").exists());
        for rel in ["index.html", "suites/s/kept.html", "suites/s/mine.txt"] {
            assert!(out.path().join(rel).is_file(), "{rel}");
        }
        assert!(!out.path().join("suites/s/gone.html").exists());
        assert!(out.path().is_dir());
    }
}
