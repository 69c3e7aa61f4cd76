#!/usr/bin/env bash
# Fuzzes every input format for a set time (issue 39 item 3; src/ingest/fuzz.rs): each format's
# real fixtures, mutated, through its sniff, its "came close" check and its parser. Prints the
# table for RELIABILITY.md (executions and distinct outcomes per format) and exits 1 on any
# finding (a panic or a hang), whose input is saved in OUT (default benches/fuzz-findings/).
# Each finding becomes a regression test in the format's module (see RELIABILITY.md).
#
# Usage: benches/fuzz.sh                       (60 s a format, dev profile)
#        SECONDS_EACH=600 PROFILE=release benches/fuzz.sh
#        FORMATS=aiperf,folded SEED=42 benches/fuzz.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
export RUST_MIN_STACK=${RUST_MIN_STACK:-8388608}
SECONDS_EACH=${SECONDS_EACH:-60}
PROFILE=${PROFILE:-debug}
OUT=${OUT:-$PWD/benches/fuzz-findings}
mkdir -p "$OUT"
# --all-features: the build the test suite makes already (the features change what DataFusion links).
args=(--locked --all-features --lib)
[ "$PROFILE" = release ] && args+=(--release)
export PERFHOUSE_FUZZ_SECONDS=$SECONDS_EACH PERFHOUSE_FUZZ_OUT=$OUT PERFHOUSE_FUZZ_QUIET=1
[ -n "${FORMATS:-}" ] && export PERFHOUSE_FUZZ_FORMATS=$FORMATS
[ -n "${SEED:-}" ] && export PERFHOUSE_FUZZ_SEED=$SEED
cargo test "${args[@]}" --no-run --quiet 2>/dev/null || cargo test "${args[@]}" --no-run || exit 1
echo "fuzzing every format for $SECONDS_EACH s ($PROFILE build); findings go to $OUT"
t0=$(date +%s)
cargo test "${args[@]}" --quiet ingest::fuzz::fuzz_every_format -- --nocapture --test-threads 1 > "$OUT/run.log" 2>&1
rc=$?
grep -E '^seed|^\|' "$OUT/run.log"
echo "$(( $(date +%s) - t0 )) s; exit $rc"
if [ $rc != 0 ]; then grep -E 'HANG|panicked|seed' "$OUT/run.log" | head -20; fi
exit $rc
