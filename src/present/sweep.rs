//! A load sweep as text cells and sentences: the same words in `perfhouse sweep`, the PR
//! report and the site's sweep page.

/// The columns of a sweep's levels (after the arm).
const SWEEP_COLUMNS: &[&str] = &[
    "load",
    "trials",
    "req/s",
    "p50 ms",
    "p99 ms",
    "TTFT p99 ms",
    "goodput req/s",
    "SLO %",
    "meets SLOs",
];

/// One arm's levels as text cells, in `SWEEP_COLUMNS` order.
fn sweep_rows(a: &crate::query::sweep::ArmSweep) -> Vec<Vec<String>> {
    let opt = |v: Option<f64>| v.map_or(String::new(), g);
    a.levels
        .iter()
        .map(|l| {
            vec![
                g(l.load),
                l.trials.to_string(),
                g(l.throughput_rps),
                opt(l.latency_p50_ms),
                opt(l.latency_p99_ms),
                opt(l.ttft_p99_ms),
                opt(l.goodput_rps),
                opt(l.slo_attainment_pct),
                l.meets
                    .map_or(String::new(), |m| if m { "yes" } else { "no" }.to_string()),
            ]
        })
        .collect()
}

/// The columns of the server figures a sweep's run names (`[[scrape]] figures`), after
/// [`SWEEP_COLUMNS`]: each figure's name and unit.
fn server_columns(s: &crate::query::sweep::Sweep) -> Vec<String> {
    s.server_figures
        .iter()
        .map(|name| {
            let unit = crate::query::figures::ServerFigure::parse(name)
                .map(|f| f.unit())
                .unwrap_or_default();
            if unit.is_empty() {
                name.clone()
            } else {
                format!("{name} ({unit})")
            }
        })
        .collect()
}

/// One arm's levels' server figures as text cells, in [`server_columns`] order (empty where
/// a level has none).
fn server_cells(
    s: &crate::query::sweep::Sweep,
    a: &crate::query::sweep::ArmSweep,
) -> Vec<Vec<String>> {
    a.levels
        .iter()
        .map(|l| {
            s.server_figures
                .iter()
                .map(|f| l.server.get(f).map_or(String::new(), |v| g(*v)))
                .collect()
        })
        .collect()
}

/// Every column of a sweep's table, after the arm: [`SWEEP_COLUMNS`], then the cost per million
/// output tokens where the run's labels give a cost (`cost_per_hour`), then the server
/// figures the run names ([`server_columns`]). The CLI, the reports and the site's sweep page
/// list these.
pub fn columns(s: &crate::query::sweep::Sweep) -> Vec<String> {
    SWEEP_COLUMNS
        .iter()
        .map(|c| c.to_string())
        .chain(has_cost(s).then(|| "$ per M output tok".to_string()))
        .chain(server_columns(s))
        .collect()
}

/// One arm's levels as text cells, in [`columns`] order.
pub fn rows(s: &crate::query::sweep::Sweep, a: &crate::query::sweep::ArmSweep) -> Vec<Vec<String>> {
    let cost = has_cost(s);
    sweep_rows(a)
        .into_iter()
        .zip(&a.levels)
        .zip(server_cells(s, a))
        .map(|((mut r, l), more)| {
            if cost {
                r.push(l.cost_per_mtok.map_or(String::new(), |c| format!("{c:.2}")));
            }
            r.extend(more);
            r
        })
        .collect()
}

fn has_cost(s: &crate::query::sweep::Sweep) -> bool {
    s.arms
        .iter()
        .any(|a| a.levels.iter().any(|l| l.cost_per_mtok.is_some()))
}

/// "concurrency 8 (38.2 req/s; the next step scales at 0.21)" or why there is none.
pub fn sweep_knee(s: &crate::query::sweep::Sweep, a: &crate::query::sweep::ArmSweep) -> String {
    match &a.knee {
        Some(k) => format!(
            "{} {} ({} req/s; the next step scales at {:.2} of proportional)",
            s.load,
            g(k.load),
            g(k.throughput_rps),
            k.efficiency
        ),
        None => format!(
            "none in the range tried: throughput still scales with {}",
            s.load
        ),
    }
}

/// "concurrency 11.3 → 41.0 req/s (95 % CI 39.1 … 42.8), interpolated; first to fail: …".
pub fn sweep_capacity(s: &crate::query::sweep::Sweep, a: &crate::query::sweep::ArmSweep) -> String {
    let Some(c) = &a.capacity else {
        return "no SLO set".into();
    };
    let ci = match (c.ci, &c.no_interval) {
        (Some((lo, hi)), _) => format!(" (95 % CI {} … {})", g(lo), g(hi)),
        (None, Some(why)) => format!(" ({why})"),
        (None, None) => String::new(),
    };
    let x = c.throughput_rps.map_or(String::new(), g);
    // What serving at capacity costs, where the run's labels give a cost.
    let x = match c.cost_per_mtok {
        Some(cost) => format!("{x} req/s at ${cost:.2} per M output tokens"),
        None => format!("{x} req/s"),
    };
    match c.kind {
        crate::query::sweep::CapacityKind::Within => format!(
            "{} {} → {x}{ci}, interpolated between levels; first to fail: {}",
            s.load,
            g(c.load),
            c.binding.clone().unwrap_or_default()
        ),
        crate::query::sweep::CapacityKind::AtLeast => format!(
            "at least {} {} → {x}{ci}: every level tried meets the SLOs",
            s.load,
            g(c.load)
        ),
        crate::query::sweep::CapacityKind::Below => format!(
            "below {} {}: the lowest level already fails {}",
            s.load,
            g(c.load),
            c.binding.clone().unwrap_or_default()
        ),
    }
}

/// The levels of an arm whose Little's-law ratio says the load generator set the pace
/// (below [`crate::query::compare::CLIENT_BOUND`]): (load, ratio), in load order.
pub fn paced_levels(a: &crate::query::sweep::ArmSweep) -> Vec<(f64, f64)> {
    a.levels
        .iter()
        .filter_map(|l| Some((l.load, l.littles_law_ratio?)))
        .filter(|(_, r)| *r < crate::query::compare::CLIENT_BOUND)
        .collect()
}

/// "client-bound at concurrency 1, 2": the levels of an arm the load generator paced, or
/// empty; said next to the knee and capacity those levels qualify.
pub fn client_bound_flag(
    s: &crate::query::sweep::Sweep,
    a: &crate::query::sweep::ArmSweep,
) -> String {
    let paced = paced_levels(a);
    if paced.is_empty() {
        return String::new();
    }
    let levels: Vec<String> = paced.iter().map(|(l, _)| g(*l)).collect();
    format!("client-bound at {} {}", s.load, levels.join(", "))
}

/// An arm's capacity and knee in a few words, for the index: "capacity 24 at
/// p99(ttft)≤80ms (41.0 req/s), knee 16" (the load is named where this is shown).
pub fn sweep_lead(s: &crate::query::sweep::Sweep, a: &crate::query::sweep::ArmSweep) -> String {
    use crate::query::sweep::CapacityKind;
    let capacity = match &a.capacity {
        None => "no SLO set".to_string(),
        Some(c) => {
            let x = c
                .throughput_rps
                .map_or(String::new(), |x| format!(" ({} req/s)", g(x)));
            let at = match c.kind {
                CapacityKind::Within => g(c.load),
                CapacityKind::AtLeast => format!("at least {}", g(c.load)),
                CapacityKind::Below => format!("below {}", g(c.load)),
            };
            format!("capacity {at} at {}{x}", s.slo)
        }
    };
    let knee = match &a.knee {
        Some(k) => format!("knee {}", g(k.load)),
        None => "no knee in the range tried".to_string(),
    };
    format!("{capacity}, {knee}")
}

/// The columns of the frontier across a suite's runs (`perfhouse sweep --suite`): the run,
/// its commit and `gpus` label, the arm and load level, per-user and total output tokens/s
/// (per GPU where `gpus` is set), and whether the point is on the frontier.
pub const SUITE_FRONTIER_COLUMNS: &[&str] = &[
    "run",
    "run_id",
    "commit",
    "gpus",
    "arm",
    "load",
    "per_user_tps",
    "output_tps",
    "frontier",
];

/// The points of the frontier across a suite's runs as text cells, in
/// [`SUITE_FRONTIER_COLUMNS`] order: frontier first, then the dominated points.
pub fn suite_frontier_rows(f: &crate::query::sweep::SuiteFrontier) -> Vec<Vec<String>> {
    f.frontier
        .iter()
        .map(|p| {
            let gpus = f
                .runs
                .iter()
                .find(|r| r.run.run_id == p.run.run_id)
                .and_then(|r| r.gpus);
            vec![
                format!("#{}", p.run.run_no),
                p.run.run_id.clone(),
                p.run.commit.clone().unwrap_or_default(),
                gpus.map_or(String::new(), g),
                p.point.arm.clone(),
                g(p.point.load),
                g(p.point.per_user_tps),
                g(p.point.output_tps),
                if p.point.dominated {
                    "dominated"
                } else {
                    "yes"
                }
                .to_string(),
            ]
        })
        .collect()
}

/// A figure of a sweep, as every number in prose and labels is written
/// (`present::fmt_number`): a load level or count as a whole number, a mean concurrency as
/// `28.8` (not `28.80`).
fn g(v: f64) -> String {
    super::fmt_number(v)
}
