// What a code action request asks the fix planner for (fix/planner.hpp, run on a worker by
// the AnalysisServer, turned into actions by fix_actions.hpp): the log's marked lines in the
// range whose rules have a fix, one per rule, and the line in the range where every fix of
// the analysis is offered at once, as `analyze --fix` makes them: the root cause's
// initiating line, or with no root cause the first marked line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "lsp/analysis_run.hpp"

namespace ff::lsp {

struct FixQuery {
  std::string uri;
  std::vector<DiagnosticItem> items;
  std::optional<DiagnosticItem> fix_all_on;
  bool empty() const { return items.empty() && !fix_all_on; }
};

FixQuery fix_query(const analysis::Catalog& catalog, const AnalysisRun& run, const std::string& uri,
                   Range range);

}  // namespace ff::lsp
