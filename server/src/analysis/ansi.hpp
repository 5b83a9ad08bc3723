// Terminal escape sequences are noise for matching but their bytes count for positions.
// strip_ansi() removes CSI (colours, cursor moves), OSC (titles, hyperlinks, shell
// integration marks) and other ESC sequences, plus the bare "[0m" residue left when a log
// was pasted through a tool that dropped the ESC byte. It records where each kept byte came
// from so a match can be mapped back to the original column.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ff::analysis {

struct CleanLine {
  std::string text;                 // the line without escape sequences
  std::vector<std::size_t> origin;  // origin[i] = byte offset in the raw line of text[i];
                                    // empty when nothing was removed (identity mapping)
  std::size_t raw_offset(std::size_t clean_offset) const {
    if (origin.empty()) return clean_offset;
    if (clean_offset < origin.size()) return origin[clean_offset];
    return origin.empty() ? clean_offset : origin.back() + 1;
  }
};

// True when the line may contain something strip_ansi would remove (cheap check).
bool may_contain_escapes(std::string_view line);

// Removes escape sequences. Also replaces NUL and other C0 control bytes except TAB by
// nothing, so binary garbage cannot confuse the patterns.
void strip_ansi(std::string_view line, CleanLine& out);

}  // namespace ff::analysis
