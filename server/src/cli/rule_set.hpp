// Loading the catalog for a command: built-in rules plus --rules directories. Problems in
// user rules are printed as warnings and the rule skipped; the command goes on.
#pragma once

#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "rules/rule_loader.hpp"

namespace ff::cli {

struct LoadedCatalog {
  analysis::Catalog catalog;
  std::vector<rules::RuleProblem> problems;
};

LoadedCatalog load_catalog(const std::vector<std::string>& rule_dirs, bool builtin = true);

}  // namespace ff::cli
