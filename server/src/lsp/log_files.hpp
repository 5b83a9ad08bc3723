// Which documents the language server analyses as logs: the one place that decides it. A
// document is a log when the client calls its language `log` or `plaintext`, or when its
// file's name matches one of kLogFilePatterns. The server advertises the patterns to its
// clients in its initialize result (capabilities.experimental.firstfault.logFiles, docs/
// LSP.md), and the VS Code extension builds its document selector and its choice of the
// tabs to hand over from them: no client keeps a copy of these rules.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace ff::lsp {

// File-name globs: `*` stands for any run of characters, everything else for itself, letters
// in either case (TRAIN.LOG is a log as train.log is).
inline constexpr std::array<std::string_view, 4> kLogFilePatterns = {"*.log", "*.out", "*.err",
                                                                     "slurm-*.out"};

// Whether `file_name` (no folder) matches the glob `pattern` as kLogFilePatterns says.
bool matches_file_pattern(std::string_view pattern, std::string_view file_name);
bool is_log_file_name(std::string_view file_name);
bool looks_like_log(const std::string& uri, const std::string& language_id);

}  // namespace ff::lsp
