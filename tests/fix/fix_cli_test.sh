#!/bin/bash
# End-to-end tests of `firstfault analyze --fix` / `--apply`.
# Usage: fix_cli_test.sh FIRSTFAULT TESTS_DIR   (prints "N passed, M failed")
set -u
FF=$1
TESTS=$2
DATA=$TESTS/fix/data
TOPO=$TESTS/data/topologies
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp "$DATA"/* "$W"/
chmod 750 "$W/sbatch_srun.sbatch"
XML=$TOPO/synthetic/server-8gpu-8nic.xml
fix() { "$FF" analyze --failed --fix --no-live-topology --workspace "$W" "$@"; }

# 1. --fix prints a unified diff and writes nothing.
before=$(cat "$W/sbatch_srun.sbatch")
out=$(fix --topology "$XML" --fix-file "$W/sbatch_srun.sbatch" "$W/gdr_prefix.log"); rc=$?
check "--fix exits 0" '[ $rc = 0 ]'
check "--fix diff header" 'grep -q "^--- a/sbatch_srun.sbatch$" <<<"$out" && grep -q "^+++ b/sbatch_srun.sbatch$" <<<"$out"'
check "--fix creates the wrapper" 'grep -q "^--- /dev/null$" <<<"$out" && grep -q "^+++ b/firstfault-bind.sh$" <<<"$out"'
check "--fix names the topology" 'grep -q "^#   topology: hwloc XML .*server-8gpu-8nic.xml" <<<"$out"'
check "--fix verify line" 'grep -q "^#   verify: " <<<"$out"'
check "--fix rewrites srun" 'grep -q "^+.*FIRSTFAULT_BIND:-.*firstfault-bind.sh}\" python train.py" <<<"$out"'
check "--fix writes nothing" '[ "$(cat "$W/sbatch_srun.sbatch")" = "$before" ] && [ ! -e "$W/firstfault-bind.sh" ]'

# 2. The diff applies with patch -p1 from the workspace root.
if command -v patch >/dev/null; then
  P=$(mktemp -d); cp "$W/sbatch_srun.sbatch" "$P/"
  (cd "$P" && patch -s -p1 <<<"$out") >/dev/null 2>&1
  check "patch -p1 applies the diff" 'grep -q FIRSTFAULT_BIND "$P/sbatch_srun.sbatch" && [ -f "$P/firstfault-bind.sh" ]'
  rm -rf "$P"
fi

# 3. --apply writes, keeps the mode, creates an executable wrapper; a second --apply changes nothing.
out=$(fix --apply --topology "$XML" --fix-file "$W/sbatch_srun.sbatch" "$W/gdr_prefix.log"); rc=$?
check "--apply exits 0" '[ $rc = 0 ]'
check "--apply edited the script" 'grep -q "FIRSTFAULT_BIND" "$W/sbatch_srun.sbatch"'
check "--apply kept the mode" '[ "$(stat -c %a "$W/sbatch_srun.sbatch")" = 750 ]'
check "--apply wrapper executable" '[ -x "$W/firstfault-bind.sh" ]'
check "edited script parses" 'bash -n "$W/sbatch_srun.sbatch" && sh -n "$W/firstfault-bind.sh"'
check "wrapper picks rank 5's HCA" '[ "$(LOCAL_RANK=5 FIRSTFAULT_NUMA=0 "$W/firstfault-bind.sh" sh -c "echo \$NCCL_IB_HCA")" = "=mlx5_5:1" ]'
check "wrapper is set -u safe without a rank" '[ "$(env -u LOCAL_RANK -u SLURM_LOCALID FIRSTFAULT_NUMA=0 sh -uc "\"$W/firstfault-bind.sh\" sh -c \"echo \\\$NCCL_IB_HCA\"")" = "=mlx5_0:1" ]'
sum1=$(md5sum "$W/sbatch_srun.sbatch" "$W/firstfault-bind.sh")
out=$(fix --apply --topology "$XML" --fix-file "$W/sbatch_srun.sbatch" "$W/gdr_prefix.log")
check "second --apply changes nothing" '[ "$(md5sum "$W/sbatch_srun.sbatch" "$W/firstfault-bind.sh")" = "$sum1" ] && grep -q "no changes to the files" <<<"$out"'

# 4. The topology file in the workspace is found without --topology.
cp "$TOPO/nvidia-smi-topo/NVIDIA-nccl-1530.txt" "$W/topo.txt"
out=$(fix --fix-file "$W/strict_prefix.sh" "$W/gdr_prefix.log")
check "workspace topology used" 'grep -q "topology: nvidia-smi topo -m .*topo.txt" <<<"$out"'
check "prefix assignment replaced" 'grep -q "^-export NCCL_IB_HCA=mlx5_1$" <<<"$out"'
rm -f "$W/topo.txt"

# 5. No topology with NICs: the fix says what to export.
cp "$DATA/gdr_notopo.log" "$W/"
out=$(fix --topology "$TOPO/synthetic/pcie-4gpu-nonic.xml" --fix-file "$W/strict_prefix.sh" "$W/gdr_notopo.log"); rc=$?
check "no NIC topology: exit 0" '[ $rc = 0 ]'
check "no NIC topology: lstopo hint" 'grep -q "lstopo --of xml node.xml" <<<"$out" && grep -q "nvidia-smi topo -m > topo.txt" <<<"$out"'

# 6. Errors: exit 2 with one line naming the file.
err=$(fix --fix-file /etc/hostname "$W/gdr_prefix.log" 2>&1 >/dev/null); rc=$?
check "outside workspace: exit 2" '[ $rc = 2 ] && grep -q "/etc/hostname" <<<"$err" && [ "$(wc -l <<<"$err")" = 1 ]'
err=$(fix --fix-file "$W/missing.sh" "$W/gdr_prefix.log" 2>&1 >/dev/null); rc=$?
check "missing fix file: exit 2" '[ $rc = 2 ] && grep -q "missing.sh" <<<"$err"'
err=$(fix --topology "$W/nope.xml" --fix-file "$W/strict_prefix.sh" "$W/gdr_prefix.log" 2>&1 >/dev/null); rc=$?
check "missing topology: exit 2" '[ $rc = 2 ] && grep -q "nope.xml" <<<"$err"'

# 7. /dev/shm: docker run, compose, pod spec.
out=$(fix --apply --fix-file "$W/docker_run.sh" --fix-file "$W/docker-compose.yml" --fix-file "$W/pod.yaml" "$W/shm.log"); rc=$?
check "shm: exit 0" '[ $rc = 0 ]'
check "shm: docker run" 'grep -q "docker run --shm-size=16g" "$W/docker_run.sh"'
check "shm: compose" '[ "$(grep -c "shm_size: '"'"'16gb'"'"'" "$W/docker-compose.yml")" = 2 ]'
check "shm: pod" 'grep -q "mountPath: /dev/shm" "$W/pod.yaml" && grep -q "medium: Memory" "$W/pod.yaml"'
if python3 -c 'import yaml' 2>/dev/null; then
  check "shm: YAML still parses" 'python3 -c "import yaml,sys; [yaml.safe_load(open(f)) for f in sys.argv[1:]]" "$W/docker-compose.yml" "$W/pod.yaml"'
fi

# 8. Env fix with its cost: IOMMU page faults -> NCCL_P2P_DISABLE on the mpirun line.
out=$(fix --fix-file "$W/bash_mpirun.sh" "$W/iommu.log")
check "p2p: -x on mpirun" 'grep -q "^+mpirun -x NCCL_P2P_DISABLE=1 " <<<"$out"'
check "p2p: bandwidth warning" 'grep -q "^#   warning: .*bandwidth" <<<"$out"'

# 9. Evidence capture for the next hang, on every launcher form, idempotent.
E=$(mktemp -d); cp "$DATA"/* "$E"/
cap() { "$FF" analyze --fix --no-live-topology --workspace "$E" "$@"; }
files=(--fix-file "$E/bash_mpirun.sh" --fix-file "$E/sbatch_srun.sbatch" --fix-file "$E/torchrun_cmd.sh" --fix-file "$E/docker_run.sh")
out=$(cap "${files[@]}" "$E/fr_disabled.log"); rc=$?
check "capture: exit 0" '[ $rc = 0 ]'
check "capture: rule named" 'grep -q "torch-flight-recorder-disabled" <<<"$out"'
check "capture: -x on mpirun" 'grep -q "^+mpirun .*-x TORCH_FR_BUFFER_SIZE=2000" <<<"$out"'
check "capture: docker -e" 'grep -q "^+.*docker run .*-e TORCH_NCCL_DUMP_ON_TIMEOUT=1" <<<"$out"'
out=$(cap --apply "${files[@]}" "$E/fr_disabled.log")
check "capture: every file edited" 'for f in bash_mpirun.sh sbatch_srun.sbatch torchrun_cmd.sh docker_run.sh; do grep -q "TORCH_FR_BUFFER_SIZE" "$E/$f" || exit 1; done'
check "capture: per-process NCCL debug file" 'grep -q "NCCL_DEBUG_FILE=.*nccl.%h.%p.log" "$E/sbatch_srun.sbatch"'
check "capture: no /tmp dump path" '! grep -q "TORCH_FR_DUMP_TEMP_FILE=.*/tmp" "$E/sbatch_srun.sbatch"'
check "capture: scripts parse" 'bash -n "$E/bash_mpirun.sh" && bash -n "$E/sbatch_srun.sbatch" && bash -n "$E/torchrun_cmd.sh" && bash -n "$E/docker_run.sh"'
sum1=$(cd "$E" && md5sum bash_mpirun.sh sbatch_srun.sbatch torchrun_cmd.sh docker_run.sh)
out=$(cap --apply "${files[@]}" "$E/fr_disabled.log")
check "capture: second --apply changes nothing" '[ "$(cd "$E" && md5sum bash_mpirun.sh sbatch_srun.sbatch torchrun_cmd.sh docker_run.sh)" = "$sum1" ]'
# A Python entry point (no shell launcher given) gets an os.environ block, once.
cap --apply --fix-file "$E/train_entry.py" "$E/fr_disabled.log" >/dev/null
check "capture: python entry point" 'grep -q "os.environ\[.TORCH_FR_BUFFER_SIZE.\] = .2000." "$E/train_entry.py"'
check "capture: python parses" 'python3 -c "import ast,sys; ast.parse(open(sys.argv[1]).read())" "$E/train_entry.py"'
py1=$(md5sum < "$E/train_entry.py")
cap --apply --fix-file "$E/train_entry.py" "$E/fr_disabled.log" >/dev/null
check "capture: python second --apply changes nothing" '[ "$(md5sum < "$E/train_entry.py")" = "$py1" ]'
# Settings already present that capture nothing are warned about.
printf '#!/bin/bash\nexport TORCH_NCCL_TRACE_BUFFER_SIZE=2097152\nexport NCCL_DEBUG_FILE=/shared/nccl.log\ndocker run --gpus all -e TORCH_FR_DUMP_TEMP_FILE=/tmp/nccl_trace_rank_ img torchrun train.py\n' > "$E/lint.sh"
out=$(cap --fix-file "$E/lint.sh" "$E/fr_disabled.log")
check "capture lint: byte-sized buffer" 'grep -q "lint.sh:2: TORCH_NCCL_TRACE_BUFFER_SIZE=2097152 counts Flight Recorder entries, not bytes" <<<"$out"'
check "capture lint: one debug file for all" 'grep -q "lint.sh:3: NCCL_DEBUG_FILE=/shared/nccl.log has no %h or %p" <<<"$out"'
check "capture lint: dump in the container /tmp" 'grep -q "lint.sh:4: TORCH_FR_DUMP_TEMP_FILE=/tmp/nccl_trace_rank_ is inside the container" <<<"$out"'
# NCCL_DEBUG set for some nodes or ranks only: a per-node launch script, a Python entry point.
out=$(cap --fix-file "$E/node_launch.sh" --fix-file "$E/rank0_entry.py" "$E/fr_disabled.log")
check "capture lint: NCCL_DEBUG on node 0 only" 'grep -q "^#   warning: .*node_launch.sh:9: NCCL_DEBUG is set only under a condition on \${SLURM_NODEID} (line 8): the ranks without it print nothing NCCL-side" <<<"$out"'
check "capture lint: NCCL_DEBUG_SUBSYS on node 0 only" 'grep -q "node_launch.sh:10: NCCL_DEBUG_SUBSYS is set only under" <<<"$out"'
check "capture lint: && export one-liner" 'grep -q "node_launch.sh:12: NCCL_DEBUG_FILE is set only under a condition on \$SLURM_NODEID (line 12)" <<<"$out"'
check "capture lint: the fix is said" 'grep -q "set it for every rank .*NCCL_DEBUG_FILE=nccl.%h.%p.log" <<<"$out"'
check "capture lint: unrelated condition quiet" '[ "$(grep -c "node_launch.sh:.* is set only under" <<<"$out")" = 3 ]'
check "capture lint: python rank 0 only" 'grep -q "rank0_entry.py:11: NCCL_DEBUG is set only under a condition on RANK (line 9)" <<<"$out"'
# ... and the capture edit repairs it: the other ranks get a default, node 0 keeps INFO.
out=$(cap --fix-file "$E/node_launch.sh" --fix-file "$E/rank0_entry.py" "$E/fr_disabled.log")
check "capture: rank-scoped NCCL_DEBUG gets a default" 'grep -q "^+export NCCL_DEBUG=\"\${NCCL_DEBUG:-WARN}\"$" <<<"$out" && grep -q "^#   NCCL_DEBUG is set for some ranks only in node_launch.sh" <<<"$out"'
check "capture: rank-scoped NCCL_DEBUG_FILE gets a default" 'grep -q "^+export NCCL_DEBUG_FILE=\"\${NCCL_DEBUG_FILE:-nccl.%h.%p.log}\"$" <<<"$out"'
check "capture: the node-0 branch is not edited" '! grep -q "^[-+] *export NCCL_DEBUG=INFO" <<<"$out"'
cap --apply --fix-file "$E/node_launch.sh" "$E/fr_disabled.log" >/dev/null
check "capture: defaulted script parses (sh -n, bash -n)" 'sh -n "$E/node_launch.sh" && bash -n "$E/node_launch.sh"'
# Source the env part (no scontrol or torchrun here) as node 0 and as node 1.
sed -e '/^set /d' -e '/^MASTER_ADDR=/d' -e '/^exec /,$d' "$E/node_launch.sh" > "$E/n.sh"
level() { (cd "$E" && env -u NCCL_DEBUG SLURM_NODEID=$1 bash -c '. ./n.sh; echo "$NCCL_DEBUG"'); }
check "capture: node 0 keeps INFO, the others get WARN" '[ "$(level 0)" = INFO ] && [ "$(level 1)" = WARN ]'
nl1=$(md5sum < "$E/node_launch.sh")
out=$(cap --apply --fix-file "$E/node_launch.sh" "$E/fr_disabled.log")
check "capture: rank-scoped second --apply changes nothing" '[ "$(md5sum < "$E/node_launch.sh")" = "$nl1" ] && grep -q "no changes to the files" <<<"$out"'
cap --apply --fix-file "$E/rank0_entry.py" "$E/fr_disabled.log" >/dev/null
check "capture: python rank 0 only gets setdefault" 'grep -q "^    os.environ.setdefault(\"NCCL_DEBUG\", \"WARN\")$" "$E/rank0_entry.py" && grep -q "^        os.environ\[\"NCCL_DEBUG\"\] = \"INFO\"$" "$E/rank0_entry.py"'
check "capture: python defaulted entry parses" 'python3 -c "import ast,sys; ast.parse(open(sys.argv[1]).read())" "$E/rank0_entry.py"'
r01=$(md5sum < "$E/rank0_entry.py")
cap --apply --fix-file "$E/rank0_entry.py" "$E/fr_disabled.log" >/dev/null
check "capture: python rank-scoped second --apply changes nothing" '[ "$(md5sum < "$E/rank0_entry.py")" = "$r01" ]'
# An MPMD mpirun that passes NCCL_DEBUG to its first section only: every other section
# gets the bare -x (the block's default), every section the literal -x, and then the lint is quiet.
printf '#!/bin/bash\nmpirun -np 1 -x NCCL_DEBUG=INFO python a.py : -np 7 python b.py\n' > "$E/mpmd.sh"
cap --apply --fix-file "$E/mpmd.sh" "$E/fr_disabled.log" >/dev/null
check "capture: MPMD sections forward the default" 'grep -q "^export NCCL_DEBUG=\"\${NCCL_DEBUG:-WARN}\"$" "$E/mpmd.sh" && grep -q -- "-x NCCL_DEBUG=INFO python a.py : -x NCCL_DEBUG -x NCCL_DEBUG_FILE=nccl.%h.%p.log " "$E/mpmd.sh"'
check "capture: MPMD script parses" 'sh -n "$E/mpmd.sh"'
mp1=$(md5sum < "$E/mpmd.sh")
out=$(cap --apply --fix-file "$E/mpmd.sh" "$E/fr_disabled.log")
check "capture: MPMD second --apply changes nothing, lint quiet" '[ "$(md5sum < "$E/mpmd.sh")" = "$mp1" ] && ! grep -q "MPMD section" <<<"$out"'
out=$(cap "${files[@]}" --fix-file "$E/train_entry.py" "$E/fr_disabled.log")
check "capture lint: no rank-scoped warning for the other launch files" '! grep -q "is set only under\|MPMD section" <<<"$out"'
check "capture: the job's NCCL_DEBUG=INFO is kept" 'grep -q "^NCCL_DEBUG=INFO torchrun" "$E/torchrun_cmd.sh" && ! grep -q "NCCL_DEBUG=WARN" "$E/torchrun_cmd.sh"'
# A hang without the "recorder is off" line still gets the capture fix.
head -1 "$DATA/fr_disabled.log" > "$E/hang_only.log"
out=$(cap --fix-file "$E/torchrun_cmd.sh" "$E/hang_only.log")
check "capture: offered for a hang diagnosis" 'grep -q "TORCH_FR_BUFFER_SIZE" <<<"$out"'
rm -rf "$E"

# 10. Help documents the options.
help=$("$FF" analyze --help)
check "help lists --fix/--apply/--fix-file/--topology/--workspace" 'for o in --fix --apply --fix-file --topology --workspace; do grep -q -- "$o" <<<"$help" || exit 1; done'

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
