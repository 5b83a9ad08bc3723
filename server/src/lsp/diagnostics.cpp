#include "lsp/diagnostics.hpp"

#include <algorithm>
#include <tuple>

#include "analysis/verdict.hpp"
#include "fix/engine.hpp"
#include "lsp/uri.hpp"
#include "report/markdown_report.hpp"
#include "report/report.hpp"

namespace ff::lsp {

namespace {

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
  d.href = report::catalog_link(options.docs_base, rule.id);
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
    std::string who = report::who_printed(e);
    if (k == 0) {
      add(dg.initiating, Severity::kError, Role::kInitiating, 0, [&] {
        return "Root cause" + (who.empty() ? "" : " (" + who + ")") + ": " +
               (dg.headline.empty() ? rule.title : dg.headline) + " [" + dg.category + ", " +
               report::percent(dg.confidence) + "]. " + dg.reasoning;
      });
      for (std::size_t c : dg.collateral)
        add(c, Severity::kInformation, Role::kCollateral, 0, [&] {
          return "Consequence of the root cause at " + uri_file_name(docs[e.file].uri) + ":" +
                 std::to_string(e.line + 1) + ": " + rules[a.events[c].rule].title;
        });
      for (std::size_t c : dg.evidence)
        add(c, Severity::kInformation, Role::kEvidence, 0,
            [&] { return "Evidence for " + dg.category + ": " + rules[a.events[c].rule].title; });
    } else {
      add(dg.initiating, Severity::kWarning, Role::kAlternative, static_cast<int>(k), [&] {
        return "Less likely cause (" + report::percent(dg.confidence) + "): " + rule.title;
      });
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
        root_item->related.push_back(
            {docs[e.file].uri, d.range,
             "collateral" +
                 (report::who_printed(e).empty() ? "" : " (" + report::who_printed(e) + ")") +
                 ": " + rules[e.rule].title});
    }
  }
}

}  // namespace

std::map<std::string, std::vector<DiagnosticItem>> build_diagnostics(
    const AnalysisRun& run, const std::vector<analysis::Rule>& rules,
    const AnalyzerOptions& options) {
  DiagnosticBuilder diags(run, rules, options);
  diags.add_diagnoses();
  diags.add_findings_and_context();
  diags.note_unmarked();
  diags.relate_collateral();
  std::map<std::string, std::vector<DiagnosticItem>> out;
  for (std::size_t f = 0; f < diags.per_doc.size(); ++f) {
    std::sort(diags.per_doc[f].begin(), diags.per_doc[f].end(),
              [](const DiagnosticItem& x, const DiagnosticItem& y) {
                return x.range.start.line < y.range.start.line;
              });
    out[run.docs[f].uri] = std::move(diags.per_doc[f]);
  }
  return out;
}

}  // namespace ff::lsp
