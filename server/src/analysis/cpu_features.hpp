// What the CPU can run, asked once: the vectorised byte scans (line ends, control bytes)
// take their AVX2 path only where it exists.
#pragma once

namespace ff::analysis {

#if defined(__x86_64__)
// AVX2, with POPCNT (every AVX2 CPU has it; the line count needs both).
inline bool cpu_has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  return yes;
}
#endif

}  // namespace ff::analysis
