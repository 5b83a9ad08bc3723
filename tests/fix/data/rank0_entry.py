"""Entry point launched by torchrun on every node."""
import os

import torch.distributed as dist


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    if int(os.environ["RANK"]) == 0:
        # Keep the other ranks quiet.
        os.environ["NCCL_DEBUG"] = "INFO"
    os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"
    dist.init_process_group("nccl", device_id=local_rank)


if __name__ == "__main__":
    main()
