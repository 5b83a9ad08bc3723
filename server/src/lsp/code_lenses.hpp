// The code lens on a log's root cause: category, who printed it and the collateral count,
// running the rule's verification (verification_actions.hpp) or, for a rule without one,
// opening the report (firstfault.report).
#pragma once

#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "lsp/analysis_run.hpp"
#include "lsp/code_action_item.hpp"

namespace ff::lsp {

struct LensItem {
  Range range;
  CommandItem command;
};

std::vector<LensItem> code_lenses(const analysis::Catalog& catalog, const AnalysisRun& run,
                                  const std::string& uri);

}  // namespace ff::lsp
