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
    // The measured command's resource usage (runner trials: `wait4`'s rusage, the trial
    // cgroup's memory.peak; `model::Usage`). Wall, CPU and peak RSS are judged; the parts of
    // the CPU time, the cgroup's peak (page cache included), context switches and page
    // faults are shown beside them, not judged.
    fig("wall_ms", "ms", Lower, "wall (ms)"),
    fig("cpu_ms", "ms", Lower, "CPU user+sys (ms)"),
    Figure {
        history: false,
        run_page: false,
        ..fig("user_cpu_ms", "ms", Info, "user CPU (ms)")
    },
    Figure {
        history: false,
        run_page: false,
        ..fig("system_cpu_ms", "ms", Info, "system CPU (ms)")
    },
    Figure {
        decimals: 0,
        ..fig("peak_rss_bytes", "B", Lower, "peak RSS")
    },
    Figure {
        decimals: 0,
        history: false,
        run_page: false,
        ..fig("cgroup_memory_peak_bytes", "B", Info, "cgroup memory peak")
    },
    Figure {
        decimals: 0,
        history: false,
        ..fig(
            "voluntary_ctx_switches",
            "",
            Info,
            "voluntary context switches",
        )
    },
    Figure {
        decimals: 0,
        history: false,
        ..fig(
            "involuntary_ctx_switches",
            "",
            Info,
            "involuntary context switches",
        )
    },
    Figure {
        decimals: 0,
        history: false,
        ..fig("major_faults", "", Info, "major page faults")
    },
    Figure {
        decimals: 0,
        history: false,
        ..fig("minor_faults", "", Info, "minor page faults")
    },
];

/// A measure of one command's work: several of them (wall time, CPU time, instruction
/// counts) see the same change through different noise, and each is judged by its own
/// (issue 42 item 4): its A/A calibration or history threshold, at least its own floor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measure {
    /// The metric or figure name (`wall_ms`, a registry figure; `instructions`, a metric of
    /// `[valgrind]` trials and iai-callgrind files; `instructions_u`, of `[counters]` trials
    /// and `perf stat -e instructions:u` files).
    pub name: &'static str,
    /// What it counts, in words.
    pub what: &'static str,
    /// Its floor as a share of the comparison's (`--threshold`, at least ±2 %): 1 for times,
    /// [`COUNT_FLOOR_SCALE`] for instruction counts.
    pub floor_scale: f64,
}

/// The floor of an instruction count, as a share of the time floor: ±0.2 % by default.
/// Instruction counts of a deterministic program do not move from run to run (valgrind: not
/// at all; `instructions:u`: by interrupts' and page faults' few), so their A/A threshold is
/// near 0, and a floor at 2 % would hide the 1 % changes they exist to show; below 0.2 %, a
/// program's count moves with things that are not its code (the size of its environment and
/// arguments, where the loader puts it).
pub const COUNT_FLOOR_SCALE: f64 = 0.1;

/// The measures of a command's work a comparison weighs against each other, in no order (the
/// most precise one that called a change decides: `query::compare::measures`). Peak RSS is not one: it
/// is another question (memory), judged on its own.
pub const MEASURES: &[Measure] = &[
    Measure {
        name: "wall_ms",
        what: "wall time",
        floor_scale: 1.0,
    },
    Measure {
        name: "cpu_ms",
        what: "CPU time (user + system)",
        floor_scale: 1.0,
    },
    Measure {
        name: "cycles_u",
        what: "cycles (perf stat, user space)",
        floor_scale: 1.0,
    },
    Measure {
        name: "instructions_u",
        what: "instructions (perf stat, user space)",
        floor_scale: COUNT_FLOOR_SCALE,
    },
    Measure {
        name: "instructions",
        what: "instructions (valgrind)",
        floor_scale: COUNT_FLOOR_SCALE,
    },
    Measure {
        name: "estimated_cycles",
        what: "estimated cycles (valgrind: L1 hits + 5·LL hits + 35·RAM hits)",
        floor_scale: COUNT_FLOOR_SCALE,
    },
];

/// The measure named `name`, if it is one.
pub fn measure(name: &str) -> Option<&'static Measure> {
    MEASURES.iter().find(|m| m.name == name)
}

/// The share of the comparison's floor metric `name` is judged at (1 but for instruction
/// counts).
pub fn floor_scale(name: &str) -> f64 {
    measure(name).map_or(1.0, |m| m.floor_scale)
}

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

/// What a server figure says of its metric over a trial's measured window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerStat {
    /// Counters (and the observation count of histograms and summaries): increase per second.
    Rate,
    /// Gauges: the mean over the window's scrapes; histograms and summaries: the mean
    /// observation (increase of `_sum` ÷ increase of `_count`).
    Mean,
    /// Gauges: the largest value scraped in the window.
    Max,
    /// Histograms: quantiles of the window's observations, by linear interpolation within
    /// the bucket (as Prometheus' `histogram_quantile`).
    P50,
    P90,
    P99,
}

impl ServerStat {
    pub const ALL: [ServerStat; 6] = [
        ServerStat::Rate,
        ServerStat::Mean,
        ServerStat::Max,
        ServerStat::P50,
        ServerStat::P90,
        ServerStat::P99,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ServerStat::Rate => "rate",
            ServerStat::Mean => "mean",
            ServerStat::Max => "max",
            ServerStat::P50 => "p50",
            ServerStat::P90 => "p90",
            ServerStat::P99 => "p99",
        }
    }
}

/// What one point of view `scrape_over_time` (`views/18_scrape_over_time.sql`) is, per scrape
/// interval: the view's `stat` column, read into this type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalStat {
    /// Counters and the `_count` of histograms and summaries: increase ÷ seconds.
    Rate,
    /// Histograms and summaries: increase of `_sum` ÷ increase of `_count`.
    Mean,
    /// Gauges and untyped samples: the value scraped.
    Value,
}

impl IntervalStat {
    pub const ALL: [IntervalStat; 3] =
        [IntervalStat::Rate, IntervalStat::Mean, IntervalStat::Value];

    pub fn as_str(self) -> &'static str {
        match self {
            IntervalStat::Rate => "rate",
            IntervalStat::Mean => "mean",
            IntervalStat::Value => "value",
        }
    }

    /// The interval stats a chart of server figure `stat` draws: a histogram's quantiles as
    /// its mean observation per interval.
    pub fn drawn_for(stat: ServerStat) -> &'static [IntervalStat] {
        match stat {
            ServerStat::Rate => &[IntervalStat::Rate],
            ServerStat::Max => &[IntervalStat::Value],
            _ => &[IntervalStat::Value, IntervalStat::Mean],
        }
    }
}

crate::model::stored_words!(IntervalStat, "scrape interval stat");

/// A figure of a server's own metrics (`[[scrape]]`): `server.<metric>.<stat>`, one value per
/// trial in the view `trial_server`, computed over the trial's measured window from the
/// samples of every scraped target and label set together (rates and means summed over label
/// sets, histogram buckets summed before the quantile). `<metric>` is the sample name of a
/// counter or gauge (`dynamo_frontend_requests_total`) and the family name of a histogram or
/// summary (`dynamo_frontend_request_duration_seconds`). The facts of every server figure
/// (unit, direction, label) are defined here, from its name, as the registry's are above.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFigure {
    pub name: String,
    pub metric: String,
    pub stat: ServerStat,
}

impl ServerFigure {
    pub const PREFIX: &'static str = "server.";

    /// `server.<metric>.<stat>`, or why it is not one.
    pub fn parse(name: &str) -> Result<ServerFigure, String> {
        let expected = || {
            format!(
                "`{name}`: expected server.<metric>.<stat> with <stat> one of {}",
                ServerStat::ALL.map(ServerStat::as_str).join(", ")
            )
        };
        let rest = name.strip_prefix(Self::PREFIX).ok_or_else(expected)?;
        let (metric, stat) = rest.rsplit_once('.').ok_or_else(expected)?;
        let stat = ServerStat::ALL
            .into_iter()
            .find(|s| s.as_str() == stat)
            .ok_or_else(expected)?;
        let mut c = metric.chars();
        let ok = c
            .next()
            .is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == ':')
            && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == ':');
        if !ok {
            return Err(format!(
                "`{name}`: `{metric}` is not a Prometheus metric name"
            ));
        }
        Ok(ServerFigure {
            name: name.to_string(),
            metric: metric.to_string(),
            stat,
        })
    }

    /// The unit of the metric's values, from the suffix Prometheus' naming conventions give
    /// it (`_seconds` → s, `_bytes` → B), `_total` left aside; empty where none says.
    fn base_unit(&self) -> &'static str {
        let m = self.metric.strip_suffix("_total").unwrap_or(&self.metric);
        if m.ends_with("_seconds") {
            "s"
        } else if m.ends_with("_bytes") {
            "B"
        } else if m.ends_with("_percent") {
            "%"
        } else {
            ""
        }
    }

    /// `/s` for a rate (`s/s`, `B/s` of a counter of seconds or bytes); the metric's own
    /// unit for the others.
    pub fn unit(&self) -> String {
        match (self.stat, self.base_unit()) {
            // The rate of a histogram's observations is a count per second whatever it measures.
            (ServerStat::Rate, u) if !self.metric.ends_with("_total") || u.is_empty() => {
                "/s".to_string()
            }
            (ServerStat::Rate, u) => format!("{u}/s"),
            (_, u) => u.to_string(),
        }
    }

    /// Durations (quantiles, means and maxima of a `_seconds` metric) are better lower; every
    /// other server figure is shown, not judged (a rate of requests is load as much as it is
    /// throughput).
    pub fn direction(&self) -> Direction {
        if self.stat != ServerStat::Rate && self.base_unit() == "s" {
            Lower
        } else {
            Info
        }
    }
}

/// The server figures a run's `server_figures` label names (comma-separated; those that do
/// not parse are left out).
pub fn server_figures(labels: &crate::model::Params) -> Vec<ServerFigure> {
    labels
        .get(SERVER_FIGURES_LABEL)
        .map(|l| {
            l.split(',')
                .filter_map(|f| ServerFigure::parse(f.trim()).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The run label holding the server figures a plan names (`[[scrape]] figures`).
pub const SERVER_FIGURES_LABEL: &str = "server_figures";

#[cfg(test)]
mod tests {
    use super::*;

    /// The view's words read back into `IntervalStat`, and what each server figure draws.
    #[test]
    fn interval_stats_are_the_views_words() {
        for s in IntervalStat::ALL {
            assert_eq!(s.as_str().parse::<IntervalStat>(), Ok(s));
        }
        let view = include_str!("views/18_scrape_over_time.sql");
        for word in ["'rate' AS stat", "'mean' AS stat", "'value' AS stat"] {
            assert!(view.contains(word), "{word}");
        }
        assert_eq!(
            "p99".parse::<IntervalStat>(),
            Err("scrape interval stat \"p99\" is not one of rate, mean, value".into())
        );
        assert_eq!(
            IntervalStat::drawn_for(ServerStat::Rate),
            [IntervalStat::Rate]
        );
        assert_eq!(
            IntervalStat::drawn_for(ServerStat::P99),
            [IntervalStat::Value, IntervalStat::Mean]
        );
    }

    #[test]
    fn server_figures_take_their_unit_and_direction_from_the_name() {
        let f = |n: &str| ServerFigure::parse(n).unwrap();
        let r = f("server.dynamo_frontend_requests_total.rate");
        assert_eq!(r.metric, "dynamo_frontend_requests_total");
        assert_eq!((r.unit().as_str(), r.direction()), ("/s", Info));
        let p = f("server.dynamo_frontend_time_to_first_token_seconds.p99");
        assert_eq!((p.unit().as_str(), p.direction()), ("s", Lower));
        assert_eq!(f("server.x_seconds.rate").unit(), "/s");
        assert_eq!(f("server.cpu_seconds_total.rate").unit(), "s/s");
        assert_eq!(f("server.rx_bytes_total.rate").unit(), "B/s");
        assert_eq!(f("server.kv_usage_percent.max").unit(), "%");
        assert_eq!(f("server.a:b.mean").metric, "a:b");
        for bad in [
            "dynamo.x.rate",
            "server.x.p95",
            "server.x",
            "server.1x.rate",
        ] {
            let e = ServerFigure::parse(bad).unwrap_err();
            assert!(e.contains(bad), "{e}");
        }
        let labels = crate::model::Params::from([(
            SERVER_FIGURES_LABEL.to_string(),
            "server.a.rate, nonsense,server.b.p50".to_string(),
        )]);
        let names: Vec<String> = server_figures(&labels)
            .into_iter()
            .map(|f| f.name)
            .collect();
        assert_eq!(names, ["server.a.rate", "server.b.p50"]);
    }
}
