#!/bin/bash
# Run by `srun --ntasks-per-node=1 node_launch.sh` on every node of the allocation.
set -euo pipefail
MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
export MASTER_ADDR MASTER_PORT=29500

# Only the first node logs NCCL (the others would be "too noisy").
if [[ "${SLURM_NODEID}" -eq 0 ]]; then
  export NCCL_DEBUG=INFO
  export NCCL_DEBUG_SUBSYS=INIT,NET
fi
[ "$SLURM_NODEID" = 0 ] && export NCCL_DEBUG_FILE=/shared/logs/nccl.%h.%p.log

if [ -n "${PROFILE:-}" ]; then
  export TORCH_PROFILER=1
fi

exec torchrun --nnodes="$SLURM_NNODES" --nproc_per_node=8 --node_rank="$SLURM_NODEID" \
  --rdzv_endpoint="$MASTER_ADDR:$MASTER_PORT" train.py
