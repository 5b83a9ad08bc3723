# Stub torch for running entry points in tests: init_process_group prints NCCL_IB_HCA.
from . import distributed  # noqa: F401


class _Cuda:
    @staticmethod
    def set_device(_):
        pass


cuda = _Cuda()


def ones(*_a, **_k):
    return None
