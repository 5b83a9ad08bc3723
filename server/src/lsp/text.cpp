#include "lsp/text.hpp"

#include <algorithm>

#include "analysis/line_cursor.hpp"

namespace ff::lsp {

std::size_t utf8_sequence(std::string_view s, std::size_t i, std::size_t& utf16_units) {
  auto b = static_cast<unsigned char>(s[i]);
  utf16_units = 1;
  std::size_t len;
  std::uint32_t min;
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) {
    len = 2;
    min = 0x80;
  } else if (b >= 0xE0 && b <= 0xEF) {
    len = 3;
    min = 0x800;
  } else if (b >= 0xF0 && b <= 0xF4) {
    len = 4;
    min = 0x10000;
  } else {
    return 1;
  }
  if (i + len > s.size()) return 1;
  std::uint32_t cp = b & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 1;
    cp = (cp << 6) | (c & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 1;
  if (cp >= 0x10000) utf16_units = 2;
  return len;
}

std::uint32_t byte_to_column(std::string_view line, std::size_t byte, Encoding enc) {
  byte = std::min(byte, line.size());
  if (enc == Encoding::kUtf8) return static_cast<std::uint32_t>(byte);
  std::size_t col = 0;
  for (std::size_t i = 0; i < byte;) {
    std::size_t units;
    i += utf8_sequence(line, i, units);
    col += units;
  }
  return static_cast<std::uint32_t>(col);
}

std::size_t column_to_byte(std::string_view line, std::uint32_t col, Encoding enc) {
  std::size_t i = 0, c = 0;
  while (i < line.size()) {
    std::size_t units;
    std::size_t len = utf8_sequence(line, i, units);
    std::size_t step = enc == Encoding::kUtf8 ? len : units;
    if (c + step > col) break;  // col is before the end of this character: stay at its start
    c += step;
    i += len;
  }
  return i;
}

void LineIndex::reset(std::string_view text) {
  starts_.assign(1, 0);
  size_ = text.size();
  index_from(text, 0);
}

void LineIndex::extend(std::string_view text) {
  if (text.size() < size_) return reset(text);
  std::size_t from = size_;
  // A final lone "\r" ended a line at size_; followed now by "\n" it ends it one byte later.
  if (from > 0 && text[from - 1] == '\r') {
    starts_.pop_back();
    --from;
  }
  size_ = text.size();
  index_from(text, from);
}

void LineIndex::index_from(std::string_view text, std::size_t from) {
  // Sized from a count (vectorised: a few ms for 100 MB) rather than grown by doubling: each
  // growth of a 100 MB document's index copied it into fresh memory, faulted in a page at a
  // time. A quarter more for the appends of a growing log, and at least doubled when it
  // grows again, so appends stay amortised.
  const std::size_t need = starts_.size() + analysis::count_line_ends(text, from, text.size()) + 1;
  if (need > starts_.capacity()) starts_.reserve(std::max(need + need / 4, starts_.capacity() * 2));
  analysis::append_line_starts(text, from, starts_);
}

std::size_t LineIndex::line_start(std::size_t n) const {
  return n < starts_.size() ? starts_[n] : size_;
}

std::string_view LineIndex::line(std::string_view text, std::size_t n) const {
  if (n >= starts_.size() || text.size() != size_) return {};
  std::size_t b = starts_[n];
  std::size_t e = n + 1 < starts_.size() ? starts_[n + 1] : size_;
  while (e > b && (text[e - 1] == '\n' || text[e - 1] == '\r')) {
    // strip exactly one terminator ("\r\n" counts as one)
    if (text[e - 1] == '\n' && e - 1 > b && text[e - 2] == '\r') {
      e -= 2;
    } else {
      --e;
    }
    break;
  }
  return text.substr(b, e - b);
}

std::size_t LineIndex::offset(std::string_view text, Position p, Encoding enc) const {
  if (p.line >= starts_.size()) return size_;
  std::string_view l = line(text, p.line);
  return starts_[p.line] + column_to_byte(l, p.character, enc);
}

Position LineIndex::position(std::string_view text, std::size_t offset, Encoding enc) const {
  offset = std::min(offset, size_);
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  std::size_t n = static_cast<std::size_t>(it - starts_.begin()) - 1;
  std::string_view l = line(text, n);
  return {static_cast<std::uint32_t>(n), byte_to_column(l, offset - starts_[n], enc)};
}

}  // namespace ff::lsp
