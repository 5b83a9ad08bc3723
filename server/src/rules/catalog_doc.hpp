// Generates docs/catalog.md, the public error catalog, from the rules: grouped by category,
// each error next to what it indicates and what tells it apart from its neighbours.
#pragma once

#include <string>
#include <vector>

#include "analysis/rule.hpp"

namespace ff::rules {

std::string catalog_markdown(const std::vector<analysis::Rule>& rules);

}  // namespace ff::rules
