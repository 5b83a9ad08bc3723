#!/bin/bash
NCCL_DEBUG=WARN torchrun --nproc-per-node 8 train.py
