#include "analysis/scan.hpp"

#include <algorithm>
#include <charconv>

#include "analysis/ansi.hpp"
#include "analysis/blocks.hpp"
#include "analysis/line_cursor.hpp"
#include "analysis/line_source.hpp"

namespace ff::analysis {

namespace {

bool to_int(std::string_view s, int& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Captures with well-known names refine who the line is about.
void apply_captures(Event& ev) {
  int v;
  if (auto r = ev.capture("rank"); !r.empty() && to_int(r, v)) ev.source.rank = v;
  if (auto r = ev.capture("local_rank"); !r.empty() && to_int(r, v)) ev.source.local_rank = v;
  if (auto h = ev.capture("host"); !h.empty()) ev.source.host = std::string(h);
  if (auto d = ev.capture("device"); !d.empty() && to_int(d, v)) ev.source.device = v;
}

}  // namespace

void ScanState::reset(const Catalog& catalog) {
  events.clear();
  rule_hits.assign(catalog.rules().size(), 0);
  checks_seen.clear();
  for (const auto& r : catalog.rules()) checks_seen.emplace_back(r.checks.size(), false);
  lines = 0;
  bytes = 0;
}

void ScanState::truncate(std::size_t file, std::size_t line) {
  events.erase(std::remove_if(events.begin(), events.end(),
                              [&](const Event& e) { return e.file == file && e.line >= line; }),
               events.end());
}

void scan_text(const Catalog& catalog, std::size_t file, std::string_view whole, std::size_t base,
               std::size_t first_line, ScanState& state) {
  if (state.rule_hits.size() != catalog.rules().size()) state.reset(catalog);
  std::string_view text = whole.substr(std::min(base, whole.size()));
  LineCursor cursor(text, first_line, base);
  LineSpan span;
  CleanLine cleaned;
  std::vector<PatternHit> hits;
  std::vector<std::pair<std::size_t, std::size_t>> checks;
  std::vector<int> scratch;
  const auto& rules = catalog.rules();
  while (cursor.next(span)) {
    ++state.lines;
    std::string_view line = span.text;
    bool stripped = false;
    if (may_contain_escapes(line)) {
      strip_ansi(line, cleaned);
      line = cleaned.text;
      stripped = true;
    }
    hits.clear();
    checks.clear();
    catalog.match(line, hits, checks, scratch);
    for (auto [r, c] : checks) state.checks_seen[r][c] = true;
    if (hits.empty()) continue;
    // One line is one piece of evidence: when several rules match it, the most specific
    // (highest weight) cause or symptom speaks for it. Context and benign hits are kept
    // only when nothing stronger matched the line.
    auto rank_of = [&](const PatternHit& h) {
      const Rule& r = rules[h.rule];
      double tier = r.role == Role::kContext ? 0 : 1;
      return tier * 10 + r.weight;
    };
    std::sort(hits.begin(), hits.end(),
              [&](const PatternHit& a, const PatternHit& b) { return rank_of(a) > rank_of(b); });
    const PatternHit& h = hits.front();
    ++state.rule_hits[h.rule];
    if (state.rule_hits[h.rule] > kMaxEventsPerRule) continue;
    Event ev;
    ev.file = file;
    ev.line = span.number;
    ev.offset = span.begin;
    ev.length = span.text.size();
    ev.rule = h.rule;
    ev.captures = h.captures;
    ev.source = parse_line_source(line);
    ev.text = std::string(line.substr(0, kMaxEventText));
    ev.match_begin = stripped ? cleaned.raw_offset(h.match_begin) : h.match_begin;
    ev.match_end = stripped ? cleaned.raw_offset(h.match_end) : h.match_end;
    apply_captures(ev);
    attribute_from_block(whole, ev);
    state.events.push_back(std::move(ev));
  }
  state.bytes += text.size();
}

}  // namespace ff::analysis
