#!/usr/bin/env bash
# The test command: installs what the tests need when it is missing, then runs `cargo test`.
#   - Python's duckdb and pyarrow in .venv (the interop test reads the warehouse with them)
#   - Debian's linux-perf (runner profiling and counter tests), gcc (the profiled test program),
#     time (GNU time: the peak-RSS test), valgrind (the [valgrind] test), zstd and
#     bzip2 (the bundled compressor plan), procps (pkill), chromium (the browser test) — via
#     apt when missing and root
#   - jq, curl, shellcheck, nodejs, npm, python3-yaml (the GitHub Action's scripts and their lint)
#   - the object-store and engine tests: moto's S3 server and pyspark in .venv, Java for Spark
#     (Debian's default-jre-headless), and DuckDB 1.4.4 with its httpfs extension from PyPI
#     (duckdb-ext-httpfs) in .venv/duckdb-httpfs, since the httpfs build must match DuckDB's
# Then the tests, in release: `cargo test --release --locked`, with the features the demo is
# built with, so they reuse the demo's build of DataFusion and every other dependency
# (`cargo run --release -- demo` first, then this: DataFusion is compiled once; BENCHMARKS.md
# "The first hour"). Before them: nothing outside the clone is read (no path into the team's
# shared folder in src/, tests/, benches/, .ci/) and `cargo fmt --check`.
# `tests/run.sh --ci` adds what CI adds (.ci/run calls it): `cargo clippy --all-targets
# --all-features --locked -- -D warnings`, `.ci/lint-actions.sh` (actionlint and ShellCheck on the
# action and the workflows), the book (`mdbook build docs`; mdBook installed by `cargo install`
# when missing), and the tests that need the `s3` feature (the bucket warehouse on moto), in a
# debug build with every feature.
# Other arguments go to `cargo test --release` (e.g. `tests/run.sh views`): a focused run, no
# gates.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/perfhouse-target}

missing=()
command -v perf >/dev/null || missing+=(linux-perf)
command -v gcc >/dev/null || missing+=(gcc)
command -v zstd >/dev/null || missing+=(zstd)
command -v xz >/dev/null || missing+=(xz-utils)
command -v pkill >/dev/null || missing+=(procps)
# The runner's peak-RSS test compares with GNU time; [valgrind] plans and their test.
[ -x /usr/bin/time ] || missing+=(time)
command -v valgrind >/dev/null || missing+=(valgrind)
command -v taskset >/dev/null || missing+=(util-linux)
command -v chromium >/dev/null || missing+=(chromium)
command -v git >/dev/null || missing+=(git)
# The GitHub Action's scripts and their lint (.ci/lint-actions.sh, tests/it/github_action.rs).
command -v jq >/dev/null || missing+=(jq)
command -v curl >/dev/null || missing+=(curl)
command -v shellcheck >/dev/null || missing+=(shellcheck)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
python3 -c 'import yaml' 2>/dev/null || missing+=(python3-yaml)
command -v java >/dev/null || missing+=(default-jre-headless)
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
if ! .venv/bin/python -c 'import moto, pyspark' 2>/dev/null; then
  echo "tests/run.sh: installing moto[server] and pyspark into .venv"
  .venv/bin/pip install --quiet --disable-pip-version-check "moto[server]" pyspark
fi
if [ ! -d .venv/duckdb-httpfs/duckdb_ext ]; then
  echo "tests/run.sh: installing duckdb 1.4.4 and duckdb-ext-httpfs into .venv/duckdb-httpfs"
  .venv/bin/pip install --quiet --disable-pip-version-check --target .venv/duckdb-httpfs \
    duckdb==1.4.4 duckdb-ext-httpfs==1.4.4.20260205
fi
export PERFHOUSE_PYTHON="$PWD/.venv/bin/python"
export PERFHOUSE_MOTO="$PWD/.venv/bin/moto_server"
export PERFHOUSE_DUCKDB_HTTPFS="$PWD/.venv/duckdb-httpfs"
# PERFHOUSE_BLESS=1 rewrites the golden outputs (tests/golden/, and insta's tests/snapshots/).
if [ "${PERFHOUSE_BLESS:-}" = 1 ]; then export INSTA_UPDATE=always; fi
# DataFusion plans recurse deeply; debug builds need more than the default 2 MiB test stacks.
export RUST_MIN_STACK=${RUST_MIN_STACK:-8388608}

# The repository must pass its tests with nothing beside it: the one place that names the
# team's shared folder is src/fixtures_dir.rs (the third-party fixtures' resolver, used by the
# tests' fixture helper, build.rs and the demo); tests that read a third-party file say so in
# their ignore reason. Comments and prose may name it.
if git grep -nE '\.\./shared\b' -- src tests benches .ci datasets build.rs \
    ':!src/fixtures_dir.rs' ':!tests/run.sh' ':!.ci/run' ':!*.md' 2>/dev/null |
  grep -v 'ignore = "needs ../shared/fixtures: a clone without it"' |
  grep -vE '^[^:]+:[0-9]+:\s*(//|#)'; then
  echo "tests/run.sh: the lines above read outside the clone (resolve third-party fixtures through src/fixtures_dir.rs)" >&2
  exit 1
fi
if [ ! -d "${PERFHOUSE_FIXTURES:-../shared/fixtures}" ]; then
  echo "tests/run.sh: no ../shared/fixtures beside this clone: the tests that read other projects' files are ignored (listed as 'ignored, needs ../shared/fixtures')"
fi
ci=
if [ "${1:-}" = --ci ]; then ci=1; shift; fi
test_release() { cargo test --release --locked "$@"; }
if [ $# -eq 0 ]; then
  cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
  cargo fmt --check
fi
if [ $# -eq 0 ] && [ -n "$ci" ]; then
  cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
  cargo clippy --all-targets --all-features --locked --quiet -- -D warnings
  bash .ci/lint-actions.sh
  # The book (docs/): built so a broken SUMMARY.md or chapter fails here; its CLI examples
  # are checked against --help by the `docs` tests. mdBook comes from crates.io (Debian has
  # none), without its file watcher and web server (~3 min to build once on 2 cores).
  if ! mdbook --version 2>/dev/null | grep -q "v0.5.4"; then
    echo "tests/run.sh: installing mdbook 0.5.4 (cargo install)"
    cargo install --quiet --locked mdbook --version 0.5.4 --no-default-features --features search
  fi
  rm -rf "$CARGO_TARGET_DIR/book"
  mdbook build docs --dest-dir "$CARGO_TARGET_DIR/book"
  test -f "$CARGO_TARGET_DIR/book/index.html"
fi
if [ $# -eq 0 ]; then
  # The unit tests and tests/it, then tests/timing alone and one test at a time: those measure
  # real processes' time and CPU, which the rest of the suite (or each other) would disturb.
  log=$(mktemp)
  test_release --lib --bins --test it 2>&1 | tee "$log"
  test_release --doc
  RUST_TEST_THREADS=1 test_release --test timing
  if [ -n "$ci" ]; then
    # The bucket warehouse (s3://, on moto): the tests that need the `s3` feature, in a debug
    # build with every feature (the build clippy's check mode and CI's cache already share
    # most of; a release build with the cloud clients would compile DataFusion again).
    cargo test --locked --all-features --test it -- object_store:: engines::
  fi
  # What was left out here, by its reason (a clone without ../shared/fixtures; a build
  # without the s3 feature), not the hand-run timings that are ignored everywhere.
  # (With --ci, the s3 ones ran just above.)
  left_out=$(grep -E '\.\.\. ignored, needs ' "$log" | { [ -n "$ci" ] && grep -v 'needs the s3 feature' || cat; } | sed 's/^test /  /' || true)
  if [ -n "$left_out" ]; then
    echo "tests/run.sh: ignored here, by reason:"
    echo "$left_out"
  fi
  rm -f "$log"
else
  test_release "$@"
fi
