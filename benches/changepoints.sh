#!/usr/bin/env bash
# Change-point accuracy, perfhouse vs Apache Otava, on the same series in one run (BENCHMARKS.md):
# (a) a synthetic grid (shift 0/2/5/10/20 % x noise 1/3 % x length 40/120, SEEDS series a cell;
#     shift 0 = A/A), (b) the bundled Kedro asv history, each series split at its known breaks,
#     scored against benches/kedro-changes.csv (annotated by benches/kedro_labels.py's rule),
# (c) public series whose change points others labelled (benches/changepoints_public.py), read
#     from changepoints-public/ in the team's third-party fixtures folder ($PERFHOUSE_FIXTURES,
#     which this script does not guess: set it, or PERFHOUSE_PUBLIC_CHANGEPOINTS to the folder);
#     skipped, and said so, where absent. Prints the Kedro F1 and the A/A false-positive rate
#     against issue 37's targets, and the public sets' precision/recall/F1 beside Otava's.
# Usage: benches/changepoints.sh [SEEDS=50]
# Needs python3; installs apache-otava into .venv-otava. Builds and uses the release binary,
# or PERFHOUSE_BIN when set (e.g. a debug build: same figures, slower seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${1:-50}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
if [ -n "${PERFHOUSE_BIN:-}" ]; then
  BIN=$PERFHOUSE_BIN
else
  cargo build --release --locked -q
  BIN=$CARGO_TARGET_DIR/release/perfhouse
fi
PUBLIC=${PERFHOUSE_PUBLIC_CHANGEPOINTS:-${PERFHOUSE_FIXTURES:+$PERFHOUSE_FIXTURES/changepoints-public}}
[ -x .venv-otava/bin/python ] || { python3 -m venv .venv-otava && .venv-otava/bin/pip install -q apache-otava==0.8.0; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
"$BIN" --warehouse "$TMP/wh" -q demo --no-plans --out "$TMP/site"
"$BIN" --warehouse "$TMP/wh" history --suite kedro --format json > "$TMP/kedro.json"
echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "date: $(date -u +%F)  perfhouse: $("$BIN" --version)  public sets: $PUBLIC"
echo "command: benches/changepoints.sh $SEEDS  (otava $(.venv-otava/bin/pip show apache-otava 2>/dev/null | awk '/^Version/ {print $2}'))"
.venv-otava/bin/python benches/changepoints.py "$BIN" "$TMP/kedro.json" benches/kedro-changes.csv "$SEEDS" "$PUBLIC"
