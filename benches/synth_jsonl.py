"""Writes a SYNTHETIC aiperf profile_export.jsonl of N records for the ingest benchmark: the real
records of datasets/dynamo-frontend (aiperf 0.13.0 against Dynamo 1.6.1), replicated in order,
each copy's timestamps shifted so the requests stay back-to-back. Usage: synth_jsonl.py N OUT"""
import glob, gzip, json, sys

n, out = int(sys.argv[1]), sys.argv[2]
real = []
for f in sorted(glob.glob("datasets/dynamo-frontend/data/arm=default/*/*/aiperf/profile_export.jsonl.gz")):
    real.extend(l for l in gzip.open(f, "rt") if l.strip())
recs = [json.loads(l) for l in real]
span = max(r["metadata"]["request_end_ns"] for r in recs) - min(r["metadata"]["request_start_ns"] for r in recs)
with open(out, "w") as fh:
    i = 0
    while i < n:
        for r in recs:
            if i >= n:
                break
            shift = (i // len(recs)) * span
            m = r["metadata"]
            line = json.dumps(r, separators=(",", ":"))
            for k in ("request_start_ns", "request_end_ns", "request_ack_ns", "credit_issued_ns"):
                if m.get(k) is not None:
                    line = line.replace(f'"{k}":{m[k]}', f'"{k}":{m[k] + shift}', 1)
            fh.write(line + "\n")
            i += 1
