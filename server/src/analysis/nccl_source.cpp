#include "analysis/nccl_source.hpp"

#include <array>
#include <utility>

namespace ff::analysis {

namespace {

// Path fragments of NCCL's tree (2.10 to 2.30: src/transport, src/misc, src/graph, src/os,
// src/include, src/plugin), most specific first. A fragment matches at a path component
// boundary, so "socket" names misc/socket.cc and os/socket.cc, never net_socket.cc.
// Network plugins log through NCCL's logger with their own file names: the RDMA/SHARP
// plugin (nccl-rdma-sharp-plugins, rccl-rdma-sharp-plugins) has src/ib_plugin.c, its verbs
// transport, which fails as NCCL's own net_ib does, and src/ucx_plugin.c (ucx_rma_plugin.c,
// ucx_uct_plugin.c), the plugin's own UCX transports. Its src/sharp_plugin.c names no
// subsystem: a SHARP (CollNet) set-up error is one NCCL goes on from, without CollNet.
constexpr std::array<std::pair<std::string_view, std::string_view>, 24> kSubsystems = {{
    {"ib_plugin", "ib"},
    {"ucx_plugin", "net-plugin"},
    {"ucx_rma_plugin", "net-plugin"},
    {"ucx_uct_plugin", "net-plugin"},
    {"gdrwrap", "gdr"},  // GDRCopy
    {"net_ib", "ib"},    // transport/net_ib.cc and the 2.24+ net_ib/ directory
    {"ibvwrap", "ib"},   // libibverbs calls
    {"ibvsymbols", "ib"},
    {"ibvcore", "ib"},
    {"net_socket", "socket"},    // the socket network transport
    {"socket", "socket"},        // misc/socket.cc, os/socket.cc, include/socket.h
    {"bootstrap", "socket"},     // bootstrap.cc: TCP out-of-band setup
    {"shmutils", "shm"},         // /dev/shm segments
    {"shm", "shm"},              // transport/shm.cc, include/shm.h
    {"p2p", "p2p"},              // transport/p2p.cc
    {"nvls", "nvlink-fabric"},   // NVLink SHARP
    {"mnnvl", "nvlink-fabric"},  // multi-node NVLink
    {"nvmlwrap", "config"},      // NVML cannot see a device CUDA uses
    {"topo", "config"},          // graph/topo.cc: topology detection
    {"xml", "config"},           // graph/xml.cc: the topology XML, NCCL_TOPO_FILE
    {"paths", "config"},         // graph/paths.cc
    {"search", "config"},        // graph/search.cc, NCCL_GRAPH_FILE
    {"tuning", "config"},        // graph/tuning.cc
    {"cudawrap", "cuda"},        // CUDA driver calls
}};

// The file's base name without extension, and its directory, as separate components.
bool has_component(std::string_view file, std::string_view fragment) {
  std::size_t at = 0;
  while ((at = file.find(fragment, at)) != std::string_view::npos) {
    bool starts = at == 0 || file[at - 1] == '/';
    std::size_t end = at + fragment.size();
    bool ends = end == file.size() || file[end] == '.' || file[end] == '/' || file[end] == '_';
    if (starts && ends) return true;
    ++at;
  }
  return false;
}

}  // namespace

std::optional<std::string_view> category_of_nccl_file(std::string_view file) {
  // "transport/net_ib.cc:1295" may arrive with its line number.
  if (auto colon = file.find(':'); colon != std::string_view::npos) file = file.substr(0, colon);
  if (file.empty()) return std::nullopt;
  for (const auto& [fragment, category] : kSubsystems)
    if (has_component(file, fragment)) return category;
  return std::nullopt;
}

}  // namespace ff::analysis
