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

# SARIF columns are UTF-16 code units (SARIF's default columnKind, stated in the run): a
# non-ASCII prefix of 7 bytes and 4 UTF-16 units moves the match by 4 columns, not 7.
sed '62s/^\[rank5\]:/[rank5]:é😀 /' "$sample" >"$tmp/utf8.log"
"$ff" analyze --format sarif "$tmp/utf8.log" >"$tmp/utf8.sarif"
check "sarif: utf8 log exits 0" test $? -eq 0
check "sarif: columns in UTF-16 code units" python3 -c "
import json, re
def region(path):
    d = json.load(open(path))
    assert d['runs'][0]['columnKind'] == 'utf16CodeUnits'
    for r in d['runs'][0]['results']:
        if r['ruleId'] == 'cuda-out-of-memory':
            return r['locations'][0]['physicalLocation']['region']
    raise SystemExit('no cuda-out-of-memory result')
def line(path, n):  # editor line ends: \\r\\n, \\n and a lone \\r
    return re.split(r'\\r\\n|\\r|\\n', open(path, encoding='utf-8', newline='').read())[n - 1]
a = region('$tmp/out.sarif')
b = region('$tmp/utf8.sarif')
assert a['startLine'] == b['startLine']
assert b['startColumn'] == a['startColumn'] + 4, (a, b)
assert b['endColumn'] == a['endColumn'] + 4, (a, b)
ascii_line = line('$sample', a['startLine'])
units = line('$tmp/utf8.log', b['startLine']).encode('utf-16-le')
assert units.decode('utf-16-le').startswith('[rank5]:\u00e9')
got = units[2 * (b['startColumn'] - 1):2 * (b['endColumn'] - 1)].decode('utf-16-le')
assert got and got == ascii_line[a['startColumn'] - 1:a['endColumn'] - 1], got
"

# --fix honours --format json (a versioned document of the edits) and --mask.
mkdir "$tmp/ws"
printf '#!/bin/bash\nMASTER_ADDR=gpu-node-02\npython train.py\n' >"$tmp/ws/run.sh"
fixit() { "$ff" analyze --fix --no-live-topology --workspace "$tmp/ws" --fix-file "$tmp/ws/run.sh" "$@" "$sample"; }
fixit --format json >"$tmp/fix.json"
check "fix json: exit 0" test $? -eq 0
check "fix json: the edits, their diff, versioned" python3 -c "
import json
d = json.load(open('$tmp/fix.json'))
assert d['version'] == 1 and d['kind'] == 'firstfault.fix', d.keys()
assert 'cuda-out-of-memory' in d['rules'], d['rules']
f = [f for f in d['files'] if f['path'] == 'run.sh']
assert len(f) == 1, d['files']
f = f[0]
text = open('$tmp/ws/run.sh').read()
out, last = '', 0
for e in sorted(f['edits'], key=lambda e: e['begin']):
    assert e['startLine'] >= 1 and e['endLine'] >= e['startLine']
    out += text[last:e['begin']] + e['text']; last = e['end']
out += text[last:]
assert 'PYTORCH_CUDA_ALLOC_CONF=' in out and out.endswith('python train.py\n'), out
assert f['diff'].startswith('--- a/run.sh\n+++ b/run.sh\n'), f['diff']
assert f['diff'] in d['diff']
assert 'gpu-node-02' in d['diff']
assert any(a['schema'] == 'firstfault.fix/1' for a in d['actions'])
assert d['applied'] is False
"
fixit --format json --mask >"$tmp/fixm.json"
check "fix json --mask: host masked" python3 -c "
import json
d = json.load(open('$tmp/fixm.json'))
s = json.dumps(d)
assert 'gpu-node-02' not in s and 'host-' in d['diff'], d['diff']
"
fixit --mask >"$tmp/fixm.txt"
check "fix text --mask: host masked" bash -c "! grep -q gpu-node-02 '$tmp/fixm.txt' && grep -q '^+.*PYTORCH_CUDA_ALLOC_CONF' '$tmp/fixm.txt'"
fixit >"$tmp/fix.txt"
check "fix text: host kept without --mask" grep -q gpu-node-02 "$tmp/fix.txt"
fixit --format sarif >/dev/null 2>"$tmp/e"
check "fix sarif: usage error" test $? -eq 2


# NCCL RAS client output (tests/data/ras): the ranks behind, missing or dead are named.
ras=$tests/data/ras
"$ff" analyze "$ras/issue1911-mismatch-ahead.txt" >"$tmp/ras.txt" 2>&1
check "ras text: inverted stuck ranks" grep -q "ranks 0-11,14-31 are behind" "$tmp/ras.txt"
"$ff" analyze --format json "$ras/doc-mismatch-lagging.txt" "$ras/doc-report.json" "$ras/doc-monitor.json" >"$tmp/ras.json"
check "ras json: every form read" python3 -c "
import json
d = json.load(open('$tmp/ras.json'))
r = {x['file'].split('/')[-1]: x for x in d['ras']}
assert r['doc-mismatch-lagging.txt']['stuck_ranks'] == [0, 2, 3, 4, 5, 7], r
assert r['doc-report.json']['stuck_ranks'] == [1], r
assert r['doc-monitor.json']['events'][0]['event'] == 'PEER_DEAD', r
# The conclusions are evidence: the ranks behind initiate, the missing rank of the JSON
# report and the dead process of the monitor event are further evidence
top = d['diagnoses'][0]
assert top['rule'] == 'nccl-ras-ranks-behind' and top['initiating']['rank'] == 0, top
rules = {x['rule'] for x in d['diagnoses']}
assert {'nccl-ras-missing-rank'} <= rules, rules
assert d['verdict']['fault'] in ('workload', 'infrastructure', 'undetermined')
"
mkdir -p "$tmp/rasdir" && cp "$ras/doc-report.json" "$tmp/rasdir/ncclras.json" && echo '{"other": 1}' >"$tmp/rasdir/config.json"
"$ff" analyze --format json "$tmp/rasdir" >"$tmp/rasdir.json" 2>&1
check "ras: a directory's ncclras JSON is read, other JSON is not" python3 -c "
import json
d = json.load(open('$tmp/rasdir.json'))
assert [x['file'].split('/')[-1] for x in d['ras']] == ['ncclras.json'], d
"
printf '{"communicators": [\n' >"$tmp/broken-ras.json"
"$ff" analyze "$tmp/broken-ras.json" "$sample" >"$tmp/o" 2>"$tmp/e"
rc=$?
check "ras: broken JSON is a warning naming file and line" bash -c "test $rc -eq 0 && grep -q 'broken-ras.json:1: not readable as NCCL RAS output' '$tmp/e' && grep -q 'Root cause' '$tmp/o'"
"$ff" analyze "$sample" >"$tmp/v.txt"
check "text: verdict shown" grep -q "^Verdict: workload fault" "$tmp/v.txt"
finish
