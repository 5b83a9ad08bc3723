// The analysis core's front door: texts in, diagnoses out. No files, no threads, no JSON.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "analysis/catalog.hpp"
#include "analysis/diagnosis.hpp"

namespace ff::analysis {

struct LogInput {
  std::string name;       // shown to the user and used in reports (a path, a URI, "<stdin>")
  std::string_view text;  // the whole log; must outlive the call
};

// Several inputs are one job: per-node or per-rank logs are correlated into one diagnosis.
// `outcome`: how the job ended, when the caller knows (diagnosis.hpp).
Analysis analyze(const Catalog& catalog, std::span<const LogInput> inputs,
                 const JobOutcome& outcome = {});

}  // namespace ff::analysis
