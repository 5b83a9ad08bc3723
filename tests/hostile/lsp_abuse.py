#!/usr/bin/env python3
"""`firstfault lsp` under abuse, through the binary's stdio only.

Usage: lsp_abuse.py FIRSTFAULT
Prints one line per failed check and `N passed, M failed`; exits non-zero on failure.
"""
import faulthandler
import json
import os
import subprocess
import sys
import threading
import time

FF = sys.argv[1]
faulthandler.dump_traceback_later(50, exit=True)
passed = 0
failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name}" + (f" ({detail})" if detail else ""), flush=True)


def frame(obj):
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Server:
    def __init__(self, *args, reader=True):
        self.p = subprocess.Popen([FF, "lsp", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.msgs = []
        self.cv = threading.Condition()
        self.stderr = b""
        if reader:
            threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._err, daemon=True).start()

    def _err(self):
        for line in self.p.stderr:
            self.stderr += line

    def _read(self):
        try:
            self._read_frames()
        except (ValueError, OSError):
            pass

    def _read_frames(self):
        f = self.p.stdout
        while True:
            headers = {}
            while True:
                line = f.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.partition(b":")
                headers[k.strip().lower()] = v.strip()
            n = int(headers.get(b"content-length", b"0"))
            body = f.read(n)
            try:
                msg = json.loads(body)
            except ValueError:
                msg = {"__unparsable__": body[:200].decode("latin-1")}
            with self.cv:
                self.msgs.append(msg)
                self.cv.notify_all()

    def write(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, obj):
        self.write(frame(obj))

    def wait_for(self, pred, timeout=10):
        end = time.time() + timeout
        with self.cv:
            while True:
                for i, m in enumerate(self.msgs):
                    if pred(m):
                        return self.msgs.pop(i)
                left = end - time.time()
                if left <= 0:
                    return None
                self.cv.wait(left)

    def response(self, id_, timeout=10):
        return self.wait_for(lambda m: m.get("id") == id_ and ("result" in m or "error" in m), timeout)

    def error_with(self, code, timeout=10):
        return self.wait_for(lambda m: isinstance(m.get("error"), dict) and m["error"].get("code") == code, timeout)

    def rss_kb(self, field="VmRSS"):
        try:
            for line in open(f"/proc/{self.p.pid}/status"):
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        except OSError:
            pass
        return -1

    def exit_within(self, seconds):
        try:
            return self.p.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return None

    def initialize(self):
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"processId": None, "rootUri": None, "capabilities": {}}})
        r = self.response(1)
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        return r


OOM = ("[rank5]:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. "
       "GPU 1 has a total capacity of 79.11 GiB of which 1.02 GiB is free.")
URI = "file:///tmp/ff-hostile/job.log"


def alive(s, name, id_):
    """The server still answers a request after `name`."""
    s.send({"jsonrpc": "2.0", "id": id_, "method": "textDocument/hover",
            "params": {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}}})
    check(f"{name}: server still answers", s.response(id_) is not None)


# --- one long session of abuse ----------------------------------------------------------------
s = Server()
check("initialize", s.initialize() is not None)
s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": URI, "languageId": "log", "version": 1, "text": OOM + "\n"}}})
check("didOpen publishes", s.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics") is not None)

s.write(b"Content-Type: application/json\r\n\r\n{}")
check("header without Content-Length: error", s.wait_for(lambda m: "error" in m) is not None)
alive(s, "no Content-Length", 10)
s.write(b"Content-Length: abc\r\n\r\n")
check("non-numeric Content-Length: error", s.wait_for(lambda m: "error" in m) is not None)
alive(s, "non-numeric Content-Length", 11)
s.write(b"Content-Length: 3\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"x\"}")  # too short
check("Content-Length too short: error", s.wait_for(lambda m: "error" in m) is not None)
alive(s, "short Content-Length", 12)
s.write(frame(b"this is not json"))
check("body not JSON: -32700", s.error_with(-32700) is not None)
for i, bad in enumerate([b"[1,2,3]", b"42", b"{\"foo\":1}", b"{\"jsonrpc\":\"1.0\",\"id\":5,\"method\":\"x\"}",
                         b"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"x\"}",
                         b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":7}"]):
    s.write(frame(bad))
    got = s.error_with(-32600, timeout=10) is not None
    check(f"not JSON-RPC #{i}: -32600", got, bad.decode())
s.send({"jsonrpc": "2.0", "id": 20, "method": "no/such/method"})
check("unknown method: -32601", (s.response(20) or {}).get("error", {}).get("code") == -32601)
alive(s, "JSON-RPC abuse", 13)

# Documents never opened, positions past the end.
never = "file:///never/opened.log"
for i, method in enumerate(["textDocument/hover", "textDocument/codeAction", "textDocument/codeLens",
                            "textDocument/diagnostic"]):
    params = {"textDocument": {"uri": never}, "position": {"line": 0, "character": 0},
              "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
              "context": {"diagnostics": []}}
    s.send({"jsonrpc": "2.0", "id": 30 + i, "method": method, "params": params})
    check(f"{method} on a never-opened document answers", s.response(30 + i) is not None)
s.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": never, "version": 2}, "contentChanges": [{"text": "x"}]}})
s.send({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": never}}})
for i, (line, ch) in enumerate([(99999, 0), (0, 99999), (2**31 - 1, 2**31 - 1), (-1, -5)]):
    s.send({"jsonrpc": "2.0", "id": 40 + i, "method": "textDocument/hover",
            "params": {"textDocument": {"uri": URI}, "position": {"line": line, "character": ch}}})
    check(f"hover at ({line},{ch}) answers", s.response(40 + i) is not None)
s.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 500, "character": 7}, "end": {"line": 900, "character": 1}},
             "text": "past the end\n"}]}})
alive(s, "edit past the end", 14)

# Cancelling finished and unknown requests.
s.send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 14}})
s.send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "never-sent"}})
s.send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {}})
alive(s, "cancelling finished requests", 15)

# Thousands of didChange in one burst.
burst = b"".join(frame({"jsonrpc": "2.0", "method": "textDocument/didChange",
                        "params": {"textDocument": {"uri": URI, "version": 100 + i},
                                   "contentChanges": [{"text": f"step {i}\n{OOM}\n"}]}})
                 for i in range(5000))
t0 = time.time()
s.write(burst)
s.send({"jsonrpc": "2.0", "id": 50, "method": "textDocument/diagnostic",
        "params": {"textDocument": {"uri": URI}}})
r = s.response(50, timeout=30)
check("5000 didChange burst: pull diagnostics answers", r is not None)
check("5000 didChange burst: under 30 s", time.time() - t0 < 30, f"{time.time() - t0:.1f}s")

# A report that would cut a multi-byte character at the event text cap (4096 bytes).
text = OOM + " " + "x" * (4095 - len(OOM) - 1) + "\U0001F600" * 4 + "\n"
s.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": URI, "version": 10000}, "contentChanges": [{"text": text}]}})
s.send({"jsonrpc": "2.0", "id": 55, "method": "workspace/executeCommand",
        "params": {"command": "firstfault.diagnoseText", "arguments": [{"text": text}]}})
r = s.response(55, timeout=15)
check("diagnoseText with a character cut at the cap answers", r is not None)
check("diagnoseText: result, not an error", r is not None and "result" in r, str(r)[:200])
alive(s, "character cut at the cap", 56)

# A gigabyte announced: refused, skipped as it streams, RSS stays small.
rss_before = s.rss_kb()
GB = 1 << 30
s.write(b"Content-Length: %d\r\n\r\n" % GB)
check("1 GB message: refused with an error", s.wait_for(lambda m: "error" in m, timeout=10) is not None)
chunk = b"x" * (1 << 20)
peak = 0
for i in range(GB // len(chunk)):
    s.write(chunk)
    if i % 64 == 0:
        peak = max(peak, s.rss_kb())
peak = max(peak, s.rss_kb())
limit = 1_000_000 if os.environ.get("FF_SANITIZED") == "ON" else 200_000  # ASan shadow memory
check(f"1 GB message: RSS stays under {limit // 1000} MB while it streams", peak < limit, f"{peak} kB, before {rss_before} kB")
alive(s, "after the 1 GB message", 60)
print(f"lsp: RSS before {rss_before} kB, peak while 1 GB streamed {peak} kB, VmHWM {s.rss_kb('VmHWM')} kB")

s.send({"jsonrpc": "2.0", "id": 90, "method": "shutdown"})
check("shutdown answers", s.response(90) is not None)
s.send({"jsonrpc": "2.0", "method": "exit"})
check("exit: code 0", s.exit_within(5) == 0)

# --- stdin closing ends the process promptly --------------------------------------------------
for name, prefix in [("idle", b""), ("mid-header", b"Content-Length: 100\r\n"),
                     ("header without body", b"Content-Length: 100\r\n\r\n{\"jsonrpc\""),
                     ("mid-1GB-body", b"Content-Length: %d\r\n\r\n" % GB + b"x" * 1000)]:
    s = Server()
    s.initialize()
    if prefix:
        s.write(prefix)
    t0 = time.time()
    s.p.stdin.close()
    code = s.exit_within(3)
    check(f"stdin closed ({name}): exits", code is not None)
    check(f"stdin closed ({name}): within 2 s", time.time() - t0 < 2, f"{time.time() - t0:.2f}s")
    check(f"stdin closed ({name}): no signal", code is not None and code >= 0, str(code))

# --- the client vanishes: both pipes close while a request is in flight ------------------------
s = Server(reader=False)  # nobody reads: closing stdout must not wait for a reader thread
s.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"processId": None, "rootUri": None, "capabilities": {}}})
s.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
time.sleep(0.3)
s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": URI, "languageId": "log", "version": 1, "text": OOM * 100}}})
s.send({"jsonrpc": "2.0", "id": 7, "method": "workspace/executeCommand",
        "params": {"command": "firstfault.diagnoseText", "arguments": [{"text": OOM * 1000}]}})
s.p.stdout.close()
t0 = time.time()
s.p.stdin.close()
code = s.exit_within(3)
check("client vanished: exits within 3 s", code is not None, f"{time.time() - t0:.2f}s")
check("client vanished: no crash signal", code is not None and code >= 0 or code == -13, str(code))

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
