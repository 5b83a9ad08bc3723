#!/usr/bin/env bash
# Single node, 8 GPUs.
cd "$(dirname "$0")"
NCCL_DEBUG=INFO torchrun --standalone --nnodes=1 --nproc-per-node 8 \
  train.py --batch-size 32 --lr 3e-4
