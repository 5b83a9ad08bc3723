// One line at a time against a whole catalog, for callers that match many separate lines
// (the rule linter's example lines). The prefilter narrows each line to the patterns that
// may match it and RE2 confirms those, as the scan of a log does.
//
// Why not Catalog::match alone: its RE2::Set builds DFA states for the bytes of every new
// line, and with the full catalog (some 3,000 patterns) that costs about a millisecond a
// line; the linter's 3,500 example lines, read twice, took seconds in a release build and
// over ten minutes under AddressSanitizer. Not thread-safe: one matcher per thread.
#pragma once

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/catalog.hpp"

namespace ff::analysis {

class LineMatcher {
 public:
  explicit LineMatcher(const Catalog& catalog);
  ~LineMatcher();
  LineMatcher(const LineMatcher&) = delete;
  LineMatcher& operator=(const LineMatcher&) = delete;

  // What Catalog::match appends for `line` (already stripped of escape sequences), the
  // same hits in the same order.
  void match(std::string_view line, std::vector<PatternHit>& out,
             std::vector<std::pair<std::size_t, std::size_t>>& checks);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ff::analysis
