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

bool is_context_rule(const Rule& rule) {
  // A value the job must agree on is compared across every line that states it (a version
  // banner per rank): none may be left uncounted.
  if (rule.agree) return false;
  // An exit status's role depends on its captures, and a frame or a progress line is read
  // beside the lines it speaks for, however far into the log, as a call trace is compared
  // across ranks wherever the ranks part: they keep their events like a cause does.
  return rule.benign ||
         (rule.role == Role::kContext && rule.decode != Decode::kExitStatus &&
          rule.decode != Decode::kFrame && !rule.progress && !rule.members && !rule.cross_rank);
}

void ScanState::reset(const Catalog& catalog) {
  events.clear();
  rule_hits.assign(catalog.rules().size(), 0);
  counted.clear();
  context_rule.clear();
  for (const auto& r : catalog.rules()) context_rule.push_back(is_context_rule(r) ? 1 : 0);
  file = static_cast<std::size_t>(-1);
  hits_before_file.clear();
  checks_seen.clear();
  for (const auto& r : catalog.rules()) checks_seen.emplace_back(r.checks.size(), false);
  lines = 0;
  bytes = 0;
  events_full.clear();
}

void ScanState::truncate(std::size_t file, std::size_t line) {
  events.erase(std::remove_if(events.begin(), events.end(),
                              [&](const Event& e) { return e.file == file && e.line >= line; }),
               events.end());
}

void ScanState::insert_after_scan(Event ev) {
  auto at = std::find_if(events.begin(), events.end(), [&](const Event& e) {
    return e.file > ev.file || (e.file == ev.file && e.line > ev.line);
  });
  const std::size_t rule = ev.rule;
  events.insert(at, std::move(ev));
  if (rule < rule_hits.size()) ++rule_hits[rule];
}

namespace {

// The exact path for one line: strip escapes if any, match the whole catalog, keep the
// strongest hit as an event.
struct LineMatcher {
  const Catalog& catalog;
  std::size_t file;
  std::string_view whole;
  // The part being scanned as it is in memory (a copy read from the file, or part of
  // `whole`) and its offset in `whole`: the lines above an event are read from it when
  // they lie in it.
  std::string_view near;
  std::size_t near_base;
  ScanState& state;
  CleanLine cleaned;
  std::vector<PatternHit> hits;
  std::vector<PatternHit> body_hits;  // of the line without its carrier prefix
  std::vector<std::pair<std::size_t, std::size_t>> checks;
  std::vector<int> scratch;

  // Every rule against the line.
  void operator()(const LineSpan& span) { run(span, nullptr, false); }

  // Only `entries` (prefilter candidates) against the line; `cleaned_already` when
  // `cleaned` holds this line's stripped text, else the line holds no control byte (the
  // prefiltered scan looked for them on the way: find_control_byte).
  void operator()(const LineSpan& span, std::vector<int>& entries, bool cleaned_already) {
    run(span, &entries, cleaned_already);
  }

  void run(const LineSpan& span, std::vector<int>* entries, bool cleaned_already) {
    const auto& rules = catalog.rules();
    std::string_view line = span.text;
    bool stripped = false;
    if (cleaned_already) {
      line = cleaned.text;
      stripped = true;
    } else if (entries ? may_contain_sgr_residue(line) : may_contain_escapes(line)) {
      strip_ansi(line, cleaned);
      line = cleaned.text;
      stripped = true;
    }
    hits.clear();
    checks.clear();
    // The "bytes RE2 will not see" marker (id == entry count) means: try everything.
    bool all = !entries;
    if (entries)
      for (int id : *entries)
        if (static_cast<std::size_t>(id) >= catalog.entry_count()) all = true;
    if (!all && entries->empty()) return;
    if (all)
      catalog.match(line, hits, checks, scratch);
    else
      catalog.match_candidates(line, *entries, hits, checks);
    // A line carried by a launcher or pasted into a quote is also read without what was put
    // in front of it, so a pattern written for where its producer's line starts matches it.
    // The hits of both readings count; the carried reading's are placed in the whole line.
    const std::size_t carried = carrier_prefix_length(line);
    const std::size_t direct_hits = hits.size();
    if (carried > 0) {
      std::string_view body = line.substr(carried);
      if (all)
        catalog.match(body, body_hits, checks, scratch);
      else
        catalog.match_candidates(body, *entries, body_hits, checks);
      for (auto& h : body_hits) {
        bool known = false;
        for (std::size_t k = 0; k < direct_hits && !known; ++k)
          known = hits[k].rule == h.rule && hits[k].pattern == h.pattern;
        if (!known) hits.push_back(std::move(h));
      }
      body_hits.clear();
    }
    for (auto [r, c] : checks) state.checks_seen[r][c] = true;
    if (hits.empty()) return;
    // One line is one piece of evidence: when several rules match it, the most specific
    // (highest weight) cause or symptom speaks for it. Context and benign hits are kept
    // only when nothing stronger matched the line.
    PatternHit* best = &hits.front();
    for (auto& h : hits)
      if (line_precedence(rules[h.rule]) > line_precedence(rules[best->rule])) best = &h;
    PatternHit& h = *best;
    const std::size_t offset =
        static_cast<std::size_t>(best - hits.data()) >= direct_hits ? carried : 0;
    ++state.rule_hits[h.rule];
    if (state.rule_hits[h.rule] > kMaxEventsPerRule) return;
    if (h.rule < state.events_full.size() && state.events_full[h.rule]) return;
    // Past a context rule's first events in this input: counted only (append_scan and the
    // reports know how many such events a full scan would have kept).
    if (state.rule_hits[h.rule] > kContextEventsKept && h.rule < state.context_rule.size() &&
        state.context_rule[h.rule])
      return;
    catalog.fill_captures(line.substr(offset), h);
    h.match_begin += offset;
    h.match_end += offset;
    Event ev;
    ev.file = file;
    ev.line = span.number;
    ev.offset = span.begin;
    ev.length = span.text.size();
    ev.rule = h.rule;
    ev.captures = std::move(h.captures);
    ev.source = parse_line_source(line);
    ev.text = std::string(line.substr(0, kMaxEventText));
    ev.match_begin = stripped ? cleaned.raw_offset(h.match_begin) : h.match_begin;
    ev.match_end = stripped ? cleaned.raw_offset(h.match_end) : h.match_end;
    apply_captures(ev);
    attribute_from_block(whole, ev, near, near_base);
    // A traceback a program put in its own message reports an exception it caught: the
    // line reads as a warning of that program's, not as the end of a process.
    if (ev.source.severity == Severity::kUnknown && !ev.capture("exception").empty() &&
        traceback_in_message(whole, ev, near, near_base))
      ev.source.severity = Severity::kWarning;
    state.events.push_back(std::move(ev));
  }
};

}  // namespace

ScanStrategy resolve_strategy(const Catalog& catalog, std::size_t bytes, ScanStrategy strategy) {
  if (strategy != ScanStrategy::kAuto) return strategy;
  return bytes >= kPrefilterMinBytes || catalog.prefilter_ready() ? ScanStrategy::kPrefilter
                                                                  : ScanStrategy::kEveryLine;
}

void scan_text(const Catalog& catalog, std::size_t file, std::string_view whole, std::size_t base,
               std::size_t first_line, ScanState& state, std::size_t end) {
  scan_text(catalog, file, whole, base, first_line, state, end, ScanStrategy::kAuto);
}

void scan_text(const Catalog& catalog, std::size_t file, std::string_view whole, std::size_t base,
               std::size_t first_line, ScanState& state, std::size_t end, ScanStrategy strategy,
               Prefilter::Session* reused, std::string_view copy) {
  if (state.rule_hits.size() != catalog.rules().size()) state.reset(catalog);
  state.file = file;
  base = std::min(base, whole.size());
  end = std::min(end, whole.size());
  if (end < base) end = base;
  std::string_view text = whole.substr(base, end - base);
  if (!copy.empty() && copy.size() == text.size()) text = copy;
  LineCursor cursor(text, first_line, base);
  LineSpan span;
  LineMatcher match{catalog, file, whole, text, base, state, {}, {}, {}, {}, {}};
  state.bytes += text.size();

  const Prefilter* pf = nullptr;
  if (resolve_strategy(catalog, text.size(), strategy) == ScanStrategy::kPrefilter)
    pf = catalog.prefilter();
  std::optional<Prefilter::Session> own;
  Prefilter::Session* session = reused && pf && &reused->prefilter() == pf ? reused : nullptr;
  if (pf && !session) session = &own.emplace(*pf);
  if (pf && session->ok()) {
    const std::size_t events_before = state.events.size();
    // Matches arrive in increasing order of end offset. Each names the line holding it;
    // the candidate patterns of a line are collected until a match lands on a later line,
    // then confirmed by RE2. Lines in between are never looked at by RE2, only counted in
    // bulk and searched for control bytes (find_control_byte, cheaper than a Vectorscan
    // pattern for them): a line with one is cleaned and prefiltered again, since RE2 sees it
    // cleaned and colour codes can split a signature.
    const int marker = static_cast<int>(catalog.entry_count());  // "clean this line first"
    LineSpan cur{first_line, base, {}};
    std::size_t cur_next = base;  // start of the line after `cur`; base: none yet
    std::size_t searched = 0;     // control bytes are looked for from here (relative)
    bool pending = false;
    std::vector<int> ids;
    // Evidence of checks already satisfied is not worth a look: a check needs one line, and
    // a healthy log satisfies "channels via NET/IB/n/GDRDMA" on a fifth of its lines. Such
    // entries are dropped as they are reported, and from a cleaned line's candidates.
    std::vector<char> dead(catalog.entry_count() + 1, 0);
    auto bury_satisfied = [&] {
      std::size_t r, k;
      for (int id = 0; id < marker; ++id)
        if (catalog.check_of_entry(id, r, k) && state.checks_seen[r][k])
          dead[static_cast<std::size_t>(id)] = 1;
    };
    bury_satisfied();
    auto flush = [&]() {
      if (!pending) return;
      pending = false;
      bool cleaned = std::find(ids.begin(), ids.end(), marker) != ids.end();
      if (cleaned) {
        // Escapes or control bytes: RE2 sees the cleaned line, so prefilter that.
        strip_ansi(cur.text, match.cleaned);
        ids.clear();
        if (!session->candidates(match.cleaned.text, ids)) ids.push_back(marker);
        std::erase_if(ids, [&](int id) { return dead[static_cast<std::size_t>(id)] != 0; });
      }
      if (!ids.empty()) {
        match(cur, ids, cleaned);
        if (!match.checks.empty()) bury_satisfied();  // this line satisfied a check
      }
      ids.clear();
    };
    // Makes `lb` the current line, counting the lines jumped over; `has_control`: it holds a
    // control byte (it is cleaned and prefiltered again when flushed).
    auto enter = [&](const LineBounds& lb, bool has_control) {
      cur.number += count_line_ends(text, cur.begin - base, lb.begin);
      cur.begin = base + lb.begin;
      cur.text = text.substr(lb.begin, lb.end - lb.begin);
      cur_next = base + lb.next;
      searched = lb.next;
      pending = true;
      if (has_control) ids.push_back(marker);
    };
    // Lines before relative offset `until` with control bytes and no match.
    auto control_lines_before = [&](std::size_t until) {
      for (std::size_t c; (c = find_control_byte(text, searched, until)) < until;) {
        enter(line_bounds(text, c), true);
        flush();
      }
    };
    bool ok = session->scan(text, [&](unsigned id, std::size_t match_end) {
      if (dead[id]) return;
      std::size_t q = match_end ? match_end - 1 : 0;  // a byte of the match, relative
      if (q >= text.size()) q = text.empty() ? 0 : text.size() - 1;
      if (!(pending && base + q < cur_next)) {
        flush();
        LineBounds lb = line_bounds(text, q);
        control_lines_before(lb.begin);
        enter(lb, find_control_byte(text, lb.begin, lb.end) < lb.end);
      }
      ids.push_back(static_cast<int>(id));
    });
    if (ok) {
      flush();
      control_lines_before(text.size());
      // Lines up to the last candidate were counted on the way; count the rest.
      std::size_t from = cur.begin - base;
      state.lines += (cur.number - first_line) + count_lines(text.substr(from));
      return;
    }
    // The prefilter failed mid-way (it should not): redo this part line by line.
    state.events.resize(events_before);
    cursor = LineCursor(text, first_line, base);
  }
  while (cursor.next(span)) {
    ++state.lines;
    match(span);
  }
}

}  // namespace ff::analysis
