#include "analysis/scan.hpp"

namespace ff::analysis {

void merge_scan(ScanState& into, ScanState&& from) {
  if (into.rule_hits.size() < from.rule_hits.size()) into.rule_hits.resize(from.rule_hits.size(), 0);
  for (std::size_t i = 0; i < from.rule_hits.size(); ++i) into.rule_hits[i] += from.rule_hits[i];
  if (into.checks_seen.size() < from.checks_seen.size()) into.checks_seen.resize(from.checks_seen.size());
  for (std::size_t r = 0; r < from.checks_seen.size(); ++r) {
    auto& dst = into.checks_seen[r];
    if (dst.size() < from.checks_seen[r].size()) dst.resize(from.checks_seen[r].size(), false);
    for (std::size_t c = 0; c < from.checks_seen[r].size(); ++c)
      if (from.checks_seen[r][c]) dst[c] = true;
  }
  into.events.insert(into.events.end(), std::make_move_iterator(from.events.begin()),
                     std::make_move_iterator(from.events.end()));
  into.lines += from.lines;
  into.bytes += from.bytes;
}

}  // namespace ff::analysis
