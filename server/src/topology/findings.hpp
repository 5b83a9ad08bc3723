// Checks that read only the topology (so they run on files as well as live): GPU->NIC
// distance, NIC sharing, and whether NCCL_IB_HCA / NCCL_SOCKET_IFNAME select what they
// should. The checks that need the running machine are in host_checks.hpp.
#pragma once

#include <vector>

#include "topology/binding.hpp"
#include "topology/finding.hpp"
#include "topology/topology_model.hpp"

namespace ff::topology {

std::vector<Finding> topology_findings(const Topology& t, const Recommendation& rec,
                                       const CheckOptions& opt);

// Everything: topology findings then host checks.
std::vector<Finding> run_checks(const Topology& t, const Recommendation& rec,
                                const CheckOptions& opt);

}  // namespace ff::topology
