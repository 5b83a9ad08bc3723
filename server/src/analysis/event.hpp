// An event is one line that matched a rule, with everything the diagnosis needs to know
// about it: where it is, who wrote it, what the pattern captured.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/line_source.hpp"

namespace ff::analysis {

struct Event {
  std::size_t file = 0;    // index of the input
  std::size_t line = 0;    // 0-based line number
  std::size_t offset = 0;  // byte offset of the line's first byte in the input
  std::size_t length = 0;  // raw length of the line in bytes
  std::size_t rule = 0;    // index into Catalog::rules()
  std::vector<Capture> captures;
  LineSource source;
  std::string text;  // the line without escape sequences (capped, see kMaxEventText)
  std::size_t match_begin = 0;  // the matched part, as byte columns of the raw line
  std::size_t match_end = 0;
  bool in_root_cause_record = false;  // inside torchelastic's "Root Cause" section

  std::string_view capture(std::string_view name) const {
    for (const auto& c : captures)
      if (c.name == name) return c.value;
    return {};
  }
};

inline constexpr std::size_t kMaxEventText = 4096;

// A timestamp as a line's prefix states it (parse_line_source): its kind says what it can be
// compared with (wall-clock times across hosts, kernel uptimes only within one host).
struct LineTime {
  TimeKind kind = TimeKind::kNone;
  double time = 0;
};

struct FileSummary {
  std::string name;
  std::size_t lines = 0;
  std::size_t bytes = 0;
  // Filled only for summaries (docs/JSON.md), at the CLI's edge (cli/file_span): the time of
  // the first and of the last timestamped line among the file's first and last few dozen
  // lines (kind kNone when none has one), and the rank and host when the file's events
  // name exactly one of each.
  LineTime first_time;
  LineTime last_time;
  std::optional<int> rank;
  std::string host;
};

}  // namespace ff::analysis
