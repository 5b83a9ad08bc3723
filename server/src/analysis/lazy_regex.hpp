// A regular expression compiled on first use. Most patterns of the catalog never see a line
// (the prefilter rules them out), and compiling all of them is a third of start-up; a
// pattern already known to compile (the built-in catalog's, checked by the build) can wait
// until a candidate line needs it. Thread-safe: scan threads share the catalog.
#pragma once

#include <re2/re2.h>

#include <memory>
#include <mutex>
#include <string>

namespace ff::analysis {

class LazyRegex {
 public:
  // `compiled`, when given, is the pattern already compiled (nothing is left to do).
  LazyRegex(std::string pattern, const RE2::Options& options, std::unique_ptr<RE2> compiled)
      : pattern_(std::move(pattern)), options_(options), re_(std::move(compiled)) {
    if (re_) std::call_once(once_, [] {});
  }
  LazyRegex(const LazyRegex&) = delete;
  LazyRegex& operator=(const LazyRegex&) = delete;

  // The compiled pattern. One that fails to compile here (only RE2's memory budget can make
  // a checked pattern fail) is an RE2 whose ok() is false, which matches nothing.
  const RE2& get() const {
    std::call_once(once_, [this] { re_ = std::make_unique<RE2>(pattern_, options_); });
    return *re_;
  }

 private:
  std::string pattern_;
  RE2::Options options_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<RE2> re_;
};

}  // namespace ff::analysis
