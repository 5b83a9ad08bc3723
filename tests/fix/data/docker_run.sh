#!/bin/sh
IMAGE=nvcr.io/nvidia/pytorch:24.05-py3
docker run --rm --gpus all --network host \
  -v "$PWD":/workspace -w /workspace \
  "$IMAGE" torchrun --nproc-per-node 8 train.py
