// What the coverage tests (coverage_test.cpp, cuda_error_coverage_test.cpp) share: how a
// rendered line is matched against the catalog and which rule speaks for it, the same
// choice the scan makes (analysis::line_precedence), and the small text helpers they use.
#pragma once

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/rule.hpp"

namespace ff::test {

inline std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline bool has(const std::string& hay, const char* needle) {
  return hay.find(needle) != std::string::npos;
}

inline bool ends_with(const std::string& s, const char* suffix) {
  std::string t(suffix);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

inline std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The data rows of a tab-separated table (its first line is the header), each split into
// its fields; CRLF line ends are tolerated.
inline std::vector<std::vector<std::string>> tsv_records(const std::string& path) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(read_file(path));
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (header) {
      header = false;
      continue;
    }
    out.push_back(split(line, '\t'));
  }
  return out;
}

// A rule whose line counts as recognised: it names a failure (cause, symptom), an
// observation (finding) or lists the line as context (benign listings included). A fallback
// rule (a generic error-level pattern) does not.
inline bool counts(ff::analysis::Role r) {
  using ff::analysis::Role;
  return r == Role::kCause || r == Role::kSymptom || r == Role::kFinding || r == Role::kContext;
}

// The rule that speaks for `line`: the hit with the highest line precedence, or null.
inline const ff::analysis::Rule* winner_of(const ff::analysis::Catalog& catalog,
                                           const std::string& line) {
  std::vector<ff::analysis::PatternHit> hits;
  std::vector<std::pair<std::size_t, std::size_t>> checks;
  std::vector<int> scratch;
  catalog.match(line, hits, checks, scratch);
  const ff::analysis::Rule* best = nullptr;
  for (const auto& h : hits) {
    const auto& r = catalog.rules()[h.rule];
    if (!best || ff::analysis::line_precedence(r) > ff::analysis::line_precedence(*best)) best = &r;
  }
  return best;
}

struct Verdict {
  bool recognised = false;
  std::string winner;  // the winning rule of the best line, or empty
  std::string role;
  std::string category;  // the winning rule's category
};

// The first of `lines` whose winning rule counts, else the winner of the first line any rule
// matched (a fallback), else nothing.
inline Verdict judge(const ff::analysis::Catalog& catalog, const std::vector<std::string>& lines) {
  Verdict v;
  for (const auto& line : lines) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const auto* r = winner_of(catalog, line);
    if (!r) continue;
    if (counts(r->role)) {
      v.recognised = true;
      v.winner = r->id;
      v.role = ff::analysis::role_name(r->role);
      v.category = r->category;
      return v;
    }
    if (v.winner.empty()) {
      v.winner = r->id;
      v.role = ff::analysis::role_name(r->role);
      v.category = r->category;
    }
  }
  return v;
}

}  // namespace ff::test
