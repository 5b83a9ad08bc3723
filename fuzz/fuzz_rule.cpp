// libFuzzer: the rule loader (JSON -> Rule) and, for rules that load, compiling them and
// matching their own example lines.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/catalog.hpp"
#include "rules/rule_lint.hpp"
#include "rules/rule_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<ff::rules::RuleProblem> problems;
  ff::analysis::Rule rule;
  if (!ff::rules::parse_rule(text, "fuzz.json", rule, problems)) {
    for (const auto& p : problems) (void)p.to_string();
    return 0;
  }
  (void)ff::rules::rule_to_json(rule);
  std::vector<ff::analysis::CompileError> errors;
  auto examples = rule.examples_match;
  auto catalog = ff::analysis::Catalog::compile({rule}, &errors);
  std::vector<ff::analysis::PatternHit> hits;
  std::vector<std::pair<std::size_t, std::size_t>> checks;
  std::vector<int> scratch;
  for (const auto& line : examples) catalog.match(line, hits, checks, scratch);
  return 0;
}
