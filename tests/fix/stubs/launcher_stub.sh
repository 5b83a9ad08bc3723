#!/bin/bash
# Stub for srun / mpirun / torchrun / deepspeed (by the name it is called as): runs the
# per-rank part of its command line (from firstfault-bind.sh on) once per local rank
# 0..FF_NRANKS-1, with the local-rank variable that launcher sets.
set -u
name=$(basename "$0")
case "$name" in
  srun) var=SLURM_LOCALID ;;
  mpirun) var=OMPI_COMM_WORLD_LOCAL_RANK ;;
  *) var=LOCAL_RANK ;;
esac
args=("$@")
start=-1
no_python=0
for i in "${!args[@]}"; do
  case "${args[$i]}" in
    --no_python | --no-python) no_python=1 ;;
    *firstfault-bind.sh) start=$i; break ;;
  esac
done
if [ "$start" -lt 0 ]; then echo "stub $name: no firstfault-bind.sh in: $*" >&2; exit 3; fi
if [ "$name" = torchrun ] || [ "$name" = deepspeed ]; then
  if [ "$no_python" != 1 ]; then echo "stub $name: wrapper without --no_python" >&2; exit 4; fi
fi
for ((r = 0; r < ${FF_NRANKS:-8}; r++)); do
  env "$var=$r" "${args[@]:$start}" || exit $?
done
