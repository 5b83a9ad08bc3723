// The built-in catalog, compiled once per fuzzing process (every input runs against it).
#pragma once

#include <vector>

#include "analysis/catalog.hpp"
#include "rules/rule_loader.hpp"

namespace ff::fuzz {

inline const analysis::Catalog& builtin_catalog() {
  static const analysis::Catalog catalog = [] {
    std::vector<rules::RuleProblem> problems;
    return analysis::Catalog::compile(rules::load_rules({}, problems), nullptr);
  }();
  return catalog;
}

}  // namespace ff::fuzz
