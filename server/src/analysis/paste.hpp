// Text as people paste it. A log copied into a forum post or an issue is often quoted in
// Markdown ("> " before every line), indented four spaces as a code block (or all of it
// indented alike by the harness that printed it), or hard-wrapped by the terminal or the page
// it was copied from (every long line cut at the same column). The rules match whole lines,
// so each of these hides signatures: an anchored pattern misses a quoted line, and a message
// cut in two matches in neither half.
//
// `depaste` undoes them on a copy of the text, without changing how many lines it has: a
// wrapped line is joined back onto its first piece and the pieces after it become empty
// lines, so every line number (and so every reported place) is the pasted text's own. It
// only acts when the whole text shows the pattern (most lines quoted; most lines indented, or
// every line by the same whitespace; a width that lines are cut at), so a log that was not
// pasted is left as it is. One repair is of a line alone, because the line itself shows it:
// a line that opens a parenthesis which the next line or the one after closes, bringing the
// count back to even, was wrapped inside it (a paste wrapped at words, or by hand: a
// watchdog's "WorkNCCL(SeqNum=3, OpType=ALLREDUCE," then "NumelIn=1, ...) ran for"). A
// program prints a parenthesised group on one line, and a record that starts on the next
// line does not close a group the line before left open. And a page or a chat that turned
// spaces into non-breaking ones (U+00A0, U+202F in UTF-8) has them made plain again: no
// producer writes them, and a pattern's space matches none. Pure: text in, text out.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ff::analysis {

struct PasteRepair {
  bool quoted = false;         // Markdown quote markers removed
  bool indented = false;       // code-block or common indentation removed
  std::size_t wrap_width = 0;  // lines cut at this many bytes were joined (0: none)
  std::size_t groups = 0;      // lines joined to the one that closes their parenthesis
  bool nbsp = false;           // non-breaking spaces (U+00A0, U+202F) made plain spaces
};

// Pasted text is small: larger inputs are logs read from disk, left untouched (and unread).
inline constexpr std::size_t kDepasteMaxBytes = std::size_t{4} << 20;

// The repaired copy, or nullopt when the text shows none of these (or is larger than
// kDepasteMaxBytes). `what`, when given, says what was repaired.
std::optional<std::string> depaste(std::string_view text, PasteRepair* what = nullptr);

}  // namespace ff::analysis
