#!/usr/bin/env bash
# The test command: installs what the tests need when it is missing, then runs `cargo test`.
#   - Python's duckdb and pyarrow in .venv (the interop test reads the warehouse with them)
# Extra arguments go to `cargo test` (e.g. `tests/run.sh views`).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}

if ! .venv/bin/python -c 'import duckdb, pyarrow' 2>/dev/null; then
  echo "tests/run.sh: installing duckdb and pyarrow into .venv"
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check duckdb pyarrow
fi
export PERFHOUSE_PYTHON="$PWD/.venv/bin/python"
# DataFusion plans recurse deeply; debug builds need more than the default 2 MiB test stacks.
export RUST_MIN_STACK=${RUST_MIN_STACK:-8388608}

cargo test "$@"
