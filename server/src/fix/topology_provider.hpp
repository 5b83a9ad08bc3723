// The topology the fixes are planned with, shared by every front end (the CLI's --fix, the
// language server's code actions): choose_topology behind a cache. Code actions are asked
// for often (every cursor move in some editors) and discovery reads files or the live
// machine, so an answer is kept for a while per set of inputs. Thread-safe: the language
// server calls it from its workers. Does I/O; never called on the protocol thread.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "fix/topology_source.hpp"

namespace ff::fix {

class TopologyProvider {
 public:
  // `live`: fall back to this machine's topology (the CLI's --no-live-topology and tests
  // turn it off). `ttl`: how long an answer is reused; zero: never.
  explicit TopologyProvider(bool live = true,
                            std::chrono::milliseconds ttl = std::chrono::seconds(30))
      : live_(live), ttl_(ttl) {}

  // choose_topology(in) with in.live replaced by this provider's; cached by the workspace,
  // the topology file, the files skipped and the logs' names and sizes.
  TopologyChoice choose(TopologyInputs in);
  bool live() const { return live_; }
  // How many times discovery actually ran (tests: the cache works).
  std::size_t discoveries() const;

 private:
  struct Entry {
    std::chrono::steady_clock::time_point when;
    TopologyChoice choice;
  };
  const bool live_;
  const std::chrono::milliseconds ttl_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> cache_;
  std::size_t discoveries_ = 0;
};

}  // namespace ff::fix
