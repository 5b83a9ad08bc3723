#include "lsp/features.hpp"

#include <span>

#include "analysis/analyze.hpp"
#include "lsp/verification_actions.hpp"
#include "report/markdown_report.hpp"
#include "report/report.hpp"

namespace ff::lsp {

void FeatureServer::open(const std::string& uri, const std::string& language_id,
                         std::int64_t version, std::string text) {
  drafts_.open(uri, language_id, version, std::move(text));
  publications_.forget(uri);
}

bool FeatureServer::close(const std::string& uri) {
  publications_.forget(uri);
  return drafts_.close(uri);
}

std::optional<Hover> FeatureServer::hover(const std::string& uri, Position pos) const {
  auto line = drafts_.line(uri, pos.line);
  if (!line) return std::nullopt;
  // An NCCL / PyTorch variable name under the cursor, in any document.
  if (auto v = variable_hover(*line, pos, encoding_)) return v;
  auto run = drafts_.is_log(uri) ? publications_.run(uri) : nullptr;
  if (!run) return std::nullopt;
  return diagnostic_hover(catalog_, *run, uri, pos.line, docs_base_);
}

std::vector<CodeActionItem> FeatureServer::code_actions(const std::string& uri, Range range) const {
  auto run = publications_.run(uri);
  return run ? verification_actions(catalog_, *run, uri, range) : std::vector<CodeActionItem>{};
}

FixQuery FeatureServer::fix_query(const std::string& uri, Range range) const {
  auto run = publications_.run(uri);
  return run ? lsp::fix_query(catalog_, *run, uri, range) : FixQuery{uri, {}, std::nullopt};
}

std::vector<LensItem> FeatureServer::code_lenses(const std::string& uri) const {
  auto run = publications_.run(uri);
  return run ? lsp::code_lenses(catalog_, *run, uri) : std::vector<LensItem>{};
}

std::optional<std::string> FeatureServer::report_markdown(const std::string& uri) const {
  auto run = publications_.run(uri);
  if (!run) return std::nullopt;
  report::JobReport job{run->analysis, run->checks_seen, {}, 0, docs_base_};
  for (std::size_t f = 0; f < run->docs.size(); ++f) {
    if (run->docs[f].uri == uri) job.reported_file = f;
    job.file_names.push_back(uri_file_name(run->docs[f].uri));
  }
  return report::job_report_markdown(catalog_, job);
}

std::string FeatureServer::standalone_report(const std::string& uri,
                                             const analysis::Analysis& a) const {
  report::TextOptions to;
  return report::text_report_markdown(catalog_, a, "firstfault report: " + uri_file_name(uri),
                                      report::to_text(catalog_, a, to));
}

analysis::Analysis FeatureServer::diagnose_text(std::string_view text,
                                                const analysis::JobOutcome& outcome) const {
  analysis::LogInput in{"<selection>", text};
  return analysis::analyze(catalog_, std::span<const analysis::LogInput>(&in, 1), outcome);
}

}  // namespace ff::lsp
