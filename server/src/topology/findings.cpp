#include "topology/findings.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "topology/host_checks.hpp"
#include "topology/if_list.hpp"
#include "topology/path_matrix.hpp"

namespace ff::topology {

const char* to_string(Status s) {
  switch (s) {
    case Status::Pass:
      return "pass";
    case Status::Warn:
      return "warn";
    case Status::Fail:
      return "fail";
    case Status::Skip:
      return "skip";
  }
  return "?";
}

namespace {

std::string env_value(const Topology& t, const CheckOptions& opt, const std::string& name,
                      std::string* where) {
  auto it = opt.env.find(name);
  if (it != opt.env.end()) {
    *where = opt.live ? "environment" : "--env";
    return it->second;
  }
  auto rt = t.recorded_env.find(name);
  if (rt != t.recorded_env.end()) {
    *where = "the log";
    return rt->second;
  }
  return {};
}

void nearest_nic(const Topology& t, std::vector<Finding>& out) {
  if (t.gpus.empty()) {
    out.push_back({"nearest-nic", Status::Skip, "GPUs", "no GPUs found", {}});
    return;
  }
  const auto nics = t.rdma_nics();
  if (nics.empty()) {
    out.push_back({"nearest-nic",
                   Status::Warn,
                   "GPUs",
                   "no RDMA NIC (InfiniBand/RoCE/EFA) found: traffic between nodes would use "
                   "TCP sockets",
                   {std::to_string(t.nics.size()) + " non-RDMA NIC(s) in the input"}});
    return;
  }
  for (int g : t.gpus) {
    Link best;
    std::vector<std::string> nearest;
    std::vector<std::string> row;
    for (int n : nics) {
      Link l = path_between(t, g, n);
      row.push_back(t.at(n).label + "=" + l.str());
      if (l.type == PathType::Unknown) continue;
      if (best.type == PathType::Unknown || l.type < best.type) {
        best = l;
        nearest.clear();
      }
      if (l.type == best.type) nearest.push_back(t.at(n).label);
    }
    Finding f{"nearest-nic", Status::Pass, t.at(g).label, "", {}};
    std::string names;
    for (const auto& n : nearest) names += (names.empty() ? "" : ", ") + n;
    f.evidence.push_back("paths: " + [&] {
      std::string s;
      for (const auto& r : row) s += (s.empty() ? "" : " ") + r;
      return s;
    }());
    switch (best.type) {
      case PathType::Unknown:
        f.status = Status::Skip;
        f.reason = "the input gives no path from " + t.at(g).label + " to any NIC";
        break;
      case PathType::PIX:
      case PathType::PXB:
        f.reason = "nearest NIC " + names + " is " + best.str() +
                   " (behind the same PCIe switch): GPUDirect RDMA can be used";
        break;
      case PathType::PHB:
        f.reason = "nearest NIC " + names +
                   " is PHB (through the host bridge); NCCL's default NCCL_NET_GDR_LEVEL "
                   "(PXB) does not use GPUDirect RDMA over this path";
        break;
      case PathType::NODE:
        f.status = Status::Warn;
        f.reason = "nearest NIC " + names +
                   " is NODE (another host bridge of the same NUMA node): traffic crosses the "
                   "CPU and GPUDirect RDMA is off by default";
        break;
      default:
        f.status = Status::Fail;
        f.reason = "nearest NIC " + names +
                   " is SYS (across the CPU interconnect): every network transfer of this GPU "
                   "crosses sockets";
        break;
    }
    out.push_back(f);
  }
}

void nic_sharing(const Topology& t, const Recommendation& rec, std::vector<Finding>& out) {
  const auto nics = t.rdma_nics();
  if (t.gpus.empty() || nics.empty()) {
    out.push_back({"nic-sharing",
                   Status::Skip,
                   "NICs",
                   t.gpus.empty() ? "no GPUs found" : "no RDMA NIC found",
                   {}});
    return;
  }
  // GPUs per NIC: the recommendation when path types are known, else what NCCL used.
  std::map<int, std::vector<std::string>> users;
  bool from_paths = false;
  for (const auto& b : rec.ranks)
    if (b.nic >= 0 && !b.from_log) {
      users[b.nic].push_back(b.gpu_label);
      from_paths = true;
    }
  if (!from_paths)
    for (const auto& u : t.observed) users[u.nic].push_back(t.at(u.gpu).label);
  if (users.empty()) {
    out.push_back({"nic-sharing",
                   Status::Skip,
                   "NICs",
                   "no GPU-to-NIC paths or observed use in the input",
                   {}});
    return;
  }
  Finding f{"nic-sharing", Status::Pass, "NICs", "", {}};
  std::size_t assigned = 0;
  for (const auto& [n, g] : users) assigned += g.size();
  for (const auto& [n, g] : users) {
    std::string s =
        t.at(n).label + (t.at(n).rdma_name.empty() ? "" : " (" + t.at(n).rdma_name + ")") + ": ";
    for (std::size_t i = 0; i < g.size(); ++i) s += (i ? ", " : "") + g[i];
    f.evidence.push_back(s);
  }
  std::string shared;
  for (const auto& [n, g] : users)
    if (g.size() > 1) shared += (shared.empty() ? "" : "; ") + t.at(n).label;
  if (nics.size() >= assigned && !shared.empty()) {
    f.status = Status::Warn;
    f.reason = "there are " + std::to_string(nics.size()) + " RDMA NICs for " +
               std::to_string(assigned) + " GPUs, yet " + shared +
               (from_paths ? " is the nearest NIC of more than one GPU (the other NICs are "
                             "farther away)"
                           : " carried traffic of more than one GPU in the log");
  } else if (shared.empty()) {
    f.reason = "every GPU has a NIC of its own";
  } else {
    f.reason = "NICs are shared only as much as their number requires (" +
               std::to_string(nics.size()) + " NICs for " + std::to_string(assigned) + " GPUs)";
  }
  out.push_back(f);
}

std::vector<Candidate> hca_candidates(const Topology& t, bool* all_named) {
  std::vector<Candidate> c;
  *all_named = true;
  for (int n : t.rdma_nics()) {
    if (t.at(n).rdma_name.empty()) {
      *all_named = false;
      continue;
    }
    c.push_back({t.at(n).rdma_name, t.at(n).ports});
  }
  return c;
}

void list_check(const Topology& t, const CheckOptions& opt, const std::string& var,
                std::vector<Finding>& out) {
  const bool hca = var == "NCCL_IB_HCA";
  std::string where;
  std::string value = env_value(t, opt, var, &where);
  Finding f{hca ? "nccl-ib-hca" : "nccl-socket-ifname", Status::Pass, var, "", {}};
  if (value.empty()) {
    f.reason = hca ? "not set: NCCL considers every RDMA NIC and picks per GPU by distance"
                   : "not set: NCCL picks an interface itself (not lo or docker*)";
    out.push_back(f);
    return;
  }
  f.evidence.push_back(var + "=" + value + " (from " + where + ")");
  std::vector<Candidate> cands;
  bool all_named = true;
  if (hca) {
    cands = hca_candidates(t, &all_named);
  } else {
    std::set<std::string> names(t.other_netdevs.begin(), t.other_netdevs.end());
    for (int n : t.nics)
      for (const auto& d : t.at(n).netdevs) names.insert(d);
    if (opt.live) {
      std::error_code ec;
      auto dir = std::filesystem::path(opt.sysfs_root) / "sys/class/net";
      for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        names.insert(e.path().filename().string());
    }
    for (const auto& n : names) cands.push_back({n, {}});
  }
  if (hca && t.rdma_nics().empty()) {
    f.status = Status::Fail;
    f.reason = "set, but there is no RDMA NIC for it to select";
    out.push_back(f);
    return;
  }
  if (!all_named || cands.empty()) {
    f.status = Status::Skip;
    f.reason = hca ? "the input does not name the NICs (no NIC Legend), so the list cannot be "
                     "checked"
                   : "the input lists no network interfaces";
    out.push_back(f);
    return;
  }
  IfList list = parse_if_list(value, hca);
  ListCheck c = check_if_list(list, cands, hca);
  std::string sel;
  for (const auto& s : c.selected) sel += (sel.empty() ? "" : ", ") + s;
  f.evidence.push_back("selects: " + (sel.empty() ? std::string("nothing") : sel));
  std::string all;
  for (const auto& cd : cands) all += (all.empty() ? "" : ", ") + cd.name;
  f.evidence.push_back("devices: " + all);
  if (c.selected.empty()) {
    // A file may lack virtual interfaces (bonds, VLANs); a live miss is definite.
    f.status = hca || opt.live ? Status::Fail : Status::Warn;
    f.reason = var + "=" + value + " matches none of the devices" +
               (hca ? ": NCCL finds no usable IB device and falls back to sockets or fails"
                    : (opt.live ? ": NCCL cannot bootstrap"
                                : " in the file (virtual interfaces are not in exports)"));
  } else if (!c.overbroad.empty()) {
    f.status = Status::Warn;
    f.reason.clear();
    for (const auto& [item, others] : c.overbroad)
      f.reason += (f.reason.empty() ? "" : "; ") + std::string(list.exclude ? "^" : "") + item +
                  " also " + (list.exclude ? "excludes " : "selects ") + others;
    f.reason += " (without a leading '=' each name is a prefix; write '=" +
                std::string(hca ? "name:port,...'" : "name,...'") + " for exact names)";
  } else if (!c.dead_items.empty()) {
    f.status = Status::Warn;
    std::string d;
    for (const auto& x : c.dead_items) d += (d.empty() ? "" : ", ") + x;
    f.reason = "list entries that match no device: " + d;
  } else {
    f.reason = "selects " + sel;
  }
  out.push_back(f);
}

}  // namespace

std::vector<Finding> topology_findings(const Topology& t, const Recommendation& rec,
                                       const CheckOptions& opt) {
  std::vector<Finding> out;
  nearest_nic(t, out);
  nic_sharing(t, rec, out);
  list_check(t, opt, "NCCL_IB_HCA", out);
  list_check(t, opt, "NCCL_SOCKET_IFNAME", out);
  return out;
}

std::vector<Finding> run_checks(const Topology& t, const Recommendation& rec,
                                const CheckOptions& opt) {
  auto out = topology_findings(t, rec, opt);
  auto host = host_findings(t, opt);
  out.insert(out.end(), host.begin(), host.end());
  return out;
}

}  // namespace ff::topology
