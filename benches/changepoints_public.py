#!/usr/bin/env python3
"""Public performance series with change points labelled by others (changepoints.py's third part).

The data are not in this repository (the workplace keeps other projects' files out): they sit
under changepoints-public/ of the team's third-party fixtures folder, copied byte for byte, with a README naming the
source, commit and licence. `load(DIR)` returns [] when they are absent, and the caller says so.

LRZIP (Muehlbauer, Apel, Siegmund, "Identifying Software Performance Changes Across Variants and
Versions", ASE 2020; github.com/submission-398/changepoints, realworld/): the time to compress
the Silesia corpus, one series per configuration of lrzip (40 with measurements, commits
#300..#734 of its master branch). The authors identified 7 performance-changing commits of the
system by hand; their table in README.upstream.md (under "#### LRZIP") is read as it is.

Labelling rule (the authors label commits of the system, not series): a labelled commit L is a
true change of a configuration's series when that series moves there by at least 10 % (the
relative threshold the authors used to call a performance change): the median of its runs from
L on differs from the median of its runs before L by >= 10 %, each window holding up to W = 8
runs and stopping at the neighbouring labelled commits (three labels lie 6 and 8 commits apart).
The label sits at the first run at or after L, i.e. at the commit. Detections elsewhere are
false positives even where a series moved: the authors labelled none there.
"""

import csv
import os
import statistics as st

W = 8
THRESHOLD = 0.10


def upstream_labels(readme, system):
    """Commit ids of the `#### SYSTEM` table in the authors' README (rows `| id | hex | msg |`)."""
    ids, inside = [], False
    for line in open(readme, encoding="utf-8"):
        if line.startswith("####"):
            inside = line[4:].strip() == system
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if inside and cells and cells[0].isdigit():
            ids.append(int(cells[0]))
    if not ids:
        raise ValueError(f"{readme}: no `#### {system}` table of labelled commits")
    return sorted(ids)


def configurations(perf_csv):
    """{config_id: [(commit, seconds)] by commit}, leaving out commits without a measurement."""
    series = {}
    for row in csv.DictReader(open(perf_csv, encoding="utf-8")):
        if row["perf"] != "":
            series.setdefault(int(row["config_id"]), []).append(
                (int(row["commit"]), float(row["perf"])))
    return {c: sorted(points) for c, points in series.items()}


def moved(points, label, lo, hi):
    """Whether the runs in [max(lo, label-W), label) and [label, min(hi, label+W)) differ by the
    threshold, relative to the runs before."""
    before = [v for c, v in points if max(lo, label - W) <= c < label]
    after = [v for c, v in points if label <= c < min(hi, label + W)]
    if len(before) < 3 or len(after) < 3:
        return False
    return abs(st.median(after) / st.median(before) - 1) >= THRESHOLD


def moves_at(values, i):
    """Whether a series' median moves by the threshold at index i (W runs a side): used to
    count the detections no label matches that still sit on a move of the series."""
    before, after = values[max(0, i - W):i], values[i:i + W]
    if len(before) < 3 or len(after) < 3:
        return False
    return abs(st.median(after) / st.median(before) - 1) >= THRESHOLD


def truth(points, labels):
    """Indices (into the series) of the labelled commits this series moves at."""
    commits = [c for c, _ in points]
    out = []
    for i, label in enumerate(labels):
        lo = labels[i - 1] if i > 0 else -1
        hi = labels[i + 1] if i + 1 < len(labels) else commits[-1] + 1
        if moved(points, label, lo, hi):
            out.append(next(j for j, c in enumerate(commits) if c >= label))
    return out


def lrzip(folder):
    labels = upstream_labels(os.path.join(folder, "README.upstream.md"), "LRZIP")
    series = configurations(os.path.join(folder, "lrzip_performance.csv"))
    return [(f"lrzip-config-{c}", [v for _, v in points], truth(points, labels), None)
            for c, points in sorted(series.items())]


# Each public set: its name in the tables, its folder under DIR, its loader.
SETS = [("lrzip (ASE 2020)", "lrzip", lrzip)]


def load(directory):
    """[(set name, series)] for the sets present under DIR, and the names of those absent."""
    found, absent = [], []
    for name, sub, loader in SETS:
        folder = os.path.join(directory, sub)
        if os.path.isdir(folder):
            found.append((name, loader(folder)))
        else:
            absent.append(f"{name} ({folder})")
    return found, absent
