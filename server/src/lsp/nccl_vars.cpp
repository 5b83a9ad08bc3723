#include "lsp/nccl_vars.hpp"

#include <array>

namespace ff::lsp {

namespace {

constexpr std::array kVars = {
    EnvVarDoc{"NCCL_IB_HCA", "NCCL", "unset: every active RDMA port",
              "Chooses which RDMA devices (and ports) the InfiniBand/RoCE transport may use. "
              "When nothing survives the filter NCCL reports `NET/IB : No device found.` and "
              "falls back to the next network, usually TCP sockets.",
              "`<hca>[:<port>]` entries, comma-separated: `mlx5` (all mlx5 devices), "
              "`=mlx5_0:1,mlx5_1:1` (port 1 of two exact devices), `^=mlx5_1,mlx5_4` (all but "
              "two). Without `=` a name is a prefix. A missing port means all ports; only "
              "ACTIVE ports are kept."},
    EnvVarDoc{"NCCL_SOCKET_IFNAME", "NCCL", "auto: `ib*` first, then anything but docker/lo/virbr",
              "The IP interfaces used for bootstrap, for the TCP socket transport and for the "
              "out-of-band socket of InfiniBand. A wrong value stops ranks finding each other.",
              "Same list syntax as `NCCL_IB_HCA`: `eth0`, `=eth0`, `^docker,lo`. A value of one "
              "character is ignored. The choice shows as `Bootstrap: Using eth0:10.1.2.3<0>`."},
    EnvVarDoc{"NCCL_DEBUG", "NCCL", "unset: nothing printed",
              "How much NCCL logs. Set `INFO` when collecting evidence for a failure; `WARN` "
              "shows only the warnings.",
              "`VERSION`, `WARN`, `INFO`, `ABORT` or `TRACE`."},
    EnvVarDoc{"NCCL_DEBUG_SUBSYS", "NCCL", "`INIT,ENV` (2.23+: `INIT,BOOTSTRAP,ENV`)",
              "Which subsystems log at `INFO`. Per-NIC GPUDirect lines and topology dumps are "
              "hidden by default: ask for `INIT,NET,GRAPH,ENV` or `ALL` when diagnosing.",
              "Comma-separated subsystem names (INIT, COLL, P2P, SHM, NET, GRAPH, TUNING, ENV, "
              "ALLOC, CALL, PROXY, NVLS, BOOTSTRAP, REG, RAS, ALL); a leading `^` inverts."},
    EnvVarDoc{"NCCL_IB_GID_INDEX", "NCCL", "-1 (auto: a RoCE v2 IPv4 GID)",
              "The GID table index used on RoCE. A wrong index breaks connection setup between "
              "hosts on RoCE fabrics.",
              "An integer index into the port's GID table (see `show_gids`); `-1` for auto."},
    EnvVarDoc{"NCCL_P2P_DISABLE", "NCCL", "0",
              "`1` turns off GPU-to-GPU peer-to-peer (NVLink/PCIe) transfers; same-host peers "
              "then go through shared memory or the network. A workaround for broken P2P "
              "(IOMMU/ACS), at a bandwidth cost.",
              "`0` or `1`."},
    EnvVarDoc{"NCCL_P2P_LEVEL", "NCCL", "auto (PXB)",
              "The farthest topology distance at which P2P is still used.",
              "`LOC`, `NVL`, `PIX`, `PXB`, `PHB`, `SYS`, or the legacy integers 0-4."},
    EnvVarDoc{"NCCL_SHM_DISABLE", "NCCL", "0",
              "`1` turns off the host shared-memory transport; same-host pairs without P2P "
              "then use the network. Useful when `/dev/shm` is too small in containers.",
              "`0` or `1`."},
    EnvVarDoc{"NCCL_NET_GDR_LEVEL", "NCCL", "auto (PXB, or P2C on C2C systems)",
              "The farthest GPU-to-NIC distance at which GPUDirect RDMA is used (formerly "
              "`NCCL_IB_GDR_LEVEL`).",
              "`LOC`, `PIX`, `PXB`, `PHB`, `SYS` (same scale as `NCCL_P2P_LEVEL`) or 0-4."},
    EnvVarDoc{"NCCL_IB_DISABLE", "NCCL", "0",
              "`1` keeps NCCL off InfiniBand/RoCE; the next network (TCP sockets or a plugin) "
              "is used instead. Slow, but isolates fabric problems.",
              "`0` or `1`."},
    EnvVarDoc{"NCCL_CUMEM_ENABLE", "NCCL", "auto",
              "Whether NCCL allocates its buffers with the cuMem/VMM API and shares them by "
              "file descriptor. Turning it off (`0`) is a known workaround for `Cuda failure "
              "401` in containers.",
              "`0` or `1`."},
    EnvVarDoc{"NCCL_NVLS_ENABLE", "NCCL", "2 (auto)",
              "NVLink SHARP (NVSwitch multicast). Set `0` when binding NVLS multicast memory "
              "fails.",
              "`0`, `1` or `2` (auto)."},
    EnvVarDoc{"NCCL_IB_TIMEOUT", "NCCL", "20 (18 in 2.14-2.22, 14 before)",
              "The InfiniBand verbs ACK timeout: 4.096 us x 2^value per retry. Raise it on "
              "congested or lossy fabrics that report retry-exceeded errors.",
              "An integer exponent, 1-31."},
    EnvVarDoc{"NCCL_IB_RETRY_CNT", "NCCL", "7",
              "How many times the verbs layer retries before failing with "
              "`IBV_WC_RETRY_EXC_ERR`.",
              "An integer, 0-7."},
    EnvVarDoc{"NCCL_BUFFSIZE", "NCCL", "4194304 (4 MiB)",
              "Size of the buffers NCCL allocates per channel and peer. Lowering it helps when "
              "NCCL itself runs out of GPU memory.",
              "A byte count, e.g. `2097152`."},
    EnvVarDoc{"NCCL_ALGO", "NCCL", "unset: NCCL's tuner decides",
              "Restricts the collective algorithms. Too strict a value makes NCCL fail with "
              "`No algorithm/protocol available`.",
              "Comma-separated names: `Ring`, `Tree`, `CollNet`, `NVLS`, `NVLSTree`, `PAT`; a "
              "leading `^` excludes."},
    EnvVarDoc{"NCCL_PROTO", "NCCL", "unset: NCCL's tuner decides",
              "Restricts the wire protocols. `^LL128` is a common workaround for data "
              "corruption on some platforms.",
              "Comma-separated names: `LL`, `LL128`, `Simple`; a leading `^` excludes."},
    EnvVarDoc{"TORCH_NCCL_ASYNC_ERROR_HANDLING", "PyTorch c10d",
              "3 in recent PyTorch; torchrun exports 1",
              "What the process group does when a collective fails or times out (replaces the "
              "deprecated `NCCL_ASYNC_ERROR_HANDLING`). PyTorch's variable, not NCCL's.",
              "`0` nothing, `1` abort communicators and tear down, `2` clean up only, `3` tear "
              "down without aborting."},
    EnvVarDoc{"TORCH_NCCL_BLOCKING_WAIT", "PyTorch c10d", "0",
              "`1` makes `work.wait()` block and raise on timeout instead of relying on the "
              "watchdog thread.",
              "`0` or `1`."},
    EnvVarDoc{"TORCH_NCCL_TRACE_BUFFER_SIZE", "PyTorch c10d", "2000 in recent releases",
              "Number of collectives the Flight Recorder keeps per process group; `0` disables "
              "it. Needed to see which rank was missing from a hung collective.",
              "An integer number of entries."},
    EnvVarDoc{"TORCH_NCCL_DUMP_ON_TIMEOUT", "PyTorch c10d", "1 in recent releases",
              "Writes the Flight Recorder buffer to a file when the watchdog detects a timeout "
              "(prefix set by `TORCH_NCCL_DEBUG_INFO_TEMP_FILE`).",
              "`0` or `1`."},
    EnvVarDoc{"TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", "PyTorch c10d", "480",
              "How long the heartbeat monitor waits for a stuck watchdog before it kills the "
              "process.",
              "Seconds, an integer."},
    EnvVarDoc{"TORCH_NCCL_ENABLE_MONITORING", "PyTorch c10d", "1",
              "Turns the heartbeat monitor (the watchdog of the watchdog) on or off.",
              "`0` or `1`."},
};

}  // namespace

std::span<const EnvVarDoc> env_var_docs() {
  return kVars;
}

const EnvVarDoc* find_env_var(std::string_view name) {
  for (const auto& v : kVars)
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace ff::lsp
