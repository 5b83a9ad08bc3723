// Turns an analysis into what people and machines read: the versioned JSON interface
// (docs/JSON.md), SARIF 2.1.0 for CI code-scanning views, and the terminal text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/diagnosis.hpp"
#include "evidence/ras_report.hpp"

namespace ff::report {

inline constexpr int kJsonVersion = 1;

// The context lines (role context, benign listings) the JSON document lists, first first.
inline constexpr std::size_t kContextLinesShown = 50;

// The stable JSON document: {"version":1, "files":[...], "diagnoses":[...], ...}.
nlohmann::json to_json(const analysis::Catalog& catalog, const analysis::Analysis& a);

// SARIF 2.1.0: one run, one result per diagnosis (initiating line) and per collateral line.
// Columns are UTF-16 code units (the run says `columnKind: utf16CodeUnits`, SARIF's
// default), counted on the raw line: `texts` are the inputs' texts in file order. Without
// them (or where a file's text is null, a summarised file) a line's event text is used when it is the raw line (no escape sequences, not
// capped), else the byte columns are given. Invalid UTF-8 counts one unit per byte.
nlohmann::json to_sarif(const analysis::Catalog& catalog, const analysis::Analysis& a,
                        const std::vector<std::string_view>& texts = {});

// UTF-16 code units in `s` (4-byte UTF-8 sequences are two; an invalid byte is one).
std::size_t utf16_units(std::string_view s);

struct TextOptions {
  bool color = false;
  std::size_t max_collateral_groups = 8;
  // Sections rendered from evidence beyond the logs (ras_text), shown before the category.
  std::string appendix;
};

std::string to_text(const analysis::Catalog& catalog, const analysis::Analysis& a,
                    const TextOptions& options);

// NCCL RAS client output read beside the logs (evidence/ras_report.hpp), by file.
struct RasInput {
  std::string file;
  evidence::RasReport report;
};

// The `ras` array of docs/JSON.md: per file, the communicators with the ranks behind, ahead
// and missing, dead processes, monitor events and the conclusions.
nlohmann::json ras_json(const std::vector<RasInput>& inputs);

// The "NCCL RAS" section of the text report (empty without inputs).
std::string ras_text(const std::vector<RasInput>& inputs, bool color);

// The link of a rule's entry in the public catalog page.
std::string catalog_anchor(const std::string& rule_id);

// A share (0 to 1) as a whole percentage, as every report prints a confidence: "90%".
std::string percent(double share);

}  // namespace ff::report
