// Whether this test binary is the AddressSanitizer build (FF_SANITIZE, tools/test.sh).
//
// Matching a line against the whole catalog's RE2::Set builds fresh DFA states for the line's
// bytes; under the sanitizer every state's allocation is instrumented, so the tests that match
// thousands of lines that way take minutes there (one timed out in CI). Those tests read every
// kWholeSetStride-th line in the sanitized build, and say so; the normal build, which CI runs
// first, reads them all. The sanitized run is there for memory errors, which the sampled lines
// exercise through the same code.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define FF_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FF_TEST_SANITIZED 1
#endif
#endif

namespace ff::test {

#ifdef FF_TEST_SANITIZED
inline constexpr std::size_t kWholeSetStride = 4;
#else
inline constexpr std::size_t kWholeSetStride = 1;
#endif

}  // namespace ff::test
