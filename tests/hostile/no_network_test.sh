#!/bin/bash
# Nothing leaves the machine: `analyze`, `topo` and an `lsp` session run under
# `strace -f -e trace=network`; any socket other than AF_UNIX / AF_NETLINK, and any connect(),
# sendto() or sendmsg() to an address, fails the test. Then a static check that the editor
# extension has no network or telemetry code.
# Usage: no_network_test.sh FIRSTFAULT TESTS_DIR
set -u
ff=$1
tests=$2
root=$tests/..
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
skip=0
check() {
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
skipped() { skip=$((skip + 1)); echo "SKIP: $1"; }
# LeakSanitizer stops the world with ptrace, which fails under strace: no leak check here
# (the other tests of the sanitizer build do it).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# No socket but local ones, no connect() at all, no datagram sent to an address.
clean_trace() {  # clean_trace TRACE NAME
  local bad
  bad=$(grep -E '(^|[[:space:]])(socket|socketpair)\(' "$1" | grep -vE '\((AF_UNIX|AF_LOCAL|AF_NETLINK|PF_UNIX|PF_LOCAL|PF_NETLINK),' || true)
  if [ -n "$bad" ]; then echo "$2: non-local socket: $bad"; return 1; fi
  bad=$(grep -E '(^|[[:space:]])connect\(' "$1" || true)
  if [ -n "$bad" ]; then echo "$2: connect: $bad"; return 1; fi
  bad=$(grep -E '(^|[[:space:]])(sendto|sendmsg|sendmmsg)\(' "$1" | grep -E 'sin6?_addr|sa_family=AF_INET' || true)
  if [ -n "$bad" ]; then echo "$2: send to an address: $bad"; return 1; fi
  return 0
}

if ! command -v strace >/dev/null; then
  skipped "strace is not installed (apt-get install strace): network tracing not done"
elif ! strace -f -o /dev/null true 2>/dev/null; then
  skipped "strace cannot trace here (ptrace not permitted in this container): network tracing not done"
else
  trace() {  # trace NAME CMD...: runs CMD under strace, checks the trace
    local name=$1
    shift
    strace -f -qq -e trace=network -o "$tmp/$name.trace" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    local rc=$?
    check "$name: exit 0 (rc=$rc)" test $rc -eq 0
    check "$name: no network" clean_trace "$tmp/$name.trace" "$name"
  }
  sample=$root/server/samples/oom-watchdog.log
  trace analyze-text "$ff" analyze "$sample"
  trace analyze-json "$ff" analyze --format json "$sample"
  trace analyze-sarif-masked "$ff" analyze --format sarif --mask "$sample"
  trace analyze-dir "$ff" analyze --format sarif "$tests/corpus/nccl-1134"
  trace topo-live "$ff" topo --format json
  xml=$(ls "$tests"/data/topologies/hwloc-xml/*.xml 2>/dev/null | head -1)
  [ -n "$xml" ] && trace topo-xml "$ff" topo --xml "$xml"
  smi=$(ls "$tests"/data/topologies/nvidia-smi-topo/*.txt 2>/dev/null | head -1)
  [ -n "$smi" ] && trace topo-smi "$ff" topo --nvidia-smi "$smi"
  # An LSP session: open a log, pull diagnostics, hover, run every command, shut down.
  python3 - "$sample" >"$tmp/session.bin" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
uri = "file://" + sys.argv[1]
msgs = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "log", "version": 1, "text": text}}},
    {"jsonrpc": "2.0", "id": 2, "method": "textDocument/diagnostic", "params": {"textDocument": {"uri": uri}}},
    {"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri}, "position": {"line": 61, "character": 10}}},
    {"jsonrpc": "2.0", "id": 4, "method": "workspace/executeCommand", "params": {"command": "firstfault.diagnoseText", "arguments": [{"text": text}]}},
    {"jsonrpc": "2.0", "id": 5, "method": "workspace/executeCommand", "params": {"command": "firstfault.checkTopology", "arguments": []}},
    {"jsonrpc": "2.0", "id": 6, "method": "workspace/executeCommand", "params": {"command": "firstfault.runVerification", "arguments": [{"command": "curl http://example.com"}]}},
    {"jsonrpc": "2.0", "id": 7, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": uri}}},
    {"jsonrpc": "2.0", "id": 8, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]
for m in msgs:
    b = json.dumps(m).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
EOF
  strace -f -qq -e trace=network -o "$tmp/lsp.trace" timeout 30 "$ff" lsp <"$tmp/session.bin" >"$tmp/lsp.out" 2>"$tmp/lsp.err"
  rc=$?
  check "lsp session: exit 0 (rc=$rc)" test $rc -eq 0
  check "lsp session: answered" grep -q '"id":8' "$tmp/lsp.out"
  check "lsp session: no network" clean_trace "$tmp/lsp.trace" lsp
  # The checker itself: it must see a connect() when there is one.
  if command -v python3 >/dev/null; then
    strace -f -qq -e trace=network -o "$tmp/self.trace" python3 -c "
import socket
s=socket.socket(); s.settimeout(0.2)
try: s.connect(('127.0.0.1', 9))
except OSError: pass" >/dev/null 2>&1
    detects() { ! clean_trace "$1" self >/dev/null; }
    check "the checker itself detects a TCP connect" detects "$tmp/self.trace"
  fi
fi

# The editor extension: no HTTP clients, sockets or telemetry in its sources or dependencies.
ext=$root/extension
if [ ! -d "$ext/src" ]; then
  skipped "extension/src does not exist yet: the extension telemetry check was not run"
else
  hits=$(grep -rnE "(\bfetch\(|XMLHttpRequest|WebSocket|require\(['\"](node:)?(http|https|net|tls|dgram)['\"]\)|from ['\"](node:)?(http|https|net|tls|dgram)['\"]|\baxios\b|node-fetch|undici|got\(|telemetry|TelemetryReporter|applicationinsights|createTelemetryLogger|sendTelemetry|vscode\.env\.openExternal)" "$ext/src" 2>/dev/null |
    grep -vE '^\S+:[0-9]+:\s*(//|\*)' || true)
  check "extension/src: no network or telemetry calls" test -z "$hits"
  [ -n "$hits" ] && echo "$hits"
  if [ -f "$ext/package.json" ]; then
    check "extension/package.json: no telemetry or HTTP dependencies" python3 -c "
import json,sys
p=json.load(open('$ext/package.json'))
deps=dict(p.get('dependencies',{}))
bad=[d for d in deps if any(k in d.lower() for k in ('telemetry','insights','axios','fetch','request','got','undici','analytics','sentry'))]
assert not bad, bad"
  fi
fi

echo "$pass passed, $fail failed, $skip skipped"
test "$fail" -eq 0
