// The scan of an input that arrives in pieces, as a log being written does: bytes are fed as
// they come, every complete line is scanned once, and what the diagnosis needs is kept
// (the scan state), not the text. `firstfault watch` keeps one per followed input.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/catalog.hpp"
#include "analysis/prefilter.hpp"
#include "analysis/scan.hpp"

namespace ff::analysis {

class StreamScan {
 public:
  // The bytes of the lines before the newest ones that stay in memory: block context (a
  // traceback above the line that names its rank, a torchelastic record) is read from them.
  static constexpr std::size_t kContextBytes = std::size_t{64} << 10;
  // Scanned text beyond kContextBytes is dropped once this much of it is held.
  static constexpr std::size_t kTrimBytes = std::size_t{64} << 10;
  // A "line" that grows past this without a line end is scanned as it is (a binary file,
  // a progress bar drawn with carriage returns only), so memory stays bounded.
  static constexpr std::size_t kMaxPendingBytes = std::size_t{1} << 20;
  // A piece fed is scanned in steps of at most this many bytes (cut at a line end), so the
  // window holds at most the context, the trim slack and one step: kWindowBytes, reserved
  // once.
  static constexpr std::size_t kFeedStepBytes = std::size_t{256} << 10;
  static constexpr std::size_t kWindowBytes = kContextBytes + kTrimBytes + kFeedStepBytes;

  // `file`: the input's index in the job, given to its events.
  StreamScan(const Catalog& catalog, std::size_t file);

  // Appends bytes; every line they complete is scanned. Returns the events added.
  std::size_t feed(std::string_view bytes);
  // The input ended: its last line is scanned even without a line end.
  std::size_t finish();
  // The input starts again from its first byte (truncated, or replaced by a new file of the
  // same name): what was held is dropped, line numbers count from 0 again, and the events
  // found so far stay (they happened).
  void restart();

  // From now on, lines of `rule` are counted and not built into events: the job this input
  // is part of already holds all the events of that rule it keeps (kMaxEventsPerRule, from
  // the inputs before this one), as analyze's later pieces only count them.
  void only_count(std::size_t rule);

  const ScanState& state() const { return state_; }
  // Lines and bytes of the input since it last started (what its report names).
  std::size_t lines() const { return lines_; }
  std::size_t bytes() const { return offset_ + window_.size(); }
  // Bytes fed and not yet scanned (the line being written).
  std::size_t pending() const { return window_.size() - scanned_; }

 private:
  std::size_t feed_step(std::string_view bytes);
  std::size_t scan_until(std::size_t end);

  const Catalog& catalog_;
  std::size_t file_;
  ScanState state_;
  std::optional<Prefilter::Session> session_;  // made once the prefilter is ready
  std::string window_;                         // kept context lines, then the bytes not yet scanned
  std::size_t scanned_ = 0;                    // window_[0, scanned_) is context already scanned
  std::size_t offset_ = 0;                     // the input's offset of window_[0]
  std::size_t lines_ = 0;                      // lines scanned since the input last started
};

}  // namespace ff::analysis
