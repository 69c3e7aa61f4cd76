//! criterion.rs results: `target/criterion/<group>/<function>/<value>/new/estimates.json` with
//! `benchmark.json` beside it. Upstream definitions: `Estimates`/`Estimate`/`ConfidenceInterval`
//! (`src/estimate.rs`) and `BenchmarkId`'s saved form (`src/report.rs`) in
//! bheisler/criterion.rs.
//!
//! Each `new/estimates.json` is one trial. The arm is `function_id`, params are `group`
//! (`group_id`) and `value` (`value_str`) from `benchmark.json`, or the directory names when
//! it is missing. Point estimates land as metrics in ns, value for value: `mean`, `median`,
//! `slope`, `std_dev`, `median_abs_dev` (criterion ≥ 0.3 keys; the 0.2-era capitalised `Mean`,
//! `Median`, `Slope`, `StdDev`, `MedianAbsDev` are read the same). A `null` slope (flat
//! sampling) is left out.
//!
//! Other `estimates.json` files of criterion's tree: `base/` (the previous run, kept for
//! comparison) and `--save-baseline <name>` directories hold the same schema; a directory walk
//! skips them (they were the `new/` of an earlier run), and one given by path (or a bare
//! `estimates.json` found by its content) lands with params `baseline = <directory>` when it
//! is not `new`. The arm is still the benchmark (`benchmark.json`'s `function_id`, else the
//! directory above `new/`/`base/`, else the file's own directory), never `new`/`base`.
//! `change/estimates.json` holds relative changes (fractions, new vs base), not times: refused.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde::Deserialize;

use super::text::{json_error, line_error, metric};
use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric, Params};

#[derive(Deserialize)]
struct Estimate {
    point_estimate: f64,
}

#[derive(Deserialize)]
struct BenchmarkId {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
}

/// Whether `path` is a criterion estimates file of a current measurement (`…/new/estimates.json`).
pub fn is_estimates(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "estimates.json")
        && path
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "new")
}

/// Whether a JSON document is criterion's estimates of a measurement (mean and std_dev or
/// median_abs_dev point estimates, as `new/`, `base/` and named baselines hold them).
pub fn sniff(doc: &serde_json::Value) -> bool {
    let estimate = |k: &str, legacy: &str| {
        doc.get(k)
            .or_else(|| doc.get(legacy))
            .is_some_and(|e| e.get("point_estimate").is_some_and(|v| v.is_number()))
    };
    estimate("mean", "Mean")
        && (estimate("std_dev", "StdDev") || estimate("median_abs_dev", "MedianAbsDev"))
}

/// Whether a JSON document is criterion's `change/estimates.json`: mean and median estimates
/// only (relative changes), none of the spread a measurement has.
pub fn is_change(doc: &serde_json::Value) -> bool {
    doc.get("mean")
        .is_some_and(|e| e.get("point_estimate").is_some())
        && doc.get("median").is_some()
        && !sniff(doc)
}

const KEYS: &[(&str, &str)] = &[
    ("mean", "Mean"),
    ("median", "Median"),
    ("slope", "Slope"),
    ("std_dev", "StdDev"),
    ("median_abs_dev", "MedianAbsDev"),
];

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let dir = path.parent().expect("estimates.json has a parent");
    let dir_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let change = dir_name == "change"
        || serde_json::from_str::<serde_json::Value>(text).is_ok_and(|d| is_change(&d));
    if change {
        return Err(line_error(
            path,
            1,
            "criterion's change/estimates.json holds relative changes (new vs base, as \
             fractions), not times; ingest the benchmark's new/estimates.json instead",
        ));
    }
    let metrics = estimates(path, text)?;
    let (arm, mut params) = benchmark_id(dir, &dir_name)?;
    params.retain(|_, v| !v.is_empty());
    Ok(vec![ParsedTrial {
        arm: Some(arm),
        params,
        metrics,
        ..Default::default()
    }])
}

/// The point estimates of an estimates file as metrics in ns (`mean_ns`…).
fn estimates(path: &Path, text: &str) -> Result<Vec<Metric>, IngestError> {
    let raw: BTreeMap<String, Option<Estimate>> = serde_json::from_str(text).map_err(|e| {
        json_error(
            path,
            &e,
            "criterion estimates: {\"mean\": {\"point_estimate\": …}, …}",
        )
    })?;
    let mut metrics = Vec::new();
    for (name, legacy) in KEYS {
        if let Some(Some(e)) = raw.get(*name).or_else(|| raw.get(*legacy)) {
            let name = format!("{name}_ns");
            metrics.push(metric("criterion", &name, e.point_estimate, "ns", Better::Lower));
        }
    }
    if metrics.is_empty() {
        return Err(IngestError::Field {
            path: path.to_path_buf(),
            line: 1,
            field: "mean".to_string(),
            expected: "criterion point estimates (mean, median, slope, std_dev)".to_string(),
        });
    }
    Ok(metrics)
}

/// The arm and params of the benchmark whose estimates are in `dir`: from `benchmark.json`
/// beside them, else from the directory names; param `baseline` for a saved baseline.
fn benchmark_id(dir: &Path, dir_name: &str) -> Result<(String, Params), IngestError> {
    let id_path = dir.join("benchmark.json");
    let (arm, mut params) = match fs::read_to_string(&id_path) {
        Ok(text) => {
            let id: BenchmarkId = serde_json::from_str(&text)
                .map_err(|e| json_error(&id_path, &e, "criterion's benchmark id"))?;
            let mut p = BTreeMap::from([("group".to_string(), id.group_id.clone())]);
            if let Some(v) = id.value_str {
                p.insert("value".to_string(), v);
            }
            (id.function_id.unwrap_or(id.group_id), p)
        }
        // Without benchmark.json, the directories say it: <group>/<function>/<value>/new (or
        // base/); a bare estimates.json elsewhere is named by its own directory.
        Err(_) => {
            let bench = if matches!(dir_name, "new" | "base") {
                dir.parent()
            } else {
                Some(dir)
            };
            let arm = bench
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (arm, BTreeMap::new())
        }
    };
    // A saved baseline (`base/`, `--save-baseline <name>`) says which; `new/` is the current
    // measurement. A bare file without benchmark.json is taken as the current measurement.
    if dir_name != "new" && (dir_name == "base" || id_path.exists()) {
        params.insert("baseline".to_string(), dir_name.to_string());
    }
    Ok((arm, params))
}

/// For "unrecognised input": criterion's `change/estimates.json` (relative changes), or an
/// estimates document without the spread a measurement has.
fn near(input: &super::adapter::Sniff) -> Option<String> {
    let doc = input.doc()?;
    doc.get("mean")?.get("point_estimate")?;
    Some(if is_change(doc) {
        "mean and median only: criterion's change/estimates.json, relative changes not times; \
         give new/estimates.json"
            .to_string()
    } else {
        "has a `mean` estimate, lacks `std_dev` and `median_abs_dev`".to_string()
    })
}

/// criterion as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Near = super::adapter::Near {
    document: super::adapter::Document {
        name: "criterion",
        description: "criterion.rs target/criterion/**/new/estimates.json (or a baseline's estimates.json given by path): one trial per benchmark",
        hint: "new/estimates.json",
        claims: |path, _| is_estimates(path),
        walks: |path, _| is_estimates(path),
        // `new/estimates.json` is known by its path; other estimates files by their content.
        sniff: |input| input.doc().is_some_and(sniff),
        parse: super::adapter::Reader::Text(|path, text| {
            Ok(super::adapter::Parsed::trials(parse(path, text)?))
        }),
    },
    near,
};
