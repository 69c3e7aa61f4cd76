#!/usr/bin/env bash
# The measured command: aiperf's closed loop at $concurrency against the trial's frontend.
set -euo pipefail
ROOT=${DYNENV:-/tmp/dynenv}
exec "$ROOT/aiperf/bin/aiperf" profile --model mini --url http://127.0.0.1:${PORT:-8000} --endpoint-type chat \
  --streaming --concurrency "$concurrency" --request-count "${REQUESTS:-200}" --warmup-request-count "${WARMUP:-16}" --tokenizer local/mini \
  --isl 200 --osl 40 --artifact-dir "$PERFHOUSE_TRIAL_DIR/aiperf" --ui-type none
