// Path types between devices, nvidia-smi style. A path is either stated by the input
// (Topology::given: nvidia-smi text, NCCL NVLink counts) or computed from the tree.
#pragma once

#include <vector>

#include "topology/topology_model.hpp"

namespace ff::topology {

// The PCIe path between two devices read from the tree (no NVLink), Unknown without one.
Link tree_path(const Topology& t, int a, int b);

// The path the matrix shows: what the input states, else the tree path.
Link path_between(const Topology& t, int a, int b);

// The GPU+NIC square matrix in numbering order: rows/cols are gpus then nics.
struct PathMatrix {
  std::vector<int> devices;
  std::vector<std::vector<Link>> cells;
  const Link& at(std::size_t r, std::size_t c) const { return cells[r][c]; }
};
PathMatrix build_matrix(const Topology& t);

}  // namespace ff::topology
