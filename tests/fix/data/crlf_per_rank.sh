#!/bin/bash
# launched per rank by srun (Windows line endings)
export NCCL_DEBUG=WARN
cd "${SCRATCH_DIR:-.}"
python3 train.py --epochs 2
