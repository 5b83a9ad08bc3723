#include "topology/host_checks.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace ff::topology {

namespace fs = std::filesystem;

namespace {

fs::path under(const CheckOptions& opt, const std::string& rel) {
  return fs::path(opt.sysfs_root) / rel;
}

std::optional<int> to_int(const std::string& s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  return std::stoi(s);
}

Finding cpu_binding(const Topology& t, const CheckOptions& opt) {
  Finding f{"cpu-binding", Status::Skip, "process", "", {}};
  if (t.gpus.empty()) {
    f.reason = "no GPUs found";
    return f;
  }
  auto lr = opt.env.find("LOCAL_RANK");
  auto cvd = opt.env.find("CUDA_VISIBLE_DEVICES");
  if (lr == opt.env.end() && cvd == opt.env.end()) {
    f.reason =
        "neither LOCAL_RANK nor CUDA_VISIBLE_DEVICES is set, so which GPU this process "
        "drives is unknown";
    return f;
  }
  int local = 0;
  if (lr != opt.env.end()) {
    auto v = to_int(lr->second);
    if (!v) {
      f.reason = "LOCAL_RANK='" + lr->second + "' is not a number";
      return f;
    }
    local = *v;
  }
  int gpu = local;
  if (cvd != opt.env.end()) {
    // CUDA_VISIBLE_DEVICES renumbers: local rank k drives the k-th listed device.
    std::vector<std::string> ids;
    std::stringstream ss(cvd->second);
    std::string item;
    while (std::getline(ss, item, ',')) ids.push_back(item);
    if (local >= static_cast<int>(ids.size()) || !to_int(ids[static_cast<std::size_t>(local)])) {
      f.reason = "CUDA_VISIBLE_DEVICES='" + cvd->second +
                 "' does not give a GPU index for local "
                 "rank " +
                 std::to_string(local);
      return f;
    }
    gpu = *to_int(ids[static_cast<std::size_t>(local)]);
  }
  if (gpu < 0 || gpu >= static_cast<int>(t.gpus.size())) {
    f.reason = "GPU " + std::to_string(gpu) + " does not exist on this machine";
    return f;
  }
  const Device& g = t.at(t.gpus[static_cast<std::size_t>(gpu)]);
  auto local_cpus = parse_cpulist(g.cpulist);
  if (!local_cpus || local_cpus->empty()) {
    f.reason = g.label + "'s local CPUs are unknown";
    return f;
  }
  CpuSet mine;
  if (opt.process_cpus) {
    mine = *opt.process_cpus;
  } else {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
      f.reason = "sched_getaffinity failed";
      return f;
    }
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) mine.insert(c);
  }
  f.evidence.push_back("process CPUs: " + format_cpulist(mine));
  f.evidence.push_back(g.label + " local CPUs: " + g.cpulist);
  std::size_t inside = 0;
  for (int c : mine) inside += local_cpus->count(c);
  if (inside == mine.size()) {
    f.status = Status::Pass;
    f.reason = "bound to CPUs local to " + g.label;
  } else if (inside == 0) {
    f.status = Status::Fail;
    f.reason = "bound only to CPUs that are remote to " + g.label +
               ": every host-side copy and proxy thread crosses sockets";
  } else {
    f.status = Status::Warn;
    f.reason = "the CPU binding includes CPUs outside " + g.label +
               "'s NUMA node (unbound or too wide); bind with numactl/taskset to " + g.cpulist;
  }
  return f;
}

Finding peermem(const Topology& t, const CheckOptions& opt) {
  Finding f{"peermem", Status::Skip, "host", "", {}};
  if (t.gpus.empty() || t.rdma_nics().empty()) {
    f.reason = "not needed: GPUDirect RDMA needs both a GPU and an RDMA NIC";
    return f;
  }
  std::error_code ec;
  for (const char* m : {"sys/module/nvidia_peermem", "sys/module/nv_peer_mem"}) {
    if (fs::exists(under(opt, m), ec)) {
      f.status = Status::Pass;
      f.reason = std::string("peer-memory module loaded (") + (m + 11) + ")";
      return f;
    }
  }
  f.status = Status::Warn;
  f.reason =
      "neither nvidia_peermem nor nv_peer_mem is loaded: NCCL can use GPUDirect RDMA "
      "only through DMA-BUF (recent kernels and drivers); otherwise traffic is staged "
      "through host memory (modprobe nvidia_peermem)";
  f.evidence.push_back("looked for " + under(opt, "sys/module/nvidia_peermem").string());
  return f;
}

Finding iommu(const CheckOptions& opt) {
  Finding f{"iommu", Status::Pass, "host", "", {}};
  std::error_code ec;
  std::vector<std::string> units;
  for (const auto& e : fs::directory_iterator(under(opt, "sys/class/iommu"), ec))
    units.push_back(e.path().filename().string());
  if (units.empty()) {
    f.reason = "no IOMMU units in sysfs";
    return f;
  }
  std::sort(units.begin(), units.end());
  std::string s;
  for (const auto& u : units) s += (s.empty() ? "" : ", ") + u;
  f.status = Status::Warn;
  f.reason = "IOMMU enabled (" + s +
             "): peer-to-peer and GPUDirect RDMA traffic is translated or blocked unless the "
             "kernel runs with iommu=pt (or the IOMMU is off)";
  f.evidence.push_back(under(opt, "sys/class/iommu").string() + ": " + s);
  return f;
}

}  // namespace

std::optional<std::uint16_t> acs_control(const std::string& config, bool& readable_ext) {
  readable_ext = config.size() >= 4096;
  if (!readable_ext) return std::nullopt;
  auto u32 = [&](std::size_t off) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(config[off])) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(config[off + 1])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(config[off + 2])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(config[off + 3])) << 24;
  };
  // Extended capabilities: a list from 0x100; header = id (16 bits), version (4), next (12).
  std::size_t off = 0x100;
  for (int guard = 0; guard < 96 && off >= 0x100 && off + 8 <= config.size(); ++guard) {
    std::uint32_t h = u32(off);
    if (h == 0 || h == 0xffffffff) break;
    if ((h & 0xffff) == 0x000d) {
      // ACS: capability register at +4 (16 bits), control register at +6.
      return static_cast<std::uint16_t>(u32(off + 4) >> 16);
    }
    off = (h >> 20) & 0xffc;
  }
  return std::nullopt;
}

namespace {

Finding acs(const Topology& t, const CheckOptions& opt) {
  Finding f{"acs", Status::Skip, "PCIe bridges", "", {}};
  if (t.gpus.empty()) {
    f.reason = "no GPUs found";
    return f;
  }
  std::set<int> bridges;
  for (int g : t.gpus)
    for (int a : t.ancestors(g))
      if (t.at(a).kind == DeviceKind::Bridge && !t.at(a).bus_id.empty()) bridges.insert(a);
  if (bridges.empty()) {
    f.reason = "no PCI bridges above the GPUs";
    return f;
  }
  int readable = 0, unreadable = 0;
  std::vector<std::string> enabled;
  for (int b : bridges) {
    const std::string& id = t.at(b).bus_id;
    std::ifstream in(under(opt, "sys/bus/pci/devices/" + id + "/config"), std::ios::binary);
    if (!in) {
      ++unreadable;
      continue;
    }
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bool ext = false;
    auto ctrl = acs_control(data, ext);
    if (!ext) {
      ++unreadable;
      continue;
    }
    ++readable;
    // Request Redirect (bit 2) and Completion Redirect (bit 3) force peer-to-peer traffic
    // up to the root complex; Source Validation / Upstream Forwarding alone do not.
    if (ctrl && (*ctrl & 0x000c)) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%04x", *ctrl);
      enabled.push_back(id + " (ACS control " + buf + ")");
    }
  }
  if (readable == 0) {
    f.reason =
        "cannot read the PCIe extended config space of the bridges above the GPUs "
        "(it needs root); ACS not checked";
    f.evidence.push_back(std::to_string(unreadable) + " bridge(s) unreadable");
    return f;
  }
  if (!enabled.empty()) {
    f.status = Status::Warn;
    f.reason = "ACS redirect enabled on " + std::to_string(enabled.size()) +
               " bridge(s) above GPUs: GPU peer-to-peer traffic is sent up to the root complex "
               "(slow, or broken with an IOMMU); disable ACS on bare metal";
    f.evidence = enabled;
  } else {
    f.status = Status::Pass;
    f.reason = "ACS redirect is off on the " + std::to_string(readable) +
               " readable bridge(s) above the GPUs";
  }
  if (unreadable > 0)
    f.evidence.push_back(std::to_string(unreadable) + " bridge(s) could not be read");
  return f;
}

Finding dev_shm(const CheckOptions& opt) {
  Finding f{"dev-shm", Status::Skip, "host", "", {}};
  struct statvfs st {};
  auto p = under(opt, "dev/shm");
  if (::statvfs(p.c_str(), &st) != 0) {
    f.reason = p.string() + " does not exist";
    return f;
  }
  unsigned long long bytes = static_cast<unsigned long long>(st.f_blocks) * st.f_frsize;
  f.evidence.push_back(p.string() + ": " + std::to_string(bytes >> 20) + " MiB");
  if (bytes < (1ull << 30)) {
    f.status = Status::Warn;
    f.reason =
        "/dev/shm is smaller than 1 GiB: NCCL's shared-memory transport fails with "
        "'Error while creating shared memory segment' (containers: --shm-size or --ipc=host)";
  } else {
    f.status = Status::Pass;
    f.reason = "/dev/shm is " + std::to_string(bytes >> 20) + " MiB";
  }
  return f;
}

Finding memlock(const CheckOptions& opt) {
  Finding f{"memlock", Status::Pass, "process", "", {}};
  unsigned long long v = ULLONG_MAX;
  if (opt.memlock_bytes) {
    v = *opt.memlock_bytes;
  } else {
    struct rlimit rl {};
    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
      f.status = Status::Skip;
      f.reason = "getrlimit failed";
      return f;
    }
    if (rl.rlim_cur != RLIM_INFINITY) v = rl.rlim_cur;
  }
  if (v == ULLONG_MAX) {
    f.reason = "locked-memory limit is unlimited";
    return f;
  }
  f.status = Status::Warn;
  f.reason = "locked-memory limit is " + std::to_string(v >> 10) +
             " KiB, not unlimited: IB memory registration can fail (ulimit -l unlimited, "
             "or docker --ulimit memlock=-1)";
  return f;
}

Finding skipped(const std::string& check, const std::string& subject) {
  return {check, Status::Skip, subject, "skipped (input is a file)", {}};
}

}  // namespace

std::vector<Finding> host_findings(const Topology& t, const CheckOptions& opt) {
  if (!opt.live)
    return {skipped("cpu-binding", "process"), skipped("peermem", "host"),
            skipped("iommu", "host"),          skipped("acs", "PCIe bridges"),
            skipped("dev-shm", "host"),        skipped("memlock", "process")};
  return {cpu_binding(t, opt), peermem(t, opt), iommu(opt),
          acs(t, opt),         dev_shm(opt),    memlock(opt)};
}

}  // namespace ff::topology
