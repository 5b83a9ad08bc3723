// A job's scan as a compact, versioned JSON document (docs/JSON.md, "Summaries"), so that a
// job too big for one machine's reading speed is scanned where its logs lie, one summary per
// node, and diagnosed once from the summaries (docs/SCALE.md).
//
// A summary is what the diagnosis consumes: the scan's events (with their files, line
// numbers, sources and captures), the hits per rule and the checks seen, and the files'
// names and line counts. Reading summaries back and appending them to a job in input order
// (analysis::append_scan) gives the scan one run over all the files would have given, so
// the diagnosis is the same. The analysis core never sees JSON: this is its edge.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/event.hpp"
#include "analysis/scan.hpp"
#include "report/report.hpp"

namespace ff::report {

// The value of the "firstfault_summary" key; a reader refuses any other.
inline constexpr int kSummaryVersion = 1;

// The bound beyond the scan's own (analysis::kMaxEventsPerRule per rule): a context rule's
// events (role context, or a benign listing; never a decoded rule, whose role depends on
// what it captured) are only listed by the diagnosis, never weighed; the reports show the
// first kContextLinesShown context lines in input order, and the fix engine asks only
// whether a context rule fired. A summary keeps its first kContextLinesShown such events and
// the first event of every such rule; its hits count the rest. Each of the first
// kContextLinesShown context lines of the whole job is among the first kContextLinesShown
// of its own summary, so it is kept; every event a diagnosis weighs is kept exactly as the
// scan kept it. A summary therefore holds at most kMaxEventsPerRule events per weighed rule
// and kContextLinesShown + one per context rule, each line's text at most
// analysis::kMaxEventText bytes: bounded by the catalog, whatever the size of the logs.

struct Summary {
  std::string machine;  // the host that wrote it (names files when paths collide)
  std::vector<analysis::FileSummary> files;
  // Events' file indices are indices into `files`.
  analysis::ScanState state;
};

// The summary of a scanned job: `files` and `state` as the CLI's scan produced them (the
// events' file indices index `files`). Rules are named by id, so reader and writer need
// only agree on the rules the events name.
std::string write_summary(const analysis::Catalog& catalog,
                          const std::vector<analysis::FileSummary>& files,
                          const analysis::ScanState& state, const std::string& machine);

// True when the text's first bytes are a JSON object holding the "firstfault_summary" key
// (a summary is recognised by content, whatever its name).
bool looks_like_summary(std::string_view text);

struct SummaryError {
  std::string place;  // "3:17" (line:column) for a syntax error, "/events/4/line" otherwise
  std::string message;
};

// Reads a summary for `catalog` (which must know every rule it names). Never throws.
std::variant<Summary, SummaryError> read_summary(const analysis::Catalog& catalog,
                                                 std::string_view text);

}  // namespace ff::report
