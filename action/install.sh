#!/usr/bin/env bash
# Installs perfhouse for the GitHub Action: the release binary for this OS and architecture,
# verified against its published SHA-256; where no asset matches, `cargo install` (the action
# caches its root by version).
#   PERFHOUSE_VERSION      version to install (required), e.g. 0.1.0
#   PERFHOUSE_RELEASE_URL  where the assets are (default: this repository's GitHub release)
#   PERFHOUSE_BIN_DIR      where the binary goes (default ~/.local/bin; added to GITHUB_PATH)
#   PERFHOUSE_SOURCE       a source checkout for the fallback (default: crates.io)
#   PERFHOUSE_CARGO_ROOT   cargo install --root of the fallback (default ~/.cache/perfhouse-cargo)
set -euo pipefail
version=${PERFHOUSE_VERSION:?PERFHOUSE_VERSION is required}
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-gnu ;;
  Linux-aarch64 | Linux-arm64) target=aarch64-unknown-linux-gnu ;;
  Darwin-arm64) target=aarch64-apple-darwin ;;
  Darwin-x86_64) target=x86_64-apple-darwin ;;
  *) target=unsupported ;;
esac
asset="perfhouse-v${version}-${target}.tar.xz"
base=${PERFHOUSE_RELEASE_URL:-https://github.com/${PERFHOUSE_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-perfhouse/perfhouse}}/releases/download/v${version}}
bin_dir=${PERFHOUSE_BIN_DIR:-$HOME/.local/bin}
mkdir -p "$bin_dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sha256() { if command -v sha256sum > /dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1; }

if [ "$target" != unsupported ] &&
  curl -fsSL --retry 3 -o "$tmp/$asset" "$base/$asset" 2> /dev/null &&
  curl -fsSL --retry 3 -o "$tmp/$asset.sha256" "$base/$asset.sha256" 2> /dev/null; then
  want=$(cut -d' ' -f1 < "$tmp/$asset.sha256")
  got=$(sha256 "$tmp/$asset")
  if [ "$want" != "$got" ]; then
    echo "::error title=perfhouse install::$asset: SHA-256 $got does not match the published $want"
    exit 1
  fi
  tar -xJf "$tmp/$asset" -C "$tmp"
  install -m 0755 "$tmp/perfhouse" "$bin_dir/perfhouse"
  echo "perfhouse $version ($target) installed from $base/$asset (SHA-256 verified)"
else
  echo "no release binary $asset at $base: building it with cargo install"
  root=${PERFHOUSE_CARGO_ROOT:-$HOME/.cache/perfhouse-cargo}
  if [ -n "${PERFHOUSE_SOURCE:-}" ]; then
    cargo install --locked --features cloud --root "$root" --path "$PERFHOUSE_SOURCE"
  else
    cargo install --locked --features cloud --root "$root" --version "$version" perfhouse
  fi
  ln -sf "$root/bin/perfhouse" "$bin_dir/perfhouse"
fi
if [ -n "${GITHUB_PATH:-}" ]; then
  echo "$bin_dir" >> "$GITHUB_PATH"
fi
