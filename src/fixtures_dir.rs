// Where files that other projects wrote are kept: never in this repository (the workplace's rule),
// but in the team's shared folder beside a clone, `../shared/fixtures/`, at the same
// repository-relative paths (`tests/fixtures/…`, `datasets/kedro-asv/…`), or where the
// environment variable `PERFHOUSE_FIXTURES` points. This file is the one place that names that
// folder: `build.rs` includes it to tell the tests whether the folder is there (the
// `shared_fixtures` cfg), and the library uses it for the demo's Kedro history.
//
// Plain items only (no `use`, no doc comments on the file): `build.rs` `include!`s it.

/// Where the third-party fixtures folder sits, relative to a clone.
pub const BESIDE_THE_CLONE: &str = "../shared/fixtures";

/// The third-party fixtures folder for the clone at `repo`, when it exists: `PERFHOUSE_FIXTURES`
/// if set, else `repo/../shared/fixtures`.
pub fn third_party_fixtures(repo: &std::path::Path) -> Option<std::path::PathBuf> {
    let dir = match std::env::var_os("PERFHOUSE_FIXTURES") {
        Some(d) if !d.is_empty() => std::path::PathBuf::from(d),
        _ => repo.join(BESIDE_THE_CLONE),
    };
    dir.is_dir()
        .then(|| std::fs::canonicalize(&dir).unwrap_or(dir))
}

/// A fixture by its repository-relative path (`tests/fixtures/catch2/x.xml`,
/// `datasets/kedro-asv/results`): the copy in the third-party folder when it holds the path,
/// else the repository's own (files this project made). Tests that read a third-party file
/// carry `#[cfg_attr(not(shared_fixtures), ignore = "needs ../shared/fixtures: a clone without it")]`,
/// so a clone without the folder reports them as ignored, by name.
pub fn resolve_fixture(repo: &std::path::Path, rel: &str) -> std::path::PathBuf {
    if let Some(shared) = third_party_fixtures(repo) {
        let p = shared.join(rel);
        if p.exists() {
            return p;
        }
    }
    repo.join(rel)
}
