#include "topology/topo_report.hpp"

#include <algorithm>
#include <sstream>

namespace ff::topology {

TopoAnalysis analyze_topology(Topology t, const CheckOptions& opt) {
  TopoAnalysis a;
  a.topology = std::move(t);
  a.matrix = build_matrix(a.topology);
  a.binding = recommend_binding(a.topology);
  a.findings = run_checks(a.topology, a.binding, opt);
  return a;
}

namespace {

std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' ');
}

std::string numa_str(const Device& d) {
  if (d.numa_nodes.empty()) return "N/A";
  std::string s;
  // Not `"," + std::to_string(n)`: GCC 12 at -O3 reports a false -Wrestrict (PR 105329).
  for (int n : d.numa_nodes) s.append(s.empty() ? "" : ",").append(std::to_string(n));
  return s;
}

void summary_line(const Topology& t, std::ostringstream& os) {
  std::size_t rdma = t.rdma_nics().size();
  os << "Found: " << t.packages << " package(s), " << t.numa_node_count << " NUMA node(s), "
     << t.gpus.size() << " GPU(s), " << t.nics.size() << " NIC(s)";
  if (rdma != t.nics.size()) os << " (" << rdma << " RDMA)";
  os << ", " << t.pci_devices << " PCI device(s)\n";
}

}  // namespace

std::string render_text(const TopoAnalysis& a) {
  const Topology& t = a.topology;
  std::ostringstream os;
  os << "Topology: " << to_string(t.source) << (t.source == Source::Live ? "" : " " + t.origin)
     << "\n";
  summary_line(t, os);
  if (t.gpus.empty()) {
    os << "\nno GPUs found";
    if (!t.nics.empty()) {
      os << "; NICs:";
      for (int n : t.nics) {
        const Device& d = t.at(n);
        os << " " << (d.rdma_name.empty() ? d.name : d.rdma_name);
        if (!d.bus_id.empty()) os << " (" << d.bus_id << ")";
      }
    }
    os << "\n";
  } else {
    std::size_t w = 8;
    for (int d : a.matrix.devices) w = std::max(w, t.at(d).label.size() + 2);
    os << "\n" << std::string(w, ' ');
    for (int d : a.matrix.devices) os << pad(t.at(d).label, w);
    os << "CPU Affinity    NUMA Affinity\n";
    for (std::size_t r = 0; r < a.matrix.devices.size(); ++r) {
      const Device& d = t.at(a.matrix.devices[r]);
      os << pad(d.label, w);
      for (std::size_t c = 0; c < a.matrix.devices.size(); ++c) {
        std::string cell = a.matrix.at(r, c).str();
        os << pad(cell == "X" ? " X" : cell, w);
      }
      os << pad(d.cpulist.empty() ? "N/A" : d.cpulist, 16) << numa_str(d) << "\n";
    }
    os << "\nLegend:\n"
          "  X    = Self\n"
          "  SYS  = across the SMP interconnect between NUMA nodes (QPI/UPI/Infinity Fabric)\n"
          "  NODE = across PCIe host bridges within a NUMA node\n"
          "  PHB  = through a PCIe host bridge (the CPU)\n"
          "  PXB  = through several PCIe bridges, not a host bridge\n"
          "  PIX  = through at most one PCIe bridge (the same switch)\n"
          "  NV#  = a bonded set of # NVLinks\n"
          "  ?    = not stated by the input\n";
    if (!t.nics.empty()) {
      os << "\nNIC Legend:\n\n";
      for (int n : t.nics) {
        const Device& d = t.at(n);
        os << "  " << d.label << ": "
           << (d.rdma_name.empty() ? (d.netdevs.empty() ? "(name unknown)" : d.netdevs.front())
                                   : d.rdma_name);
        if (!d.rdma) os << " (not RDMA)";
        if (!d.bus_id.empty()) os << "  [" << d.bus_id << "]";
        os << "\n";
      }
    }
  }
  if (!t.notes.empty()) {
    os << "\nNotes:\n";
    for (const auto& n : t.notes)
      os << "  " << (n.line > 0 ? "line " + std::to_string(n.line) + ": " : "") << n.message
         << "\n";
  }
  os << "\nFindings:\n";
  for (const auto& f : a.findings) {
    std::string st = to_string(f.status);
    std::transform(st.begin(), st.end(), st.begin(), ::toupper);
    os << "  [" << st << "] " << f.check << " " << f.subject << ": " << f.reason << "\n";
    if (f.status == Status::Skip) continue;
    for (const auto& e : f.evidence) os << "         " << e << "\n";
  }
  os << "\nBinding (per local rank, GPUs in PCI bus-id order):\n";
  if (a.binding.ranks.empty()) {
    os << "  no GPUs: nothing to bind\n";
  } else {
    os << "  " << pad("RANK", 5) << pad("GPU", 6) << pad("NIC", 7) << pad("NCCL_IB_HCA", 18)
       << pad("PATH", 6) << pad("NUMA", 5) << pad("CPUS", 18) << "SOCKET_IFNAME\n";
    for (const auto& b : a.binding.ranks) {
      os << "  " << pad(std::to_string(b.local_rank), 5) << pad(b.gpu_label, 6)
         << pad(b.nic_label.empty() ? "-" : b.nic_label, 7)
         << pad(b.nccl_ib_hca.empty() ? "-" : b.nccl_ib_hca, 18)
         << pad(b.nic >= 0 ? b.path.str() : "-", 6)
         << pad(b.numa_node >= 0 ? std::to_string(b.numa_node) : "-", 5)
         << pad(b.cpulist.empty() ? "-" : b.cpulist, 18)
         << (b.socket_ifname.empty() ? "-" : b.socket_ifname) << "\n";
      if (!b.note.empty()) os << "       " << b.note << "\n";
    }
    if (!a.binding.nccl_ib_hca.empty())
      os << "  NCCL_IB_HCA for all ranks of the node: " << a.binding.nccl_ib_hca << "\n";
  }
  return os.str();
}

nlohmann::json render_json(const TopoAnalysis& a) {
  using nlohmann::json;
  const Topology& t = a.topology;
  json devices = json::array();
  for (int d : a.matrix.devices) {
    const Device& x = t.at(d);
    json j;
    j["label"] = x.label;
    j["kind"] = to_string(x.kind);
    j["name"] = x.name;
    j["bus_id"] = x.bus_id.empty() ? json(nullptr) : json(x.bus_id);
    if (x.vendor) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%04x:%04x", x.vendor, x.device_id);
      j["pci_id"] = buf;
    }
    j["numa_nodes"] = x.numa_nodes;
    j["cpulist"] = x.cpulist.empty() ? json(nullptr) : json(x.cpulist);
    if (x.kind == DeviceKind::Nic) {
      j["rdma"] = x.rdma;
      j["rdma_name"] = x.rdma_name.empty() ? json(nullptr) : json(x.rdma_name);
      j["ports"] = x.ports;
      j["netdevs"] = x.netdevs;
    }
    devices.push_back(j);
  }
  json labels = json::array(), rows = json::array();
  for (std::size_t r = 0; r < a.matrix.devices.size(); ++r) {
    labels.push_back(t.at(a.matrix.devices[r]).label);
    json row = json::array();
    for (std::size_t c = 0; c < a.matrix.devices.size(); ++c) {
      const Link& l = a.matrix.at(r, c);
      row.push_back(l.type == PathType::Unknown ? json(nullptr) : json(l.str()));
    }
    rows.push_back(row);
  }
  json findings = json::array();
  for (const auto& f : a.findings)
    findings.push_back({{"check", f.check},
                        {"status", to_string(f.status)},
                        {"subject", f.subject},
                        {"reason", f.reason},
                        {"evidence", f.evidence}});
  json notes = json::array();
  for (const auto& n : t.notes)
    notes.push_back({{"line", n.line > 0 ? json(n.line) : json(nullptr)}, {"message", n.message}});
  json out;
  out["schema"] = "firstfault.topology/1";
  out["source"] = to_string(t.source);
  out["origin"] = t.origin;
  out["summary"] = {{"packages", t.packages},       {"numa_nodes", t.numa_node_count},
                    {"pci_devices", t.pci_devices}, {"gpus", t.gpus.size()},
                    {"nics", t.nics.size()},        {"rdma_nics", t.rdma_nics().size()}};
  out["no_gpus"] = t.gpus.empty();
  out["devices"] = devices;
  out["matrix"] = {{"labels", labels}, {"rows", rows}};
  out["findings"] = findings;
  out["binding"] = binding_to_json(a.binding);
  out["notes"] = notes;
  return out;
}

}  // namespace ff::topology
