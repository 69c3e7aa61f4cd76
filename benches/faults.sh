#!/usr/bin/env bash
# The fault suite: what a maintainer runs before a release. Every section attacks the warehouse
# or the runner the way a bad day would (kill -9 mid-write, writers and readers racing
# compaction, damaged files, hostile inputs, daemonising children, Ctrl-C) and counts what
# went wrong; the table goes to RELIABILITY.md with the machine and the command.
#
# Usage: benches/faults.sh            (N=50 kills per kind, FUZZ_SECONDS=600)
#        N=200 FUZZ_SECONDS=600 PROFILE=release benches/faults.sh
# Needs: python3, bash, mkfifo, timeout (coreutils). Runs as any user; the cgroup part of the
# runner section needs a writable cgroup v2 (root).
set -uo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
export RUST_MIN_STACK=${RUST_MIN_STACK:-8388608}
PROFILE=${PROFILE:-debug}
N=${N:-50}
FUZZ_SECONDS=${FUZZ_SECONDS:-600}
if [ "$PROFILE" = release ]; then cargo build --release --quiet; else cargo build --quiet; fi
W=$(mktemp -d /tmp/perfhouse-faults.XXXXXX)
trap 'rm -rf "$W"' EXIT
# A copy, so a rebuild while the suite runs cannot swap the binary under it.
cp "$CARGO_TARGET_DIR/$PROFILE/perfhouse" "$W/perfhouse"
BIN=$W/perfhouse
ROWS=()
row() { ROWS+=("| $1 | $2 |"); printf '%-55s %s\n' "$1" "$2"; }
ph() { "$BIN" --warehouse "$1" "${@:2}"; }
scalar() { ph "$1" query "$2" --format csv 2>/dev/null | tail -1; }
# problems/leftovers counts from `check`
check_counts() { ph "$1" check 2>/dev/null | sed -E 's/.*: ([0-9]+) problems, ([0-9]+) leftovers.*/\1 \2/'; }

# aiperf JSONL: N records (current schema), SALT shifts the start times so files differ.
gen() {
  python3 - "$1" "$2" <<'PY'
import sys
n, salt = int(sys.argv[1]), int(sys.argv[2])
out = sys.stdout
for i in range(n):
    s = 1_700_000_000_000_000_000 + i * 1_000_000 + salt
    out.write('{"metadata":{"request_start_ns":%d,"benchmark_phase":"profiling","worker_id":"w%d"},'
              '"metrics":{"request_latency":{"value":%d,"unit":"ms"},"time_to_first_token":{"value":%d.5,"unit":"ms"},'
              '"output_sequence_length":{"value":40,"unit":"tokens"},"input_sequence_length":{"value":200,"unit":"tokens"}},"error":null}\n'
              % (s, i % 4, 10 + i % 7, 2 + i % 3))
PY
}

echo "fault suite: $BIN, N=$N, FUZZ_SECONDS=$FUZZ_SECONDS, in $W"
# ONLY=part2 runs section 9 alone (issue "Nothing lost, part two") and prints its rows
# instead of rewriting RELIABILITY.md.
if [ "${ONLY:-}" != part2 ]; then

# 1. kill -9 during ingest ------------------------------------------------------------------
WH=$W/kill-ingest; mkdir -p "$WH"
REC=300000
gen $REC 1 > "$W/big.jsonl"
killed=0
for i in $(seq 1 "$N"); do
  "$BIN" --warehouse "$WH" --quiet ingest --suite k --label "i=$i" "$W/big.jsonl" >/dev/null 2>&1 &
  pid=$!
  sleep "$(( RANDOM % 2 )).$(printf %03d $(( RANDOM % 1000 )))"
  if kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
  wait "$pid" 2>/dev/null
done
runs=$(scalar "$WH" "select count(*) from runs")
dup=$(scalar "$WH" "select count(*) - count(distinct input_digest) from runs")
incomplete=$(scalar "$WH" "select count(*) from runs r where (select count(*) from requests q where q.run_id = r.run_id) <> $REC")
read -r problems left_before < <(check_counts "$WH")
ph "$WH" gc --grace 0s >/dev/null 2>&1
read -r _ left_after < <(check_counts "$WH")
# Every input killed mid-way ingests fine afterwards.
ph "$WH" --quiet ingest --suite k --label "i=after" "$W/big.jsonl" >/dev/null 2>&1 && reingest=ok || reingest=FAILED
row "$N × kill -9 during ingest (${REC}-record JSONL)" "$killed killed mid-way, $runs committed: $problems torn/damaged, $dup duplicate, $incomplete incomplete runs; $left_before leftovers → $left_after after gc; re-ingest $reingest"

# 2. kill -9 during compact -----------------------------------------------------------------
WH=$W/kill-compact; mkdir -p "$WH"
expected=0
for i in $(seq 1 20); do
  gen 20000 "$i" > "$W/s$i.jsonl"
  ph "$WH" --quiet ingest --suite c "$W/s$i.jsonl" >/dev/null 2>&1 && expected=$((expected + 20000))
done
killed=0
for i in $(seq 1 "$N"); do
  "$BIN" --warehouse "$WH" --quiet compact >/dev/null 2>&1 &
  pid=$!
  sleep "0.$(printf %03d $(( RANDOM % 400 )))"
  if kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
  wait "$pid" 2>/dev/null
  # something new to merge next time
  gen 10 $((1000 + i)) > "$W/t.jsonl"
  ph "$WH" --quiet ingest --suite c "$W/t.jsonl" >/dev/null 2>&1 && expected=$((expected + 10))
done
rows=$(scalar "$WH" "select count(*) from requests")
read -r problems left_before < <(check_counts "$WH")
ph "$WH" gc --grace 0s >/dev/null 2>&1
read -r _ left_after < <(check_counts "$WH")
ph "$WH" --quiet compact >/dev/null 2>&1
rows_after=$(scalar "$WH" "select count(*) from requests")
row "$N × kill -9 during compact" "$killed killed mid-way: $((expected - rows)) rows lost of $expected, $problems problems; $left_before leftovers → $left_after after gc; a last compact keeps $rows_after rows"

# 3. concurrent ingests -----------------------------------------------------------------------
WH=$W/concurrent; mkdir -p "$WH"
for i in $(seq 1 8); do gen 5000 $((2000 + i)) > "$W/c$i.jsonl"; done
gen 5000 3000 > "$W/same.jsonl"
pids=()
for i in $(seq 1 8); do "$BIN" --warehouse "$WH" --quiet ingest --suite cc "$W/c$i.jsonl" > "$W/c$i.out" 2>&1 & pids+=($!); done
for i in $(seq 1 4); do "$BIN" --warehouse "$WH" ingest --suite cc "$W/same.jsonl" > "$W/same$i.out" 2>&1 & pids+=($!); done
failed=0; for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
runs=$(scalar "$WH" "select count(*) from runs")
rows=$(scalar "$WH" "select count(*) from requests")
already=$(cat "$W"/same*.out | grep -c "already ingested")
read -r problems left < <(check_counts "$WH")
row "8 concurrent ingests of different files + 4 of the same" "$failed failed; $runs runs (expected 9), $rows rows (expected 45000), $already of 4 said already ingested (expected 3); $problems problems, $left leftovers"

# 4. ingest ‖ compact ‖ site ‖ query ----------------------------------------------------------
WH=$W/mixed; mkdir -p "$WH"
ROUNDS=$(( N < 50 ? N : 50 ))
: > "$W/reader-errors"
( while [ ! -e "$W/stop" ]; do ph "$WH" --quiet compact >/dev/null 2>>"$W/compact-errors" || echo compact >> "$W/reader-errors"; done ) &
c1=$!
( while [ ! -e "$W/stop" ]; do ph "$WH" --quiet site --out "$W/site" >/dev/null 2>>"$W/site-errors" || echo site >> "$W/reader-errors"; done ) &
c2=$!
( while [ ! -e "$W/stop" ]; do ph "$WH" query "select count(*) from requests" --format csv >/dev/null 2>>"$W/query-errors" || echo query >> "$W/reader-errors"; done ) &
c3=$!
expected=0
for i in $(seq 1 "$ROUNDS"); do
  gen 500 $((5000 + i)) > "$W/m.jsonl"
  ph "$WH" --quiet ingest --suite mixed "$W/m.jsonl" >/dev/null 2>&1 && expected=$((expected + 500))
done
touch "$W/stop"; wait $c1 $c2 $c3
rows=$(scalar "$WH" "select count(*) from requests")
errors=$(wc -l < "$W/reader-errors")
row "$ROUNDS × ingest ‖ compact ‖ site ‖ query" "$((expected - rows)) lost rows of $expected, $errors reader/compact errors"

# 4b. triage ‖ compact ‖ site ------------------------------------------------------------------
WH=$W/triage; mkdir -p "$WH"
for i in $(seq 0 29); do
  v=$([ "$i" -lt 15 ] && echo 100 || echo 130)
  printf '{"metrics": [{"name": "t", "value": %s.%d, "unit": "ms", "better": "lower"}]}' "$v" $((i % 3)) > "$W/t$i.json"
  ph "$WH" --quiet ingest --suite tri --format metrics-json --commit "$(printf '%040x' "$i")" "$W/t$i.json" >/dev/null 2>&1
done
alert=$(ph "$WH" alerts --format csv 2>/dev/null | sed -n 2p | cut -d, -f1)
rm -f "$W/stop"; : > "$W/triage-errors"
( while [ ! -e "$W/stop" ]; do ph "$WH" --quiet compact >/dev/null 2>>"$W/triage-errors" || echo compact >> "$W/triage-errors"; done ) &
c1=$!
( while [ ! -e "$W/stop" ]; do ph "$WH" --quiet site --out "$W/tsite" >/dev/null 2>>"$W/triage-errors" || echo site >> "$W/triage-errors"; done ) &
c2=$!
TRI=$(( N < 50 ? N : 50 )); ok_tri=0
for i in $(seq 1 "$TRI"); do
  state=$([ $((i % 2)) -eq 0 ] && echo acknowledged || echo new)
  ph "$WH" --quiet triage "$alert" "$state" --note "round $i" >/dev/null 2>>"$W/triage-errors" && ok_tri=$((ok_tri + 1))
done
touch "$W/stop"; wait $c1 $c2
events=$(scalar "$WH" "select count(*) from alerts")
last=$(ph "$WH" alerts --all --format csv 2>/dev/null | sed -n 2p | cut -d, -f2)
want=$([ $((TRI % 2)) -eq 0 ] && echo acknowledged || echo new)
read -r problems left < <(check_counts "$WH")
row "$TRI × triage ‖ compact ‖ site" "$ok_tri of $TRI triage commands ok, $events events kept (expected $TRI), state $last (expected $want), $(grep -c . "$W/triage-errors") errors; $problems problems, $left leftovers"

# 5. corruption judged by check ---------------------------------------------------------------
WH=$W/corrupt; mkdir -p "$WH"
gen 100 1 > "$W/a.jsonl"; gen 100 2 > "$W/b.jsonl"
ph "$WH" --quiet ingest --suite d "$W/a.jsonl" >/dev/null; ph "$WH" --quiet ingest --suite d "$W/b.jsonl" >/dev/null
planted=0; found=0
plant() {  # plant NAME CHECK-NEEDLE COMMAND…
  local name=$1 needle=$2; shift 2
  cp -a "$WH" "$W/c-$name"
  (cd "$W/c-$name" && eval "$*")
  planted=$((planted + 1))
  local out; out=$(ph "$W/c-$name" check 2>&1); local rc=$?
  if [ $rc = 1 ] && grep -q -- "$needle" <<<"$out" && ! grep -q panicked <<<"$out"; then found=$((found + 1)); else echo "  not found: $name (rc $rc): $out" | head -5; fi
}
plant flipped "unreadable" 'f=$(ls requests/suite=d/*.parquet | head -1); printf "\xde\xad\xbe\xef" | dd of="$f" bs=1 seek=8 conv=notrunc 2>/dev/null; printf "XXXX" | dd of="$f" bs=1 seek=$(( $(stat -c %s "$f") - 6 )) conv=notrunc 2>/dev/null'
plant truncated "unreadable" 'f=$(ls trials/suite=d/*.parquet | head -1); truncate -s 100 "$f"'
PY=python3; [ -x .venv/bin/python ] && PY=$PWD/.venv/bin/python
plant foreign "column run_id is Int64" "$PY -c \"import pyarrow as pa, pyarrow.parquet as pq; pq.write_table(pa.table({'run_id': [1]}), 'trials/suite=d/foreign.parquet')\" 2>/dev/null "
plant deleted-blob "kept input missing" 'rm "$(find artifacts/blobs -type f | head -1)"'
plant zero-runs "0 bytes" ': > runs/suite=d/zero.parquet'
plant zero-table "0 bytes" ': > requests/suite=d/zero.parquet'
row "corruption: flipped bytes, truncation, foreign schema, deleted blob, 0-byte files" "$found of $planted named by check (exit 1, no panic)"

# 6. bad-input matrix -------------------------------------------------------------------------
WH=$W/bad; mkdir -p "$W/cases" "$WH"
python3 - "$W/cases" <<'PY'
import os, random, sys
d = sys.argv[1]; r = random.Random(7)
cases = {
  "empty": b"",
  "garbage": bytes(r.randrange(256) for _ in range(4096)),
  "line-1mb": b"x" * (1 << 20) + b"\n",
  "nested": b"[" * 100_000,
  "nul": b"\0" * 1000 + b'{"metrics":[]}' + b"\0",
  "utf8": b'{"metadata":{"request_start_ns":1},"metrics":{},"x":"\xff\xfe\xfd"}\n',
  "1e400": b"1e400\n",
  "max-f64": b"1.797e308\n",
  "cut-json": b'{"metrics": [{"name": "x", "val',
  "lines-only": b"\n\n\n\n",
}
for k, v in cases.items():
    open(os.path.join(d, k), "wb").write(v)
PY
ln -s loop "$W/cases/loop-b"; ln -s loop-b "$W/cases/loop"
mkfifo "$W/cases/fifo"
mkdir -p "$W/cases/empty-dir"
CASES=(empty garbage line-1mb nested nul utf8 1e400 max-f64 cut-json lines-only loop fifo missing empty-dir)
FORMATS=(auto aiperf aiperf-summary hyperfine metrics-json gbench pytest-benchmark criterion folded perf-script lmcache-transfer asv)
panics=0; hangs=0; landed=0; total=0; unclear=0
for f in "${FORMATS[@]}"; do
  for c in "${CASES[@]}"; do
    total=$((total + 1))
    before=$(scalar "$WH" "select count(*) from runs")
    out=$(timeout 60 "$BIN" --warehouse "$WH" ingest --suite bad --format "$f" "$W/cases/$c" 2>&1); rc=$?
    after=$(scalar "$WH" "select count(*) from runs")
    if [ $rc = 124 ]; then hangs=$((hangs + 1)); echo "  hang: $f $c"
    elif [ $rc = 101 ] || grep -q panicked <<<"$out"; then panics=$((panics + 1)); echo "  panic: $f $c: $(head -3 <<<"$out")"
    elif [ "$before" != "$after" ]; then landed=$((landed + 1)); echo "  landed: $f $c"
    elif [ $rc != 1 ] || ! grep -q "$W/cases/$c\|$c" <<<"$out"; then unclear=$((unclear + 1)); echo "  unclear (rc $rc): $f $c: $(head -2 <<<"$out")"
    fi
  done
done
row "bad-input matrix: ${#CASES[@]} cases × ${#FORMATS[@]} formats" "$total ingests: $panics panics, $hangs hangs, $landed landed, $unclear without an error naming the input"

# 7. runner faults ------------------------------------------------------------------------------
WH=$W/runner; mkdir -p "$W/plan"
TOKEN="ph-fault-$$"
cat > "$W/plan/daemons.toml" <<EOF
suite = "daemons"
[run]
repeats = 3
command = "setsid bash -c 'exec -a $TOKEN-setsid sleep 300' </dev/null >/dev/null 2>&1 & env -i bash -c 'exec -a $TOKEN-envi sleep 300' </dev/null >/dev/null 2>&1 & nohup bash -c '(exec -a $TOKEN-double sleep 300 &)' >/dev/null 2>&1; sleep 0.2"
EOF
ph "$WH" run "$W/plan/daemons.toml" >/dev/null 2>&1
# The bracket keeps grep's own command line from matching.
survivors=$(grep -l "[${TOKEN:0:1}]${TOKEN:1}" /proc/[0-9]*/cmdline 2>/dev/null | wc -l)
containment=$(scalar "$WH" "select string_agg(c, ',') from (select distinct containment as c from trials)")
cat > "$W/plan/intr.toml" <<EOF
suite = "intr"
[run]
repeats = 2
command = "touch $W/plan/started; sleep 60"
teardown = "sleep 1; echo done >> $W/plan/teardowns"
EOF
teardowns_ok=0; intr_ok=0
for i in 1 2 3; do
  rm -f "$W/plan/started"
  "$BIN" --warehouse "$WH" run "$W/plan/intr.toml" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do [ -e "$W/plan/started" ] && break; sleep 0.05; done
  sleep 0.3; kill -INT "$pid"; wait "$pid"
done
teardowns_ok=$(grep -c done "$W/plan/teardowns" 2>/dev/null || echo 0)
intr_ok=$(scalar "$WH" "select count(*) from runs where suite = 'intr' and status = 'interrupted'")
cat > "$W/plan/timeout.toml" <<EOF
suite = "timeouts"
[run]
repeats = 3
timeout = "1s"
command = "setsid bash -c 'exec -a $TOKEN-timeout sleep 300' & sleep 300"
EOF
ph "$WH" run "$W/plan/timeout.toml" >/dev/null 2>&1
timeouts=$(scalar "$WH" "select count(*) from trials t join runs r using (run_id) where r.suite = 'timeouts' and t.status = 'timeout'")
survivors2=$(grep -l "[${TOKEN:0:1}]${TOKEN:1}" /proc/[0-9]*/cmdline 2>/dev/null | wc -l)
row "runner: daemonising children (setsid, env -i, double fork) × 3 trials" "$survivors survivors (containment: $containment)"
row "runner: SIGINT mid-trial × 3" "$teardowns_ok of 3 teardowns completed, $intr_ok of 3 runs landed as interrupted"
row "runner: 3 trials past their 1 s timeout" "$timeouts of 3 recorded as timeout, $survivors2 survivors"

# 8. randomized parser runs ---------------------------------------------------------------------
cargo test --locked --quiet --lib --no-run > /dev/null 2>&1
t0=$(date +%s)
PROPTEST_CASES=1000000000 timeout "$FUZZ_SECONDS" cargo test --locked --quiet --lib no_input_makes_a_parser_panic > "$W/fuzz.log" 2>&1; rc=$?
secs=$(( $(date +%s) - t0 ))
if [ $rc = 124 ]; then fuzz="no failure in $secs s (stopped by the time limit)"; elif [ $rc = 0 ]; then fuzz="all cases passed in $secs s"; else fuzz="FAILED (saved in proptest-regressions/): $(grep -m3 -E 'panicked|minimal failing' "$W/fuzz.log")"; fi
row "proptest: every parser on random input for ${FUZZ_SECONDS} s" "$fuzz"

fi # ONLY

# 9. nothing lost, part two ------------------------------------------------------------------------
# 9a. gc --grace 0s in a loop beside 4 concurrent ingests of large inputs, N rounds.
WH=$W/gc-loop; mkdir -p "$WH"
for i in 1 2 3 4; do gen 150000 $((5000 + i)) > "$W/g$i.jsonl"; done
failed=0; gcs=0; gc_failed=0
for r in $(seq 1 "$N"); do
  pids=()
  for i in 1 2 3 4; do "$BIN" --warehouse "$WH" --quiet ingest --suite gc --label "r=$r" "$W/g$i.jsonl" > "$W/g$i.out" 2>&1 & pids+=($!); done
  while :; do
    ph "$WH" gc --grace 0s >/dev/null 2>&1 || gc_failed=$((gc_failed + 1)); gcs=$((gcs + 1))
    any=0; for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && any=1; done; [ $any = 0 ] && break
  done
  for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
done
runs=$(scalar "$WH" "select count(*) from runs")
rows=$(scalar "$WH" "select count(*) from requests")
read -r problems left < <(check_counts "$WH")
row "$N × gc --grace 0s in a loop beside 4 concurrent ingests (150000-record JSONL)" "$failed failed ingests of $((4 * N)), $gcs gc runs ($gc_failed failed); $runs runs (expected $((4 * N))), $((4 * N * 150000 - rows)) rows lost; $problems problems, $left leftovers"

# 9b. statements that would write, through `perfhouse query`.
WH=$W/readonly-query; mkdir -p "$WH"; gen 100 7 > "$W/q.jsonl"
ph "$WH" --quiet ingest --suite q "$W/q.jsonl" >/dev/null 2>&1
RUNS_FILE=$(find "$WH/runs" -name '*.parquet' | head -1)
before=$(find "$WH" -type f ! -name '*.lock' -printf '%p %s\n' | sort | md5sum)
STMTS=("COPY (SELECT 1) TO '$W/x.csv'"
  "COPY (SELECT * EXCLUDE (suite) FROM runs WHERE false) TO '$RUNS_FILE' STORED AS PARQUET"
  "CREATE EXTERNAL TABLE t STORED AS CSV LOCATION '$W'" "CREATE VIEW v AS SELECT 1"
  "CREATE TABLE t2 AS SELECT 1" "INSERT INTO runs SELECT * FROM runs" "DROP VIEW trial_figures"
  "SET datafusion.execution.batch_size = 1" "EXPLAIN ANALYZE COPY (SELECT 1) TO '$W/y.csv'")
refused=0
for s in "${STMTS[@]}"; do
  if ! ph "$WH" query "$s" >/dev/null 2> "$W/q.err" && grep -q "read-only" "$W/q.err"; then refused=$((refused + 1)); fi
done
after=$(find "$WH" -type f ! -name '*.lock' -printf '%p %s\n' | sort | md5sum)
written=$(find "$W" -maxdepth 1 -name '[xy].csv' | wc -l)
[ "$before" = "$after" ] && same=unchanged || same=CHANGED
row "query: ${#STMTS[@]} statements that write (COPY, DDL, DML, SET)" "$refused of ${#STMTS[@]} refused naming the allowed statements; $written files written; warehouse $same"

# 9c. names past their bounds and hostile path segments: each must be refused by name.
WH=$W/names
big=$(head -c 1048576 /dev/zero | tr '\0' x)
names_cases=0; names_refused=0
try() { # EXPECTED-SUBSTRING ARGS...
  local want=$1; shift; names_cases=$((names_cases + 1))
  if ! ph "$WH" "$@" >/dev/null 2> "$W/n.err" && grep -qF -- "$want" "$W/n.err"; then names_refused=$((names_refused + 1)); else echo "  not refused: ${want:0:60}"; fi
}
printf '{"metrics":[{"name":"pps","value":1,"unit":"","better":"higher","arm":"%s"}]}' "$big" > "$W/bigarm.json"
printf '{"metrics":[{"name":"%s","value":1,"unit":"","better":"higher"}]}' "$big" > "$W/bigmetric.json"
printf '{"metrics":[{"name":"pps","value":1,"unit":"","better":"higher","params":{"%s":1}}]}' "$big" > "$W/bigparam.json"
printf '{"metrics":[{"name":"pps","value":1,"unit":"","better":"higher"}]}' > "$W/ok.json"
try "an arm name is 1048576 bytes long" ingest --suite s "$W/bigarm.json"
try "a metric name is 1048576 bytes long" ingest --suite s "$W/bigmetric.json"
try "a parameter name is 1048576 bytes long" ingest --suite s "$W/bigparam.json"
# 100 KiB: one exec argument may not exceed 128 KiB (MAX_ARG_STRLEN).
try "--suite is 102400 bytes long" ingest --suite "${big:0:102400}" "$W/ok.json"
try "--label/--param \`k\` holds the control character" ingest --suite s --label "$(printf 'k=a\nb')" "$W/ok.json"
for seg in "arm=" "repeat=-1" "arm=.." "$(printf 'arm=a\nb')" "repeat=123456789012345678901234567890" "concurrency="; do
  mkdir -p "$W/seg/$seg"; cp "$W/ok.json" "$W/seg/$seg/m.json"
  try "path segment" ingest --suite s "$W/seg/$seg/m.json"
  rm -rf "$W/seg"
done
landed=$(find "$WH" -path '*runs*' -name '*.parquet' 2>/dev/null | wc -l)
row "names: 1 MB arm, metric and parameter names, a 100 KiB suite, a newline in a label; 6 hostile path segments" "$names_refused of $names_cases refused naming the field or segment; $landed runs landed"

# 9d. disk full during ingest: a small tmpfs where one can be mounted (root), else ENOSPC injected
# as each table's file is written (PERFHOUSE_FAULT_ENOSPC).
gen 200000 11 > "$W/full.jsonl"
mkdir -p "$W/tmpfs"
if mount -t tmpfs -o size=40m tmpfs "$W/tmpfs" 2>/dev/null; then
  how="a 40 MiB tmpfs"; fails=0; left_bytes=0
  for i in $(seq 1 "$N"); do
    ph "$W/tmpfs/wh" --quiet ingest --suite full --label "i=$i" "$W/full.jsonl" >/dev/null 2> "$W/full.err" || { grep -q "No space left" "$W/full.err" && fails=$((fails + 1)); }
    b=$(find "$W/tmpfs/wh" -type f ! -name '*.lock' -printf '%s\n' 2>/dev/null | awk '{s+=$1} END {print s+0}')
    left_bytes=$b; [ "$b" != 0 ] && break
  done
  umount "$W/tmpfs"
  row "disk full during ingest ($how, a 44 MB input × $N)" "$fails of $N failed with ENOSPC; $left_bytes bytes left behind after the failures"
else
  fails=0; leftover=0; cases=0
  for t in requests trials metrics artifacts runs; do
    cases=$((cases + 1)); WH=$W/enospc-$t
    PERFHOUSE_FAULT_ENOSPC=$t ph "$WH" --quiet ingest --suite full "$W/full.jsonl" >/dev/null 2> "$W/full.err" || { grep -q "No space left" "$W/full.err" && fails=$((fails + 1)); }
    n=$(find "$WH" -type f ! -name '*.lock' 2>/dev/null | wc -l); leftover=$((leftover + n))
  done
  row "disk full at each table's file (ENOSPC injected: no tmpfs could be mounted)" "$fails of $cases failed with ENOSPC; $leftover files left behind"
fi

# 9e. a warehouse made read-only mid-ingest (as an unprivileged user; root ignores permissions).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  ro_fail=0; ro_named=0; ro_torn=0; ro_cases=0
  for i in $(seq 1 "$N"); do
    WH=$W/ro/wh$i; mkdir -p "$WH"; chown -R 65534:65534 "$W/ro"; chmod 755 "$W" 2>/dev/null
    ro_cases=$((ro_cases + 1))
    setpriv --reuid 65534 --regid 65534 --clear-groups "$BIN" --warehouse "$WH" --quiet ingest --suite ro "$W/full.jsonl" >/dev/null 2> "$W/ro.err" &
    pid=$!
    sleep "0.$(printf %03d $(( RANDOM % 800 )))"; chmod -R a-w "$WH"
    if ! wait "$pid"; then ro_fail=$((ro_fail + 1)); grep -q "$WH" "$W/ro.err" && ro_named=$((ro_named + 1)); fi
    chmod -R u+w "$WH"
    read -r p _ < <(check_counts "$WH"); ro_torn=$((ro_torn + p))
  done
  row "$N × warehouse made read-only mid-ingest (unprivileged writer)" "$ro_fail failed ($ro_named naming a warehouse path), the rest committed before; $ro_torn torn/damaged files"
fi

if [ "${ONLY:-}" = part2 ]; then printf '%s\n' "${ROWS[@]}"; exit 0; fi

# Report -----------------------------------------------------------------------------------------
{
  echo "# Reliability: the fault suite"
  echo
  echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), Linux $(uname -r)."
  echo "Command: \`N=$N FUZZ_SECONDS=$FUZZ_SECONDS PROFILE=$PROFILE benches/faults.sh\` ($(date -u +%Y-%m-%d), perfhouse $("$BIN" --version | cut -d' ' -f2), $PROFILE build)."
  echo
  echo "| fault | result |"
  echo "|---|---|"
  printf '%s\n' "${ROWS[@]}"
  echo
  echo "What each row means: *torn* = a file \`check\` cannot read or whose schema differs; *duplicate* ="
  echo "two committed runs of one input digest; *incomplete* = a committed run without all its rows;"
  echo "*leftovers* = what \`check\` lists for \`gc\` (temporary files, rows of runs that never committed,"
  echo "unfinished runs, unreferenced kept inputs); *reader errors* = a \`site\`/\`query\`/\`compact\` that"
  echo "exited non-zero while the others ran. The bad-input matrix counts an ingest that did not exit 1"
  echo "with a message naming the input as *without an error naming the input*."
} > RELIABILITY.md
echo "wrote RELIABILITY.md"
