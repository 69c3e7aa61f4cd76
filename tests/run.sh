#!/usr/bin/env bash
# The test command: installs what the tests need when it is missing, then runs `cargo test`.
#   - Python's duckdb and pyarrow in .venv (the interop test reads the warehouse with them)
#   - Debian's linux-perf (runner profiling tests), gcc (the profiled test program), zstd and
#     bzip2 (the bundled compressor plan), procps (pkill), chromium (the browser test) — via
#     apt when missing and root
# Extra arguments go to `cargo test` (e.g. `tests/run.sh views`).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}

missing=()
command -v perf >/dev/null || missing+=(linux-perf)
command -v gcc >/dev/null || missing+=(gcc)
command -v zstd >/dev/null || missing+=(zstd)
command -v pkill >/dev/null || missing+=(procps)
command -v taskset >/dev/null || missing+=(util-linux)
command -v chromium >/dev/null || missing+=(chromium)
command -v git >/dev/null || missing+=(git)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "tests/run.sh: installing ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "tests/run.sh: missing ${missing[*]} (not root or no apt): the tests that need them say so" >&2
  fi
fi

if ! .venv/bin/python -c 'import duckdb, pyarrow' 2>/dev/null; then
  echo "tests/run.sh: installing duckdb and pyarrow into .venv"
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check duckdb pyarrow
fi
export PERFHOUSE_PYTHON="$PWD/.venv/bin/python"
# DataFusion plans recurse deeply; debug builds need more than the default 2 MiB test stacks.
export RUST_MIN_STACK=${RUST_MIN_STACK:-8388608}

cargo test "$@"
