// libFuzzer: the topology parsers. The first byte picks one: nvidia-smi text, NCCL topology
// XML, the XML reader alone, NCCL log topology lines, cpulists, or an hwloc XML export
// (written to a file, since hwloc is given paths). A topology that parses is then checked
// and rendered in text and JSON, as `firstfault topo` does.
#include <hwloc.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "jsonio/document_text.hpp"
#include "topology/cpulist.hpp"
#include "topology/hwloc_loader.hpp"
#include "topology/nccl_log_topology.hpp"
#include "topology/nccl_topo_parser.hpp"
#include "topology/nvidia_smi_parser.hpp"
#include "topology/topo_report.hpp"
#include "topology/xml_reader.hpp"

namespace {

void render_as_topo_does(ff::topology::LoadResult loaded) {
  if (!loaded.ok()) return;
  ff::topology::CheckOptions opt;
  opt.env["NCCL_IB_HCA"] = "=mlx5_0:1,mlx5_1";
  opt.env["NCCL_SOCKET_IFNAME"] = "^docker,lo";
  auto a = ff::topology::analyze_topology(std::move(*loaded.topology), opt);
  (void)ff::topology::render_text(a);
  (void)ff::jsonio::document_text(ff::topology::render_json(a));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      render_as_topo_does(ff::topology::parse_nvidia_smi(text, "fuzz.txt"));
      break;
    case 1:
      render_as_topo_does(ff::topology::parse_nccl_topo(text, "fuzz.xml"));
      break;
    case 2: {
      ff::topology::XmlError err;
      (void)ff::topology::parse_xml(text, err);
      break;
    }
    case 3:
      render_as_topo_does(ff::topology::parse_nccl_log(text, "fuzz.log"));
      break;
    case 4:
      (void)ff::topology::parse_cpulist(text);
      (void)ff::topology::parse_hex_mask(text);
      break;
    case 5: {
      // FF_FUZZ_SKIP_HWLOC=1: leave hwloc out while its known crash is open
      // (tests/hostile/regressions/pending/README.md).
      static const bool skip = std::getenv("FF_FUZZ_SKIP_HWLOC") != nullptr;
      if (skip) break;
      // One topology held for the whole run keeps hwloc's plugins loaded. hwloc unloads
      // them with its last topology, and libxml2's one-time global state (allocated at
      // its first parse error) then looks leaked to LeakSanitizer: a false report that
      // stopped CI once (regressions/topology/libxml2-unloaded-state.xml).
      static hwloc_topology_t keep_plugins_loaded = [] {
        hwloc_topology_t t = nullptr;
        hwloc_topology_init(&t);
        return t;
      }();
      (void)keep_plugins_loaded;
      static const std::string path = "/tmp/ff-fuzz-hwloc-" + std::to_string(::getpid()) + ".xml";
      if (FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
        (void)ff::topology::load_hwloc_xml(path);
      }
      break;
    }
  }
  return 0;
}
