// Checks that need the running machine: CPU binding of this process, the GPUDirect RDMA
// kernel module, IOMMU, PCIe ACS above the GPUs, /dev/shm size and the memlock limit.
// For a file input each is reported as "skipped (input is a file)". All paths are read
// below CheckOptions::sysfs_root so tests can use a fake tree.
#pragma once

#include <vector>

#include "topology/finding.hpp"
#include "topology/topology_model.hpp"

namespace ff::topology {

std::vector<Finding> host_findings(const Topology& t, const CheckOptions& opt);

// Reads a PCI config space dump (sysfs `config`) and returns the ACS control register, or
// nullopt when there is no ACS capability. `readable_ext` is false when the dump has no
// extended space (non-root reads of sysfs give only the first 64 or 256 bytes).
std::optional<std::uint16_t> acs_control(const std::string& config, bool& readable_ext);

}  // namespace ff::topology
