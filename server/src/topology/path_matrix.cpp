#include "topology/path_matrix.hpp"

#include <algorithm>

namespace ff::topology {

namespace {

bool is_cpu_side(DeviceKind k) {
  return k == DeviceKind::Machine || k == DeviceKind::Package || k == DeviceKind::Group;
}

bool numa_overlap(const Device& a, const Device& b) {
  for (int x : a.numa_nodes)
    if (std::find(b.numa_nodes.begin(), b.numa_nodes.end(), x) != b.numa_nodes.end()) return true;
  return false;
}

}  // namespace

Link tree_path(const Topology& t, int a, int b) {
  if (a == b) return {PathType::Self, 0};
  if (t.at(a).parent < 0 || t.at(b).parent < 0) return {};
  // Chains from each device up to the root, device first.
  std::vector<int> ca{a}, cb{b};
  for (int p : t.ancestors(a)) ca.push_back(p);
  for (int p : t.ancestors(b)) cb.push_back(p);
  int lca = -1;
  std::size_t ia = 0, ib = 0;
  for (ia = 0; ia < ca.size() && lca < 0; ++ia) {
    auto it = std::find(cb.begin(), cb.end(), ca[ia]);
    if (it != cb.end()) {
      lca = ca[ia];
      ib = static_cast<std::size_t>(it - cb.begin());
    }
  }
  if (lca < 0) return {PathType::SYS, 0};  // two separate trees: nothing in common
  --ia;
  const Device& top = t.at(lca);
  if (top.kind == DeviceKind::HostBridge) return {PathType::PHB, 0};
  if (top.kind == DeviceKind::Bridge || top.kind == DeviceKind::Gpu ||
      top.kind == DeviceKind::Nic || top.kind == DeviceKind::PciDevice) {
    // Bridges strictly between each device and the common bridge. In hwloc's shape one
    // switch is an upstream port with one downstream port per device, so "the same switch"
    // means at most one bridge on each side. NCCL's XML leaves the downstream port out.
    auto bridges = [&](const std::vector<int>& chain, std::size_t upto) {
      int n = 0;
      for (std::size_t i = 1; i < upto; ++i)
        if (t.at(chain[i]).kind == DeviceKind::Bridge) ++n;
      if (t.pci_elements_are_switches && upto > 0) ++n;
      return n;
    };
    int na = bridges(ca, ia), nb = bridges(cb, ib);
    return {(na <= 1 && nb <= 1) ? PathType::PIX : PathType::PXB, 0};
  }
  if (is_cpu_side(top.kind)) {
    const Device& da = t.at(a);
    const Device& db = t.at(b);
    // Different host bridges: NODE when both are local to the same NUMA node, SYS when
    // the path crosses the CPU interconnect.
    if (!da.numa_nodes.empty() && !db.numa_nodes.empty())
      return {numa_overlap(da, db) ? PathType::NODE : PathType::SYS, 0};
    return {top.kind == DeviceKind::Machine ? PathType::SYS : PathType::NODE, 0};
  }
  return {};
}

Link path_between(const Topology& t, int a, int b) {
  if (a == b) return {PathType::Self, 0};
  auto it = t.given.find({a, b});
  if (it != t.given.end()) return it->second;
  it = t.given.find({b, a});
  if (it != t.given.end()) return it->second;
  return tree_path(t, a, b);
}

PathMatrix build_matrix(const Topology& t) {
  PathMatrix m;
  m.devices = t.gpus;
  m.devices.insert(m.devices.end(), t.nics.begin(), t.nics.end());
  m.cells.assign(m.devices.size(), std::vector<Link>(m.devices.size()));
  for (std::size_t r = 0; r < m.devices.size(); ++r)
    for (std::size_t c = 0; c < m.devices.size(); ++c)
      m.cells[r][c] = path_between(t, m.devices[r], m.devices[c]);
  return m;
}

}  // namespace ff::topology
