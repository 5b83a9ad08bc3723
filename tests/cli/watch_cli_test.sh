#!/bin/bash
# `firstfault watch` end to end: a fault appended to one of several followed files is
# printed once with its rank; rotation and truncation; --on-fault runs once with the JSON on
# stdin; a finding alone runs nothing; exit statuses; a live job written by
# bench/live_writer.py with an OOM injected is caught while it runs.
# Usage: watch_cli_test.sh FIRSTFAULT TESTS_DIR
set -u
ff=$1
tests=$2
# shellcheck source=../lib/harness.sh
source "$(dirname "$0")/../lib/harness.sh"
writer=$tests/../bench/live_writer.py
wait_open() {  # wait_open PID FILE: until the process holds FILE open (at most 20 s; a slow,
  # sanitized start must not let the file change before the watch has read it once)
  for _ in $(seq 200); do
    ls -l "/proc/$1/fd" 2>/dev/null | grep -qF -- "$2" && return 0
    sleep 0.1
  done
}
noise() {  # noise RANK N: N NCCL INFO lines of rank RANK's process
  for i in $(seq 1 "$2"); do
    echo "gpu-node-00$(($1 / 8)):$((1000 + $1)):$((2000 + $1)) [$(($1 % 8))] NCCL INFO Channel 0$((i % 8))/0 : $1[$(($1 % 8))] -> $((($1 + 1) % 4))[0] via P2P/IPC/read"
  done
}
oom() {  # oom RANK
  echo "[rank$1]:Traceback (most recent call last):"
  echo "[rank$1]:  File \"/workspace/train.py\", line 231, in <module>"
  echo "[rank$1]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU $1 has a total capacity of 79.11 GiB of which 1.20 GiB is free."
}
initiating_line_is() {  # initiating_line_is N: the last JSON document's first diagnosis
  python3 -c "
import json
d=[json.loads(l) for l in open('$tmp/out')][-1]
assert d['diagnoses'][0]['initiating']['line']==$1, d['diagnoses'][0]['initiating']
"
}
wait_for() {  # wait_for FILE PATTERN: up to 10 s
  for _ in $(seq 1 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}

# --- bad usage and exit statuses
"$ff" watch >/dev/null 2>"$tmp/e"
check "no input: exit 2" test $? -eq 2
check "no input: says what to give" grep -q "no input" "$tmp/e"
"$ff" watch --format xml - </dev/null >/dev/null 2>&1
check "unknown format: exit 2" test $? -eq 2
"$ff" watch --min-confidence 2 - </dev/null >/dev/null 2>&1
check "confidence out of range: exit 2" test $? -eq 2
"$ff" watch --summary-every 1 - </dev/null >/dev/null 2>&1
check "--summary-every without --summary-out: exit 2" test $? -eq 2
"$ff" watch - - </dev/null >/dev/null 2>&1
check "stdin twice: exit 2" test $? -eq 2
"$ff" watch --help >"$tmp/help"
check "--help exits 0 and documents the exit statuses" grep -q "Exit status" "$tmp/help"
noise 0 50 | "$ff" watch - >"$tmp/out" 2>"$tmp/err"
check "healthy stdin: exit 0 when it ends" test $? -eq 0
check "healthy stdin: nothing printed" test ! -s "$tmp/out"
{ noise 1 20; oom 1; noise 1 5; } | "$ff" watch --format jsonl - >"$tmp/out" 2>"$tmp/err"
check "a fault on stdin: exit 3" test $? -eq 3
check "jsonl: one document per change" python3 -c "
import json
docs=[json.loads(l) for l in open('$tmp/out')]
assert len(docs)==1, len(docs)
d=docs[0]
assert d['watch']['change']=='found' and d['watch']['sequence']==1, d['watch']
assert d['diagnoses'][0]['category']=='gpu-oom'
assert d['diagnoses'][0]['initiating']['rank']==1
"

# --- several followed files, one fault, printed once, the hook run once with the JSON
mkdir -p "$tmp/job"
for r in 0 1 2 3; do noise "$r" 30 >"$tmp/job/rank$r.log"; done
"$ff" watch --format jsonl --idle 2 --poll-ms 20 \
  --on-fault "cat > '$tmp/hook.json'; echo \"\$FIRSTFAULT_CATEGORY \$FIRSTFAULT_RANK \$FIRSTFAULT_RULE\" >> '$tmp/hook.calls'" \
  "$tmp/job" >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 0.5
noise 2 10 >>"$tmp/job/rank2.log"
oom 2 >>"$tmp/job/rank2.log"
wait_for "$tmp/out" '"change":"found"'
noise 0 10 >>"$tmp/job/rank0.log"
noise 2 10 >>"$tmp/job/rank2.log"
wait "$pid"
rc=$?
check "several files: exit 3" test "$rc" -eq 3
check "several files: the fault is printed once, with its rank and file" python3 -c "
import json
docs=[json.loads(l) for l in open('$tmp/out')]
assert len(docs)==1, [d['watch'] for d in docs]
top=docs[0]['diagnoses'][0]
assert top['category']=='gpu-oom' and top['initiating']['rank']==2, top
assert top['initiating']['file'].endswith('rank2.log'), top['initiating']
assert top['initiating']['line']==43, top['initiating']
"
check "the hook ran once" test "$(wc -l <"$tmp/hook.calls")" -eq 1
check "the hook's environment names category, rank and rule" grep -qx "gpu-oom 2 .*out-of-memory.*" "$tmp/hook.calls"
check "the hook's stdin is the diagnosis as JSON" python3 -c "
import json
d=json.load(open('$tmp/hook.json'))
assert d['diagnoses'][0]['category']=='gpu-oom'
"
check "the hook's status is reported" grep -q "on-fault command exited with status 0" "$tmp/err"

# --- --hold: a weak cause first (an error line no rule knows), a stronger one within the
# hold: the hook acts on the stronger
mkdir -p "$tmp/hold"
printf 'E1203 10:11:12.123456 100 trainer.cc:88] something odd happened here\n' >"$tmp/hold/a.log"
"$ff" watch --idle 4 --poll-ms 20 --min-confidence 0.1 --hold 2 \
  --on-fault "echo \"\$FIRSTFAULT_CATEGORY\" >> '$tmp/hold.calls'" "$tmp/hold" >"$tmp/out" 2>&1 &
pid=$!
# Append the stronger cause once the weak one has been printed (not after a fixed delay: a
# loaded machine or a sanitizer build can take longer than any sleep to get there).
for _ in $(seq 1 200); do
  grep -q '=== firstfault watch' "$tmp/out" 2>/dev/null && break
  sleep 0.05
done
oom 1 >>"$tmp/hold/a.log"
wait "$pid"
check "--hold: exit 3" test $? -eq 3
check "--hold: the hook ran once, on the stronger cause" test "$(cat "$tmp/hold.calls")" = "gpu-oom"
check "--hold: the weak cause was printed, then the change" test "$(grep -c '=== firstfault watch' "$tmp/out")" -eq 2
printf 'E1203 10:11:12.123456 100 trainer.cc:88] something odd happened here\n' >"$tmp/weak.log"
"$ff" watch --idle 1 --poll-ms 20 --on-fault "touch '$tmp/weak.ran'" "$tmp/weak.log" >"$tmp/out" 2>&1
rc=$?
check "a cause below --min-confidence: exit 0" test "$rc" -eq 0
check "a cause below --min-confidence: printed" grep -q 'root cause found' "$tmp/out"
check "a cause below --min-confidence: no hook" test ! -e "$tmp/weak.ran"

# --- a finding alone runs nothing
mkdir -p "$tmp/find"
printf 'host1:100:200 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0\n' >"$tmp/find/a.log"
"$ff" watch --idle 1 --poll-ms 20 --on-fault "touch '$tmp/find.ran'" "$tmp/find" >"$tmp/out" 2>&1
check "a finding alone: exit 0" test $? -eq 0
check "a finding alone: the hook did not run" test ! -e "$tmp/find.ran"
check "a finding alone: nothing printed" test ! -s "$tmp/out"

# --- rotation and truncation
mkdir -p "$tmp/rot"
noise 0 20 >"$tmp/rot/a.log"
"$ff" watch --format jsonl --idle 2 --poll-ms 20 "$tmp/rot/a.log" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_open "$pid" "$tmp/rot/a.log"
sleep 0.3
# The rotation is atomic (the old file keeps a second name, the new one is renamed over the
# first), so no poll can fall between a move and a create: that window reads as a deletion
# and a return, a different notice (tested below) that a loaded machine hit now and then.
{ noise 3 5; oom 3; } >"$tmp/rot/a.log.new"
ln "$tmp/rot/a.log" "$tmp/rot/a.log.1"
mv "$tmp/rot/a.log.new" "$tmp/rot/a.log"
wait "$pid"
check "rotation: the new file's fault is found, exit 3" test $? -eq 3
check "rotation: reported" grep -q "a.log: was replaced (rotated)" "$tmp/err"
check "rotation: the line is the new file's" python3 -c "
import json
d=[json.loads(l) for l in open('$tmp/out')][-1]
assert d['diagnoses'][0]['initiating']['rank']==3 and d['diagnoses'][0]['initiating']['line']==8, d['diagnoses'][0]['initiating']
"
noise 0 20 >"$tmp/rot/c.log"
"$ff" watch --format jsonl --idle 2 --poll-ms 20 "$tmp/rot/c.log" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_open "$pid" "$tmp/rot/c.log"
rm "$tmp/rot/c.log"
wait_for "$tmp/err" "c.log: was deleted"
# Longer than the old file, and likely under the old inode number (freed, then reused): it
# must be read from its start, not from where the old file ended.
{ noise 2 30; oom 2; } >"$tmp/rot/c.log"
wait "$pid"
check "deleted and back: the new file's fault is found, exit 3" test $? -eq 3
check "deleted and back: reported" grep -q "c.log: is back; reading it from its start" "$tmp/err"
check "deleted and back: read from its start" initiating_line_is 33
noise 0 40 >"$tmp/rot/b.log"
"$ff" watch --format jsonl --idle 2 --poll-ms 20 "$tmp/rot/b.log" >"$tmp/out" 2>"$tmp/err" &
pid=$!
wait_open "$pid" "$tmp/rot/b.log"
sleep 0.3
{ oom 1; } >"$tmp/rot/b.log"  # truncated and rewritten shorter
wait "$pid"
check "truncation: the fault after it is found, exit 3" test $? -eq 3
check "truncation: reported" grep -q "b.log: was truncated" "$tmp/err"
check "truncation: line numbers start again" initiating_line_is 3
"$ff" watch --idle 1 --poll-ms 20 "$tmp/rot/missing.log" >"$tmp/out" 2>"$tmp/err"
check "a file not there yet: watched for, exit 0" test $? -eq 0
check "a file not there yet: said so" grep -q "missing.log: does not exist (yet)" "$tmp/err"

# --- a live job: 8 ranks written at 0.2 MB/s each, an OOM after 2 s; caught while it runs
mkdir -p "$tmp/live"
"$ff" watch --format jsonl --exit-on-fault --timeout 20 --poll-ms 50 \
  --on-fault "echo \"\$FIRSTFAULT_RANK\" > '$tmp/live.hook'" "$tmp/live" >"$tmp/out" 2>"$tmp/err" &
pid=$!
python3 "$writer" "$tmp/live" --files 8 --rate-mb 0.2 --fault-after 2 --duration 6 --seed 3 >"$tmp/writer.json"
wait "$pid"
check "live job: exit 3" test $? -eq 3
check "live job: the verdict names the victim and the hook ran with its rank" python3 -c "
import json
w=json.load(open('$tmp/writer.json'))
d=[json.loads(l) for l in open('$tmp/out')]
assert d[0]['diagnoses'][0]['category']=='gpu-oom', d[0]['diagnoses'][0]
assert d[0]['diagnoses'][0]['initiating']['rank']==w['rank']
assert open('$tmp/live.hook').read().strip()==str(w['rank'])
"

# --- summaries: a node's watch writes one, a head node's watch reads it
mkdir -p "$tmp/node" "$tmp/head"
{ noise 5 10; oom 5; } >"$tmp/node/r5.log"
"$ff" watch --idle 1 --poll-ms 20 --summary-every 0.2 --summary-out "$tmp/head/node1.json" "$tmp/node" >/dev/null 2>&1
check "a node's watch writes its summary" grep -q firstfault_summary "$tmp/head/node1.json"
"$ff" watch --format jsonl --idle 1 --poll-ms 20 "$tmp/head" >"$tmp/out" 2>"$tmp/err"
check "the head node's watch over summaries: exit 3" test $? -eq 3
check "the head node's watch names the node's rank" python3 -c "
import json
d=[json.loads(l) for l in open('$tmp/out')][-1]
assert d['diagnoses'][0]['initiating']['rank']==5, d['diagnoses'][0]
"
finish
