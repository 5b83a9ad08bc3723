// How a corpus case's job ended, as its user would tell firstfault: the `outcome` of its
// expected.json ("failed", "hung", "healthy"), else failed for a case whose category is not
// `none` (every failure case comes from a job that failed or hung) and unknown for a healthy
// one. Shared by the corpus scorer and the metamorphic test.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/outcome.hpp"

namespace ff::test {

inline analysis::JobOutcome case_outcome(const nlohmann::json& expected) {
  analysis::JobOutcome o;
  std::string given = expected.value("outcome", std::string());
  bool failure = expected.value("category", std::string("none")) != "none";
  if (given == "hung")
    o.end = analysis::JobEnd::kHung;
  else if (given == "failed" || (given != "healthy" && failure))
    o.end = analysis::JobEnd::kFailed;
  return o;
}

}  // namespace ff::test
