#include "lsp/features.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/analyze.hpp"
#include "analysis/line_cursor.hpp"
#include "fix/engine.hpp"
#include "fix/verify_command.hpp"
#include "report/report.hpp"
#include "rules/env_var_docs.hpp"

namespace ff::lsp {

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string basename_of(const std::string& uri) {
  auto slash = uri.find_last_of('/');
  return slash == std::string::npos ? uri : uri.substr(slash + 1);
}

std::string percent(double c) {
  return std::to_string(static_cast<int>(c * 100 + 0.5)) + "%";
}

std::string rank_text(const analysis::Event& e);

}  // namespace

std::string_view role_name(Role r) {
  switch (r) {
    case Role::kInitiating:
      return "initiating";
    case Role::kAlternative:
      return "alternative";
    case Role::kCollateral:
      return "collateral";
    case Role::kEvidence:
      return "evidence";
    case Role::kFinding:
      return "finding";
    case Role::kContext:
      break;
  }
  return "context";
}

namespace {

std::string rank_text(const analysis::Event& e) {
  if (e.source.rank) return "rank " + std::to_string(*e.source.rank);
  if (!e.source.host.empty()) return "host " + e.source.host;
  return {};
}

Range event_range(const analysis::Event& e, std::string_view text, Encoding enc) {
  std::string_view line;
  if (e.offset <= text.size())
    line = text.substr(e.offset, std::min(e.length, text.size() - e.offset));
  auto l = static_cast<std::uint32_t>(e.line);
  std::size_t b = e.match_begin, en = e.match_end;
  if (en <= b) {
    b = 0;
    en = line.size();
  }
  return {{l, byte_to_column(line, b, enc)}, {l, byte_to_column(line, en, enc)}};
}

bool is_var_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// The start of the line holding the text's last byte: everything before it stays as it is
// when the text only grows. A final "\n" ends the last line for good; a final "\r" may still
// become "\r\n".
std::size_t tail_start_of(std::string_view t) {
  if (t.empty() || t.back() == '\n') return t.size();
  return analysis::line_start_before(t, t.size() - 1);
}

}  // namespace

bool looks_like_log(const std::string& uri, const std::string& language_id) {
  if (language_id == "log" || language_id == "plaintext") return true;
  std::string name = basename_of(uri);
  if (ends_with(name, ".log") || ends_with(name, ".out") || ends_with(name, ".err")) return true;
  return name.rfind("slurm-", 0) == 0 && ends_with(name, ".out");
}

std::string uri_to_path(const std::string& uri) {
  if (uri.rfind("file://", 0) != 0) return uri;
  std::string p = uri.substr(7), out;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '%' && i + 2 < p.size() && std::isxdigit(static_cast<unsigned char>(p[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(p[i + 2]))) {
      out += static_cast<char>(std::stoi(p.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += p[i];
    }
  }
  return out;
}

std::string path_to_uri(const std::string& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || std::strchr("/-_.~", c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Analyzer

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

namespace {

// The diagnostics of one run, per document: each event gets the first role that applies to
// it, and a rule marks at most kMaxMarkedLinesPerRule lines per document and role.
struct DiagnosticBuilder {
  DiagnosticBuilder(const AnalysisRun& run, const std::vector<analysis::Rule>& rules,
                    const AnalyzerOptions& options)
      : a(run.analysis),
        rules(rules),
        docs(run.docs),
        options(options),
        taken(a.events.size(), 0),
        per_doc(docs.size()) {}

  const analysis::Analysis& a;
  const std::vector<analysis::Rule>& rules;
  const std::vector<DocumentSnapshot>& docs;
  const AnalyzerOptions& options;
  std::vector<int> taken;
  std::vector<std::vector<DiagnosticItem>> per_doc;
  // Lines marked and left unmarked, per document, rule and role (kMaxMarkedLinesPerRule).
  struct Marked {
    std::size_t kept = 0, more = 0, last = 0;  // last: index into per_doc of the last kept
  };
  std::map<std::tuple<std::size_t, std::size_t, Role>, Marked> marked;

  // `message` is only built for an event that gets an item.
  template <class Message>
  void add(std::size_t ev, Severity sev, Role role, int diag, Message&& message) {
    if (ev >= a.events.size() || taken[ev]) return;
    taken[ev] = 1;
    const auto& e = a.events[ev];
    if (role != Role::kInitiating && role != Role::kAlternative) {
      Marked& m = marked[{e.file, e.rule, role}];
      if (m.kept == kMaxMarkedLinesPerRule) {
        ++m.more;
        return;
      }
      ++m.kept;
      m.last = per_doc[e.file].size();
    }
    per_doc[e.file].push_back(item(ev, sev, role, diag, message()));
  }

  DiagnosticItem item(std::size_t ev, Severity sev, Role role, int diag, std::string msg) const;
  void add_diagnoses();
  void add_findings_and_context();
  void note_unmarked();
  void relate_collateral();
};

DiagnosticItem DiagnosticBuilder::item(std::size_t ev, Severity sev, Role role, int diag,
                                       std::string msg) const {
  const auto& e = a.events[ev];
  const auto& rule = rules[e.rule];
  DiagnosticItem d;
  d.range = event_range(e, docs[e.file].text.view(), options.encoding);
  d.severity = sev;
  d.rule_id = rule.id;
  d.title = rule.title;
  if (diag >= 0 && (role == Role::kInitiating || role == Role::kAlternative) &&
      !a.diagnoses[static_cast<std::size_t>(diag)].headline.empty())
    d.title = a.diagnoses[static_cast<std::size_t>(diag)].headline;
  d.category = rule.category;
  d.message = std::move(msg);
  d.href = options.docs_base.empty() ? report::catalog_anchor(rule.id)
                                     : options.docs_base + "/catalog.md#" + rule.id;
  // Only values that can be set as they are; a rule's placeholder ("<routable interface>")
  // is named in env_missing instead, for a client to ask for.
  for (const auto& [k, v] : rule.fix.env)
    if (fix::is_placeholder(v))
      d.env_missing.push_back(k);
    else
      d.env.emplace_back(k, v);
  if (diag >= 0 && (role == Role::kInitiating || role == Role::kAlternative)) {
    const auto& v = a.diagnoses[static_cast<std::size_t>(diag)].verdict;
    d.verdict = VerdictItem{analysis::fault_domain_name(v.fault),
                            analysis::restart_outlook_name(v.restart),
                            analysis::node_action_name(v.node),
                            v.host,
                            v.gpu,
                            v.resolution,
                            analysis::verdict_summary(v)};
  }
  d.role = role;
  d.diagnosis = diag;
  d.event = ev;
  d.rank = e.source.rank;
  d.host = e.source.host;
  if (diag >= 0) d.confidence = a.diagnoses[static_cast<std::size_t>(diag)].confidence;
  return d;
}

// The root cause with its collateral and evidence, then the less likely causes.
void DiagnosticBuilder::add_diagnoses() {
  for (std::size_t k = 0; k < a.diagnoses.size(); ++k) {
    const auto& dg = a.diagnoses[k];
    const auto& e = a.events[dg.initiating];
    const auto& rule = rules[dg.rule];
    std::string who = rank_text(e);
    if (k == 0) {
      add(dg.initiating, Severity::kError, Role::kInitiating, 0, [&] {
        return "Root cause" + (who.empty() ? "" : " (" + who + ")") + ": " +
               (dg.headline.empty() ? rule.title : dg.headline) + " [" + dg.category + ", " +
               percent(dg.confidence) + "]. " + dg.reasoning;
      });
      for (std::size_t c : dg.collateral)
        add(c, Severity::kInformation, Role::kCollateral, 0, [&] {
          return "Consequence of the root cause at " + basename_of(docs[e.file].uri) + ":" +
                 std::to_string(e.line + 1) + ": " + rules[a.events[c].rule].title;
        });
      for (std::size_t c : dg.evidence)
        add(c, Severity::kInformation, Role::kEvidence, 0,
            [&] { return "Evidence for " + dg.category + ": " + rules[a.events[c].rule].title; });
    } else {
      add(dg.initiating, Severity::kWarning, Role::kAlternative, static_cast<int>(k),
          [&] { return "Less likely cause (" + percent(dg.confidence) + "): " + rule.title; });
    }
  }
}

// Observations that explain no failure here: worth a warning, never the root cause.
void DiagnosticBuilder::add_findings_and_context() {
  for (std::size_t c : a.findings)
    add(c, Severity::kWarning, Role::kFinding, -1,
        [&] { return "Finding (not a failure by itself): " + rules[a.events[c].rule].title; });
  for (std::size_t c : a.context)
    add(c, Severity::kHint, Role::kContext, -1,
        [&] { return "Context: " + rules[a.events[c].rule].title; });
}

// The last line a rule marked says how many more lines like it were left unmarked.
void DiagnosticBuilder::note_unmarked() {
  static_assert(kMaxMarkedLinesPerRule <= analysis::kContextEventsKept,
                "the context lines marked are among the events kept");
  // Context lines past a rule's first ones in a log were counted, not built: they are
  // lines like these too.
  for (const auto& c : a.counted)
    if (auto it = marked.find({c.file, c.rule, Role::kContext}); it != marked.end())
      it->second.more += c.count;
  for (const auto& [key, m] : marked)
    if (m.more > 0)
      per_doc[std::get<0>(key)][m.last].message += " (and " + std::to_string(m.more) +
                                                   " more line" + (m.more == 1 ? "" : "s") +
                                                   " like this in this log, not marked)";
}

// Related information: the root cause lists its collateral, each collateral points back.
void DiagnosticBuilder::relate_collateral() {
  if (a.diagnoses.empty()) return;
  const auto& dg = a.diagnoses[0];
  const auto& root = a.events[dg.initiating];
  Range root_range = event_range(root, docs[root.file].text.view(), options.encoding);
  DiagnosticItem* root_item = nullptr;
  for (auto& d : per_doc[root.file])
    if (d.event == dg.initiating) root_item = &d;
  for (std::size_t f = 0; f < per_doc.size(); ++f) {
    for (auto& d : per_doc[f]) {
      if (d.role != Role::kCollateral) continue;
      const auto& e = a.events[d.event];
      d.related.push_back({docs[root.file].uri, root_range, "root cause: " + rules[dg.rule].title});
      if (root_item && root_item->related.size() < 32)
        root_item->related.push_back({docs[e.file].uri, d.range,
                                      "collateral" +
                                          (rank_text(e).empty() ? "" : " (" + rank_text(e) + ")") +
                                          ": " + rules[e.rule].title});
    }
  }
}

}  // namespace

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

  DiagnosticBuilder diags(out, catalog_.rules(), options);
  diags.add_diagnoses();
  diags.add_findings_and_context();
  diags.note_unmarked();
  diags.relate_collateral();
  for (std::size_t f = 0; f < diags.per_doc.size(); ++f) {
    std::sort(diags.per_doc[f].begin(), diags.per_doc[f].end(),
              [](const DiagnosticItem& x, const DiagnosticItem& y) {
                return x.range.start.line < y.range.start.line;
              });
    out.items[out.docs[f].uri] = std::move(diags.per_doc[f]);
  }
  out.items_ms = ms_since(clock);
  return out;
}

// ---------------------------------------------------------------------------------------
// Documents

void FeatureServer::open(const std::string& uri, const std::string& language_id,
                         std::int64_t version, std::string text) {
  Document d;
  d.language_id = language_id;
  d.version = version;
  // The string is adopted as the buffer, spare capacity and all: no copy of the text.
  d.buffer = std::make_shared<TextBuffer>(std::move(text));
  d.text = Text(d.buffer, d.buffer->size());
  docs_[uri] = std::move(d);
  published_.erase(uri);
}

const LineIndex& FeatureServer::index_of(const Document& d) {
  if (!d.indexed) {
    d.index.reset(d.text.view());
    d.indexed = true;
  }
  return d.index;
}

void FeatureServer::index_documents() {
  for (const auto& [uri, d] : docs_) index_of(d);
}

void FeatureServer::append(Document& d, std::string_view more) {
  std::size_t size = d.text.size();
  // In place when the buffer ends where this document does (it always does: a document is
  // its buffer's only writer) and has room; snapshots taken before keep their length.
  if (d.buffer->size() != size || !d.buffer->append(more)) {
    std::string grown;
    grown.reserve(text_capacity_for(size + more.size()));
    grown.append(d.text.view()).append(more);
    d.buffer = std::make_shared<TextBuffer>(std::move(grown));
  }
  d.text = Text(d.buffer, size + more.size());
  if (d.indexed) d.index.extend(d.text.view());
}

void FeatureServer::replace(Document& d, std::size_t b, std::size_t e, std::string_view with) {
  // Not an append: a new buffer, so that no snapshot's bytes change.
  std::string_view old = d.text.view();
  std::string text;
  text.reserve(text_capacity_for(old.size() - (e - b) + with.size()));
  text.append(old.substr(0, b)).append(with).append(old.substr(e));
  d.buffer = std::make_shared<TextBuffer>(std::move(text));
  d.text = Text(d.buffer, d.buffer->size());
  d.indexed = false;  // indexed again when next needed
}

bool FeatureServer::change(const std::string& uri, std::int64_t version,
                           const std::vector<ContentChange>& changes) {
  auto it = docs_.find(uri);
  if (it == docs_.end() || version < it->second.version) return false;
  Document& d = it->second;
  for (const auto& c : changes) {
    if (!c.range) {
      replace(d, 0, d.text.size(), c.text);
      continue;
    }
    std::string_view text = d.text.view();
    const LineIndex& index = index_of(d);
    std::size_t b = index.offset(text, c.range->start, encoding_);
    std::size_t e = index.offset(text, c.range->end, encoding_);
    if (e < b) std::swap(b, e);
    if (b == text.size())
      append(d, c.text);
    else
      replace(d, b, e, c.text);
  }
  d.version = version;
  return true;
}

bool FeatureServer::append_text(const std::string& uri, std::int64_t version,
                                std::string_view more) {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return false;
  append(it->second, more);
  it->second.version = version;
  return true;
}

bool FeatureServer::close(const std::string& uri) {
  published_.erase(uri);
  return docs_.erase(uri) > 0;
}

bool FeatureServer::is_log(const std::string& uri) const {
  auto it = docs_.find(uri);
  return it != docs_.end() && looks_like_log(uri, it->second.language_id);
}

std::optional<std::int64_t> FeatureServer::version(const std::string& uri) const {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return it->second.version;
}

std::optional<std::string> FeatureServer::text(const std::string& uri) const {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return std::string(it->second.text.view());
}

std::vector<DocumentSnapshot> FeatureServer::log_snapshot() const {
  std::vector<DocumentSnapshot> out;
  for (const auto& [uri, d] : docs_)
    if (looks_like_log(uri, d.language_id)) out.push_back({uri, d.version, d.text});
  return out;
}

std::string job_of(const std::string& uri) {
  if (uri.rfind("file:", 0) != 0) return uri;
  return uri.substr(0, uri.rfind('/') + 1);
}

std::vector<std::vector<DocumentSnapshot>> FeatureServer::changed_jobs() const {
  std::map<std::string, std::vector<DocumentSnapshot>> jobs;
  for (const auto& [uri, d] : docs_)
    if (looks_like_log(uri, d.language_id)) jobs[job_of(uri)].push_back({uri, d.version, d.text});
  // Current: every member's latest version is published, by one run of exactly these members
  // (a log that joined or left the job changes what the others say).
  auto current = [&](const std::vector<DocumentSnapshot>& job) {
    for (const auto& snap : job) {
      auto p = published_.find(snap.uri);
      if (p == published_.end() || !p->second.run || p->second.version != snap.version ||
          p->second.run->docs.size() != job.size())
        return false;
      for (std::size_t i = 0; i < job.size(); ++i)
        if (p->second.run->docs[i].uri != job[i].uri) return false;
    }
    return true;
  };
  std::vector<std::vector<DocumentSnapshot>> out;
  for (auto& [key, job] : jobs)
    if (!current(job)) out.push_back(std::move(job));
  return out;
}

std::set<std::string> FeatureServer::log_uris() const {
  std::set<std::string> out;
  for (const auto& [uri, d] : docs_)
    if (looks_like_log(uri, d.language_id)) out.insert(uri);
  return out;
}

std::vector<DocumentSnapshot> FeatureServer::source_snapshot() const {
  std::vector<DocumentSnapshot> out;
  for (const auto& [uri, d] : docs_)
    if (!looks_like_log(uri, d.language_id)) out.push_back({uri, d.version, d.text});
  return out;
}

std::optional<DocumentSnapshot> FeatureServer::snapshot(const std::string& uri) const {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return DocumentSnapshot{uri, it->second.version, it->second.text};
}

std::shared_ptr<const AnalysisRun> FeatureServer::published_run(const std::string& uri) const {
  auto p = published_.find(uri);
  return p == published_.end() ? nullptr : p->second.run;
}

std::vector<FeatureServer::Publication> FeatureServer::accept(
    std::shared_ptr<const AnalysisRun> run) {
  std::vector<Publication> out;
  for (const auto& snap : run->docs) {
    auto it = docs_.find(snap.uri);
    if (it == docs_.end() || it->second.version != snap.version || !(it->second.text == snap.text))
      continue;  // stale: a newer analysis is scheduled
    Published& p = published_[snap.uri];
    if (p.run && p.version > snap.version) continue;
    auto items = run->items.find(snap.uri);
    std::vector<DiagnosticItem> now =
        items == run->items.end() ? std::vector<DiagnosticItem>{} : items->second;
    // A version is published once: again only when another log changed what it says
    // (correlation across files), never the same diagnostics a second time.
    bool same = p.run && p.version == snap.version && [&] {
      auto before = p.run->items.find(snap.uri);
      return before == p.run->items.end() ? now.empty() : before->second == now;
    }();
    p.version = snap.version;
    p.run = run;
    if (same) continue;
    out.push_back({snap.uri, snap.version, std::move(now)});
  }
  return out;
}

bool FeatureServer::up_to_date(const std::string& uri) const {
  auto it = docs_.find(uri);
  if (it == docs_.end() || !looks_like_log(uri, it->second.language_id)) return true;
  auto p = published_.find(uri);
  return p != published_.end() && p->second.run && p->second.version == it->second.version;
}

std::vector<DiagnosticItem> FeatureServer::diagnostics(const std::string& uri) const {
  auto p = published_.find(uri);
  if (p == published_.end() || !p->second.run) return {};
  auto it = p->second.run->items.find(uri);
  return it == p->second.run->items.end() ? std::vector<DiagnosticItem>{} : it->second;
}

const DiagnosticItem* FeatureServer::item_on_line(const std::string& uri,
                                                  std::uint32_t line) const {
  auto p = published_.find(uri);
  if (p == published_.end() || !p->second.run) return nullptr;
  auto it = p->second.run->items.find(uri);
  if (it == p->second.run->items.end()) return nullptr;
  for (const auto& d : it->second)
    if (d.range.start.line == line) return &d;
  return nullptr;
}

// ---------------------------------------------------------------------------------------
// Hover

std::string FeatureServer::rule_markdown(const analysis::Rule& rule, const AnalysisRun* run,
                                         const DiagnosticItem* item) const {
  std::ostringstream md;
  md << "### " << rule.title << "\n\n`" << rule.id << "` · category `" << rule.category << "`";
  if (item) md << " · " << role_name(item->role);
  md << "\n\n" << rule.indicates << "\n";
  if (!rule.checks.empty()) {
    std::size_t r = static_cast<std::size_t>(&rule - catalog_.rules().data());
    md << "\n**Checks**\n\n";
    for (std::size_t k = 0; k < rule.checks.size(); ++k) {
      bool seen = run && r < run->checks_seen.size() && k < run->checks_seen[r].size() &&
                  run->checks_seen[r][k];
      md << "- [" << (seen ? "x" : " ") << "] " << rule.checks[k].text
         << (seen ? " *(the log shows this)*" : "") << "\n";
    }
  }
  if (!rule.fix.summary.empty() || !rule.fix.env.empty()) {
    md << "\n**Fix**: " << rule.fix.summary << "\n";
    if (!rule.fix.env.empty()) {
      md << "\n```sh\n";
      for (const auto& [k, v] : rule.fix.env) md << "export " << k << "=" << v << "\n";
      md << "```\n";
    }
    for (const auto& s : rule.fix.steps) md << "- " << s << "\n";
  }
  if (!rule.verify.command.empty()) {
    md << "\n**Verify**\n\n```sh\n" << rule.verify.command << "\n```\n";
    if (!rule.verify.expect.empty()) md << "Expect: " << rule.verify.expect << "\n";
  }
  std::string link =
      docs_base_.empty() ? report::catalog_anchor(rule.id) : docs_base_ + "/catalog.md#" + rule.id;
  md << "\n[Catalog entry](" << link << ")\n";
  return md.str();
}

std::optional<Hover> FeatureServer::hover(const std::string& uri, Position pos) const {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  const Document& d = it->second;
  std::string_view text = d.text.view();
  const LineIndex& index = index_of(d);
  if (pos.line >= index.lines()) return std::nullopt;
  std::string_view line = index.line(text, pos.line);
  std::size_t at = column_to_byte(line, pos.character, encoding_);
  // An NCCL / PyTorch variable name under the cursor, in any document.
  std::size_t b = at, e = at;
  while (b > 0 && is_var_char(line[b - 1])) --b;
  while (e < line.size() && is_var_char(line[e])) ++e;
  if (e > b) {
    std::string word(line.substr(b, e - b));
    if (word.rfind("NCCL_", 0) == 0 || word.rfind("TORCH_NCCL_", 0) == 0) {
      Range r{{pos.line, byte_to_column(line, b, encoding_)},
              {pos.line, byte_to_column(line, e, encoding_)}};
      std::ostringstream md;
      if (const rules::EnvVarDoc* v = rules::find_env_var(word)) {
        md << "### `" << v->name << "`\n\n*" << v->owner << "* · default: " << v->deflt << "\n\n"
           << v->meaning << "\n\n**Syntax**: " << v->syntax << "\n";
      } else {
        md << "### `" << word << "`\n\n"
           << (word.rfind("TORCH_", 0) == 0 ? "A PyTorch c10d" : "An NCCL")
           << " variable that firstfault has no notes on.\n";
      }
      return Hover{md.str(), r};
    }
  }
  if (!looks_like_log(uri, d.language_id)) return std::nullopt;
  const DiagnosticItem* item = item_on_line(uri, pos.line);
  if (!item) return std::nullopt;
  const analysis::Rule* rule = catalog_.find(item->rule_id);
  if (!rule) return std::nullopt;
  auto p = published_.find(uri);
  std::string md = rule_markdown(*rule, p->second.run.get(), item);
  if (item->role == Role::kInitiating && p->second.run &&
      !p->second.run->analysis.diagnoses.empty())
    md = "**" + item->message + "**\n\n" + md;
  return Hover{md, item->range};
}

// ---------------------------------------------------------------------------------------
// Code actions, lenses, reports

namespace {

// What the diagnosis knows to fill a verification command's placeholders with.
fix::VerifyFacts verify_facts(const AnalysisRun& run, std::size_t event) {
  fix::VerifyFacts f;
  const auto& a = run.analysis;
  if (event >= a.events.size()) return f;
  const analysis::Event& e = a.events[event];
  f.gpu = e.source.device;
  f.pid = e.source.pid;
  f.rank = e.source.rank;
  f.host = e.source.host;
  f.peer = std::string(e.capture("peer"));
  if (e.file < run.docs.size()) f.log = uri_to_path(run.docs[e.file].uri);
  for (const auto& d : run.docs) f.logs.push_back(uri_to_path(d.uri));
  return f;
}

// The command that runs a filled verification, or, with a placeholder left, the one that
// lets the user complete it first (never sent to a terminal as it is).
CommandItem verification_command(const fix::FilledCommand& filled, const std::string& title) {
  if (filled.runnable()) return {title, "firstfault.runVerification", {filled.text}};
  return {title, "firstfault.editVerification", {filled.text}};
}

}  // namespace

const AnalysisRun* FeatureServer::items_in(const std::string& uri, Range range,
                                           std::vector<const DiagnosticItem*>& out) const {
  auto p = published_.find(uri);
  if (p == published_.end() || !p->second.run) return nullptr;
  auto items = p->second.run->items.find(uri);
  if (items != p->second.run->items.end())
    for (const auto& d : items->second)
      if (d.range.start.line >= range.start.line && d.range.start.line <= range.end.line)
        out.push_back(&d);
  return p->second.run.get();
}

std::vector<CodeActionItem> FeatureServer::code_actions(const std::string& uri, Range range) const {
  std::vector<CodeActionItem> out;
  std::vector<const DiagnosticItem*> in_range;
  const AnalysisRun* run = items_in(uri, range, in_range);
  for (const DiagnosticItem* item : in_range) {
    const DiagnosticItem& d = *item;
    if (d.role != Role::kInitiating) continue;
    const analysis::Rule* rule = catalog_.find(d.rule_id);
    if (!rule || rule->verify.command.empty()) continue;
    auto filled = fix::fill_verify_command(rule->verify.command, verify_facts(*run, d.event));
    CodeActionItem a;
    a.title = (filled.runnable() ? "firstfault: run verification ("
                                 : "firstfault: complete and run the verification (") +
              filled.text + ")";
    a.kind = "quickfix";
    a.diagnostics.push_back(d);
    a.command = verification_command(filled, a.title);
    out.push_back(std::move(a));
  }
  return out;
}

FixQuery FeatureServer::fix_query(const std::string& uri, Range range) const {
  FixQuery q;
  q.uri = uri;
  std::vector<const DiagnosticItem*> in_range;
  const AnalysisRun* run = items_in(uri, range, in_range);
  for (const DiagnosticItem* item : in_range) {
    const DiagnosticItem& d = *item;
    // Every fix at once goes on the root cause's line, or, when the analysis names no root
    // cause (an unexplained failure, a latent misconfiguration), on the first marked line.
    if (!q.fix_all_on && (d.role == Role::kInitiating || run->analysis.diagnoses.empty()))
      q.fix_all_on = d;
    if (d.role == Role::kContext) continue;
    const analysis::Rule* rule = catalog_.find(d.rule_id);
    if (!rule) continue;
    if (rule->fix.env.empty() && !fix::wants_binding(*rule) && !fix::wants_shm(*rule)) continue;
    bool seen = std::any_of(q.items.begin(), q.items.end(),
                            [&](const DiagnosticItem& o) { return o.rule_id == d.rule_id; });
    if (!seen) q.items.push_back(d);  // one set of fixes per rule, on its first line
  }
  return q;
}

std::vector<LensItem> FeatureServer::code_lenses(const std::string& uri) const {
  std::vector<LensItem> out;
  auto p = published_.find(uri);
  if (p == published_.end() || !p->second.run) return out;
  const auto& a = p->second.run->analysis;
  auto items = p->second.run->items.find(uri);
  if (items == p->second.run->items.end()) return out;
  for (const auto& d : items->second) {
    if (d.role != Role::kInitiating || a.diagnoses.empty()) continue;
    const auto& dg = a.diagnoses[0];
    const auto& rule = catalog_.rules()[dg.rule];
    std::string who = rank_text(a.events[dg.initiating]);
    std::string title = "firstfault: root cause " + dg.category +
                        (who.empty() ? "" : " on " + who) + " · " +
                        std::to_string(dg.collateral.size()) + " collateral";
    LensItem lens;
    lens.range = {{d.range.start.line, 0}, {d.range.start.line, 0}};
    if (!rule.verify.command.empty()) {
      auto filled =
          fix::fill_verify_command(rule.verify.command, verify_facts(*p->second.run, d.event));
      lens.command = verification_command(
          filled,
          title + (filled.runnable() ? " · run verification" : " · verify (complete the command)"));
    } else
      lens.command = {title, "firstfault.report", {uri}};
    out.push_back(std::move(lens));
  }
  return out;
}

std::optional<std::string> FeatureServer::report_markdown(const std::string& uri) const {
  auto p = published_.find(uri);
  if (p == published_.end() || !p->second.run) return std::nullopt;
  const AnalysisRun& run = *p->second.run;
  const auto& a = run.analysis;
  std::ostringstream md;
  md << "# firstfault report: " << basename_of(uri) << "\n\n";
  if (run.docs.size() > 1) {
    md << "Correlated with " << run.docs.size() - 1 << " other open log(s):";
    for (const auto& d : run.docs)
      if (d.uri != uri) md << " `" << basename_of(d.uri) << "`";
    md << "\n\n";
  }
  if (a.diagnoses.empty()) {
    md << "No failure found.\n";
    return md.str();
  }
  const auto& dg = a.diagnoses[0];
  const auto& e = a.events[dg.initiating];
  const auto& rule = catalog_.rules()[dg.rule];
  md << "## Root cause: " << rule.title << "\n\n- category: `" << dg.category
     << "`\n- confidence: " << percent(dg.confidence) << "\n- initiating line: `"
     << basename_of(run.docs[e.file].uri) << ":" << e.line + 1 << "`"
     << (rank_text(e).empty() ? "" : " (" + rank_text(e) + ")")
     << "\n- collateral lines: " << dg.collateral.size() << "\n\n> " << e.text.substr(0, 400)
     << "\n\n## Verdict\n\n- fault: `" << analysis::fault_domain_name(dg.verdict.fault)
     << "`\n- restart unchanged: `" << analysis::restart_outlook_name(dg.verdict.restart)
     << "`\n- node action: `" << analysis::node_action_name(dg.verdict.node) << "`"
     << (dg.verdict.host.empty() ? "" : " on `" + dg.verdict.host + "`")
     << (dg.verdict.gpu.empty() ? "" : " (GPU `" + dg.verdict.gpu + "`)") << "\n\n"
     << analysis::verdict_summary(dg.verdict) << ": " << dg.verdict.reason << ".\n\n"
     << rule_markdown(rule, &run, nullptr);
  if (a.diagnoses.size() > 1) {
    md << "\n## Other hypotheses\n\n";
    for (std::size_t k = 1; k < a.diagnoses.size(); ++k)
      md << "- " << catalog_.rules()[a.diagnoses[k].rule].title << " (`" << a.diagnoses[k].category
         << "`, " << percent(a.diagnoses[k].confidence) << ")\n";
  }
  return md.str();
}

std::string FeatureServer::standalone_report(const std::string& uri,
                                             const analysis::Analysis& a) const {
  report::TextOptions to;
  return "# firstfault report: " + basename_of(uri) + "\n\n```\n" +
         report::to_text(catalog_, a, to) + "```\n";
}

analysis::Analysis FeatureServer::diagnose_text(std::string_view text,
                                                const analysis::JobOutcome& outcome) const {
  analysis::LogInput in{"<selection>", text};
  return analysis::analyze(catalog_, std::span<const analysis::LogInput>(&in, 1), outcome);
}

}  // namespace ff::lsp
