// The name a summary gives as its writer's: the host it was written on (report/summary.hpp
// names a summary's files `machine:path` when two inputs of a merge share a path).
#pragma once

#include <unistd.h>

#include <string>

namespace ff::cli {

inline std::string machine_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

}  // namespace ff::cli
