#include "lsp/code_lenses.hpp"

#include "lsp/verification_actions.hpp"
#include "report/markdown_report.hpp"

namespace ff::lsp {

std::vector<LensItem> code_lenses(const analysis::Catalog& catalog, const AnalysisRun& run,
                                  const std::string& uri) {
  std::vector<LensItem> out;
  const auto& a = run.analysis;
  auto items = run.items.find(uri);
  if (items == run.items.end()) return out;
  for (const auto& d : items->second) {
    if (d.role != Role::kInitiating || a.diagnoses.empty()) continue;
    const auto& dg = a.diagnoses[0];
    const auto& rule = catalog.rules()[dg.rule];
    std::string who = report::who_printed(a.events[dg.initiating]);
    std::string title = "firstfault: root cause " + dg.category +
                        (who.empty() ? "" : " on " + who) + " · " +
                        std::to_string(dg.collateral.size()) + " collateral";
    LensItem lens;
    lens.range = {{d.range.start.line, 0}, {d.range.start.line, 0}};
    if (!rule.verify.command.empty())
      lens.command = verification_command(
          rule, run, d.event,
          title + (verification_runnable(rule, run, d.event) ? " · run verification"
                                                             : " · verify (complete the command)"));
    else
      lens.command = {title, "firstfault.report", {uri}};
    out.push_back(std::move(lens));
  }
  return out;
}

}  // namespace ff::lsp
