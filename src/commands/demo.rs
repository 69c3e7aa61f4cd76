//! `perfhouse demo`: every bundled dataset (a directory of `datasets/` with an `ingest.json`)
//! into the warehouse, then the site. Idempotent: a second demo adds nothing and rebuilds
//! only what changed.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use super::ingest::{IngestOptions, ingest};
use crate::cli::DemoArgs;
use crate::ingest::TrialDefaults;
use crate::query::Query;
use crate::warehouse::Warehouse;

/// `datasets/<name>/ingest.json`: how to ingest one bundled dataset.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DatasetSpec {
    suite: String,
    /// Inputs relative to the dataset directory (default: the directory itself).
    #[serde(default)]
    paths: Vec<PathBuf>,
    #[serde(default)]
    arm: Option<String>,
    #[serde(default)]
    params: BTreeMap<String, String>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    discard_first: bool,
    /// Its inputs were written by another project, so they are never in the repository: they
    /// are read from the third-party fixtures folder beside the clone (`crate::fixtures`, at
    /// the same path), and the dataset is left out, saying so, where that folder is absent.
    #[serde(default)]
    third_party: bool,
}

/// The inputs of one dataset: its `paths` (default: the directory itself), from the third-party
/// fixtures folder for a `third_party` dataset; `None` when those are not beside this clone.
fn inputs(root: &Path, dir: &Path, spec: &DatasetSpec) -> Option<Vec<PathBuf>> {
    let rel: Vec<PathBuf> = if spec.paths.is_empty() {
        vec![PathBuf::new()]
    } else {
        spec.paths.clone()
    };
    if !spec.third_party {
        return Some(rel.iter().map(|p| dir.join(p)).collect());
    }
    let repo = root.parent().unwrap_or(Path::new("."));
    let name = dir.file_name().unwrap_or_default().to_string_lossy();
    let found: Vec<PathBuf> = rel
        .iter()
        .map(|p| {
            let rel = Path::new("datasets").join(&*name).join(p);
            crate::fixtures::resolve_fixture(repo, &rel.to_string_lossy())
        })
        .collect();
    found.iter().all(|p| p.exists()).then_some(found)
}

/// Finds the datasets directory: as given, else beside the crate sources (so the demo works
/// from any working directory of a source checkout).
fn locate(datasets: &Path) -> Result<PathBuf> {
    if datasets.is_dir() {
        return Ok(datasets.to_path_buf());
    }
    let fallback = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets");
    if datasets == Path::new("datasets") && fallback.is_dir() {
        return Ok(fallback);
    }
    bail!(
        "{}: no such directory of bundled datasets (run from the repository root or give --datasets)",
        datasets.display()
    )
}

/// Runs the bundled plans that work on any Linux box: the compressor A/B and the memory-transfer
/// sweep by object and page size (under two NUMA placements where numactl and several nodes
/// exist, else one; the run's label `numa_nodes` says how many there were).
pub fn run_plans(
    wh: &Warehouse,
    rt: &tokio::runtime::Handle,
    args: &DemoArgs,
    quiet: bool,
) -> Result<()> {
    let root = locate(&args.datasets)?.join("plans");
    let numactl = std::process::Command::new("numactl")
        .arg("--hardware")
        .output()
        .is_ok_and(|o| o.status.success());
    let nodes = crate::runner::env::numa_nodes();
    let transfer = if numactl && nodes > 1 {
        "transfer-numa.toml"
    } else {
        if !quiet {
            eprintln!(
                "demo: one NUMA placement ({nodes} node(s), numactl {}): running transfer.toml, not transfer-numa.toml",
                if numactl { "present" } else { "missing" }
            );
        }
        "transfer.toml"
    };
    let mut out = std::io::stdout().lock();
    for name in ["compressors.toml", transfer] {
        // The transfer page says how many NUMA nodes the placements had to choose from.
        let labels = if name == transfer {
            [("numa_nodes".to_string(), nodes.to_string())].into()
        } else {
            Default::default()
        };
        let opts = crate::runner::RunOptions {
            plan: root.join(name),
            quiet: true,
            labels,
            ..Default::default()
        };
        let outcome = crate::runner::execute(wh, rt, &opts)
            .with_context(|| format!("running plan {name}"))?;
        super::print_warnings(&outcome.warnings);
        if !quiet {
            write!(out, "plans/{name}: ")?;
            crate::runner::report(&outcome, &mut out)?;
        }
    }
    // An A/A calibration of the compressors' baseline arm (gzip against itself, 10 repeats
    // each): the site then judges gzip vs zstd with gzip's own noise, not the ±2 % floor.
    let cal = crate::runner::CalibrateOptions {
        plan: root.join("compressors.toml"),
        repeats: 10,
        arm: Some("gzip".into()),
        labels: Default::default(),
    };
    let outcome =
        crate::runner::calibrate(wh, rt, &cal, true).context("calibrating compressors")?;
    super::print_warnings(&outcome.warnings);
    if !quiet {
        write!(out, "calibrate plans/compressors.toml --arm gzip: ")?;
        crate::runner::report(&outcome, &mut out)?;
    }
    Ok(())
}

pub async fn demo(wh: &Warehouse, args: &DemoArgs, quiet: bool) -> Result<()> {
    let root = locate(&args.datasets)?;
    let specs = dataset_specs(&root)?;
    let mut out = std::io::stdout().lock();
    for (dir, spec) in specs {
        let Some(paths) = inputs(&root, &dir, &spec) else {
            eprintln!(
                "demo: {}: left out: its files were written by another project and are kept \
                 beside the clone in {}/ (or $PERFHOUSE_FIXTURES), not here",
                dir.display(),
                crate::fixtures::BESIDE_THE_CLONE
            );
            continue;
        };
        let mut opts = IngestOptions::new(paths, &spec.suite);
        opts.defaults = TrialDefaults {
            arm: spec.arm,
            params: spec.params,
            discard_first: spec.discard_first,
            ..TrialDefaults::default()
        };
        opts.labels = spec.labels;
        opts.note = spec.note;
        let outcome =
            ingest(wh, &opts).with_context(|| format!("ingesting dataset {}", dir.display()))?;
        super::print_warnings(&outcome.warnings);
        if !quiet {
            writeln!(
                out,
                "{}: {}",
                dir.file_name().unwrap_or_default().to_string_lossy(),
                outcome.message()
            )?;
        }
    }
    import_bundles(wh, &root, quiet, &mut out)?;
    let q = Query::open(wh).await?;
    let report = crate::site::build(&q, &args.out).await?;
    if !quiet {
        writeln!(
            out,
            "site: {} runs, {} files written, {} unchanged{}; open {}",
            report.runs,
            report.written,
            report.unchanged,
            report.removed_text(),
            args.out.join("index.html").display()
        )?;
    }
    Ok(())
}

/// The datasets under `root`: each directory with an `ingest.json`, with its spec, in name
/// order; none at all is an error.
fn dataset_specs(root: &Path) -> Result<Vec<(PathBuf, DatasetSpec)>> {
    let mut specs = Vec::new();
    for entry in fs::read_dir(root).with_context(|| format!("reading {}", root.display()))? {
        let dir = entry?.path();
        let spec_path = dir.join("ingest.json");
        if spec_path.is_file() {
            let text = fs::read_to_string(&spec_path)
                .with_context(|| format!("reading {}", spec_path.display()))?;
            let spec: DatasetSpec = serde_json::from_str(&text).with_context(|| {
                format!(
                    "{}: expected an ingest spec (suite, paths, params, …)",
                    spec_path.display()
                )
            })?;
            specs.push((dir, spec));
        }
    }
    specs.sort_by(|a, b| a.0.cmp(&b.0));
    if specs.is_empty() {
        bail!(
            "{}: no dataset directories with an ingest.json",
            root.display()
        );
    }
    Ok(specs)
}

/// Bundled runs kept as Parquet (a real `perfhouse run`, with CPU samples and stacks that no
/// tool output format carries): `datasets/<name>/warehouse/`, imported.
fn import_bundles(wh: &Warehouse, root: &Path, quiet: bool, out: &mut impl Write) -> Result<()> {
    let mut bundles: Vec<PathBuf> = fs::read_dir(root)?
        .filter_map(|e| e.ok().map(|e| e.path().join("warehouse")))
        .filter(|w| w.join("runs").is_dir())
        .collect();
    bundles.sort();
    for b in bundles {
        let added = wh
            .import(&Warehouse::open(&b)?)
            .with_context(|| format!("importing bundled runs from {}", b.display()))?;
        if !quiet {
            writeln!(out, "{}: {added} bundled run(s) added", b.display())?;
        }
    }
    Ok(())
}
