#!/usr/bin/env python3
"""data_js_repeat.py SRC OUT REPEATS: SRC's history (a github-action-benchmark data.js)
REPEATS times over, in the action's layout (window.BENCHMARK_DATA = pretty JSON), each copy
of an entry with a fresh commit id and its date moved on by the history's span, so every
entry is a distinct run. Writes as it goes: the output is never held whole."""
import hashlib, json, sys

src, out, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
doc = json.loads(open(src).read().split("=", 1)[1].strip().rstrip(";"))
with open(out, "w") as f:
    # Keys in the order of the action's own history (repoUrl last: the importer's worst case,
    # a first pass over the whole file to find it).
    f.write('window.BENCHMARK_DATA = {\n  "lastUpdate": %d,\n  "entries": {' % doc["lastUpdate"])
    for g, (group, entries) in enumerate(doc["entries"].items()):
        span = entries[-1]["date"] - entries[0]["date"] + 60_000
        f.write(("," if g else "") + "\n    %s: [" % json.dumps(group))
        first = True
        for r in range(repeats):
            for i, e in enumerate(entries):
                e = dict(e)
                e["commit"] = dict(e["commit"], id=hashlib.sha1(f"{group}/{r}/{i}".encode()).hexdigest())
                e["date"] = e["date"] + r * span
                text = json.dumps(e, indent=2, ensure_ascii=False).replace("\n", "\n      ")
                f.write(("," if not first else "") + "\n      " + text)
                first = False
        f.write("\n    ]")
    f.write('\n  },\n  "repoUrl": %s\n}' % json.dumps(doc["repoUrl"]))
