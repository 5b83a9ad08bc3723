// The single pass over a log: every line is split, cleaned of escape sequences only when it
// has any, and matched against the whole catalog at once. Lines that hit become events.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/event.hpp"

namespace ff::analysis {

// Bounded memory on huge logs: a rule that fires on every line of a 10 GB file keeps its
// first kMaxEventsPerRule events and counts the rest.
inline constexpr std::size_t kMaxEventsPerRule = 4096;

struct ScanState {
  std::vector<Event> events;
  std::vector<std::size_t> rule_hits;  // total hits per rule, kept or not
  std::vector<std::vector<bool>> checks_seen;  // [rule][check]: a line satisfied it
  std::size_t lines = 0;
  std::size_t bytes = 0;

  void reset(const Catalog& catalog);
  // Drops events at or after `line` of `file` (used when a document changes from there).
  void truncate(std::size_t file, std::size_t line);
};

// Scans `text` (one input, index `file`), whose first line is line number `first_line` and
// starts at byte `base` of the input; `whole` is the entire input, used to look back for
// block context. Appends to `state`.
void scan_text(const Catalog& catalog, std::size_t file, std::string_view whole,
               std::size_t base, std::size_t first_line, ScanState& state);

}  // namespace ff::analysis
