// Reads rule files (JSON, one signature per file) into analysis::Rule values. Everything
// that knows the rule file format lives here; the analysis core never sees JSON.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/rule.hpp"

namespace ff::rules {

struct RuleProblem {
  std::string origin;  // file path or "builtin:<name>"
  std::string rule;    // rule id, when known
  std::string field;   // JSON path of the offending field, e.g. "patterns[1]"
  std::string message;
  std::string to_string() const;
};

// Parses one rule file's text. On failure returns false and appends why to `problems`;
// nothing is added to `out`.
bool parse_rule(std::string_view text, const std::string& origin, analysis::Rule& out,
                std::vector<RuleProblem>& problems);

// The rules compiled into the binary (rules/*.json at build time).
std::vector<analysis::Rule> builtin_rules(std::vector<RuleProblem>& problems);

// Loads every *.json file of a directory (not recursive, sorted by name). Unreadable files
// and invalid rules are reported in `problems` and skipped.
std::vector<analysis::Rule> load_rule_dir(const std::string& dir, std::vector<RuleProblem>& problems);

// Built-in rules overlaid with user directories: a user rule with a built-in's id replaces
// it, others are added. Invalid user rules are reported and skipped, never fatal.
std::vector<analysis::Rule> load_rules(const std::vector<std::string>& user_dirs,
                                       std::vector<RuleProblem>& problems,
                                       bool include_builtin = true);

// The JSON form of a rule (the same schema parse_rule reads).
std::string rule_to_json(const analysis::Rule& rule);

}  // namespace ff::rules
