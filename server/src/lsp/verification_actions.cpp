#include "lsp/verification_actions.hpp"

#include "fix/verify_command.hpp"
#include "lsp/uri.hpp"

namespace ff::lsp {

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

fix::FilledCommand filled(const analysis::Rule& rule, const AnalysisRun& run, std::size_t event) {
  return fix::fill_verify_command(rule.verify.command, verify_facts(run, event));
}

}  // namespace

CommandItem verification_command(const analysis::Rule& rule, const AnalysisRun& run,
                                 std::size_t event, const std::string& title) {
  auto f = filled(rule, run, event);
  if (f.runnable()) return {title, "firstfault.runVerification", {f.text}};
  return {title, "firstfault.editVerification", {f.text}};
}

bool verification_runnable(const analysis::Rule& rule, const AnalysisRun& run, std::size_t event) {
  return filled(rule, run, event).runnable();
}

std::vector<CodeActionItem> verification_actions(const analysis::Catalog& catalog,
                                                 const AnalysisRun& run, const std::string& uri,
                                                 Range range) {
  std::vector<CodeActionItem> out;
  for (const DiagnosticItem* item : items_on_lines(run, uri, range)) {
    const DiagnosticItem& d = *item;
    if (d.role != Role::kInitiating) continue;
    const analysis::Rule* rule = catalog.find(d.rule_id);
    if (!rule || rule->verify.command.empty()) continue;
    auto f = filled(*rule, run, d.event);
    CodeActionItem a;
    a.title = (f.runnable() ? "firstfault: run verification ("
                            : "firstfault: complete and run the verification (") +
              f.text + ")";
    a.kind = "quickfix";
    a.diagnostics.push_back(d);
    a.command = verification_command(*rule, run, d.event, a.title);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace ff::lsp
