#include <algorithm>
#include <optional>
#include <type_traits>

#include "analysis/scan.hpp"

namespace ff::analysis {

namespace {

// One body for both: `piece` is a ScanState&& (its events are moved out) or a const
// ScanState& (the events kept are copied: std::move of a const event is a copy).
template <typename Piece>
void append(ScanState& into, Piece&& piece, std::size_t line_offset,
            std::optional<std::size_t> file) {
  if (into.rule_hits.size() < piece.rule_hits.size())
    into.rule_hits.resize(piece.rule_hits.size(), 0);
  // A scan of the whole input would have kept each rule's first kMaxEventsPerRule events:
  // `into` holds min(hits, cap) of them already, the piece's come next in line order.
  std::vector<std::size_t> kept(into.rule_hits.size());
  for (std::size_t r = 0; r < kept.size(); ++r)
    kept[r] = std::min(into.rule_hits[r], kMaxEventsPerRule);
  auto keep = [](const Event& ev, std::vector<std::size_t>& count) {
    if (ev.rule >= count.size() || count[ev.rule] >= kMaxEventsPerRule) return false;
    ++count[ev.rule];
    return true;
  };
  const std::size_t first = into.events.size();
  bool whole = false;
  if constexpr (!std::is_const_v<std::remove_reference_t<Piece>>) {
    // Into a job without events, a piece all of whose events are kept hands over its vector
    // (the first piece of a job; the language server's one document).
    if (into.events.empty()) {
      std::vector<std::size_t> count = kept;
      whole = std::all_of(piece.events.begin(), piece.events.end(),
                          [&](const Event& ev) { return keep(ev, count); });
      if (whole) into.events = std::move(piece.events);
    }
  }
  if (!whole)
    for (auto& ev : piece.events)
      if (keep(ev, kept)) into.events.push_back(std::move(ev));
  for (std::size_t i = first; i < into.events.size(); ++i) {
    into.events[i].line += line_offset;
    if (file) into.events[i].file = *file;
  }
  for (std::size_t r = 0; r < piece.rule_hits.size(); ++r) into.rule_hits[r] += piece.rule_hits[r];
  if (into.checks_seen.size() < piece.checks_seen.size())
    into.checks_seen.resize(piece.checks_seen.size());
  for (std::size_t r = 0; r < piece.checks_seen.size(); ++r) {
    auto& dst = into.checks_seen[r];
    if (dst.size() < piece.checks_seen[r].size()) dst.resize(piece.checks_seen[r].size(), false);
    for (std::size_t c = 0; c < piece.checks_seen[r].size(); ++c)
      if (piece.checks_seen[r][c]) dst[c] = true;
  }
  into.lines += piece.lines;
  into.bytes += piece.bytes;
}

}  // namespace

void append_scan(ScanState& into, ScanState&& piece, std::size_t line_offset) {
  append(into, std::move(piece), line_offset, std::nullopt);
}

void append_scan(ScanState& into, ScanState&& piece, std::size_t line_offset, std::size_t file) {
  append(into, std::move(piece), line_offset, file);
}

void append_scan(ScanState& into, const ScanState& piece, std::size_t line_offset,
                 std::size_t file) {
  append(into, piece, line_offset, file);
}

}  // namespace ff::analysis
