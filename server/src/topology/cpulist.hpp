// CPU lists ("0-23,48-71"), the notation Linux, hwloc and nvidia-smi use for CPU sets, and
// NCCL's hex masks ("00000000,ffffffff": 32-bit words, most significant first).
#pragma once

#include <optional>
#include <set>
#include <string>

namespace ff::topology {

using CpuSet = std::set<int>;

// Parses a list; nullopt when malformed (including a cut-off "24-47,"). Ids above
// kMaxCpuId are refused so a hostile input cannot make us allocate without bound.
inline constexpr int kMaxCpuId = 1 << 16;
std::optional<CpuSet> parse_cpulist(const std::string& text);
std::string format_cpulist(const CpuSet& cpus);
std::optional<CpuSet> parse_hex_mask(const std::string& text);

}  // namespace ff::topology
