#!/usr/bin/env bash
# Recreates datasets/tomli/warehouse/ from scratch: one `perfhouse run datasets/plans/tomli.toml`
# per tomli release, oldest first, each with that release installed from PyPI and tomli's git
# repository checked out at its tag (the run's commit).
#
#   datasets/tomli/make.sh                       # from the repository root or anywhere
#   PERFHOUSE=target/release/perfhouse UPSTREAM=/path/to/tomli/clone datasets/tomli/make.sh
#   datasets/tomli/make.sh 2.0.1 2.2.1          # only these releases (still a fresh warehouse)
#
# Needs python3 (3.11 for the figures in README.md) with pip, git, and PyPI and GitHub (or
# UPSTREAM, any clone of github.com/hukkin/tomli with its tags) reachable.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PERFHOUSE=${PERFHOUSE:-perfhouse}
PYTHON=${PYTHON:-python3}
UPSTREAM=${UPSTREAM:-https://github.com/hukkin/tomli.git}
WAREHOUSE=${WAREHOUSE:-$here/warehouse}
# Every release on tomli's main line that PyPI has, in release order: 0.1.0 was never on PyPI,
# 2.2.0 has no files there (2.2.1 followed it the next day), 1.2.3 (2021-12-13) and 2.3.1/2.3.2
# are backports released after 2.0.0 and 2.4.0; 2.4.1 and 2.5.0 (2026) are left out, their tags
# being newer than the clone this history was made from (append them to extend it).
default_versions="0.2.0 0.2.1 0.2.2 0.2.3 0.2.4 0.2.5 0.2.6 0.2.7 0.2.8 0.2.9 0.2.10
  1.0.0 1.0.1 1.0.2 1.0.3 1.0.4 1.1.0 1.2.0 1.2.1 1.2.2
  2.0.0 2.0.1 2.0.2 2.1.0 2.2.1 2.3.0 2.4.0"
versions=${*:-$default_versions}

# Each release as PyPI serves it to this interpreter and platform: from 2.2.0 on, CPython on
# x86_64/aarch64 Linux gets tomli's mypyc-compiled wheel, elsewhere the pure-Python one.
mkdir -p "$here/pkgs"
for v in $versions; do
  if [ ! -d "$here/pkgs/tomli-$v" ]; then
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-deps --only-binary :all: \
      --target "$here/pkgs/tomli-$v" "tomli==$v"
  fi
done

if [ ! -d "$here/upstream/.git" ]; then
  git clone --quiet "$UPSTREAM" "$here/upstream"
fi

rm -rf "$WAREHOUSE"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
n=0
for v in $versions; do
  git -C "$here/upstream" checkout --quiet --detach "refs/tags/$v"
  if [ -n "$(git -C "$here/upstream" status --porcelain)" ]; then
    echo "make.sh: $here/upstream has local changes; the runs would record git_dirty" >&2
    exit 1
  fi
  released=$(git -C "$here/upstream" log -1 --format=%cs)
  wheel=$(sed -n 's/^Tag: //p' "$here"/pkgs/tomli-"$v"/tomli-"$v".dist-info/WHEEL | head -1)
  n=$((n + 1))
  echo "== $n: tomli $v (released $released, wheel $wheel)"
  TOMLI_VERSION=$v "$PERFHOUSE" --warehouse "$WAREHOUSE" run "$root/datasets/plans/tomli.toml" \
    --label "version=$v" --label "released=$released" --label "wheel=$wheel" \
    --label "commit_url=https://github.com/hukkin/tomli/commit/" 2>&1 | tee "$log"
  run_id=$(sed -n 's/^run \([0-9a-f-]*\) landed in suite .*/\1/p' "$log")
  # The release on the run's page and its series' table; where tomli's changelog or commits
  # name a speed change, that too (notes.tsv).
  note="tomli $v, released $released ($wheel wheel)"
  said=$(awk -F '\t' -v v="$v" '$1 == v { print $2 }' "$here/notes.tsv")
  if [ -n "$said" ]; then note="$note; $said"; fi
  "$PERFHOUSE" --warehouse "$WAREHOUSE" --quiet annotate "$run_id" "$note"
done

# No `perfhouse compact`: `perfhouse demo` imports a bundled warehouse by its per-run files
# (named by run id), which compaction merges away.
"$PERFHOUSE" --warehouse "$WAREHOUSE" check
"$PERFHOUSE" --warehouse "$WAREHOUSE" history --suite tomli --changes-only
du -sh "$WAREHOUSE"
