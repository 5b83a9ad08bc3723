#include "fix/topology_source.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "topology/hwloc_loader.hpp"
#include "topology/nccl_log_topology.hpp"
#include "topology/nccl_topo_parser.hpp"
#include "topology/nvidia_smi_parser.hpp"

namespace ff::fix {

namespace fs = std::filesystem;

namespace {

std::string head_of(const std::string& path, std::size_t n) {
  std::ifstream f(path, std::ios::binary);
  std::string s(n, '\0');
  f.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<std::size_t>(f.gcount()));
  return s;
}

bool usable(const topology::Recommendation& r) {
  return std::any_of(r.ranks.begin(), r.ranks.end(),
                     [](const auto& b) { return !b.nccl_ib_hca.empty() || !b.hca.empty(); });
}

std::size_t gpus(const topology::Recommendation& r) {
  return r.ranks.size();
}

}  // namespace

topology::LoadResult load_topology_file(const std::string& path, std::string* kind) {
  std::string h = head_of(path, 4096);
  std::string k;
  topology::LoadResult r;
  // What the file holds decides first: hwloc's and NCCL's XML by their root element, an
  // NCCL_DEBUG=INFO log by its INFO lines (the topology NCCL printed). A .log/.out/.err file
  // without nvidia-smi's GPU0 column is read as a log too; the rest as `nvidia-smi topo -m`,
  // whose parser says what it expected.
  if (h.find("<topology") != std::string::npos) {
    k = "hwloc XML";
    r = topology::load_hwloc_xml(path);
  } else if (h.find("<system") != std::string::npos) {
    k = "NCCL topology XML";
    r = topology::load_nccl_topo_file(path);
  } else if (h.find("NCCL INFO") != std::string::npos ||
             (h.find("GPU0") == std::string::npos &&
              (path.ends_with(".log") || path.ends_with(".out") || path.ends_with(".err")))) {
    k = "NCCL log";
    r = topology::load_nccl_log_file(path);
  } else {
    k = "nvidia-smi topo -m";
    r = topology::load_nvidia_smi_file(path);
  }
  if (kind) *kind = k;
  return r;
}

TopologyChoice choose_topology(const TopologyInputs& in) {
  TopologyChoice c;
  auto take = [&](topology::LoadResult lr, const std::string& what) {
    if (!lr.ok()) {
      c.tried.push_back(what + ": " + lr.error->message);
      return false;
    }
    auto rec = topology::recommend_binding(*lr.topology);
    if (gpus(rec) == 0 || !usable(rec)) {
      c.tried.push_back(what + ": " + (gpus(rec) == 0 ? "no GPUs" : "no RDMA NIC names"));
      return false;
    }
    c.source = what;
    c.table = binding_table(rec, what);
    c.recommendation = std::move(rec);
    return true;
  };
  // 1. The file the caller named: the user's explicit choice wins.
  if (!in.topology_file.empty()) {
    std::error_code ec;
    if (!fs::is_regular_file(in.topology_file, ec)) {
      c.error = in.topology_file + ": cannot read the topology file";
      return c;
    }
    std::string kind;
    auto lr = load_topology_file(in.topology_file, &kind);
    if (!lr.ok()) {
      c.error = lr.error->to_string();
      return c;
    }
    if (take(std::move(lr), kind + " " + in.topology_file)) return c;
  }
  // 2. Topology files in the workspace (sorted, so the choice is deterministic).
  if (!in.workspace.empty()) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::recursive_directory_iterator
             it(in.workspace, fs::directory_options::skip_permission_denied, ec),
         end;
         !ec && it != end; it.increment(ec)) {
      if (it.depth() > 1) {
        it.disable_recursion_pending();
        continue;
      }
      if (it->is_directory(ec)) {
        std::string n = it->path().filename().string();
        if (!n.empty() && n[0] == '.') it.disable_recursion_pending();
        continue;
      }
      auto ext = it->path().extension().string();
      if ((ext == ".xml" || ext == ".txt") && it->is_regular_file(ec) &&
          it->file_size(ec) < (4u << 20))
        files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& p : files) {
      std::string ps = p.string();
      if (std::find(in.skip.begin(), in.skip.end(), ps) != in.skip.end()) continue;
      std::string h = head_of(ps, 8192);
      bool topo = p.extension() == ".xml" ? (h.find("<topology") != std::string::npos ||
                                             h.find("<system") != std::string::npos)
                                          : (h.find("GPU0") != std::string::npos &&
                                             (h.find("Legend") != std::string::npos ||
                                              h.find("CPU Affinity") != std::string::npos));
      if (!topo) continue;
      std::string kind;
      auto lr = load_topology_file(ps, &kind);
      if (take(std::move(lr), kind + " " + ps)) return c;
    }
  }
  // 3. The logs: what NCCL saw on the failing node. Partial (no path types, and the NICs NCCL
  // picked may be the fault), so a full topology of the node comes first.
  for (const auto& [name, text] : in.logs)
    if (take(topology::parse_nccl_log(std::string(text), name), "NCCL log " + name)) return c;
  // 4. This machine.
  if (in.live && take(topology::load_live(), "this machine (hwloc)")) return c;
  c.missing = "no topology with GPUs and RDMA NICs (" + std::to_string(c.tried.size()) +
              " looked at); on a GPU node of the job run `lstopo --of xml node.xml` (hwloc) or "
              "`nvidia-smi topo -m > topo.txt`, then pass the file with --topology or put it in "
              "the workspace";
  return c;
}

}  // namespace ff::fix
