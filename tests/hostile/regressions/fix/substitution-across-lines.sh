#!/bin/bash
cd "$(dirname
"$0")"
NCCL_DEBUG=WARN torchrun --nproc-per-node 8 train.py
