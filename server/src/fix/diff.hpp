// Unified diffs (`diff -u` format) of two texts, for showing proposed edits.
#pragma once

#include <string>
#include <string_view>

namespace ff::fix {

// `a_name`/`b_name` go on the ---/+++ lines ("/dev/null" for a created file). Returns ""
// when the texts are equal. A missing final newline is marked "\ No newline at end of file".
// Lines keep a trailing '\r' (CRLF files diff as CRLF, as diff -u prints them).
std::string unified_diff(std::string_view a, std::string_view b, const std::string& a_name,
                         const std::string& b_name, int context = 3);

}  // namespace ff::fix
