#!/usr/bin/env bash
# Per-trial medians, p99 and throughput over 10 million SYNTHETIC request rows (real aiperf
# records of the bundled dataset, replicated with seeded jitter: `perfhouse synth`, src/commands/synth.rs),
# perfhouse (DataFusion) vs DuckDB (2 threads) on the same Parquet files. Whole processes are
# timed with hyperfine, so both include start-up; DuckDB's Python import is timed separately.
# Usage: benches/query_10m.sh [ROWS]   (needs hyperfine and tests/run.sh's .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
ROWS=${1:-10000000}
WH=${BENCH_WAREHOUSE:-/tmp/perfhouse-bench-$ROWS}
PY=.venv/bin/python
cargo build --release --quiet
BIN=$CARGO_TARGET_DIR/release/perfhouse
if [ ! -d "$WH/runs" ]; then
  "$BIN" --warehouse "$WH" synth --rows "$ROWS" --trials 100
fi
du -sh "$WH/requests"
SQL="select trial_id, median(latency_ns) as p50, quantile_cont(latency_ns, 0.99) as p99, count(*) / ((max(end_ns) - min(start_ns)) / 1e9) as rps from requests group by trial_id order by trial_id"
cat > /tmp/duck_bench.py <<PY
import duckdb, sys
con = duckdb.connect()
con.execute("set threads = 2")
con.execute("create view requests as select * from read_parquet('$WH/requests/**/*.parquet', hive_partitioning=true)")
rows = con.execute("""$SQL""").fetchall()
print(len(rows), file=sys.stderr)
PY
# Same answers first (to 1e-9 relative).
"$BIN" --warehouse "$WH" query "$SQL" --format json > /tmp/ph_answer.json
$PY - <<PY
import duckdb, json
con = duckdb.connect(); con.execute("set threads = 2")
con.execute("create view requests as select * from read_parquet('$WH/requests/**/*.parquet', hive_partitioning=true)")
duck = con.execute("""$SQL""").fetchall()
ours = json.load(open("/tmp/ph_answer.json"))
assert len(duck) == len(ours), (len(duck), len(ours))
for d, o in zip(duck, ours):
    for k, v in zip(["trial_id", "p50", "p99", "rps"], d):
        assert abs(o[k] - v) <= 1e-9 * abs(v), (k, o[k], v)
print(f"answers agree on {len(duck)} trials")
PY
hyperfine --warmup 1 --runs 5 --export-markdown /tmp/query_10m.md \
  -n "perfhouse query (DataFusion, 2 cores)" "taskset -c 0,1 $BIN --warehouse $WH query '$SQL' --format csv" \
  -n "duckdb $( $PY -c 'import duckdb;print(duckdb.__version__)') (threads=2, python)" "taskset -c 0,1 $PY /tmp/duck_bench.py" \
  -n "python -c 'import duckdb' (start-up only)" "$PY -c 'import duckdb'"
cat /tmp/query_10m.md
