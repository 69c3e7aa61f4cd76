#!/usr/bin/env bash
# A site build at scale, in bounded memory (issue 27 item 8): RUNS runs × ROWS request rows
# (`perfhouse synth`: the bundled Dynamo capture's real records cycled with seeded jitter, each
# run labelled synthetic=replicated-real-records), then `perfhouse site` into an empty
# directory, again with nothing new, and after one more run, each a whole process under
# /usr/bin/time (wall, peak RSS).
# Usage: benches/site_scale.sh [RUNS] [ROWS]   (default 10000 × 10000)
#   BEFORE=/path/to/an/older/perfhouse measures that binary's full build too, in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
RUNS=${1:-10000}; ROWS=${2:-10000}
WH=${BENCH_WAREHOUSE:-/tmp/perfhouse-scale-$RUNS-$ROWS}
cargo build --release --quiet
BIN=$CARGO_TARGET_DIR/release/perfhouse
if [ ! -d "$WH/runs" ]; then
  /usr/bin/time -f "synth: %e s, %M KB peak" "$BIN" --warehouse "$WH" -q synth --runs "$RUNS" --rows "$ROWS" --trials 1 --batch 100
fi
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r); $(date -u +%F)"
echo "warehouse: $(du -sh "$WH" | cut -f1), $("$BIN" --warehouse "$WH" query 'select count(*) as n from runs' --format csv | tail -1) runs"
t() { /usr/bin/time -f "%e s, %M KB peak, exit %x" "$@" 2>&1 >/dev/null | tail -1; }
SITE=$WH.site
if [ -n "${BEFORE:-}" ]; then
  rm -rf "$SITE"
  echo "before ($BEFORE): site, full build: $(t "$BEFORE" --warehouse "$WH" site --out "$SITE")"
fi
rm -rf "$SITE"
echo "site, full build into an empty directory: $(t "$BIN" --warehouse "$WH" site --out "$SITE")"
echo "site again, nothing new: $(t "$BIN" --warehouse "$WH" site --out "$SITE")"
"$BIN" --warehouse "$WH" -q synth --runs 1 --rows "$ROWS" --trials 1 --seed "$(date +%s)"
echo "site after one new run: $(t "$BIN" --warehouse "$WH" site --out "$SITE")"
echo "site: $(du -sh "$SITE" | cut -f1) in $(find "$SITE" -type f | wc -l) files"
