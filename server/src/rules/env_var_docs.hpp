// The environment variables firstfault explains on hover (NCCL's and PyTorch c10d's), as
// data: rules/variables/env-vars.json, embedded in the binary like the rules. Facts follow
// NCCL's and PyTorch's sources (docs/LSP.md); the wording is ours.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/rule_loader.hpp"

namespace ff::rules {

struct EnvVarDoc {
  std::string name;
  std::string owner;    // "NCCL" or "PyTorch c10d"
  std::string deflt;    // the default value, in words
  std::string meaning;  // what it does (Markdown)
  std::string syntax;   // the values it takes (Markdown)
};

// Parses a variables file ({"variables": [{name, owner, default, meaning, syntax}, ...]}).
// Each problem names `origin` and the place (`variables[3].syntax`); entries with one are
// left out, the rest kept.
std::vector<EnvVarDoc> parse_env_var_docs(std::string_view text, const std::string& origin,
                                          std::vector<RuleProblem>& problems);

// The built-in file, parsed once (its problems are the linter's to report).
const std::vector<EnvVarDoc>& builtin_env_var_docs();
// The built-in file's text and name ("variables/env-vars.json").
std::string_view builtin_env_var_docs_text();
const EnvVarDoc* find_env_var(std::string_view name);

}  // namespace ff::rules
