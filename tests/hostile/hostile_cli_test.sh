#!/bin/bash
# Hostile input through the real binary: every case has a defined outcome, either a result
# (exit 0, valid output) or a one-line error naming the input (exit 2). Never a crash, a
# hang or unbounded memory.
# Usage: hostile_cli_test.sh FIRSTFAULT TESTS_DIR
set -u
ff=$1
tests=$2
# shellcheck source=../lib/harness.sh
source "$(dirname "$0")/../lib/harness.sh"
chmod 755 "$tmp"
skip=0
skipped() { skip=$((skip + 1)); echo "SKIP: $1"; }
# ran NAME RC: the binary exited normally (0 or 2), not by a signal (>= 128)
ran() { [ "$2" -lt 128 ]; }
valid_json() { python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$1"; }
category() {  # category FILE.json -> top category or "none"
  python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
print(d['diagnoses'][0]['category'] if d['diagnoses'] else 'none')" "$1"
}
oom='[rank5]:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 1 has a total capacity of 79.11 GiB of which 1.02 GiB is free.'
T="timeout 60"
as_user=""  # a command prefix that runs the binary as another user

# An input that must analyse to gpu-oom with exit 0 and valid JSON, in every format.
expect_oom() {  # expect_oom NAME FILE
  local name=$1 file=$2 rc
  $T "$ff" analyze --format json "$file" >"$tmp/o.json" 2>"$tmp/e"
  rc=$?
  check "$name: exit 0 (rc=$rc)" test $rc -eq 0
  check "$name: valid JSON" valid_json "$tmp/o.json"
  check "$name: finds gpu-oom" test "$(category "$tmp/o.json" 2>/dev/null)" = gpu-oom
  $T "$ff" analyze --format sarif "$file" >"$tmp/o.sarif" 2>/dev/null
  check "$name: sarif exit 0" test $? -eq 0
  check "$name: sarif valid JSON" valid_json "$tmp/o.sarif"
  $T "$ff" analyze --color always "$file" >"$tmp/o.txt" 2>/dev/null
  check "$name: text exit 0" test $? -eq 0
}
# An input that must be refused: exit 2, one line on stderr naming it, nothing on stdout.
expect_refused() {  # expect_refused NAME NEEDLE ARGS...
  local name=$1 needle=$2 rc
  shift 2
  $T $as_user "$ff" "$@" >"$tmp/o" 2>"$tmp/e"
  rc=$?
  check "$name: exit 2 (rc=$rc)" test $rc -eq 2
  check "$name: error names '$needle'" grep -qF -- "$needle" "$tmp/e"
  check "$name: one line" test "$(wc -l <"$tmp/e")" -eq 1
  check "$name: nothing on stdout" test ! -s "$tmp/o"
}

# --- bytes that are not clean text -------------------------------------------------------
printf '\xff\xfe\xc3(\xa0\xa1 \xf0\x28\x8c\x28\n%s\xc3\xa9\xe2\x82\n\xed\xa0\x80 surrogate\n' "$oom" >"$tmp/utf8.log"
expect_oom "invalid UTF-8" "$tmp/utf8.log"
python3 -c "
import sys
sys.stdout.buffer.write(b'a\0b\0\0c\n' + b'\0'*5000 + b'\n' + sys.argv[1].encode() + b'\0tail\n')" "$oom" >"$tmp/nul.log"
expect_oom "NUL bytes" "$tmp/nul.log"
printf 'start\r\n%s\r\nend\r\n' "$oom" >"$tmp/crlf.log"
expect_oom "CRLF" "$tmp/crlf.log"
printf 'start\r%s\rend\r' "$oom" >"$tmp/cr.log"
expect_oom "lone CR" "$tmp/cr.log"
printf '\x1b[2J\x1b[H\x1b]0;evil title\x07\x1b[?1049h\x1b[31m%s\x1b[0m\n\x1b[\n\x1bP1$q\x1b\\\n\x9b31m\x07\x08\x7f\n' "$oom" >"$tmp/ansi.log"
expect_oom "ANSI escapes" "$tmp/ansi.log"
check "ANSI: no raw ESC from the log reaches the text report" \
  bash -c "! grep -qF $'\x1b]0;evil' '$tmp/o.txt' && ! grep -qF $'\x1b[2J' '$tmp/o.txt'"
python3 -c "
import sys
w=sys.stdout.write
for i in range(300000): w('\r 42%%|####      | %d/300000 [00:01<00:02, 3.14it/s]' % i)
w('\n' + sys.argv[1] + '\n')" "$oom" >"$tmp/tqdm.log"
expect_oom "tqdm CR storm" "$tmp/tqdm.log"
printf '%s\n[rank0]:[E ProcessGroupNCCL.cpp:1 Watchdog caught collec' "$oom" >"$tmp/cut.log"
expect_oom "truncated mid-line" "$tmp/cut.log"
: >"$tmp/empty.log"
$T "$ff" analyze --format json "$tmp/empty.log" >"$tmp/o.json" 2>"$tmp/e"
check "empty file: exit 0" test $? -eq 0
check "empty file: no diagnoses" test "$(category "$tmp/o.json")" = none

# --- a 100 MB single line: bounded time and memory ----------------------------------------
{ head -c 100000000 /dev/zero | tr '\0' 'x'; printf '%s\n' "$oom"; } >"$tmp/long.log"
start=$(date +%s)
/usr/bin/time -f '%M' -o "$tmp/rss" $T "$ff" analyze --format json "$tmp/long.log" >"$tmp/o.json" 2>"$tmp/e"
rc=$?
check "100 MB line: exit 0 (rc=$rc)" test $rc -eq 0
check "100 MB line: finds gpu-oom" test "$(category "$tmp/o.json" 2>/dev/null)" = gpu-oom
check "100 MB line: under 60 s" test $(($(date +%s) - start)) -lt 60
rss_kb=$(tail -1 "$tmp/rss")
echo "100 MB line: max RSS ${rss_kb} kB"
# ASan's shadow memory and quarantine multiply RSS; the bound is for the release binary.
rss_limit=600000
[ "${FF_SANITIZED:-OFF}" = ON ] && rss_limit=4000000
check "100 MB line: max RSS under $((rss_limit / 1000)) MB" test "$rss_kb" -lt $rss_limit
check "100 MB line: JSON stays small" test "$(stat -c %s "$tmp/o.json")" -lt 2000000
rm -f "$tmp/long.log"

# --- files that change while they are read ------------------------------------------------
# Shrinking: the library test (hostile_input_test.cpp) truncates a mapped file
# deterministically; here a real race, where either outcome is fine but a signal is not.
python3 -c "
import sys
line=(sys.argv[1]+'\n').encode()
with open(sys.argv[2],'wb') as f:
    for i in range(400000): f.write(line)" "$oom" "$tmp/shrink.log"
for delay in 0.05 0.2 0.5; do
  cp "$tmp/shrink.log" "$tmp/shrinking.log"
  ( sleep $delay; truncate -s 1000 "$tmp/shrinking.log" ) &
  $T "$ff" analyze --format json -j 2 "$tmp/shrinking.log" >"$tmp/o.json" 2>"$tmp/e"
  rc=$?
  wait
  check "shrinking file (after ${delay}s): no signal (rc=$rc)" ran x $rc
  check "shrinking file (after ${delay}s): exit 0" test $rc -eq 0
  check "shrinking file (after ${delay}s): valid JSON" valid_json "$tmp/o.json"
  if grep -q "shrank while being read" "$tmp/e"; then
    check "shrinking file: warning names it" grep -q "shrinking.log" "$tmp/e"
  fi
done
rm -f "$tmp/shrink.log" "$tmp/shrinking.log"
# Growing: a writer appends while we read; we analyse what was there when it was opened.
printf '%s\n' "$oom" >"$tmp/growing.log"
( for i in $(seq 1 2000); do echo "step $i loss 0.1" >>"$tmp/growing.log"; done ) &
writer=$!
$T "$ff" analyze --format json "$tmp/growing.log" >"$tmp/o.json" 2>"$tmp/e"
rc=$?
wait $writer
check "growing file: exit 0" test $rc -eq 0
check "growing file: gpu-oom" test "$(category "$tmp/o.json")" = gpu-oom

# --- things that are not log files ---------------------------------------------------------
mkdir "$tmp/nologs"
touch "$tmp/nologs/readme.md"
expect_refused "directory without logs" "$tmp/nologs" analyze "$tmp/nologs"
expect_refused "character device" "/dev/zero" analyze /dev/zero
expect_refused "missing file" "$tmp/nope.log" analyze "$tmp/nope.log"
mkfifo "$tmp/fifo"
( printf '%s\n' "$oom" >"$tmp/fifo" ) &
$T "$ff" analyze --format json "$tmp/fifo" >"$tmp/o.json" 2>"$tmp/e"
check "FIFO: exit 0" test $? -eq 0
check "FIFO: gpu-oom" test "$(category "$tmp/o.json")" = gpu-oom
wait
if [ -S /dev/log ]; then
  expect_refused "socket" "/dev/log" analyze /dev/log
fi
# Unreadable files: root reads mode-000 files, so run as an unprivileged user.
mkdir "$tmp/locked" && printf '%s\n' "$oom" >"$tmp/locked/a.log" && chmod 700 "$tmp/locked"
printf '%s\n' "$oom" >"$tmp/mode000.log" && chmod 000 "$tmp/mode000.log"
if [ "$(id -u)" != 0 ]; then
  expect_refused "mode-000 file" "mode000.log" analyze "$tmp/mode000.log"
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups "$ff" --help >/dev/null 2>&1; then
  as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
  expect_refused "mode-000 file (as nobody)" "Permission denied" analyze "$tmp/mode000.log"
  check "mode-000 file (as nobody): names it" grep -q "mode000.log" "$tmp/e"
  expect_refused "file in a directory without x (as nobody)" "$tmp/locked/a.log" analyze "$tmp/locked/a.log"
  expect_refused "directory without x (as nobody)" "$tmp/locked" analyze "$tmp/locked"
  expect_refused "topology file without permission (as nobody)" "mode000.log" topo --nccl-topo "$tmp/mode000.log"
  as_user=""
else
  skipped "unreadable files: running as root and cannot switch to nobody (no setpriv, or the binary is not reachable by nobody)"
fi

# --- compressed logs: refused with a message that says how to read them --------------------
printf '%s\n' "$oom" | gzip -c >"$tmp/job.log.gz"
expect_refused "gzip file" "decompress" analyze "$tmp/job.log.gz"
check "gzip file: names it" grep -q "job.log.gz" "$tmp/e"
$T "$ff" analyze - <"$tmp/job.log.gz" >"$tmp/o" 2>"$tmp/e"
check "gzip on stdin: exit 2" test $? -eq 2
check "gzip on stdin: says decompress" grep -q "decompress" "$tmp/e"
zcat "$tmp/job.log.gz" | $T "$ff" analyze --format json - >"$tmp/o.json"
check "zcat | analyze -: works" test "$(category "$tmp/o.json")" = gpu-oom

# --- hostile rule files ----------------------------------------------------------------------
mkdir "$tmp/rules"
printf '\xff\xfe not json at all' >"$tmp/rules/binary.json"
echo '{"id": "no-fields"}' >"$tmp/rules/missing.json"
echo '[1, 2, 3]' >"$tmp/rules/array.json"
python3 - "$tmp/rules" <<'EOF'
import json, sys
base = {"category": "shm", "title": "t", "role": "cause", "weight": 0.5, "indicates": "i",
        "fix": {"summary": "s"}, "verify": {"command": "c", "expect": "e"},
        "examples": {"match": ["aaa"], "no_match": ["b"]}}
def rule(name, pattern):
    r = dict(base, id=name, patterns=[pattern])
    json.dump(r, open(f"{sys.argv[1]}/{name}.json", "w"))
rule("lookahead", "(?=x)abc")
rule("backref", "(a)\\1")
rule("evil-backtracking", "(a+)+$")
EOF
printf '%s!\n' "$(head -c 200000 /dev/zero | tr '\0' a)" >"$tmp/aaaa.log"
for i in $(seq 1 50); do head -c 20000 /dev/zero | tr '\0' a; echo '!'; done >>"$tmp/aaaa.log"
printf '%s\n' "$oom" >>"$tmp/aaaa.log"
start=$(date +%s%N)
$T "$ff" analyze --rules "$tmp/rules" --format json "$tmp/aaaa.log" >"$tmp/o.json" 2>"$tmp/e"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "(a+)+\$ over 1.2 MB of a's: ${ms} ms"
check "hostile rules: exit 0" test $rc -eq 0
check "hostile rules: non-JSON named" grep -q "binary.json" "$tmp/e"
check "hostile rules: missing fields named" grep -q "missing.json" "$tmp/e"
check "hostile rules: array named" grep -q "array.json" "$tmp/e"
check "hostile rules: RE2-rejected lookahead named" grep -q "lookahead.json" "$tmp/e"
check "hostile rules: RE2-rejected backreference named" grep -q "backref.json" "$tmp/e"
check "hostile rules: (a+)+\$ is accepted (RE2 is linear)" bash -c "! grep -q evil-backtracking '$tmp/e'"
check "hostile rules: analysis still runs" test "$(category "$tmp/o.json")" = gpu-oom
check "(a+)+\$ on long lines is linear (under 10 s)" test $ms -lt 10000

# --- topology inputs -------------------------------------------------------------------------
printf 'this is not xml' >"$tmp/bad-hwloc.xml"
expect_refused "hwloc XML hwloc rejects" "bad-hwloc.xml" topo --xml "$tmp/bad-hwloc.xml"
printf '<?xml version="1.0"?>\n<topology><object type="Machine" os_index="0"><object type="Bogus"/>' >"$tmp/cut-hwloc.xml"
expect_refused "truncated hwloc XML" "cut-hwloc.xml" topo --xml "$tmp/cut-hwloc.xml"
expect_refused "hwloc XML is a directory" "$tmp/nologs" topo --xml "$tmp/nologs"
printf '\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \nGPU1\n' >"$tmp/smi-missing.txt"
$T "$ff" topo --nvidia-smi "$tmp/smi-missing.txt" >"$tmp/o" 2>"$tmp/e"
rc=$?
check "nvidia-smi with missing columns: exit 0 or 2 (rc=$rc)" test $rc -eq 0 -o $rc -eq 2
if [ $rc -eq 2 ]; then
  check "nvidia-smi with missing columns: names the file" grep -q "smi-missing.txt" "$tmp/e"
fi
printf 'GPU0 GPU1\nnothing useful here\n' >"$tmp/smi-garbage.txt"
$T "$ff" topo --nvidia-smi "$tmp/smi-garbage.txt" --format json >"$tmp/o" 2>"$tmp/e"
rc=$?
check "nvidia-smi garbage: exit 0 or 2 (rc=$rc)" test $rc -eq 0 -o $rc -eq 2
printf '\xff\xfe\x00\x01' >"$tmp/smi-binary.txt"
$T "$ff" topo --nvidia-smi "$tmp/smi-binary.txt" >"$tmp/o" 2>"$tmp/e"
rc=$?
check "nvidia-smi binary: exit 0 or 2 (rc=$rc)" test $rc -eq 0 -o $rc -eq 2
printf '<system version="1"><cpu numaid="0"><pci busid=' >"$tmp/cut-nccl.xml"
expect_refused "broken NCCL topology XML" "cut-nccl.xml" topo --nccl-topo "$tmp/cut-nccl.xml"
expect_refused "topology file is /dev/zero" "/dev/zero" topo --nccl-topo /dev/zero
# Names that are not UTF-8 (a device name, a variable's value): JSON still written, the
# bytes as U+FFFD (nlohmann's default serializer throws on them: "internal error", exit 1).
sed 's/name="eth0"/name="eth\xff0"/' "$tests/data/topologies/nccl-topo-dump/azure-azhpc-images-ncv4-topo.xml" >"$tmp/latin1-topo.xml"
$T "$ff" topo --nccl-topo "$tmp/latin1-topo.xml" --env "NCCL_IB_HCA=mlx5_$(printf '\xfe')" --format json >"$tmp/o.json" 2>"$tmp/e"
rc=$?
check "topology names not UTF-8: exit 0 (rc=$rc)" test $rc -eq 0
check "topology names not UTF-8: valid JSON" valid_json "$tmp/o.json"
check "topology names not UTF-8: the byte is U+FFFD" grep -q $'eth\xef\xbf\xbd0' "$tmp/o.json"

# --- --mask: nothing identifying survives, in any format -----------------------------------
cat >"$tmp/mask.log" <<EOF
gpunode17:12345:12345 [0] NCCL INFO Bootstrap : Using ib0:10.20.30.40<0>
gpunode17:12345:12345 [0] NCCL INFO NET/Socket : Using [0]ib0:10.20.30.40<0> [1]eth0:fe80::1c2:3ff:fe4d:5e6f%eth0<0>
gpunode17:12345:12345 [0] misc/socket.cc:50 NCCL WARN socket connect to 10.20.30.41<34567> failed
gpunode17:12345:12345 [0] NCCL WARN Call to ibv_create_qp failed
HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345 ssh frank@gpunode18
File "/home/frank/train.py", line 3
$oom
EOF
mkdir -p "$tmp/home/frank"
cp "$tmp/mask.log" "$tmp/home/frank/gpunode17.log"
for fmt in text json sarif; do
  $T "$ff" analyze --mask --format $fmt "$tmp/home/frank/gpunode17.log" >"$tmp/m.$fmt" 2>"$tmp/e"
  check "mask $fmt: exit 0" test $? -eq 0
  for secret in gpunode17 gpunode18 frank 10.20.30.4 fe80::1c2 hf_AbCd; do
    check "mask $fmt: no '$secret'" bash -c "! grep -qF -- '$secret' '$tmp/m.$fmt'"
  done
  check "mask $fmt: pseudonyms present" grep -q "host-1" "$tmp/m.$fmt"
done
check "mask json: still valid" valid_json "$tmp/m.json"
check "mask sarif: still valid" valid_json "$tmp/m.sarif"
check "mask json: same host, same pseudonym" python3 -c "
import json,re,sys
s=open('$tmp/m.json').read()
assert len(set(re.findall(r'host-\d+', s))) <= 3, set(re.findall(r'host-\d+', s))"
$T "$ff" analyze --format json "$tmp/home/frank/gpunode17.log" >"$tmp/unmasked.json"
check "without --mask the host is shown" grep -q gpunode17 "$tmp/unmasked.json"

# Fuzzer findings replayed: each crashed or upset hwloc's XML import; now a clear error, exit 2.
for f in "$tests"/hostile/regressions/topology/*.xml; do
  [ -e "$f" ] || continue
  "$ff" topo --xml "$f" >/dev/null 2>"$tmp/e"
  rc=$?
  check "fuzz regression $(basename "$f"): exit 2" test "$rc" -eq 2
  check "fuzz regression $(basename "$f"): names the file" grep -q "$(basename "$f")" "$tmp/e"
done

echo "$pass passed, $fail failed, $skip skipped"
test "$fail" -eq 0
