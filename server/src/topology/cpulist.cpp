#include "topology/cpulist.hpp"

#include <cctype>
#include <sstream>

namespace ff::topology {

namespace {

bool read_int(const std::string& s, std::size_t& pos, int& out) {
  if (pos >= s.size() || !std::isdigit(static_cast<unsigned char>(s[pos]))) return false;
  long v = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
    v = v * 10 + (s[pos] - '0');
    if (v > kMaxCpuId) return false;
    ++pos;
  }
  out = static_cast<int>(v);
  return true;
}

}  // namespace

std::optional<CpuSet> parse_cpulist(const std::string& text) {
  CpuSet out;
  if (text.empty()) return out;
  std::size_t pos = 0;
  while (true) {
    int lo = 0, hi = 0;
    if (!read_int(text, pos, lo)) return std::nullopt;
    hi = lo;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      if (!read_int(text, pos, hi) || hi < lo) return std::nullopt;
    }
    for (int c = lo; c <= hi; ++c) out.insert(c);
    if (pos == text.size()) return out;
    if (text[pos] != ',') return std::nullopt;
    ++pos;  // a trailing comma falls into read_int's failure: the list was cut off
  }
}

std::string format_cpulist(const CpuSet& cpus) {
  std::ostringstream os;
  bool first = true;
  for (auto it = cpus.begin(); it != cpus.end();) {
    int lo = *it, hi = lo;
    ++it;
    while (it != cpus.end() && *it == hi + 1) hi = *it++;
    if (!first) os << ',';
    first = false;
    os << lo;
    if (hi != lo) os << '-' << hi;
  }
  return os.str();
}

std::optional<CpuSet> parse_hex_mask(const std::string& text) {
  // Words are separated by commas, most significant first; "0x" prefixes are tolerated.
  std::string digits;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ',') continue;
    if (c == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
      ++i;
      continue;
    }
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    digits.push_back(c);
  }
  if (digits.size() * 4 > static_cast<std::size_t>(kMaxCpuId)) return std::nullopt;
  CpuSet out;
  int bit = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it, bit += 4) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(*it)));
    int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : c - 'a' + 10;
    for (int b = 0; b < 4; ++b)
      if (v & (1 << b)) out.insert(bit + b);
  }
  return out;
}

}  // namespace ff::topology
