// A whole-buffer prefilter in front of the per-line RE2 matching. Most lines of a big log
// (NCCL INFO noise, training prints) match nothing; running RE2 on each of them is what
// made a line-by-line scan slow. Vectorscan is given, for each pattern, strings one of which
// every matching line holds, or the pattern itself (prefilter_plan.hpp), and scans the
// buffer once; only lines where it reports a match go to RE2, with the patterns it names.
//
// Lines whose bytes differ from what RE2 sees (escape sequences and control bytes are
// stripped before matching) are the caller's to handle: it finds the lines with control
// bytes (ESC among them; common, since many loggers colour every line) with
// find_control_byte(), cleans them and checks the cleaned text with Session::candidates().
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/prefilter_plan.hpp"

namespace ff::analysis {

class Prefilter {
 public:
  // Builds a prefilter for RE2 patterns; returns null when Vectorscan cannot take one of
  // them even in prefilter mode (the caller then matches every line). `why` says why.
  static std::unique_ptr<Prefilter> build(const std::vector<std::string>& patterns,
                                          std::string* why);
  ~Prefilter();

  // A compiled prefilter as bytes, so a build step can compile the built-in catalog once
  // and the binary start without the 0.1 s compile. The bytes carry a fingerprint of the
  // patterns; load() refuses bytes made for other patterns, for another Vectorscan version
  // or for an incompatible CPU. kStatic: the bytes outlive the prefilter (the binary's own
  // data) and, when 64-byte aligned, are used where they lie; kCopy: they are copied.
  enum class Storage { kCopy, kStatic };
  std::string serialize(const std::vector<std::string>& patterns) const;
  static std::unique_ptr<Prefilter> load(std::string_view bytes,
                                         const std::vector<std::string>& patterns,
                                         Storage storage = Storage::kCopy);

  // Scratch space for one thread's scans; cheap to reuse, not to create.
  class Session {
   public:
    explicit Session(const Prefilter& pf);
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    ~Session();
    bool ok() const { return scratch_ != nullptr; }
    const Prefilter& prefilter() const { return pf_; }

    // Calls `on_match(pattern, end)` for matches in `text`, in increasing order of end
    // offset; `pattern` indexes the patterns given to build(). Returns false if the scan
    // failed.
    bool scan(std::string_view text,
              const std::function<void(unsigned pattern, std::size_t end)>& on_match);

    // The patterns that may match inside `text` (one already-cleaned line), appended to
    // `out`. Returns false if the scan failed. It has scratch space of its own, so it may
    // be called from inside scan()'s callback (Vectorscan refuses a scratch in use).
    bool candidates(std::string_view text, std::vector<int>& out);

   private:
    const Prefilter& pf_;
    void* scratch_ = nullptr;
    void* line_scratch_ = nullptr;
  };

 private:
  Prefilter() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ff::analysis
