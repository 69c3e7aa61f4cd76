//! Change points in a series: E-divisive means (Matteson & James 2014), the method Apache
//! Otava (formerly hunter) applies to benchmark history. Binary segmentation: the split that
//! maximises the energy statistic Q̂ is kept when a permutation test finds it significant, then
//! each side is searched again.

use super::{Rng, mean};

/// A change: `index` is the first point after it (the first run with the new level).
#[derive(Debug, Clone, PartialEq)]
pub struct ChangePoint {
    pub index: usize,
    pub mean_before: f64,
    pub mean_after: f64,
    /// (after − before) / |before|.
    pub magnitude: f64,
    pub p_value: f64,
}

#[derive(Debug, Clone)]
pub struct Options {
    /// A split is kept when its permutation p-value is at most this.
    pub alpha: f64,
    pub permutations: usize,
    /// Fewest points on either side of a change.
    pub min_size: usize,
    pub seed: u64,
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

/// [`e_divisive`] with the level on each side of every change (the segments it separates).
pub fn change_points(series: &[f64], opts: &Options) -> Vec<ChangePoint> {
    let cuts = e_divisive(series, opts);
    let bounds: Vec<usize> = std::iter::once(0)
        .chain(cuts.iter().map(|c| c.0))
        .chain(std::iter::once(series.len()))
        .collect();
    cuts.iter()
        .enumerate()
        .map(|(i, &(index, p_value))| {
            let before = mean(&series[bounds[i]..bounds[i + 1]]).unwrap_or(f64::NAN);
            let after = mean(&series[bounds[i + 1]..bounds[i + 2]]).unwrap_or(f64::NAN);
            ChangePoint {
                index,
                mean_before: before,
                mean_after: after,
                magnitude: (after - before) / before.abs(),
                p_value,
            }
        })
        .collect()
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

    #[test]
    fn short_or_flat_series_have_none() {
        assert!(change_points(&[1.0, 2.0, 3.0], &Options::default()).is_empty());
        assert!(change_points(&[5.0; 30], &Options::default()).is_empty());
        assert!(change_points(&[], &Options::default()).is_empty());
    }
}
