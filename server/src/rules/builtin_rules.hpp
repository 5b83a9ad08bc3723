// The rule files of rules/ as compiled into the binary, so the shipped binary (and the one
// inside the VS Code extension) needs no data files next to it.
#pragma once

#include <span>
#include <string_view>

namespace ff::rules {

struct EmbeddedFile {
  std::string_view name;
  std::string_view text;
};

std::span<const EmbeddedFile> builtin_rule_files();
// The data files beside them (rules/variables/*.json), named "variables/<file>".
std::span<const EmbeddedFile> builtin_data_files();

}  // namespace ff::rules
