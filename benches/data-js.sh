#!/usr/bin/env bash
# Issue 41 item 5: the import of a large github-action-benchmark history in bounded memory.
# Makes DATA_JS repeated REPEATS times (fresh commit ids, dates moved on, `repoUrl` last as in
# the action's own history: benches/data_js_repeat.py), then imports it into an empty
# warehouse under /usr/bin/time -v and prints wall time and peak RSS.
# Usage: data-js.sh DATA_JS REPEATS [PERFHOUSE=target/release/perfhouse] [DIR=/tmp/data-js-bench]
# Any real data.js works, e.g. a gh-pages checkout's dev/bench/data.js (keep it out of the
# repository: it is another project's file).
set -eu
SRC=${1:?data.js}; N=${2:?repeats}; BIN=${3:-target/release/perfhouse}; DIR=${4:-/tmp/data-js-bench}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$DIR"
BIG="$DIR/data-x$N.js"
[ -f "$BIG" ] || python3 "$HERE/data_js_repeat.py" "$SRC" "$BIG" "$N"
ls -l "$BIG"
rm -rf "$DIR/wh"
/usr/bin/time -v "$BIN" --warehouse "$DIR/wh" ingest --suite big "$BIG" 2> "$DIR/time.txt"
grep -E "Elapsed|Maximum resident|User time|System time|Exit status" "$DIR/time.txt"
