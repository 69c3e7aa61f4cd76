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
