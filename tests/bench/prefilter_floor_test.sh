#!/bin/bash
# ff_prefilter_floor (bench/prefilter_floor.cpp), the benchmark's floor: the catalog's
# prefilter alone over a file. It counts what the prefilter reports; the count must not
# depend on the threads, must be zero on text no rule is about, and the catalog it scans
# with is the one the flags name. Bad usage and unreadable files exit 2 with a message.
# Usage: prefilter_floor_test.sh FF_PREFILTER_FLOOR TESTS_DIR
set -u
floor=$(realpath "$1")
tests=$2
ff=$floor
# shellcheck source=../lib/harness.sh
source "$(dirname "$0")/../lib/harness.sh"
repo=$tests/..

field() {  # field JSON NAME: a number from the tool's one line of JSON
  python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"
}

# A failing job's log, repeated so that two threads each get a share of its lines.
for _ in $(seq 200); do cat "$repo/server/samples/oom-watchdog.log"; done >"$tmp/job.log"
one=$("$floor" -j 1 --runs 1 "$tmp/job.log")
check "one thread exits 0" test $? -eq 0
two=$("$floor" -j 2 --runs 1 "$tmp/job.log")
check "two threads exit 0" test $? -eq 0
m1=$(field "$one" matches)
m2=$(field "$two" matches)
check "the prefilter reports the sample's failure lines ($m1)" test "$m1" -ge 200
check "the same matches on one thread and two ($m1, $m2)" test "$m1" -eq "$m2"
check "two threads when asked" test "$(field "$two" threads)" -eq 2
mem=$("$floor" -j 2 --runs 1 --no-read "$tmp/job.log")
check "--no-read: the same matches as reading ($(field "$mem" matches))" \
  test "$(field "$mem" matches)" -eq "$m2"
entries=$(field "$one" entries)
check "the built-in catalog's entries ($entries)" test "$entries" -ge 500

# Lines no rule is about.
yes 'epoch 3 step 120 loss 0.4187 lr 3.0e-04 tokens/s 182331' | head -50000 >"$tmp/quiet.log"
quiet=$("$floor" --runs 1 "$tmp/quiet.log")
check "no matches on a training loop's prints" test "$(field "$quiet" matches)" -eq 0

# The catalog named by the flags: one built-in rule file alone.
mkdir -p "$tmp/rules"
cp "$repo/rules/cuda-device-busy.json" "$tmp/rules/"
mine=$("$floor" --runs 1 --no-builtin-rules --rules "$tmp/rules" "$tmp/job.log")
check "a one-rule catalog exits 0" test $? -eq 0
check "a one-rule catalog has few entries ($(field "$mine" entries))" \
  test "$(field "$mine" entries)" -lt 20

# Errors.
"$floor" >/dev/null 2>"$tmp/err"
check "no FILE: exit 2" test $? -eq 2
check "no FILE: says so" grep -q "no FILE" "$tmp/err"
"$floor" -j 0 "$tmp/job.log" >/dev/null 2>"$tmp/err"
check "-j 0: exit 2" test $? -eq 2
"$floor" --frobnicate "$tmp/job.log" >/dev/null 2>"$tmp/err"
check "unknown option: exit 2 naming it" grep -q -- "--frobnicate" "$tmp/err"
"$floor" "$tmp" >/dev/null 2>"$tmp/err"
check "a directory: exit 2" test $? -eq 2
"$floor" "$tmp/missing.log" >/dev/null 2>"$tmp/err"
check "unreadable file: exit 2" test $? -eq 2
check "unreadable file: named" grep -q "missing.log" "$tmp/err"

finish
