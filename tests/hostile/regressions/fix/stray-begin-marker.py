import os
# >>> firstfault:nccl-ib-hca >>>
import torch.distributed as dist

def main():
    dist.init_process_group("nccl")
