#include <algorithm>
#include <cstddef>
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
  if (into.context_rule.size() < piece.context_rule.size()) into.context_rule = piece.context_rule;
  const std::size_t rules = into.rule_hits.size();
  // The piece's input; a new input's context rules start their first events afresh.
  const std::size_t input = file ? *file : piece.file;
  if (into.file != input) {
    into.file = input;
    into.hits_before_file = into.rule_hits;
  } else if (into.hits_before_file.size() != rules) {
    // `into` holds only scan_text's parts of this same input (a state scan_text filled is
    // one input's): no hits came before the input.
    into.hits_before_file.resize(rules, 0);
  }
  // A scan of the whole input would have kept each rule's first kMaxEventsPerRule events,
  // and of those each context rule's first kContextEventsKept per input. The piece's events
  // of a rule are its first hits of that rule, so its n-th event of a rule is the rule's
  // hit number (hits before the piece) + n, in the job and in the input.
  std::vector<std::size_t> next(rules), next_in_input(rules), kept(rules, 0);
  for (std::size_t r = 0; r < rules; ++r) {
    next[r] = into.rule_hits[r];
    next_in_input[r] = into.rule_hits[r] - into.hits_before_file[r];
  }
  auto is_context = [&](std::size_t r) {
    return r < into.context_rule.size() && into.context_rule[r] != 0;
  };
  std::vector<char> keep(piece.events.size(), 0);
  bool all = true;
  for (std::size_t i = 0; i < piece.events.size(); ++i) {
    std::size_t r = piece.events[i].rule;
    bool k = r < rules && next[r] < kMaxEventsPerRule &&
             (!is_context(r) || next_in_input[r] < kContextEventsKept);
    if (r < rules) {
      ++next[r];
      ++next_in_input[r];
      if (k) ++kept[r];
    }
    keep[i] = k ? 1 : 0;
    all = all && k;
  }
  const std::size_t first = into.events.size();
  bool whole = false;
  if constexpr (!std::is_const_v<std::remove_reference_t<Piece>>) {
    // Into a job without events, a piece all of whose events are kept hands over its vector
    // (the first piece of a job; the language server's one document).
    if (into.events.empty() && all) {
      into.events = std::move(piece.events);
      whole = true;
    }
  }
  if (!whole)
    for (std::size_t i = 0; i < piece.events.size(); ++i)
      if (keep[i]) into.events.push_back(std::move(piece.events[i]));
  for (std::size_t i = first; i < into.events.size(); ++i) {
    into.events[i].line += line_offset;
    if (file) into.events[i].file = *file;
  }
  // The context events a full scan would have kept of the piece's hits and that are not
  // built: counted, per input and rule.
  for (std::size_t r = 0; r < piece.rule_hits.size() && r < rules; ++r) {
    if (!is_context(r) || piece.rule_hits[r] == 0 || into.rule_hits[r] >= kMaxEventsPerRule)
      continue;
    std::size_t would_keep = std::min(piece.rule_hits[r], kMaxEventsPerRule - into.rule_hits[r]);
    if (would_keep <= kept[r]) continue;
    std::size_t n = would_keep - kept[r];
    auto same =
        std::find_if(into.counted.rbegin(), into.counted.rend(),
                     [&](const CountedEvents& c) { return c.file == input && c.rule == r; });
    if (same != into.counted.rend())
      same->count += n;
    else
      into.counted.push_back({input, r, n});
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
