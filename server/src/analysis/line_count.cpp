#include <algorithm>

#include "analysis/line_cursor.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ff::analysis {

namespace {

// Counts "\n", "\r\n" (once) and lone "\r" in [from, to) of `text` one byte at a time; the
// byte after `to` decides whether a "\r" there is part of "\r\n".
std::size_t count_scalar(std::string_view text, std::size_t from, std::size_t to) {
  std::size_t count = 0;
  for (std::size_t i = from; i < to; ++i) {
    char c = text[i];
    if (c == '\n')
      ++count;
    else if (c == '\r' && !(i + 1 < text.size() && text[i + 1] == '\n'))
      ++count;
  }
  return count;
}

#if defined(__x86_64__)
// 32 bytes at a time: every "\n" and every "\r" counts, minus every "\r" followed by "\n"
// (found by shifting the newline mask down one byte, with the next block's first byte).
__attribute__((target("avx2,popcnt"))) std::size_t count_avx2(std::string_view text,
                                                              std::size_t from, std::size_t to) {
  const char* p = text.data();
  const __m256i nl = _mm256_set1_epi8('\n');
  const __m256i cr = _mm256_set1_epi8('\r');
  std::size_t count = 0;
  std::size_t i = from;
  for (; i + 32 <= to; i += 32) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    auto n = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl)));
    auto r = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, cr)));
    if (r) {
      std::uint32_t next_is_nl = i + 32 < text.size() && p[i + 32] == '\n';
      std::uint32_t followed = (n >> 1) | (next_is_nl << 31);
      count += static_cast<std::size_t>(__builtin_popcount(r) - __builtin_popcount(r & followed));
    }
    count += static_cast<std::size_t>(__builtin_popcount(n));
  }
  return count + count_scalar(text, i, to);
}

bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  return yes;
}
#endif

}  // namespace

std::size_t count_line_ends(std::string_view text, std::size_t from, std::size_t to) {
  to = std::min(to, text.size());
  if (from >= to) return 0;
#if defined(__x86_64__)
  if (has_avx2()) return count_avx2(text, from, to);
#endif
  return count_scalar(text, from, to);
}

}  // namespace ff::analysis
