#!/usr/bin/env python3
"""Minimal DDP entry point launched by torchrun."""
import argparse

import torch
import torch.distributed as dist


def setup(backend: str = "nccl") -> None:
    local_rank = int(__import__("os").environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    if not dist.is_initialized():
        dist.init_process_group(backend=backend)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    setup()
    for _ in range(args.steps):
        t = torch.ones(1, device="cuda")
        dist.all_reduce(t)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
