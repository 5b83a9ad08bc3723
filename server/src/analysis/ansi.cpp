#include "analysis/ansi.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "analysis/cpu_features.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ff::analysis {

namespace {

bool is_sgr_residue(std::string_view s, std::size_t i, std::size_t& end) {
  // "[0m", "[1;31m" at a position where ESC was lost. At least one parameter: a bare "[m"
  // is too often the start of a bracketed word ("connect to [master-0]:29500").
  if (i >= s.size() || s[i] != '[') return false;
  std::size_t j = i + 1;
  while (j < s.size() && j - i <= 12 && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';')) ++j;
  if (j > i + 1 && j < s.size() && s[j] == 'm') {
    end = j + 1;
    return true;
  }
  return false;
}

bool is_control(unsigned char c) {
  return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
}

std::size_t find_control_scalar(std::string_view text, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i)
    if (is_control(static_cast<unsigned char>(text[i]))) return i;
  return to;
}

#if defined(__x86_64__)
// 32 bytes at a time: bytes <= 0x1f (unsigned: max(v, 0x1f) == 0x1f) but TAB, LF and CR,
// or equal to 0x7f.
__attribute__((target("avx2"))) std::size_t find_control_avx2(std::string_view text,
                                                              std::size_t from, std::size_t to) {
  const char* p = text.data();
  const __m256i c1f = _mm256_set1_epi8(0x1f);
  const __m256i tab = _mm256_set1_epi8('\t');
  const __m256i lf = _mm256_set1_epi8('\n');
  const __m256i cr = _mm256_set1_epi8('\r');
  const __m256i del = _mm256_set1_epi8(0x7f);
  std::size_t i = from;
  for (; i + 32 <= to; i += 32) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    __m256i low = _mm256_cmpeq_epi8(_mm256_max_epu8(v, c1f), c1f);
    __m256i allowed =
        _mm256_or_si256(_mm256_cmpeq_epi8(v, tab),
                        _mm256_or_si256(_mm256_cmpeq_epi8(v, lf), _mm256_cmpeq_epi8(v, cr)));
    __m256i hit = _mm256_or_si256(_mm256_andnot_si256(allowed, low), _mm256_cmpeq_epi8(v, del));
    auto m = static_cast<std::uint32_t>(_mm256_movemask_epi8(hit));
    if (m) return i + static_cast<std::size_t>(__builtin_ctz(m));
  }
  return find_control_scalar(text, i, to);
}

#endif

}  // namespace

std::size_t find_control_byte(std::string_view text, std::size_t from, std::size_t to) {
  to = std::min(to, text.size());
  if (from >= to) return to;
#if defined(__x86_64__)
  if (cpu_has_avx2()) return find_control_avx2(text, from, to);
#endif
  return find_control_scalar(text, from, to);
}

bool may_contain_sgr_residue(std::string_view line) {
  // Bare SGR residue only matters at the start of a line or after a space, where pasted
  // logs carry it; checking for "[0m"-like text anywhere is cheap enough.
  const void* p = std::memchr(line.data(), '[', line.size());
  while (p) {
    std::size_t i = static_cast<std::size_t>(static_cast<const char*>(p) - line.data());
    std::size_t end;
    if (is_sgr_residue(line, i, end)) return true;
    if (i + 1 >= line.size()) break;
    p = std::memchr(line.data() + i + 1, '[', line.size() - i - 1);
  }
  return false;
}

bool may_contain_escapes(std::string_view line) {
  // C0 controls but TAB (line ends too, for callers passing more than a line), and DEL.
  if (find_control_byte(line, 0, line.size()) < line.size()) return true;
  if (std::memchr(line.data(), '\n', line.size()) || std::memchr(line.data(), '\r', line.size()))
    return true;
  return may_contain_sgr_residue(line);
}

namespace {

// Bytes where strip_ansi may have to drop something: C0 controls (ESC among them) except
// TAB, DEL, and '[' (the start of an SGR residue).
bool special(unsigned char c) {
  return (c < 0x20 && c != '\t') || c == 0x7f || c == '[';
}

std::size_t find_special_scalar(std::string_view s, std::size_t from) {
  for (std::size_t i = from; i < s.size(); ++i)
    if (special(static_cast<unsigned char>(s[i]))) return i;
  return s.size();
}

#if defined(__x86_64__)
// As find_control_avx2, with LF, CR and '[' special too.
__attribute__((target("avx2"))) std::size_t find_special_avx2(std::string_view s,
                                                              std::size_t from) {
  const char* p = s.data();
  const __m256i c1f = _mm256_set1_epi8(0x1f);
  const __m256i tab = _mm256_set1_epi8('\t');
  const __m256i del = _mm256_set1_epi8(0x7f);
  const __m256i bracket = _mm256_set1_epi8('[');
  std::size_t i = from;
  for (; i + 32 <= s.size(); i += 32) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    __m256i low = _mm256_cmpeq_epi8(_mm256_max_epu8(v, c1f), c1f);
    __m256i hit =
        _mm256_or_si256(_mm256_andnot_si256(_mm256_cmpeq_epi8(v, tab), low),
                        _mm256_or_si256(_mm256_cmpeq_epi8(v, del), _mm256_cmpeq_epi8(v, bracket)));
    auto m = static_cast<std::uint32_t>(_mm256_movemask_epi8(hit));
    if (m) return i + static_cast<std::size_t>(__builtin_ctz(m));
  }
  return find_special_scalar(s, i);
}
#endif

// The first special byte of s at or after `from`; s.size() when there is none. A coloured
// line is mostly plain text: this skips it 32 bytes at a time.
std::size_t next_special(std::string_view s, std::size_t from) {
#if defined(__x86_64__)
  if (cpu_has_avx2()) return find_special_avx2(s, from);
#endif
  return find_special_scalar(s, from);
}

}  // namespace

void strip_ansi(std::string_view s, CleanLine& out) {
  out.text.clear();
  out.runs.clear();
  out.text.reserve(s.size());
  // Kept bytes are copied a run at a time: most of a coloured line is plain text between
  // two escape sequences.
  auto keep = [&](std::size_t from, std::size_t to) {
    if (from >= to) return;
    if (out.runs.empty() ||
        out.runs.back().first + (from - out.runs.back().second) != out.text.size())
      out.runs.emplace_back(out.text.size(), from);
    out.text.append(s.data() + from, to - from);
  };
  std::size_t i = 0;
  std::size_t plain = 0;  // start of the bytes not yet kept or dropped
  while (i < s.size()) {
    i = next_special(s, i);
    if (i >= s.size()) break;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '[') {
      std::size_t end;
      // rsyslog writes a control byte it receives as '#' and three octal digits (its
      // EscapeControlCharactersOnReceive default), so a coloured line reaches a syslog file
      // as "#033[33m".
      const bool syslog_escaped = i >= plain + 4 && s.compare(i - 4, 4, "#033") == 0;
      if ((i == 0 || s[i - 1] == ' ' || s[i - 1] == ':' || syslog_escaped) &&
          is_sgr_residue(s, i, end)) {
        keep(plain, syslog_escaped ? i - 4 : i);
        i = plain = end;
      } else {
        ++i;
      }
      continue;
    }
    keep(plain, i);
    if (c == 0x1b) {
      if (i + 1 >= s.size()) {
        i = plain = s.size();
        break;
      }
      char k = s[i + 1];
      if (k == '[') {  // CSI: parameters and intermediates, then one final byte 0x40-0x7e
        std::size_t j = i + 2;
        while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x20 &&
               static_cast<unsigned char>(s[j]) <= 0x3f)
          ++j;
        while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x20 &&
               static_cast<unsigned char>(s[j]) <= 0x2f)
          ++j;
        i = j < s.size() ? j + 1 : j;
      } else if (k == ']' || k == 'P' || k == '_' || k == '^') {  // OSC/DCS: until BEL or ST
        std::size_t j = i + 2;
        while (j < s.size()) {
          if (s[j] == '\a') {
            ++j;
            break;
          }
          if (s[j] == 0x1b && j + 1 < s.size() && s[j + 1] == '\\') {
            j += 2;
            break;
          }
          ++j;
        }
        i = j;
      } else {
        i += 2;  // two-byte sequences such as ESC ( B or ESC =
      }
    } else {
      ++i;  // another control byte: dropped
    }
    plain = i;
  }
  keep(plain, std::min(i, s.size()));
}

}  // namespace ff::analysis
