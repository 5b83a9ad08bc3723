#!/bin/bash
# End-to-end checks of `firstfault topo`: live discovery on a machine without GPUs, every
# input kind, JSON validity, and exit 2 with a one-line message naming a bad file.
# Usage: topo_cli_test.sh FIRSTFAULT TESTS_DIR
set -u
ff=$1
tests=$2
topo=$tests/data/topologies
# shellcheck source=../lib/harness.sh
source "$(dirname "$0")/../lib/harness.sh"

# Live discovery. CI machines and this one have no GPU; a GPU machine skips those checks.
"$ff" topo >"$tmp/live.txt" 2>"$tmp/live.err"
check "live: exit 0" test $? -eq 0
check "live: nothing on stderr" test ! -s "$tmp/live.err"
if grep -q "0 GPU(s)" "$tmp/live.txt"; then
  check "live: says no GPUs found" grep -q "no GPUs found" "$tmp/live.txt"
  check "live: says what it found" grep -Eq "package\(s\), [0-9]+ NUMA node\(s\).*PCI device\(s\)" "$tmp/live.txt"
fi
"$ff" topo --format json >"$tmp/live.json"
check "live json: exit 0" test $? -eq 0
check "live json: valid, versioned" python3 -c "
import json
d=json.load(open('$tmp/live.json'))
assert d['schema']=='firstfault.topology/1'
assert d['source']=='live'
assert d['binding']['schema']=='firstfault.topology.binding/1'
assert d['no_gpus']==(d['summary']['gpus']==0)
assert {f['status'] for f in d['findings']} <= {'pass','warn','fail','skip'}
"

# Every input kind.
"$ff" topo --xml "$topo/hwloc-xml/cts1-pascal.xml" >"$tmp/x.txt"
check "xml: exit 0" test $? -eq 0
check "xml: matrix header" grep -Eq "^ +GPU0 +GPU1 +NIC0 +CPU Affinity +NUMA Affinity" "$tmp/x.txt"
check "xml: NIC legend" grep -q "NIC0: mlx5_0" "$tmp/x.txt"
check "xml: binding line" grep -Eq "^  0 +GPU0 +NIC0 +=mlx5_0:1 +PIX +0 +0-17,36-53 +hsi0" "$tmp/x.txt"
check "xml: live checks skipped" grep -q "skipped (input is a file)" "$tmp/x.txt"

"$ff" topo --xml "$topo/synthetic/server-8gpu-8nic-crossed.xml" --format json >"$tmp/c.json"
check "crossed json: GPU3 warned, binding" python3 -c "
import json
d=json.load(open('$tmp/c.json'))
st={(f['check'],f['subject']):f['status'] for f in d['findings']}
assert st[('nearest-nic','GPU3')]=='warn', st
assert st[('nearest-nic','GPU2')]=='pass'
r=d['binding']['ranks'][3]
assert r['nccl_ib_hca']=='=mlx5_0:1' and r['numa_node']==0 and r['cpulist']=='0-3', r
"
"$ff" topo --nvidia-smi "$topo/nvidia-smi-topo/NVIDIA-nccl-1530.txt" --env NCCL_IB_HCA=mlx5_9 \
  --format json >"$tmp/s.json"
check "nvidia-smi: --env NCCL_IB_HCA that matches nothing fails" python3 -c "
import json
d=json.load(open('$tmp/s.json'))
f=[f for f in d['findings'] if f['check']=='nccl-ib-hca'][0]
assert f['status']=='fail', f
"
"$ff" topo --nccl-topo "$topo/nccl-topo-dump/aliyun-SimAI-topo_8A100_4CX6.xml" >"$tmp/n.txt"
check "nccl-topo: exit 0 and bonds" grep -q "=mlx5_bond_1:1" "$tmp/n.txt"
"$ff" topo --from-log "$topo/nccl-log/two-node-ib.log" >"$tmp/l.txt"
check "from-log: exit 0 and observed NIC" grep -q "the NIC NCCL used for this GPU" "$tmp/l.txt"

# Errors: exit 2, one line naming the file, nothing on stdout.
bad() {  # bad NAME ARGS... -- FILE_IN_MESSAGE
  local name=$1 file=$2
  shift 2
  "$ff" topo "$@" >"$tmp/o" 2>"$tmp/e"
  local rc=$?
  check "$name: exit 2" test $rc -eq 2
  check "$name: names the file" grep -q "$file" "$tmp/e"
  check "$name: one line" test "$(wc -l <"$tmp/e")" -eq 1
  check "$name: nothing on stdout" test ! -s "$tmp/o"
}
bad "missing xml" "nope.xml" --xml "$tmp/nope.xml"
head -c 3000 "$topo/nccl-topo-dump/aliyun-SimAI-topo_8A100_4CX6.xml" >"$tmp/cut.xml"
bad "cut nccl-topo" "cut.xml" --nccl-topo "$tmp/cut.xml"
printf 'GPU0\tGPU1\nGPU0\t X \n' >"$tmp/cut.txt"
bad "cut nvidia-smi" "cut.txt:2" --nvidia-smi "$tmp/cut.txt"
bad "not hwloc" "NVIDIA-nccl-243.txt" --xml "$topo/nvidia-smi-topo/NVIDIA-nccl-243.txt"
"$ff" topo --format yaml >/dev/null 2>&1
check "bad format: exit 2" test $? -eq 2
"$ff" topo --xml a --nvidia-smi b >/dev/null 2>&1
check "two inputs: exit 2" test $? -eq 2
"$ff" topo --env NOEQUALS >/dev/null 2>&1
check "bad --env: exit 2" test $? -eq 2
"$ff" topo --help >"$tmp/h"
check "help: exit 0" test $? -eq 0
check "help: lists --nccl-topo" grep -q -- "--nccl-topo" "$tmp/h"

finish
