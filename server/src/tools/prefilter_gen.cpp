// Build step: compiles the prefilter of the built-in catalog and writes it to a file, which
// the build embeds into the binary (see builtin_prefilter.cpp). Start-up then costs a
// deserialisation instead of a Vectorscan compile.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "analysis/catalog.hpp"
#include "rules/rule_loader.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ff_prefilter_gen OUTPUT\n";
    return 2;
  }
  std::vector<ff::rules::RuleProblem> problems;
  auto rules = ff::rules::builtin_rules(problems);
  // Every built-in pattern must compile: the binary trusts them and compiles them only
  // when first needed (Catalog::Validation::kTrustBuiltin).
  std::vector<ff::analysis::CompileError> errors;
  auto catalog = ff::analysis::Catalog::compile(std::move(rules), &errors);
  for (const auto& p : problems) std::cerr << "ff_prefilter_gen: " << p.to_string() << "\n";
  for (const auto& e : errors)
    std::cerr << "ff_prefilter_gen: " << e.origin << ": " << e.rule << ": " << e.field << ": "
              << e.message << "\n";
  if (!problems.empty() || !errors.empty()) return 1;
  std::string bytes = catalog.serialize_prefilter();
  // An empty blob is valid: the binary then compiles the prefilter when it needs one.
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) {
    std::cerr << "ff_prefilter_gen: cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}
