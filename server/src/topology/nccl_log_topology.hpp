// The topology an NCCL INFO log reveals (NCCL_DEBUG=INFO): the NICs from "NET/IB : Using",
// the GPUs from "comm ... cudaDev N busId X", which NIC each GPU's channels went through,
// and the NCCL_* variables NCCL says it read. A log alone gives a partial topology: devices
// and observed use, but no path types.
#pragma once

#include <string>

#include "topology/load_result.hpp"

namespace ff::topology {

LoadResult load_nccl_log_file(const std::string& path);
LoadResult parse_nccl_log(const std::string& text, const std::string& origin);

}  // namespace ff::topology
