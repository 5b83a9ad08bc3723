// A check result: pass / warn / fail / skip, with the reason and the evidence behind it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "topology/cpulist.hpp"

namespace ff::topology {

enum class Status { Pass, Warn, Fail, Skip };
const char* to_string(Status s);

struct Finding {
  std::string check;  // stable id: "nearest-nic", "nccl-ib-hca", ...
  Status status = Status::Pass;
  std::string subject;  // what it is about: "GPU3", "NCCL_IB_HCA", "host"
  std::string reason;   // one sentence
  std::vector<std::string> evidence;
};

struct CheckOptions {
  // Live checks read the running machine (sysfs, limits); for a file input they are
  // reported as skipped.
  bool live = false;
  std::string sysfs_root = "/";  // tests point this at a fake tree
  // NCCL_IB_HCA, NCCL_SOCKET_IFNAME, LOCAL_RANK, CUDA_VISIBLE_DEVICES: from the process
  // environment when live, from --env for files.
  std::map<std::string, std::string> env;
  // Test hooks; when unset the real values are read.
  std::optional<CpuSet> process_cpus;
  std::optional<unsigned long long> memlock_bytes;  // ULLONG_MAX means unlimited
};

}  // namespace ff::topology
