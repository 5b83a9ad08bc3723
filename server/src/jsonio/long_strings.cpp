#include "jsonio/long_strings.hpp"

#include <simdjson.h>

#include <cstdint>
#include <cstring>

namespace ff::jsonio {

namespace {

// The closing quote of a string whose content starts at `s`, or null. A quote closes it
// unless an odd run of backslashes stands before it; runs never reach back past `s` (the
// opening quote), and each backslash is counted for one quote at most: linear.
const char* string_end(const char* s, const char* end) {
  const char* p = s;
  while (p < end) {
    const void* found = std::memchr(p, '"', static_cast<std::size_t>(end - p));
    if (!found) return nullptr;
    const char* q = static_cast<const char*>(found);
    std::size_t run = 0;
    for (const char* b = q; b > s && b[-1] == '\\'; --b) ++run;
    if (run % 2 == 0) return q;
    p = q + 1;
  }
  return nullptr;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Four hex digits at p (the caller checked they are there), or -1.
long hex4(const char* p) {
  long v = 0;
  for (int i = 0; i < 4; ++i) {
    int d = hex_value(p[i]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

char* put_utf8(char* d, std::uint32_t cp) {
  if (cp < 0x80) {
    *d++ = static_cast<char>(cp);
  } else if (cp < 0x800) {
    *d++ = static_cast<char>(0xC0 | (cp >> 6));
    *d++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *d++ = static_cast<char>(0xE0 | (cp >> 12));
    *d++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *d++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *d++ = static_cast<char>(0xF0 | (cp >> 18));
    *d++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *d++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *d++ = static_cast<char>(0x80 | (cp & 0x3F));
  }
  return d;
}

// 16 bytes at a time with the compiler's generic vectors (SSE2 on x86-64, NEON on
// aarch64): plain text is copied a block per step, and a block holding a backslash or a
// control byte is finished a byte at a time.
using Block = unsigned char __attribute__((vector_size(16)));

bool any_special(Block v) {
  auto m = (v == Block{} + static_cast<unsigned char>('\\')) | (v < Block{} + 0x20);
  std::uint64_t lo, hi;
  std::memcpy(&lo, &m, 8);
  std::memcpy(&hi, reinterpret_cast<const char*>(&m) + 8, 8);
  return (lo | hi) != 0;
}

}  // namespace

bool unescape_string(std::string_view raw, std::string& out) {
  // simdjson validates UTF-8 over the raw text; escapes are ASCII, so the raw content is
  // valid exactly when the text around it would be.
  if (!simdjson::validate_utf8(raw.data(), raw.size())) return false;
  const std::size_t base = out.size();
  out.resize(base + raw.size());  // the value is never longer than its raw content
  const char* s = raw.data();
  const char* const end = s + raw.size();
  char* const first = out.data() + base;
  char* d = first;  // d - first <= s - raw.data() throughout, so blocks stay in bounds
  while (s < end) {
    if (end - s >= 16) {
      Block v;
      std::memcpy(&v, s, 16);
      std::memcpy(d, &v, 16);
      if (!any_special(v)) {
        s += 16;
        d += 16;
        continue;
      }
      // The bytes before the first special one are already copied.
      int i = 0;
      while (s[i] != '\\' && static_cast<unsigned char>(s[i]) >= 0x20) ++i;
      s += i;
      d += i;
    } else {
      while (s < end && *s != '\\' && static_cast<unsigned char>(*s) >= 0x20) *d++ = *s++;
      if (s == end) break;
    }
    if (*s != '\\') return false;  // a byte below 0x20: simdjson's "unescaped characters"
    // A backslash is never the content's last byte: it would have escaped the closing quote.
    if (end - s < 2) return false;
    char e = s[1];
    s += 2;
    switch (e) {
      case '"':
        *d++ = '"';
        break;
      case '\\':
        *d++ = '\\';
        break;
      case '/':
        *d++ = '/';
        break;
      case 'b':
        *d++ = '\b';
        break;
      case 'f':
        *d++ = '\f';
        break;
      case 'n':
        *d++ = '\n';
        break;
      case 'r':
        *d++ = '\r';
        break;
      case 't':
        *d++ = '\t';
        break;
      case 'u': {
        if (end - s < 4) return false;
        long cp = hex4(s);
        s += 4;
        if (cp < 0) return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate alone
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (end - s < 6 || s[0] != '\\' || s[1] != 'u') return false;
          long lo = hex4(s + 2);
          if (lo < 0xDC00 || lo > 0xDFFF) return false;
          s += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        d = put_utf8(d, static_cast<std::uint32_t>(cp));
        break;
      }
      default:
        return false;
    }
  }
  out.resize(base + static_cast<std::size_t>(d - first));
  return true;
}

bool lift_long_strings(std::string_view text, std::size_t min_size, std::size_t padding,
                       LiftedText& out) {
  out.rest.clear();
  out.spans.clear();
  const char* const b = text.data();
  const char* const end = b + text.size();
  const char* p = b;
  std::size_t ordinal = 0, lifted = 0;
  while (p < end) {
    const void* found = std::memchr(p, '"', static_cast<std::size_t>(end - p));
    if (!found) break;
    const char* s = static_cast<const char*>(found) + 1;
    const char* close = string_end(s, end);
    if (!close) return false;
    if (static_cast<std::size_t>(close - s) >= min_size) {
      out.spans.push_back(
          {ordinal, static_cast<std::size_t>(s - b), static_cast<std::size_t>(close - b)});
      lifted += static_cast<std::size_t>(close - s);
    }
    ++ordinal;
    p = close + 1;
  }
  if (out.spans.empty()) return false;
  out.rest.reserve(text.size() - lifted + padding);
  std::size_t at = 0;
  for (const auto& span : out.spans) {
    out.rest.append(text.substr(at, span.begin - at));
    at = span.end;
  }
  out.rest.append(text.substr(at));
  return true;
}

}  // namespace ff::jsonio
