#include "lsp/analysis_run.hpp"

namespace ff::lsp {

std::vector<const DiagnosticItem*> items_on_lines(const AnalysisRun& run, const std::string& uri,
                                                  Range range) {
  std::vector<const DiagnosticItem*> out;
  auto items = run.items.find(uri);
  if (items != run.items.end())
    for (const auto& d : items->second)
      if (d.range.start.line >= range.start.line && d.range.start.line <= range.end.line)
        out.push_back(&d);
  return out;
}

}  // namespace ff::lsp
