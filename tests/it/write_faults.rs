//! Every write failure point, injected (issue 39 item 2), the short version of
//! benches/write_faults.sh: an `annotate` with each of its write-side filesystem calls failing
//! with EIO in turn, and an `ingest` with each of its fsyncs and renames failing, through the
//! LD_PRELOAD shim benches/faultshim.c. After each: a non-zero exit naming the I/O error (or
//! exit 0 where the failed call was a cleanup), `check` 0 problems, and the note or the run
//! there whole or not at all.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// The shim, built into `dir` (`None`, said as skipped, without a C compiler).
fn shim(dir: &Path) -> Option<PathBuf> {
    let out = dir.join("faultshim.so");
    let built = Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&out)
        .arg(repo().join("benches/faultshim.c"))
        .arg("-ldl")
        .status();
    match built {
        Ok(s) if s.success() => Some(out),
        _ => {
            skip("cc", "no C compiler to build benches/faultshim.c");
            None
        }
    }
}

/// `perfhouse` on `wh` with the `n`-th call of `class` under `wh` failing (0: none, counted
/// into `log`); returns the output and the failed call (empty when the run made fewer).
fn faulted(
    shim: &Path,
    wh: &Path,
    class: &str,
    n: usize,
    log: &Path,
    args: &[&str],
) -> (std::process::Output, String) {
    let hit = log.with_extension("hit");
    let _ = fs::remove_file(&hit);
    let o = Command::new(env!("CARGO_BIN_EXE_perfhouse"))
        .env_remove("PERFHOUSE_WAREHOUSE")
        .env("LD_PRELOAD", shim)
        .env("FAULT_ROOT", wh)
        .env("FAULT_CLASS", class)
        .env("FAULT_N", n.to_string())
        .env("FAULT_LOG", log)
        .env("FAULT_HIT", &hit)
        .arg("--warehouse")
        .arg(wh)
        .args(args)
        .output()
        .unwrap();
    (o, fs::read_to_string(&hit).unwrap_or_default())
}

fn copy_dir(from: &Path, to: &Path) {
    for f in files_under(from) {
        let dest = to.join(f.strip_prefix(from).unwrap());
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::copy(&f, &dest).unwrap();
    }
}

/// Runs `args` on a fresh copy of `template` once per call of each class it makes, that
/// call failing; `whole` says (from a query) whether the operation's result is there whole
/// (`Some(true)`), not at all (`Some(false)`), or in part (`None`). Returns the points tried.
fn every_point(
    shim: &Path,
    dir: &Path,
    template: &Path,
    classes: &[&str],
    args: &[&str],
    whole: &dyn Fn(&Path) -> Option<bool>,
) -> usize {
    let mut tried = 0;
    for class in classes {
        let wh = dir.join(format!("count-{class}"));
        copy_dir(template, &wh);
        let log = dir.join(format!("{class}.log"));
        let _ = fs::remove_file(&log);
        let (o, _) = faulted(shim, &wh, class, 0, &log, args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let calls = fs::read_to_string(&log).unwrap_or_default().lines().count();
        for n in 1..=calls {
            let wh = dir.join(format!("{class}-{n}"));
            copy_dir(template, &wh);
            let (o, hit) = faulted(shim, &wh, class, n, &dir.join("run.log"), args);
            if hit.is_empty() {
                continue; // threads made the calls in another order: fewer of them this time
            }
            tried += 1;
            let err = stderr(&o);
            let at = format!("{args:?}, {class} #{n} ({})", hit.trim());
            assert!(!err.contains("panicked"), "{at}: {err}");
            let state = whole(&wh);
            assert!(state.is_some(), "{at}: the result is there in part");
            if o.status.success() {
                assert_eq!(state, Some(true), "{at}: exit 0, yet nothing was done");
            } else {
                assert!(
                    err.contains("Input/output error"),
                    "{at}: failed without naming the cause: {err}"
                );
            }
            let check = ok(&wh, &["check"]);
            assert!(check.contains(": 0 problems"), "{at}: {check}");
            let _ = fs::remove_dir_all(&wh);
        }
    }
    tried
}

#[test]
fn every_failed_write_of_annotate_and_ingest_leaves_all_or_nothing_and_names_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    let Some(shim) = shim(dir.path()) else { return };
    let template = dir.path().join("template");
    let first = dir.path().join("first.json");
    fs::write(
        &first,
        r#"{"metrics": [{"name": "pps", "value": 1250, "unit": "packets/s", "better": "higher"}]}"#,
    )
    .unwrap();
    ok(
        &template,
        &["ingest", "--suite", "s", first.to_str().unwrap()],
    );
    let run = scalar(&template, "select run_id from runs");
    let run = run.as_str().unwrap();
    // annotate: every class of call.
    let note = |wh: &Path| match scalar(
        wh,
        "select count(*) from annotations where text = 'whole or not at all'",
    )
    .as_i64()
    {
        Some(0) => Some(false),
        Some(1) => Some(true),
        _ => None,
    };
    let tried = every_point(
        &shim,
        dir.path(),
        &template,
        &["write", "fsync", "rename", "unlink", "mkdir", "creat"],
        &["annotate", run, "whole or not at all"],
        &note,
    );
    assert!(tried >= 15, "only {tried} failure points");
    // ingest: the fsyncs and renames of its commit, an aiperf export streamed into parts.
    let jsonl = dir.path().join("profile_export.jsonl");
    let mut text = String::new();
    for i in 0..500u64 {
        text.push_str(&format!(
            r#"{{"metadata":{{"request_start_ns":{},"benchmark_phase":"profiling"}},"metrics":{{"request_latency":{{"value":12,"unit":"ms"}}}},"error":null}}"#,
            1_700_000_000_000_000_000u64 + i * 1_000_000
        ));
        text.push('\n');
    }
    fs::write(&jsonl, text).unwrap();
    let landed = |wh: &Path| {
        let runs = scalar(wh, "select count(*) from runs").as_i64();
        let requests = scalar(wh, "select count(*) from requests").as_i64();
        match (runs, requests) {
            (Some(1), Some(0)) => Some(false),
            (Some(2), Some(500)) => Some(true),
            _ => None,
        }
    };
    let tried = every_point(
        &shim,
        dir.path(),
        &template,
        &["fsync", "rename"],
        &["ingest", "--suite", "s", jsonl.to_str().unwrap()],
        &landed,
    );
    assert!(tried >= 10, "only {tried} failure points");
}
