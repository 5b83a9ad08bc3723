// NCCL's topology XML (NCCL_TOPO_DUMP_FILE output, or a hand-written NCCL_TOPO_FILE):
// <system version="1"> with <cpu>, <pci>, <gpu>, <nic>, <net> and <nvlink> elements.
#pragma once

#include <string>

#include "topology/load_result.hpp"

namespace ff::topology {

LoadResult load_nccl_topo_file(const std::string& path);
LoadResult parse_nccl_topo(const std::string& text, const std::string& origin);

}  // namespace ff::topology
