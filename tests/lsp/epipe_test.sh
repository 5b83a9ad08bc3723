#!/usr/bin/env bash
# The client vanishes: the reader of the server's stdout goes away. The server must notice
# the broken pipe (SIGPIPE is ignored, write fails with EPIPE) and exit quietly, promptly.
set -u
ff="$1"
frame() { printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"; }
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
req='{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"firstfault.runVerification","arguments":["x"]}}'
start=$(date +%s%N)
# head reads the first bytes and exits; the server's later writes hit a closed pipe while its
# stdin stays open (the subshell keeps sending), so only EPIPE can end it.
{ frame "$init"; sleep 0.3; for i in $(seq 1 50); do frame "$req"; sleep 0.05; done; sleep 5; } |
  "$ff" lsp --log-level debug 2>/tmp/ff_epipe_$$.log | head -c 20 >/dev/null
status=("${PIPESTATUS[@]}")
ms=$(( ($(date +%s%N) - start) / 1000000 ))
log=$(cat /tmp/ff_epipe_$$.log); rm -f /tmp/ff_epipe_$$.log
if ! grep -q "stdout closed by the client" <<<"$log"; then
  echo "FAIL: the server did not report the closed stdout"; echo "$log" | tail -5
  echo "0 passed, 1 failed"; exit 1
fi
if grep -qi "terminate\|abort\|segmentation" <<<"$log"; then
  echo "FAIL: the server crashed"; echo "$log" | tail -5; echo "0 passed, 1 failed"; exit 1
fi
echo "PASS epipe (server exit status ${status[1]}, pipeline ${ms} ms)"
echo "1 passed, 0 failed"
