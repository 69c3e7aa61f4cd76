//! One function per subcommand: flags → validated options → the layers, wired together.
//! Only this module imports every layer.

mod demo;
mod ingest;
pub mod publish;
mod synth;
pub mod transfer_bench;

use std::io::Write;

use anyhow::{Context, Result, bail};

use std::io::IsTerminal;

use crate::cli::{Cli, Command, CompareArgs, CompareFormat, OutputFormat};
use crate::query::compare::{self, CompareOptions};
use crate::query::history;
use crate::query::{self, Query};
use crate::report;
use crate::stats::changepoint;
use crate::stats::verdict::VerdictOptions;
use crate::warehouse::Warehouse;
use crate::warehouse::remote::{self, Remote};

pub use demo::demo;
pub use ingest::{IngestOptions, IngestOutcome, ingest};

fn open_warehouse(cli: &Cli) -> Result<Warehouse> {
    if remote::is_url(&cli.warehouse.to_string_lossy()) {
        bail!(
            "{}: `perfhouse {}` works on a warehouse directory only; on an object store: ingest, run, import, query, compare, report, history, site, sweep, alerts, noise, changepoints, check and gc (see the book's \"Object storage\" chapter, docs/src/object-storage.md)",
            cli.warehouse.display(),
            cli.command.name()
        );
    }
    Warehouse::open(&cli.warehouse)
        .with_context(|| format!("opening warehouse {}", cli.warehouse.display()))
}

/// The object store `--warehouse` names, where it names one (`warehouse::remote`).
fn open_remote(cli: &Cli) -> Result<Option<Remote>> {
    let location = cli.warehouse.to_string_lossy();
    if !remote::is_url(&location) {
        return Ok(None);
    }
    Ok(Some(Remote::open(&location)?))
}

/// A reading session over `--warehouse`, a directory or an object store.
async fn open_query(cli: &Cli, slos: &query::slo::Slos) -> Result<Query> {
    Ok(match open_remote(cli)? {
        Some(r) => Query::open_remote(&r, slos).await?,
        None => Query::open_with(&open_warehouse(cli)?, slos).await?,
    })
}

/// A writer's warehouse: `--warehouse` itself, or for an object store a local staging
/// warehouse that [`push_staged`] uploads once the command has committed into it.
fn writable(cli: &Cli) -> Result<(Warehouse, Option<Remote>)> {
    match open_remote(cli)? {
        None => Ok((open_warehouse(cli)?, None)),
        Some(r) => {
            let dir = std::env::temp_dir().join(format!("perfhouse-push-{}", uuid::Uuid::now_v7()));
            let wh = Warehouse::open(&dir)
                .with_context(|| format!("creating the staging warehouse {}", dir.display()))?;
            Ok((wh, Some(r)))
        }
    }
}

/// Uploads what a command committed into the staging warehouse `staged` (see [`writable`]);
/// removes it once pushed, keeps it (and says how to push it again) when the push fails.
async fn push_staged(staged: &Warehouse, remote: &Remote, quiet: bool) -> Result<()> {
    let again = format!(
        "the results are kept in {}; `perfhouse --warehouse {} import {}` pushes them again",
        staged.root().display(),
        remote.url(),
        staged.root().display()
    );
    let report = remote
        .push(staged)
        .await
        .with_context(|| format!("pushing to {}: {again}", remote.url()))?;
    print_push(&report, remote, quiet);
    let unsettled = report.duplicates.iter().filter(|d| !d.committed).count();
    if unsettled > 0 {
        bail!(
            "{unsettled} run(s) not pushed: their input is claimed by a run that has not committed; {again} (after `perfhouse --warehouse {} gc` clears the claim, past its grace period, if that writer died)",
            remote.url()
        );
    }
    std::fs::remove_dir_all(staged.root())
        .with_context(|| format!("removing {}", staged.root().display()))?;
    Ok(())
}

fn print_push(report: &remote::PushReport, remote: &Remote, quiet: bool) {
    for d in &report.duplicates {
        if d.committed {
            eprintln!(
                "run {} left out: its input is in {} already as run {} (suite {})",
                d.run_id,
                remote.url(),
                d.held.run_id,
                d.held.suite
            );
        } else {
            eprintln!(
                "run {} left out: its input is claimed by run {} (suite {}, claimed {}), which has not committed: a writer still pushing, or one that died",
                d.run_id, d.held.run_id, d.held.suite, d.held.claimed_at
            );
        }
    }
    if !quiet {
        eprintln!(
            "pushed {} run(s) to {} ({} files, {} bytes)",
            report.committed.len(),
            remote.url(),
            report.files,
            report.bytes
        );
    }
}

/// Runs one command line to completion.
pub fn run(cli: Cli) -> Result<()> {
    // Generated from the clap definitions; no warehouse, no runtime.
    match &cli.command {
        Command::Completions(args) => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(args.shell, &mut cmd, "perfhouse", &mut std::io::stdout());
            return Ok(());
        }
        Command::Man => {
            let cmd = <Cli as clap::CommandFactory>::command();
            clap_mangen::Man::new(cmd).render(&mut std::io::stdout())?;
            return Ok(());
        }
        _ => {}
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // DataFusion's planner recurses deeply; give workers the main thread's stack size.
        .thread_stack_size(8 << 20)
        .build()
        .context("starting the async runtime")?;
    // The runner drives processes from this thread and samples on the runtime's workers.
    match &cli.command {
        Command::Run(args) => return run_plan(&cli, args, &runtime),
        Command::Calibrate(args) => return calibrate(&cli, args, &runtime),
        Command::Bisect(args) => return bisect(&cli, args, &runtime),
        Command::Demo(args) if !args.no_plans => {
            let wh = open_warehouse(&cli)?;
            demo::run_plans(&wh, runtime.handle(), args, cli.quiet)?;
        }
        _ => {}
    }
    runtime.block_on(dispatch(cli))
}

/// `perfhouse run`: the plan's trials, committed as one run (pushed to the object store
/// where the warehouse is one).
fn run_plan(
    cli: &Cli,
    args: &crate::cli::RunArgs,
    runtime: &tokio::runtime::Runtime,
) -> Result<()> {
    crate::query::thresholds::check_labels(&args.labels).map_err(anyhow::Error::msg)?;
    let (wh, remote) = writable(cli)?;
    let opts = crate::runner::RunOptions {
        plan: args.plan.clone(),
        labels: args.labels.iter().cloned().collect(),
        git_arms: args.git_arms.clone(),
        dry_run: args.dry_run,
        fail_fast: args.fail_fast,
        quiet: cli.quiet,
        keep_scratch: args.keep_scratch,
        until_decided: args.until_decided.clone().map(|metric| {
            crate::runner::decide::UntilDecided {
                metric,
                max_repeats: args.max_repeats.unwrap_or(0),
            }
        }),
        find_capacity: args.find_capacity,
        ..Default::default()
    };
    let outcome = crate::runner::execute(&wh, runtime.handle(), &opts)?;
    if let Some(remote) = &remote {
        runtime.block_on(push_staged(&wh, remote, cli.quiet))?;
    }
    finish_run(&outcome, cli.quiet)
}

/// `perfhouse calibrate`: an A/A run, then the noise it measured.
fn calibrate(
    cli: &Cli,
    args: &crate::cli::CalibrateArgs,
    runtime: &tokio::runtime::Runtime,
) -> Result<()> {
    let wh = open_warehouse(cli)?;
    let opts = crate::runner::CalibrateOptions {
        plan: args.plan.clone(),
        repeats: args.repeats,
        arm: args.arm.clone(),
        labels: args.labels.iter().cloned().collect(),
    };
    let outcome = crate::runner::calibrate(&wh, runtime.handle(), &opts, cli.quiet)?;
    finish_run(&outcome, cli.quiet)?;
    if let Some(run_id) = &outcome.run_id {
        calibration_noise(cli, &wh, runtime, run_id)?;
    }
    Ok(())
}

/// `perfhouse bisect`: the first bad commit between --good and --bad; none found is an
/// error of its own ([`NothingToBisect`]).
fn bisect(
    cli: &Cli,
    args: &crate::cli::BisectArgs,
    runtime: &tokio::runtime::Runtime,
) -> Result<()> {
    let wh = open_warehouse(cli)?;
    crate::runner::install_signal_handlers();
    let o = crate::runner::bisect::bisect(
        &wh,
        runtime.handle(),
        &crate::runner::bisect::BisectOptions {
            plan: args.plan.clone(),
            good: args.good.clone(),
            bad: args.bad.clone(),
            metric: args.metric.clone(),
            labels: args.labels.iter().cloned().collect(),
            quiet: cli.quiet,
        },
    )?;
    match args.format {
        crate::cli::BisectFormat::Text => print!("{}", crate::runner::bisect::report(&o)),
        crate::cli::BisectFormat::Json => println!("{}", serde_json::to_string_pretty(&o)?),
    }
    if o.first_bad.is_none() {
        return Err(NothingToBisect.into());
    }
    Ok(())
}

/// What every subcommand's function is given: the command line, its SLOs and stdout.
struct Ctx<'a> {
    cli: &'a Cli,
    slos: crate::query::slo::Slos,
    stdout: std::io::StdoutLock<'static>,
}

impl Ctx<'_> {
    fn wh(&self) -> Result<Warehouse> {
        open_warehouse(self.cli)
    }
}

/// One function per subcommand (below); `run` handles the ones that drive processes (`run`,
/// `calibrate`, `bisect`) and those that need no warehouse (`completions`, `man`).
async fn dispatch(cli: Cli) -> Result<()> {
    let mut cx = Ctx {
        cli: &cli,
        slos: crate::query::slo::Slos(cli.slo.iter().flat_map(|s| s.0.clone()).collect()),
        stdout: std::io::stdout().lock(),
    };
    match &cli.command {
        Command::Ingest(args) => cmd_ingest(&mut cx, args).await?,
        Command::Query(args) => cmd_query(&mut cx, args).await?,
        Command::Compare(args) => cmd_compare(&mut cx, args).await?,
        Command::Report(args) => cmd_report(&mut cx, args).await?,
        Command::Publish(args) => cmd_publish(&mut cx, args).await?,
        Command::History(args) => cmd_history(&mut cx, args).await?,
        Command::Site(args) => cmd_site(&mut cx, args).await?,
        Command::Annotate(args) => cmd_annotate(&mut cx, args).await?,
        Command::Schema(args) => cmd_schema(&mut cx, args).await?,
        Command::Import(args) => cmd_import(&mut cx, args).await?,
        Command::Compact => cmd_compact(&mut cx).await?,
        Command::Gc(args) => cmd_gc(&mut cx, args).await?,
        Command::Check => cmd_check(&mut cx).await?,
        Command::Demo(args) => demo(&cx.wh()?, args, cli.quiet).await?,
        Command::Completions(_) | Command::Man => unreachable!("handled in run()"),
        Command::Synth(args) => cmd_synth(&mut cx, args).await?,
        Command::TransferBench(args) => cmd_transfer_bench(args)?,
        Command::Run(_) | Command::Calibrate(_) | Command::Bisect(_) => {
            unreachable!("handled in run()")
        }
        Command::Alerts(args) => cmd_alerts(&mut cx, args).await?,
        Command::Triage(args) => cmd_triage(&mut cx, args).await?,
        Command::Changepoints(args) => cmd_changepoints(&mut cx, args).await?,
        Command::Sweep(args) => cmd_sweep(&mut cx, args).await?,
        Command::Noise(args) => cmd_noise(&mut cx, args).await?,
    }
    Ok(())
}

async fn cmd_ingest(cx: &mut Ctx<'_>, args: &crate::cli::IngestArgs) -> Result<()> {
    let opts = IngestOptions::from_args(args)?;
    let (target, remote) = writable(cx.cli)?;
    let outcome = ingest(&target, &opts)?;
    if let Some(remote) = &remote {
        push_staged(&target, remote, cx.cli.quiet).await?;
    }
    print_warnings(&outcome.warnings);
    if !cx.cli.quiet {
        writeln!(cx.stdout, "{}", outcome.message())?;
    }
    if !outcome.failed.is_empty() {
        bail!(
            "{} input file(s) left out (--keep-going):\n  {}",
            outcome.failed.len(),
            outcome.failed.join("\n  ")
        );
    }
    Ok(())
}

async fn cmd_query(cx: &mut Ctx<'_>, args: &crate::cli::QueryArgs) -> Result<()> {
    let q = open_query(cx.cli, &cx.slos).await?;
    let batches = q.user_sql(&args.sql).await?;
    match args.format {
        OutputFormat::Table => writeln!(cx.stdout, "{}", query::batches_to_table(&batches)?)?,
        OutputFormat::Csv => cx.stdout.write_all(&query::batches_to_csv(&batches)?)?,
        OutputFormat::Json => {
            cx.stdout.write_all(&query::batches_to_json(&batches)?)?;
            writeln!(cx.stdout)?;
        }
    }
    Ok(())
}

async fn cmd_compare(cx: &mut Ctx<'_>, args: &crate::cli::CompareArgs) -> Result<()> {
    let mut opts = compare_options(args)?;
    let q = open_query(cx.cli, &cx.slos).await?;
    opts.noise = crate::query::noise::NoiseModel::load(&q).await?;
    let baseline = compare::resolve(&q, &args.baseline).await?;
    let candidate = compare::resolve(&q, &args.candidate).await?;
    let c = compare::compare(&q, baseline, candidate, &opts).await?;
    let text = match args.format {
        CompareFormat::Table => report::table(&c, std::io::stdout().is_terminal()),
        CompareFormat::Md => report::markdown(&c),
        CompareFormat::Json => serde_json::to_string_pretty(&c)? + "\n",
    };
    cx.stdout.write_all(text.as_bytes())?;
    cx.stdout.flush()?;
    if args.fail_on_regression && c.regressions() > 0 {
        eprintln!("{} regression(s) found", c.regressions());
        return Err(RegressionFound.into());
    }
    Ok(())
}

async fn cmd_report(cx: &mut Ctx<'_>, args: &crate::cli::ReportArgs) -> Result<()> {
    let q = open_query(cx.cli, &cx.slos).await?;
    let opts = CompareOptions {
        verdict: VerdictOptions {
            threshold: args.threshold / 100.0,
            ..VerdictOptions::default()
        },
        noise: crate::query::noise::NoiseModel::load(&q).await?,
        ..CompareOptions::default()
    };
    let baseline = compare::resolve(&q, &args.baseline).await?;
    let candidate = compare::resolve(&q, &args.candidate).await?;
    let c = compare::compare(&q, baseline, candidate, &opts).await?;
    // The candidate's commit in the suite's history, where series changed there: the PR
    // report links its entry on the site's alerts page.
    let entry = match (&args.site_url, &c.candidate.run.git_commit) {
        (Some(_), Some(sha)) => commit_entry(&q, &c.candidate.run.suite, sha).await?,
        _ => None,
    };
    if args.record_alerts {
        let known = crate::query::triage::latest_events(&q).await?;
        drop(q);
        let recorded = record_report_alerts(&cx.wh()?, &c, &known)?;
        if !cx.cli.quiet && recorded > 0 {
            eprintln!("recorded {recorded} regression(s) as alerts (see `perfhouse alerts`)");
        }
    }
    let text = match args.format {
        crate::cli::ReportFormat::Md => {
            let mut md = report::pr_markdown(&c, args.site_url.as_deref());
            if let (Some(e), Some(u)) = (&entry, &args.site_url) {
                md.push_str(&report::commit_entry_line(e, u));
            }
            md
        }
        crate::cli::ReportFormat::Html => {
            report::pr_html(&c, args.site_url.as_deref(), crate::site::CSS)
        }
    };
    match &args.output {
        Some(path) => std::fs::write(path, &text).with_context(|| path.display().to_string())?,
        None => cx.stdout.write_all(text.as_bytes())?,
    }
    if args.fail_on_regression && c.regressions() > 0 {
        eprintln!("{} regression(s) found", c.regressions());
        return Err(RegressionFound.into());
    }
    Ok(())
}

async fn cmd_publish(cx: &mut Ctx<'_>, args: &crate::cli::PublishArgs) -> Result<()> {
    if args.to.is_some() {
        let to = args.to.as_deref().expect("matched");
        if !remote::is_url(to) {
            bail!("--to {to}: expected an object-store URL (s3://bucket/prefix, gs://…, az://…)");
        }
        if !args.site.join("index.html").is_file() {
            bail!(
                "{}: no index.html (run `perfhouse site --out {}` first)",
                args.site.display(),
                args.site.display()
            );
        }
        let site_files = crate::site::writer::files(&args.site)
            .with_context(|| args.site.display().to_string())?;
        let (files, bytes) = Remote::open(to)?.upload_site(site_files).await?;
        if !cx.cli.quiet {
            writeln!(
                cx.stdout,
                "published {} to {to} ({files} files, {bytes} bytes)",
                args.site.display()
            )?;
        }
    } else {
        match publish::publish(&args.repo, &args.site, &args.branch, &args.message)? {
            Some(commit) if !cx.cli.quiet => writeln!(
                cx.stdout,
                "published {} to {} as {commit}",
                args.site.display(),
                args.branch
            )?,
            None if !cx.cli.quiet => writeln!(
                cx.stdout,
                "{} already holds this site; nothing to publish",
                args.branch
            )?,
            _ => {}
        }
    }
    Ok(())
}

async fn cmd_history(cx: &mut Ctx<'_>, args: &crate::cli::HistoryArgs) -> Result<()> {
    let q = open_query(cx.cli, &cx.slos).await?;
    let mut series = history::history(
        &q,
        args.suite.as_deref(),
        args.metric.as_deref(),
        &changepoint::Options::default(),
    )
    .await?;
    if args.changes_only {
        // Change points, pending ones, where a series began to switch between two levels,
        // suspected breaks.
        series.retain(|s| {
            !s.changes.is_empty()
                || s.pending.is_some()
                || !s.drifts.is_empty()
                || !s.unstable.is_empty()
                || !s.suspected_breaks.is_empty()
        });
    }
    let text = match args.format {
        OutputFormat::Json => serde_json::to_string_pretty(&series)? + "\n",
        OutputFormat::Table => report::history(&series, report::TextLayout::Table),
        OutputFormat::Csv => report::history(&series, report::TextLayout::Csv),
    };
    cx.stdout.write_all(text.as_bytes())?;
    Ok(())
}

async fn cmd_site(cx: &mut Ctx<'_>, args: &crate::cli::SiteArgs) -> Result<()> {
    let mut clock = std::time::Instant::now();
    // The output's build cache is read while the warehouse opens.
    let preload = (!args.full).then(|| crate::site::Preload::start(&args.out));
    let q = open_query(cx.cli, &cx.slos).await?;
    crate::query::trace_phase("open the warehouse", &mut clock);
    let opts = crate::site::BuildOptions {
        full: args.full,
        preload,
    };
    let report = crate::site::build_with(&q, &args.out, opts).await?;
    if !cx.cli.quiet {
        writeln!(
            cx.stdout,
            "site: {} runs ({} reused), {} files written, {} unchanged{} in {}",
            report.runs,
            report.reused,
            report.written,
            report.unchanged,
            report.removed_text(),
            args.out.display()
        )?;
    }
    Ok(())
}

async fn cmd_annotate(cx: &mut Ctx<'_>, args: &crate::cli::AnnotateArgs) -> Result<()> {
    if args.text.trim().is_empty() {
        bail!("the note is empty");
    }
    cx.wh()?
        .annotate(&args.run, &args.text, crate::model::now_us())?;
    if !cx.cli.quiet {
        writeln!(cx.stdout, "noted on run {}", args.run)?;
    }
    Ok(())
}

async fn cmd_schema(cx: &mut Ctx<'_>, args: &crate::cli::SchemaArgs) -> Result<()> {
    let text = match args.ddl {
        None => {
            let mut out = String::new();
            for table in crate::warehouse::Table::ALL {
                out.push_str(&format!("{}\n", table.name()));
                for f in table.schema().fields() {
                    let null = if f.is_nullable() { "" } else { " NOT NULL" };
                    out.push_str(&format!("  {} {}{null}\n", f.name(), f.data_type()));
                }
                out.push_str("  suite Utf8 NOT NULL (the Hive partition: suite=<name>/)\n");
            }
            out
        }
        Some(engine) => {
            use crate::query::ddl::{Compactions, Engine, ddl};
            let engine = match engine {
                crate::cli::DdlEngine::Spark => Engine::Spark,
                crate::cli::DdlEngine::Duckdb => Engine::Duckdb,
                crate::cli::DdlEngine::Trino => Engine::Trino,
            };
            match open_remote(cx.cli)? {
                Some(r) => {
                    let with = r.tables_with_files().await?;
                    let compactions = if r.records(None).await?.is_empty() {
                        Compactions::NotYet
                    } else {
                        Compactions::Recorded
                    };
                    ddl(engine, r.url(), &|t| with.contains(&t), compactions)
                }
                None => {
                    let wh = cx.wh()?;
                    let root = std::path::absolute(wh.root())?;
                    let has = |t| wh.table_files(t).is_ok_and(|f| !f.is_empty());
                    ddl(
                        engine,
                        &root.display().to_string(),
                        &has,
                        Compactions::Directory,
                    )
                }
            }
        }
    };
    cx.stdout.write_all(text.as_bytes())?;
    Ok(())
}

async fn cmd_import(cx: &mut Ctx<'_>, args: &crate::cli::ImportArgs) -> Result<()> {
    if !args.from.join("runs").is_dir() {
        bail!(
            "{}: not a warehouse (it has no runs/ directory)",
            args.from.display()
        );
    }
    let bundle = Warehouse::open(&args.from)?;
    match open_remote(cx.cli)? {
        Some(remote) => {
            let report = remote.push(&bundle).await?;
            print_push(&report, &remote, cx.cli.quiet);
        }
        None => {
            let n = cx.wh()?.import(&bundle)?;
            if !cx.cli.quiet {
                writeln!(
                    cx.stdout,
                    "imported {n} run(s) from {}",
                    args.from.display()
                )?;
            }
        }
    }
    Ok(())
}

async fn cmd_compact(cx: &mut Ctx<'_>) -> Result<()> {
    let report = match open_remote(cx.cli)? {
        Some(remote) => remote.compact().await?,
        None => cx.wh()?.compact()?,
    };
    for r in &report.raced {
        eprintln!("skipped: {r}");
    }
    if !cx.cli.quiet {
        if report.merged.is_empty() {
            writeln!(cx.stdout, "nothing to compact")?;
        }
        for (table, suite, files) in &report.merged {
            writeln!(cx.stdout, "{table}/suite={suite}: merged {files} files")?;
        }
    }
    Ok(())
}

async fn cmd_gc(cx: &mut Ctx<'_>, args: &crate::cli::GcArgs) -> Result<()> {
    let r = match open_remote(cx.cli)? {
        Some(remote) => remote.gc(args.grace, args.dry_run).await?,
        None => cx.wh()?.gc(args.grace, args.dry_run)?,
    };
    for s in &r.spared {
        eprintln!("spared: {s}");
    }
    if !cx.cli.quiet {
        let verb = if args.dry_run {
            "would remove"
        } else {
            "removed"
        };
        for p in &r.removed {
            writeln!(cx.stdout, "{verb} {p}")?;
        }
        writeln!(
            cx.stdout,
            "gc: {verb} {} leftovers ({} bytes), spared {}",
            r.removed.len(),
            r.bytes,
            r.spared.len()
        )?;
    }
    Ok(())
}

async fn cmd_check(cx: &mut Ctx<'_>) -> Result<()> {
    let r = match open_remote(cx.cli)? {
        Some(remote) => remote.check().await?,
        None => cx.wh()?.check()?,
    };
    for n in &r.notes {
        eprintln!("note: {n}");
    }
    for l in &r.leftovers {
        eprintln!("leftover: {l}");
    }
    for p in &r.problems {
        eprintln!("problem: {p}");
    }
    if !cx.cli.quiet {
        writeln!(
            cx.stdout,
            "checked {} files, {} rows, {} runs: {} problems, {} leftovers{}",
            r.files,
            r.rows,
            r.runs,
            r.problems.len(),
            r.leftovers.len(),
            if r.leftovers.is_empty() {
                ""
            } else {
                " (`perfhouse gc` removes them)"
            }
        )?;
    }
    if !r.problems.is_empty() {
        bail!("the warehouse has {} problem(s)", r.problems.len());
    }
    Ok(())
}

fn cmd_transfer_bench(args: &crate::cli::TransferBenchArgs) -> Result<()> {
    let m = transfer_bench::measure(&transfer_bench::TransferBench {
        object_size: args.object_size,
        page_size: args.page_size,
        buffer: args.buffer,
        total: args.total,
        seed: args.seed,
    })?;
    println!("gbps {:.4}", m.gbps);
    println!("huge_share {:.4}", m.huge_share);
    Ok(())
}

async fn cmd_synth(cx: &mut Ctx<'_>, args: &crate::cli::SynthArgs) -> Result<()> {
    let (runs, rows) = synth::synth(&cx.wh()?, args, cx.cli.quiet)?;
    if !cx.cli.quiet {
        writeln!(
            cx.stdout,
            "wrote {runs} synthetic run(s), {rows} request rows"
        )?;
    }
    Ok(())
}

/// The open commit entry (`alerts --by commit`) of commit `sha` in `suite`'s history, if
/// series changed there.
async fn commit_entry(
    q: &Query,
    suite: &str,
    sha: &str,
) -> Result<Option<crate::query::alerts::CommitAlert>> {
    let series = history::history(q, Some(suite), None, &Default::default()).await?;
    let open: Vec<_> = crate::query::alerts::alerts(q, &series)
        .await?
        .into_iter()
        .filter(|a| a.state.is_open() && a.suite == suite)
        .collect();
    Ok(crate::query::alerts::by_commit(&open, &series)
        .into_iter()
        .find(|e| e.git_commit.as_deref() == Some(sha)))
}

async fn cmd_alerts(cx: &mut Ctx<'_>, args: &crate::cli::AlertsArgs) -> Result<()> {
    let q = open_query(cx.cli, &cx.slos).await?;
    let series = history::history(&q, args.suite.as_deref(), None, &Default::default()).await?;
    let list: Vec<_> = crate::query::alerts::alerts(&q, &series)
        .await?
        .into_iter()
        .filter(|a| args.all || a.state.is_open())
        .filter(|a| args.suite.as_ref().is_none_or(|s| &a.suite == s))
        .collect();
    let text = if args.by == crate::cli::AlertsBy::Commit {
        let commits = crate::query::alerts::by_commit(&list, &series);
        match args.format {
            OutputFormat::Json => serde_json::to_string_pretty(&commits)? + "\n",
            OutputFormat::Table => {
                report::alerts_by_commit(&commits, args.all, report::TextLayout::Table)
            }
            OutputFormat::Csv => {
                report::alerts_by_commit(&commits, args.all, report::TextLayout::Csv)
            }
        }
    } else {
        match args.format {
            OutputFormat::Json => serde_json::to_string_pretty(&list)? + "\n",
            OutputFormat::Table => report::alerts(&list, args.all, report::TextLayout::Table),
            OutputFormat::Csv => report::alerts(&list, args.all, report::TextLayout::Csv),
        }
    };
    cx.stdout.write_all(text.as_bytes())?;
    Ok(())
}

async fn cmd_triage(cx: &mut Ctx<'_>, args: &crate::cli::TriageArgs) -> Result<()> {
    let warehouse = cx.wh()?;
    let all = {
        let q = Query::open(&warehouse).await?;
        let series = history::history(&q, None, None, &Default::default()).await?;
        crate::query::alerts::alerts(&q, &series).await?
    };
    let found = triage_targets(all, &args.alert)?;
    let now = crate::model::now_us();
    let events: Vec<crate::model::AlertEvent> = found
        .iter()
        .map(|a| crate::model::AlertEvent {
            alert_id: a.alert_id.clone(),
            suite: a.suite.clone(),
            run_id: a.run_id.clone(),
            metric: a.metric.clone(),
            arm: a.arm.clone(),
            params: a.params.clone(),
            git_commit: a.git_commit.clone(),
            magnitude: a.magnitude,
            regression: a.regression,
            state: args.state,
            note: args.note.clone(),
            at_us: now,
        })
        .collect();
    warehouse.record_alerts(&events)?;
    if !cx.cli.quiet {
        for a in &found {
            writeln!(
                cx.stdout,
                "alert {} ({} {} {} at run #{}): {} → {}",
                a.alert_id,
                a.suite,
                a.metric,
                crate::present::signed_pct(a.magnitude),
                a.run_no.unwrap_or_default(),
                a.state,
                args.state
            )?;
        }
    }
    Ok(())
}

/// The alerts `perfhouse triage` changes: the one whose id starts with `alert`, or, for
/// `commit:SHA`, every open alert of the one commit whose id starts with SHA.
fn triage_targets(
    all: Vec<crate::query::alerts::Alert>,
    alert: &str,
) -> Result<Vec<crate::query::alerts::Alert>> {
    if let Some(prefix) = alert.strip_prefix("commit:") {
        if prefix.len() < 4 {
            bail!("{alert:?}: give at least 4 characters of the commit");
        }
        let open: Vec<_> = all
            .into_iter()
            .filter(|a| a.state.is_open())
            .filter(|a| {
                a.git_commit
                    .as_deref()
                    .is_some_and(|c| c.starts_with(prefix))
            })
            .collect();
        let commits: std::collections::BTreeSet<&str> = open
            .iter()
            .filter_map(|a| a.git_commit.as_deref())
            .collect();
        return match commits.len() {
            0 => bail!(
                "{alert:?}: no open alert at such a commit (see `perfhouse alerts --by commit`)"
            ),
            1 => Ok(open),
            n => bail!("{alert:?}: matches {n} commits; give more of the commit"),
        };
    }
    let found: Vec<_> = all
        .into_iter()
        .filter(|a| a.alert_id.starts_with(alert))
        .collect();
    match found.len() {
        1 => Ok(found),
        0 => bail!("alert {alert:?}: no such alert (see `perfhouse alerts --all`)"),
        n => bail!("alert {alert:?}: matches {n} alerts; give more of the id"),
    }
}

async fn cmd_changepoints(cx: &mut Ctx<'_>, args: &crate::cli::ChangepointsArgs) -> Result<()> {
    let text = if args.input.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())?
    } else {
        std::fs::read_to_string(&args.input).with_context(|| args.input.display().to_string())?
    };
    let series = history::parse_series_csv(&text)
        .map_err(|why| anyhow::anyhow!("{} {why}", args.input.display()))?;
    let mut opts = crate::stats::changepoint::Options::default();
    if let Some(rule) = &args.rule {
        let parsed = crate::query::thresholds::SuiteRules::parse(rule)
            .map_err(|e| anyhow::anyhow!("--rule {rule}: {e}"))?;
        opts.rule = parsed.rule("").0;
    }
    let out: serde_json::Map<String, serde_json::Value> = series
        .iter()
        .map(|(name, values)| {
            let cps: Vec<serde_json::Value> = history::detect(values, &opts)
                .into_iter()
                .map(|c| {
                    serde_json::json!({"index": c.index, "magnitude": c.magnitude, "p_value": c.p_value})
                })
                .collect();
            (name.clone(), serde_json::Value::Array(cps))
        })
        .collect();
    writeln!(cx.stdout, "{}", serde_json::to_string(&out)?)?;
    Ok(())
}

async fn cmd_sweep(cx: &mut Ctx<'_>, args: &crate::cli::SweepArgs) -> Result<()> {
    let q = open_query(cx.cli, &cx.slos).await?;
    if let Some(suite) = &args.suite {
        return suite_frontier(cx, &q, suite, args).await;
    }
    let ids: Vec<String> = match &args.run {
        Some(r) => vec![r.clone()],
        None => {
            #[derive(serde::Deserialize)]
            struct Id {
                run_id: String,
            }
            let rows: Vec<Id> = q
                .rows("SELECT run_id FROM runs ORDER BY started_at DESC, run_id DESC")
                .await?;
            rows.into_iter().map(|r| r.run_id).collect()
        }
    };
    let mut found = None;
    for id in &ids {
        if let Some(s) = crate::query::sweep::sweep(&q, id, args.load.as_deref()).await? {
            found = Some(s);
            break;
        }
    }
    let Some(s) = found else {
        match &args.run {
            Some(r) => bail!(
                "run {r}: not a load sweep (no {} parameter with two or more values, or no such run)",
                args.load
                    .clone()
                    .unwrap_or_else(|| crate::query::sweep::LOAD_PARAMS.join("/"))
            ),
            None => bail!("no run in the warehouse sweeps load"),
        }
    };
    let text = match args.format {
        OutputFormat::Json => serde_json::to_string_pretty(&s)? + "\n",
        OutputFormat::Table => report::sweep(&s, report::TextLayout::Table),
        OutputFormat::Csv => report::sweep(&s, report::TextLayout::Csv),
    };
    cx.stdout.write_all(text.as_bytes())?;
    Ok(())
}

/// `perfhouse sweep --suite`: the frontier across the suite's runs.
async fn suite_frontier(
    cx: &mut Ctx<'_>,
    q: &crate::query::Query,
    suite: &str,
    args: &crate::cli::SweepArgs,
) -> Result<()> {
    let needs = format!(
        "a sweep is a run whose trials take three or more values of {}",
        args.load
            .clone()
            .unwrap_or_else(|| crate::query::sweep::LOAD_PARAMS.join(", "))
    );
    let Some(f) = crate::query::sweep::suite_frontier(q, suite, args.load.as_deref()).await? else {
        #[derive(serde::Deserialize)]
        struct Count {
            n: i64,
        }
        let runs: Vec<Count> = q
            .rows(&format!(
                "SELECT count(*) AS n FROM runs WHERE suite = {}",
                query::lit(suite)
            ))
            .await?;
        match runs.first().map_or(0, |c| c.n) {
            0 => bail!("suite {suite}: no such suite (no run of it in the warehouse)"),
            n => bail!(
                "suite {suite}: none of its {n} run(s) sweeps load, so there is no frontier across runs ({needs})"
            ),
        }
    };
    if f.frontier.is_empty() {
        bail!(
            "suite {suite}: its sweep runs have no output token counts, so no frontier (per-user and total output tok/s need each request's output tokens)"
        );
    }
    let text = match args.format {
        OutputFormat::Json => serde_json::to_string_pretty(&f)? + "\n",
        OutputFormat::Table => report::suite_frontier(&f, report::TextLayout::Table),
        OutputFormat::Csv => {
            // The rows only: where runs were left out, stderr says so.
            if !f.left_out.is_empty() && !cx.cli.quiet {
                eprintln!("{}", report::suite_frontier_left_out(&f));
            }
            report::suite_frontier(&f, report::TextLayout::Csv)
        }
    };
    cx.stdout.write_all(text.as_bytes())?;
    Ok(())
}

async fn cmd_noise(cx: &mut Ctx<'_>, args: &crate::cli::NoiseArgs) -> Result<()> {
    let q = open_query(cx.cli, &cx.slos).await?;
    // The noise where it applies: of each series' newest level (change points found).
    let series = history::history(&q, args.suite.as_deref(), None, &Default::default()).await?;
    let model = crate::query::noise::NoiseModel::from_series(&q, &series).await?;
    let entries: Vec<_> = model
        .entries()
        .into_iter()
        .filter(|e| args.suite.as_ref().is_none_or(|s| &e.suite == s))
        .collect();
    let text = match args.format {
        OutputFormat::Json => serde_json::to_string_pretty(&entries)? + "\n",
        OutputFormat::Table => report::noise(&entries, report::TextLayout::Table),
        OutputFormat::Csv => report::noise(&entries, report::TextLayout::Csv),
    };
    cx.stdout.write_all(text.as_bytes())?;
    Ok(())
}

/// `report --record-alerts`: each regressed row becomes an alert of the candidate run (state
/// `new`, note naming the comparison), unless that alert already has an event. Returns how
/// many were written.
fn record_report_alerts(
    wh: &crate::warehouse::Warehouse,
    c: &compare::Comparison,
    known: &std::collections::BTreeMap<String, crate::model::AlertEvent>,
) -> Result<usize> {
    let cand = &c.candidate.run;
    let mut n = 0;
    for r in c
        .rows
        .iter()
        .filter(|r| r.verdict == crate::stats::verdict::Verdict::Regressed)
    {
        let id =
            crate::query::alerts::alert_id(&cand.suite, &r.metric, &r.arm, &r.params, &cand.run_id);
        if known.contains_key(&id) {
            continue;
        }
        wh.record_alert(&crate::model::AlertEvent {
            alert_id: id,
            suite: cand.suite.clone(),
            run_id: cand.run_id.clone(),
            metric: r.metric.clone(),
            arm: r.arm.clone(),
            params: r.params.clone(),
            git_commit: cand.git_commit.clone(),
            magnitude: r.ratio.map_or(0.0, |x| x - 1.0),
            regression: true,
            state: crate::model::TriageState::New,
            note: format!("report: {} → {}", c.baseline.label, c.candidate.label),
            at_us: crate::model::now_us(),
        })?;
        n += 1;
    }
    Ok(n)
}

/// After `calibrate`: each measure's A/A noise side by side, printed as a table (unless
/// `--quiet`) and kept in a sentence as a note of the calibration run (its page shows it).
fn calibration_noise(
    cli: &Cli,
    wh: &Warehouse,
    runtime: &tokio::runtime::Runtime,
    run_id: &str,
) -> Result<()> {
    let list = runtime.block_on(async {
        let q = Query::open_with(wh, &query::slo::Slos::default()).await?;
        anyhow::Ok(crate::query::noise::calibration_noise(&q, run_id).await?)
    })?;
    if list.is_empty() {
        return Ok(());
    }
    let table = report::calibration_noise(&list, report::TextLayout::Table);
    if !cli.quiet {
        print!("\nA/A noise per measure:\n{table}");
    }
    wh.annotate(
        run_id,
        &report::calibration_noise_note(&list),
        crate::model::now_us(),
    )?;
    Ok(())
}

/// The end of `run` and `calibrate`: warnings, the report (always for a dry run's schedule),
/// exit 1 when a trial failed.
fn finish_run(outcome: &crate::runner::RunOutcome, quiet: bool) -> Result<()> {
    print_warnings(&outcome.warnings);
    // The dry-run schedule and --find-capacity's answers are the output, also with --quiet.
    if !quiet || outcome.schedule.is_some() || outcome.capacity.is_some() {
        crate::runner::report(outcome, &mut std::io::stdout().lock())?;
    }
    if outcome.failed > 0 {
        bail!(
            "{} of {} trials failed (recorded in the run)",
            outcome.failed,
            outcome.trials
        );
    }
    Ok(())
}

fn print_warnings(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// Returned when `bisect`'s ends do not differ; `main` maps it to exit code 4.
#[derive(Debug, thiserror::Error)]
#[error("the ends do not differ: nothing to bisect")]
pub struct NothingToBisect;

/// Returned when `--fail-on-regression` finds one; `main` maps it to exit code 3.
#[derive(Debug, thiserror::Error)]
#[error("regression found")]
pub struct RegressionFound;

fn compare_options(a: &CompareArgs) -> Result<CompareOptions> {
    let pct = |flag: &str, v: f64| -> Result<f64> {
        if !(v.is_finite() && v >= 0.0) {
            bail!("{flag} {v}: expected a non-negative percentage");
        }
        Ok(v / 100.0)
    };
    let mut thresholds = std::collections::BTreeMap::new();
    for (metric, v) in &a.metric_thresholds {
        let v: f64 = v.trim_end_matches('%').parse().with_context(|| {
            format!("--metric-threshold {metric}={v}: expected a number of percent")
        })?;
        thresholds.insert(metric.clone(), pct("--metric-threshold", v)?);
    }
    Ok(CompareOptions {
        verdict: VerdictOptions {
            threshold: pct("--threshold", a.threshold)?,
            seed: a.seed,
            ..VerdictOptions::default()
        },
        thresholds,
        noise: Default::default(),
        only: None,
    })
}
