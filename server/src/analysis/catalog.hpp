// The compiled form of a rule set: every pattern of every rule in one RE2::Set, so a line is
// scanned once whatever the number of rules; captures are extracted only on lines that hit.
#pragma once

#include <memory>
#include <optional>
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
  // Offsets of the whole match in the matched text, once fill_captures() located it.
  std::size_t match_begin = 0;
  std::size_t match_end = 0;
  bool located = false;
  std::size_t slot = static_cast<std::size_t>(-1);  // the compiled pattern (internal)
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
  // `errors`; the rest of the catalog still works. With kTrustBuiltin, the patterns of
  // built-in rules (origin "builtin:...") are compiled on first use instead: the build
  // compiled every one of them already (ff_prefilter_gen fails on any error), and most are
  // never needed by a given log.
  enum class Validation { kAll, kTrustBuiltin };
  static Catalog compile(std::vector<Rule> rules, std::vector<CompileError>* errors,
                         Validation validation = Validation::kAll);

  Catalog(Catalog&&) noexcept;
  Catalog& operator=(Catalog&&) noexcept;
  ~Catalog();

  const std::vector<Rule>& rules() const { return rules_; }
  const Rule* find(std::string_view id) const;
  // The category the words of `text` give a line of fallback rule `rule` (Rule::words: the
  // first pattern that matches; a fallback rule without words reads the vocabulary of those
  // that have some), or nothing.
  std::optional<std::string_view> category_from_words(std::size_t rule,
                                                      std::string_view text) const;

  // Whether one of rule `rule`'s patterns matches `line` (and none of its excludes): for the
  // rules read outside the scan (progress counters, stack frames: progress.hpp, stacks.hpp),
  // which match() and the prefilter leave out.
  bool matches(std::size_t rule, std::string_view line) const;
  // The rules read outside the scan in the way `decode` says (progress counters, stack
  // frames), in catalog order.
  std::vector<std::size_t> rules_decoding(Decode decode) const;

  // Appends the hits of one line (already stripped of escape sequences) to `out`, and the
  // (rule, check) pairs whose evidence patterns the line satisfies to `checks`. Rule
  // patterns and check patterns share one RE2::Set, so this is a single scan of the line.
  // `scratch` is reused between calls to avoid allocation.
  void match(std::string_view line, std::vector<PatternHit>& out,
             std::vector<std::pair<std::size_t, std::size_t>>& checks,
             std::vector<int>& scratch) const;

  // Like match(), for a line the prefilter flagged: only the catalog entries it reported
  // (indices in prefilter order, i.e. entry order) are tried, each confirmed by RE2.
  void match_candidates(std::string_view line, std::vector<int>& entries,
                        std::vector<PatternHit>& out,
                        std::vector<std::pair<std::size_t, std::size_t>>& checks) const;
  // Locates a hit found by match()/match_candidates() on `line` and extracts its named
  // groups (left out there: most hits never become events).
  void fill_captures(std::string_view line, PatternHit& hit) const;

  // When entry `id` is a check's evidence pattern, its (rule, check); else false.
  bool check_of_entry(int id, std::size_t& rule, std::size_t& check) const;

  // Number of entries (rule patterns and check patterns) the prefilter was built from.
  std::size_t entry_count() const;

  // True when no pattern can match (an empty catalog).
  bool empty() const;

  // The whole-buffer prefilter over every pattern of the catalog, built on first use (it
  // takes about 0.1 s for the full catalog, so small inputs skip it). Null when it cannot
  // be built; callers then match every line. Thread-safe.
  const Prefilter* prefilter() const;
  bool prefilter_ready() const;

  // Installs a prefilter compiled ahead of time (Prefilter::serialize of this catalog's
  // patterns). Returns false, leaving the catalog to compile its own on first use, when
  // the bytes do not fit this catalog or this CPU. `bytes_outlive_catalog` (the binary's
  // own data): the database is used where it lies, not copied.
  bool adopt_prefilter(std::string_view bytes, bool bytes_outlive_catalog = false);
  // The serialized prefilter of this catalog (for the build step); empty if unavailable.
  std::string serialize_prefilter() const;

 private:
  Catalog();
  void resolve(std::string_view line, const std::vector<int>& sorted_entries,
               std::vector<PatternHit>& out, std::vector<std::pair<std::size_t, std::size_t>>& checks,
               bool unconfirmed) const;
  struct Impl;
  std::vector<Rule> rules_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ff::analysis
