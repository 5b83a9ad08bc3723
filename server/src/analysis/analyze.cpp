#include "analysis/analyze.hpp"

#include "analysis/scan.hpp"

namespace ff::analysis {

Analysis analyze(const Catalog& catalog, std::span<const LogInput> inputs) {
  ScanState state;
  state.reset(catalog);
  std::vector<FileSummary> files;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::size_t before = state.lines;
    scan_text(catalog, i, inputs[i].text, 0, 0, state);
    files.push_back({inputs[i].name, state.lines - before, inputs[i].text.size()});
  }
  return diagnose(catalog, std::move(files), std::move(state));
}

}  // namespace ff::analysis
