#include "cli/rule_set.hpp"

#include "cli/builtin_prefilter.hpp"

namespace ff::cli {

LoadedCatalog load_catalog(const std::vector<std::string>& rule_dirs, bool builtin) {
  std::vector<rules::RuleProblem> problems;
  auto rules = rules::load_rules(rule_dirs, problems, builtin);
  std::vector<analysis::CompileError> errors;
  auto catalog = analysis::Catalog::compile(std::move(rules), &errors,
                                            analysis::Catalog::Validation::kTrustBuiltin);
  // The embedded prefilter fits only the built-in catalog unchanged; adopt_prefilter()
  // checks the patterns' fingerprint and otherwise leaves compiling to first use.
  if (builtin && rule_dirs.empty()) catalog.adopt_prefilter(builtin_prefilter_bytes(), true);
  for (auto& e : errors) problems.push_back({e.origin, e.rule, e.field, e.message});
  return {std::move(catalog), std::move(problems)};
}

}  // namespace ff::cli
