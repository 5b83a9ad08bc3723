#include "fix/topology_provider.hpp"

namespace ff::fix {

namespace {

// What decides the answer: the inputs, with the logs by name and size (their text is not
// hashed: a 100 MB log would cost more than the discovery it saves).
std::string cache_key(const TopologyInputs& in) {
  std::string key = in.workspace + '\0' + in.topology_file + '\0';
  for (const auto& s : in.skip) key += s + '\x01';
  key += '\0';
  for (const auto& [name, text] : in.logs) key += name + ':' + std::to_string(text.size()) + '\x01';
  return key;
}

}  // namespace

TopologyChoice TopologyProvider::choose(TopologyInputs in) {
  using clock = std::chrono::steady_clock;
  in.live = live_;
  std::string key = cache_key(in);
  // Held during discovery: a second request for the same folder waits for the first's
  // answer instead of reading the machine again.
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cache_.find(key);
  if (it != cache_.end() && clock::now() - it->second.when < ttl_) return it->second.choice;
  ++discoveries_;
  TopologyChoice choice = choose_topology(in);
  if (ttl_.count() > 0) cache_[key] = {clock::now(), choice};
  return choice;
}

std::size_t TopologyProvider::discoveries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return discoveries_;
}

}  // namespace ff::fix
