//! The search of `perfhouse run PLAN --find-capacity`: the highest load (concurrency or request
//! rate) at which a system still meets its SLOs, found with few probes. Pure: it sees the
//! probes judged so far and names the next load, or the answer; `runner::find_capacity` runs
//! the probes and judges them.
//!
//! **Rule.** A probed level is *good* when it meets every SLO and is not over-saturated;
//! *over-saturated* means its throughput is more than `saturation` (a share, 10 % by default)
//! below the best throughput of a lower level that meets the SLOs while its median latency is
//! above that level's: more load bought less work and was paid in latency, as a server that
//! thrashes (KV-cache preemption, swapping) does. Over the levels probed, in ascending load:
//! the *first bad* level is the upper end of the bracket and the good level just below it the
//! lower end (a good level above the first bad one is noise and does not count, as in the sweep
//! analysis's capacity). Then:
//!
//! - nothing probed: probe `start`;
//! - no bad level: double the highest probed level, capped at `max`; at `max` the answer is
//!   "at least `max`";
//! - the lowest probed level (`start`) is bad: the answer is "below `start`";
//! - otherwise bisect: probe the middle of the bracket (rounded down to an integer for a
//!   concurrency, to 0.001 for a rate) until the bracket is within the resolution (`10%`: its
//!   width at most 10 % of its lower end; `2`: at most 2 load units) or no load lies between
//!   its ends. The capacity is the lower end: the highest load measured to be good.

use serde::Serialize;

/// How narrow the bracket must get.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Resolution {
    /// Width at most this share of the lower end (`10%` → 0.1).
    Relative(f64),
    /// Width at most this many load units.
    Absolute(f64),
}

impl Resolution {
    /// `10%` or `2` (load units); positive and finite.
    pub fn parse(s: &str) -> Result<Resolution, String> {
        let t = s.trim();
        let (num, pct) = match t.strip_suffix('%') {
            Some(n) => (n.trim(), true),
            None => (t, false),
        };
        let v: f64 = num
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v > 0.0)
            .ok_or_else(|| {
                format!("`{s}`: expected a positive share like \"10%\" or a load step like \"2\"")
            })?;
        Ok(if pct {
            Resolution::Relative(v / 100.0)
        } else {
            Resolution::Absolute(v)
        })
    }

    /// Whether the bracket `[lo, hi]` is narrow enough.
    pub fn within(self, lo: f64, hi: f64) -> bool {
        let width = hi - lo;
        match self {
            Resolution::Relative(r) => width <= r * lo,
            Resolution::Absolute(a) => width <= a,
        }
    }
}

impl std::fmt::Display for Resolution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Resolution::Relative(r) => write!(f, "{}%", r * 100.0),
            Resolution::Absolute(a) => write!(f, "{a}"),
        }
    }
}

/// The search's settings (a plan's `[capacity]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    pub start: f64,
    pub max: f64,
    pub resolution: Resolution,
    /// A concurrency: every level an integer.
    pub integer: bool,
    /// Share of the best lower throughput a level may lose before it counts as over-saturated.
    pub saturation: f64,
}

/// One probed level, judged (medians over its repeats).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Probe {
    pub load: f64,
    /// Every SLO holds.
    pub meets: bool,
    /// The SLOs it misses (or why it has no figures).
    pub failing: Vec<String>,
    pub throughput: Option<f64>,
    /// Median latency (for over-saturation's "latency climbs").
    pub latency: Option<f64>,
}

/// Why a level is bad.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Bad {
    /// Misses these SLOs.
    Slo { failing: Vec<String> },
    /// Throughput fell below `(1 − saturation)` × the best of the lower level `than` while
    /// latency climbed.
    OverSaturated { than: f64 },
}

impl std::fmt::Display for Bad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bad::Slo { failing } => write!(f, "misses {}", failing.join(", ")),
            Bad::OverSaturated { than } => write!(
                f,
                "over-saturated (less throughput than at {}, more latency)",
                fmt_load(*than)
            ),
        }
    }
}

/// How the answer relates to the levels probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Between a good level and a bad one, within the resolution.
    Within,
    /// Every level up to `max` was good.
    AtLeast,
    /// `start` was already bad.
    Below,
}

/// The answer for one series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Found {
    pub kind: Kind,
    /// The highest good load (none when `start` was bad).
    pub capacity: Option<f64>,
    /// The good level below the capacity's bracket end…
    pub lo: Option<f64>,
    /// …and the first bad level (none when every level up to `max` was good).
    pub hi: Option<f64>,
    /// Why `hi` is bad.
    pub why: Option<Bad>,
}

/// What to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Probe(f64),
    Done(Found),
}

/// A level as it is run: an integer for a concurrency, else rounded to 0.001.
pub fn level(x: f64, integer: bool) -> f64 {
    if integer {
        x.floor()
    } else {
        (x * 1000.0).round() / 1000.0
    }
}

/// A load as its parameter value: `8`, `2.5`.
pub fn fmt_load(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Whether `p` is bad given the lower levels `below` (ascending), and why.
pub fn bad(p: &Probe, below: &[&Probe], saturation: f64) -> Option<Bad> {
    if !p.meets {
        return Some(Bad::Slo {
            failing: p.failing.clone(),
        });
    }
    let best = below
        .iter()
        .filter(|b| b.meets)
        .filter_map(|b| b.throughput.map(|x| (x, *b)))
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    let (x, b) = best;
    let fell = p.throughput.is_some_and(|t| t < (1.0 - saturation) * x);
    let climbed = match (p.latency, b.latency) {
        (Some(l), Some(lb)) => l > lb,
        _ => true,
    };
    (fell && climbed).then_some(Bad::OverSaturated { than: b.load })
}

/// The next probe, or the answer, given every probe so far (any order).
pub fn next_probe(s: &Search, history: &[Probe]) -> Step {
    let mut sorted: Vec<&Probe> = history.iter().collect();
    sorted.sort_by(|a, b| a.load.total_cmp(&b.load));
    let first_bad = sorted
        .iter()
        .enumerate()
        .find_map(|(i, p)| bad(p, &sorted[..i], s.saturation).map(|why| (i, why)));
    match first_bad {
        None => {
            let Some(top) = sorted.last() else {
                return Step::Probe(level(s.start, s.integer));
            };
            let next = level((top.load * 2.0).min(s.max), s.integer);
            if next <= top.load {
                Step::Done(Found {
                    kind: Kind::AtLeast,
                    capacity: Some(top.load),
                    lo: Some(top.load),
                    hi: None,
                    why: None,
                })
            } else {
                Step::Probe(next)
            }
        }
        Some((0, why)) => Step::Done(Found {
            kind: Kind::Below,
            capacity: None,
            lo: None,
            hi: Some(sorted[0].load),
            why: Some(why),
        }),
        Some((i, why)) => {
            let (lo, hi) = (sorted[i - 1].load, sorted[i].load);
            let mid = level((lo + hi) / 2.0, s.integer);
            if s.resolution.within(lo, hi) || mid <= lo || mid >= hi {
                Step::Done(Found {
                    kind: Kind::Within,
                    capacity: Some(lo),
                    lo: Some(lo),
                    hi: Some(hi),
                    why: Some(why),
                })
            } else {
                Step::Probe(mid)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(start: f64, max: f64, resolution: &str, integer: bool) -> Search {
        Search {
            start,
            max,
            resolution: Resolution::parse(resolution).unwrap(),
            integer,
            saturation: 0.1,
        }
    }

    /// Runs the search on a system given as `load → (meets, throughput, latency)`: the loads
    /// it probes, in order, and the answer.
    fn drive(s: &Search, system: impl Fn(f64) -> (bool, f64, f64)) -> (Vec<f64>, Found) {
        let mut history = Vec::new();
        loop {
            match next_probe(s, &history) {
                Step::Probe(l) => {
                    assert!(
                        !history.iter().any(|p: &Probe| p.load == l),
                        "probed {l} twice"
                    );
                    assert!(history.len() < 50, "runaway search");
                    let (meets, x, lat) = system(l);
                    history.push(Probe {
                        load: l,
                        meets,
                        failing: if meets { vec![] } else { vec!["slo".into()] },
                        throughput: Some(x),
                        latency: Some(lat),
                    });
                }
                Step::Done(f) => return (history.iter().map(|p| p.load).collect(), f),
            }
        }
    }

    /// K servers of 100 ms each under a closed loop of n clients: throughput min(n, K)/0.1,
    /// latency 100 ms up to K and n/K × 100 ms beyond; the SLO holds while latency ≤ 150 ms,
    /// so exactly up to n = K.
    fn servers(k: f64) -> impl Fn(f64) -> (bool, f64, f64) {
        move |n| {
            let lat = 100.0 * (n / k).max(1.0);
            (lat <= 150.0, n.min(k) / 0.1, lat)
        }
    }

    #[test]
    fn doubles_until_the_slo_misses_then_bisects_to_an_integer_bracket() {
        // Good up to n = 19.5 (13 × 1.5): 1 … 16 good, 32 misses; then 24 and 20 miss, 18
        // and 19 meet, and 19–20 holds no integer between its ends.
        let (probes, f) = drive(&search(1.0, 256.0, "1%", true), servers(13.0));
        assert_eq!(
            probes,
            [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 24.0, 20.0, 18.0, 19.0]
        );
        assert_eq!(f.kind, Kind::Within);
        assert_eq!(
            (f.capacity, f.lo, f.hi),
            (Some(19.0), Some(19.0), Some(20.0))
        );
        assert_eq!(
            f.why,
            Some(Bad::Slo {
                failing: vec!["slo".into()]
            })
        );
    }

    #[test]
    fn a_ten_percent_resolution_stops_the_bisection_early() {
        // Same system (good up to 19): 16 good, 32 bad; 24 bad (bracket 16–24: 50 %), 20 bad
        // (16–20: 25 %), 18 good (18–20: 11.1 % > 10 %), 19 good (19–20: 5.3 % ≤ 10 %).
        let (probes, f) = drive(&search(1.0, 256.0, "10%", true), servers(13.0));
        assert_eq!(
            probes,
            [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 24.0, 20.0, 18.0, 19.0]
        );
        assert_eq!((f.lo, f.hi), (Some(19.0), Some(20.0)));
        // A 25 % resolution stops at 16–20 (width 4 ≤ 0.25 × 16): two probes fewer.
        let (probes, f) = drive(&search(1.0, 256.0, "25%", true), servers(13.0));
        assert_eq!(probes, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 24.0, 20.0]);
        assert_eq!((f.capacity, f.hi), (Some(16.0), Some(20.0)));
        // An absolute resolution of 8 load units stops at 16–24.
        let (probes, f) = drive(&search(1.0, 256.0, "8", true), servers(13.0));
        assert_eq!(probes.last(), Some(&24.0));
        assert_eq!((f.lo, f.hi), (Some(16.0), Some(24.0)));
    }

    #[test]
    fn the_cap_is_probed_and_ends_the_search_when_it_holds() {
        // Never misses: 1, 2, 4, …, 64, then the cap 100 (not 128).
        let (probes, f) = drive(&search(1.0, 100.0, "10%", true), |n| (true, n, 10.0));
        assert_eq!(probes, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 100.0]);
        assert_eq!(f.kind, Kind::AtLeast);
        assert_eq!((f.capacity, f.hi, f.why), (Some(100.0), None, None));
        // A cap that is a power-of-two step: no probe beyond it.
        let (probes, _) = drive(&search(2.0, 16.0, "10%", true), |n| (true, n, 10.0));
        assert_eq!(probes, [2.0, 4.0, 8.0, 16.0]);
    }

    #[test]
    fn a_start_that_already_misses_is_below_start() {
        let (probes, f) = drive(&search(4.0, 64.0, "10%", true), |n| (false, n, 500.0));
        assert_eq!(probes, [4.0]);
        assert_eq!(f.kind, Kind::Below);
        assert_eq!((f.capacity, f.lo, f.hi), (None, None, Some(4.0)));
    }

    #[test]
    fn over_saturation_stops_the_doubling_before_the_slo_misses() {
        // Throughput grows to 4, then falls (a server that thrashes past 4 in flight: service
        // time × (n/4)³) while latency climbs; the SLO (1 s) holds up to n = 8.
        let thrash = |n: f64| {
            let service = 0.05 * (n / 4.0).max(1.0).powi(3);
            let lat = service * 1000.0;
            (lat <= 1000.0, n / service, lat)
        };
        // X: 1 → 20, 2 → 40, 4 → 80, 8 → 20 (bad: < 0.9 × 80), 6 → 35.6 (bad), 5 → 51.2 (bad).
        let (probes, f) = drive(&search(1.0, 256.0, "1%", true), thrash);
        assert_eq!(probes, [1.0, 2.0, 4.0, 8.0, 6.0, 5.0]);
        assert_eq!(f.kind, Kind::Within);
        assert_eq!((f.capacity, f.hi), (Some(4.0), Some(5.0)));
        assert_eq!(f.why, Some(Bad::OverSaturated { than: 4.0 }));
    }

    #[test]
    fn flat_throughput_or_a_small_dip_is_not_over_saturation() {
        let below = Probe {
            load: 8.0,
            meets: true,
            failing: vec![],
            throughput: Some(100.0),
            latency: Some(80.0),
        };
        let at = |x: f64, lat: f64| Probe {
            load: 16.0,
            throughput: Some(x),
            latency: Some(lat),
            ..below.clone()
        };
        // Flat (saturated, not over-saturated), and a dip within 10 %.
        assert_eq!(bad(&at(100.0, 160.0), &[&below], 0.1), None);
        assert_eq!(bad(&at(91.0, 160.0), &[&below], 0.1), None);
        // Down 11 % with latency up: over-saturated; down 11 % with latency down: not.
        assert_eq!(
            bad(&at(89.0, 160.0), &[&below], 0.1),
            Some(Bad::OverSaturated { than: 8.0 })
        );
        assert_eq!(bad(&at(89.0, 70.0), &[&below], 0.1), None);
        // Compared with the best lower level, not the nearest.
        let mid = Probe {
            load: 12.0,
            throughput: Some(95.0),
            ..below.clone()
        };
        assert_eq!(
            bad(&at(89.0, 160.0), &[&below, &mid], 0.1),
            Some(Bad::OverSaturated { than: 8.0 })
        );
    }

    #[test]
    fn a_level_without_figures_is_bad_and_a_good_level_above_a_bad_one_is_noise() {
        let p = |load: f64, meets: bool| Probe {
            load,
            meets,
            failing: if meets {
                vec![]
            } else {
                vec!["no figures".into()]
            },
            throughput: meets.then_some(load),
            latency: meets.then_some(1.0),
        };
        let s = search(1.0, 64.0, "1%", true);
        // 8 failed (no figures) but 16 met: the bracket is 4–8, its middle 6.
        let h = [
            p(1.0, true),
            p(2.0, true),
            p(4.0, true),
            p(8.0, false),
            p(16.0, true),
        ];
        assert_eq!(next_probe(&s, &h), Step::Probe(6.0));
    }

    #[test]
    fn request_rates_bisect_to_fractions_within_the_resolution() {
        // Open loop: the SLO holds up to 3.3 req/s. 0.5, 1, 2, 4 (bad); 3 (good; 3–4: 33 %),
        // 3.5 (bad; 3–3.5: 16.7 %), 3.25 (good; 3.25–3.5: 7.7 % ≤ 10 %).
        let (probes, f) = drive(&search(0.5, 64.0, "10%", false), |r| {
            (r <= 3.3, r, if r <= 3.3 { 50.0 } else { 900.0 })
        });
        assert_eq!(probes, [0.5, 1.0, 2.0, 4.0, 3.0, 3.5, 3.25]);
        assert_eq!((f.lo, f.hi), (Some(3.25), Some(3.5)));
        // Rates round to 0.001: the bracket 3.3–3.301 cannot be split further.
        let s = search(0.5, 64.0, "0.0001", false);
        let (_, f) = drive(&s, |r| (r <= 3.3, r, 1.0));
        assert_eq!((f.lo, f.hi), (Some(3.3), Some(3.301)));
        assert_eq!(fmt_load(3.25), "3.25");
        assert_eq!(fmt_load(8.0), "8");
    }

    #[test]
    fn resolutions_parse_as_shares_or_steps() {
        assert_eq!(Resolution::parse("10%"), Ok(Resolution::Relative(0.1)));
        assert_eq!(Resolution::parse(" 2 "), Ok(Resolution::Absolute(2.0)));
        for bad in ["0%", "-1", "x", "%", "inf"] {
            assert!(Resolution::parse(bad).unwrap_err().contains(bad), "{bad}");
        }
        assert!(Resolution::Relative(0.1).within(20.0, 22.0));
        assert!(!Resolution::Relative(0.1).within(20.0, 22.5));
    }
}
