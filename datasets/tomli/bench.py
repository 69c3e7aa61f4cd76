#!/usr/bin/env python3
"""Parse speed of the installed tomli on documents this script generates.

    doc=config TOMLI_VERSION=2.0.1 PYTHONPATH=pkgs/tomli-2.0.1 python3 -s bench.py

`doc` (the plan's matrix key) names one of the documents below; every input is generated here
from a fixed seed, so every release parses the same bytes. The figure is the CPU time of this
thread per `tomli.loads` (time.thread_time: time spent waiting for a core that other work holds
does not count, as it would in wall time), the best of batches of at least 50 ms each over
BUDGET seconds of CPU (default 0.3), after one untimed parse. It exits non-zero unless the
tomli it imported is $TOMLI_VERSION (when set) from $PYTHONPATH. Output (one line;
datasets/plans/tomli.toml reads parse_us):

    tomli 2.0.1 (pure) doc=config bytes=55674 batches=6x5 parse_us=9728.6 mb_per_s=5.723

`pure` is tomli as Python source; `mypyc` its mypyc-compiled modules (the binary wheels
PyPI has from 2.2.0 on for CPython on common platforms).
"""

import os
import random
import sys
import time


def config(seed=1):
    """300 tables of mixed scalar keys, a datetime, an array and an inline table each."""
    r = random.Random(seed)
    out = []
    for i in range(300):
        out += [
            f"[server_{i}]",
            f'name = "host-{i}.example.org"',
            f"port = {r.randint(1, 65535)}",
            f"weight = {r.random():.6f}",
            f"enabled = {'true' if r.random() < 0.5 else 'false'}",
            f"started = 2021-0{r.randint(1, 9)}-1{r.randint(0, 9)}T0{r.randint(0, 9)}:30:00Z",
            f'tags = ["a{i}", "b{i}", "c"]',
            f'limits = {{ cpu = {r.randint(1, 64)}, mem = "{r.randint(1, 512)}Gi" }}',
            "",
        ]
    return "\n".join(out)


def strings(seed=2):
    """1,500 single-line basic strings with escapes."""
    r = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "tab\\t", 'quote\\"', "uni\\u00e9", "nl\\n"]
    return "".join(
        f'key_{i} = "{" ".join(r.choice(words) for _ in range(12))}"\n' for i in range(1500)
    )


def arrays(seed=3):
    """600 arrays of 20 integers each."""
    r = random.Random(seed)
    return "".join(
        f"arr_{i} = [{', '.join(str(r.randint(-10**6, 10**6)) for _ in range(20))}]\n"
        for i in range(600)
    )


def comments(seed=4):
    """A commented configuration: 2,000 keys, each after a comment line and with a trailing one."""
    r = random.Random(seed)
    out = []
    for i in range(2000):
        if i % 50 == 0:
            out.append(f"\n# ---- section {i // 50} " + "-" * 40 + f"\n[section_{i // 50}]")
        article = r.choice(["the", "a", "this"])
        out.append(f"# {article} setting number {i}, see the manual page {r.randint(1, 400)}")
        out.append(f"opt_{i} = {r.randint(0, 10**5)}  # default {r.randint(0, 100)}")
    return "\n".join(out) + "\n"


def multiline(seed=5):
    """200 multi-line strings of 12 lines each, basic and literal in turn."""
    r = random.Random(seed)
    words = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit"]
    out = []
    for i in range(200):
        q = '"""' if i % 2 == 0 else "'''"
        body = "\n".join(" ".join(r.choice(words) for _ in range(10)) for _ in range(12))
        out.append(f"text_{i} = {q}\n{body}\n{q}")
    return "\n".join(out) + "\n"


def small():
    """A 120-byte document: the cost of one call."""
    return (
        'title = "small"\n[owner]\nname = "Tom"\ndob = 1979-05-27T07:32:00-08:00\n'
        "[db]\nports = [8000, 8001, 8002]\nenabled = true\n"
    )


DOCS = {f.__name__: f for f in (config, strings, arrays, comments, multiline, small)}


def main():
    import tomli
    import tomli._parser

    version = getattr(tomli, "__version__", "?")
    want = os.environ.get("TOMLI_VERSION")
    if want and version != want:
        sys.exit(f"imported tomli {version} from {tomli.__file__}, expected {want}")
    path = os.environ.get("PYTHONPATH")
    if path and not os.path.realpath(tomli.__file__).startswith(os.path.realpath(path)):
        sys.exit(f"imported tomli from {tomli.__file__}, expected it under {path}")
    kind = "pure" if tomli._parser.__file__.endswith(".py") else "mypyc"
    name = os.environ.get("doc", "config")
    if name not in DOCS:
        sys.exit(f"doc={name}: expected one of {', '.join(DOCS)}")
    budget = float(os.environ.get("BUDGET", "0.3"))
    doc = DOCS[name]()
    clock = time.thread_time
    parsed = tomli.loads(doc)  # untimed: warms caches, checks the document parses
    if not parsed:
        sys.exit("empty parse")
    t0 = clock()
    tomli.loads(doc)
    once = max(clock() - t0, 1e-6)
    per_batch = max(1, int(0.05 / once))
    best, spent, batches = float("inf"), 0.0, 0
    while spent < budget or batches < 3:
        t0 = clock()
        for _ in range(per_batch):
            tomli.loads(doc)
        t = clock() - t0
        spent += t
        batches += 1
        best = min(best, t / per_batch)
    print(
        f"tomli {version} ({kind}) doc={name} bytes={len(doc.encode())} "
        f"batches={batches}x{per_batch} "
        f"parse_us={best * 1e6:.1f} mb_per_s={len(doc.encode()) / best / 1e6:.3f}"
    )


if __name__ == "__main__":
    main()
