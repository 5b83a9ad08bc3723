#include "analysis/analyze.hpp"

#include "analysis/paste.hpp"
#include "analysis/scan.hpp"

namespace ff::analysis {

Analysis analyze(const Catalog& catalog, std::span<const LogInput> inputs,
                 const JobOutcome& outcome) {
  ScanState state;
  state.reset(catalog);
  std::vector<FileSummary> files;
  // One state per input, joined as the parallel scan joins its pieces (scan_text's parts
  // of one state are parts of one input).
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ScanState one;
    one.reset(catalog);
    // Pasted text is read as it was before it was quoted, indented or wrapped.
    std::optional<std::string> repaired = depaste(inputs[i].text);
    scan_text(catalog, i, repaired ? std::string_view(*repaired) : inputs[i].text, 0, 0, one);
    files.push_back({inputs[i].name, one.lines, inputs[i].text.size()});
    append_scan(state, std::move(one), 0);
  }
  return diagnose(catalog, std::move(files), std::move(state), outcome);
}

}  // namespace ff::analysis
