#include "analysis/analyze.hpp"

#include "analysis/cut_traceback.hpp"
#include "analysis/paste.hpp"
#include "analysis/scan.hpp"
#include "analysis/stacks.hpp"

namespace ff::analysis {

Analysis analyze(const Catalog& catalog, std::span<const LogInput> inputs,
                 const JobOutcome& outcome) {
  ScanState state;
  state.reset(catalog);
  std::vector<FileSummary> files;
  std::vector<std::optional<std::string>> repaired(inputs.size());
  std::vector<std::string_view> scanned(inputs.size());
  // One state per input, joined as the parallel scan joins its pieces (scan_text's parts
  // of one state are parts of one input).
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ScanState one;
    one.reset(catalog);
    // Pasted text is read as it was before it was quoted, indented or wrapped.
    repaired[i] = depaste(inputs[i].text);
    scanned[i] = repaired[i] ? std::string_view(*repaired[i]) : inputs[i].text;
    scan_text(catalog, i, scanned[i], 0, 0, one);
    files.push_back({inputs[i].name, one.lines, inputs[i].text.size()});
    append_scan(state, std::move(one), 0);
  }
  // A job known to have failed: where each rank's progress and stack stopped (stacks.hpp).
  if (outcome.known_failure()) {
    compare_stopped_processes(catalog, scanned, state);
    // A paste cut before its exception line: the innermost frame (cut_traceback.hpp).
    read_cut_tracebacks(catalog, scanned, state);
  }
  return diagnose(catalog, std::move(files), std::move(state), outcome);
}

}  // namespace ff::analysis
