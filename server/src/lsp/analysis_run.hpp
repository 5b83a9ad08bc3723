// One analysis of a job's logs (job_of, publications.hpp) as the features read it: the
// snapshots analysed, the core's analysis and the marked lines per document. Hovers, code
// actions, lenses and reports are functions of a run and a document's URI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/diagnosis.hpp"
#include "lsp/diagnostic_item.hpp"
#include "lsp/document_text.hpp"
#include "lsp/text.hpp"

namespace ff::lsp {

struct DocumentSnapshot {
  std::string uri;
  std::int64_t version = 0;
  Text text;  // a prefix of the document's buffer: later appends do not change it
};

struct AnalysisRun {
  std::vector<DocumentSnapshot> docs;
  analysis::Analysis analysis;
  std::vector<std::vector<bool>> checks_seen;                // [rule][check]
  std::map<std::string, std::vector<DiagnosticItem>> items;  // per URI
  std::size_t bytes_scanned = 0;  // measured: bytes actually re-scanned by this run
  std::size_t bytes_total = 0;
  // Measured: where the run's time went (for the log), in milliseconds.
  double scan_ms = 0, merge_ms = 0, diagnose_ms = 0, items_ms = 0;
};

// How a run's items are rendered.
struct AnalyzerOptions {
  Encoding encoding = Encoding::kUtf16;
  std::string docs_base;  // "file:///.../docs" when known, else empty (relative links)
};

// The run's items for `uri` that start on a line of `range`, in order.
std::vector<const DiagnosticItem*> items_on_lines(const AnalysisRun& run, const std::string& uri,
                                                  Range range);

}  // namespace ff::lsp
