#!/usr/bin/env bash
# Site build vs asv publish on the same history: benches/asv-history.sh DIR 1000 20
# builds an asv project of 1,000 commits × 20 series (a real asv result replicated with noise,
# one planted +30 % regression in series 3 after 60 % of the history). Times `asv publish`,
# `perfhouse ingest` of those results, a full `perfhouse site`, an incremental one after one
# more run, and checks that the planted regression is flagged at its commit.
# Usage: benches/site_asv.sh [DIR] [N] [S]
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
cargo build --release --quiet
BIN=$CARGO_TARGET_DIR/release/perfhouse
DIR=${1:-/tmp/perfhouse-asv}; N=${2:-1000}; S=${3:-20}
[ -f "$DIR/proj/results/benchmarks.json" ] && [ "$(ls "$DIR/proj/results/m1" | wc -l)" -gt "$N" ] || \
  bash benches/asv-history.sh "$DIR" "$N" "$S" > /dev/null
WH=$DIR/wh; SITE=$DIR/site
rm -rf "$WH" "$SITE" "$DIR/proj/html"
t() { /usr/bin/time -f "%e s, %M KB peak" "$@" 2>&1 >/dev/null | tail -1; }
echo "asv publish:            $(cd "$DIR/proj" && t ../venv/bin/asv publish)"
echo "perfhouse ingest (asv): $(t "$BIN" --warehouse "$WH" ingest --suite asv "$DIR/proj/results")"
echo "perfhouse site (full):  $(t "$BIN" --warehouse "$WH" site --out "$SITE")"
echo "perfhouse site (again, nothing new): $(t "$BIN" --warehouse "$WH" site --out "$SITE")"
# The build cache (SITE/.perfhouse-cache) is not part of the site: `publish` leaves it out.
bytes() { find "$1" -path '*/.perfhouse-cache' -prune -o -type f -printf '%s\n' | awk '{s+=$1} END {printf "%.2f MB", s/1e6}'; }
count() { find "$1" -path '*/.perfhouse-cache' -prune -o -type f -print | wc -l; }
echo "page weight (file bytes): perfhouse $(bytes "$SITE") in $(count "$SITE") files (build cache $(du -sh "$SITE/.perfhouse-cache" | cut -f1), not published); asv $(bytes "$DIR/proj/html") in $(count "$DIR/proj/html") files"
# One new run (every series gets a point), then an incremental build.
printf '{"metrics": [%s]}' "$(for i in $(seq 0 $((S-1))); do printf '{"name": "bench.time_series_%d", "value": 0.0001, "unit": "s", "better": "lower"}' $i; [ $i -lt $((S-1)) ] && printf ','; done)" > "$DIR/one-more.json"
"$BIN" --warehouse "$WH" -q ingest --suite asv --format metrics-json --commit 0123456789abcdef0123456789abcdef01234567 "$DIR/one-more.json"
echo "perfhouse site (one new run): $(t "$BIN" --warehouse "$WH" site --out "$SITE")"
echo "perfhouse site --full (every page rendered again, bytes compared): $(t "$BIN" --warehouse "$WH" site --out "$SITE" --full)"
"$BIN" --warehouse "$WH" history --suite asv --changes-only --format csv | head -5
planted=$(cd "$DIR/proj" && git rev-list --reverse HEAD | awk -v n="$N" 'NR - 1 > 0.6 * n {print; exit}')
echo "planted regression begins at commit $planted"
