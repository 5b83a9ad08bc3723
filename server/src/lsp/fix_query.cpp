#include "lsp/fix_query.hpp"

#include <algorithm>

#include "fix/engine.hpp"

namespace ff::lsp {

FixQuery fix_query(const analysis::Catalog& catalog, const AnalysisRun& run, const std::string& uri,
                   Range range) {
  FixQuery q;
  q.uri = uri;
  for (const DiagnosticItem* item : items_on_lines(run, uri, range)) {
    const DiagnosticItem& d = *item;
    // Every fix at once goes on the root cause's line, or, when the analysis names no root
    // cause (an unexplained failure, a latent misconfiguration), on the first marked line.
    if (!q.fix_all_on && (d.role == Role::kInitiating || run.analysis.diagnoses.empty()))
      q.fix_all_on = d;
    if (d.role == Role::kContext) continue;
    const analysis::Rule* rule = catalog.find(d.rule_id);
    if (!rule) continue;
    if (rule->fix.env.empty() && !fix::wants_binding(*rule) && !fix::wants_shm(*rule)) continue;
    bool seen = std::any_of(q.items.begin(), q.items.end(),
                            [&](const DiagnosticItem& o) { return o.rule_id == d.rule_id; });
    if (!seen) q.items.push_back(d);  // one set of fixes per rule, on its first line
  }
  return q;
}

}  // namespace ff::lsp
