// The failure categories of ../shared/taxonomy.md, copied here as the stable public list.
// Categories are strings on the wire; this table is what validation checks against.
#pragma once

#include <array>
#include <string_view>

namespace ff::analysis {

inline constexpr std::array<std::string_view, 19> kCategories = {
    "gdr",   "ib",         "socket",    "p2p",          "nvlink-fabric",
    "shm",   "cuda",       "gpu-oom",   "host-oom",     "process-crash",
    "hardware", "collective-mismatch", "straggler", "rendezvous", "version",
    "net-plugin", "config", "remote-peer", "none"};

inline bool is_category(std::string_view id) {
  for (auto c : kCategories)
    if (c == id) return true;
  return false;
}

}  // namespace ff::analysis
