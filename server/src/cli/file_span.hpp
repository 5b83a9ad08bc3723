// What a summary says of each file beyond its events (docs/JSON.md, `files[]`): the time of
// its first and last timestamped lines, and the one rank and host its events name. Found at
// the CLI's edge with bounded work, not by the scan: the first and the last kSpanLines lines
// of a file are parsed with the analysis core's pure line-prefix parser (parse_line_source),
// whatever the file's size, so summarising a node stays one scan of its logs.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "analysis/event.hpp"
#include "analysis/scan.hpp"

namespace ff::cli {

// Lines parsed at each end of a file, and the most bytes of each line parsed (a prefix
// states its time at the start of a line; a longer line is cut there, and a window of
// kSpanLines * kSpanLineBytes bytes at each end bounds the work whatever the file holds).
inline constexpr std::size_t kSpanLines = 48;
inline constexpr std::size_t kSpanLineBytes = 4096;

// Sets file.first_time and file.last_time from `text`, the file's content (kind kNone where
// no line within the bound has a timestamp).
void find_time_span(std::string_view text, analysis::FileSummary& file);

// For each of files[first, end): its rank and host when the events of `state` in that file
// name exactly one rank (one host). Events' file indices index `files`.
void find_sole_sources(const analysis::ScanState& state, std::vector<analysis::FileSummary>& files,
                       std::size_t first, std::size_t end);

}  // namespace ff::cli
