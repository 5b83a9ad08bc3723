#include "analysis/stream_scan.hpp"

#include <algorithm>

namespace ff::analysis {

StreamScan::StreamScan(const Catalog& catalog, std::size_t file) : catalog_(catalog), file_(file) {
  state_.reset(catalog);
}

std::size_t StreamScan::feed(std::string_view bytes) {
  window_.append(bytes);
  // Only whole lines are scanned: the last line may still be being written. A "\r" before
  // the end may be the first half of a "\r\n", so only "\n" closes a line here.
  std::size_t nl = window_.find_last_of('\n');
  if (nl != std::string::npos && nl >= scanned_) return scan_until(nl + 1);
  if (pending() >= kMaxPendingBytes) return scan_until(window_.size());
  return 0;
}

std::size_t StreamScan::finish() {
  return scan_until(window_.size());
}

void StreamScan::restart() {
  window_.clear();
  scanned_ = 0;
  offset_ = 0;
  lines_ = 0;
}

std::size_t StreamScan::scan_until(std::size_t end) {
  if (end <= scanned_) return 0;
  const std::size_t events_before = state_.events.size();
  const std::size_t lines_before = state_.lines;
  // The strategy is chosen per piece as analyze chooses it per input: the prefilter when the
  // catalog has one ready (the built-in catalog always does), else line by line.
  const Prefilter* pf = catalog_.prefilter_ready() ? catalog_.prefilter() : nullptr;
  if (pf && !session_) session_.emplace(*pf);
  scan_text(catalog_, file_, window_, scanned_, lines_, state_, end, ScanStrategy::kAuto,
            session_ && session_->ok() ? &*session_ : nullptr);
  lines_ += state_.lines - lines_before;
  // Events were placed in the window; their offsets are the input's.
  for (std::size_t i = events_before; i < state_.events.size(); ++i)
    state_.events[i].offset += offset_;
  // Keep the last kContextBytes of scanned text, from a line start, and what is pending;
  // trimmed once kTrimBytes more is held, so a byte fed is moved an eighth of a time.
  std::size_t keep_from = 0;
  if (end > kContextBytes + kTrimBytes) {
    std::size_t nl = window_.find('\n', end - kContextBytes);
    keep_from = nl == std::string::npos || nl + 1 > end ? end : nl + 1;
    window_.erase(0, keep_from);
    offset_ += keep_from;
  }
  scanned_ = end - keep_from;
  return state_.events.size() - events_before;
}

}  // namespace ff::analysis
