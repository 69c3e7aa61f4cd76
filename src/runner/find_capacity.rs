//! `perfhouse run PLAN --find-capacity`: runs the search of [`super::capacity`] for every arm
//! (× the plan's other params) of a plan with a `[capacity]` section, in rounds. A round runs
//! each unfinished series at its next level with the plan's warm-ups and repeats, interleaved
//! across arms (A,B,A,B as any run), as trials whose load parameter is that level; then every
//! level is judged on the trials so far the way `perfhouse sweep` judges a level (medians of
//! `trial_figures` over kept trials, the sweep's criteria), from the run landed in a scratch
//! warehouse, and each series names its next level or its answer. The run lands once with
//! every probe, so `perfhouse sweep` and the site's sweep page show the probes as levels; the
//! answers are printed and stored as the run's notes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::capacity::{self, Found, Kind, Probe, Search, Step, fmt_load};
use super::plan::{Arm, Plan, Planned};
use crate::model::{Params, Phase, Run, RunData, params_text};
use crate::query::slo::Slos;
use crate::query::{Query, lit};
use crate::warehouse::Warehouse;

/// One series: an arm with one set of the plan's other params.
struct Series {
    name: String,
    arm: Arm,
    params: Params,
    /// In probe order.
    probes: Vec<Probe>,
    /// The level of the round in flight.
    pending: Option<f64>,
    found: Option<Found>,
}

/// The search in progress.
pub struct Driver {
    load: String,
    search: Search,
    slos: Slos,
    series: Vec<Series>,
    /// The sweep analysis of the finished search's trials.
    sweep: Option<crate::query::sweep::Sweep>,
}

/// The answer for one series, with the probes that decided it.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesReport {
    /// The arm (with the params other than load, where the plan has a matrix).
    pub series: String,
    /// `None` when the run stopped before the search ended.
    pub found: Option<Found>,
    /// In probe order.
    pub probes: Vec<Probe>,
    /// Measured trials of the series.
    pub trials: usize,
    /// The sweep analysis of the same trials (`perfhouse sweep`): capacity interpolated
    /// between the bracket's levels, with its bootstrap interval where repeats allow.
    pub sweep: Option<crate::query::sweep::CapacityView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CapacityReport {
    pub load: String,
    pub slo: String,
    pub resolution: String,
    pub series: Vec<SeriesReport>,
}

/// A trial's figures as the search reads them.
#[derive(Deserialize)]
struct Figures {
    arm: String,
    #[serde(with = "crate::model::params_as_json")]
    params: Params,
    throughput_rps: Option<f64>,
    latency_p50_ms: Option<f64>,
    slo_attainment_pct: Option<f64>,
    #[serde(flatten)]
    extra: BTreeMap<String, serde_json::Value>,
}

impl Driver {
    /// The search the plan's `[capacity]` describes, over its arms × other params.
    pub fn new(plan: &Plan, plan_path: &Path) -> Result<Driver> {
        let Some(c) = &plan.capacity else {
            bail!(
                "{}: --find-capacity needs a [capacity] section (load = \"concurrency\", slo = [...], max = N)",
                plan_path.display()
            );
        };
        let search = c.search.clone().context("[capacity] not validated")?;
        if plan.run.discard_first && plan.run.repeats < 2 {
            bail!(
                "{}: --find-capacity with run.discard_first and repeats = 1 leaves no trial to judge a level by",
                plan_path.display()
            );
        }
        // The arm × params units without the load (a matrix key of that name is the dense
        // sweep of a plain run: the search sets it instead).
        let mut units: Vec<(Arm, Params)> = Vec::new();
        for (arm, mut params) in plan.units() {
            params.remove(&c.load);
            if !units
                .iter()
                .any(|(a, p)| a.name == arm.name && *p == params)
            {
                units.push((arm, params));
            }
        }
        let series = units
            .into_iter()
            .map(|(arm, params)| Series {
                name: if params.is_empty() {
                    arm.name.clone()
                } else {
                    format!("{} {}", arm.name, params_text(&params))
                },
                arm,
                params,
                probes: Vec::new(),
                pending: None,
                found: None,
            })
            .collect();
        Ok(Driver {
            load: c.load.clone(),
            search,
            slos: c.slos.clone(),
            series,
            sweep: None,
        })
    }

    /// The SLOs levels are judged by (the run's `slo` label).
    pub fn slos(&self) -> &Slos {
        &self.slos
    }

    /// The first round: every series at `start`.
    pub fn first_round(&mut self, plan: &Plan) -> Vec<Planned> {
        self.advance();
        self.round(plan)
    }

    /// Each unfinished series' next step from its probes.
    fn advance(&mut self) {
        for s in self.series.iter_mut().filter(|s| s.found.is_none()) {
            match capacity::next_probe(&self.search, &s.probes) {
                Step::Probe(l) => s.pending = Some(l),
                Step::Done(f) => {
                    s.pending = None;
                    s.found = Some(f);
                }
            }
        }
    }

    /// The trials of the levels pending, under the plan's warm-ups, repeats and order.
    fn round(&self, plan: &Plan) -> Vec<Planned> {
        let units: Vec<(Arm, Params)> = self
            .series
            .iter()
            .filter_map(|s| {
                let l = s.pending?;
                let mut p = s.params.clone();
                p.insert(self.load.clone(), fmt_load(l));
                Some((s.arm.clone(), p))
            })
            .collect();
        plan.schedule_of(&units)
    }

    /// Judges the round's levels on the trials so far (`run` with `data`, landed in a scratch
    /// warehouse under `scratch`) and returns the next round; empty when every series is done.
    pub fn judge(
        &mut self,
        rt: &tokio::runtime::Handle,
        scratch: &Path,
        run: &Run,
        data: &RunData,
        plan: &Plan,
    ) -> Result<Vec<Planned>> {
        let dir = scratch.join(format!("capacity-{}", uuid::Uuid::now_v7()));
        let probe = Warehouse::open(&dir)?;
        // What the figures read: the trials and their requests (no artifacts: their blobs are
        // in the real warehouse, not this one).
        let judged = RunData {
            trials: data.trials.clone(),
            requests: data.requests.clone(),
            ..RunData::default()
        };
        probe.append_run(run, &judged)?;
        let out = rt.block_on(async {
            let q = Query::open_with(&probe, &self.slos).await?;
            let figures = self.figures(&q, &run.run_id).await?;
            self.record(&figures);
            self.advance();
            if self.series.iter().all(|s| s.found.is_some()) {
                self.sweep = crate::query::sweep::sweep(&q, &run.run_id, Some(self.load.as_str()))
                    .await
                    .ok()
                    .flatten();
            }
            anyhow::Ok(())
        });
        let _ = std::fs::remove_dir_all(&dir);
        out.context("--find-capacity: judging the levels so far")?;
        Ok(self.round(plan))
    }

    async fn figures(&self, q: &Query, run_id: &str) -> Result<Vec<Figures>> {
        let checks: String = self
            .slos
            .percentiles()
            .iter()
            .map(|(c, _)| format!(", {c} AS check_{c}"))
            .collect();
        Ok(q.rows(&format!(
            "SELECT arm, params, throughput_rps, latency_p50_ms, slo_attainment_pct{checks} \
             FROM trial_figures WHERE run_id = {} AND kept ORDER BY seq, trial_id",
            lit(run_id)
        ))
        .await?)
    }

    /// Each pending level judged: its trials' medians against the criteria.
    fn record(&mut self, figures: &[Figures]) {
        let criteria = crate::query::sweep::criteria(&self.slos);
        let percentiles = self.slos.percentiles();
        let per_request = self.slos.has_per_request();
        let load = self.load.clone();
        for s in self.series.iter_mut() {
            let Some(level) = s.pending.take() else {
                continue;
            };
            let trials: Vec<crate::stats::sweep::Trial> = figures
                .iter()
                .filter(|f| f.arm == s.arm.name && load_of(&f.params, &load) == Some(level))
                .filter(|f| {
                    let mut others = f.params.clone();
                    others.remove(&load);
                    others == s.params
                })
                .filter_map(|f| {
                    let mut checks: Vec<Option<f64>> = percentiles
                        .iter()
                        .map(|(c, _)| {
                            f.extra
                                .get(&format!("check_{c}"))
                                .and_then(serde_json::Value::as_f64)
                        })
                        .collect();
                    if per_request {
                        checks.push(f.slo_attainment_pct);
                    }
                    Some(crate::stats::sweep::Trial {
                        load: level,
                        throughput: f.throughput_rps?,
                        latency: f.latency_p50_ms,
                        checks,
                    })
                })
                .collect();
            let probe = match crate::stats::sweep::levels(&trials).first() {
                Some(l) => {
                    let failing: Vec<String> = l
                        .failing(&criteria)
                        .into_iter()
                        .map(|i| criteria[i].name.clone())
                        .collect();
                    Probe {
                        load: level,
                        meets: failing.is_empty(),
                        failing,
                        throughput: Some(l.throughput),
                        latency: l.latency,
                    }
                }
                None => Probe {
                    load: level,
                    meets: false,
                    failing: vec!["no figures (its trials failed or recorded no requests)".into()],
                    throughput: None,
                    latency: None,
                },
            };
            s.probes.push(probe);
        }
    }

    /// The answers so far, with the trials of each series in `data`.
    pub fn report(&self, data: &RunData) -> CapacityReport {
        CapacityReport {
            load: self.load.clone(),
            slo: self.slos.to_string(),
            resolution: self.search.resolution.to_string(),
            series: self
                .series
                .iter()
                .map(|s| SeriesReport {
                    series: s.name.clone(),
                    found: s.found.clone(),
                    probes: s.probes.clone(),
                    trials: data
                        .trials
                        .iter()
                        .filter(|t| t.phase == Phase::Measured && t.arm == s.arm.name)
                        .filter(|t| {
                            let mut others = t.params.clone();
                            others.remove(&self.load);
                            others == s.params
                        })
                        .count(),
                    sweep: self.sweep.as_ref().and_then(|w| {
                        w.arms
                            .iter()
                            .find(|a| a.arm == s.name)
                            .and_then(|a| a.capacity.clone())
                    }),
                })
                .collect(),
        }
    }
}

fn load_of(params: &Params, load: &str) -> Option<f64> {
    params.get(load).and_then(|v| v.parse().ok())
}

/// One line per series (the answer), then its probes: what `perfhouse run --find-capacity`
/// prints and stores as the run's notes.
pub fn report_text(r: &CapacityReport) -> String {
    let mut out = format!(
        "capacity at {} ({}, resolution {}):\n",
        r.slo, r.load, r.resolution
    );
    for s in &r.series {
        let _ = writeln!(out, "  {}", series_line(r, s));
        let probes: Vec<String> = s.probes.iter().map(probe_text).collect();
        let _ = writeln!(out, "    probes: {}", probes.join("; "));
    }
    out
}

/// `k6: capacity 6 concurrency (6 meets; 7 misses p99(latency_ms)<=150); sweep …; 6 probes, 12 trials`.
pub fn series_line(r: &CapacityReport, s: &SeriesReport) -> String {
    let answer = match &s.found {
        None => "search not finished (the run stopped)".to_string(),
        Some(f) => {
            let why = f.why.as_ref().map(ToString::to_string).unwrap_or_default();
            match (f.kind, f.lo, f.hi) {
                (Kind::Within, Some(lo), Some(hi)) => format!(
                    "capacity {} {} (bracket {} … {}: {} is good; {} {why})",
                    fmt_load(lo),
                    r.load,
                    fmt_load(lo),
                    fmt_load(hi),
                    fmt_load(lo),
                    fmt_load(hi)
                ),
                (Kind::AtLeast, Some(lo), _) => format!(
                    "capacity at least {} {} (every level up to the cap is good)",
                    fmt_load(lo),
                    r.load
                ),
                (_, _, Some(hi)) => format!(
                    "capacity below {} {} (the first level {why})",
                    fmt_load(hi),
                    r.load
                ),
                _ => "no answer".to_string(),
            }
        }
    };
    let sweep = match &s.sweep {
        Some(c) if c.kind == crate::query::sweep::CapacityKind::Within => {
            let ci = match (&c.ci, &c.no_interval) {
                (Some((lo, hi)), _) => format!(", 95 % CI {lo:.1} … {hi:.1} req/s"),
                (None, Some(why)) => format!(" ({why})"),
                _ => String::new(),
            };
            format!(
                "; sweep analysis of the probes: {:.2} {} at {:.1} req/s{ci}",
                c.load,
                r.load,
                c.throughput_rps.unwrap_or(f64::NAN)
            )
        }
        _ => String::new(),
    };
    format!(
        "{}: {answer}{sweep}; {} probes, {} trials",
        s.series,
        s.probes.len(),
        s.trials
    )
}

fn probe_text(p: &Probe) -> String {
    let verdict = if p.meets {
        "meets".to_string()
    } else {
        format!("misses {}", p.failing.join(", "))
    };
    match p.throughput {
        Some(x) => format!("{} {verdict} ({x:.1} req/s)", fmt_load(p.load)),
        None => format!("{} {verdict}", fmt_load(p.load)),
    }
}
