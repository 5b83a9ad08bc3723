#include "topology/nccl_log_topology.hpp"

#include <re2/re2.h>

#include <set>
#include <string_view>

namespace ff::topology {

namespace {

struct RankInfo {
  int cuda_dev = -1;
  std::string bus_id;
};

struct Patterns {
  RE2 prefix{R"(^\s*([^\s:\[]+):\d+:\d+ \[\d+\])"};
  RE2 using_net{R"(NET/(IB|Socket) : Using (.*))"};
  RE2 ib_dev{R"(\[(\d+)\]([A-Za-z0-9_.\-]+):(\d+)/(IB|RoCE))"};
  RE2 sock_dev{R"(\[(\d+)\]([A-Za-z0-9_.\-]+):)"};
  RE2 oob{R"(OOB ([A-Za-z0-9_.\-]+):)"};
  RE2 comm{
      R"(comm 0x[0-9a-fA-F]+ rank (\d+) nranks \d+ cudaDev (\d+)(?: nvmlDev \d+)? busId ([0-9a-fA-F]+))"};
  RE2 channel{
      R"(Channel \d+/\d+ : (\d+)\[([0-9a-fA-F]+)\] -> (\d+)\[([0-9a-fA-F]+)\] \[(send|receive)\] via NET/([A-Za-z]+)/(\d+))"};
  RE2 env{R"((NCCL_[A-Z0-9_]+) set by environment to (\S+))"};
};

const Patterns& patterns() {
  static const Patterns p;
  return p;
}

// What the log says about the first host's GPUs and NICs, gathered line by line; the GPUs
// and the NIC each one used are added to the topology once every line is read.
struct NcclLogReader {
  const Patterns& P = patterns();
  Topology t;
  std::string host;  // the first host seen; the others are other nodes of the job
  std::set<std::string> other_hosts;
  std::map<int, RankInfo> ranks;    // ranks on `host`
  std::map<int, int> nic_by_index;  // NET/IB/<index> -> device
  std::string oob;
  std::map<std::string, int> gpu_by_key;
  struct Chan {
    int rank;
    std::string bracket;
    int nic_index;
    int line;
  };
  std::vector<Chan> chans;

  void read_line(std::string_view line, int lineno);
  void add_nics(const std::string& kind, const std::string& rest);
  int gpu_for(int rank, const std::string& bracket);
  void add_observed();
};

void NcclLogReader::read_line(std::string_view line, int lineno) {
  if (line.find("NCCL") == std::string_view::npos && line.find("Channel") == std::string_view::npos)
    return;
  std::string h;
  if (RE2::PartialMatch(line, P.prefix, &h)) {
    if (host.empty()) host = h;
    if (h != host) {
      other_hosts.insert(h);
      return;
    }
  }
  std::string kind, rest;
  std::string name, value;
  if (RE2::PartialMatch(line, P.env, &name, &value)) {
    t.recorded_env.emplace(name, value);
  }
  if (RE2::PartialMatch(line, P.using_net, &kind, &rest)) {
    if (!nic_by_index.empty()) return;  // every rank prints it; the first is enough
    add_nics(kind, rest);
    return;
  }
  int rank = 0, cuda = 0, peer = 0, nic_index = 0;
  std::string bus, b1, b2, dir, transport;
  if (RE2::PartialMatch(line, P.comm, &rank, &cuda, &bus)) {
    auto& r = ranks[rank];
    r.cuda_dev = cuda;
    r.bus_id = normalize_bus_id(bus).value_or("");
    return;
  }
  if (RE2::PartialMatch(line, P.channel, &rank, &b1, &peer, &b2, &dir, &transport, &nic_index)) {
    if (transport != "IB") return;
    // [send] lines are printed by the sender, [receive] lines by the receiver: the NIC
    // index is always the printing rank's own.
    if (dir == "send")
      chans.push_back({rank, b1, nic_index, lineno});
    else
      chans.push_back({peer, b2, nic_index, lineno});
  }
}

// "NET/IB : Using [0]mlx5_0:1/IB ...; OOB eth0:...": the NICs NCCL chose, by index.
void NcclLogReader::add_nics(const std::string& kind, const std::string& rest) {
  re2::StringPiece in(rest);
  int idx = 0, port = 0;
  std::string dev, link;
  if (kind == "IB") {
    while (RE2::FindAndConsume(&in, P.ib_dev, &idx, &dev, &port, &link)) {
      Device d;
      d.kind = DeviceKind::Nic;
      d.rdma = true;
      d.rdma_name = dev;
      d.name = dev + " (" + link + ")";
      d.ports.push_back(port);
      nic_by_index[idx] = t.add(std::move(d), -1);
    }
    std::string o;
    if (RE2::PartialMatch(rest, P.oob, &o)) oob = o;
  } else {
    while (RE2::FindAndConsume(&in, P.sock_dev, &idx, &dev)) {
      Device d;
      d.kind = DeviceKind::Nic;
      d.rdma = false;
      d.name = dev;
      d.netdevs.push_back(dev);
      nic_by_index[idx] = t.add(std::move(d), -1);
    }
  }
}

// The GPU of a rank (from its comm line) or of a channel line's bracket; added once.
int NcclLogReader::gpu_for(int rank, const std::string& bracket) {
  std::string key, bus;
  int cuda = -1;
  auto it = ranks.find(rank);
  if (it != ranks.end()) {
    bus = it->second.bus_id;
    cuda = it->second.cuda_dev;
  } else if (bracket.size() >= 4) {
    bus = normalize_bus_id(bracket).value_or("");  // NCCL >= 2.12 prints the bus id here
  } else {
    cuda = std::atoi(bracket.c_str());  // older NCCL prints the CUDA device
  }
  key = !bus.empty() ? bus : "cuda" + std::to_string(cuda);
  auto g = gpu_by_key.find(key);
  if (g != gpu_by_key.end()) return g->second;
  Device d;
  d.kind = DeviceKind::Gpu;
  d.bus_id = bus;
  d.name = cuda >= 0 ? "cudaDev " + std::to_string(cuda) : "GPU " + bus;
  int idx = t.add(std::move(d), -1);
  gpu_by_key[key] = idx;
  return idx;
}

// Every rank's GPU, then each GPU-NIC pair a channel line shows in use (first line only).
void NcclLogReader::add_observed() {
  for (const auto& [rank, info] : ranks) gpu_for(rank, "");
  std::set<std::pair<int, int>> seen;
  for (const auto& c : chans) {
    auto n = nic_by_index.find(c.nic_index);
    if (n == nic_by_index.end()) continue;
    int g = gpu_for(c.rank, c.bracket);
    if (seen.insert({g, n->second}).second) t.observed.push_back({g, n->second, c.line});
  }
}

}  // namespace

LoadResult parse_nccl_log(const std::string& text, const std::string& origin) {
  NcclLogReader r;
  Topology& t = r.t;
  t.source = Source::NcclLog;
  t.origin = origin;
  std::size_t pos = 0;
  int lineno = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++lineno;
    r.read_line(line, lineno);
  }
  r.add_observed();
  if (!r.oob.empty()) {
    // The OOB interface is the one NCCL_SOCKET_IFNAME (or NCCL's default) selected.
    t.other_netdevs.push_back(r.oob);
  }
  if (!r.other_hosts.empty())
    t.notes.push_back({0, "the log has lines from " + std::to_string(r.other_hosts.size() + 1) +
                              " hosts; the topology is the one of " + r.host});
  if (t.devices.empty())
    return LoadResult::fail({origin, 0, "",
                             "no NCCL topology lines found (need NCCL_DEBUG=INFO output with "
                             "'NET/IB : Using' or 'comm ... cudaDev ... busId' lines)"});
  t.notes.push_back({0,
                     "an NCCL log has no PCI tree: path types are unknown; only the NICs "
                     "NCCL used per GPU are known"});
  t.finalize();
  return LoadResult::success(std::move(t));
}

LoadResult load_nccl_log_file(const std::string& path) {
  return load_file_with(path, [](const std::string& text, const std::string& name) {
    return parse_nccl_log(text, name);
  });
}

}  // namespace ff::topology
