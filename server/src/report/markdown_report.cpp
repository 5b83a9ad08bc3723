#include "report/markdown_report.hpp"

#include <sstream>

#include "analysis/verdict.hpp"
#include "report/report.hpp"

namespace ff::report {

std::string catalog_link(const std::string& docs_base, const std::string& rule_id) {
  return docs_base.empty() ? catalog_anchor(rule_id) : docs_base + "/catalog.md#" + rule_id;
}

std::string who_printed(const analysis::Event& e) {
  if (e.source.rank) return "rank " + std::to_string(*e.source.rank);
  if (!e.source.host.empty()) return "host " + e.source.host;
  return {};
}

namespace {

void checks_markdown(std::ostringstream& md, const analysis::Rule& rule, std::size_t r,
                     const ChecksSeen* checks_seen) {
  md << "\n**Checks**\n\n";
  for (std::size_t k = 0; k < rule.checks.size(); ++k) {
    bool seen = checks_seen && r < checks_seen->size() && k < (*checks_seen)[r].size() &&
                (*checks_seen)[r][k];
    md << "- [" << (seen ? "x" : " ") << "] " << rule.checks[k].text
       << (seen ? " *(the log shows this)*" : "") << "\n";
  }
}

void fix_markdown(std::ostringstream& md, const analysis::Rule& rule) {
  md << "\n**Fix**: " << rule.fix.summary << "\n";
  if (!rule.fix.env.empty()) {
    md << "\n```sh\n";
    for (const auto& [k, v] : rule.fix.env) md << "export " << k << "=" << v << "\n";
    md << "```\n";
  }
  for (const auto& s : rule.fix.steps) md << "- " << s << "\n";
}

}  // namespace

std::string rule_markdown(const analysis::Catalog& catalog, std::size_t r,
                          const ChecksSeen* checks_seen, std::string_view role,
                          const std::string& docs_base) {
  const analysis::Rule& rule = catalog.rules()[r];
  std::ostringstream md;
  md << "### " << rule.title << "\n\n`" << rule.id << "` · category `" << rule.category << "`";
  if (!role.empty()) md << " · " << role;
  md << "\n\n" << rule.indicates << "\n";
  if (!rule.checks.empty()) checks_markdown(md, rule, r, checks_seen);
  if (!rule.fix.summary.empty() || !rule.fix.env.empty()) fix_markdown(md, rule);
  if (!rule.verify.command.empty()) {
    md << "\n**Verify**\n\n```sh\n" << rule.verify.command << "\n```\n";
    if (!rule.verify.expect.empty()) md << "Expect: " << rule.verify.expect << "\n";
  }
  md << "\n[Catalog entry](" << catalog_link(docs_base, rule.id) << ")\n";
  return md.str();
}

namespace {

void root_cause_markdown(std::ostringstream& md, const analysis::Catalog& catalog,
                         const JobReport& job) {
  const auto& a = job.analysis;
  const auto& dg = a.diagnoses[0];
  const auto& e = a.events[dg.initiating];
  const auto& rule = catalog.rules()[dg.rule];
  std::string who = who_printed(e);
  const analysis::KnownBug* bug = analysis::known_bug_of(catalog.rules(), dg);
  md << "## Root cause: " << (bug ? dg.headline : rule.title) << "\n\n- category: `" << dg.category
     << "`\n- confidence: " << percent(dg.confidence) << "\n- initiating line: `"
     << (e.file < job.file_names.size() ? job.file_names[e.file] : std::string()) << ":"
     << e.line + 1 << "`" << (who.empty() ? "" : " (" + who + ")")
     << "\n- collateral lines: " << dg.collateral.size() << "\n\n> " << e.text.substr(0, 400)
     << "\n\n## Verdict\n\n- fault: `" << analysis::fault_domain_name(dg.verdict.fault)
     << "`\n- restart unchanged: `" << analysis::restart_outlook_name(dg.verdict.restart)
     << "`\n- node action: `" << analysis::node_action_name(dg.verdict.node) << "`"
     << (dg.verdict.host.empty() ? "" : " on `" + dg.verdict.host + "`")
     << (dg.verdict.gpu.empty() ? "" : " (GPU `" + dg.verdict.gpu + "`)") << "\n\n"
     << analysis::verdict_summary(dg.verdict) << ": " << dg.verdict.reason << ".\n\n";
  if (bug) {
    md << "## Known bug `" << bug->id << "`\n\n"
       << bug->summary << " (" << analysis::known_bug_range(*bug) << ")\n\n**Fix**: " << bug->fix
       << "\n\nSources:\n\n";
    for (const auto& s : bug->sources) md << "- " << s << "\n";
    md << "\n";
  }
  md << rule_markdown(catalog, dg.rule, &job.checks_seen, {}, job.docs_base);
}

}  // namespace

std::string job_report_markdown(const analysis::Catalog& catalog, const JobReport& job) {
  const auto& a = job.analysis;
  std::ostringstream md;
  md << "# firstfault report: "
     << (job.reported_file < job.file_names.size() ? job.file_names[job.reported_file] : "")
     << "\n\n";
  if (job.file_names.size() > 1) {
    md << "Correlated with " << job.file_names.size() - 1 << " other open log(s):";
    for (std::size_t f = 0; f < job.file_names.size(); ++f)
      if (f != job.reported_file) md << " `" << job.file_names[f] << "`";
    md << "\n\n";
  }
  if (a.diagnoses.empty()) {
    md << "No failure found.\n";
    return md.str();
  }
  root_cause_markdown(md, catalog, job);
  if (a.diagnoses.size() > 1) {
    md << "\n## Other hypotheses\n\n";
    for (std::size_t k = 1; k < a.diagnoses.size(); ++k)
      md << "- "
         << (a.diagnoses[k].known_bug ? a.diagnoses[k].headline
                                      : catalog.rules()[a.diagnoses[k].rule].title)
         << " (`" << a.diagnoses[k].category << "`, " << percent(a.diagnoses[k].confidence)
         << ")\n";
  }
  return md.str();
}

std::string text_report_markdown(const analysis::Catalog& catalog, const analysis::Analysis& a,
                                 std::string_view heading, std::string_view text) {
  std::string md = "# ";
  md.append(heading).append("\n\n");
  if (a.diagnoses.empty()) {
    md += "No failure found in the text.\n\n";
  } else {
    const auto& top = a.diagnoses[0];
    md += "**Root cause:** " + (top.known_bug ? top.headline : catalog.rules()[top.rule].title) +
          " (`" + top.category + "`)\n\n";
  }
  // A fence inside the text would end the block: a zero-width space breaks it up.
  md += "```text\n";
  for (std::size_t at = 0;;) {
    std::size_t fence = text.find("```", at);
    md.append(text.substr(at, fence == std::string_view::npos ? fence : fence - at));
    if (fence == std::string_view::npos) break;
    md += "``\u200b`";
    at = fence + 3;
  }
  if (!text.empty() && text.back() != '\n') md += "\n";
  md += "```\n";
  return md;
}

}  // namespace ff::report
