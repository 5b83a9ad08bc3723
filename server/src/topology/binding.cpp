#include "topology/binding.hpp"

#include <algorithm>

#include "topology/path_matrix.hpp"

namespace ff::topology {

namespace {

void fill_nic(const Topology& t, RankBinding& b) {
  const Device& n = t.at(b.nic);
  b.nic_label = n.label;
  b.hca = n.rdma_name;
  b.port = n.ports.empty() ? 1 : n.ports.front();
  if (!b.hca.empty()) b.nccl_ib_hca = "=" + b.hca + ":" + std::to_string(b.port);
  auto pn = n.port_netdev.find(b.port);
  if (pn != n.port_netdev.end())
    b.socket_ifname = pn->second;
  else if (!n.netdevs.empty())
    b.socket_ifname = n.netdevs.front();
}

}  // namespace

Recommendation recommend_binding(const Topology& t) {
  Recommendation r;
  r.source = to_string(t.source);
  r.origin = t.origin;
  const std::vector<int> nics = t.rdma_nics();
  for (int n : nics) r.nic_load[n] = 0;
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    RankBinding b;
    b.local_rank = static_cast<int>(i);
    b.gpu = t.gpus[i];
    const Device& g = t.at(b.gpu);
    b.gpu_label = g.label;
    b.gpu_bus_id = g.bus_id;
    b.numa_node = g.numa();
    b.cpulist = g.cpulist;
    r.ranks.push_back(b);
  }
  const PathType levels[] = {PathType::PIX, PathType::PXB, PathType::PHB, PathType::NODE,
                             PathType::SYS};
  for (PathType level : levels) {
    for (auto& b : r.ranks) {
      if (b.nic >= 0) continue;
      int best = -1;
      for (int n : nics) {
        if (path_between(t, b.gpu, n).type != level) continue;
        if (best < 0 || r.nic_load[n] < r.nic_load[best]) best = n;  // ties: lower number
      }
      if (best < 0) continue;
      b.nic = best;
      b.path = path_between(t, b.gpu, best);
      r.nic_load[best]++;
    }
  }
  // Without path types (an NCCL log), fall back to what NCCL itself used for the GPU.
  for (auto& b : r.ranks) {
    if (b.nic >= 0) continue;
    for (const auto& u : t.observed) {
      if (u.gpu != b.gpu) continue;
      b.nic = u.nic;
      b.from_log = true;
      b.note = "the NIC NCCL used for this GPU (log line " + std::to_string(u.line) +
               "); path type unknown";
      r.nic_load[u.nic]++;
      break;
    }
  }
  bool all_named = !r.ranks.empty();
  std::vector<std::string> parts;
  for (auto& b : r.ranks) {
    if (b.nic < 0) {
      all_named = false;
      b.note = nics.empty() ? "no RDMA NIC in the topology" : "no path to any NIC is known";
      continue;
    }
    fill_nic(t, b);
    if (b.hca.empty()) {
      all_named = false;
      b.note = b.nic_label + "'s device name is unknown (no NIC Legend in the input)";
      continue;
    }
    std::string p = b.hca + ":" + std::to_string(b.port);
    if (std::find(parts.begin(), parts.end(), p) == parts.end()) parts.push_back(p);
  }
  if (all_named && !parts.empty()) {
    r.nccl_ib_hca = "=";
    for (std::size_t i = 0; i < parts.size(); ++i) r.nccl_ib_hca += (i ? "," : "") + parts[i];
  }
  if (t.gpus.empty()) r.notes.push_back("no GPUs: nothing to bind");
  return r;
}

nlohmann::json binding_to_json(const Recommendation& r) {
  using nlohmann::json;
  auto str_or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  json ranks = json::array();
  for (const auto& b : r.ranks) {
    json j;
    j["local_rank"] = b.local_rank;
    j["gpu"] = b.gpu_label;
    j["gpu_bus_id"] = str_or_null(b.gpu_bus_id);
    j["nic"] = str_or_null(b.nic_label);
    j["hca"] = str_or_null(b.hca);
    j["port"] = b.nic >= 0 ? json(b.port) : json(nullptr);
    j["nccl_ib_hca"] = str_or_null(b.nccl_ib_hca);
    j["path"] = b.nic >= 0 && b.path.type != PathType::Unknown ? json(b.path.str()) : json(nullptr);
    j["from_log"] = b.from_log;
    j["numa_node"] = b.numa_node >= 0 ? json(b.numa_node) : json(nullptr);
    j["cpulist"] = str_or_null(b.cpulist);
    j["socket_ifname"] = str_or_null(b.socket_ifname);
    j["note"] = str_or_null(b.note);
    ranks.push_back(j);
  }
  json out;
  out["schema"] = "firstfault.topology.binding/1";
  out["source"] = r.source;
  out["origin"] = r.origin;
  out["ranks"] = ranks;
  out["nccl_ib_hca"] = str_or_null(r.nccl_ib_hca);
  out["notes"] = r.notes;
  return out;
}

}  // namespace ff::topology
