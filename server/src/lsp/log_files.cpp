#include "lsp/log_files.hpp"

#include <algorithm>

#include "lsp/uri.hpp"

namespace ff::lsp {

namespace {

char lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

}  // namespace

bool matches_file_pattern(std::string_view pattern, std::string_view name) {
  // Greedy with one backtrack point (the last `*`): linear enough for file names.
  std::size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && lower(pattern[p]) == lower(name[n])) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool is_log_file_name(std::string_view file_name) {
  return std::any_of(kLogFilePatterns.begin(), kLogFilePatterns.end(),
                     [&](std::string_view p) { return matches_file_pattern(p, file_name); });
}

bool looks_like_log(const std::string& uri, const std::string& language_id) {
  if (language_id == "log" || language_id == "plaintext") return true;
  return is_log_file_name(uri_file_name(uri));
}

}  // namespace ff::lsp
