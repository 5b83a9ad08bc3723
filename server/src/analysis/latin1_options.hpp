// RE2 options for text that need not be UTF-8 (logs, launch files): Latin-1, so invalid
// UTF-8 (binary garbage, a truncated multi-byte character) still matches byte by byte
// instead of failing the whole match; errors are not logged, because the patterns are ours
// and checked by tests.
#pragma once

#include <re2/re2.h>

namespace ff::analysis {

inline RE2::Options latin1_options() {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_log_errors(false);
  return o;
}

}  // namespace ff::analysis
