// What the corpus scorer and the metamorphic test share about a case: its files, how a
// line is compared, and how its job ended.
#pragma once

#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "analysis/outcome.hpp"

namespace ff::test {

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string trim(std::string s) {
  auto issp = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!s.empty() && issp(s.back())) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && issp(s[i])) ++i;
  return s.substr(i);
}

// A line with its non-breaking spaces (U+00A0, U+202F: a page or a chat put them in) made
// plain, as the analysis reads a paste (analysis/paste.hpp): the same line either way.
inline std::string plain_spaces(std::string s) {
  for (const std::string nbsp : {"\xC2\xA0", "\xE2\x80\xAF"})
    for (std::size_t at; (at = s.find(nbsp)) != std::string::npos;) s.replace(at, nbsp.size(), " ");
  return s;
}

// The corpus sometimes shortens a decisive line (a "< truncated >" marker in the log), and a
// carried line holds its prefix: either containing the other, once both are trimmed.
inline bool same_line(const std::string& ours, const std::string& expected) {
  std::string a = trim(plain_spaces(ours)), b = trim(plain_spaces(expected));
  if (a.empty() || b.empty()) return false;
  return a == b || a.find(b) != std::string::npos || b.find(a) != std::string::npos;
}

// How a corpus case's job ended, as its user would tell firstfault: the `outcome` of its
// expected.json ("failed", "hung", "healthy"), else failed for a case whose category is not
// `none` (every failure case comes from a job that failed or hung) and unknown for a healthy
// one.
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
