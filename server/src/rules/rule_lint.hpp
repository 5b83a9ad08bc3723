// Checks a rule set beyond what loading checks: every example line is run through the
// compiled catalog, ids must be unique, and a rule whose examples are all claimed by a
// stronger rule is reported as shadowed (it would never speak for its own lines).
#pragma once

#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/rule.hpp"
#include "rules/rule_loader.hpp"

namespace ff::rules {

struct ExampleResult {
  std::string rule;
  bool expect_match;
  std::string line;
  bool passed;
  std::string detail;  // on failure: what happened instead
};

std::vector<ExampleResult> run_examples(const analysis::Catalog& catalog);

struct LintReport {
  std::vector<RuleProblem> problems;  // everything that is wrong, each naming rule and field
  std::vector<ExampleResult> examples;
  std::size_t rules = 0;
};

// `raw` are the rules as loaded (before compilation) so duplicate ids are still visible.
LintReport lint(const std::vector<analysis::Rule>& raw, std::vector<RuleProblem> load_problems);

}  // namespace ff::rules
