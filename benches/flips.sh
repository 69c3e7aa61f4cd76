#!/usr/bin/env bash
# A flipped byte is never read (issue 39 item 1): one byte flipped at N random places in the
# body of the `requests` file of a real aiperf run (the bundled dynamo-frontend capture, between
# the file's leading magic number and its footer), then `perfhouse query "select * from
# requests order by …"`. Counts errors naming the file, the same answer, and a different answer
# with exit 0 (a value read wrong). BIN=… runs another binary (a build from before checksums,
# for the figure before).
#
# Usage: benches/flips.sh            (N=60)
#        N=200 SEED=7 BIN=/path/to/perfhouse benches/flips.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}
N=${N:-60}
SEED=${SEED:-1}
W=$(mktemp -d /tmp/perfhouse-flips.XXXXXX)
trap 'rm -rf "$W"' EXIT
if [ -z "${BIN:-}" ]; then
  cargo build --quiet --all-features --bin perfhouse || exit 1
  BIN=$CARGO_TARGET_DIR/debug/perfhouse
fi
IN=datasets/dynamo-frontend/data/arm=default/concurrency=32/repeat=1/aiperf/profile_export.jsonl.gz
"$BIN" --warehouse "$W/wh" --quiet ingest --suite flips "$IN" >/dev/null || exit 1
F=$(find "$W/wh/requests" -name '*.parquet' | head -1)
SQL="select * from requests order by start_ns, credit_ns, end_ns"
"$BIN" --warehouse "$W/wh" query "$SQL" --format csv > "$W/want" || exit 1
cp "$F" "$W/orig"
named=0; unnamed=0; same=0; different=0
# Offsets in the body: after the 4-byte magic number, before the footer (its length is the
# little-endian u32 before the trailing magic number).
read -r LEN FOOTER < <(python3 -c "
import struct, sys
b = open(sys.argv[1], 'rb').read()
print(len(b), struct.unpack('<I', b[-8:-4])[0])" "$F")
python3 -c "
import random
r = random.Random($SEED)
for _ in range($N):
    print(r.randrange(4, $LEN - 8 - $FOOTER), r.randrange(1, 256))" > "$W/flips"
while read -r at mask; do
  cp "$W/orig" "$F"
  python3 -c "
import sys
f, at, mask = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(f, 'r+b') as h:
    h.seek(at); b = h.read(1); h.seek(at); h.write(bytes([b[0] ^ mask]))" "$F" "$at" "$mask"
  "$BIN" --warehouse "$W/wh" query "$SQL" --format csv > "$W/got" 2> "$W/err"; rc=$?
  if [ $rc != 0 ]; then
    if grep -qF "$F" "$W/err"; then named=$((named + 1)); else unnamed=$((unnamed + 1)); fi
  elif cmp -s "$W/got" "$W/want"; then same=$((same + 1))
  else different=$((different + 1)); fi
done < "$W/flips"
echo "$N flipped bytes in the body of $(basename "$F") ($LEN bytes, footer $FOOTER) with $BIN:"
echo "$named errors naming the file, $unnamed errors not naming it, $same same answers, $different different answers with exit 0"
