//! Load sweeps: the knee of a throughput curve and the capacity at an SLO, with bootstrap
//! uncertainty from the repeats. Pure functions over measured points; `query::sweep` reads them.
//!
//! **Knee.** Over load levels L₁ < L₂ < … (concurrency or request rate) with median throughput
//! X_i, the scaling efficiency of a step is e_i = (X_{i+1}/X_i − 1) / (L_{i+1}/L_i − 1): 1 when
//! throughput grows in proportion to load (below saturation), 0 when it is flat. The knee is
//! the lowest level L_k from which *every* later step has e < 0.5 while median latency at the
//! highest level is above L_k's: from there on, more load never again buys half its share of
//! throughput, and is paid in latency. (One slow step followed by steps that scale again is a
//! dip, not a knee: real sweeps have them.) No such level below the highest: no knee in the
//! range tried (throughput still scales). On a closed queue with a saturation point N*,
//! this is the last power-of-two level at or below N* (tests below, with exact mean-value
//! analysis).
//!
//! **Capacity at SLO.** A level meets the SLOs when every percentile SLO holds on its medians
//! and, where per-request SLOs are set, its median SLO attainment is at least the target. The
//! capacity is the highest load before the first level that fails, interpolated linearly (in
//! load) between the last level that meets them and the first that does not, at the point where
//! the first failing criterion crosses its bound; its throughput is interpolated the same way.
//! "At least the highest level tried" where none fails, "below the lowest" where the first does.

use super::{Rng, median, quantile_sorted};

/// What one trial at one level gave.
#[derive(Debug, Clone)]
pub struct Trial {
    pub load: f64,
    pub throughput: f64,
    /// Median latency, for the knee's "latency climbs".
    pub latency: Option<f64>,
    /// (criterion, value) for the SLO checks: percentile values in ms, attainment in %.
    pub checks: Vec<Option<f64>>,
}

/// A criterion a level must meet.
#[derive(Debug, Clone)]
pub struct Criterion {
    pub name: String,
    pub bound: f64,
    /// `true`: value ≤ bound (a latency); `false`: value ≥ bound (attainment).
    pub at_most: bool,
}

impl Criterion {
    fn met(&self, v: f64) -> bool {
        if self.at_most {
            v <= self.bound
        } else {
            v >= self.bound
        }
    }
}

/// Medians of one level.
#[derive(Debug, Clone)]
pub struct Level {
    pub load: f64,
    pub n: usize,
    pub throughput: f64,
    pub latency: Option<f64>,
    pub checks: Vec<Option<f64>>,
}

impl Level {
    /// The criteria (by index) this level does not meet; a level without a value for a
    /// criterion does not meet it.
    pub fn failing(&self, criteria: &[Criterion]) -> Vec<usize> {
        (0..criteria.len())
            .filter(|&i| {
                !self
                    .checks
                    .get(i)
                    .copied()
                    .flatten()
                    .is_some_and(|v| criteria[i].met(v))
            })
            .collect()
    }
}

/// Groups trials into levels (ascending load) of their medians.
pub fn levels(trials: &[Trial]) -> Vec<Level> {
    let mut loads: Vec<f64> = trials.iter().map(|t| t.load).collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    loads
        .into_iter()
        .map(|load| {
            let at: Vec<&Trial> = trials.iter().filter(|t| t.load == load).collect();
            let med = |f: &dyn Fn(&Trial) -> Option<f64>| {
                let v: Vec<f64> = at.iter().filter_map(|t| f(t)).collect();
                median(&v)
            };
            let n_checks = at.iter().map(|t| t.checks.len()).max().unwrap_or(0);
            Level {
                load,
                n: at.len(),
                throughput: med(&|t| Some(t.throughput)).unwrap_or(f64::NAN),
                latency: med(&|t| t.latency),
                checks: (0..n_checks)
                    .map(|i| med(&|t| t.checks.get(i).copied().flatten()))
                    .collect(),
            }
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knee {
    pub load: f64,
    pub throughput: f64,
    /// Scaling efficiency of the step after it.
    pub efficiency: f64,
}

pub const KNEE_EFFICIENCY: f64 = 0.5;

pub fn knee(levels: &[Level]) -> Option<Knee> {
    let eff: Vec<f64> = levels
        .windows(2)
        .map(|w| (w[1].throughput / w[0].throughput - 1.0) / (w[1].load / w[0].load - 1.0))
        .collect();
    let last = levels.last()?;
    (0..eff.len()).find_map(|k| {
        let flat = eff[k..]
            .iter()
            .all(|e| e.is_finite() && *e < KNEE_EFFICIENCY);
        let climbs = match (levels[k].latency, last.latency) {
            (Some(x), Some(y)) => y > x,
            _ => true,
        };
        (flat && climbs).then_some(Knee {
            load: levels[k].load,
            throughput: levels[k].throughput,
            efficiency: eff[k],
        })
    })
}

#[derive(Debug, Clone, PartialEq)]
pub enum Capacity {
    /// Interpolated between two levels; `binding` is the criterion that fails first.
    Within {
        load: f64,
        throughput: f64,
        binding: String,
    },
    /// Every level met the SLOs: at least the highest tried.
    AtLeast { load: f64, throughput: f64 },
    /// The lowest level already failed (`binding`).
    Below { load: f64, binding: String },
}

impl Capacity {
    /// Throughput at capacity, where there is one.
    pub fn throughput(&self) -> Option<f64> {
        match self {
            Capacity::Within { throughput, .. } | Capacity::AtLeast { throughput, .. } => {
                Some(*throughput)
            }
            Capacity::Below { .. } => None,
        }
    }
}

/// `None` without criteria (no SLO) or levels.
pub fn capacity(levels: &[Level], criteria: &[Criterion]) -> Option<Capacity> {
    if criteria.is_empty() || levels.is_empty() {
        return None;
    }
    let failing = |l: &Level| l.failing(criteria);
    let Some(k) = levels.iter().position(|l| !failing(l).is_empty()) else {
        let top = levels.last().expect("not empty");
        return Some(Capacity::AtLeast {
            load: top.load,
            throughput: top.throughput,
        });
    };
    let f = &levels[k];
    if k == 0 {
        return Some(Capacity::Below {
            load: f.load,
            binding: criteria[failing(f)[0]].name.clone(),
        });
    }
    let p = &levels[k - 1];
    // Where each failing criterion crosses its bound between p and f (fraction of the step).
    let (t, i) = failing(f)
        .into_iter()
        .map(|i| {
            let c = &criteria[i];
            let t = match (p.checks[i], f.checks.get(i).copied().flatten()) {
                (Some(vp), Some(vf)) if vf != vp => ((c.bound - vp) / (vf - vp)).clamp(0.0, 1.0),
                _ => 0.0,
            };
            (t, i)
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("k fails something");
    Some(Capacity::Within {
        load: p.load + t * (f.load - p.load),
        throughput: p.throughput + t * (f.throughput - p.throughput),
        binding: criteria[i].name.clone(),
    })
}

/// Bootstrap of the throughput at capacity: each level's trials resampled with replacement,
/// `B` times (seeded). The draws where the SLOs hold somewhere (a capacity with a throughput).
pub fn capacity_draws(trials: &[Trial], criteria: &[Criterion], b: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let mut by_level: Vec<Vec<&Trial>> = Vec::new();
    for l in levels(trials) {
        by_level.push(trials.iter().filter(|t| t.load == l.load).collect());
    }
    (0..b)
        .filter_map(|_| {
            let sample: Vec<Trial> = by_level
                .iter()
                .flat_map(|at| {
                    (0..at.len())
                        .map(|_| at[rng.below(at.len())].clone())
                        .collect::<Vec<_>>()
                })
                .collect();
            capacity(&levels(&sample), criteria)?.throughput()
        })
        .collect()
}

/// The 95 % percentile interval of draws (sorted in place).
pub fn interval(draws: &mut [f64]) -> Option<(f64, f64)> {
    if draws.len() < 20 {
        return None;
    }
    draws.sort_by(f64::total_cmp);
    Some((quantile_sorted(draws, 0.025), quantile_sorted(draws, 0.975)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact mean-value analysis of a closed network: one FCFS queue (service demand `d`) and a
    /// delay station (think time `z`), `n` users: throughput and response time. Saturation point
    /// N* = (d + z) / d.
    fn mva(n: usize, d: f64, z: f64) -> (f64, f64) {
        let mut q = 0.0;
        let (mut x, mut r) = (0.0, 0.0);
        for k in 1..=n {
            r = d * (1.0 + q);
            x = k as f64 / (z + r);
            q = x * r;
        }
        (x, r)
    }

    fn trial(load: f64, x: f64, lat: f64) -> Trial {
        Trial {
            load,
            throughput: x,
            latency: Some(lat),
            checks: vec![Some(lat)],
        }
    }

    #[test]
    fn the_knee_of_a_closed_queue_is_at_its_saturation_point() {
        // d = 10 ms, z = 70 ms: N* = 8, throughput saturates at 100/s.
        for (z, expect) in [(0.07, 8.0), (0.15, 16.0), (0.03, 4.0)] {
            let levels: Vec<Level> = levels(&[1, 2, 4, 8, 16, 32, 64].map(|n| {
                let (x, r) = mva(n, 0.01, z);
                trial(n as f64, x, r)
            }));
            let k = knee(&levels).expect("saturates in range");
            assert_eq!(k.load, expect, "z {z}: {levels:?}");
            assert!(k.efficiency < KNEE_EFFICIENCY);
        }
        // A dip that recovers is not a knee: 10, 12 (e 0.2), 24, 48, 50 → the knee is at 8.
        let dip: Vec<Level> = levels(
            &[
                (1.0, 10.0, 1.0),
                (2.0, 12.0, 1.5),
                (4.0, 24.0, 1.6),
                (8.0, 48.0, 1.7),
                (16.0, 50.0, 3.0),
            ]
            .map(|(l, x, lat)| trial(l, x, lat)),
        );
        assert_eq!(knee(&dip).map(|k| k.load), Some(8.0), "{dip:?}");
        // Still scaling (N* = 101 beyond the range): no knee.
        let levels = levels(&[1, 2, 4, 8, 16].map(|n| {
            let (x, r) = mva(n, 0.01, 1.0);
            trial(n as f64, x, r)
        }));
        assert_eq!(knee(&levels), None, "{levels:?}");
    }

    #[test]
    fn capacity_is_interpolated_where_the_first_criterion_crosses_its_bound() {
        // Latency 10, 20, 40, 80 ms at loads 1, 2, 4, 8; throughput 10, 20, 30, 32.
        let trials = [
            (1.0, 10.0, 10.0),
            (2.0, 20.0, 20.0),
            (4.0, 30.0, 40.0),
            (8.0, 32.0, 80.0),
        ]
        .map(|(l, x, lat)| trial(l, x, lat));
        let lv = levels(&trials);
        let c = |bound| {
            capacity(
                &lv,
                &[Criterion {
                    name: "p99".into(),
                    bound,
                    at_most: true,
                }],
            )
        };
        // Bound 30 ms: between load 2 (20 ms) and 4 (40 ms), halfway → load 3, throughput 25.
        assert_eq!(
            c(30.0),
            Some(Capacity::Within {
                load: 3.0,
                throughput: 25.0,
                binding: "p99".into()
            })
        );
        assert_eq!(
            c(100.0),
            Some(Capacity::AtLeast {
                load: 8.0,
                throughput: 32.0
            })
        );
        assert_eq!(
            c(5.0),
            Some(Capacity::Below {
                load: 1.0,
                binding: "p99".into()
            })
        );
        // An attainment criterion (≥ 99 %) falling 100 → 98 between loads 4 and 8: crosses at
        // half the step → load 6, throughput 31.
        let trials: Vec<Trial> = [(4.0, 30.0, 100.0), (8.0, 32.0, 98.0)]
            .map(|(l, x, a)| Trial {
                load: l,
                throughput: x,
                latency: None,
                checks: vec![Some(a)],
            })
            .to_vec();
        let got = capacity(
            &levels(&trials),
            &[Criterion {
                name: "attainment".into(),
                bound: 99.0,
                at_most: false,
            }],
        );
        assert_eq!(
            got,
            Some(Capacity::Within {
                load: 6.0,
                throughput: 31.0,
                binding: "attainment".into()
            })
        );
    }

    #[test]
    fn bootstrap_draws_cover_the_repeats_spread() {
        // Two repeats per level whose latencies straddle the bound differently.
        let mut trials = Vec::new();
        for (l, x, lats) in [
            (1.0, 10.0, [10.0, 12.0]),
            (2.0, 20.0, [25.0, 35.0]),
            (4.0, 30.0, [60.0, 70.0]),
        ] {
            for lat in lats {
                trials.push(trial(l, x, lat));
            }
        }
        let crit = [Criterion {
            name: "p99".into(),
            bound: 30.0,
            at_most: true,
        }];
        let point = capacity(&levels(&trials), &crit)
            .unwrap()
            .throughput()
            .unwrap();
        let mut draws = capacity_draws(&trials, &crit, 1000, 7);
        assert_eq!(draws.len(), 1000);
        let (lo, hi) = interval(&mut draws).unwrap();
        assert!(lo < point && point < hi, "{lo} {point} {hi}");
        assert!(lo >= 10.0 && hi <= 30.0);
    }
}
