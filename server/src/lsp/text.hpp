// Text positions for the language server: byte offsets in UTF-8 text <-> LSP positions in the
// negotiated encoding (UTF-16 code units by default, or UTF-8 bytes). Lines end at "\n",
// "\r\n" or a lone "\r", exactly like analysis::LineCursor, so line numbers agree with the
// analysis. Invalid UTF-8 never throws: every byte that does not start a valid sequence
// counts as one code unit (as if it were U+FFFD).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ff::lsp {

enum class Encoding { kUtf16, kUtf8 };

struct Position {
  std::uint32_t line = 0;
  std::uint32_t character = 0;
  friend bool operator==(const Position&, const Position&) = default;
};

struct Range {
  Position start;
  Position end;
  friend bool operator==(const Range&, const Range&) = default;
};

// Length in bytes of the UTF-8 sequence starting at s[i] (1 for an invalid byte) and the
// number of UTF-16 code units it stands for.
std::size_t utf8_sequence(std::string_view s, std::size_t i, std::size_t& utf16_units);

// Byte column `byte` of `line` as a column in `enc` (clamped to the line).
std::uint32_t byte_to_column(std::string_view line, std::size_t byte, Encoding enc);
// Column `col` in `enc` as a byte column of `line`; clamped to the line, never inside a
// multi-byte sequence.
std::size_t column_to_byte(std::string_view line, std::uint32_t col, Encoding enc);

// Line starts of a text, for position <-> offset conversion.
class LineIndex {
 public:
  LineIndex() = default;
  explicit LineIndex(std::string_view text) { reset(text); }
  void reset(std::string_view text);
  // `text` is the indexed text with bytes appended: indexes only from the old last line
  // (a final "\r" may have become "\r\n"), not the whole text again.
  void extend(std::string_view text);
  std::size_t size() const { return size_; }  // the length of the indexed text

  std::size_t lines() const { return starts_.size(); }
  // The line's text without its terminator (empty for a line past the end).
  std::string_view line(std::string_view text, std::size_t n) const;
  std::size_t line_start(std::size_t n) const;
  // Byte offset of an LSP position; a line past the end is the end of the text, a character
  // past the end of its line is the end of the line.
  std::size_t offset(std::string_view text, Position p, Encoding enc) const;
  Position position(std::string_view text, std::size_t offset, Encoding enc) const;

 private:
  void index_from(std::string_view text, std::size_t from);  // appends the starts after `from`
  std::vector<std::size_t> starts_{0};
  std::size_t size_ = 0;
};

}  // namespace ff::lsp
