//! Command-line flags (clap). Turned into validated options once, in `commands`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::ingest::Format;

#[derive(Debug, Parser)]
#[command(
    name = "perfhouse",
    version,
    about = "Run benchmarks, keep every result in a Parquet warehouse, publish what they mean.",
    long_about = "perfhouse keeps benchmark results in a Hive-partitioned Parquet warehouse that \
DataFusion, DuckDB and pyarrow read as is, derives load-test figures (throughput, latency \
percentiles, cores busy, Little's law) in SQL views, and builds a static site from them.\n\n\
Typical session:\n  perfhouse ingest --suite frontend --discard-first results/\n  \
perfhouse query \"select * from arm_medians\"\n  perfhouse site --out site/",
    after_help = "Exit codes: 0 ok, 1 failure, 2 usage error."
)]
pub struct Cli {
    /// Warehouse directory.
    #[arg(
        long,
        global = true,
        env = "PERFHOUSE_WAREHOUSE",
        default_value = "datasets/warehouse"
    )]
    pub warehouse: PathBuf,
    /// Print only errors and warnings.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// A service-level objective for every suite, instead of each suite's own (its newest
    /// run's `slo` label, a plan's `slo = [...]`): `ttft_ms<=200`, `itl_ms<=20`,
    /// `latency_ms<=2000` for every request (goodput and SLO attainment), `p99(ttft_ms)<=500`
    /// for a percentile (p50, p90, p99) of a trial (capacity at SLO). Repeat it or separate
    /// with commas.
    #[arg(long, global = true, value_name = "SLO", value_parser = slo_arg)]
    pub slo: Vec<crate::query::slo::Slos>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Execute a plan (TOML): every trial with a fresh setup/teardown, CPU sampling,
    /// profiling and metric extraction, landed as one run.
    ///
    /// The plan declares the suite, arms, a parameter matrix, repeats and their order
    /// (interleaved A,B,A,B / shuffled / sequential), warm-ups, cold-start discard, the
    /// setup/ready/command/teardown commands, timeouts, sampling, profiling, files to collect and
    /// metrics to extract; see the book's "Plans" chapter (docs/src/plans.md) and datasets/plans/. Every command
    /// runs in its own process group with PERFHOUSE_TRIAL_ID set; no process of a trial
    /// outlives it. A failed trial is recorded (exit code, stderr tail) and the run goes on.
    #[command(
        after_help = "Exit codes: 0 all trials ok, 1 failure (or a failed trial), 2 usage error."
    )]
    Run(RunArgs),
    /// Measure the noise of one arm: run it against itself, interleaved (A/A), recorded as a
    /// calibration run whose split-half spread sets that arm's A/A noise threshold.
    ///
    /// The plan's arm (the first, or --arm) runs as two identical arms, `<arm>` and
    /// `<arm>~aa`, REPEATS times each, interleaved, with the plan's matrix, setup and teardown.
    /// The run is stored with source `calibrate` and label `calibration=<arm>`; it is no part
    /// of any history. `compare`, `report` and the site then judge two arms of one run with the
    /// threshold it gives (see `perfhouse noise`).
    #[command(
        after_help = "Exit codes: 0 all trials ok, 1 failure (or a failed trial), 2 usage error."
    )]
    Calibrate(CalibrateArgs),
    /// Find the first commit between two revisions where a metric got worse.
    ///
    /// Binary search over `git rev-list --ancestry-path GOOD..BAD` of the repository holding
    /// the plan: each step is one interleaved run of the plan's first arm at `good`, the tested
    /// commit and `bad` (each revision checked out in a worktree and built once with the
    /// plan's `run.build`), stored like any run; the tested commit is judged against both ends
    /// with the statistics of `compare`.
    #[command(
        after_help = "Exit codes: 0 first bad commit found, 1 failure, 2 usage error, 4 the ends do not differ (nothing to bisect)."
    )]
    Bisect(BisectArgs),
    /// The noise model: per series its run-to-run σ (history) and A/A calibration, and the
    /// thresholds they give (1 % false-positive target, ±2 % floor).
    Noise(NoiseArgs),
    /// A load sweep (a run whose trials vary concurrency or request rate): per arm the levels'
    /// medians, the knee (where throughput stops scaling while latency climbs) and the capacity
    /// at the suite's SLOs (see --slo), with a bootstrap interval over the repeats; between the
    /// first two arms, the shift of capacity.
    ///
    /// With --suite: the Pareto frontier across the suite's runs instead, per-user against
    /// total output tokens/s over every level of every run that sweeps load.
    #[command(
        after_help = "Definitions: docs/src/views.md, \"Load sweeps\". Exit codes: 0 ok, 1 failure (no such run, or no run that sweeps load), 2 usage error."
    )]
    Sweep(SweepArgs),
    /// Alerts: every change point history calls, with its triage state (open ones first).
    ///
    /// States: new, acknowledged (both open), invalid, fixed, accepted (the new level is the
    /// series' new baseline: it starts a new segment there). Change one with `perfhouse
    /// triage ID STATE --note TEXT`. The site lists open alerts first and publishes them as an
    /// Atom feed (feed.xml).
    Alerts(AlertsArgs),
    /// Set an alert's triage state (with a note), stored in the warehouse.
    ///
    /// What a state does: `accepted` makes the new level the series' baseline (a new segment
    /// starts there); on a suspected break (a benchmark's code or machine seems to have
    /// changed) it confirms the break, and `invalid` rejects it (the jump is judged as an
    /// ordinary change again). `triage commit:SHA accepted` on a commit entry marked as a
    /// suspected environment change confirms that the machine, not the code, moved; any other
    /// state on all of its alerts rejects that suspicion. `new` and `acknowledged` keep an
    /// alert open; `invalid` and `fixed` close it.
    Triage(TriageArgs),
    /// Change points of series given as CSV, with the detector `history` uses (E-divisive,
    /// then at least 1σ of the series' own noise): for checking it against other tools.
    ///
    /// Input: a header `series,value`, then one row per point in order (no warehouse is read).
    /// Output (JSON): each series' change points, `index` being the first point at the new
    /// level. `benches/changepoints.sh` scores it against Apache Otava this way.
    Changepoints(ChangepointsArgs),
    /// Ingest tool outputs (files or directories) as one run.
    ///
    /// Every input file becomes one trial. `key=value` directories in a file's path set its arm
    /// (`arm=`), repeat (`repeat=`) and parameters (anything else), e.g.
    /// `results/arm=fastokens/concurrency=8/repeat=1/profile_export.jsonl`. Ingesting the same
    /// inputs with the same options again adds nothing.
    Ingest(IngestArgs),
    /// Run SQL over the warehouse tables and views.
    ///
    /// Tables: runs, trials, metrics, requests, cpu_samples, scrape_samples, stacks, artifacts, annotations, alerts (triage events).
    /// Views: trial_window, trial_requests, trial_cpu, trial_proc, trial_figures, arm_medians,
    /// arm_proc_medians, metric_medians, trial_server (server figures), scrape_over_time. `perfhouse query "show tables"` lists them.
    Query(QueryArgs),
    /// Compare two selections: medians, ratio with a bootstrap CI, Mann-Whitney p, verdict.
    ///
    /// SEL is a run id (or unique prefix), `latest`, `<suite>#<n>` (run number),
    /// `<suite>/<arm>` (newest run of the suite with that arm), or `git:<commit>`; append
    /// `@<arm>` to keep one arm, e.g. `--baseline latest@default --candidate latest@fastokens`.
    /// A verdict is improved/regressed only when the 95% CI of the ratio lies beyond the
    /// series' noise threshold (learned from history and A/A calibration, see `perfhouse
    /// noise`; at least --threshold) and the test gives p < 0.05 after Holm's correction across
    /// the rows (Mann-Whitney U; Welch's t on logs where the samples are too small for any rank
    /// test to reach 0.05).
    #[command(
        after_help = "Exit codes: 0 ok, 1 failure, 2 usage error, 3 regression found with --fail-on-regression."
    )]
    Compare(CompareArgs),
    /// Series over runs per suite × metric × arm × params, with change points.
    ///
    /// Each series is the per-run median in run order; E-divisive means with a permutation
    /// test finds level shifts, each reported at the first run after the change.
    History(HistoryArgs),
    /// Build the static HTML site.
    Site(SiteArgs),
    /// A comparison for a pull request: Markdown for a comment (≤ 65,536 characters, worst
    /// regressions first, details collapsed) or one self-contained HTML file.
    #[command(
        after_help = "Exit codes: 0 ok, 1 failure, 2 usage error, 3 regression found with --fail-on-regression."
    )]
    Report(ReportArgs),
    /// Commit the built site to a branch (default gh-pages) through a temporary git worktree,
    /// never touching the working tree or index of the repository you are in.
    Publish(PublishArgs),
    /// Add a note to a run (shown on its page).
    Annotate(AnnotateArgs),
    /// Copy in the runs of another warehouse directory that this one lacks, parts first and
    /// `runs` last: to move a local warehouse into a bucket
    /// (`perfhouse --warehouse s3://bucket/prefix import ./warehouse`), or to push again the
    /// staging directory a failed push kept (its error names it).
    Import(ImportArgs),
    /// The warehouse's tables and columns, or with --ddl the statements that make Spark,
    /// DuckDB or Trino read it (a directory or a bucket) with the committed-runs views.
    Schema(SchemaArgs),
    /// Merge each suite's small Parquet files into one per table, atomically.
    ///
    /// In a directory, the merged partition is swapped in with one rename. In a bucket, the
    /// merge commits with a create-only compaction record that readers filter by; the files it
    /// replaces stay until `perfhouse gc` past --grace (re-run `perfhouse schema --ddl` for
    /// other engines after the first compaction).
    Compact,
    /// Verify every file, schema, run linkage and kept raw input (exit 1 on damage), and list
    /// the leftovers of writers that died (what `perfhouse gc` removes; exit 0).
    Check,
    /// Remove what writers that died left behind: temporary files, rows of runs that never
    /// committed, unfinished runs whose writer is gone, kept inputs no committed run uses;
    /// in a bucket also files a compaction replaced.
    ///
    /// Safe while other perfhouse processes ingest, compact or read: rows in the tables are
    /// judged under the warehouse lock (every write into a table holds it), and unfinished
    /// runs and kept inputs are removed only once older than --grace and no writer holds them.
    /// Damaged files are never removed (`perfhouse check` reports them).
    Gc(GcArgs),
    /// Load the bundled datasets into the warehouse and build the site.
    Demo(DemoArgs),
    /// Benchmarks only: write SYNTHETIC runs of request rows (the bundled Dynamo capture's real
    /// records, cycled with seeded jitter; every run has source `synthetic` and the label
    /// `synthetic=replicated-real-records`). The benches use it so they reuse the release binary.
    #[command(hide = true)]
    Synth(SynthArgs),
    /// The demo's memory-transfer workload (datasets/plans/transfer*.toml): copies objects of
    /// one size between two buffers backed by 4 KiB or 2 MiB pages, in a seeded random order,
    /// and prints `gbps G` and `huge_share S` (the share the kernel backed with huge pages).
    #[command(name = "transfer-bench", hide = true)]
    TransferBench(TransferBenchArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    ///
    /// bash: `perfhouse completions bash > ~/.local/share/bash-completion/completions/perfhouse`;
    /// zsh: `perfhouse completions zsh > "${fpath[1]}/_perfhouse"`;
    /// fish: `perfhouse completions fish > ~/.config/fish/completions/perfhouse.fish`.
    Completions(CompletionsArgs),
    /// Print the man page (roff) to stdout: `perfhouse man > perfhouse.1 && man -l perfhouse.1`.
    Man,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

impl Command {
    /// The subcommand's name as typed (`ingest`, `changepoints`, …).
    pub fn name(&self) -> String {
        let debug = format!("{self:?}");
        let variant = debug.split(['(', ' ', '{']).next().unwrap_or_default();
        variant.to_ascii_lowercase()
    }
}

impl Cli {
    /// Parses the process's arguments; `query --help` lists the figure registry's columns.
    pub fn parse_args() -> Cli {
        use clap::{CommandFactory, FromArgMatches};
        let figures = format!(
            "Derived figures (columns of trial_figures, medians in arm_medians):\n{}",
            crate::query::figures::help()
        );
        let cmd = Cli::command().mut_subcommand("query", |q| q.after_help(figures));
        let matches = cmd.get_matches();
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    }
}

/// `--format` values are the ingest layer's own names (`ingest::Format`), which knows
/// nothing of clap.
impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        Format::all()
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()).help(self.description()))
    }
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Print the engine's statements: a `raw_<table>` per table over its Parquet files, then
    /// the views of committed runs only (query those: a raw table may hold rows of a run whose
    /// writer died before committing).
    #[arg(long, value_enum)]
    pub ddl: Option<DdlEngine>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DdlEngine {
    Spark,
    Duckdb,
    Trino,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The warehouse directory whose runs to copy.
    pub from: std::path::PathBuf,
}

#[derive(Debug, Args)]
pub struct GcArgs {
    /// Spare unfinished runs and unreferenced kept inputs younger than this (`30s`, `15m`,
    /// `2h`): an ingest may have stored an input it has not committed yet.
    #[arg(long, default_value = "1h", value_parser = parse_duration)]
    pub grace: std::time::Duration,
    /// Only list what would be removed.
    #[arg(long)]
    pub dry_run: bool,
}

fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    crate::runner::plan::parse_duration(s)
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Files or directories (walked for known file names).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Input format.
    #[arg(long, short, value_enum, default_value_t = Format::AUTO)]
    pub format: Format,
    /// Suite the run belongs to (e.g. `dynamo-frontend`).
    #[arg(long, short)]
    pub suite: String,
    /// Arm of trials whose path has no `arm=` segment.
    #[arg(long)]
    pub arm: Option<String>,
    /// Parameter for every trial (`concurrency=8`); path segments override it. Repeatable.
    #[arg(long = "param", value_name = "K=V", value_parser = key_value)]
    pub params: Vec<(String, String)>,
    /// Label of the run (`host=ci-3`). Repeatable.
    #[arg(long = "label", value_name = "K=V", value_parser = key_value)]
    pub labels: Vec<(String, String)>,
    /// Where the run's commits are shown: the commit id is appended, as asv's
    /// `show_commit_url` (`https://github.com/org/repo/commit/`). Stored as label `commit_url`;
    /// for asv results, `show_commit_url` of the project's asv.conf.json is the default.
    #[arg(long, value_name = "URL")]
    pub commit_url: Option<String>,
    /// Free-text note kept with the run (a hypothesis, a negative result).
    #[arg(long)]
    pub note: Option<String>,
    /// Discard the first repeat of every arm × params (cold start) from medians.
    #[arg(long)]
    pub discard_first: bool,
    /// Leave out files that fail to parse (nothing of them lands), ingest the rest, list the
    /// failures and exit 1.
    #[arg(long)]
    pub keep_going: bool,
    /// Land trials that carry no figure (no metric, request, stack or sample). Without it such
    /// an ingest is refused: it would land a run with nothing to show.
    #[arg(long)]
    pub allow_empty: bool,
    /// Profiled target of folded stacks (e.g. `frontend`).
    #[arg(long)]
    pub target: Option<String>,
    /// Kind of folded stacks when detection is not wanted.
    #[arg(long, value_enum)]
    pub stack_kind: Option<crate::model::StackKind>,
    /// Git commit the results belong to.
    #[arg(long)]
    pub commit: Option<String>,
    /// Git branch the results belong to.
    #[arg(long)]
    pub branch: Option<String>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The plan file.
    pub plan: PathBuf,
    /// Label of the run (`host=ci-3`). Repeatable.
    #[arg(long = "label", value_name = "K=V", value_parser = key_value)]
    pub labels: Vec<(String, String)>,
    /// Replace the plan's arms by git-revision arms, NAME=REV each (repeatable, in order: the
    /// first is the baseline): `--git-arm base=origin/main --git-arm head=HEAD` runs both
    /// commits interleaved on this machine, each built once with `run.build` (the GitHub
    /// Action's PR mode). Each inherits the environment and args of the plan's first arm.
    #[arg(long = "git-arm", value_name = "NAME=REV", value_parser = key_value)]
    pub git_arms: Vec<(String, String)>,
    /// Print the trial schedule and exit.
    #[arg(long)]
    pub dry_run: bool,
    /// Stop at the first failed trial (the run still lands, as partial).
    #[arg(long)]
    pub fail_fast: bool,
    /// Keep each trial's scratch directory (logs, perf data) under the temp dir.
    #[arg(long)]
    pub keep_scratch: bool,
    /// Confirm by rerun: while METRIC (a figure or metric name, as `compare` shows it) is
    /// inconclusive between the first arm and another, double the repeats (interleaved) up to
    /// --max-repeats; each of the K planned looks tests at 0.05/K.
    #[arg(long, value_name = "METRIC", requires = "max_repeats")]
    pub until_decided: Option<String>,
    /// The most repeats per arm × params --until-decided may reach.
    #[arg(long, value_name = "N", requires = "until_decided")]
    pub max_repeats: Option<u32>,
    /// Search each arm's capacity instead of running the plan's matrix: the highest load that
    /// meets the SLOs of the plan's `[capacity]` section.
    ///
    /// The plan names the load parameter (`load = "concurrency"`, or a request rate:
    /// `request_rate`, `rate`, `qps`), the SLOs (`slo = ["p99(latency_ms)<=130"]`, the plan's
    /// `slo` where not given), `max`, and optionally `start` (1), `resolution` ("10%" of the
    /// bracket's lower end, or load units: "2") and `saturation` ("10%"). The load starts at
    /// `start` and doubles (capped at `max`) until a level misses an SLO or is over-saturated
    /// (throughput more than `saturation` below a lower level's while latency climbs); then the
    /// bracket between the last good level and the first bad one is bisected (whole numbers for
    /// a concurrency) until it is within the resolution. Each probe is a round of trials with
    /// the plan's warm-ups and repeats, interleaved across arms, whose load parameter (a param
    /// and an environment variable, as a matrix key) is the level; levels are judged on their
    /// trials' medians as `perfhouse sweep` judges them. The run lands with every probe
    /// (`perfhouse sweep` shows them as levels); the capacity per arm, its bracket and the
    /// probes are printed and stored as the run's notes.
    #[arg(long, conflicts_with = "until_decided")]
    pub find_capacity: bool,
}

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// The plan file.
    pub plan: PathBuf,
    /// Repeats of each of the two identical arms (at least 5; 10 or more for a threshold at
    /// the 1 % target that holds for 3-vs-3 comparisons).
    #[arg(long, default_value_t = 10)]
    pub repeats: u32,
    /// The arm to calibrate (default: the plan's first).
    #[arg(long)]
    pub arm: Option<String>,
    /// Label of the run (`host=ci-3`). Repeatable.
    #[arg(long = "label", value_name = "K=V", value_parser = key_value)]
    pub labels: Vec<(String, String)>,
}

#[derive(Debug, Args)]
pub struct BisectArgs {
    /// The plan file (its first arm is what runs at each commit).
    pub plan: PathBuf,
    /// A revision where the metric is good.
    #[arg(long)]
    pub good: String,
    /// A revision where it is bad (a descendant of --good).
    #[arg(long)]
    pub bad: String,
    /// The figure or metric to bisect on (`latency_p50_ms`, `wall_ms`).
    #[arg(long)]
    pub metric: String,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = BisectFormat::Text)]
    pub format: BisectFormat,
    /// Label of every step's run. Repeatable.
    #[arg(long = "label", value_name = "K=V", value_parser = key_value)]
    pub labels: Vec<(String, String)>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum BisectFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct AlertsArgs {
    /// Only this suite.
    #[arg(long)]
    pub suite: Option<String>,
    /// Also the closed ones (invalid, fixed, accepted).
    #[arg(long)]
    pub all: bool,
    /// `commit`: one entry per commit (the first run at the new level) with every series
    /// that changed there, newest first; `series`: one line per alert.
    #[arg(long, value_enum, default_value_t = AlertsBy::Series)]
    pub by: AlertsBy,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

/// How `perfhouse alerts` groups its list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AlertsBy {
    Series,
    Commit,
}

#[derive(Debug, Args)]
pub struct TriageArgs {
    /// The alert id (or a unique prefix), as `perfhouse alerts` lists it; or `commit:SHA` (a
    /// unique prefix of the commit) for every open alert of that commit entry at once, as
    /// `perfhouse alerts --by commit` lists it.
    pub alert: String,
    /// The state to set.
    #[arg(value_enum)]
    pub state: crate::model::TriageState,
    /// Why (shown with the alert and in the feed).
    #[arg(long, default_value = "")]
    pub note: String,
}

#[derive(Debug, Args)]
pub struct ChangepointsArgs {
    /// The CSV file (`-` for standard input).
    pub input: PathBuf,
    /// The change rule to judge with instead of the default, as the `change_threshold` label
    /// writes it: `Kσ`, `F%` or `Kσ/F%` (e.g. `2.5σ/1%`), for tuning (benches/changepoints.sh).
    #[arg(long, value_name = "RULE")]
    pub rule: Option<String>,
}

#[derive(Debug, Args)]
pub struct NoiseArgs {
    /// Only this suite.
    #[arg(long)]
    pub suite: Option<String>,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Run id (default: the newest run that sweeps load).
    pub run: Option<String>,
    /// The Pareto frontier across this suite's runs, instead of one run's sweep: every run of
    /// the suite that sweeps load, and the frontier of per-user against total output tokens/s
    /// (per GPU where a run's `gpus` label says so) over the union of their levels, each point
    /// naming its run, commit, arm and load. Runs that sweep another load parameter than the
    /// first are left out, and listed (with --load, only the runs that vary it take part).
    #[arg(long, value_name = "SUITE", conflicts_with = "run")]
    pub suite: Option<String>,
    /// The load parameter (default: the first of concurrency, request_rate, rate, qps with
    /// three or more values).
    #[arg(long)]
    pub load: Option<String>,
    /// Output format (csv: one row per arm × level; with --suite, one per point).
    #[arg(long, short, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum OutputFormat {
    Table,
    Csv,
    Json,
}

#[derive(Debug, Args)]
pub struct QueryArgs {
    /// SQL (DataFusion dialect).
    pub sql: String,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CompareFormat {
    Table,
    Md,
    Json,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// What the change is measured against.
    #[arg(long, value_name = "SEL")]
    pub baseline: String,
    /// What is being judged.
    #[arg(long, value_name = "SEL")]
    pub candidate: String,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = CompareFormat::Table)]
    pub format: CompareFormat,
    /// Exit with code 3 when any metric regressed.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Floor of the noise threshold in percent (each series' learned threshold is used where it
    /// is larger): changes whose CI stays within ±the threshold are `unchanged`.
    #[arg(long, default_value_t = 2.0, value_name = "PCT")]
    pub threshold: f64,
    /// Noise threshold for one metric (`latency_p99_ms=5`). Repeatable.
    #[arg(long = "metric-threshold", value_name = "METRIC=PCT", value_parser = key_value)]
    pub metric_thresholds: Vec<(String, String)>,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 0xab)]
    pub seed: u64,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ReportFormat {
    Md,
    Html,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// What the change is measured against (a SEL, as for `compare`).
    #[arg(long, value_name = "SEL")]
    pub baseline: String,
    /// What is being judged.
    #[arg(long, value_name = "SEL")]
    pub candidate: String,
    /// md (a PR comment) or html (one self-contained file).
    #[arg(long, short, value_enum, default_value_t = ReportFormat::Md)]
    pub format: ReportFormat,
    /// Write here instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Where the site is published (`https://org.github.io/repo`): run names link there.
    #[arg(long)]
    pub site_url: Option<String>,
    /// Floor of the noise threshold in percent (each series' learned threshold is used where it
    /// is larger).
    #[arg(long, default_value_t = 2.0, value_name = "PCT")]
    pub threshold: f64,
    /// Exit with code 3 when any metric regressed.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Record every regressed row as an alert (state `new`, once per row and candidate run), so
    /// it is triaged with the change points (`perfhouse alerts`, the site, feed.xml).
    #[arg(long)]
    pub record_alerts: bool,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// Branch that receives the site.
    #[arg(long, default_value = "gh-pages")]
    pub branch: String,
    /// The built site (run `perfhouse site` first).
    #[arg(long, default_value = "site")]
    pub site: PathBuf,
    /// The git repository (default: the one holding the current directory).
    #[arg(long, default_value = ".")]
    pub repo: PathBuf,
    /// Commit message.
    #[arg(long, default_value = "perfhouse: publish site")]
    pub message: String,
    /// Upload the site to an object-store prefix instead (`s3://bucket/site`, `gs://…`,
    /// `az://…`: a bucket served as a static website), credentials from the environment as
    /// for `--warehouse`. Pages go first and `index.html` last, each with its content type.
    #[arg(long, value_name = "URL", conflicts_with_all = ["branch", "repo", "message"])]
    pub to: Option<String>,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Only this suite.
    #[arg(long, short)]
    pub suite: Option<String>,
    /// Only this metric (`throughput_rps`, `latency_p99_ms`, or a metric name).
    #[arg(long, short)]
    pub metric: Option<String>,
    /// Only series with a change point.
    #[arg(long)]
    pub changes_only: bool,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
}

#[derive(Debug, Args)]
pub struct SiteArgs {
    /// Output directory.
    #[arg(long, short, default_value = "site")]
    pub out: PathBuf,
    /// Render every page again, ignoring what an earlier build left in OUT/.perfhouse-cache
    /// (a committed run's pages are otherwise rendered once and reused while their inputs are
    /// the same; the output is identical either way).
    #[arg(long)]
    pub full: bool,
}

#[derive(Debug, Args)]
pub struct AnnotateArgs {
    /// Run id.
    pub run: String,
    /// The note.
    pub text: String,
}

#[derive(Debug, Args)]
pub struct SynthArgs {
    /// Request rows per run.
    #[arg(long, default_value_t = 10_000)]
    pub rows: usize,
    /// Trials per run (the rows are spread over them).
    #[arg(long, default_value_t = 1)]
    pub trials: usize,
    /// Runs to write.
    #[arg(long, default_value_t = 1)]
    pub runs: usize,
    /// Runs per commit (one file per table for each batch, as an asv history lands).
    #[arg(long, default_value_t = 100)]
    pub batch: usize,
    /// The real aiperf records to replicate.
    #[arg(long, default_value = "datasets/dynamo-frontend/data")]
    pub from: std::path::PathBuf,
    /// Seed of the jitter.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct TransferBenchArgs {
    /// Bytes of each object copied.
    #[arg(long)]
    pub object_size: usize,
    /// Bytes of the pages backing the buffers: 4096, or 2097152 (transparent huge pages).
    #[arg(long, default_value_t = 4096)]
    pub page_size: usize,
    /// Bytes of each buffer (source and destination); larger than the caches.
    #[arg(long, default_value_t = 128 << 20)]
    pub buffer: usize,
    /// Bytes copied in the timed part.
    #[arg(long, default_value_t = 1 << 30)]
    pub total: usize,
    /// Seed of the slot order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Directory of bundled datasets (each subdirectory with an `ingest.json`).
    #[arg(long, default_value = "datasets")]
    pub datasets: PathBuf,
    /// Output directory of the site.
    #[arg(long, short, default_value = "site")]
    pub out: PathBuf,
    /// Skip running the bundled plans (datasets/plans/compressors.toml and transfer.toml,
    /// under a minute: the transfer plan is 24 trials of 1 GiB copied); each demo otherwise adds
    /// one run of each.
    #[arg(long)]
    pub no_plans: bool,
}

/// Parses `KEY=VALUE` (the value may contain `=`).
fn key_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("expected KEY=VALUE, got {s:?}")),
    }
}

fn slo_arg(s: &str) -> Result<crate::query::slo::Slos, String> {
    crate::query::slo::Slos::parse([s])
}
