// The environment variables firstfault explains on hover, as data. Facts follow NCCL's and
// PyTorch's sources (see docs/LSP.md); the wording is ours.
#pragma once

#include <span>
#include <string_view>

namespace ff::lsp {

struct EnvVarDoc {
  std::string_view name;
  std::string_view owner;    // "NCCL" or "PyTorch c10d"
  std::string_view deflt;    // default value, in words
  std::string_view meaning;  // what it does (Markdown)
  std::string_view syntax;   // accepted values (Markdown)
};

std::span<const EnvVarDoc> env_var_docs();
const EnvVarDoc* find_env_var(std::string_view name);

}  // namespace ff::lsp
