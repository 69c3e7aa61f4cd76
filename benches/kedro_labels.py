#!/usr/bin/env python3
"""Annotates the step changes of the Kedro asv history (ground truth for changepoints.py).

Usage: kedro_labels.py KEDRO_HISTORY_JSON > benches/kedro-changes.csv

Rule (independent of both detectors; written down so the labels can be checked): within each
segment (split at known breaks), a point i is a step when the median of the M = 8 runs from
i on differs from the median of the M runs before i by more than 10 % and by more than 6x
the larger of the two windows' median absolute deviations, and the level holds (the median
of runs i+M..i+2M, where there are any, is on the same side of the midpoint), and the step is
persistent: at most one of the M runs after i is nearer the old median than the new one, and
at most one of the M runs before it nearer the new (a benchmark flipping between two levels,
as the newest ~40 runs of the OmegaConfigLoader benchmarks do, is unstable, not stepping: a
window median there moves with the mix of the two modes). Candidates
within +-M of a larger one are dropped. Steps under 10 % are not labelled: on this history
they cannot be told from its drift by eye either, so neither tool is scored on them.

Where: medians of 8-run windows barely move while the window slides over the step (a window
with one point of the other level has the same median), so the largest difference can fall a
few runs after the step (b482aaa7c2 at #13 was labelled at #13..#16). Each kept candidate is
placed at the best single split of the runs around it, v[i-M:i+M]: the j (at least 2 runs on
each side) minimising sum |x - median(side)| over both sides (an L1 two-segment fit), so a
step is labelled at the first run at its new level, i.e. at its commit.
"""
import csv
import json
import statistics as st
import sys

M = 8


def mad(xs):
    m = st.median(xs)
    return st.median([abs(x - m) for x in xs])


def steps(v):
    cands = []
    for i in range(M, len(v) - M + 1):
        before, after = v[i - M:i], v[i:i + M]
        mb, ma = st.median(before), st.median(after)
        if mb == 0:
            continue
        rel = ma / mb - 1
        spread = max(mad(before), mad(after))
        if abs(rel) <= 0.10 or abs(ma - mb) <= 6 * spread:
            continue
        later = v[i + M:i + 2 * M]
        mid = (ma + mb) / 2
        if later and (st.median(later) - mid) * (ma - mid) < 0:
            continue
        # Persistent: at most one run of each window sits nearer the other window's level (a
        # series flipping between two levels is unstable, not stepping).
        if sum(abs(x - mb) < abs(x - ma) for x in after) > 1 or sum(
            abs(x - ma) < abs(x - mb) for x in before
        ) > 1:
            continue
        cands.append((abs(rel), i))
    kept = []
    for size, i in sorted(cands, reverse=True):
        if all(abs(i - j) > M for j in kept):
            kept.append(i)
    return sorted(locate(v, i) for i in kept)


def locate(v, i):
    """The first run at the new level near candidate i: the best L1 two-segment split of
    v[i-M:i+M]."""
    lo, hi = max(0, i - M), min(len(v), i + M)
    w = v[lo:hi]

    def cost(xs):
        m = st.median(xs)
        return sum(abs(x - m) for x in xs)

    best = min(range(2, len(w) - 1), key=lambda j: (cost(w[:j]) + cost(w[j:]), abs(lo + j - i)))
    return lo + best


def segments(hist):
    """(name, values) of every segment of at least 8 runs: each series of `perfhouse history
    --format json` split at its known breaks, named `metric|arm|params|k`."""
    for s in hist:
        params = s.get("params") or ""
        points = [p["value"] for p in s["points"]]
        bounds = [0] + list(s.get("breaks", [])) + [len(points)]
        for k in range(len(bounds) - 1):
            a, b = bounds[k], bounds[k + 1]
            if b - a >= 8:
                yield f"{s['metric']}|{s['arm']}|{params}|{k}", points[a:b]


if __name__ == "__main__":
    hist = json.load(open(sys.argv[1]))
    print("# Step changes of the Kedro asv history, by the rule in benches/kedro_labels.py.")
    print("segment,index")
    w = csv.writer(sys.stdout, lineterminator="\n")
    for name, values in segments(hist):
        for i in steps(values):
            w.writerow([name, i])
