// Terminal escape sequences are noise for matching but their bytes count for positions.
// strip_ansi() removes CSI (colours, cursor moves), OSC (titles, hyperlinks, shell
// integration marks) and other ESC sequences, plus the bare "[0m" residue left when a log
// was pasted through a tool that dropped the ESC byte. It records where each kept byte came
// from so a match can be mapped back to the original column.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ff::analysis {

struct CleanLine {
  std::string text;  // the line without escape sequences
  // Where the kept bytes came from, one entry per run of bytes kept together:
  // (offset in text, offset in the raw line). Empty when nothing was kept.
  std::vector<std::pair<std::size_t, std::size_t>> runs;

  // The byte offset in the raw line of text[clean_offset]; for text.size(), one past the
  // raw position of the last kept byte.
  std::size_t raw_offset(std::size_t clean_offset) const {
    if (runs.empty()) return clean_offset;
    auto it = std::upper_bound(runs.begin(), runs.end(), clean_offset,
                               [](std::size_t c, const auto& run) { return c < run.first; });
    if (it == runs.begin()) return runs.front().second;
    --it;
    return it->second + (clean_offset - it->first);
  }
};

// True when the line may contain something strip_ansi would remove (cheap check).
bool may_contain_escapes(std::string_view line);
// The part of that check left for a line known to hold no control byte and no line end
// (find_control_byte found none): a bare "[0m"-like residue of a colour code.
bool may_contain_sgr_residue(std::string_view line);

// The first byte in [from, to) of `text` that strip_ansi always removes, i.e. a C0 control
// byte other than TAB, LF and CR (ESC is one), or DEL; `to` when there is none. Vectorised
// where the CPU allows: the prefiltered scan runs it over every byte it does not send to
// Vectorscan's patterns, which is cheaper than a Vectorscan pattern for the same bytes (a
// coloured log has one on most lines).
std::size_t find_control_byte(std::string_view text, std::size_t from, std::size_t to);

// Removes escape sequences. Also replaces NUL and other C0 control bytes except TAB by
// nothing, so binary garbage cannot confuse the patterns.
void strip_ansi(std::string_view line, CleanLine& out);

// The line as the rules read it: `line` itself when it holds nothing strip_ansi removes,
// else its cleaned text, kept in `buffer` (valid until `buffer` is reused).
inline std::string_view without_escapes(std::string_view line, CleanLine& buffer) {
  if (!may_contain_escapes(line)) return line;
  strip_ansi(line, buffer);
  return buffer.text;
}

}  // namespace ff::analysis
