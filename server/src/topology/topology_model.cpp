#include "topology/topology_model.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <tuple>

namespace ff::topology {

const char* to_string(DeviceKind k) {
  switch (k) {
    case DeviceKind::Machine:
      return "machine";
    case DeviceKind::Package:
      return "package";
    case DeviceKind::Group:
      return "group";
    case DeviceKind::HostBridge:
      return "host-bridge";
    case DeviceKind::Bridge:
      return "bridge";
    case DeviceKind::Gpu:
      return "gpu";
    case DeviceKind::Nic:
      return "nic";
    case DeviceKind::PciDevice:
      return "pci-device";
  }
  return "?";
}

const char* to_string(PathType t) {
  switch (t) {
    case PathType::Self:
      return "X";
    case PathType::NVLink:
      return "NV";
    case PathType::PIX:
      return "PIX";
    case PathType::PXB:
      return "PXB";
    case PathType::PHB:
      return "PHB";
    case PathType::NODE:
      return "NODE";
    case PathType::SYS:
      return "SYS";
    case PathType::Unknown:
      return "?";
  }
  return "?";
}

const char* to_string(Source s) {
  switch (s) {
    case Source::Live:
      return "live";
    case Source::HwlocXml:
      return "hwloc-xml";
    case Source::NvidiaSmi:
      return "nvidia-smi";
    case Source::NcclTopo:
      return "nccl-topo";
    case Source::NcclLog:
      return "nccl-log";
  }
  return "?";
}

std::string Link::str() const {
  if (type == PathType::NVLink) return "NV" + std::to_string(nvlinks);
  return to_string(type);
}

std::optional<Link> parse_link(const std::string& cell) {
  if (cell == "X") return Link{PathType::Self, 0};
  if (cell == "PIX") return Link{PathType::PIX, 0};
  if (cell == "PXB") return Link{PathType::PXB, 0};
  if (cell == "PHB") return Link{PathType::PHB, 0};
  if (cell == "NODE") return Link{PathType::NODE, 0};
  // SOC is what drivers before ~384 printed for what is now SYS.
  if (cell == "SYS" || cell == "SOC") return Link{PathType::SYS, 0};
  if (cell.size() > 2 && cell.size() <= 5 && cell.compare(0, 2, "NV") == 0) {
    int n = 0;
    for (std::size_t i = 2; i < cell.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(cell[i]))) return std::nullopt;
      n = n * 10 + (cell[i] - '0');
    }
    return Link{PathType::NVLink, n};
  }
  return std::nullopt;
}

int Topology::add(Device d, int parent_index) {
  d.parent = parent_index;
  devices.push_back(std::move(d));
  int idx = static_cast<int>(devices.size()) - 1;
  if (parent_index >= 0) devices[static_cast<std::size_t>(parent_index)].children.push_back(idx);
  return idx;
}

namespace {

// Sort key for a bus id; devices without one keep their input order (stable sort).
std::tuple<unsigned, unsigned, unsigned, unsigned> bus_key(const std::string& id) {
  unsigned d = 0, b = 0, s = 0, f = 0;
  if (std::sscanf(id.c_str(), "%x:%x:%x.%x", &d, &b, &s, &f) != 4) return {~0u, 0, 0, 0};
  return {d, b, s, f};
}

}  // namespace

void Topology::finalize() {
  gpus.clear();
  nics.clear();
  for (int i = 0; i < static_cast<int>(devices.size()); ++i) {
    if (devices[static_cast<std::size_t>(i)].kind == DeviceKind::Gpu) gpus.push_back(i);
    if (devices[static_cast<std::size_t>(i)].kind == DeviceKind::Nic) nics.push_back(i);
  }
  // nvidia-smi and CUDA (with CUDA_DEVICE_ORDER=PCI_BUS_ID, which NCCL jobs should use)
  // number GPUs by PCI bus id. Inputs without bus ids are already in their own order.
  auto by_bus = [this](int a, int b) {
    const auto& da = at(a);
    const auto& db = at(b);
    if (da.bus_id.empty() || db.bus_id.empty()) return false;
    return bus_key(da.bus_id) < bus_key(db.bus_id);
  };
  bool all_gpus_have_bus =
      std::all_of(gpus.begin(), gpus.end(), [this](int g) { return !at(g).bus_id.empty(); });
  if (all_gpus_have_bus) std::stable_sort(gpus.begin(), gpus.end(), by_bus);
  bool all_nics_have_bus =
      std::all_of(nics.begin(), nics.end(), [this](int n) { return !at(n).bus_id.empty(); });
  if (all_nics_have_bus) std::stable_sort(nics.begin(), nics.end(), by_bus);
  for (std::size_t i = 0; i < gpus.size(); ++i)
    devices[static_cast<std::size_t>(gpus[i])].label = "GPU" + std::to_string(i);
  for (std::size_t i = 0; i < nics.size(); ++i)
    devices[static_cast<std::size_t>(nics[i])].label = "NIC" + std::to_string(i);
}

bool Topology::has_tree() const {
  for (int g : gpus)
    if (at(g).parent >= 0) return true;
  for (int n : nics)
    if (at(n).parent >= 0) return true;
  return false;
}

std::vector<int> Topology::ancestors(int i) const {
  std::vector<int> out;
  // The bound guards against a cycle should a loader ever produce one.
  for (int p = at(i).parent; p >= 0 && out.size() <= devices.size(); p = at(p).parent)
    out.push_back(p);
  return out;
}

int Topology::find_label(const std::string& label) const {
  for (int i = 0; i < static_cast<int>(devices.size()); ++i)
    if (at(i).label == label) return i;
  return -1;
}

std::vector<int> Topology::rdma_nics() const {
  std::vector<int> out;
  for (int n : nics)
    if (at(n).rdma) out.push_back(n);
  return out;
}

std::optional<std::string> normalize_bus_id(const std::string& text) {
  unsigned d = 0, b = 0, s = 0, f = 0;
  char tail = 0;
  std::string t;
  for (char c : text) t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (std::sscanf(t.c_str(), "%x:%x:%x.%x%c", &d, &b, &s, &f, &tail) == 4) {
  } else if (std::sscanf(t.c_str(), "%x:%x.%x%c", &b, &s, &f, &tail) == 3) {
    d = 0;
  } else {
    // NCCL's compact form: the bus id as one hex number without separators, e.g. "3b000"
    // is bus 0x3b, device 0, function 0 and "10003b000" has domain 1.
    if (t.empty() || t.size() > 12) return std::nullopt;
    for (char c : t)
      if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    unsigned long long v = std::stoull(t, nullptr, 16);
    // NCCL's int64ToBusId: function in the low nibble, then device, bus and domain.
    f = static_cast<unsigned>(v & 0xf);
    s = static_cast<unsigned>((v >> 4) & 0xff);
    b = static_cast<unsigned>((v >> 12) & 0xff);
    d = static_cast<unsigned>(v >> 20);
  }
  if (d > 0xffff || b > 0xff || s > 0x1f || f > 0x7) return std::nullopt;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", d, b, s, f);
  return std::string(buf);
}

}  // namespace ff::topology
