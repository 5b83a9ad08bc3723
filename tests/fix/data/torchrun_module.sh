#!/bin/bash
set -e
torchrun --nnodes=1 --nproc_per_node=8 --rdzv-backend c10d --rdzv-endpoint localhost:29400 -m trainer.main --epochs 3
