#include "topology/nccl_topo_parser.hpp"

#include <algorithm>
#include <cstdlib>

#include "topology/cpulist.hpp"
#include "topology/hwloc_loader.hpp"
#include "topology/xml_reader.hpp"

namespace ff::topology {

namespace {

std::uint32_t hex_attr(const XmlElement& e, const char* name) {
  const std::string* v = e.attr(name);
  if (v == nullptr || v->empty()) return 0;
  return static_cast<std::uint32_t>(std::strtoul(v->c_str(), nullptr, 16));
}

const XmlElement* child(const XmlElement& e, const char* name) {
  for (const auto& c : e.children)
    if (c->name == name) return c.get();
  return nullptr;
}

struct Builder {
  Topology& t;
  std::string origin;
  // NVLink edges as NCCL states them: GPU bus id -> (target bus id, class, count).
  struct NvLink {
    int gpu;
    std::string target;
    std::uint32_t tclass;
    int count;
  };
  std::vector<NvLink> nvlinks;
  std::map<std::string, int> gpu_by_bus;

  void nic_from(const XmlElement& nic, Device base, int parent) {
    // One NIC device per distinct net name: a <nic> can list several ports of one HCA.
    std::map<std::string, int> by_name;
    for (const auto& net : nic.children) {
      if (net->name != "net") continue;
      std::string name = net->attr("name") ? *net->attr("name") : "";
      int port = net->attr("port") ? std::atoi(net->attr("port")->c_str()) : 0;
      const std::string* guid = net->attr("guid");
      bool has_guid = guid && std::strtoull(guid->c_str(), nullptr, 16) != 0;
      auto it = by_name.find(name);
      if (it == by_name.end()) {
        Device d = base;
        d.kind = DeviceKind::Nic;
        // NCCL's socket transport writes <net> for plain interfaces (no GUID); IB/RoCE
        // devices always carry the port GUID.
        d.rdma = d.rdma || has_guid || looks_like_rdma_name(name);
        if (d.rdma) {
          d.rdma_name = name;
        } else {
          d.netdevs.push_back(name);
        }
        d.name = name;
        it = by_name.emplace(name, t.add(std::move(d), parent)).first;
      }
      if (port > 0) t.devices[static_cast<std::size_t>(it->second)].ports.push_back(port);
    }
    if (by_name.empty()) {
      base.kind = DeviceKind::Nic;
      t.add(std::move(base), parent);
    }
  }

  void pci(const XmlElement& e, int parent, const Device& loc) {
    Device d;
    d.numa_nodes = loc.numa_nodes;
    d.cpulist = loc.cpulist;
    if (const std::string* b = e.attr("busid")) d.bus_id = normalize_bus_id(*b).value_or(*b);
    // NCCL writes the 24-bit class code (0x060400); the model keeps class+subclass.
    d.class_id = static_cast<std::uint16_t>(hex_attr(e, "class") >> 8);
    d.vendor = static_cast<std::uint16_t>(hex_attr(e, "vendor"));
    d.device_id = static_cast<std::uint16_t>(hex_attr(e, "device"));
    t.pci_devices++;
    if (const XmlElement* g = child(e, "gpu")) {
      d.kind = DeviceKind::Gpu;
      if (const std::string* sm = g->attr("sm")) d.name = "sm_" + *sm;
      int idx = t.add(d, parent);
      gpu_by_bus[d.bus_id] = idx;
      for (const auto& l : g->children) {
        if (l->name != "nvlink" || !l->attr("target")) continue;
        nvlinks.push_back({idx, normalize_bus_id(*l->attr("target")).value_or(*l->attr("target")),
                           hex_attr(*l, "tclass"),
                           l->attr("count") ? std::atoi(l->attr("count")->c_str()) : 1});
      }
      return;
    }
    if (const XmlElement* n = child(e, "nic")) {
      d.rdma = is_rdma_nic(d.vendor, d.device_id, d.class_id, false);
      nic_from(*n, d, parent);
      return;
    }
    bool has_pci_children = child(e, "pci") != nullptr;
    if (d.class_id == 0x0604 || has_pci_children) {
      d.kind = DeviceKind::Bridge;
      d.name = "PCIBridge";
      int idx = t.add(d, parent);
      for (const auto& c : e.children)
        if (c->name == "pci") pci(*c, idx, loc);
      return;
    }
    // Hand-written files (Azure) give bare <pci> elements: the class says what they are.
    if (d.class_id == 0x0300 || d.class_id == 0x0302) {
      d.kind = DeviceKind::Gpu;
      int idx = t.add(d, parent);
      gpu_by_bus[d.bus_id] = idx;
      return;
    }
    if (d.class_id == 0x0207 || is_rdma_nic(d.vendor, d.device_id, d.class_id, false)) {
      d.kind = DeviceKind::Nic;
      d.rdma = true;
      t.add(d, parent);
      return;
    }
    d.kind = DeviceKind::PciDevice;
    t.add(d, parent);
  }

  void cpu(const XmlElement& e, int machine) {
    Device pkg;
    pkg.kind = DeviceKind::Package;
    if (const std::string* n = e.attr("numaid")) {
      int id = std::atoi(n->c_str());
      if (id >= 0) pkg.numa_nodes.push_back(id);
      pkg.name = "CPU numa " + *n;
    }
    if (const std::string* a = e.attr("affinity")) {
      if (auto cpus = parse_hex_mask(*a)) {
        pkg.cpulist = format_cpulist(*cpus);
      } else {
        t.notes.push_back({e.line, "cpu affinity '" + *a + "' is not a hex mask; ignored"});
      }
    }
    t.packages++;
    t.numa_node_count++;
    Device loc = pkg;
    int p = t.add(pkg, machine);
    // NCCL's <cpu> is where PCI roots meet: model it as a package with a host bridge, so a
    // path through it is PHB and a path between two <cpu>s is SYS.
    Device hb;
    hb.kind = DeviceKind::HostBridge;
    hb.name = "HostBridge";
    hb.numa_nodes = loc.numa_nodes;
    hb.cpulist = loc.cpulist;
    int h = t.add(hb, p);
    for (const auto& c : e.children) {
      if (c->name == "pci") {
        pci(*c, h, loc);
      } else if (c->name == "nic") {
        Device d;
        d.numa_nodes = loc.numa_nodes;
        d.cpulist = loc.cpulist;
        nic_from(*c, d, h);
      }
    }
  }

  void nvlink_paths() {
    // GPU-to-GPU NVLinks are stated directly; NVSwitch links (class 0x0680) connect every
    // pair of GPUs that reach a switch, with the GPU's own link count.
    std::map<int, int> to_switch;
    for (const auto& l : nvlinks) {
      if ((l.tclass >> 8) == 0x0680) {
        to_switch[l.gpu] += l.count;
        continue;
      }
      auto it = gpu_by_bus.find(l.target);
      if (it == gpu_by_bus.end() || it->second == l.gpu) continue;
      auto& link = t.given[{l.gpu, it->second}];
      link.type = PathType::NVLink;
      link.nvlinks += l.count;
    }
    for (const auto& [a, na] : to_switch)
      for (const auto& [b, nb] : to_switch)
        if (a != b) t.given[{a, b}] = Link{PathType::NVLink, std::min(na, nb)};
  }
};

}  // namespace

LoadResult parse_nccl_topo(const std::string& text, const std::string& origin) {
  XmlError xe;
  auto root = parse_xml(text, xe);
  if (!root) return LoadResult::fail({origin, xe.line, xe.element, xe.message});
  if (root->name != "system")
    return LoadResult::fail(
        {origin, root->line, root->name, "expected NCCL's <system> root element"});
  Topology t;
  t.source = Source::NcclTopo;
  t.origin = origin;
  t.pci_elements_are_switches = true;
  Device m;
  m.kind = DeviceKind::Machine;
  m.name = "system";
  int machine = t.add(m, -1);
  Builder b{t, origin, {}, {}};
  for (const auto& c : root->children)
    if (c->name == "cpu") b.cpu(*c, machine);
  b.nvlink_paths();
  t.finalize();
  return LoadResult::success(std::move(t));
}

LoadResult load_nccl_topo_file(const std::string& path) {
  return load_file_with(path, [](const std::string& text, const std::string& name) {
    return parse_nccl_topo(text, name);
  });
}

}  // namespace ff::topology
