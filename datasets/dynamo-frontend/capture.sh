#!/usr/bin/env bash
# Captures the bundled dynamo-frontend dataset: the real Dynamo frontend (HTTP + tokenizer + KV
# router) against a real mock worker, under aiperf's closed loop. Every trial starts a fresh
# frontend and mocker (servers accumulate state) and tears both down after.
# Usage: bash datasets/dynamo-frontend/capture.sh OUT [REPEATS]   (after datasets/scripts/dynamo-env.sh)
set -euo pipefail
OUT=$(realpath -m "${1:?output directory}")
REPEATS=${2:-4}
ROOT=${DYNENV:-/tmp/dynenv}
export HF_HUB_OFFLINE=1
mkdir -p "$OUT"
pids=()
stop() { for p in "${pids[@]:-}"; do [ -n "$p" ] && kill -TERM -- "-$p" 2>/dev/null || true; done; sleep 1
         for p in "${pids[@]:-}"; do [ -n "$p" ] && kill -KILL -- "-$p" 2>/dev/null || true; done; pids=(); }
trap stop EXIT
for r in $(seq 0 $((REPEATS - 1))); do
  for c in 8 32; do
    for arm in default fastokens; do   # interleaved: A, B, A, B …
      dir="$OUT/arm=$arm/concurrency=$c/repeat=$r"; mkdir -p "$dir"
      kv=$(mktemp -d); port=8000
      DYN_FILE_KV=$kv setsid "$ROOT/dyn/bin/python" -m dynamo.mocker --model-path "$ROOT/model" --model-name mini \
        --discovery-backend file --request-plane tcp --event-plane zmq --block-size 64 --speedup-ratio 50 \
        >"$dir/mocker.log" 2>&1 & pids+=($!)
      DYN_FILE_KV=$kv setsid "$ROOT/dyn/bin/python" -m dynamo.frontend --http-port $port --discovery-backend file \
        --request-plane tcp --event-plane zmq --router-mode kv --kv-cache-block-size 64 --tokenizer "$arm" \
        >"$dir/frontend.log" 2>&1 & pids+=($!)
      for _ in $(seq 1 240); do curl -sf localhost:$port/v1/models 2>/dev/null | grep -q '"mini"' && break; sleep 0.5; done
      "$ROOT/aiperf/bin/aiperf" profile --model mini --url http://127.0.0.1:$port --endpoint-type chat --streaming \
        --concurrency $c --request-count 200 --warmup-request-count 16 --tokenizer local/mini --isl 200 --osl 40 \
        --artifact-dir "$dir/aiperf" --ui-type none >"$dir/aiperf.log" 2>&1
      stop; rm -rf "$kv"
      echo "done arm=$arm concurrency=$c repeat=$r"
    done
  done
done
