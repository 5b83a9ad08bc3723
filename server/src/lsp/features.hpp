// The features of the language server as plain C++: no JSON and no threads (AnalysisServer
// calls FeatureServer on the main loop, and runs the Analyzer on the analysis thread).
// FeatureServer is a thin composition of parts that each stand alone:
//   - draft_store.hpp: the documents, their texts, versions, line indexes and snapshots;
//   - publications.hpp: jobs (a folder's logs) and the run last published for each log;
//   - analyzer.hpp with diagnostics.hpp: the analysis of a job and its marked lines;
//   - hover.hpp, verification_actions.hpp, fix_query.hpp, code_lenses.hpp: the features, free
//     functions of a published run (and a document's line for the hover);
//   - report/markdown_report.hpp: the reports and the rule sections, as Markdown.
// It holds the settings they share (position encoding, where the docs are) and keeps the
// documents and publications consistent (a document opened again or closed has nothing
// published).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/diagnosis.hpp"
#include "analysis/outcome.hpp"
#include "lsp/analysis_run.hpp"
#include "lsp/analyzer.hpp"
#include "lsp/code_action_item.hpp"
#include "lsp/code_lenses.hpp"
#include "lsp/draft_store.hpp"
#include "lsp/fix_query.hpp"
#include "lsp/hover.hpp"
#include "lsp/log_files.hpp"
#include "lsp/publications.hpp"
#include "lsp/uri.hpp"

namespace ff::lsp {

class FeatureServer {
 public:
  explicit FeatureServer(const analysis::Catalog& catalog) : catalog_(catalog) {}

  const analysis::Catalog& catalog() const { return catalog_; }
  void set_encoding(Encoding e) { encoding_ = e; }
  Encoding encoding() const { return encoding_; }
  void set_docs_base(std::string base) { docs_base_ = std::move(base); }
  const std::string& docs_base() const { return docs_base_; }
  AnalyzerOptions analyzer_options() const { return {encoding_, docs_base_}; }

  // Documents (DraftStore's calls, with what was published for them kept consistent).
  void open(const std::string& uri, const std::string& language_id, std::int64_t version,
            std::string text);
  bool change(const std::string& uri, std::int64_t version,
              const std::vector<ContentChange>& changes) {
    return drafts_.change(uri, version, changes, encoding_);
  }
  bool append_text(const std::string& uri, std::int64_t version, std::string_view more) {
    return drafts_.append(uri, version, more);
  }
  bool close(const std::string& uri);
  const DraftStore& drafts() const { return drafts_; }

  // Analyses and what was published (Publications' calls over these documents).
  std::vector<std::vector<DocumentSnapshot>> changed_jobs() const {
    return publications_.changed_jobs(drafts_);
  }
  std::vector<Publication> accept(std::shared_ptr<const AnalysisRun> run) {
    return publications_.accept(std::move(run), drafts_);
  }
  bool up_to_date(const std::string& uri) const { return publications_.up_to_date(uri, drafts_); }
  std::shared_ptr<const AnalysisRun> published_run(const std::string& uri) const {
    return publications_.run(uri);
  }
  std::vector<DiagnosticItem> diagnostics(const std::string& uri) const {
    return publications_.items(uri);
  }

  // The features of a document's published run.
  std::optional<Hover> hover(const std::string& uri, Position pos) const;
  // The actions that need no planning (verification commands); the fixes are asked for
  // with fix_query() and planned on a worker.
  std::vector<CodeActionItem> code_actions(const std::string& uri, Range range) const;
  FixQuery fix_query(const std::string& uri, Range range) const;
  std::vector<LensItem> code_lenses(const std::string& uri) const;
  // The report of a document's published analysis; none when it has none.
  std::optional<std::string> report_markdown(const std::string& uri) const;

  // Any thread (they read only the catalog): the report of a document analysed alone, and a
  // full analysis of a text. `outcome`: how the job whose output this is ended, when the
  // client knows (a terminal's exit code, "Diagnose as a hung job").
  std::string standalone_report(const std::string& uri, const analysis::Analysis& a) const;
  analysis::Analysis diagnose_text(std::string_view text,
                                   const analysis::JobOutcome& outcome = {}) const;

 private:
  const analysis::Catalog& catalog_;
  Encoding encoding_ = Encoding::kUtf16;
  std::string docs_base_;
  DraftStore drafts_;
  Publications publications_;
};

}  // namespace ff::lsp
