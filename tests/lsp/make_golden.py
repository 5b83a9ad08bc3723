#!/usr/bin/env python3
"""Writes the server's side of the typed contract with the extension (tests/lsp/golden/).

Usage: make_golden.py FIRSTFAULT REPO_ROOT OUT_DIR [--check]

Runs `firstfault lsp`, opens a real failure log (tests/corpus/horovod-3929/log.txt, from
the Horovod issue tests/corpus/SOURCE.md names; its root cause has a rank, a host and a
confidence) under a fixed URI, and writes what the server publishes for it
(publishDiagnostics params) to OUT_DIR/horovod-3929.diagnostics.json, and the log file
patterns it advertises (initialize's capabilities.experimental.firstfault.logFiles, which
the extension builds its selectors from and checks its manifest against) to
OUT_DIR/log-files.json.
The extension's unit tests (extension/test/unit/golden.test.ts) read that file, so the two
sides cannot drift: regenerate with `make_golden.py build/bin/firstfault . tests/lsp/golden`;
with --check the files are compared with the committed ones instead (ctest lsp.golden_fresh).
"""
import json
import os
import subprocess
import sys

URI = "file:///job/horovod-3929.log"


def frame(msg):
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream):
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise SystemExit("make_golden: the server closed its output")
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    exe, root, out_dir = sys.argv[1:4]
    check = "--check" in sys.argv[4:]
    with open(os.path.join(root, "tests/corpus/horovod-3929/log.txt"), encoding="utf-8") as f:
        text = f.read()
    p = subprocess.Popen([exe, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    p.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"capabilities": {}}}))
    p.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    p.stdin.write(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                         "params": {"textDocument": {"uri": URI, "languageId": "log",
                                                     "version": 1, "text": text}}}))
    p.stdin.flush()
    published = None
    log_files = None
    while published is None:
        m = read_message(p.stdout)
        if m.get("id") == 1:
            log_files = m["result"]["capabilities"]["experimental"]["firstfault"]["logFiles"]
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == URI:
            published = m["params"]
    p.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    p.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    p.stdin.close()
    p.wait(timeout=10)
    files = {"horovod-3929.diagnostics.json": json.dumps(published, indent=2, sort_keys=True) + "\n",
             "log-files.json": json.dumps(log_files, indent=2, sort_keys=True) + "\n"}
    stale = []
    for name, content in files.items():
        path = os.path.join(out_dir, name)
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != content:
                        stale.append(path)
            except OSError:
                stale.append(path)
        else:
            os.makedirs(out_dir, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(content)
    if stale:
        raise SystemExit("make_golden: out of date (regenerate with tests/lsp/make_golden.py "
                         "build/bin/firstfault . tests/lsp/golden): " + ", ".join(stale))


if __name__ == "__main__":
    main()
