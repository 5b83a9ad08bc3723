#!/usr/bin/env bash
set -euo pipefail

# Picked by hand from ibstat; mlx5_1 also matches mlx5_10..mlx5_17!
export NCCL_IB_HCA=mlx5_1
export NCCL_DEBUG=INFO

if [[ "${SLURM_LOCALID:-0}" == 0 ]]; then
  echo "starting on $(hostname)"
fi
exec python train.py "$@"
