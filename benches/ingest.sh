#!/usr/bin/env bash
# Ingest of 100k and 1M SYNTHETIC aiperf records (real records replicated, benches/synth_jsonl.py):
# perfhouse ingest (streaming into the warehouse) vs (a) a Python script reading the JSONL with
# the json module and computing count / throughput / median latency, the seed's method, and
# (b) DuckDB read_json -> Parquet. Wall time and peak RSS by GNU time; one run each, same machine.
# Usage: [ROUNDS=3] benches/ingest.sh [N...]   (needs tests/run.sh's .venv for duckdb)
# With ROUNDS, the three tools run in turn that many times per size (this VM's timings vary
# by ±30 % from one run to the next; alternating keeps the comparison fair).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
cargo build --release --quiet
BIN=$CARGO_TARGET_DIR/release/perfhouse
PY=.venv/bin/python
DIR=${BENCH_DIR:-/tmp/perfhouse-ingest-bench}
mkdir -p "$DIR"
cat > "$DIR/seed.py" <<'PY'
import json, sys, statistics
lat, starts, ends = [], [], []
for line in open(sys.argv[1]):
    r = json.loads(line)
    m = r["metadata"]
    starts.append(m["request_start_ns"]); ends.append(m["request_end_ns"])
    if "request_latency" in r.get("metrics", {}):
        lat.append(r["metrics"]["request_latency"]["value"])
n = len(starts)
print(n, n / ((max(ends) - min(starts)) / 1e9), statistics.median(lat))
PY
cat > "$DIR/duck.py" <<'PY'
import duckdb, sys
con = duckdb.connect(); con.execute("set threads = 2")
con.execute(f"copy (select * from read_json('{sys.argv[1]}', format='newline_delimited')) to '{sys.argv[2]}' (format parquet)")
PY
measure() { # label cmd...
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$@" > /dev/null 2> "$DIR/err.txt" || { cat "$DIR/err.txt"; exit 1; }
  read -r secs kb < "$DIR/time.txt"
  printf '| %s | %s | %.2f s | %d MB |\n' "$N" "$label" "$secs" $((kb / 1024))
}
echo "| records | tool | wall | peak RSS |"
echo "|---|---|---|---|"
[ $# -gt 0 ] || set -- 100000 1000000
for N in "$@"; do
  F=$DIR/n$N/profile_export.jsonl
  if [ ! -f "$F" ]; then mkdir -p "$(dirname "$F")"; python3 benches/synth_jsonl.py "$N" "$F"; fi
  echo "| $N | input | $(du -h "$F" | cut -f1) | |"
  for _ in $(seq "${ROUNDS:-1}"); do
    rm -rf "$DIR/wh" "$DIR/out.parquet"; sync
    measure "perfhouse ingest" "$BIN" --warehouse "$DIR/wh" ingest --suite bench "$F"
    measure "DuckDB read_json → Parquet" "$PY" "$DIR/duck.py" "$F" "$DIR/out.parquet"
    measure "Python json (seed script)" "$PY" "$DIR/seed.py" "$F"
  done
done
