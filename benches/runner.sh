#!/usr/bin/env bash
# Runner overhead: `hyperfine -N --runs 200 true` vs a plan of 200 trials of `true` (the whole
# `perfhouse run`, landing included, divided by 200), and the sampler's own CPU at 100 ms:
# perfhouse's user+sys CPU over a 10 s `sleep` trial with and without [sample] (2 processes
# tracked), by GNU time. Usage: benches/runner.sh   (needs hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
cargo build --release --quiet
BIN=$CARGO_TARGET_DIR/release/perfhouse
DIR=$(mktemp -d)
cat > "$DIR/true.toml" <<'T'
suite = "overhead"
[run]
repeats = 200
command = "true"
T
cat > "$DIR/sleep.toml" <<'T'
suite = "sampler"
[run]
command = "sleep 10"
T
cp "$DIR/sleep.toml" "$DIR/sleep-sampled.toml"
cat >> "$DIR/sleep-sampled.toml" <<'T'
[sample]
interval = "100ms"
processes = { sleeper = "^sleep 10", shell = "bash -c sleep" }
T
echo "## hyperfine -N --runs 200 true"
hyperfine -N --runs 200 --warmup 10 true 2>/dev/null | grep -E "Time|Range"
echo "## perfhouse run (200 trials of true), 3 times"
for i in 1 2 3; do
  rm -rf "$DIR/wh"
  /usr/bin/time -f "%e s wall, %U user %S sys" "$BIN" --warehouse "$DIR/wh" --quiet run "$DIR/true.toml" 2>&1 | tail -1
done
echo "## sampler CPU over a 10 s trial (user+sys of perfhouse)"
for p in sleep sleep-sampled; do
  rm -rf "$DIR/wh"
  /usr/bin/time -f "$p: %e s wall, %U user %S sys" "$BIN" --warehouse "$DIR/wh" --quiet run "$DIR/$p.toml" 2>&1 | tail -1
done
"$BIN" --warehouse "$DIR/wh" query "select count(*) as samples, count(distinct scope) as scopes from cpu_samples"
rm -rf "$DIR"
