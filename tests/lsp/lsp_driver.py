#!/usr/bin/env python3
"""Replays JSON-RPC transcripts against `firstfault lsp` (modelled on clangd's lit tests).

Usage: lsp_driver.py FIRSTFAULT REPO_ROOT TRANSCRIPT...

A transcript is a text file of directives, one per line; a line starting with whitespace
continues the previous directive; '#' starts a comment line.

  args --flag ...            extra arguments for `firstfault lsp` (before the first send)
  send JSON                  frame JSON with Content-Length and write it
  raw PYTHON-BYTES-LITERAL   write bytes as they are (b"Content-Length: 3\\r\\n\\r\\n{}x")
  expect [TIMEOUT_S] JSON    wait for an unconsumed message matching JSON (a subset) and
                             consume it; TIMEOUT_S defaults to 10
  expect-none MS JSON        no message matching JSON arrives within MS milliseconds
  versions-increase URI      every publishDiagnostics received for URI so far has a strictly
                             larger version than the one before it
  last-publish URI JSON      the latest publishDiagnostics for URI matches JSON
  burst FROM TO JSON         send JSON once for each i in FROM..TO, ${i} replaced by i (one write)
  stderr-contains [TIMEOUT_S] REGEX   the server's log (stderr) matches REGEX
  close-stdin                close the server's stdin
  exit CODE MS               the server exits with CODE within MS milliseconds of now
  sleep MS

Substitutions in JSON: ${ROOT} (repository root, no trailing slash), ${ROOTURI}
(file://ROOT), @file(PATH) (the JSON string of the file's contents; PATH relative to ROOT),
@repeat(TEXT,N) (JSON string of TEXT repeated N times).

Matching: objects match when every expected key matches; arrays match when every expected
element matches a distinct actual element (any order); strings starting with "re:" are
regular expressions searched in the actual string; "*" matches anything present; other
scalars must be equal; {"$len": N} matches an array of N elements.
"""
import ast
import json
import os
import re
import subprocess
import sys
import threading
import time


class Fail(Exception):
    pass


def matches(exp, act):
    if isinstance(exp, dict):
        if "$len" in exp and len(exp) == 1:
            return isinstance(act, list) and len(act) == exp["$len"]
        if not isinstance(act, dict):
            return False
        return all(k in act and matches(v, act[k]) for k, v in exp.items())
    if isinstance(exp, list):
        if not isinstance(act, list):
            return False
        used = set()
        for e in exp:
            for i, a in enumerate(act):
                if i not in used and matches(e, a):
                    used.add(i)
                    break
            else:
                return False
        return True
    if isinstance(exp, str):
        if exp == "*":
            return True
        if exp.startswith("re:"):
            return isinstance(act, str) and re.search(exp[3:], act, re.S) is not None
    if isinstance(exp, bool) or isinstance(act, bool):
        return exp is act
    return exp == act


class Server:
    def __init__(self, cmd):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.messages = []     # (message, consumed)
        self.all = []
        self.cv = threading.Condition()
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_err(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                try:
                    line = out.readline()
                except (ValueError, OSError):
                    line = b""
                if not line:
                    with self.cv:
                        self.cv.notify_all()
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.decode().partition(":")
                headers[k.strip().lower()] = v.strip()
            n = int(headers["content-length"])
            body = out.read(n)
            msg = json.loads(body)
            with self.cv:
                self.messages.append([msg, False])
                self.all.append(msg)
                self.cv.notify_all()

    def write(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def expect(self, exp, timeout):
        deadline = time.time() + timeout
        with self.cv:
            while True:
                for m in self.messages:
                    if not m[1] and matches(exp, m[0]):
                        m[1] = True
                        return m[0]
                left = deadline - time.time()
                if left <= 0:
                    break
                self.cv.wait(left)
        pending = [m[0] for m in self.messages if not m[1]]
        raise Fail("no message matched %s\nunconsumed: %s" % (
            json.dumps(exp)[:600], json.dumps(pending)[:3000]))


def substitute(text, root):
    text = text.replace("${ROOTURI}", "file://" + root).replace("${ROOT}", root)

    def file_sub(m):
        with open(os.path.join(root, m.group(1)), encoding="utf-8", errors="surrogateescape") as f:
            return json.dumps(f.read())
    text = re.sub(r"@file\(([^)]+)\)", file_sub, text)
    text = re.sub(r"@repeat\(([^,]*),(\d+)\)", lambda m: json.dumps(m.group(1) * int(m.group(2))), text)
    return text


def directives(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                if line.lstrip().startswith("#") or not line.strip():
                    continue
            if line[0] in " \t" and out:
                out[-1] = (out[-1][0], out[-1][1] + "\n" + line)
            else:
                out.append((len(out), line))
    return [d for _, d in out]


def run_transcript(firstfault, root, path):
    server = None
    args = []
    d = ""
    try:
        for d in directives(path):
            word, _, rest = d.partition(" ")
            rest = rest.strip()
            if word == "args":
                args = rest.split()
                continue
            if server is None:
                server = Server([firstfault, "lsp", "--log-level", "debug"] + args)
            if word == "send":
                body = json.dumps(json.loads(substitute(rest, root))).encode()
                server.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            elif word == "raw":
                server.write(ast.literal_eval(substitute(rest, root)))
            elif word == "expect":
                timeout = 10.0
                m = re.match(r"^(\d+(?:\.\d+)?)\s+(.*)$", rest, re.S)
                if m:
                    timeout, rest = float(m.group(1)), m.group(2)
                server.expect(json.loads(substitute(rest, root)), timeout)
            elif word == "expect-none":
                ms, _, j = rest.partition(" ")
                exp = json.loads(substitute(j, root))
                time.sleep(int(ms) / 1000)
                with server.cv:
                    for m in server.messages:
                        if not m[1] and matches(exp, m[0]):
                            raise Fail("unexpected message %s" % json.dumps(m[0])[:1000])
            elif word in ("versions-increase", "last-publish"):
                uri, _, j = rest.partition(" ")
                uri = substitute(uri, root)
                with server.cv:
                    pubs = [m for m in server.all if m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri]
                if word == "versions-increase":
                    vs = [p["params"].get("version") for p in pubs if "version" in p["params"]]
                    if not vs or any(b <= a for a, b in zip(vs, vs[1:])):
                        raise Fail("publishDiagnostics versions for %s: %s" % (uri, vs))
                else:
                    if not pubs or not matches(json.loads(substitute(j, root)), pubs[-1]):
                        raise Fail("last publishDiagnostics for %s: %s" % (
                            uri, json.dumps(pubs[-1] if pubs else None)[:2000]))
            elif word == "burst":
                a, b, j = rest.split(" ", 2)
                j = substitute(j, root)
                data = b""
                for i in range(int(a), int(b) + 1):
                    body = json.dumps(json.loads(j.replace("${i}", str(i)))).encode()
                    data += b"Content-Length: %d\r\n\r\n" % len(body) + body
                server.write(data)
            elif word == "stderr-contains":
                timeout = 10.0
                m = re.match(r"^(\d+(?:\.\d+)?)\s+(.*)$", rest, re.S)
                if m:
                    timeout, rest = float(m.group(1)), m.group(2)
                deadline = time.time() + timeout
                while not re.search(rest, "".join(server.stderr)):
                    if time.time() > deadline:
                        raise Fail("server log does not match %r" % rest)
                    time.sleep(0.02)
            elif word == "close-stdin":
                server.proc.stdin.close()
            elif word == "exit":
                code, _, ms = rest.partition(" ")
                t0 = time.time()
                try:
                    rc = server.proc.wait(timeout=int(ms) / 1000)
                except subprocess.TimeoutExpired:
                    raise Fail("server still running %s ms later" % ms)
                print("    exited with %d after %.0f ms" % (rc, (time.time() - t0) * 1000))
                if rc != int(code):
                    raise Fail("exit code %d, expected %s" % (rc, code))
            elif word == "sleep":
                time.sleep(int(rest) / 1000)
            else:
                raise Fail("unknown directive %r" % word)
        return None
    except Fail as e:
        return "at: %s\n%s" % (d[:300], e)
    except Exception as e:  # noqa: BLE001 - a broken transcript is a failure, not a crash
        return "at: %s\n%s: %s" % (d[:300], type(e).__name__, e)
    finally:
        if server is not None:
            if server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait()
            server.failed_stderr = "".join(server.stderr[-30:])
            run_transcript.last_stderr = server.failed_stderr


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    firstfault, root = sys.argv[1], os.path.abspath(sys.argv[2])
    passed = failed = 0
    for path in sys.argv[3:]:
        t0 = time.time()
        err = run_transcript(firstfault, root, path)
        name = os.path.basename(path)
        if err is None:
            passed += 1
            print("PASS %s (%.2f s)" % (name, time.time() - t0))
        else:
            failed += 1
            print("FAIL %s (%.2f s)\n  %s" % (name, time.time() - t0, err.replace("\n", "\n  ")))
            print("  server stderr (tail):\n    " +
                  getattr(run_transcript, "last_stderr", "").replace("\n", "\n    "))
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
