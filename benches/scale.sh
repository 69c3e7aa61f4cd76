#!/usr/bin/env bash
# Scale: RUNS runs × ROWS request rows each (default 10,000 × 10,000 = 100 million), SYNTHETIC
# (`perfhouse synth`: the bundled Dynamo capture's real records, cycled with seeded jitter; every
# run labelled synthetic=replicated-real-records), written 100 runs per commit.
#
# Measures, each as a whole process with /usr/bin/time (wall, peak RSS), side by side in one run:
#   1. per-trial median, p99 and throughput over every row: perfhouse query vs DuckDB (2 threads),
#      answers checked equal to 1e-9 first;
#   2. perfhouse site: full build, then again after one more run (incremental);
#   3. the same query through a real S3 API (moto on loopback, the warehouse pushed there with
#      `perfhouse import`): perfhouse vs DuckDB with httpfs.
# Usage: benches/scale.sh [RUNS] [ROWS]   (needs tests/run.sh's .venv: duckdb, moto, httpfs)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
RUNS=${1:-10000}; ROWS=${2:-10000}
WH=${BENCH_WAREHOUSE:-/tmp/perfhouse-scale-$RUNS-$ROWS}
PY=$PWD/.venv/bin/python
HTTPFS=$PWD/.venv/duckdb-httpfs
cargo build --release --quiet --features s3
BIN=$CARGO_TARGET_DIR/release/perfhouse
if [ ! -d "$WH/runs" ]; then
  /usr/bin/time -f "synth: %e s, %M KB peak" "$BIN" --warehouse "$WH" -q synth --runs "$RUNS" --rows "$ROWS" --trials 1 --batch 100
fi
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r)"
echo "requests: $(du -sh "$WH/requests" | cut -f1) in $(find "$WH/requests" -name '*.parquet' | wc -l) files"
t() { /usr/bin/time -f "%e s, %M KB peak, exit %x" "$@" 2>&1 >/dev/null | tail -1; }
SQL="select run_id, trial_id, median(latency_ns) as p50, quantile_cont(latency_ns, 0.99) as p99, count(*) / ((max(end_ns) - min(start_ns)) / 1e9) as rps from requests group by run_id, trial_id order by run_id, trial_id"
cat > /tmp/scale_duck.py <<PY
import duckdb, json, sys
con = duckdb.connect()
con.execute("set threads = 2")
src = sys.argv[1]
if src.startswith("s3://"):
    con.execute("LOAD '" + sys.argv[2] + "'")
    con.execute("CREATE SECRET s (TYPE s3, KEY_ID 'test', SECRET 'test', REGION 'us-east-1', ENDPOINT '" + sys.argv[3] + "', URL_STYLE 'path', USE_SSL false)")
con.execute(f"create view requests as select * from read_parquet('{src}/requests/*/*.parquet', hive_partitioning=true)")
rows = con.execute("""$SQL""").fetchall()
if len(sys.argv) > 4:
    json.dump([[str(r[0]), r[1], r[2], r[3], r[4]] for r in rows], open(sys.argv[4], "w"))
print(len(rows), file=sys.stderr)
PY
check() { # perfhouse's answer file, DuckDB's
  $PY - "$1" "$2" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1])); duck = json.load(open(sys.argv[2]))
assert len(ours) == len(duck), (len(ours), len(duck))
for o, d in zip(ours, duck):
    assert o["run_id"] == d[0] and o["trial_id"] == d[1], (o, d)
    for k, v in zip(["p50", "p99", "rps"], d[2:]):
        assert abs(o[k] - v) <= 1e-9 * abs(v), (k, o[k], v)
print(f"answers agree on {len(ours)} trials")
PY
}
"$BIN" --warehouse "$WH" query "$SQL" --format json > /tmp/scale_ours.json
$PY /tmp/scale_duck.py "$WH" x x /tmp/scale_duck.json 2>/dev/null
check /tmp/scale_ours.json /tmp/scale_duck.json
echo "local disk, per-trial query:"
for i in 1 2 3; do
  echo "  perfhouse: $(t "$BIN" --warehouse "$WH" query "$SQL" --format csv)"
  echo "  duckdb $($PY -c 'import duckdb; print(duckdb.__version__)'): $(t $PY /tmp/scale_duck.py "$WH")"
done
echo "  python -c 'import duckdb' alone: $(t $PY -c 'import duckdb')"

SITE=$WH.site
rm -rf "$SITE"
echo "site (full build, empty directory): $(t "$BIN" --warehouse "$WH" site --out "$SITE")"
echo "site (again, nothing new): $(t "$BIN" --warehouse "$WH" site --out "$SITE")"
"$BIN" --warehouse "$WH" -q synth --runs 1 --rows "$ROWS" --trials 1 --seed "$(date +%s)"
echo "site (one new run): $(t "$BIN" --warehouse "$WH" site --out "$SITE")"

# Through a real S3 API: moto on loopback, the warehouse pushed with import.
PORT=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$PWD/.venv/bin/python" tests/s3_server.py -H 127.0.0.1 -p "$PORT" >/dev/null 2>&1 &
MOTO=$!
trap 'kill $MOTO 2>/dev/null' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT" && break; sleep 0.2; done
curl -s -X PUT "http://127.0.0.1:$PORT/scale" >/dev/null
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 \
  AWS_ENDPOINT=http://127.0.0.1:$PORT AWS_ALLOW_HTTP=true
echo "import into s3://scale/wh: $(t "$BIN" --warehouse s3://scale/wh import "$WH")"
EXT=$(find "$HTTPFS" -name httpfs.duckdb_extension | head -1)
"$BIN" --warehouse s3://scale/wh query "$SQL" --format json > /tmp/scale_ours_s3.json
PYTHONPATH=$HTTPFS $PY /tmp/scale_duck.py s3://scale/wh "$EXT" "127.0.0.1:$PORT" /tmp/scale_duck_s3.json 2>/dev/null
check /tmp/scale_ours_s3.json /tmp/scale_duck_s3.json
echo "S3 (moto on loopback), per-trial query:"
for i in 1 2 3; do
  echo "  perfhouse: $(t "$BIN" --warehouse s3://scale/wh query "$SQL" --format csv)"
  echo "  duckdb 1.4.4 + httpfs: $(PYTHONPATH=$HTTPFS t $PY /tmp/scale_duck.py s3://scale/wh "$EXT" "127.0.0.1:$PORT")"
done
