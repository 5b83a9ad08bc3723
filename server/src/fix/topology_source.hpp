// Where the binding comes from: the best topology available, in this order: a topology
// file the caller named (--topology: an explicit choice wins), an hwloc XML / NCCL topology
// XML / `nvidia-smi topo -m` file in the workspace, what the logs themselves reveal (NCCL
// INFO lines: partial, and the NICs NCCL used may be the fault), this machine. Does I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fix/generators.hpp"
#include "topology/binding.hpp"
#include "topology/load_result.hpp"

namespace ff::fix {

struct TopologyInputs {
  std::vector<std::pair<std::string, std::string_view>> logs;  // name, text
  std::string topology_file;      // --topology; an error when it does not load
  std::string workspace;          // scanned (two levels) for topology files; empty: not
  std::vector<std::string> skip;  // files not to take as topology (the launch files)
  bool live = true;               // fall back to this machine
};

struct TopologyChoice {
  std::optional<topology::Recommendation> recommendation;
  std::optional<BindingTable> table;  // set when the recommendation names an HCA
  std::string source;                 // "hwloc XML node.xml", "NCCL log job.log", "this machine"
  std::vector<std::string> tried;     // what was looked at and why it was not used
  std::string error;                  // --topology did not load (one line naming the file)
  std::string missing;                // no topology had GPUs and NICs: what to export
};

TopologyChoice choose_topology(const TopologyInputs& in);

// Loads a topology file of any kind we read, told apart by its first bytes: hwloc XML, NCCL
// topology XML, an NCCL_DEBUG=INFO log, nvidia-smi text. `kind` names the one it was read as.
topology::LoadResult load_topology_file(const std::string& path, std::string* kind = nullptr);

}  // namespace ff::fix
