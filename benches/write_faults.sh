#!/usr/bin/env bash
# Every write failure point, injected (issue 39): for each operation that writes the warehouse
# (ingest, compact, gc, annotate, triage), each class of write-side filesystem call (write,
# fsync, rename, link, unlink, mkdir, creat: see benches/faultshim.c) and every N the
# operation reaches, the operation runs once more with its N-th call of that class failing
# with EIO, on a fresh copy of the same warehouse. After each:
#   * the command exits non-zero naming the cause ("Input/output error"), or exits 0 where
#     the failed call's failure is harmless (a cleanup), its work done whole;
#   * `perfhouse check` finds 0 problems;
#   * the warehouse holds the operation's whole result or none of it (a run with all its rows,
#     a note, a triage event; compact and gc: every committed row still there, once).
# Prints one row per operation and class (the table in RELIABILITY.md) and lists every case
# that broke a rule.
#
# Usage: benches/write_faults.sh                 (every N of every class of every operation)
#        OPS="ingest gc" CLASSES="fsync rename" benches/write_faults.sh
#        MAX=3 benches/write_faults.sh           (at most 3 points per class, spread: a quick run)
#        BIN=path/to/perfhouse benches/write_faults.sh   (no build; built with --all-features)
#        S3_OPS="" benches/write_faults.sh    (no object-store part)
# Needs: cc (to build the shim), python3; for the object-store part, tests/run.sh's .venv (moto).
#
# The object-store part (S3_OPS: s3-ingest s3-compact s3-gc) runs tests/s3_server.py (moto) with
# S3_FAULTS=1 and fails the N-th write request (a PUT, a copy, a multipart step, a DELETE) with
# 403 (which the client does not retry), for every N, on a bucket rebuilt each time. After each:
# a non-zero exit naming the failed request, `check` 0 problems, the run whole or none; a failed
# push's staging directory, pushed again (`import DIR`), lands the run whole; a failed
# compaction, run again, keeps every row.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
export RUST_MIN_STACK=${RUST_MIN_STACK:-8388608}
OPS=${OPS-"ingest compact gc annotate triage"}
S3_OPS=${S3_OPS-"s3-ingest s3-compact s3-gc"}
CLASSES=${CLASSES:-"write fsync rename link unlink mkdir creat"}
MAX=${MAX:-0}
W=$(mktemp -d /tmp/perfhouse-wfaults.XXXXXX)
trap 'rm -rf "$W"' EXIT
if [ -z "${BIN:-}" ]; then
  cargo build --quiet --all-features --bin perfhouse || exit 1
  cp "$CARGO_TARGET_DIR/debug/perfhouse" "$W/perfhouse"
  BIN=$W/perfhouse
fi
cc -O2 -shared -fPIC -o "$W/faultshim.so" benches/faultshim.c -ldl || exit 1
ph() { "$BIN" --warehouse "$1" "${@:2}"; }
scalar() { ph "$1" query "$2" --format csv 2>/dev/null | tail -1; }
problems() { ph "$1" check 2>/dev/null | sed -nE 's/.*: ([0-9]+) problems, ([0-9]+) leftovers.*/\1/p'; }
leftovers() { ph "$1" check 2>/dev/null | sed -nE 's/.*: ([0-9]+) problems, ([0-9]+) leftovers.*/\2/p'; }

# aiperf JSONL: N records, SALT shifts the start times so files differ.
gen() {
  python3 - "$1" "$2" <<'PY'
import sys
n, salt = int(sys.argv[1]), int(sys.argv[2])
for i in range(n):
    s = 1_700_000_000_000_000_000 + i * 1_000_000 + salt
    sys.stdout.write('{"metadata":{"request_start_ns":%d,"benchmark_phase":"profiling","worker_id":"w%d"},'
        '"metrics":{"request_latency":{"value":%d,"unit":"ms"},"time_to_first_token":{"value":%d.5,"unit":"ms"},'
        '"output_sequence_length":{"value":40,"unit":"tokens"},"input_sequence_length":{"value":200,"unit":"tokens"}},"error":null}\n'
        % (s, i % 4, 10 + i % 7, 2 + i % 3))
PY
}

# Templates: the warehouse each operation starts from, built once and copied for every N. -------
REC=2000
gen $REC 1 > "$W/in.jsonl"
T=$W/templates; mkdir -p "$T"
# ingest: a warehouse holding one run already (the new input is another).
gen 100 7 > "$W/first.jsonl"
ph "$T/ingest" --quiet ingest --suite s "$W/first.jsonl" >/dev/null
# compact: five runs of one suite, each in its own files.
for i in 1 2 3 4 5; do gen 200 $((10 + i)) > "$W/c$i.jsonl"; ph "$T/compact" --quiet ingest --suite s "$W/c$i.jsonl" >/dev/null; done
# gc: two runs, and what dead writers leave: a stray temporary file, rows of a run that never
# committed, an unfinished run in .inflight/, a kept input no run refers to, a dead compaction.
cp -a "$T/compact" "$T/gc"
(
  cd "$T/gc" || exit 1
  part=$(ls -d requests/suite=s)
  printf 'half' > "$part/dead.parquet.tmp"
  gen 50 99 > "$W/dead.jsonl"; ph "$W/other" --quiet ingest --suite s "$W/dead.jsonl" >/dev/null
  cp "$(find "$W/other/requests" -name '*.parquet' | head -1)" "$part/"
  mkdir -p .inflight/dead/requests/suite=s && cp "$(find "$W/other/trials" -name '*.parquet' | head -1)" .inflight/dead/requests/suite=s/
  mkdir -p artifacts/blobs/ff && printf 'unreferenced' > "artifacts/blobs/ff/ff$(printf '%062d' 0)"
  mkdir -p .staging/trials && cp "$(find trials -name '*.parquet' | head -1)" .staging/trials/
)
# annotate: one run.
cp -a "$T/ingest" "$T/annotate"
RUN=$(scalar "$T/annotate" "select run_id from runs")
# triage: a history with a step, so there is an alert to triage.
for i in $(seq 0 19); do
  v=$([ "$i" -lt 10 ] && echo 100 || echo 130)
  printf '{"metrics": [{"name": "t", "value": %s.%d, "unit": "ms", "better": "lower"}]}' "$v" $((i % 3)) > "$W/t$i.json"
  ph "$T/triage" --quiet ingest --suite tri --format metrics-json --commit "$(printf '%040x' "$i")" "$W/t$i.json" >/dev/null
done
ALERT=$(ph "$T/triage" alerts --format csv 2>/dev/null | sed -n 2p | cut -d, -f1)
[ -n "$ALERT" ] || { echo "no alert to triage"; exit 1; }

# What each operation runs, and what the warehouse must hold after it (whole or none).
op() { # OP WH
  case $1 in
    ingest) ph "$2" ingest --suite s --label fault=1 "$W/in.jsonl" ;;
    compact) ph "$2" compact ;;
    gc) ph "$2" gc --grace 0s ;;
    annotate) ph "$2" annotate "$RUN" "a note, whole or not at all" ;;
    triage) ph "$2" triage "$ALERT" acknowledged --note "seen" ;;
  esac
}
# Prints `whole`, `none` or what is wrong (compared with the template's state).
state() { # OP WH
  local wh=$2
  case $1 in
    ingest)
      local runs new reqs
      runs=$(scalar "$wh" "select count(*) from runs")
      new=$(scalar "$wh" "select count(*) from runs where labels like '%fault%'")
      reqs=$(scalar "$wh" "select count(*) from requests q join runs r using (run_id) where r.labels like '%fault%'")
      if [ "$new" = 0 ] && [ "$runs" = 1 ]; then echo none
      elif [ "$new" = 1 ] && [ "$reqs" = $REC ]; then echo whole
      else echo "partial: runs $runs, new $new, requests $reqs"; fi ;;
    compact|gc)
      local got
      got=$(scalar "$wh" "select (select count(*) from runs) || '/' || (select count(*) from requests) || '/' || (select count(*) from trials) || '/' || (select count(*) from artifacts)")
      if [ "$got" = "$BASE" ]; then echo whole; else echo "rows changed: $got, expected $BASE"; fi ;;
    annotate)
      local n
      n=$(scalar "$wh" "select count(*) from annotations where text = 'a note, whole or not at all'")
      case $n in 0) echo none ;; 1) echo whole ;; *) echo "notes: $n" ;; esac ;;
    triage)
      local n
      n=$(scalar "$wh" "select count(*) from alerts where note = 'seen'")
      case $n in 0) echo none ;; 1) echo whole ;; *) echo "events: $n" ;; esac ;;
  esac
}

ROWS=(); BAD=()
printf '%-9s %-7s %-12s %7s %9s %8s %8s %6s %6s\n' op call points failed "none,EIO" "whole,EIO" "exit 0" "for gc" broke
for o in $OPS; do
  BASE=$(scalar "$T/$o" "select (select count(*) from runs) || '/' || (select count(*) from requests) || '/' || (select count(*) from trials) || '/' || (select count(*) from artifacts)")
  # The calls the operation makes, by class, with nothing failed.
  rm -rf "$W/wh"; cp -a "$T/$o" "$W/wh"; : > "$W/log"
  FAULT_ROOT=$W/wh FAULT_CLASS=all FAULT_LOG=$W/log LD_PRELOAD=$W/faultshim.so op "$o" "$W/wh" >/dev/null 2>&1
  cp "$W/log" "$W/calls-$o.log"
  for c in $CLASSES; do
    total=$(awk -v c="$c" '$2 == c' "$W/log" | wc -l)
    points=$(seq 1 "$total")
    if [ "$MAX" -gt 0 ] && [ "$total" -gt "$MAX" ]; then
      points=$(python3 -c "import sys; t, m = $total, $MAX; print(*sorted({1 + round(i * (t - 1) / (m - 1)) for i in range(m)}) if m > 1 else [1])")
    fi
    tried=0; named=0; tolerated=0; after=0; bad=0; reached=0; left=0
    for n in $points; do
      rm -rf "$W/wh"; cp -a "$T/$o" "$W/wh"; rm -f "$W/hit"
      FAULT_ROOT=$W/wh FAULT_CLASS=$c FAULT_N=$n FAULT_HIT=$W/hit LD_PRELOAD=$W/faultshim.so op "$o" "$W/wh" >/dev/null 2> "$W/err"
      rc=$?
      tried=$((tried + 1))
      [ -s "$W/hit" ] || continue   # this run made fewer such calls (threads vary the order)
      reached=$((reached + 1))
      where=$(cut -d' ' -f3- "$W/hit")
      p=$(problems "$W/wh"); s=$(state "$o" "$W/wh")
      why=""
      if grep -q panicked "$W/err" || [ $rc -ge 100 ]; then why="panicked (rc $rc)"
      elif [ "$p" != 0 ]; then why="check: $p problems"
      elif [ "$s" != whole ] && [ "$s" != none ]; then why="$s"
      elif [ $rc = 0 ] && [ "$s" = none ] && [ "$o" != compact ] && [ "$o" != gc ]; then why="exit 0 but nothing done"
      elif [ $rc != 0 ] && ! grep -q "Input/output error" "$W/err"; then why="exit $rc without naming the cause: $(head -c 300 "$W/err")"
      fi
      # What the failure left for gc goes with one `gc --grace 0s`, and nothing else does.
      if [ -z "$why" ] && [ "$(leftovers "$W/wh")" != 0 ]; then
        left=$((left + 1))
        ph "$W/wh" gc --grace 0s >/dev/null 2>&1
        if [ "$(leftovers "$W/wh")" != 0 ] || [ "$(problems "$W/wh")" != 0 ]; then why="gc did not clear what the failure left"
        elif [ "$(state "$o" "$W/wh")" != "$s" ]; then why="gc changed the result: $(state "$o" "$W/wh"), was $s"; fi
      fi
      if [ -n "$why" ]; then
        bad=$((bad + 1)); BAD+=("$o $c N=$n ($where): $why")
      elif [ $rc = 0 ]; then tolerated=$((tolerated + 1)); echo "$o $c N=$n $where" >> "$W/tolerated"
      elif [ "$s" = whole ] && [ "$o" != compact ] && [ "$o" != gc ]; then after=$((after + 1)); echo "$o $c N=$n $where" >> "$W/after"
      else named=$((named + 1)); fi
    done
    pts=$total; [ "$tried" != "$total" ] && pts="$total ($tried tried)"
    printf '%-9s %-7s %-12s %7s %9s %8s %8s %6s %6s\n' "$o" "$c" "$pts" "$reached" "$named" "$after" "$tolerated" "$left" "$bad"
    ROWS+=("| $o | $c | $pts | $reached | $named | $after | $tolerated | $left | $bad |")
  done
done
# The object store ---------------------------------------------------------------------------------
PY=.venv/bin/python
if [ -n "$S3_OPS" ] && [ -x "$PY" ] && "$PY" -c 'import moto' 2>/dev/null; then
  PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  S3_FAULTS=1 "$PY" tests/s3_server.py -H 127.0.0.1 -p "$PORT" > "$W/s3.log" 2>&1 &
  S3PID=$!
  trap 'kill $S3PID 2>/dev/null; rm -rf "$W"' EXIT
  for _ in $(seq 1 100); do curl -s "http://127.0.0.1:$PORT/__faults__" >/dev/null && break; sleep 0.1; done
  export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 AWS_ENDPOINT=http://127.0.0.1:$PORT AWS_ALLOW_HTTP=true TMPDIR=$W/tmp
  mkdir -p "$TMPDIR"
  URL=s3://faults-wh/prefix
  faults() { curl -s -X POST "http://127.0.0.1:$PORT/__faults__?n=$1&sticky=${2:-0}" >/dev/null; }
  seen() { curl -s "http://127.0.0.1:$PORT/__faults__"; }
  # A fresh bucket holding OP's starting state.
  bucket() { # OP
    curl -s -X POST "http://127.0.0.1:$PORT/moto-api/reset" >/dev/null
    curl -s -X PUT -H "Content-Length: 0" "http://127.0.0.1:$PORT/faults-wh" >/dev/null
    faults 0
    case $1 in
      s3-ingest) ph "$URL" --quiet ingest --suite s "$W/first.jsonl" >/dev/null ;;
      s3-compact) for i in 1 2 3; do ph "$URL" --quiet ingest --suite s "$W/c$i.jsonl" >/dev/null; done ;;
      s3-gc)
        for i in 1 2; do ph "$URL" --quiet ingest --suite s "$W/c$i.jsonl" >/dev/null; done
        # Leftovers: a push that died before its runs object (every write from its 4th on fails),
        # and a compaction that never committed (every write from its 4th on fails).
        faults 4 1; ph "$URL" --quiet ingest --suite s "$W/c3.jsonl" >/dev/null 2>&1
        faults 4 1; ph "$URL" --quiet compact >/dev/null 2>&1
        faults 0 ;;
    esac
  }
  s3op() { # OP
    case $1 in
      s3-ingest) ph "$URL" ingest --suite s --label fault=1 "$W/in.jsonl" ;;
      s3-compact) ph "$URL" compact ;;
      s3-gc) ph "$URL" gc --grace 0s ;;
    esac
  }
  s3rows() { scalar "$URL" "select (select count(*) from runs) || '/' || (select count(*) from requests) || '/' || (select count(*) from trials) || '/' || (select count(*) from artifacts)"; }
  s3problems() { ph "$URL" check 2>/dev/null | sed -nE 's/.*: ([0-9]+) problems, ([0-9]+) leftovers.*/\1/p'; }
  for o in $S3_OPS; do
    bucket "$o"; BASE=$(s3rows); faults 0
    s3op "$o" >/dev/null 2>&1
    total=$(seen | grep -c .)
    seen > "$W/requests-$o.log"
    reached=0; named=0; tolerated=0; after=0; bad=0
    for n in $(seq 1 "$total"); do
      bucket "$o"; faults "$n"
      s3op "$o" >/dev/null 2> "$W/err"; rc=$?
      failed=$(seen | grep FAILED | cut -d' ' -f2-)
      faults 0
      [ -n "$failed" ] || continue
      reached=$((reached + 1))
      p=$(s3problems); rows=$(s3rows); why=""
      case $o in
        s3-ingest)
          new=$(scalar "$URL" "select count(*) from runs where labels like '%fault%'")
          reqs=$(scalar "$URL" "select count(*) from requests q join runs r using (run_id) where r.labels like '%fault%'")
          if [ "$new" = 1 ] && [ "$reqs" = $REC ]; then s=whole; elif [ "$new" = 0 ]; then s=none; else s="partial: $new runs, $reqs requests"; fi
          # What a failed push kept is pushed again: the run lands whole.
          if [ $rc != 0 ]; then
            dir=$(grep -o 'the results are kept in [^;]*' "$W/err" | head -1 | sed 's/the results are kept in //')
            if [ -n "$dir" ] && [ -d "$dir" ]; then
              ph "$URL" --quiet import "$dir" >/dev/null 2>&1
              again=$(scalar "$URL" "select count(*) from requests q join runs r using (run_id) where r.labels like '%fault%'")
              [ "$again" = $REC ] || why="pushed again, the run holds $again requests, not $REC"
            elif [ "$s" != whole ]; then why="failed without keeping its results"; fi
          fi ;;
        *) if [ "$rows" = "$BASE" ]; then s=whole; else s="rows changed: $rows, expected $BASE"; fi ;;
      esac
      if [ -n "$why" ]; then :
      elif grep -q panicked "$W/err" || [ $rc -ge 100 ]; then why="panicked (rc $rc)"
      elif [ "$p" != 0 ]; then why="check: $p problems"
      elif [ "$s" != whole ] && [ "$s" != none ]; then why="$s"
      elif [ $rc = 0 ] && [ "$s" = none ]; then why="exit 0 but nothing done"
      elif [ $rc != 0 ] && ! grep -q "injected fault\|403" "$W/err"; then why="exit $rc without naming the cause: $(head -c 300 "$W/err")"
      fi
      if [ -n "$why" ]; then bad=$((bad + 1)); BAD+=("$o N=$n ($failed): $why")
      elif [ $rc = 0 ]; then tolerated=$((tolerated + 1)); echo "$o request N=$n $failed" >> "$W/tolerated"
      elif [ "$s" = whole ] && [ "$o" = s3-ingest ]; then after=$((after + 1)); echo "$o request N=$n $failed" >> "$W/after"
      else named=$((named + 1)); fi
    done
    printf '%-9s %-7s %-12s %7s %9s %8s %8s %6s %6s\n' "$o" request "$total" "$reached" "$named" "$after" "$tolerated" - "$bad"
    ROWS+=("| $o | write request (PUT, copy, multipart, DELETE) | $total | $reached | $named | $after | $tolerated | – | $bad |")
  done
elif [ -n "$S3_OPS" ]; then
  echo "object-store part skipped: no .venv with moto (tests/run.sh installs it)"
fi

echo
echo "| operation | call | points (calls made) | failed | exit 1 naming the cause, nothing of it visible | exit 1 naming the cause, landed whole | exit 0, done whole | left leftovers (one gc cleared them) | broke a rule |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${ROWS[@]}"
if [ -s "$W/tolerated" ]; then echo; echo "exit 0 with the call failed (where):"; cut -d' ' -f1,2,4- "$W/tolerated" | sed -E 's#/tmp/perfhouse-wfaults\.[^/]+/wh##; s#/faults-wh/prefix##' | sort | uniq -c; fi
if [ -s "$W/after" ]; then echo; echo "exit 1 after the result landed (where):"; cut -d' ' -f1,2,4- "$W/after" | sed -E 's#/tmp/perfhouse-wfaults\.[^/]+/wh##; s#/faults-wh/prefix##' | sort | uniq -c; fi
echo
echo "${#BAD[@]} cases broke a rule"
printf '  %s\n' "${BAD[@]}"
[ ${#BAD[@]} = 0 ]
