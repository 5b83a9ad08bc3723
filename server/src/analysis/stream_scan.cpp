#include "analysis/stream_scan.hpp"

#include <algorithm>

namespace ff::analysis {

StreamScan::StreamScan(const Catalog& catalog, std::size_t file) : catalog_(catalog), file_(file) {
  state_.reset(catalog);
  window_.reserve(kWindowBytes);  // kept: clear() and erase() never shrink it
}

std::size_t StreamScan::feed(std::string_view bytes) {
  // A large piece is taken a step at a time, so the window keeps the capacity reserved for
  // it instead of growing (a reallocation copies what it holds, and its fresh pages each
  // fault on first touch: at 64 followed files that was a tenth of watch's CPU).
  std::size_t added = 0;
  while (bytes.size() > kFeedStepBytes) {
    std::size_t cut = bytes.rfind('\n', kFeedStepBytes - 1);
    cut = cut == std::string_view::npos ? kFeedStepBytes : cut + 1;
    added += feed_step(bytes.substr(0, cut));
    bytes.remove_prefix(cut);
  }
  return added + feed_step(bytes);
}

std::size_t StreamScan::feed_step(std::string_view bytes) {
  window_.append(bytes);
  // Only whole lines are scanned: the last line may still be being written. A "\r" before
  // the end may be the first half of a "\r\n", so only "\n" closes a line here.
  std::size_t nl = window_.find_last_of('\n');
  if (nl != std::string::npos && nl >= scanned_) return scan_until(nl + 1);
  if (pending() >= kMaxPendingBytes) return scan_until(window_.size());
  return 0;
}

void StreamScan::only_count(std::size_t rule) {
  if (state_.events_full.size() <= rule) state_.events_full.resize(state_.rule_hits.size(), 0);
  if (rule < state_.events_full.size()) state_.events_full[rule] = 1;
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
