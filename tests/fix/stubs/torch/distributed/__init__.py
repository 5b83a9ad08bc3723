import os
import sys


def is_initialized():
    return False


def init_process_group(*_a, **_k):
    print("hca=" + os.environ.get("NCCL_IB_HCA", "") + " numa=none")
    sys.exit(0)
