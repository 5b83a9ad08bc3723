// The compiled form of a rule set: every pattern of every rule in one RE2::Set, so a line is
// scanned once whatever the number of rules; captures are extracted only on lines that hit.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/rule.hpp"

namespace re2 {
class RE2;
}

namespace ff::analysis {

class Prefilter;

struct Capture {
  std::string name;
  std::string value;
};

struct PatternHit {
  std::size_t rule;     // index into Catalog::rules()
  std::size_t pattern;  // index into that rule's patterns
  std::vector<Capture> captures;
  std::size_t match_begin = 0;  // offsets of the whole match in the matched text
  std::size_t match_end = 0;
};

struct CompileError {
  std::string origin;  // the rule's origin (file path)
  std::string rule;    // rule id
  std::string field;   // "patterns[2]", "exclude[0]", "checks[1].evidence[0]"
  std::string message; // RE2's error text
};

class Catalog {
 public:
  // Compiles all rules. A rule whose patterns do not compile is left out and reported in
  // `errors`; the rest of the catalog still works.
  static Catalog compile(std::vector<Rule> rules, std::vector<CompileError>* errors);

  Catalog(Catalog&&) noexcept;
  Catalog& operator=(Catalog&&) noexcept;
  ~Catalog();

  const std::vector<Rule>& rules() const { return rules_; }
  const Rule* find(std::string_view id) const;

  // Appends the hits of one line (already stripped of escape sequences) to `out`, and the
  // (rule, check) pairs whose evidence patterns the line satisfies to `checks`. Rule
  // patterns and check patterns share one RE2::Set, so this is a single scan of the line.
  // `scratch` is reused between calls to avoid allocation.
  void match(std::string_view line, std::vector<PatternHit>& out,
             std::vector<std::pair<std::size_t, std::size_t>>& checks,
             std::vector<int>& scratch) const;

  // True when no pattern can match (an empty catalog).
  bool empty() const;

  // The whole-buffer prefilter over every pattern of the catalog, built on first use (it
  // takes about 0.1 s for the full catalog, so small inputs skip it). Null when it cannot
  // be built; callers then match every line. Thread-safe.
  const Prefilter* prefilter() const;
  bool prefilter_ready() const;

 private:
  Catalog();
  struct Impl;
  std::vector<Rule> rules_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ff::analysis
