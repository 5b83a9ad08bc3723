#!/bin/bash
# Summaries end to end (docs/SCALE.md): a generated 512-node job (4096 ranks, one failing),
# split into node-local logs, summarised in node groups with `analyze --summary` and merged,
# must give the JSON diagnosis one run over all the node logs gives: root cause, initiating
# rank, file and line, collateral, confidence, verdict. Also merged in two levels, mixed with
# logs, from a directory of summaries; broken summaries are errors naming file and place.
# Usage: summary_cli_test.sh FIRSTFAULT TESTS_DIR
set -u
ff=$(realpath "$1")
tests=$2
# shellcheck source=../lib/harness.sh
source "$(dirname "$0")/../lib/harness.sh"
repo=$tests/..

python3 "$repo/bench/gen_log.py" 4 "$tmp/job.log" --ranks 4096 --seed 7 --context-density 0.125 \
  >"$tmp/injected.json"
python3 "$tests/summary/split_by_node.py" "$tmp/job.log" "$tmp/nodes" --nodes 512
nodes=("$tmp"/nodes/node-*.log)
check "512 node logs" test "${#nodes[@]}" -eq 512

"$ff" analyze --format json "${nodes[@]}" >"$tmp/one.json"
check "one run exits 0" test $? -eq 0

# Eight groups of 64 nodes, one summary each (as eight nodes' srun tasks would write them).
mkdir -p "$tmp/summaries"
for g in 0 1 2 3 4 5 6 7; do
  "$ff" analyze --summary "${nodes[@]:$((g * 64)):64}" >"$tmp/summaries/group-$g.json"
  check "summary of group $g exits 0" test $? -eq 0
done
sums=("$tmp"/summaries/group-*.json)

same() {  # same NAME ONE MERGED: the diagnoses, verdict and findings are identical
  python3 - "$2" "$3" "$tmp/injected.json" "$tmp/nodes" <<'PY'
import json, sys
one, many, injected = (json.load(open(p)) for p in sys.argv[1:4])
assert one["diagnoses"], "the one run found nothing"
for key in ("files", "diagnoses", "verdict", "findings", "only_victims", "context"):
    assert one[key] == many[key], "%s differs:\n%s\n%s" % (key, json.dumps(one[key])[:2000], json.dumps(many[key])[:2000])
top = many["diagnoses"][0]
init = top["initiating"]
# It points at the original node file and line: the injected rank's line in its node's log.
assert init["rank"] == injected["rank"], init
assert init["file"].endswith("/node-%03d.log" % (injected["rank"] // 8)), init["file"]
lines = open(init["file"], encoding="utf-8").read().split("\n")
assert lines[init["line"] - 1] == init["text"], (init, lines[init["line"] - 1])
assert top["collateral"], "no collateral"
PY
}
"$ff" analyze --format json "${sums[@]}" >"$tmp/merged.json"
check "merge exits 0" test $? -eq 0
check "8 summaries give the one-run diagnosis" same x "$tmp/one.json" "$tmp/merged.json"

"$ff" analyze --format json "$tmp/summaries" >"$tmp/dir.json"
check "a directory of summaries gives the one-run diagnosis" same x "$tmp/one.json" "$tmp/dir.json"

# Two levels: summaries of summaries (a tree of merges for a very big job).
"$ff" analyze --summary "${sums[@]:0:4}" >"$tmp/top-0.json"
"$ff" analyze --summary "${sums[@]:4:4}" >"$tmp/top-1.json"
"$ff" analyze --format json "$tmp/top-0.json" "$tmp/top-1.json" >"$tmp/tree.json"
check "summaries of summaries give the one-run diagnosis" same x "$tmp/one.json" "$tmp/tree.json"

# Logs and summaries mixed, in input order.
"$ff" analyze --format json "${nodes[@]:0:256}" "${sums[@]:4:4}" >"$tmp/mixed.json"
check "logs and summaries mixed give the one-run diagnosis" same x "$tmp/one.json" "$tmp/mixed.json"

# One file per summary (the srun recipe's shape on a node with one log).
for n in 0 1 2; do "$ff" analyze --summary "${nodes[$n]}" >"$tmp/single-$n.json"; done
"$ff" analyze --format json "${nodes[@]:0:3}" >"$tmp/one3.json"
"$ff" analyze --format json "$tmp"/single-{0,1,2}.json >"$tmp/many3.json"
check "single-node summaries agree on three nodes" python3 -c "
import json
a, b = json.load(open('$tmp/one3.json')), json.load(open('$tmp/many3.json'))
assert a['files'] == b['files'] and a['diagnoses'] == b['diagnoses'] and a['context'] == b['context']
"

# Bounded: a summary is small next to the logs it summarises.
check "a 64-node summary is under a fifth of its logs" python3 -c "
import os
logs = sum(os.path.getsize('$tmp/nodes/node-%03d.log' % n) for n in range(64))
assert os.path.getsize('$tmp/summaries/group-0.json') * 5 < logs, (logs, os.path.getsize('$tmp/summaries/group-0.json'))
"

"$ff" analyze --format sarif "${sums[@]}" >"$tmp/merged.sarif"
check "sarif from summaries exits 0 and points at node logs" grep -q '"uri": ".*/node-[0-9]*.log"' "$tmp/merged.sarif"
"$ff" analyze --format sarif "${nodes[@]}" >"$tmp/one.sarif"
check "sarif from summaries is the one run's" cmp -s "$tmp/one.sarif" "$tmp/merged.sarif"
"$ff" analyze "${sums[@]}" >"$tmp/merged.txt"
check "text from summaries names the root cause" grep -q "category: gpu-oom" "$tmp/merged.txt"
"$ff" analyze "${nodes[@]}" >"$tmp/one.txt"
check "text from summaries is the one run's" cmp -s "$tmp/one.txt" "$tmp/merged.txt"

# Node-local paths are often the same on every node: colliding names get the machine's.
mkdir -p "$tmp/a" "$tmp/b"
cp "${nodes[0]}" "$tmp/a/rank.log"
cp "${nodes[1]}" "$tmp/b/rank.log"
(cd "$tmp/a" && "$ff" analyze --summary rank.log | sed 's/"machine": "[^"]*"/"machine": "nodeA"/' >"$tmp/a.json")
(cd "$tmp/b" && "$ff" analyze --summary rank.log | sed 's/"machine": "[^"]*"/"machine": "nodeB"/' >"$tmp/b.json")
"$ff" analyze --format json "$tmp/a.json" "$tmp/b.json" >"$tmp/collide.json"
check "colliding paths are named after their machines" python3 -c "
import json
d = json.load(open('$tmp/collide.json'))
assert [f['path'] for f in d['files']] == ['nodeA:rank.log', 'nodeB:rank.log'], d['files']
"

# Broken summaries: exit 2, the file and the place named.
head -c 3000 "${sums[0]}" >"$tmp/truncated.json"
"$ff" analyze "$tmp/truncated.json" >/dev/null 2>"$tmp/err.txt"
check "truncated summary exits 2" test $? -eq 2
check "truncated summary: file and line:column named" grep -Eq "truncated.json:[0-9]+:[0-9]+: not readable as a firstfault summary" "$tmp/err.txt"
sed 's/"firstfault_summary": 1/"firstfault_summary": 9/' "${sums[0]}" >"$tmp/future.json"
"$ff" analyze "$tmp/future.json" >/dev/null 2>"$tmp/err.txt"
check "future version exits 2" test $? -eq 2
check "future version: named with its place" grep -q "future.json:/firstfault_summary: .*version 9 is not supported" "$tmp/err.txt"
sed '0,/"rule":"[^"]*"/s//"rule":"not-a-rule"/' "${sums[0]}" >"$tmp/unknown.json"
"$ff" analyze "$tmp/unknown.json" >/dev/null 2>"$tmp/err.txt"
check "unknown rule: named with its place" grep -q 'unknown.json:/events/0/rule: .*"not-a-rule"' "$tmp/err.txt"
# Each file's first and last timestamps, its one rank and host, kept by a summary of summaries.
printf '%s\n' "2024-05-01T12:00:01.250Z [rank3]: starting" \
  "[rank3]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB." \
  "gpu-node-07:4411:4490 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.7<0>" \
  "[1118468.873266] nvidia 0000:0a:00.0: event" >"$tmp/timed.log"
"$ff" analyze --summary "$tmp/timed.log" >"$tmp/timed.json"
"$ff" analyze --summary "$tmp/timed.json" >"$tmp/timed2.json"
for s in timed timed2; do
  check "$s summary: first and last timestamps, rank and host" python3 -c "
import json, sys
f = json.load(open(sys.argv[1]))['files'][0]
assert f['first_time'] == {'kind': 'wall-clock', 'time': 1714564801.25}, f
assert f['last_time'] == {'kind': 'kernel-uptime', 'time': 1118468.873266}, f
assert f['rank'] == 3 and f['host'] == 'gpu-node-07', f
" "$tmp/$s.json"
done

"$ff" analyze --summary --format json "${nodes[0]}" >/dev/null 2>"$tmp/err.txt"
check "--summary with --format is a usage error" test $? -eq 2
check "--summary with --format: says where --format belongs" grep -q "belongs to the analyze that merges" "$tmp/err.txt"
finish
