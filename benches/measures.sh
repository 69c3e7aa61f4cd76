#!/usr/bin/env bash
# Measures and their own noise (issue 42 item 4; BENCHMARKS.md): one CPU-bound command (gzip -6
# of a fixed file, benches/measures/measures.toml) measured natively (wall, CPU, peak RSS) and
# under valgrind (instructions, estimated cycles: measures-valgrind.toml):
#   1. the A/A: `perfhouse calibrate PLAN --repeats 10 --arm base`, which prints each measure's
#      noise side by side (cv, A/A threshold at 10 vs 10, the smallest change it can call);
#   2. the A/B, 5 repeats: `perfhouse run PLAN`, the candidate doing +1.0 % instructions (a
#      planted loop), then `perfhouse compare` of its two arms (judged by the A/A above), with
#      the line saying which measure decided.
# Usage: benches/measures.sh   (PERFHOUSE_BIN=path skips the release build; needs gcc, valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
BIN=${PERFHOUSE_BIN:-}
if [ -z "$BIN" ]; then
  cargo build --release --quiet
  BIN=$CARGO_TARGET_DIR/release/perfhouse
fi
DIR=$(mktemp -d)
WH=$DIR/wh
for suite in measures measures-valgrind; do
  plan=benches/measures/$suite.toml
  echo "## A/A: perfhouse calibrate $plan --repeats 10 --arm base"
  "$BIN" --warehouse "$WH" calibrate "$plan" --repeats 10 --arm base 2>>"$DIR/log"
  echo
  echo "## A/B, 5 repeats: perfhouse run $plan; perfhouse compare --baseline $suite/base --candidate $suite/candidate"
  "$BIN" --warehouse "$WH" --quiet run "$plan" 2>>"$DIR/log"
  "$BIN" --warehouse "$WH" compare --baseline "$suite/base" --candidate "$suite/candidate"
  echo
done
echo "## CV of the A/B run's own trials, per arm"
"$BIN" --warehouse "$WH" query "select r.suite, t.arm, count(*) as n, \
  round(100 * stddev(t.wall_ms) / avg(t.wall_ms), 3) as wall_cv_pct, \
  round(100 * stddev(t.cpu_ms) / avg(t.cpu_ms), 3) as cpu_cv_pct, \
  round(100 * stddev(t.peak_rss_bytes) / avg(t.peak_rss_bytes), 3) as rss_cv_pct \
  from trial_figures t join runs r using (run_id) where t.kept and r.source = 'runner' \
  group by r.suite, t.arm order by 1, 2"
"$BIN" --warehouse "$WH" query "select r.suite, t.arm, m.name, count(*) as n, \
  round(100 * stddev(m.value) / avg(m.value), 5) as cv_pct, min(m.value) as min, max(m.value) as max \
  from trial_metrics m join trials t using (run_id, trial_id) join runs r using (run_id) \
  where t.kept and r.source = 'runner' group by r.suite, t.arm, m.name order by 1, 2, 3"
echo "(log of the runs: $DIR/log)"
