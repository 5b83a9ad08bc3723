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
  auto catalog = ff::analysis::Catalog::compile(std::move(rules), nullptr);
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
