#!/usr/bin/env python3
"""Fails when a function in server/src or extension/src is longer than the limit (default
120 lines, issue 29: a function a reader holds in mind). C++ functions are found with
Universal Ctags (their start and end lines), TypeScript ones with the TypeScript compiler's
parser (tools/function_lengths.js). A function's length counts the lines of the lambdas and
nested functions inside it.

Functions that were already longer when the check was written are listed, with their length,
in tools/function_length_allowlist.txt: each may shrink, none may grow, and one that is split
below the limit must leave the list (the check says so), so the list only gets shorter.
Usage: tools/check_function_length.py [--max N] [--list N] [--write-allowlist]"""
import argparse
import json
import os
import subprocess
import sys

ALLOWLIST = os.path.join("tools", "function_length_allowlist.txt")
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


def read_allowlist():
    allowed = {}
    path = os.path.join(ROOT, ALLOWLIST)
    if not os.path.exists(path):
        return allowed
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) != 3 or not parts[0].isdigit():
                sys.exit("%s:%d: expected 'LINES FILE NAME'" % (ALLOWLIST, n))
            allowed[(parts[1], parts[2])] = int(parts[0])
    return allowed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=120, help="the longest a function may be")
    ap.add_argument("--list", type=int, metavar="N", help="list every function over N lines")
    ap.add_argument("--write-allowlist", action="store_true",
                    help="write the functions now over the limit to " + ALLOWLIST)
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
    if args.write_allowlist:
        with open(os.path.join(ROOT, ALLOWLIST), "w") as f:
            f.write("# Functions longer than %d lines when tools/check_function_length.py was\n"
                    "# written: LINES FILE NAME. Each may shrink, none may grow; split one below\n"
                    "# the limit and remove its line.\n" % args.max)
            for n, where, name in over:
                f.write("%d %s %s\n" % (n, where.rsplit(":", 1)[0], name))
        print("check_function_length: wrote %d entries to %s" % (len(over), ALLOWLIST))
        return 0
    allowed = read_allowlist()
    problems = []
    seen = set()
    for n, where, name in over:
        key = (where.rsplit(":", 1)[0], name)
        seen.add(key)
        if key not in allowed:
            problems.append("%s: %s is %d lines (at most %d): split it by meaning" %
                            (where, name, n, args.max))
        elif n > allowed[key]:
            problems.append("%s: %s grew to %d lines (%d in %s; at most %d for new code)" %
                            (where, name, n, allowed[key], ALLOWLIST, args.max))
    for key in sorted(set(allowed) - seen):
        problems.append("%s: %s is no longer over %d lines: remove it from %s" %
                        (key[0], key[1], args.max, ALLOWLIST))
    for p in problems:
        print(p)
    print("check_function_length: %d functions, %d over %d lines, %d of them allowed for now" %
          (len(funcs), len(over), args.max, len(over) - sum(1 for p in problems if "split it" in p)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
