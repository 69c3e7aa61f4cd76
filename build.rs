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

fn main() {
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
