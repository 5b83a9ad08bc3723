// Hovers: on an NCCL / PyTorch variable's name in any document, the variable's notes
// (rules/variables/env-vars.json); on a log's marked line, the rule behind it as the report
// renders rules (report/markdown_report.hpp), with the checks the log satisfies ticked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/catalog.hpp"
#include "lsp/analysis_run.hpp"
#include "lsp/text.hpp"

namespace ff::lsp {

struct Hover {
  std::string markdown;
  Range range;
};

// `line` is line `pos.line`'s text; none when no NCCL_* / TORCH_NCCL_* name is under `pos`.
std::optional<Hover> variable_hover(std::string_view line, Position pos, Encoding encoding);

// The hover of the item `run` marks on line `line` of `uri`; none when it marks none there.
std::optional<Hover> diagnostic_hover(const analysis::Catalog& catalog, const AnalysisRun& run,
                                      const std::string& uri, std::uint32_t line,
                                      const std::string& docs_base);

}  // namespace ff::lsp
