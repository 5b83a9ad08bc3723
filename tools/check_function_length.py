#!/usr/bin/env python3
"""Fails when a function in server/src or extension/src is longer than the limit (default
120 lines, issue 29: a function a reader holds in mind). C++ functions are found with
Universal Ctags (their start and end lines), TypeScript ones with the TypeScript compiler's
parser (tools/function_lengths.js). A function's length counts the lines of the lambdas and
nested functions inside it. Usage: tools/check_function_length.py [--max N] [--list N]"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tracked(prefixes, suffixes):
    out = subprocess.run(["git", "ls-files", *prefixes], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    return [f for f in out if f.endswith(suffixes)]


def cpp_functions(files):
    if not files:
        return []
    out = subprocess.run(["ctags", "--output-format=json", "--fields=+ne", "--kinds-C++=f",
                          "--language-force=C++", "-o", "-", *files], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or "end" not in tag or tag["name"].startswith("__anon"):
            continue
        name = (tag.get("scope", "") + "::" + tag["name"]).lstrip(":")
        found.append((tag["end"] - tag["line"] + 1, "%s:%d" % (tag["path"], tag["line"]), name))
    return found


def ts_functions(files):
    if not files:
        return []
    out = subprocess.run(["node", os.path.join("tools", "function_lengths.js"), *files],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        n, where, name = line.split(" ", 2)
        if name != "<anonymous>" or int(n) > 0:
            found.append((int(n), where, name))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=120, help="the longest a function may be")
    ap.add_argument("--list", type=int, metavar="N", help="list every function over N lines")
    args = ap.parse_args()
    funcs = cpp_functions(tracked(["server/src"], (".cpp", ".hpp", ".h", ".cc")))
    funcs += ts_functions(tracked(["extension/src"], (".ts",)))
    if not funcs:
        print("check_function_length: no functions found (is ctags installed?)", file=sys.stderr)
        return 2
    if args.list is not None:
        for n, where, name in sorted((f for f in funcs if f[0] > args.list), reverse=True):
            print("%5d lines  %s  %s" % (n, where, name))
        return 0
    over = sorted((f for f in funcs if f[0] > args.max), reverse=True)
    for n, where, name in over:
        print("%s: %s is %d lines (at most %d): split it by meaning" % (where, name, n, args.max))
    print("check_function_length: %d functions, %d over %d lines" % (len(funcs), len(over), args.max))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
