//! Folded stacks from the shared samples: every file lands or is refused with a reason;
//! weights equal awk's sum of the last field; bad lines are counted once as inferno does.

use crate::common;

use std::process::Command;

use common::*;

fn awk_sum(path: &std::path::Path) -> f64 {
    // An independent reading: awk sums the last field of lines whose last field is a number.
    let o = Command::new("awk")
        .arg(r#"$NF ~ /^[0-9]+(\.[0-9]+)?$/ && NF > 1 { s += $NF } END { printf "%.6f", s }"#)
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(o.stdout).unwrap().parse().unwrap()
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn every_folded_sample_ingests_or_is_refused_clearly() {
    let dir = sample("folded");
    let mut landed = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "README.md" {
            continue;
        }
        let wh = tempfile::tempdir().unwrap();
        let o = perfhouse(
            wh.path(),
            &[
                "ingest",
                "--suite",
                "prof",
                "--format",
                "folded",
                "--target",
                "app",
                path.to_str().unwrap(),
            ],
        );
        if name.contains("differential") {
            assert_eq!(o.status.code(), Some(1), "{name}");
            assert!(
                stderr(&o).contains(":1: two counts on one line"),
                "{}",
                stderr(&o)
            );
            continue;
        }
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let sum = scalar(wh.path(), "select sum(weight) from stacks")
            .as_f64()
            .unwrap();
        assert!(
            (sum - awk_sum(&path)).abs() < 1e-6,
            "{name}: {sum} vs awk {}",
            awk_sum(&path)
        );
        let kind = scalar(wh.path(), "select distinct kind from stacks");
        assert_eq!(
            kind,
            if name.contains("offcputime") {
                "offcpu"
            } else {
                "oncpu"
            },
            "{name}"
        );
        assert_eq!(
            scalar(wh.path(), "select distinct target from stacks"),
            "app"
        );
        if name.contains("bad-lines") {
            let err = stderr(&o);
            assert_eq!(err.matches("warning:").count(), 1, "{err}");
            assert!(err.contains("ignored 2 lines with invalid format"), "{err}");
        }
        landed += 1;
    }
    assert_eq!(landed, 12);
}

#[test]
#[cfg_attr(
    not(shared_fixtures),
    ignore = "needs ../shared/fixtures: a clone without it"
)]
fn frames_with_spaces_survive() {
    let wh = tempfile::tempdir().unwrap();
    let f = sample("folded/inferno-flamegraph_fractional-samples_with-space.txt");
    ok(wh.path(), &["ingest", "--suite", "p", f.to_str().unwrap()]);
    let rows = query(
        wh.path(),
        "select stack, weight from stacks where stack like '%ext4_file_read_iter%'",
    );
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["weight"], 1.4);
    assert_eq!(
        scalar(wh.path(), "select source from runs"),
        "ingest:folded"
    );
}
