// Turns an analysis into what people and machines read: the versioned JSON interface
// (docs/JSON.md), SARIF 2.1.0 for CI code-scanning views, and the terminal text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/catalog.hpp"
#include "analysis/diagnosis.hpp"

namespace ff::report {

inline constexpr int kJsonVersion = 1;

// The stable JSON document: {"version":1, "files":[...], "diagnoses":[...], ...}.
nlohmann::json to_json(const analysis::Catalog& catalog, const analysis::Analysis& a);

// SARIF 2.1.0: one run, one result per diagnosis (initiating line) and per collateral line.
nlohmann::json to_sarif(const analysis::Catalog& catalog, const analysis::Analysis& a);

struct TextOptions {
  bool color = false;
  std::size_t max_collateral_groups = 8;
};

std::string to_text(const analysis::Catalog& catalog, const analysis::Analysis& a,
                    const TextOptions& options);

// The link of a rule's entry in the public catalog page.
std::string catalog_anchor(const std::string& rule_id);

}  // namespace ff::report
