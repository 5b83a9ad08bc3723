// hwloc-based discovery: the machine we run on, or an hwloc XML export of a cluster node
// (`lstopo node.xml`). Both go through hwloc's own tree so the two agree exactly.
#pragma once

#include <string>

#include "topology/load_result.hpp"

namespace ff::topology {

LoadResult load_live();
LoadResult load_hwloc_xml(const std::string& path);

// How a PCI function is classified; exposed for tests. `osdev_names` and `osdev_types`
// are the OS devices under the function (hwloc types: 2 network, 3 OpenFabrics, 5 coproc).
bool is_nvidia_gpu(std::uint16_t vendor, std::uint16_t class_id, bool has_cuda_or_nvml_osdev);
bool is_rdma_nic(std::uint16_t vendor, std::uint16_t device_id, std::uint16_t class_id,
                 bool has_openfabrics_osdev);
bool looks_like_rdma_name(const std::string& name);

}  // namespace ff::topology
