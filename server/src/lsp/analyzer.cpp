#include "lsp/analyzer.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "analysis/analyze.hpp"
#include "analysis/line_cursor.hpp"
#include "lsp/diagnostics.hpp"
#include "lsp/uri.hpp"

namespace ff::lsp {

namespace {

// The start of the line holding the text's last byte: everything before it stays as it is
// when the text only grows. A final "\n" ends the last line for good; a final "\r" may still
// become "\r\n".
std::size_t tail_start_of(std::string_view t) {
  if (t.empty() || t.back() == '\n') return t.size();
  return analysis::line_start_before(t, t.size() - 1);
}

}  // namespace

std::size_t Analyzer::update(Cached& c, const Text& text) {
  if (c.lent) {  // its events were never given back: start over
    c.lent = false;
    c.text = Text();
  }
  std::string_view now = text.view();
  if (c.text.buffer() && c.text == text) return 0;
  bool incremental = false;
  if (!c.text.empty() && now.size() >= c.text.size()) {
    // Appended in place: the old bytes are untouched by construction. A text in another
    // buffer (the client replaced it, or edited elsewhere) is compared to find out, up to
    // and including the old last line's first byte (a "\r" before it must not have become
    // "\r\n").
    std::size_t same = std::min(c.tail.offset + 1, c.text.size());
    incremental = text.extends(c.text) || std::memcmp(c.text.view().data(), now.data(), same) == 0;
  }
  std::size_t base = 0, first_line = 0;
  if (incremental) {
    base = c.tail.offset;
    first_line = c.tail.line;
    c.state.events.resize(c.tail.events);
    c.state.rule_hits = c.tail.rule_hits;
    c.state.checks_seen = c.tail.checks_seen;
    c.state.lines = first_line;
    c.state.bytes = base;
  } else {
    c.state.reset(catalog_);
  }
  // Up to the (new) last line, a checkpoint, then the last line.
  std::size_t tail = std::max(base, tail_start_of(now));
  if (scan_)
    scan_(catalog_, now, base, first_line, c.state, tail);
  else
    analysis::scan_text(catalog_, 0, now, base, first_line, c.state, tail);
  c.tail = {tail, c.state.lines, c.state.events.size(), c.state.rule_hits, c.state.checks_seen};
  if (tail < now.size()) analysis::scan_text(catalog_, 0, now, tail, c.state.lines, c.state);
  c.text = text;
  return now.size() - base;
}

namespace {

double ms_since(std::chrono::steady_clock::time_point& t) {
  auto now = std::chrono::steady_clock::now();
  double ms = std::chrono::duration<double, std::milli>(now - t).count();
  t = now;
  return ms;
}

}  // namespace

AnalysisRun Analyzer::run(std::vector<DocumentSnapshot> docs, const AnalyzerOptions& options) {
  return run(std::move(docs), options, false);
}

AnalysisRun Analyzer::run_lending(std::vector<DocumentSnapshot> docs,
                                  const AnalyzerOptions& options) {
  return run(std::move(docs), options, true);
}

void Analyzer::retain(const std::set<std::string>& uris) {
  for (auto it = cache_.begin(); it != cache_.end();)
    it = uris.count(it->first) ? std::next(it) : cache_.erase(it);
}

void Analyzer::settle(const AnalysisRun& run) {
  if (run.docs.size() != 1) return;
  auto it = cache_.find(run.docs[0].uri);
  if (it == cache_.end() || !it->second.lent) return;
  // The run's events are the document's own, moved there unchanged (diagnose() only reads
  // them).
  it->second.state.events = run.analysis.events;
  it->second.lent = false;
}

AnalysisRun Analyzer::run(std::vector<DocumentSnapshot> docs, const AnalyzerOptions& options,
                          bool lend) {
  AnalysisRun out;
  auto clock = std::chrono::steady_clock::now();
  analysis::ScanState merged;
  merged.reset(catalog_);
  std::vector<analysis::FileSummary> files;
  std::set<std::string> live;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    live.insert(docs[i].uri);
    Cached& c = cache_[docs[i].uri];
    out.bytes_scanned += update(c, docs[i].text);
    out.scan_ms += ms_since(clock);
    out.bytes_total += docs[i].text.size();
    if (lend && docs.size() == 1) {
      // The events are handed over (settle() gives them back); counts and checks are read.
      analysis::append_scan(merged, std::move(c.state), 0, i);
      c.lent = true;
    } else {
      merged.events.reserve(merged.events.size() + c.state.events.size());
      analysis::append_scan(merged, c.state, 0, i);
    }
    files.push_back({uri_to_path(docs[i].uri), c.state.lines, docs[i].text.size()});
    out.merge_ms += ms_since(clock);
  }
  if (!lend) retain(live);  // a lending run is one job: the others' scans stay
  out.checks_seen = merged.checks_seen;
  out.merge_ms += ms_since(clock);
  out.analysis = analysis::diagnose(catalog_, std::move(files), std::move(merged));
  out.docs = std::move(docs);
  out.diagnose_ms = ms_since(clock);

  out.items = build_diagnostics(out, catalog_.rules(), options);
  out.items_ms = ms_since(clock);
  return out;
}

}  // namespace ff::lsp
