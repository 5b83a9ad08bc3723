// The analysis of a job's open logs, as the language server runs it on its analysis thread:
// each document's scan is kept and resumed when the document only grew, the scans of a job
// are merged and diagnosed, and the marked lines built (diagnostics.hpp).
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/scan.hpp"
#include "lsp/analysis_run.hpp"

namespace ff::lsp {

// Runs analyses, reusing each document's scan when the document only grew: the text is
// re-scanned from the start of its last line (ScanState::truncate + scan_text). That it only
// grew is known from the text's buffer (Text::extends); a text in a new buffer (an edit
// elsewhere) is compared with the old one to find out.
class Analyzer {
 public:
  // Scans [base, end) of a text whose line `first_line` starts at `base`, appending to the
  // state: how the bulk of a document is scanned. The default is analysis::scan_text on the
  // calling thread; the server passes one that uses every core (parallel::scan), which
  // gives the same result.
  using RangeScan =
      std::function<void(const analysis::Catalog&, std::string_view whole, std::size_t base,
                         std::size_t first_line, analysis::ScanState& state, std::size_t end)>;
  explicit Analyzer(const analysis::Catalog& catalog, RangeScan scan = {})
      : catalog_(catalog), scan_(std::move(scan)) {}
  AnalysisRun run(std::vector<DocumentSnapshot> docs, const AnalyzerOptions& options);
  // One job among several (AnalysisServer runs each job that changed). Like run(), except
  // that a single document's events are moved into the result instead of copied (copying
  // 6,000 events was a third of the time to re-diagnose a 1 MB append), and that the scans
  // of documents outside `docs` are kept (other jobs' documents; retain() prunes closed
  // ones). settle(result) gives the events back, on this thread before the next run; the
  // server calls it once the result is on its way to the client. A document whose events
  // were not given back is scanned again in full by the next run.
  AnalysisRun run_lending(std::vector<DocumentSnapshot> docs, const AnalyzerOptions& options);
  void settle(const AnalysisRun& run);
  void forget(const std::string& uri) { cache_.erase(uri); }
  void retain(const std::set<std::string>& uris);

 private:
  // The scan state as it was before the text's last line (which more text may extend) was
  // scanned: an append resumes from here, at a cost of what was appended, however many
  // events are capped or lines come before.
  struct Checkpoint {
    std::size_t offset = 0;  // where the last line starts
    std::size_t line = 0;    // its number
    std::size_t events = 0;
    std::vector<std::size_t> rule_hits;
    std::vector<std::vector<bool>> checks_seen;
  };
  struct Cached {
    Text text;
    analysis::ScanState state;
    Checkpoint tail;
    bool lent = false;  // state.events are in a run's result, until settle()
  };
  AnalysisRun run(std::vector<DocumentSnapshot> docs, const AnalyzerOptions& options, bool lend);
  std::size_t update(Cached& c, const Text& text);
  const analysis::Catalog& catalog_;
  RangeScan scan_;
  std::map<std::string, Cached> cache_;
};

}  // namespace ff::lsp
