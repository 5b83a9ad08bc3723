// The marked lines of an analysis, built by one function: each event gets the first role
// that applies to it (the root cause's initiating line, its collateral and evidence, the
// less likely causes, findings, context), with the English message the editor shows, the
// rule's fix variables, the verdict on the initiating and alternative lines, and related
// information linking the root cause and its collateral both ways. A rule marks at most
// kMaxMarkedLinesPerRule lines per document and role; the last one says how many more.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/rule.hpp"
#include "lsp/analysis_run.hpp"

namespace ff::lsp {

// Per URI of `run.docs`, sorted by line; reads run.docs and run.analysis only.
std::map<std::string, std::vector<DiagnosticItem>> build_diagnostics(
    const AnalysisRun& run, const std::vector<analysis::Rule>& rules,
    const AnalyzerOptions& options);

}  // namespace ff::lsp
