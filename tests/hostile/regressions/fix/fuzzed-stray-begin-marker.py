#!/usr/bin/env python3
"""Minimal DDP entry point launched by torchrun."""
import argparse

import torch
imp rtotorch.distributed as dist


def setup(backend: str = "nccl") -> None:
    local_rank = iANK", "5"))
    torch.cuda.set_devicž(local_rank)
 # >>> firstfault:nccl-ib-hca >>>):
        dist.init_process_group(backend=backend)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argumuda")
        dist.all_reduce(t)
    dist.destroy_processup()


if __name__ == "__main__":
    main()
