//! The one registry of derived load-test figures.
//!
//! A figure is computed in exactly one place, the SQL view `trial_figures` (one value per
//! trial; the views below it compute its inputs). Everything else reads this table: the
//! `arm_medians` view is generated from it (the median over kept trials of every figure), and
//! `compare`, `history`, the site's run pages, `report` and `query --help` list the figures
//! from it. Adding a figure is two edits: its column in `views/20_trial_figures.sql` (or a view
//! it reads) and one line here.

use crate::stats::verdict::Direction;

/// One derived figure: a column of `trial_figures` and of `arm_medians`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Figure {
    /// Column name in `trial_figures` and `arm_medians`.
    pub name: &'static str,
    pub unit: &'static str,
    pub direction: Direction,
    /// Column header on pages and in reports.
    pub label: &'static str,
    /// Decimals shown on pages.
    pub decimals: usize,
    /// Compared by `compare`/`report` and on A/B pages.
    pub compare: bool,
    /// A series of `history` and of the suite/series pages.
    pub history: bool,
    /// A column of the run page's per-arm medians table.
    pub run_page: bool,
}

const fn fig(
    name: &'static str,
    unit: &'static str,
    direction: Direction,
    label: &'static str,
) -> Figure {
    Figure {
        name,
        unit,
        direction,
        label,
        decimals: 2,
        compare: true,
        history: true,
        run_page: true,
    }
}

use Direction::{HigherIsBetter as Higher, Info, LowerIsBetter as Lower};

/// Every figure, in display order.
pub const FIGURES: &[Figure] = &[
    fig("throughput_rps", "req/s", Higher, "throughput (req/s)"),
    Figure {
        decimals: 1,
        ..fig("output_tps", "tok/s", Higher, "output (tok/s)")
    },
    Figure {
        compare: false,
        history: false,
        run_page: false,
        ..fig("latency_mean_ms", "ms", Lower, "latency mean (ms)")
    },
    fig("latency_p50_ms", "ms", Lower, "latency p50 (ms)"),
    fig("latency_p99_ms", "ms", Lower, "latency p99 (ms)"),
    fig("ttft_p50_ms", "ms", Lower, "TTFT p50 (ms)"),
    Figure {
        history: false,
        ..fig("ttft_p99_ms", "ms", Lower, "TTFT p99 (ms)")
    },
    Figure {
        decimals: 3,
        ..fig("itl_p50_ms", "ms", Lower, "ITL p50 (ms)")
    },
    Figure {
        compare: false,
        history: false,
        run_page: false,
        decimals: 3,
        ..fig("itl_p99_ms", "ms", Lower, "ITL p99 (ms)")
    },
    fig("cores_busy", "cores", Lower, "cores busy"),
    // Under the suite's SLOs (`query::slo`); NULL, and so left out, where none is set.
    fig("goodput_rps", "req/s", Higher, "goodput (req/s)"),
    Figure {
        history: false,
        decimals: 1,
        ..fig("goodput_tps", "tok/s", Higher, "goodput (tok/s)")
    },
    Figure {
        decimals: 1,
        ..fig("slo_attainment_pct", "%", Higher, "SLO attainment (%)")
    },
    Figure {
        history: false,
        decimals: 3,
        ..fig("littles_law_ratio", "", Info, "Little's law ratio")
    },
];

/// The figure named `name`, if it is one.
pub fn get(name: &str) -> Option<&'static Figure> {
    FIGURES.iter().find(|f| f.name == name)
}

/// The `arm_medians` view: per run × arm × params, the median over kept trials (see
/// `trials.kept`) of every figure.
pub fn arm_medians_sql() -> String {
    arm_medians_sql_over("arm_medians", "trial_figures")
}

/// [`arm_medians_sql`] as view `name` over the trials of `source`.
pub fn arm_medians_sql_over(name: &str, source: &str) -> String {
    let cols: Vec<String> = FIGURES
        .iter()
        .map(|f| format!("       median({0}) AS {0}", f.name))
        .collect();
    format!(
        "CREATE VIEW {name} AS\nSELECT suite, run_id, arm, params,\n       count(*) AS n_trials,\n{}\nFROM {source}\nWHERE kept\nGROUP BY suite, run_id, arm, params",
        cols.join(",\n")
    )
}

/// `name (unit)` lines for `query --help`.
pub fn help() -> String {
    FIGURES
        .iter()
        .map(|f| {
            if f.unit.is_empty() {
                format!("  {}", f.name)
            } else {
                format!("  {} ({})", f.name, f.unit)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
