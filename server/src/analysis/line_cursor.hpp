// Splits text into lines the way editors and the Language Server Protocol do: "\n", "\r\n"
// and a lone "\r" each end a line. A tqdm progress bar that redraws itself with "\r" thus
// becomes one line per redraw, and line numbers agree between the CLI and the editor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace ff::analysis {

struct LineSpan {
  std::size_t number;  // 0-based
  std::size_t begin;   // byte offset of the first character
  std::string_view text;  // without the terminator
};

class LineCursor {
 public:
  explicit LineCursor(std::string_view text, std::size_t first_number = 0,
                      std::size_t base_offset = 0)
      : text_(text), number_(first_number), base_(base_offset) {}

  // Produces the next line; false at the end. A final line without terminator counts; an
  // empty text has no lines, and a text ending in a terminator has no empty last line.
  bool next(LineSpan& out) {
    if (pos_ >= text_.size()) return false;
    const char* start = text_.data() + pos_;
    std::size_t rest = text_.size() - pos_;
    const void* nl = std::memchr(start, '\n', rest);
    std::size_t seg = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : rest;
    // A carriage return inside the segment ends the line early (lone CR or CRLF).
    const void* cr = seg ? std::memchr(start, '\r', seg) : nullptr;
    std::size_t len;
    std::size_t advance;
    if (cr) {
      len = static_cast<std::size_t>(static_cast<const char*>(cr) - start);
      advance = len + 1;
      if (len + 1 < rest && start[len + 1] == '\n') advance = len + 2;
    } else {
      len = seg;
      advance = nl ? seg + 1 : seg;
    }
    out.number = number_++;
    out.begin = base_ + pos_;
    out.text = std::string_view(start, len);
    pos_ += advance;
    return true;
  }

  std::size_t offset() const { return pos_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_;
  std::size_t base_;
};

// Random access to lines, for the prefiltered scan that jumps from match to match.
struct LineBounds {
  std::size_t begin;  // first byte of the line
  std::size_t end;    // one past its last byte (its terminator starts here)
  std::size_t next;   // first byte of the next line
};

// The start of the line whose content ends at `e`: one past the last "\n" or "\r" before
// it (searched with memrchr, since lines are long and this runs for every candidate line).
inline std::size_t line_start_before(std::string_view text, std::size_t e) {
  const char* p = text.data();
  const void* nl = e ? ::memrchr(p, '\n', e) : nullptr;
  std::size_t after_nl = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - p) + 1 : 0;
  const void* cr = e > after_nl ? ::memrchr(p + after_nl, '\r', e - after_nl) : nullptr;
  return cr ? static_cast<std::size_t>(static_cast<const char*>(cr) - p) + 1 : after_nl;
}

// The line holding byte `q` (a terminator byte belongs to the line it ends).
inline LineBounds line_bounds(std::string_view text, std::size_t q) {
  const std::size_t n = text.size();
  std::size_t e;
  if (q < n && (text[q] == '\n' || text[q] == '\r')) {
    e = (text[q] == '\n' && q > 0 && text[q - 1] == '\r') ? q - 1 : q;
  } else {
    const char* p = text.data() + q;
    const void* nl = std::memchr(p, '\n', n - q);
    std::size_t seg = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - p) : n - q;
    const void* cr = seg ? std::memchr(p, '\r', seg) : nullptr;
    e = q + (cr ? static_cast<std::size_t>(static_cast<const char*>(cr) - p) : seg);
  }
  std::size_t b = line_start_before(text, e);
  std::size_t next = e;
  if (e < n) next = (text[e] == '\r' && e + 1 < n && text[e + 1] == '\n') ? e + 2 : e + 1;
  return {b, e, next};
}

// Line starts in (from, to], i.e. terminators in [from, to) with "\r\n" counted once.
// `to` must not split a "\r\n". Vectorised where the CPU allows (line_count.cpp): the scan
// counts every line it jumps over, so this runs over every byte of a log.
std::size_t count_line_ends(std::string_view text, std::size_t from, std::size_t to);

// Appends to `starts` the start of every line that a terminator in [from, end of text)
// begins: after "\n", after a lone "\r", after "\r\n" (once). A "\n" at `from` is taken
// as a terminator of its own, so `from` must not split a "\r\n". The same definition of a
// line end as count_line_ends, with the same vectorised search (the language server's line
// index is built from it: 1.3 million lines in a 100 MB document).
void append_line_starts(std::string_view text, std::size_t from, std::vector<std::size_t>& starts);

// The number of lines LineCursor yields for `text`.
inline std::size_t count_lines(std::string_view text) {
  if (text.empty()) return 0;
  std::size_t ends = count_line_ends(text, 0, text.size());
  char last = text.back();
  return ends + (last == '\n' || last == '\r' ? 0 : 1);
}

}  // namespace ff::analysis
