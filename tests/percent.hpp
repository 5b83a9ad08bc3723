// A share as the measurement tests print it: "83.0%", or "-" when there is nothing to count.
#pragma once

#include <cstdio>
#include <string>

namespace ff::test {

inline std::string percent(int num, int den) {
  if (den == 0) return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * num / den);
  return buf;
}

}  // namespace ff::test
