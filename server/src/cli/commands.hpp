// The CLI verbs. Each takes its own arguments (after the verb) and returns the exit code:
// 0 success (whether or not a failure was found), 2 bad usage or unreadable input.
#pragma once

#include <string>
#include <vector>

namespace ff::cli {

int run_analyze(const std::vector<std::string>& args);
int run_rules(const std::vector<std::string>& args);
int run_topo(const std::vector<std::string>& args);
int run_lsp(const std::vector<std::string>& args);
int run_watch(const std::vector<std::string>& args);

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // a check the command runs did not pass (lint, test)
inline constexpr int kExitUsage = 2;

}  // namespace ff::cli
