#include <iostream>

#include "cli/commands.hpp"

namespace ff::cli {

int run_lsp(const std::vector<std::string>&) {
  std::cerr << "firstfault lsp: not available in this build yet\n";
  return kExitUsage;
}

}  // namespace ff::cli
