// `nvidia-smi topo -m` text. The matrix is taken as given (there is no tree in it); the
// columns are found from the header, so old (mlx5_N columns, no NUMA column) and new
// (NICn columns, NIC Legend, GPU NUMA ID) layouts, tabs or spaces, all parse the same way.
#pragma once

#include <string>

#include "topology/load_result.hpp"

namespace ff::topology {

LoadResult load_nvidia_smi_file(const std::string& path);
LoadResult parse_nvidia_smi(const std::string& text, const std::string& origin);

}  // namespace ff::topology
