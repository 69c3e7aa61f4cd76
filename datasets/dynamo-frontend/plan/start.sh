#!/usr/bin/env bash
# Starts a fresh mock worker and frontend for one trial (setup of ../../plans/dynamo-frontend.toml).
# Both inherit PERFHOUSE_TRIAL_ID, so the runner finds and kills them even though they setsid.
set -euo pipefail
ROOT=${DYNENV:-/tmp/dynenv}
export HF_HUB_OFFLINE=1 DYN_FILE_KV=$PERFHOUSE_TRIAL_DIR/kv
mkdir -p "$DYN_FILE_KV"
setsid "$ROOT/dyn/bin/python" -m dynamo.mocker --model-path "$ROOT/model" --model-name mini \
  --discovery-backend file --request-plane tcp --event-plane zmq --block-size 64 --speedup-ratio "${SPEEDUP:-50}" \
  > "$PERFHOUSE_TRIAL_DIR/mocker.log" 2>&1 < /dev/null &
setsid "$ROOT/dyn/bin/python" -m dynamo.frontend --http-port ${PORT:-8000} --discovery-backend file \
  --request-plane tcp --event-plane zmq --router-mode kv --kv-cache-block-size 64 --tokenizer "${TOKENIZER:-default}" \
  > "$PERFHOUSE_TRIAL_DIR/frontend.log" 2>&1 < /dev/null &
