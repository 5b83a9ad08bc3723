#include "analysis/known_bugs.hpp"

#include <algorithm>
#include <charconv>

namespace ff::analysis {

std::optional<std::vector<unsigned>> parse_release(std::string_view text) {
  std::vector<unsigned> parts;
  std::size_t at = 0;
  while (true) {
    std::size_t dot = text.find('.', at);
    std::string_view part = text.substr(at, dot == std::string_view::npos ? dot : dot - at);
    unsigned value = 0;
    auto r = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || r.ec != std::errc() || r.ptr != part.data() + part.size())
      return std::nullopt;
    parts.push_back(value);
    if (parts.size() > 4) return std::nullopt;
    if (dot == std::string_view::npos) break;
    at = dot + 1;
  }
  return parts;
}

int compare_releases(const std::vector<unsigned>& a, const std::vector<unsigned>& b) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    unsigned x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

bool affects(const KnownBug& bug, std::string_view release) {
  auto version = parse_release(release), from = parse_release(bug.from);
  if (!version || !from || compare_releases(*version, *from) < 0) return false;
  if (bug.fixed.empty()) return true;
  auto fixed = parse_release(bug.fixed);
  return fixed && compare_releases(*version, *fixed) < 0;
}

std::vector<std::size_t> bugs_of_release(const Rule& rule, std::string_view release) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < rule.known_bugs.size(); ++i)
    if (affects(rule.known_bugs[i], release)) out.push_back(i);
  return out;
}

}  // namespace ff::analysis
