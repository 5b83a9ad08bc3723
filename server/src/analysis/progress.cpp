#include "analysis/progress.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/ansi.hpp"
#include "analysis/line_cursor.hpp"
#include "analysis/line_source.hpp"
#include "analysis/prefilter.hpp"

namespace ff::analysis {

namespace {

// Longest text of a progress line kept as its template (numbers taken out), and the most
// numbers of one line that may be its counter (a step counter comes early in its line).
constexpr std::size_t kMaxTemplate = 200;
constexpr std::size_t kMaxFields = 16;

// One progress line of one writer: its numbers in order (integers; a decimal is no counter).
struct Sample {
  std::vector<std::optional<std::int64_t>> fields;
  std::size_t rule = 0;
  std::size_t file = 0;
  std::size_t line = 0;
  std::size_t offset = 0;
  std::size_t length = 0;
  LineSource source;
};

// The last two progress lines of one template a writer printed.
struct Track {
  std::optional<Sample> previous, last;
};

// A progress line of one template, per writer, in the order writers first printed it.
struct Template {
  std::map<std::string, std::size_t> index;
  std::vector<std::pair<std::string, Track>> writers;
};

// The line's text with every number replaced by '#', and the numbers.
std::string shape(std::string_view body, std::vector<std::optional<std::int64_t>>& fields) {
  std::string out;
  auto digit = [&](std::size_t i) { return i < body.size() && body[i] >= '0' && body[i] <= '9'; };
  for (std::size_t i = 0; i < body.size() && out.size() < kMaxTemplate;) {
    if (!digit(i)) {
      out += body[i++];
      continue;
    }
    std::size_t j = i;
    std::int64_t v = 0;
    bool fits = true;
    while (digit(j)) {
      if (v > (INT64_MAX - 9) / 10) fits = false;
      if (fits) v = v * 10 + (body[j] - '0');
      ++j;
    }
    bool decimal = j + 1 < body.size() && body[j] == '.' && digit(j + 1);
    if (decimal) {
      ++j;
      while (digit(j)) ++j;
    }
    if (fields.size() < kMaxFields)
      fields.push_back(decimal || !fits ? std::nullopt : std::optional<std::int64_t>(v));
    out += '#';
    i = j;
  }
  return out;
}

// Who printed a progress line: its rank, else its host and pid, else (a log per rank
// without prefixes) the input it is in.
std::string writer_of(const LineSource& s, std::size_t file) {
  if (s.rank) return "rank " + std::to_string(*s.rank);
  if (s.pid) return s.host + ":" + std::to_string(*s.pid);
  return "input " + std::to_string(file);
}

// Where the writers of one template stopped: the last line of the one furthest behind, its
// counter, the highest counter, and how many writers were compared.
struct Gap {
  const Sample* behind = nullptr;
  std::int64_t value = 0, ahead = 0;
  std::size_t writers = 0;
};

// The counter of one template that every writer advanced by one on its last two lines, and
// how far apart the writers' last values are.
std::optional<Gap> compare_template(const Template& t) {
  if (t.writers.size() < 2) return std::nullopt;
  const std::size_t fields = t.writers.front().second.last->fields.size();
  for (std::size_t k = 0; k < fields; ++k) {
    bool counter = true;
    for (const auto& [who, track] : t.writers) {
      const Sample* a = track.previous ? &*track.previous : nullptr;
      const Sample& b = *track.last;
      counter = counter && a && a->fields.size() == fields && b.fields.size() == fields &&
                a->fields[k] && b.fields[k] && *b.fields[k] == *a->fields[k] + 1;
      if (!counter) break;
    }
    if (!counter) continue;
    Gap g;
    g.writers = t.writers.size();
    g.value = INT64_MAX;
    g.ahead = INT64_MIN;
    for (const auto& [who, track] : t.writers) {
      const std::int64_t v = *track.last->fields[k];
      if (v < g.value) {
        g.value = v;
        g.behind = &*track.last;
      }
      g.ahead = std::max(g.ahead, v);
    }
    if (g.ahead > g.value) return g;
  }
  return std::nullopt;
}

// Calls visit(line), in line order, for every line of `text` a counter rule may match: each
// line the prefilter of the counter rules' patterns names (Vectorscan over the whole text,
// as the scan reads it), and each line holding a control byte (the rules read a line
// without its escape sequences, which a search of the raw text may not see through). Every
// line when there is no prefilter or its scan fails.
template <typename Visit>
void for_candidate_lines(std::string_view text, Prefilter::Session* session, Visit visit) {
  std::size_t from = 0;     // the first line start not visited or passed over yet
  std::size_t counted = 0;  // the line start up to which line ends are counted
  std::size_t number = 0;   // the number of the line starting at `counted`
  auto emit = [&](const LineBounds& lb) {
    number += count_line_ends(text, counted, lb.begin);
    counted = lb.begin;
    visit(LineSpan{number, lb.begin, text.substr(lb.begin, lb.end - lb.begin)});
    from = lb.next;
  };
  // The lines holding a control byte before `limit` (a line start).
  auto controls_until = [&](std::size_t limit) {
    while (from < limit) {
      const std::size_t c = find_control_byte(text, from, limit);
      if (c >= limit) break;
      emit(line_bounds(text, c));
    }
  };
  const bool scanned = session && session->scan(text, [&](unsigned, std::size_t end) {
    const std::size_t q = end ? end - 1 : 0;
    if (q < from || q >= text.size()) return;
    const LineBounds lb = line_bounds(text, q);
    controls_until(lb.begin);
    if (lb.begin >= from) emit(lb);
  });
  if (scanned) {
    controls_until(text.size());
    return;
  }
  // No prefilter: every line not visited yet.
  LineCursor cursor(text.substr(from), number + count_line_ends(text, counted, from), from);
  LineSpan span;
  while (cursor.next(span)) visit(span);
}

}  // namespace

void compare_progress(const Catalog& catalog, std::span<const std::string_view> texts,
                      ScanState& state) {
  const auto& rules = catalog.rules();
  const std::vector<std::size_t> counters = catalog.rules_decoding(Decode::kProgress);
  if (counters.empty()) return;

  std::map<std::string, Template> templates;
  std::size_t tracks = 0;  // writers of all templates together
  CleanLine cleaned;
  // One prefilter pass over each whole text finds the lines the counter rules may match; RE2
  // on every line would cost more than the scan itself on a log of a million lines.
  std::vector<std::string> patterns;
  for (std::size_t r : counters)
    for (const auto& p : rules[r].patterns) patterns.push_back(p);
  std::unique_ptr<Prefilter> prefilter = Prefilter::build(patterns, nullptr);
  std::optional<Prefilter::Session> session;
  if (prefilter) session.emplace(*prefilter);
  Prefilter::Session* scan = session && session->ok() ? &*session : nullptr;
  std::vector<int> candidates;
  for (std::size_t file = 0; file < texts.size(); ++file) {
    for_candidate_lines(texts[file], scan, [&](const LineSpan& span) {
      std::string_view line = span.text;
      if (line.find_first_of("0123456789") == std::string_view::npos) return;
      if (may_contain_escapes(line)) {
        strip_ansi(line, cleaned);
        line = cleaned.text;
        // A line visited for its escape bytes (most lines of a coloured log) goes to RE2 only
        // when the prefilter names a counter pattern for it once cleaned.
        candidates.clear();
        if (scan && scan->candidates(line, candidates) && candidates.empty()) return;
      }
      std::optional<std::size_t> rule;
      for (std::size_t r : counters)
        if (!rule && catalog.matches(r, line)) rule = r;
      if (!rule) return;
      Sample s;
      s.source = parse_line_source(line);
      std::string_view body = line.substr(std::min(s.source.body, line.size()));
      std::string key = shape(body, s.fields);
      auto it = templates.find(key);
      if (it == templates.end()) {
        if (templates.size() >= kMaxProgressTemplates) return;
        it = templates.emplace(std::move(key), Template{}).first;
      }
      Template& t = it->second;
      const std::string who = writer_of(s.source, file);
      auto w = t.index.find(who);
      if (w == t.index.end()) {
        if (t.writers.size() >= kMaxProgressWriters || tracks >= kMaxProgressTracks) return;
        ++tracks;
        w = t.index.emplace(who, t.writers.size()).first;
        t.writers.emplace_back(who, Track{});
      }
      s.rule = *rule;
      s.file = file;
      s.line = span.number;
      s.offset = span.begin;
      s.length = span.text.size();
      Track& track = t.writers[w->second].second;
      track.previous = std::move(track.last);
      track.last = std::move(s);
    });
  }

  // The template most writers print decides; of equals, the first by its text.
  std::optional<Gap> best;
  for (const auto& [key, t] : templates)
    if (auto g = compare_template(t); g && (!best || g->writers > best->writers)) best = g;
  if (!best) return;

  const Sample& s = *best->behind;
  Event ev;
  ev.file = s.file;
  ev.line = s.line;
  ev.offset = s.offset;
  ev.length = s.length;
  ev.rule = s.rule;
  ev.source = s.source;
  // The line as the scan would keep it: without escape sequences, capped.
  ev.text = std::string(
      without_escapes(texts[s.file].substr(s.offset, s.length), cleaned).substr(0, kMaxEventText));
  ev.match_begin = 0;
  ev.match_end = s.length;
  ev.captures = {{"value", std::to_string(best->value)},
                 {"ahead", std::to_string(best->ahead)},
                 {"gap", std::to_string(best->ahead - best->value)},
                 {"writers", std::to_string(best->writers)}};
  state.insert_after_scan(std::move(ev));
}

}  // namespace ff::analysis
