#include "analysis/scan.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>

#include "analysis/ansi.hpp"
#include "analysis/blocks.hpp"
#include "analysis/line_cursor.hpp"
#include "analysis/line_source.hpp"
#include "analysis/prefilter.hpp"

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

namespace {

// The exact path for one line: strip escapes if any, match the whole catalog, keep the
// strongest hit as an event.
struct LineMatcher {
  const Catalog& catalog;
  std::size_t file;
  std::string_view whole;
  ScanState& state;
  CleanLine cleaned;
  std::vector<PatternHit> hits;
  std::vector<std::pair<std::size_t, std::size_t>> checks;
  std::vector<int> scratch;

  void operator()(const LineSpan& span) {
    const auto& rules = catalog.rules();
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
    if (hits.empty()) return;
    // One line is one piece of evidence: when several rules match it, the most specific
    // (highest weight) cause or symptom speaks for it. Context and benign hits are kept
    // only when nothing stronger matched the line.
    auto rank_of = [&](const PatternHit& h) {
      const Rule& r = rules[h.rule];
      double tier = r.role == Role::kContext ? 0 : 1;
      return tier * 10 + r.weight;
    };
    const PatternHit* best = &hits.front();
    for (const auto& h : hits)
      if (rank_of(h) > rank_of(*best)) best = &h;
    const PatternHit& h = *best;
    ++state.rule_hits[h.rule];
    if (state.rule_hits[h.rule] > kMaxEventsPerRule) return;
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
};

}  // namespace

void scan_text(const Catalog& catalog, std::size_t file, std::string_view whole, std::size_t base,
               std::size_t first_line, ScanState& state, std::size_t end) {
  scan_text(catalog, file, whole, base, first_line, state, end, ScanStrategy::kAuto);
}

void scan_text(const Catalog& catalog, std::size_t file, std::string_view whole, std::size_t base,
               std::size_t first_line, ScanState& state, std::size_t end, ScanStrategy strategy) {
  if (state.rule_hits.size() != catalog.rules().size()) state.reset(catalog);
  base = std::min(base, whole.size());
  end = std::min(end, whole.size());
  if (end < base) end = base;
  std::string_view text = whole.substr(base, end - base);
  LineCursor cursor(text, first_line, base);
  LineSpan span;
  LineMatcher match{catalog, file, whole, state, {}, {}, {}, {}};
  state.bytes += text.size();

  const Prefilter* pf = nullptr;
  if (strategy == ScanStrategy::kPrefilter ||
      (strategy == ScanStrategy::kAuto && text.size() >= 64 * 1024 &&
       (text.size() >= kPrefilterMinBytes || catalog.prefilter_ready())))
    pf = catalog.prefilter();
  std::optional<Prefilter::Session> session;
  if (pf) session.emplace(*pf);
  if (pf && session->ok()) {
    const std::size_t lines_before = state.lines;
    const std::size_t events_before = state.events.size();
    // Candidate positions arrive in increasing order; walk the lines up to each and match
    // only the line that holds it. Lines in between are counted, and those with an ESC byte
    // (colour) are cleaned and checked on their own, since escapes can split a signature.
    bool have = cursor.next(span);
    if (have) ++state.lines;
    std::size_t last_matched = static_cast<std::size_t>(-1);
    auto escaped = [&](const LineSpan& s) {
      return std::memchr(s.text.data(), 0x1b, s.text.size()) != nullptr;
    };
    auto visit_escaped = [&](const LineSpan& s) {
      strip_ansi(s.text, match.cleaned);
      if (session->any(match.cleaned.text)) match(s);
    };
    bool ok = session->scan(text, [&](std::size_t match_end) {
      std::size_t q = base + (match_end ? match_end - 1 : 0);
      while (have && base + cursor.offset() <= q) {
        if (span.number != last_matched && escaped(span)) visit_escaped(span);
        have = cursor.next(span);
        if (have) ++state.lines;
      }
      if (!have || span.number == last_matched) return;
      last_matched = span.number;
      match(span);
    });
    if (ok) {
      if (have && span.number != last_matched && escaped(span)) visit_escaped(span);
      while (cursor.next(span)) {
        ++state.lines;
        if (escaped(span)) visit_escaped(span);
      }
      return;
    }
    // The prefilter failed mid-way (it should not): redo this part line by line.
    state.events.resize(events_before);
    state.lines = lines_before;
    cursor = LineCursor(text, first_line, base);
  }
  while (cursor.next(span)) {
    ++state.lines;
    match(span);
  }
}

}  // namespace ff::analysis
