//! Change points in a series: E-divisive means (Matteson & James 2014), the method Apache
//! Otava (formerly hunter) applies to benchmark history. Binary segmentation: the split that
//! maximises the energy statistic Q̂ is kept when a permutation test finds it significant, then
//! each side is searched again.

use super::noise::ChangeRule;
use super::{Rng, mean};

/// A change: `index` is the first point after it (the first run with the new level).
#[derive(Debug, Clone, PartialEq)]
pub struct ChangePoint {
    pub index: usize,
    pub mean_before: f64,
    pub mean_after: f64,
    /// The dominant level on each side ([`dominant_level`]): where a series visits a second
    /// level now and then, the level it mostly sits at, not a mean pulled by the visits.
    pub level_before: f64,
    pub level_after: f64,
    /// (level_after − level_before) / |level_before|.
    pub magnitude: f64,
    pub p_value: f64,
    /// The local run-to-run σ it was judged against (the levels on either side, see
    /// [`super::noise::local_sigma`]) and the threshold that gave ([`ChangeRule::threshold`]).
    pub sigma: Option<f64>,
    pub threshold: f64,
    /// Runs of the segments it separates: before it and from it on.
    pub before: usize,
    pub after: usize,
}

/// How sure a finding of history is, in the one short form every output writes (CLI, JSON,
/// pages, reports): the move in local run-to-run σs, the runs on each side, and the
/// permutation test's p, or where there is none yet, how far a pending change is from being
/// one: `3.5σ · 64 runs before, 36 after · p = 0.005`, `5.2σ · 40 runs before, 1 after ·
/// pending`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evidence {
    /// |magnitude| / local σ (none where the noise is unknown).
    pub sigmas: Option<f64>,
    pub before: usize,
    pub after: usize,
    /// The permutation test's p; none for a pending change.
    pub p: Option<f64>,
}

/// Its figures and its words ([`Evidence::text`]), so that JSON says what the tables say.
impl serde::Serialize for Evidence {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Evidence", 5)?;
        st.serialize_field("sigmas", &self.sigmas)?;
        st.serialize_field("before", &self.before)?;
        st.serialize_field("after", &self.after)?;
        st.serialize_field("p", &self.p)?;
        st.serialize_field("text", &self.text())?;
        st.end()
    }
}

impl Evidence {
    pub fn new(
        magnitude: f64,
        sigma: Option<f64>,
        before: usize,
        after: usize,
        p: Option<f64>,
    ) -> Evidence {
        Evidence {
            sigmas: sigma.filter(|s| *s > 0.0).map(|s| magnitude.abs() / s),
            before,
            after,
            p,
        }
    }

    pub fn text(&self) -> String {
        let sigmas = self
            .sigmas
            .map_or("σ unknown".to_string(), |x| format!("{x:.1}σ"));
        let p = self.p.map_or("pending".to_string(), super::verdict::p_text);
        format!(
            "{sigmas} · {} run{} before, {} after · {p}",
            self.before,
            if self.before == 1 { "" } else { "s" },
            self.after
        )
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    /// A split is kept when its permutation p-value is at most this.
    pub alpha: f64,
    pub permutations: usize,
    /// Fewest points on either side of a change.
    pub min_size: usize,
    pub seed: u64,
    /// The magnitude a change must pass against its local noise.
    pub rule: ChangeRule,
}

impl Default for Options {
    fn default() -> Options {
        // 199 permutations resolve p down to 0.005; alpha 0.01 keeps false alarms on pure
        // noise near 1 % per series.
        Options {
            alpha: 0.01,
            permutations: 199,
            min_size: 3,
            seed: 0x5eed,
            rule: ChangeRule::DEFAULT,
        }
    }
}

/// Counts and sums of the values present, indexed by rank (a Fenwick tree): Σ |v − y| over the
/// present y in O(log n).
struct Ranked {
    cnt: Vec<f64>,
    sum: Vec<f64>,
    total_cnt: f64,
    total_sum: f64,
}

impl Ranked {
    fn new(n: usize) -> Ranked {
        Ranked {
            cnt: vec![0.0; n + 1],
            sum: vec![0.0; n + 1],
            total_cnt: 0.0,
            total_sum: 0.0,
        }
    }

    fn add(&mut self, rank: usize, v: f64, sign: f64) {
        let mut i = rank + 1;
        while i < self.cnt.len() {
            self.cnt[i] += sign;
            self.sum[i] += sign * v;
            i += i & i.wrapping_neg();
        }
        self.total_cnt += sign;
        self.total_sum += sign * v;
    }

    /// (count, sum) of present values with rank < `rank`.
    fn below(&self, rank: usize) -> (f64, f64) {
        let (mut c, mut s, mut i) = (0.0, 0.0, rank);
        while i > 0 {
            c += self.cnt[i];
            s += self.sum[i];
            i -= i & i.wrapping_neg();
        }
        (c, s)
    }

    /// Σ |v − y| over the present values y (v itself absent).
    fn distance(&self, rank: usize, v: f64) -> f64 {
        let (c, s) = self.below(rank);
        (v * c - s) + (self.total_sum - s) - v * (self.total_cnt - c)
    }
}

/// Best split of `x` (index into `x`, Q̂), or `None` when `x` is too short. O(n log n): the
/// within-side distance sums move one point at a time through rank-indexed prefix sums.
fn best_split(x: &[f64], min_size: usize) -> Option<(usize, f64)> {
    if x.len() < 2 * min_size.max(1) {
        return None;
    }
    let sorted = Sorted::new(x);
    let rank = sorted.ranks(x.len(), |i| i);
    scan(x, &rank, sorted.total, min_size, &mut Scratch::new(x.len()))
}

/// A segment's values in ascending order, for its permutations: they are the same values, so
/// one sort serves all of them.
struct Sorted {
    /// Per index of the segment: the rank of the first of its equal values in the (stable)
    /// ascending order, so that equal values are told apart by position, as a sort would.
    group: Vec<usize>,
    /// Σ_{i<j} |x_i − x_j|.
    total: f64,
}

impl Sorted {
    fn new(x: &[f64]) -> Sorted {
        let n = x.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
        let mut group = vec![0usize; n];
        let mut first = 0;
        for (r, &i) in order.iter().enumerate() {
            if r > 0 && x[order[r - 1]].total_cmp(&x[i]).is_ne() {
                first = r;
            }
            group[i] = first;
        }
        // Σ_{i<j} |x_i − x_j| from the sorted values.
        let total: f64 = order
            .iter()
            .enumerate()
            .map(|(k, &i)| x[i] * (2.0 * k as f64 - n as f64 + 1.0))
            .sum();
        Sorted { group, total }
    }

    /// The ranks a stable sort gives the arrangement whose position `p` holds the segment's
    /// value `at(p)`: equal values rank in the order of their positions.
    fn ranks(&self, n: usize, at: impl Fn(usize) -> usize) -> Vec<usize> {
        let mut next: Vec<usize> = (0..n).collect();
        (0..n)
            .map(|p| {
                let g = self.group[at(p)];
                let r = next[g];
                next[g] += 1;
                r
            })
            .collect()
    }
}

/// The two rank-indexed sums [`scan`] uses, kept between the permutations of one segment.
struct Scratch {
    left: Ranked,
    right: Ranked,
}

impl Scratch {
    fn new(n: usize) -> Scratch {
        Scratch {
            left: Ranked::new(n),
            right: Ranked::new(n),
        }
    }
}

impl Ranked {
    fn clear(&mut self) {
        self.cnt.fill(0.0);
        self.sum.fill(0.0);
        self.total_cnt = 0.0;
        self.total_sum = 0.0;
    }
}

/// Best split of `x` given the stable-sort rank of each of its values and Σ_{i<j} |x_i − x_j|.
fn scan(
    x: &[f64],
    rank: &[usize],
    total: f64,
    min_size: usize,
    scratch: &mut Scratch,
) -> Option<(usize, f64)> {
    let n = x.len();
    let Scratch { left, right } = scratch;
    left.clear();
    right.clear();
    for (i, &v) in x.iter().enumerate() {
        right.add(rank[i], v, 1.0);
    }
    // Left = x[..t], right = x[t..]; start with t = 0 (all on the right).
    let (mut w_left, mut w_right) = (0.0, total);
    let mut best: Option<(usize, f64)> = None;
    for t in 1..n {
        // Move x[t-1] from the right to the left.
        let (v, r) = (x[t - 1], rank[t - 1]);
        right.add(r, v, -1.0);
        w_left += left.distance(r, v);
        w_right -= right.distance(r, v);
        left.add(r, v, 1.0);
        let (m, k) = (t as f64, (n - t) as f64);
        if t < min_size || n - t < min_size {
            continue;
        }
        let between = total - w_left - w_right;
        let within_l = if t > 1 {
            2.0 * w_left / (m * (m - 1.0))
        } else {
            0.0
        };
        let within_r = if n - t > 1 {
            2.0 * w_right / (k * (k - 1.0))
        } else {
            0.0
        };
        let q = m * k / (m + k) * (2.0 * between / (m * k) - within_l - within_r);
        if best.is_none_or(|(_, bq)| q > bq) {
            best = Some((t, q));
        }
    }
    best
}

/// Change points of `series`, in index order.
pub fn e_divisive(series: &[f64], opts: &Options) -> Vec<(usize, f64)> {
    let min_size = opts.min_size;
    e_divisive_with(series, opts, |seg| {
        // The permutations are the segment's values: one sort of the segment gives every
        // permutation's ranks.
        let n = seg.len();
        let sorted = Sorted::new(seg);
        let mut scratch = Scratch::new(n);
        let mut perm = vec![0.0; n];
        move |idx: &[usize]| {
            for (p, &i) in perm.iter_mut().zip(idx) {
                *p = seg[i];
            }
            let rank = sorted.ranks(n, |p| idx[p]);
            scan(&perm, &rank, sorted.total, min_size, &mut scratch).map(|(_, q)| q)
        }
    })
}

/// E-divisive's binary segmentation, with `permuted(segment)` giving the Q̂ of the segment's
/// best split when its values are arranged as `segment[idx[0]], segment[idx[1]], …`.
fn e_divisive_with<'s, P: FnMut(&[usize]) -> Option<f64>>(
    series: &'s [f64],
    opts: &Options,
    mut permuted: impl FnMut(&'s [f64]) -> P,
) -> Vec<(usize, f64)> {
    let mut rng = Rng::new(opts.seed);
    let mut segments = vec![(0usize, series.len())];
    let mut found: Vec<(usize, f64)> = Vec::new();
    loop {
        // The strongest candidate over all current segments.
        let candidate = segments
            .iter()
            .enumerate()
            .filter_map(|(si, &(a, b))| {
                best_split(&series[a..b], opts.min_size).map(|(t, q)| (si, a + t, q))
            })
            .max_by(|x, y| x.2.total_cmp(&y.2));
        let Some((si, cut, q)) = candidate else { break };
        let (a, b) = segments[si];
        let mut q_of = permuted(&series[a..b]);
        // Each permutation shuffles the previous one, tracked as the segment's indices.
        let mut idx: Vec<usize> = (0..b - a).collect();
        let mut at_least = 0usize;
        // p = (at_least + 1) / (permutations + 1) can only grow: once it exceeds alpha the
        // split is rejected whatever the remaining permutations say, so stop there (on noise
        // that is after a handful of permutations instead of 199).
        let limit = (opts.alpha * (opts.permutations + 1) as f64).floor() as usize;
        for _ in 0..opts.permutations {
            rng.shuffle(&mut idx);
            if q_of(&idx).is_some_and(|pq| pq >= q) {
                at_least += 1;
                if at_least + 1 > limit {
                    break;
                }
            }
        }
        let p = (at_least + 1) as f64 / (opts.permutations + 1) as f64;
        if p > opts.alpha {
            break;
        }
        found.push((cut, p));
        segments[si] = (a, cut);
        segments.insert(si + 1, (cut, b));
    }
    found.sort_by_key(|c| c.0);
    found
}

/// [`e_divisive`] with the level on each side of every change (the segments it separates):
/// every significant split, before any noise or stability rule ([`detect`] applies those).
pub fn change_points(series: &[f64], opts: &Options) -> Vec<ChangePoint> {
    let cuts = e_divisive(series, opts);
    describe(series, &cuts, series.len(), opts.rule)
}

/// The change points at `cuts` of `series[..end]`, each with the levels of the segments it
/// separates, its local noise and the threshold `rule` gives that noise.
fn describe(
    series: &[f64],
    cuts: &[(usize, f64)],
    end: usize,
    rule: ChangeRule,
) -> Vec<ChangePoint> {
    let bounds: Vec<usize> = std::iter::once(0)
        .chain(cuts.iter().map(|c| c.0))
        .chain(std::iter::once(end))
        .collect();
    cuts.iter()
        .enumerate()
        .map(|(i, &(index, p_value))| {
            let (l, r) = (
                &series[bounds[i]..bounds[i + 1]],
                &series[bounds[i + 1]..bounds[i + 2]],
            );
            let (level_before, level_after) = (dominant_level(l), dominant_level(r));
            let sigma = local_sigma(series, l, r);
            ChangePoint {
                index,
                mean_before: mean(l).unwrap_or(f64::NAN),
                mean_after: mean(r).unwrap_or(f64::NAN),
                level_before,
                level_after,
                magnitude: (level_after - level_before) / level_before.abs(),
                p_value,
                sigma,
                threshold: rule.threshold(sigma),
                before: l.len(),
                after: r.len(),
            }
        })
        .collect()
}

/// The local run-to-run σ of a change between `l` and `r` (adjacent slices of `series`):
/// from the deltas next to it on both sides ([`super::noise::local_sigma`]), else, with too
/// few there, from the whole of `series`.
fn local_sigma(series: &[f64], l: &[f64], r: &[f64]) -> Option<f64> {
    super::noise::local_sigma(l, r).or_else(|| super::noise::history_sigma(series).map(|(s, _)| s))
}

/// The dominant level of `x`: its median, or, where it holds two levels ([`TwoModes`] with
/// Ashman's D ≥ [`BIMODAL_D`], at least 2 % apart), the median of the level most of its runs
/// sit at. Where a series sits at one level and visits another now and then, a median (and a
/// mean more so) moves with the share of visits; this does not. NaN when empty.
pub fn dominant_level(x: &[f64]) -> f64 {
    match two_modes(x).filter(is_bimodal) {
        Some(m) => {
            let low = m.low_share >= 0.5;
            let major: Vec<f64> = x
                .iter()
                .copied()
                .filter(|&v| (v <= m.threshold) == low)
                .collect();
            super::median(&major).unwrap_or(f64::NAN)
        }
        None => super::median(x).unwrap_or(f64::NAN),
    }
}

/// Two levels of a sample: the split of its sorted values into a low and a high group that
/// leaves the least squared deviation from the two group means (1-D two-means, exact), each
/// group at least [`MIN_SHARE`] of the values and 3 of them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoModes {
    /// Values at or below it are in the low group.
    pub threshold: f64,
    pub low: f64,
    pub high: f64,
    pub low_share: f64,
    /// Ashman's D: |high − low| / √((s_low² + s_high²)/2). A two-means split of unimodal
    /// Gaussian noise gives D ≈ 2.7 (a uniform one ≈ 3.5); two levels apart by more than
    /// [`BIMODAL_D`] = 4 of their own spreads are two modes.
    pub ashman_d: f64,
}

/// The smallest share of a sample each of [`TwoModes`]' groups holds.
pub const MIN_SHARE: f64 = 0.1;
/// The share of its runs each side of a change must hold at each of two levels for the change
/// to be a change of their mix ([`mode_mix`]).
pub const MIX_SHARE: f64 = 0.2;
/// Ashman's D above which two groups are two modes.
pub const BIMODAL_D: f64 = 4.0;
/// Fewest switches between the two levels (two visits and returns) that make a stretch of a
/// series unstable, and the fewest runs it must span.
pub const MIN_SWITCHES: usize = 4;
pub const MIN_UNSTABLE_RUNS: usize = 12;
/// Two changes of opposite sign within this many runs are an excursion, not two changes,
/// unless both are at least [`EXCURSION_BOTH`].
pub const EXCURSION_RUNS: usize = 10;
pub const EXCURSION_BOTH: f64 = 0.10;

/// [`TwoModes`] of `x`, or `None` with fewer than 6 values.
pub fn two_modes(x: &[f64]) -> Option<TwoModes> {
    let mut a: Vec<f64> = x.to_vec();
    a.sort_by(f64::total_cmp);
    let n = a.len();
    let min = ((MIN_SHARE * n as f64).ceil() as usize).max(3);
    if n < 2 * min {
        return None;
    }
    let (mut s, mut s2) = (vec![0.0; n + 1], vec![0.0; n + 1]);
    for (i, v) in a.iter().enumerate() {
        s[i + 1] = s[i] + v;
        s2[i + 1] = s2[i] + v * v;
    }
    let sse = |i: usize, j: usize| {
        let k = (j - i) as f64;
        let sum = s[j] - s[i];
        (s2[j] - s2[i] - sum * sum / k).max(0.0)
    };
    let j = (min..=n - min)
        .min_by(|&i, &j| (sse(0, i) + sse(i, n)).total_cmp(&(sse(0, j) + sse(j, n))))?;
    let (lo, hi) = (&a[..j], &a[j..]);
    let (ml, mh) = (mean(lo)?, mean(hi)?);
    let var =
        |g: &[f64], m: f64| g.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (g.len() - 1) as f64;
    let spread = ((var(lo, ml) + var(hi, mh)) / 2.0).sqrt();
    Some(TwoModes {
        threshold: (a[j - 1] + a[j]) / 2.0,
        low: ml,
        high: mh,
        low_share: j as f64 / n as f64,
        ashman_d: if spread > 0.0 {
            (mh - ml) / spread
        } else {
            f64::INFINITY
        },
    })
}

/// Whether `m` is two modes: Ashman's D ≥ [`BIMODAL_D`] and the levels at least the ±2 %
/// floor apart (two levels closer than that are no decision anyone acts on).
fn is_bimodal(m: &TwoModes) -> bool {
    m.ashman_d >= BIMODAL_D && (m.high - m.low) / m.low.abs() >= super::noise::FLOOR
}

/// A stretch of a series that switches between two levels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unstable {
    /// The first point at the second level (where the switching began).
    pub start: usize,
    /// One past its last point.
    pub end: usize,
    pub modes: TwoModes,
    /// Switches between the two levels within it.
    pub switches: usize,
}

/// Whether the segment `x` switches between two levels ([`TwoModes`] with D ≥ 4, levels
/// ≥ 2 % apart, at least [`MIN_SWITCHES`] switches over at least [`MIN_UNSTABLE_RUNS`]
/// runs): the span from its first value at the minority level to its end.
pub fn unstable(x: &[f64]) -> Option<Unstable> {
    if x.len() < MIN_UNSTABLE_RUNS {
        return None;
    }
    let m = two_modes(x).filter(is_bimodal)?;
    let high: Vec<bool> = x.iter().map(|&v| v > m.threshold).collect();
    let switches = high.windows(2).filter(|w| w[0] != w[1]).count();
    if switches < MIN_SWITCHES {
        return None;
    }
    let minority_high = m.low_share >= 0.5;
    let start = high.iter().position(|&h| h == minority_high)?;
    Some(Unstable {
        start,
        end: x.len(),
        modes: m,
        switches,
    })
}

/// Whether the change between `l` and `r` is a change of the mix of two levels both sides
/// visit (each side holds at least [`MIX_SHARE`] of its values at each of the two modes of
/// both together), not a move to a new level. A side that visits the other level less often
/// than that sits at one level: a move of most of its runs to the other level is a change.
fn mode_mix(l: &[f64], r: &[f64]) -> bool {
    let both: Vec<f64> = l.iter().chain(r).copied().collect();
    let Some(m) = two_modes(&both).filter(is_bimodal) else {
        return false;
    };
    let low = |x: &[f64]| x.iter().filter(|&&v| v <= m.threshold).count() as f64 / x.len() as f64;
    [low(l), low(r)]
        .iter()
        .all(|&f| (MIX_SHARE..=1.0 - MIX_SHARE).contains(&f))
}

/// Whether the change `c` into `r` is where the series began to switch between two levels,
/// one of which is the level before: the onset of instability (shown as a distribution
/// change), not a move to a new level.
fn onset(c: &ChangePoint, r: &[f64]) -> bool {
    unstable(r).is_some_and(|u| {
        [u.modes.low, u.modes.high]
            .iter()
            .any(|m| ((c.level_before - m) / m.abs()).abs() < c.threshold)
    })
}

/// What `history` calls in one segment (one benchmark version on one machine).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Detection {
    pub changes: Vec<ChangePoint>,
    /// Stretches that switch between two levels, in order (no change point lies inside one).
    pub unstable: Vec<Unstable>,
    /// Changes that pass every rule at the looser [`ChangeRule::minor`] but not the series'
    /// own: not called alone, but many of them one way at one commit make that commit relevant
    /// (`query::alerts::by_commit`).
    pub minor: Vec<ChangePoint>,
    /// Stretches that drift one way run after run, reported once ([`drifts`]) instead of as
    /// the chain of change points binary segmentation cuts them into.
    pub drifts: Vec<Drift>,
}

/// A monotone drift: over `start..end` the series follows a line better than the staircase
/// of change points that cut it ([`drifts`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drift {
    pub start: usize,
    /// One past its last point.
    pub end: usize,
    /// The fitted line's value at its first and last point.
    pub from: f64,
    pub to: f64,
    /// to / from − 1: the drift's total over its span.
    pub total: f64,
    /// The change points it stands for (cut by binary segmentation into a staircase).
    pub steps: usize,
}

/// Fewest runs a drift spans.
pub const MIN_DRIFT_RUNS: usize = 20;

/// Splits `changes` into the changes that are steps and the drifts: each maximal chain of
/// consecutive changes of one sign is judged over its span (from the change before it, or the
/// start, to the change after it, or the end) by the Bayesian information criterion of two
/// fits: the staircase its changes make (a level between each, a position for each change)
/// and one straight line (2 parameters). Where the line fits at least as well, the series
/// drifted: one [`Drift`] with its total and span, no change points. A real step leaves a
/// line far worse (its residuals are the step); a slow drift cut into steps leaves a
/// staircase hardly better than the line, with many more parameters. The drift's total must
/// reach `rule`'s floor and the span [`MIN_DRIFT_RUNS`].
pub fn drifts(
    series: &[f64],
    changes: Vec<ChangePoint>,
    rule: ChangeRule,
) -> (Vec<ChangePoint>, Vec<Drift>) {
    let mut is_step = vec![true; changes.len()];
    let mut found = Vec::new();
    let mut k = 0;
    while k < changes.len() {
        let sign = changes[k].magnitude.signum();
        let mut j = k;
        while j + 1 < changes.len() && changes[j + 1].magnitude.signum() == sign {
            j += 1;
        }
        chain(series, &changes, k, j + 1, rule, &mut is_step, &mut found);
        k = j + 1;
    }
    found.sort_by_key(|d| d.start);
    let kept = changes
        .into_iter()
        .zip(is_step)
        .filter_map(|(c, step)| step.then_some(c))
        .collect();
    (kept, found)
}

/// Judges the chain `changes[k..j]` (one sign): a drift over its span, or else, with three
/// changes or more, its largest change stays a step and the chains on either side of it are
/// judged again (a steady trend with one real break is the break and a drift or two).
fn chain(
    series: &[f64],
    changes: &[ChangePoint],
    k: usize,
    j: usize,
    rule: ChangeRule,
    is_step: &mut [bool],
    found: &mut Vec<Drift>,
) {
    if k >= j {
        return;
    }
    let start = if k == 0 { 0 } else { changes[k - 1].index };
    let end = changes.get(j).map_or(series.len(), |c| c.index);
    let cuts: Vec<usize> = changes[k..j].iter().map(|c| c.index).collect();
    let sign = changes[k].magnitude.signum();
    let smooth = changes[k..j].iter().all(|c| !sharp(series, start, end, c));
    if let Some(d) = smooth
        .then(|| drift_over(series, start, end, &cuts, sign, rule))
        .flatten()
    {
        is_step[k..j].iter_mut().for_each(|s| *s = false);
        found.push(d);
        return;
    }
    if j - k >= 3 {
        let largest = (k..j)
            .max_by(|&a, &b| {
                changes[a]
                    .magnitude
                    .abs()
                    .total_cmp(&changes[b].magnitude.abs())
            })
            .expect("non-empty");
        chain(series, changes, k, largest, rule, is_step, found);
        chain(series, changes, largest + 1, j, rule, is_step, found);
    }
}

/// The drift over `series[start..end]` where a line fits it at least as well (by BIC) as the
/// staircase with steps at `cuts`, moving the `sign` way by at least `rule`'s floor.
fn drift_over(
    series: &[f64],
    start: usize,
    end: usize,
    cuts: &[usize],
    sign: f64,
    rule: ChangeRule,
) -> Option<Drift> {
    let x = &series[start..end];
    let n = x.len();
    if n < MIN_DRIFT_RUNS {
        return None;
    }
    let (a, b) = least_squares_line(x);
    let line_sse: f64 = x
        .iter()
        .enumerate()
        .map(|(i, v)| (v - (a + b * i as f64)).powi(2))
        .sum();
    let bounds: Vec<usize> = std::iter::once(start)
        .chain(cuts.iter().copied())
        .chain(std::iter::once(end))
        .collect();
    let steps_sse: f64 = bounds
        .windows(2)
        .map(|w| {
            let seg = &series[w[0]..w[1]];
            let m = mean(seg).unwrap_or(0.0);
            seg.iter().map(|v| (v - m).powi(2)).sum::<f64>()
        })
        .sum();
    let bic = |sse: f64, params: usize| {
        let nf = n as f64;
        nf * (sse.max(f64::MIN_POSITIVE) / nf).ln() + params as f64 * nf.ln()
    };
    let (from, to) = (a, a + b * (n - 1) as f64);
    let total = to / from - 1.0;
    let line_wins = bic(line_sse, 2) <= bic(steps_sse, 2 * cuts.len() + 1);
    (line_wins && total.signum() == sign && total.abs() >= rule.floor && from > 0.0).then_some(
        Drift {
            start,
            end,
            from,
            to,
            total,
            steps: cuts.len(),
        },
    )
}

/// Runs on each side of a change whose medians [`sharp`] compares.
const JUMP_RUNS: usize = 10;

/// Whether the change `c` within `series[start..end]` is a sharp step: the medians of the
/// [`JUMP_RUNS`] runs on each side of it differ by more than the change's own threshold beyond
/// what a line through the span predicts over those runs. A drift cut into steps moves as much
/// between neighbouring windows as its slope says; a real step jumps there, whatever the
/// trend around it.
fn sharp(series: &[f64], start: usize, end: usize, c: &ChangePoint) -> bool {
    let w = JUMP_RUNS.min(c.index - start).min(end - c.index);
    if w == 0 {
        return true;
    }
    let (_, slope) = least_squares_line(&series[start..end]);
    let before = super::median(&series[c.index - w..c.index]).unwrap_or(f64::NAN);
    let after = super::median(&series[c.index..c.index + w]).unwrap_or(f64::NAN);
    let excess = (after - before - slope * w as f64) / before.abs();
    excess.is_nan() || excess.abs() >= c.threshold
}

/// The ordinary least-squares line through `(i, x[i])`: (intercept, slope).
fn least_squares_line(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mx = (n - 1.0) / 2.0;
    let my = x.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, v) in x.iter().enumerate() {
        let d = i as f64 - mx;
        sxy += d * (v - my);
        sxx += d * d;
    }
    let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (my - b * mx, b)
}

/// The change points of one segment as `history` calls them, and where it is unstable.
///
/// 1. E-divisive's significant splits ([`e_divisive`], permutation p ≤ 0.01) are the
///    candidates.
/// 2. Each candidate is judged against the segments it separates, and the weakest one that
///    fails is dropped and the rest judged again (backward elimination), until all pass:
///    - its magnitude (between the dominant levels, [`dominant_level`]) is at least
///      [`ChangeRule::threshold`] (`opts.rule`) of the **local** noise: σ from the run-to-run deltas next to
///      it on both sides, never from runs far away or across another change;
///    - it is not half of an excursion: two changes of opposite sign within
///      [`EXCURSION_RUNS`] runs where one is under [`EXCURSION_BOTH`];
///    - it is not a change in the mix of two levels both sides visit ([`mode_mix`]), nor the
///      onset of switching between the level before and another ([`onset`]).
/// 3. Each segment between the kept changes that switches between two levels is
///    [`unstable`] from its first run at the second level.
pub fn detect(series: &[f64], opts: &Options) -> Detection {
    let n = series.len();
    let cuts = e_divisive(series, opts);
    let (changes, drifts) = drifts(
        series,
        eliminate(series, cuts.clone(), opts.rule),
        opts.rule,
    );
    let minor = eliminate(series, cuts, opts.rule.minor())
        .into_iter()
        .filter(|m| !changes.iter().any(|c| c.index == m.index))
        .filter(|m| !drifts.iter().any(|d| (d.start..d.end).contains(&m.index)))
        .collect();
    let bounds: Vec<usize> = std::iter::once(0)
        .chain(changes.iter().map(|c| c.index))
        .chain(std::iter::once(n))
        .collect();
    let unstable = bounds
        .windows(2)
        .filter_map(|w| {
            unstable(&series[w[0]..w[1]]).map(|u| Unstable {
                start: w[0] + u.start,
                end: w[1],
                ..u
            })
        })
        .collect();
    Detection {
        changes,
        unstable,
        minor,
        drifts,
    }
}

/// A move of a segment's newest runs beyond the noise of the level before them, too recent to
/// be a change point (E-divisive needs `min_size` runs on each side): a **pending** change.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// Index of its first run (the first at the new level, as a change point's would be).
    pub start: usize,
    /// The dominant level of the runs before it, and the median of its runs.
    pub level_before: f64,
    pub level_after: f64,
    /// (level_after − level_before) / |level_before|.
    pub magnitude: f64,
    /// The run-to-run σ of the runs before it (relative), and the threshold the rule gives it.
    pub sigma: Option<f64>,
    pub threshold: f64,
    /// Runs before it it was judged against.
    pub before: usize,
}

impl Pending {
    /// Its runs so far.
    pub fn runs(&self, len: usize) -> usize {
        len - self.start
    }
}

/// The pending change at the end of `x` (the runs of a segment since its last change point,
/// oldest first), if any: its newest `k` runs (1 ≤ k < `opts.min_size`, the longest such)
/// each lie beyond `opts.rule`'s threshold of the noise of the runs before them, on one side
/// of those runs' dominant level, and at least `opts.min_size` runs come before them. Where
/// `min_size` runs or more lie beyond, the detector decides (a change point, or none): no
/// pending change.
pub fn pending(x: &[f64], opts: &Options) -> Option<Pending> {
    let n = x.len();
    for k in (1..=opts.min_size).rev() {
        if n < k + opts.min_size {
            continue;
        }
        let (before, tail) = x.split_at(n - k);
        let level = dominant_level(before);
        if level == 0.0 || !level.is_finite() {
            return None;
        }
        let sigma = super::noise::history_sigma(before).map(|s| s.0);
        let threshold = opts.rule.threshold(sigma);
        let dev = |v: f64| (v - level) / level.abs();
        let side = dev(tail[0]).signum();
        if !tail
            .iter()
            .all(|&v| dev(v).abs() >= threshold && dev(v).signum() == side)
        {
            continue;
        }
        if k == opts.min_size {
            return None;
        }
        let level_after = super::median(tail).unwrap_or(f64::NAN);
        return Some(Pending {
            start: n - k,
            level_before: level,
            level_after,
            magnitude: dev(level_after),
            sigma,
            threshold,
            before: before.len(),
        });
    }
    None
}

/// Backward elimination of the candidate `cuts` ([`detect`]'s step 2) with thresholds by
/// `rule`: the change points that remain.
fn eliminate(series: &[f64], mut kept: Vec<(usize, f64)>, rule: ChangeRule) -> Vec<ChangePoint> {
    let n = series.len();
    loop {
        let cps = describe(series, &kept, n, rule);
        let mut worst: Option<(f64, usize)> = None;
        for (k, c) in cps.iter().enumerate() {
            let mut score = c.magnitude.abs() / c.threshold;
            if score.is_nan() {
                score = 0.0;
            }
            let mut bad = score < 1.0;
            for j in [k.wrapping_sub(1), k + 1] {
                let Some(o) = cps.get(j) else { continue };
                if o.index.abs_diff(c.index) <= EXCURSION_RUNS
                    && c.magnitude * o.magnitude < 0.0
                    && c.magnitude.abs().min(o.magnitude.abs()) < EXCURSION_BOTH
                    && c.magnitude.abs() <= o.magnitude.abs()
                {
                    bad = true;
                    score = score.min(0.5);
                }
            }
            if !bad {
                let from = if k == 0 { 0 } else { cps[k - 1].index };
                let to = cps.get(k + 1).map_or(n, |o| o.index);
                let (l, r) = (&series[from..c.index], &series[c.index..to]);
                if mode_mix(l, r) || onset(c, r) {
                    bad = true;
                    score = score.min(0.9);
                }
            }
            if bad && worst.is_none_or(|(s, _)| score < s) {
                worst = Some((score, k));
            }
        }
        match worst {
            Some((_, k)) => {
                kept.remove(k);
            }
            None => return cps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Q̂ of every split by the definition, O(n²) per split.
    fn naive_best(x: &[f64], min_size: usize) -> Option<(usize, f64)> {
        let d = |a: &[f64], b: &[f64]| {
            a.iter()
                .map(|u| b.iter().map(|v| (u - v).abs()).sum::<f64>())
                .sum::<f64>()
        };
        let mut best: Option<(usize, f64)> = None;
        for t in min_size..=x.len().saturating_sub(min_size) {
            let (l, r) = x.split_at(t);
            let (m, k) = (l.len() as f64, r.len() as f64);
            let wl = if m > 1.0 {
                d(l, l) / (m * (m - 1.0))
            } else {
                0.0
            };
            let wr = if k > 1.0 {
                d(r, r) / (k * (k - 1.0))
            } else {
                0.0
            };
            let q = m * k / (m + k) * (2.0 * d(l, r) / (m * k) - wl - wr);
            if best.is_none_or(|(_, bq)| q > bq + 1e-9) {
                best = Some((t, q));
            }
        }
        best
    }

    /// [`best_split`] as it was before permutations shared one sort: ranks by sorting `x`.
    fn best_split_sorting(x: &[f64], min_size: usize) -> Option<(usize, f64)> {
        let n = x.len();
        if n < 2 * min_size.max(1) {
            return None;
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
        let mut rank = vec![0usize; n];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        let total: f64 = order
            .iter()
            .enumerate()
            .map(|(k, &i)| x[i] * (2.0 * k as f64 - n as f64 + 1.0))
            .sum();
        scan(x, &rank, total, min_size, &mut Scratch::new(n))
    }

    /// [`e_divisive`] as it was before permutations shared one sort: each permutation's
    /// values sorted again ([`best_split_sorting`]).
    fn e_divisive_sorting_each_permutation(series: &[f64], opts: &Options) -> Vec<(usize, f64)> {
        e_divisive_with(series, opts, |seg| {
            move |idx: &[usize]| {
                let perm: Vec<f64> = idx.iter().map(|&i| seg[i]).collect();
                best_split_sorting(&perm, opts.min_size).map(|(_, q)| q)
            }
        })
    }

    /// A permutation scanned with the ranks of its segment's one sort gives the split and Q̂,
    /// to the bit, that sorting the permutation gives (ties, ±0.0 and continuous values).
    #[test]
    fn a_permutation_ranked_from_one_sort_splits_as_sorting_it_does() {
        let mut rng = Rng::new(3);
        for case in 0..60 {
            let n = 6 + (rng.next_u64() % 200) as usize;
            let seg: Vec<f64> = (0..n)
                .map(|_| match case % 3 {
                    0 => rng.normal(),
                    // Ties of values whose sums round: an order of summing that differs
                    // shows in the last bits.
                    1 => (rng.next_u64() % 5) as f64 * 0.1 + 0.0137,
                    _ => [0.0, -0.0, 1.5, 0.3][(rng.next_u64() % 4) as usize],
                })
                .collect();
            let sorted = Sorted::new(&seg);
            let mut scratch = Scratch::new(n);
            let mut idx: Vec<usize> = (0..n).collect();
            for _ in 0..20 {
                rng.shuffle(&mut idx);
                let perm: Vec<f64> = idx.iter().map(|&i| seg[i]).collect();
                let rank = sorted.ranks(n, |p| idx[p]);
                let got = scan(&perm, &rank, sorted.total, 3, &mut scratch);
                let want = best_split_sorting(&perm, 3);
                assert_eq!(
                    got.map(|(t, q)| (t, q.to_bits())),
                    want.map(|(t, q)| (t, q.to_bits())),
                    "case {case}"
                );
            }
        }
    }

    /// Same cuts and p-values, to the bit, as sorting every permutation: on continuous noise,
    /// on values with many ties (integer counts), with ±0.0 mixed in, and with shifts planted.
    #[test]
    fn permutations_sharing_one_sort_give_the_same_change_points() {
        let mut rng = Rng::new(7);
        let opts = Options::default();
        let mut with_changes = 0;
        for case in 0..120 {
            let n = 6 + (rng.next_u64() % 300) as usize;
            let shift_at = (rng.next_u64() % n as u64) as usize;
            let x: Vec<f64> = (0..n)
                .map(|i| {
                    let step = if i >= shift_at { 3.0 } else { 0.0 };
                    match case % 4 {
                        0 => 10.0 + step + rng.normal(),
                        1 => ((rng.next_u64() % 4) as f64) + step,
                        2 => [0.0, -0.0][(rng.next_u64() % 2) as usize],
                        _ => ((rng.next_u64() % 3) as f64 - 1.0) * 0.5 + step,
                    }
                })
                .collect();
            let got = e_divisive(&x, &opts);
            let want = e_divisive_sorting_each_permutation(&x, &opts);
            assert_eq!(got.len(), want.len(), "case {case}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!((g.0, g.1.to_bits()), (w.0, w.1.to_bits()), "case {case}");
            }
            with_changes += usize::from(!got.is_empty());
        }
        assert!(
            with_changes > 30,
            "{with_changes} of 120 cases had a change"
        );
    }

    #[test]
    fn fast_split_equals_the_definition() {
        let mut rng = Rng::new(11);
        for n in [6usize, 7, 20, 57, 200] {
            let mut x: Vec<f64> = (0..n)
                .map(|i| (rng.next_u64() % 1000) as f64 / 10.0 + if i > n / 2 { 5.0 } else { 0.0 })
                .collect();
            x[n / 3] = x[n / 4]; // a tie
            let (t, q) = best_split(&x, 3).unwrap();
            let (nt, nq) = naive_best(&x, 3).unwrap();
            assert_eq!(t, nt, "n={n}");
            assert!(
                (q - nq).abs() <= 1e-9 * nq.abs().max(1.0),
                "n={n}: {q} vs {nq}"
            );
        }
    }

    fn noise(rng: &mut Rng, n: usize, level: f64, sd: f64) -> Vec<f64> {
        (0..n).map(|_| level + sd * rng.normal()).collect()
    }

    #[test]
    fn finds_a_planted_shift_where_it_begins() {
        let mut rng = Rng::new(42);
        let mut s = noise(&mut rng, 40, 100.0, 1.0);
        s.extend(noise(&mut rng, 30, 108.0, 1.0));
        let cps = change_points(&s, &Options::default());
        assert_eq!(cps.len(), 1, "{cps:?}");
        assert_eq!(cps[0].index, 40);
        assert!((cps[0].magnitude - 0.08).abs() < 0.01, "{cps:?}");
        assert!(cps[0].p_value <= 0.01);
    }

    #[test]
    fn finds_two_shifts() {
        let mut rng = Rng::new(7);
        let mut s = noise(&mut rng, 30, 50.0, 1.0);
        s.extend(noise(&mut rng, 30, 56.0, 1.0));
        s.extend(noise(&mut rng, 30, 47.0, 1.0));
        let idx: Vec<usize> = change_points(&s, &Options::default())
            .iter()
            .map(|c| c.index)
            .collect();
        assert_eq!(idx, vec![30, 60]);
    }

    #[test]
    fn a_shift_is_found_in_at_least_95_percent_of_seeded_series() {
        let mut hits = 0;
        for seed in 0..40 {
            let mut rng = Rng::new(1000 + seed);
            let mut s = noise(&mut rng, 25, 100.0, 2.0);
            s.extend(noise(&mut rng, 25, 106.0, 2.0)); // a 6 % regression, 3 σ
            let cps = change_points(
                &s,
                &Options {
                    seed,
                    ..Options::default()
                },
            );
            if cps.iter().any(|c| c.index.abs_diff(25) <= 2) {
                hits += 1;
            }
        }
        assert!(hits >= 38, "found the shift in {hits}/40");
    }

    #[test]
    fn pure_noise_has_no_change_in_at_least_95_percent_of_seeded_series() {
        let mut clean = 0;
        for seed in 0..100 {
            let mut rng = Rng::new(seed);
            let s = noise(&mut rng, 50, 100.0, 3.0);
            if change_points(
                &s,
                &Options {
                    seed,
                    ..Options::default()
                },
            )
            .is_empty()
            {
                clean += 1;
            }
        }
        assert!(clean >= 95, "clean in {clean}/100");
    }

    /// 60 quiet runs at 100, then 60 that switch between 100 and 112 every two runs (high at
    /// 60, 61, low at 62, 63, …): unstable from run 60 (the first at the second level), 30
    /// switches (at 60, 62, …, 118), no change point anywhere, one unstable stretch.
    #[test]
    fn a_series_turning_bimodal_halfway_is_unstable_from_there_without_change_points() {
        let mut rng = Rng::new(5);
        let s: Vec<f64> = (0..120)
            .map(|i| {
                let high = i >= 60 && ((i - 60) / 2) % 2 == 0;
                (if high { 112.0 } else { 100.0 }) + 0.5 * rng.normal()
            })
            .collect();
        let d = detect(&s, &Options::default());
        assert!(d.changes.is_empty(), "{:?}", d.changes);
        assert_eq!(d.unstable.len(), 1, "{:?}", d.unstable);
        let u = d.unstable[0];
        assert_eq!((u.start, u.end, u.switches), (60, 120, 30));
        assert!((u.modes.low - 100.0).abs() < 0.5 && (u.modes.high - 112.0).abs() < 0.5);
        assert!((u.modes.low_share - 0.75).abs() < 1e-12, "{u:?}");
        assert!(u.modes.ashman_d > 10.0, "{u:?}");
        // The same noise without the switching is no stretch and no change.
        let quiet: Vec<f64> = (0..120).map(|_| 100.0 + 0.5 * rng.normal()).collect();
        assert_eq!(detect(&quiet, &Options::default()), Detection::default());
    }

    /// A year of quiet runs (σ 1 %), a −18 % step at run 100, 60 quiet runs at the new level,
    /// then 40 runs switching among three levels (σ of their deltas ≈ 15 %). The step is
    /// judged by the noise around it: local σ ≈ 1 %, so the threshold is 2.75σ ≈ 3 % (not the
    /// 45 % the newest runs' σ would give), and the step is called at 100 with the levels
    /// 100 → 82.
    #[test]
    fn a_step_is_judged_by_the_noise_around_it_not_the_newest_runs() {
        let mut rng = Rng::new(9);
        let mut s: Vec<f64> = (0..100)
            .map(|_| 100.0 * (1.0 + 0.01 * rng.normal()))
            .collect();
        s.extend((0..60).map(|_| 82.0 * (1.0 + 0.01 * rng.normal())));
        s.extend(
            (0..40).map(|i| [82.0, 68.0, 57.0][(i * 7 % 5) % 3] * (1.0 + 0.01 * rng.normal())),
        );
        // The newest 30 deltas of the whole series say σ ≈ 15 %: the −18 % step would be
        // inside a two-run band of ±54 %.
        let (global, _) = super::super::noise::history_sigma(&s).unwrap();
        assert!(global > 0.1, "{global}");
        let d = detect(&s, &Options::default());
        let c = d
            .changes
            .iter()
            .find(|c| c.index == 100)
            .unwrap_or_else(|| panic!("{d:?}"));
        assert!(
            (c.level_before - 100.0).abs() < 1.0 && (c.level_after - 82.0).abs() < 1.0,
            "{c:?}"
        );
        assert!((c.magnitude + 0.18).abs() < 0.015, "{c:?}");
        let sigma = c.sigma.unwrap();
        assert!((0.005..0.015).contains(&sigma), "local σ {sigma}");
        assert_eq!(c.threshold, ChangeRule::DEFAULT.threshold(c.sigma));
    }

    #[test]
    fn evidence_reads_the_same_everywhere() {
        let e = Evidence::new(-0.035, Some(0.01), 64, 36, Some(0.005));
        assert_eq!(e.text(), "3.5σ · 64 runs before, 36 after · p = 0.005");
        let e = Evidence::new(0.104, Some(0.02), 40, 1, None);
        assert_eq!(e.text(), "5.2σ · 40 runs before, 1 after · pending");
        let e = Evidence::new(0.1, None, 1, 3, Some(0.0001));
        assert_eq!(e.text(), "σ unknown · 1 run before, 3 after · p < 0.001");
    }

    /// A persistent +3.5 % step in a series with ~1 % run-to-run noise (64 quiet runs, then
    /// 36 at the new level, as the real database history of issue 37) is 3.5σ: called at the
    /// step in every one of 20 seeded series, where the fixed 4 % floor called none. And the
    /// same noise without a step (A/A, 200 seeded series of 100 runs) gives a change in at
    /// most 1 % of them.
    #[test]
    fn a_small_step_on_a_quiet_series_is_called_and_aa_stays_under_one_percent() {
        let mut called = 0;
        for seed in 0..20u64 {
            let mut rng = Rng::new(100 + seed);
            let s: Vec<f64> = (0..100)
                .map(|i| (if i >= 64 { 103.5 } else { 100.0 }) * (1.0 + 0.01 * rng.normal()))
                .collect();
            let d = detect(
                &s,
                &Options {
                    seed,
                    ..Options::default()
                },
            );
            if d.changes.len() == 1 && d.changes[0].index.abs_diff(64) <= 1 {
                called += 1;
            }
        }
        assert_eq!(called, 20, "called at the step in {called} of 20");
        let false_alarms = (0..200u64)
            .filter(|&seed| {
                let mut rng = Rng::new(5000 + seed);
                let s: Vec<f64> = (0..100)
                    .map(|_| 100.0 * (1.0 + 0.01 * rng.normal()))
                    .collect();
                !detect(
                    &s,
                    &Options {
                        seed,
                        ..Options::default()
                    },
                )
                .changes
                .is_empty()
            })
            .count();
        assert!(false_alarms <= 2, "{false_alarms} of 200 A/A series");
    }

    /// 40 quiet runs at 100 (σ 1 %), then one at 110: a pending change of one run (+10 %,
    /// beyond 2.75σ). Two more at 110 confirm it: the detector calls a change point at 40 and
    /// nothing is pending. Two more at 100 instead drop it: no change, nothing pending.
    #[test]
    fn a_pending_change_is_confirmed_by_two_runs_at_the_new_level_and_dropped_by_two_at_the_old() {
        let mut rng = Rng::new(21);
        let quiet: Vec<f64> = (0..40)
            .map(|_| 100.0 * (1.0 + 0.01 * rng.normal()))
            .collect();
        let opts = Options::default();
        let mut s = quiet.clone();
        s.push(110.0);
        assert!(detect(&s, &opts).changes.is_empty());
        let p = pending(&s, &opts).expect("pending");
        assert_eq!((p.start, p.runs(s.len()), p.before), (40, 1, 40));
        assert!((p.magnitude - 0.10).abs() < 0.01, "{p:?}");
        let sigma = p.sigma.unwrap();
        assert!((0.005..0.015).contains(&sigma), "{p:?}");
        assert_eq!(p.threshold, opts.rule.threshold(p.sigma));
        // One more at the new level: pending, two runs so far.
        s.push(110.5);
        assert_eq!(pending(&s, &opts).map(|p| p.runs(s.len())), Some(2));
        // The third: confirmed, a change point at 40; nothing pending.
        let mut confirmed = s.clone();
        confirmed.push(109.6);
        let d = detect(&confirmed, &opts);
        assert_eq!(
            d.changes.iter().map(|c| c.index).collect::<Vec<_>>(),
            [40],
            "{d:?}"
        );
        assert_eq!(pending(&confirmed[40..], &opts), None);
        assert_eq!(
            pending(&confirmed, &opts),
            None,
            "3 runs beyond: the detector's"
        );
        // Back at the old level for two runs: dropped.
        let mut dropped = quiet.clone();
        dropped.extend([110.0, 100.3, 99.8]);
        assert!(detect(&dropped, &opts).changes.is_empty());
        assert_eq!(pending(&dropped, &opts), None);
        // A move within the noise is nothing.
        let mut small = quiet;
        small.push(101.0);
        assert_eq!(pending(&small, &opts), None);
    }

    /// A slow drift of +8 % over 120 runs (1 % noise): binary segmentation cuts it into steps,
    /// the line fits better than their staircase: one drift of about +8 % over the 120 runs,
    /// no change point. A real +8 % step halfway stays a change point, no drift.
    #[test]
    fn a_slow_drift_is_one_drift_not_a_chain_of_change_points() {
        for seed in 0..5u64 {
            let mut rng = Rng::new(300 + seed);
            let s: Vec<f64> = (0..120)
                .map(|i| 100.0 * (1.0 + 0.08 * i as f64 / 119.0) * (1.0 + 0.01 * rng.normal()))
                .collect();
            let opts = Options {
                seed,
                ..Options::default()
            };
            let d = detect(&s, &opts);
            assert!(d.changes.is_empty(), "seed {seed}: {:?}", d.changes);
            assert_eq!(d.drifts.len(), 1, "seed {seed}: {d:?}");
            let drift = d.drifts[0];
            assert_eq!((drift.start, drift.end), (0, 120));
            assert!((drift.total - 0.08).abs() < 0.015, "seed {seed}: {drift:?}");
            assert!(d.minor.is_empty(), "{:?}", d.minor);
            let step: Vec<f64> = (0..120)
                .map(|i| (if i >= 60 { 108.0 } else { 100.0 }) * (1.0 + 0.01 * rng.normal()))
                .collect();
            let d = detect(&step, &opts);
            assert_eq!(d.changes.iter().map(|c| c.index).collect::<Vec<_>>(), [60]);
            assert!(d.drifts.is_empty(), "{d:?}");
        }
        // A steady +16 % over 240 runs with one real +15 % step at run 120: the step stays a
        // change point, the trend on either side is drift, not a chain of steps.
        let mut rng = Rng::new(77);
        let s: Vec<f64> = (0..240)
            .map(|i| {
                let step = if i >= 120 { 1.15 } else { 1.0 };
                100.0 * step * (1.0 + 0.16 * i as f64 / 239.0) * (1.0 + 0.01 * rng.normal())
            })
            .collect();
        let d = detect(&s, &Options::default());
        assert_eq!(
            d.changes.iter().map(|c| c.index).collect::<Vec<_>>(),
            [120],
            "{d:?}"
        );
        assert!(!d.drifts.is_empty(), "{d:?}");
    }

    /// A +6 % excursion of 5 runs comes back: no change (a pair of opposite changes within 10
    /// runs where one is under 10 %). A +15 % one that comes back after 5 runs is two changes.
    #[test]
    fn a_short_excursion_is_no_change_unless_both_halves_are_large() {
        for (bump, want) in [(1.06, 0usize), (1.15, 2)] {
            let mut rng = Rng::new(3);
            let s: Vec<f64> = (0..85)
                .map(|i| {
                    let level = if (40..45).contains(&i) {
                        100.0 * bump
                    } else {
                        100.0
                    };
                    level * (1.0 + 0.003 * rng.normal())
                })
                .collect();
            // The candidates E-divisive would give, judged by the rules.
            let kept = eliminate(&s, vec![(40, 0.005), (45, 0.005)], ChangeRule::DEFAULT);
            let at: Vec<usize> = kept.iter().map(|c| c.index).collect();
            assert_eq!(at.len(), want, "bump {bump}: {at:?}");
            if want == 2 {
                assert_eq!(at, [40, 45]);
                assert!((kept[0].magnitude - 0.15).abs() < 0.01, "{kept:?}");
            }
            // The whole detector never calls the small one.
            if want == 0 {
                assert!(detect(&s, &Options::default()).changes.is_empty());
            }
        }
    }

    #[test]
    fn the_dominant_level_is_where_a_series_sits() {
        // 7 runs at 10 and 3 visits to 20: two modes (D = ∞, 100 % apart), 70 % at 10.
        let x = [10.0, 10.0, 20.0, 10.0, 20.0, 10.0, 10.0, 20.0, 10.0, 10.0];
        assert_eq!(dominant_level(&x), 10.0);
        // 5 runs at each: a median would be 15, between the levels; a tie goes to the low one.
        assert_eq!(
            dominant_level(&[10.0, 20.0, 10.0, 20.0, 10.0, 20.0, 10.0, 20.0, 10.0, 20.0]),
            10.0
        );
        // Unimodal: the median.
        assert_eq!(dominant_level(&[1.0, 2.0, 3.0]), 2.0);
        let m = two_modes(&[1.0, 1.1, 0.9, 1.0, 5.0, 5.1, 4.9, 5.0, 1.0, 5.0]).unwrap();
        assert_eq!(m.low_share, 0.5);
        assert!(
            (m.low - 1.0).abs() < 1e-12 && (m.high - 5.0).abs() < 1e-12,
            "{m:?}"
        );
        assert!(two_modes(&[1.0; 5]).is_none());
    }

    #[test]
    fn short_or_flat_series_have_none() {
        assert!(change_points(&[1.0, 2.0, 3.0], &Options::default()).is_empty());
        assert!(change_points(&[5.0; 30], &Options::default()).is_empty());
        assert!(change_points(&[], &Options::default()).is_empty());
    }
}
