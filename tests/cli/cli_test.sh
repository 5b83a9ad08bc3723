#!/bin/bash
# End-to-end checks of the CLI's contract: exit codes, output formats, errors that name the
# input. Usage: cli_test.sh FIRSTFAULT TESTS_DIR
set -u
ff=$1
tests=$2
# shellcheck source=../lib/harness.sh
source "$(dirname "$0")/../lib/harness.sh"
sample=$tests/../server/samples/oom-watchdog.log

"$ff" analyze "$sample" >"$tmp/out.txt" 2>"$tmp/err.txt"
check "analyze sample exits 0" test $? -eq 0
check "text names the root cause" grep -q "Root cause:" "$tmp/out.txt"
check "text names the category" grep -q "category: gpu-oom" "$tmp/out.txt"
check "no colour when not a terminal" bash -c "! grep -q $'\x1b' '$tmp/out.txt'"

"$ff" analyze --format json "$sample" >"$tmp/out.json"
check "json exits 0" test $? -eq 0
check "json is versioned" grep -q '"version": 1' "$tmp/out.json"
check "json has the initiating rank" python3 -c "
import json,sys
d=json.load(open('$tmp/out.json'))
top=d['diagnoses'][0]
assert top['category']=='gpu-oom', top['category']
assert top['initiating']['rank']==5, top['initiating']
assert top['initiating']['line']>=1
assert all(e['role'] in ('initiating','collateral','context') for e in top['evidence'])
assert len(top['collateral'])>=3
"
"$ff" analyze --format sarif "$sample" >"$tmp/out.sarif"
check "sarif 2.1.0" python3 -c "
import json
d=json.load(open('$tmp/out.sarif'))
assert d['version']=='2.1.0'
r=d['runs'][0]['results'][0]
assert r['level']=='error' and r['locations'][0]['physicalLocation']['region']['startLine']>=1
"
printf 'hello\nworld\n' >"$tmp/clean.log"
"$ff" analyze --format json "$tmp/clean.log" >"$tmp/clean.json"
check "clean log: exit 0" test $? -eq 0
check "clean log: no diagnoses" python3 -c "
import json; assert json.load(open('$tmp/clean.json'))['diagnoses']==[]"
cat "$sample" | "$ff" analyze --format json - >"$tmp/stdin.json"
check "stdin works" grep -q '"<stdin>"' "$tmp/stdin.json"

"$ff" analyze "$tmp/does-not-exist.log" >"$tmp/o" 2>"$tmp/e"
check "missing file: exit 2" test $? -eq 2
check "missing file: message names it" grep -q "does-not-exist.log" "$tmp/e"
check "missing file: one line" test "$(wc -l <"$tmp/e")" -eq 1
check "missing file: nothing on stdout" test ! -s "$tmp/o"
"$ff" analyze --format yaml "$sample" >/dev/null 2>"$tmp/e"
check "bad format: exit 2" test $? -eq 2
"$ff" analyze >/dev/null 2>&1
check "no input: exit 2" test $? -eq 2
"$ff" analyze --help >"$tmp/h"
check "help exits 0" test $? -eq 0
check "help lists formats" grep -q "sarif" "$tmp/h"
printf '\x1f\x8b\x08\x00garbage' >"$tmp/c.log.gz"
"$ff" analyze "$tmp/c.log.gz" >/dev/null 2>"$tmp/e"
check "gzip: exit 2" test $? -eq 2
check "gzip: says decompress" grep -q "decompress" "$tmp/e"
mkdir "$tmp/logs"
cp "$sample" "$tmp/logs/node1.log"
"$ff" analyze --format json "$tmp/logs" >"$tmp/dir.json"
check "directory input" grep -q "node1.log" "$tmp/dir.json"
"$ff" analyze /dev/null >/dev/null 2>"$tmp/e"
check "device file: exit 2" test $? -eq 2
mkdir "$tmp/badrules"
echo '{ not json' >"$tmp/badrules/broken.json"
"$ff" analyze --rules "$tmp/badrules" "$sample" >"$tmp/o" 2>"$tmp/e"
check "broken user rule is not fatal" test $? -eq 0
check "broken user rule is named" grep -q "broken.json:1" "$tmp/e"
check "analysis still runs" grep -q "Root cause" "$tmp/o"

finish
