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

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde::Deserialize;

use super::{IngestError, ParsedTrial};
use crate::model::{Better, Metric};

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

const KEYS: &[(&str, &str)] = &[
    ("mean", "Mean"),
    ("median", "Median"),
    ("slope", "Slope"),
    ("std_dev", "StdDev"),
    ("median_abs_dev", "MedianAbsDev"),
];

pub fn parse(path: &Path, text: &str) -> Result<Vec<ParsedTrial>, IngestError> {
    let parse_err = |e: serde_json::Error, what: &str| IngestError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        message: format!("{e} (expected {what})"),
    };
    let raw: BTreeMap<String, Option<Estimate>> = serde_json::from_str(text).map_err(|e| {
        parse_err(
            e,
            "criterion estimates: {\"mean\": {\"point_estimate\": …}, …}",
        )
    })?;
    let mut metrics = Vec::new();
    for (name, legacy) in KEYS {
        if let Some(Some(e)) = raw.get(*name).or_else(|| raw.get(*legacy)) {
            metrics.push(Metric {
                trial_id: 0,
                name: format!("{name}_ns"),
                value: e.point_estimate,
                unit: "ns".to_string(),
                better: Better::Lower,
                origin: "criterion".to_string(),
                version: None,
            });
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
    let new_dir = path.parent().expect("estimates.json has a parent");
    let id_path = new_dir.join("benchmark.json");
    let (arm, mut params) = match fs::read_to_string(&id_path) {
        Ok(text) => {
            let id: BenchmarkId = serde_json::from_str(&text).map_err(|e| IngestError::Parse {
                path: id_path.clone(),
                line: e.line(),
                message: format!("{e} (expected criterion's benchmark id)"),
            })?;
            let mut p = BTreeMap::from([("group".to_string(), id.group_id.clone())]);
            if let Some(v) = id.value_str {
                p.insert("value".to_string(), v);
            }
            (id.function_id.unwrap_or(id.group_id), p)
        }
        // Without benchmark.json, the directories say it: <group>/<function>/<value>/new.
        Err(_) => {
            let dirs: Vec<String> = new_dir
                .ancestors()
                .skip(1)
                .take(3)
                .filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            (dirs.first().cloned().unwrap_or_default(), BTreeMap::new())
        }
    };
    params.retain(|_, v| !v.is_empty());
    Ok(vec![ParsedTrial {
        arm: Some(arm),
        params,
        metrics,
        ..Default::default()
    }])
}

/// criterion as an [`super::adapter::Adapter`].
pub static ADAPTER: super::adapter::Document = super::adapter::Document {
    name: "criterion",
    description: "criterion.rs target/criterion/**/new/estimates.json: one trial per benchmark",
    hint: "new/estimates.json",
    claims: |path, _| is_estimates(path),
    walks: |path, _| is_estimates(path),
    sniff: |_| false, // known by its path only
    parse: super::adapter::Reader::Text(|path, text| {
        Ok(super::adapter::Parsed::trials(parse(path, text)?))
    }),
};
