//! Build identity for the site's cache (`site::cache`): a hash of everything that shapes a
//! page (sources, templates, stylesheet, locked dependencies), so pages rendered by another
//! build of perfhouse are never reused.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

// `third_party_fixtures`: the one definition of where third-party fixtures are (src/fixtures_dir.rs).
#[allow(dead_code)]
mod fixtures_dir {
    include!("src/fixtures_dir.rs");
}

/// Tells the tests whether the third-party fixtures folder is beside this clone: with it, cfg
/// `shared_fixtures` is set and every test runs; without it, the tests that read those files
/// are ignored and say why (`.ci/run` requires the folder, so none is ignored there).
fn shared_fixtures() {
    println!("cargo::rustc-check-cfg=cfg(shared_fixtures)");
    println!("cargo:rerun-if-env-changed=PERFHOUSE_FIXTURES");
    let repo = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    if let Some(dir) = fixtures_dir::third_party_fixtures(&repo) {
        println!("cargo:rustc-cfg=shared_fixtures");
        println!("cargo:rerun-if-changed={}", dir.display());
    }
}

fn main() {
    shared_fixtures();
    let mut paths = vec![PathBuf::from("Cargo.lock"), PathBuf::from("Cargo.toml")];
    for dir in ["src", "templates", "assets"] {
        println!("cargo:rerun-if-changed={dir}");
        files(Path::new(dir), &mut paths);
    }
    println!("cargo:rerun-if-changed=Cargo.lock");
    paths.sort();
    let mut h = std::hash::DefaultHasher::new();
    for p in &paths {
        p.hash(&mut h);
        std::fs::read(p).unwrap_or_default().hash(&mut h);
    }
    println!("cargo:rustc-env=PERFHOUSE_BUILD_HASH={:016x}", h.finish());
}
