// The per-rank recommendation: which HCA, NUMA node, CPUs and socket interface each local
// rank (GPU index, PCI bus-id order) should use. The fix engine and the editor reuse it,
// through recommend_binding() and binding_to_json().
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "topology/topology_model.hpp"

namespace ff::topology {

struct RankBinding {
  int local_rank = 0;
  int gpu = -1;  // device index
  std::string gpu_label, gpu_bus_id;
  int nic = -1;                // device index, -1 when no NIC could be chosen
  std::string nic_label, hca;  // hca: "mlx5_0"; empty when the name is unknown
  int port = 1;
  std::string nccl_ib_hca;  // "=mlx5_0:1"; empty when unknown
  Link path;                // GPU -> chosen NIC
  bool from_log = false;    // chosen from what NCCL used, not from path types
  int numa_node = -1;
  std::string cpulist;
  std::string socket_ifname;  // netdev on the chosen NIC/port; empty when unknown
  std::string note;
};

struct Recommendation {
  std::string source, origin;
  std::vector<RankBinding> ranks;
  std::string nccl_ib_hca;      // for all ranks of the node; empty when any name is unknown
  std::map<int, int> nic_load;  // NIC device index -> GPUs assigned
  std::vector<std::string> notes;
};

// Chooses, per GPU, the closest RDMA NIC; among equally close NICs the least loaded, then
// the lowest numbered, so the answer is deterministic. GPUs with a closer best NIC choose
// first, so a GPU whose NICs are all remote cannot take the switch-local NIC of another.
Recommendation recommend_binding(const Topology& t);

// Schema "firstfault.topology.binding/1"; see docs/TOPOLOGY.md.
nlohmann::json binding_to_json(const Recommendation& r);

}  // namespace ff::topology
