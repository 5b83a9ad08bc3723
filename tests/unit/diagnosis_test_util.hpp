// Small hand-written catalogs for the diagnosis tests: each behaviour is tested with rules
// written for the case, independent of the shipped catalog.
#pragma once

#include <catch2/catch.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyze.hpp"

namespace ff::test {

inline analysis::Rule make(std::string id, std::string category, analysis::Role role, double weight,
                           std::string pattern) {
  analysis::Rule r;
  r.id = std::move(id);
  r.category = std::move(category);
  r.role = role;
  r.weight = weight;
  r.patterns = {std::move(pattern)};
  r.title = r.id;
  return r;
}

inline analysis::Catalog catalog(std::vector<analysis::Rule> rules) {
  std::vector<analysis::CompileError> errors;
  analysis::Catalog c = analysis::Catalog::compile(std::move(rules), &errors);
  REQUIRE(errors.empty());
  return c;
}

// The outcomes a user states: the job failed; the job hung.
inline analysis::JobOutcome failed() {
  return {analysis::JobEnd::kFailed, std::nullopt};
}
inline analysis::JobOutcome hung() {
  return {analysis::JobEnd::kHung, std::nullopt};
}

// The analysis of one log, given the job's outcome as its user would (none by default).
inline analysis::Analysis run(const analysis::Catalog& c, std::string_view text,
                              analysis::JobOutcome outcome = {}) {
  analysis::LogInput in{"test.log", text};
  return analysis::analyze(c, std::span(&in, 1), outcome);
}

inline const analysis::Event& initiating(const analysis::Analysis& a) {
  REQUIRE_FALSE(a.diagnoses.empty());
  return a.events[a.diagnoses.front().initiating];
}

// What a working job's log must give: neither a diagnosis nor a finding.
inline void check_silent(const analysis::Catalog& c, std::string_view text) {
  auto a = run(c, text);
  CHECK(a.diagnoses.empty());
  CHECK(a.findings.empty());
}

// The first diagnosis of a log (others may follow): of `category`, led by line `line`.
inline analysis::Analysis check_first(const analysis::Catalog& c, std::string_view text,
                                      std::string_view category, std::size_t line,
                                      analysis::JobOutcome outcome = {}) {
  auto a = run(c, text, outcome);
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == category);
  CHECK(initiating(a).line == line);
  return a;
}

// The same log under a known outcome: one diagnosis, of `category`, led by line `line`.
inline analysis::Analysis check_lead(const analysis::Catalog& c, std::string_view text,
                                     analysis::JobOutcome outcome, std::string_view category,
                                     std::size_t line) {
  auto a = run(c, text, outcome);
  REQUIRE(a.diagnoses.size() == 1);
  CHECK(a.diagnoses.front().category == category);
  CHECK(initiating(a).line == line);
  return a;
}

}  // namespace ff::test
