//! The sweep page of a run that varies load (`templates/sweep.html`): per arm throughput vs
//! load, the latency–throughput frontier, TTFT p99 vs load, the knee and the capacity at the
//! suite's SLOs; between the first two arms, the shift of capacity (`query::sweep`).

use askama::Template;

use crate::query::sweep::Sweep;
use crate::site::SiteError;
use crate::site::charts::{self, Series};
use crate::site::*;

pub struct SweepArmView {
    pub arm: String,
    pub knee: String,
    pub capacity: String,
    pub rows: Vec<Vec<String>>,
}

#[derive(Template)]
#[template(path = "sweep.html")]
pub struct SweepPage {
    pub chrome: crate::site::pages::Chrome,
    pub suite: String,
    pub number: String,
    pub load: String,
    pub slo: String,
    pub shift: String,
    pub charts: Vec<ChartView>,
    pub header: Vec<String>,
    pub arms: Vec<SweepArmView>,
}

/// Whether a run's trials vary a load parameter over three or more values (then it has a
/// sweep page), from the parameters the site already read.
pub(crate) fn sweeps_load(trials: &[crate::site::load::TrialRow]) -> bool {
    crate::query::sweep::load_param(trials.iter().map(|t| &t.params)).is_some()
}

pub(crate) fn sweep_page(s: &Sweep, css: &str) -> Result<SweepPage, SiteError> {
    let line = |f: &dyn Fn(&crate::query::sweep::LevelView) -> Option<(f64, f64)>| -> Vec<Series> {
        s.arms
            .iter()
            .map(|a| Series {
                label: a.arm.clone(),
                points: a.levels.iter().filter_map(f).collect(),
            })
            .collect()
    };
    let load = s.load.as_str();
    let mut charts_out = vec![
        ChartView {
            svg: charts::line_chart(
                "Throughput vs load",
                &format!("Median completed requests per second at each {load}, one line per arm"),
                load,
                "req/s",
                &line(&|l| Some((l.load, l.throughput_rps))),
            )?,
        },
        ChartView {
            svg: charts::line_chart(
                "Latency–throughput frontier",
                "Median p99 end-to-end latency against median throughput, each point one load level: lower and further right is better",
                "req/s",
                "p99 latency (ms)",
                &line(&|l| Some((l.throughput_rps, l.latency_p99_ms?))),
            )?,
        },
        ChartView {
            svg: charts::line_chart(
                "TTFT p99 vs load",
                &format!("Median p99 time to first token at each {load}"),
                load,
                "TTFT p99 (ms)",
                &line(&|l| Some((l.load, l.ttft_p99_ms?))),
            )?,
        },
    ];
    if s.arms
        .iter()
        .any(|a| a.levels.iter().any(|l| l.goodput_rps.is_some()))
    {
        charts_out.push(ChartView {
            svg: charts::line_chart(
                "Goodput vs load",
                &format!(
                    "Median requests per second that met every per-request SLO ({})",
                    s.slo
                ),
                load,
                "goodput (req/s)",
                &line(&|l| Some((l.load, l.goodput_rps?))),
            )?,
        });
    }
    // Per-user against total output tokens/s: each arm's levels, and the Pareto frontier over
    // all of them (`query::sweep::frontier`) as its own line.
    if !s.frontier.is_empty() {
        let mut series = line(&|l| Some((l.output_tps?, l.per_user_tps?)));
        let mut front: Vec<(f64, f64)> = s
            .frontier
            .iter()
            .filter(|p| !p.dominated)
            .map(|p| (p.output_tps, p.per_user_tps))
            .collect();
        front.sort_by(|a, b| a.0.total_cmp(&b.0));
        series.push(Series {
            label: "Pareto frontier".into(),
            points: front,
        });
        let per = if s.gpus.is_some() { " per GPU" } else { "" };
        charts_out.push(ChartView {
            svg: charts::line_chart(
                "Per-user against total output tokens/s",
                &format!(
                    "Each load level's output tokens per second for one stream against all streams together{per}; the frontier joins the levels no other beats on both"
                ),
                &format!("total output tok/s{per}"),
                "per-user output tok/s",
                &series,
            )?,
        });
    }
    let header = crate::present::sweep::SWEEP_COLUMNS
        .iter()
        .map(|c| c.to_string())
        .collect();
    let arms = s
        .arms
        .iter()
        .map(|a| SweepArmView {
            arm: a.arm.clone(),
            knee: crate::present::sweep::sweep_knee(s, a),
            capacity: crate::present::sweep::sweep_capacity(s, a),
            rows: crate::present::sweep::sweep_rows(a),
        })
        .collect();
    Ok(SweepPage {
        chrome: crate::site::pages::Chrome::new(2, css, format!("{} #{} sweep", s.suite, s.run_no))
            .suite(&s.suite)
            .run(&s.run_id, s.run_no)
            .here("sweep"),
        suite: s.suite.clone(),
        number: format!("#{}", s.run_no),
        load: s.load.clone(),
        slo: s.slo.clone(),
        shift: s.shift.as_ref().map(|x| x.text.clone()).unwrap_or_default(),
        charts: charts_out,
        header,
        arms,
    })
}
