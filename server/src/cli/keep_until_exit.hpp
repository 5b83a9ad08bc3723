// What a command is done with but would take milliseconds to free: the thousands of events
// of an analysis, a JSON document of a few MB, the compiled catalog. The process is about to
// exit, and the kernel takes back its memory at once; freeing it node by node first cost 1 to
// 3 ms of a 10 MB or 100 MB analysis (clang's -disable-free skips freeing its AST for the
// same reason). Only for a command's last step: nothing handed here is ever destroyed. It
// stays reachable from a static, so leak checkers do not report it.
#pragma once

#include <utility>
#include <vector>

namespace ff::cli {

template <class T>
void keep_until_exit(T&& value) {
  using Kept = std::decay_t<T>;
  static auto* kept = new std::vector<const void*>;  // never freed, on purpose
  kept->push_back(new Kept(std::forward<T>(value)));
}

}  // namespace ff::cli
