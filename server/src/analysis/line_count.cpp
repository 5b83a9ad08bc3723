#include <algorithm>

#include "analysis/cpu_features.hpp"
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

// One terminator byte at `i`: the start of the line it ends, or 0 when it is the "\n" of a
// "\r\n" already counted (`skip` is one past that pair).
std::size_t start_after(const char* p, std::size_t n, std::size_t i, std::size_t& skip) {
  if (i < skip) return 0;
  if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n') return skip = i + 2;
  return i + 1;
}

void starts_scalar(std::string_view text, std::size_t from, std::size_t& skip,
                   std::vector<std::size_t>& starts) {
  const char* p = text.data();
  for (std::size_t i = from; i < text.size(); ++i)
    if (p[i] == '\n' || p[i] == '\r')
      if (std::size_t s = start_after(p, text.size(), i, skip)) starts.push_back(s);
}

#if defined(__x86_64__)
// The "\n" and "\r" bytes of the 32 at `p`, one bit each.
struct EolMasks {
  std::uint32_t nl, cr;
};
__attribute__((target("avx2"))) inline EolMasks eol_masks(const char* p) {
  __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return {static_cast<std::uint32_t>(
              _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n')))),
          static_cast<std::uint32_t>(
              _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\r'))))};
}

// 32 bytes at a time: every "\n" and every "\r" counts, minus every "\r" followed by "\n"
// (found by shifting the newline mask down one byte, with the next block's first byte).
__attribute__((target("avx2,popcnt"))) std::size_t count_avx2(std::string_view text,
                                                              std::size_t from, std::size_t to) {
  const char* p = text.data();
  std::size_t count = 0;
  std::size_t i = from;
  for (; i + 32 <= to; i += 32) {
    auto [n, r] = eol_masks(p + i);
    if (r) {
      std::uint32_t next_is_nl = i + 32 < text.size() && p[i + 32] == '\n';
      std::uint32_t followed = (n >> 1) | (next_is_nl << 31);
      count += static_cast<std::size_t>(__builtin_popcount(r) - __builtin_popcount(r & followed));
    }
    count += static_cast<std::size_t>(__builtin_popcount(n));
  }
  return count + count_scalar(text, i, to);
}

__attribute__((target("avx2"))) void starts_avx2(std::string_view text, std::size_t from,
                                                 std::size_t& skip,
                                                 std::vector<std::size_t>& starts) {
  const char* p = text.data();
  const std::size_t n = text.size();
  std::size_t i = from;
  for (; i + 32 <= n; i += 32) {
    auto [nl, cr] = eol_masks(p + i);
    for (std::uint32_t m = nl | cr; m; m &= m - 1)
      if (std::size_t s = start_after(p, n, i + static_cast<std::size_t>(__builtin_ctz(m)), skip))
        starts.push_back(s);
  }
  starts_scalar(text, i, skip, starts);
}

#endif

}  // namespace

std::size_t count_line_ends(std::string_view text, std::size_t from, std::size_t to) {
  to = std::min(to, text.size());
  if (from >= to) return 0;
#if defined(__x86_64__)
  if (cpu_has_avx2()) return count_avx2(text, from, to);
#endif
  return count_scalar(text, from, to);
}

void append_line_starts(std::string_view text, std::size_t from, std::vector<std::size_t>& starts) {
  std::size_t skip = from;
#if defined(__x86_64__)
  if (cpu_has_avx2()) return starts_avx2(text, from, skip, starts);
#endif
  starts_scalar(text, from, skip, starts);
}

}  // namespace ff::analysis
