//! The sweep page of a run that varies load (`templates/sweep.html`): per arm throughput vs
//! load, the latency–throughput frontier, TTFT p99 vs load, the knee and the capacity at the
//! suite's SLOs; between the first two arms, the shift of capacity (`query::sweep`).

use askama::Template;

use crate::present::fmt_number;
use crate::query::slo::{SloMetric, Slos};
use crate::query::sweep::LevelView;
use crate::query::sweep::Sweep;
use crate::site::SiteError;
use crate::site::xy::{self, Axis, Chart, Line, Mark, Point, Rule, TickText};
use crate::site::*;

pub struct SweepArmView {
    pub arm: String,
    pub knee: String,
    pub capacity: String,
    /// "client-bound at concurrency 1, 2" where the client paced some levels, or empty.
    pub flag: String,
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
    /// What qualifies the figures, above the charts they qualify: levels the client paced.
    pub warnings: Vec<String>,
}

/// Per arm, the levels whose Little's-law ratio says the load generator set the pace: a
/// sentence each, with the range of the ratio, said where the knee and capacities are drawn
/// (issue 40 item 3: the flag had been at the bottom of the run page only).
fn client_bound(s: &Sweep) -> Vec<String> {
    let bound = crate::query::compare::CLIENT_BOUND;
    s.arms
        .iter()
        .filter_map(|a| {
            let paced = crate::present::sweep::paced_levels(a);
            let (lo, hi) = paced
                .iter()
                .fold((f64::MAX, f64::MIN), |(lo, hi), (_, r)| (lo.min(*r), hi.max(*r)));
            (!paced.is_empty()).then(|| {
                format!(
                    "{}: at {} {} (Little's law ratio {}{} < {bound}) the load generator, not the server, set the pace, so the knee and any capacity in that range describe the client as much as the server.",
                    a.arm,
                    s.load,
                    paced
                        .iter()
                        .map(|(l, _)| fmt_number(*l))
                        .collect::<Vec<_>>()
                        .join(", "),
                    crate::present::sig3(lo),
                    if hi > lo {
                        format!("–{}", crate::present::sig3(hi))
                    } else {
                        String::new()
                    },
                )
            })
        })
        .collect()
}

pub(crate) fn sweep_page(s: &Sweep, css: &str) -> Result<SweepPage, SiteError> {
    let charts_out = sweep_charts(s)
        .iter()
        .map(|c| ChartView { svg: c.html() })
        .collect();
    let header = crate::present::sweep::columns(s);
    let arms = s
        .arms
        .iter()
        .map(|a| SweepArmView {
            arm: a.arm.clone(),
            knee: crate::present::sweep::sweep_knee(s, a),
            capacity: crate::present::sweep::sweep_capacity(s, a),
            flag: crate::present::sweep::client_bound_flag(s, a),
            rows: crate::present::sweep::rows(s, a),
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
        warnings: client_bound(s),
    })
}

/// The sweep's charts (`site::xy`): load on a log₂ axis (levels double), a marker per level,
/// each arm in its colour (the same as on the run page: `xy::arm_order`), the knee and the
/// capacity of each arm as dotted verticals, and percentile SLO bounds as dashed horizontals
/// on the chart of the figure they bound.
pub(crate) fn sweep_charts(s: &Sweep) -> Vec<Chart> {
    let mut order: Vec<&str> = s.arms.iter().map(|a| a.arm.as_str()).collect();
    order.sort_by(|a, b| xy::arm_order(a, b));
    let d = Draw {
        s,
        load: s.load.as_str(),
        order,
        slos: Slos::parse([s.slo.as_str()]).unwrap_or_default(),
    };
    let mut out = d.load_charts();
    let any = |f: &dyn Fn(&LevelView) -> bool| s.arms.iter().any(|a| a.levels.iter().any(f));
    if any(&|l| l.goodput_rps.is_some()) {
        out.push(d.goodput());
    }
    if any(&|l| l.slo_attainment_pct.is_some()) {
        out.push(d.attainment());
    }
    if !s.frontier.is_empty() {
        out.push(d.frontier());
    }
    out
}

/// What every chart of a sweep shares: the sweep, its load's name, the arms in colour order
/// and the SLOs.
struct Draw<'a> {
    s: &'a Sweep,
    load: &'a str,
    order: Vec<&'a str>,
    slos: Slos,
}

impl Draw<'_> {
    fn colour(&self, arm: &str) -> &'static str {
        xy::arm_colour(self.order.iter().position(|a| *a == arm).unwrap_or(0))
    }

    /// The p99 bounds the SLOs set on `metric`, as dashed horizontals.
    fn bound(&self, metric: SloMetric) -> Vec<Rule> {
        self.slos
            .0
            .iter()
            .filter(|o| o.metric == metric && o.percentile == Some(99))
            .map(|o| Rule {
                at: o.max_ms,
                label: format!("SLO {o}"),
                colour: crate::site::axis::BOUND,
            })
            .collect()
    }

    fn load_axis(&self) -> Axis {
        Axis::log2(format!("{} (log₂ scale)", self.load), TickText::Number)
    }

    /// One line per arm of the (x, y) `f` gives at each level, its tips in `unit`.
    fn lines(&self, f: &dyn Fn(&LevelView) -> Option<(f64, f64)>, unit: &str) -> Vec<Line> {
        let load = self.load;
        self.s
            .arms
            .iter()
            .map(|a| Line {
                label: a.arm.clone(),
                colour: self.colour(&a.arm),
                points: a
                    .levels
                    .iter()
                    .filter_map(|l| {
                        let (x, y) = f(l)?;
                        Some(Point::new(
                            x,
                            y,
                            format!(
                                "{} · {load} {}: {} {unit}",
                                a.arm,
                                fmt_number(l.load),
                                fmt_number(y)
                            ),
                        ))
                    })
                    .collect(),
                dashed: false,
                markers: true,
            })
            .collect()
    }

    /// Each arm's knee, on the line of the figure `y` gives at that level.
    fn knees(&self, y: &dyn Fn(&LevelView) -> Option<f64>) -> Vec<Mark> {
        self.s
            .arms
            .iter()
            .filter_map(|a| {
                let k = a.knee.as_ref()?;
                let level = a.levels.iter().find(|l| l.load == k.load)?;
                Some(Mark {
                    x: k.load,
                    y: y(level)?,
                    label: format!("{} knee: {} {}", a.arm, self.load, fmt_number(k.load)),
                    colour: self.colour(&a.arm),
                })
            })
            .collect()
    }

    /// Where each arm's capacity sits on the load axis (the same on every load chart).
    fn capacities(&self) -> Vec<Rule> {
        let mut out = Vec::new();
        for a in &self.s.arms {
            if let Some(c) = &a.capacity
                && c.kind == crate::query::sweep::CapacityKind::Within
            {
                out.push(Rule {
                    at: c.load,
                    label: format!(
                        "{} capacity at the SLOs: {} {}",
                        a.arm,
                        self.load,
                        fmt_number(c.load)
                    ),
                    colour: self.colour(&a.arm),
                });
            }
        }
        out
    }

    /// Throughput, latency–throughput and TTFT p99: every sweep's charts.
    fn load_charts(&self) -> Vec<Chart> {
        let load = self.load;
        vec![
            Chart {
                vertical: self.capacities(),
                marks: self.knees(&|l| Some(l.throughput_rps)),
                ..chart(
                    "Throughput vs load",
                    format!("Median completed requests per second at each {load}, one line per arm; diamonds: each arm's knee; dotted: its capacity at the SLOs"),
                    self.load_axis(),
                    "req/s",
                    self.lines(&|l| Some((l.load, l.throughput_rps)), "req/s"),
                )
            },
            Chart {
                horizontal: self.bound(SloMetric::Latency),
                ..chart(
                    "Latency–throughput",
                    "Median p99 end-to-end latency against median throughput, each point one load level: lower and further right is better".into(),
                    Axis::linear("req/s"),
                    "p99 latency (ms)",
                    self.lines(&|l| Some((l.throughput_rps, l.latency_p99_ms?)), "ms"),
                )
            },
            Chart {
                horizontal: self.bound(SloMetric::Ttft),
                vertical: self.capacities(),
                marks: self.knees(&|l| l.ttft_p99_ms),
                ..chart(
                    "TTFT p99 vs load",
                    format!("Median p99 time to first token at each {load}; dashed: the SLO bound"),
                    self.load_axis(),
                    "TTFT p99 (ms)",
                    self.lines(&|l| Some((l.load, l.ttft_p99_ms?)), "ms"),
                )
            },
        ]
    }

    fn goodput(&self) -> Chart {
        Chart {
            vertical: self.capacities(),
            marks: self.knees(&|l| l.goodput_rps),
            ..chart(
                "Goodput vs load",
                format!(
                    "Median requests per second that met every per-request SLO ({})",
                    self.s.slo
                ),
                self.load_axis(),
                "goodput (req/s)",
                self.lines(&|l| Some((l.load, l.goodput_rps?)), "req/s"),
            )
        }
    }

    /// The rule that decides capacity where per-request SLOs are set: the share of requests
    /// within them, against its bound.
    fn attainment(&self) -> Chart {
        let slo = &self.s.slo;
        Chart {
            horizontal: vec![Rule {
                at: crate::query::sweep::ATTAINMENT,
                label: format!(
                    "capacity needs ≥ {}% of requests within {slo}",
                    crate::query::sweep::ATTAINMENT,
                ),
                colour: crate::site::axis::BOUND,
            }],
            vertical: self.capacities(),
            ..chart(
                "SLO attainment vs load",
                format!(
                    "Median share of requests that met every per-request SLO ({slo}) at each {}; dashed: the share a level needs to count within capacity; dotted: each arm's capacity",
                    self.load
                ),
                self.load_axis(),
                "attainment (%)",
                self.lines(&|l| Some((l.load, l.slo_attainment_pct?)), "%"),
            )
        }
    }

    /// Per-user against total output tokens/s: each arm's levels, and the Pareto frontier
    /// over all of them (`query::sweep::frontier`) as a dashed line.
    fn frontier(&self) -> Chart {
        let (s, load) = (self.s, self.load);
        let per = if s.gpus.is_some() { " per GPU" } else { "" };
        let mut series = self.lines(
            &|l| Some((l.output_tps?, l.per_user_tps?)),
            "tok/s per user",
        );
        let mut front: Vec<&crate::query::sweep::FrontierPoint> =
            s.frontier.iter().filter(|p| !p.dominated).collect();
        front.sort_by(|a, b| a.output_tps.total_cmp(&b.output_tps));
        series.push(Line {
            label: "Pareto frontier".into(),
            colour: "#000000",
            points: front
                .iter()
                .map(|p| {
                    Point::new(
                        p.output_tps,
                        p.per_user_tps,
                        format!(
                            "frontier: {} at {load} {}: {} tok/s total, {} per user",
                            p.arm,
                            fmt_number(p.load),
                            fmt_number(p.output_tps),
                            fmt_number(p.per_user_tps)
                        ),
                    )
                })
                .collect(),
            dashed: true,
            markers: true,
        });
        chart(
            "Per-user against total output tokens/s",
            format!(
                "Each load level's output tokens per second for one stream against all streams together{per}; the frontier joins the levels no other beats on both"
            ),
            Axis::linear(format!("total output tok/s{per}")),
            "per-user output tok/s",
            series,
        )
    }
}

/// A chart of `lines` with no rules or marks (the callers add them).
fn chart(title: &str, description: String, x: Axis, y: &str, lines: Vec<Line>) -> Chart {
    Chart {
        title: title.into(),
        description,
        x,
        y: Axis::linear(y),
        lines,
        horizontal: Vec::new(),
        vertical: Vec::new(),
        marks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::sweep::FrontierPoint;

    fn point(
        arm: &str,
        load: f64,
        output_tps: f64,
        per_user_tps: f64,
        dominated: bool,
    ) -> FrontierPoint {
        FrontierPoint {
            arm: arm.into(),
            load,
            per_user_tps,
            output_tps,
            dominated,
        }
    }

    /// Without arms (their levels come from `query::sweep`) the three load charts stay, and
    /// the frontier chart joins the points no other beats, by total tokens/s, per GPU where
    /// the run says how many; no goodput or attainment chart without those figures.
    #[test]
    fn the_frontier_joins_the_undominated_points_in_order() {
        let s = Sweep {
            run_id: "r1".into(),
            suite: "llm".into(),
            run_no: 3,
            load: "concurrency".into(),
            slo: "ttft_p99<=500ms".into(),
            arms: Vec::new(),
            shift: None,
            frontier: vec![
                point("b", 16.0, 900.0, 30.0, false),
                point("a", 4.0, 400.0, 60.0, false),
                point("a", 8.0, 500.0, 20.0, true),
            ],
            gpus: Some(2.0),
            cost_per_hour: None,
            server_figures: Vec::new(),
        };
        let charts = sweep_charts(&s);
        let titles: Vec<&str> = charts.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Throughput vs load",
                "Latency–throughput",
                "TTFT p99 vs load",
                "Per-user against total output tokens/s"
            ]
        );
        let front = &charts[3];
        assert_eq!(front.x.label, "total output tok/s per GPU");
        assert_eq!(front.lines.len(), 1);
        let line = &front.lines[0];
        assert!(line.dashed && line.label == "Pareto frontier");
        let xs: Vec<(f64, f64)> = line.points.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(xs, [(400.0, 60.0), (900.0, 30.0)]);
        assert_eq!(
            line.points[0].tip,
            "frontier: a at concurrency 4: 400 tok/s total, 60 per user"
        );
        // The dominated point is on no line: two markers in the drawn chart.
        assert_eq!(front.html().matches("<circle").count(), 2);
    }

    /// An arm whose lowest levels the client paced says so next to its knee and capacity,
    /// and the page says why above the charts; an arm the server paced has no flag.
    #[test]
    fn a_client_bound_arm_is_flagged_next_to_its_knee() {
        let level = |load: f64, ratio: f64| LevelView::hand_built(load, 1, load, ratio);
        let arm = |name: &str, ratios: [f64; 3]| {
            crate::query::sweep::ArmSweep::hand_built(
                name,
                [1.0, 2.0, 4.0]
                    .iter()
                    .zip(ratios)
                    .map(|(l, r)| level(*l, r))
                    .collect(),
                None,
                None,
            )
        };
        let s = Sweep {
            run_id: "r1".into(),
            suite: "llm".into(),
            run_no: 3,
            load: "concurrency".into(),
            slo: String::new(),
            arms: vec![arm("a", [0.5, 0.7, 0.99]), arm("b", [0.99, 1.0, 1.0])],
            shift: None,
            frontier: Vec::new(),
            gpus: None,
            cost_per_hour: None,
            server_figures: Vec::new(),
        };
        let page = sweep_page(&s, "c.css").unwrap();
        let flags: Vec<&str> = page.arms.iter().map(|a| a.flag.as_str()).collect();
        assert_eq!(flags, ["client-bound at concurrency 1, 2", ""]);
        assert_eq!(page.warnings.len(), 1);
        assert!(
            page.warnings[0]
                .starts_with("a: at concurrency 1, 2 (Little's law ratio 0.5–0.7 < 0.9)")
        );
        let html = page.render().unwrap();
        crate::site::pages::assert_numbers_read_well(&html);
        assert!(html.contains(
            "Capacity at SLO: no SLO set.<br><span class=\"flag\" title=\"the load generator, not the server, set the pace at these levels\">⚠ <a href=\"../../glossary.html#client-bound\">client-bound at concurrency 1, 2</a></span></p>"
        ));
        assert_eq!(html.matches("class=\"flag\"").count(), 1);
    }
}
