// Layer 3: the feature API. Documents, analysis results, hovers, code actions and lenses as
// plain C++ structs; no JSON and no threads here (the scheduler decides where each call
// runs: FeatureServer on the protocol thread, Analyzer on the analysis thread).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/diagnosis.hpp"
#include "analysis/scan.hpp"
#include "lsp/document_text.hpp"
#include "lsp/text.hpp"

namespace ff::lsp {

enum class Severity { kError = 1, kWarning = 2, kInformation = 3, kHint = 4 };

// What a marked line is to the analysis: the root cause's initiating line, another
// hypothesis's, a consequence of the root cause, evidence for it, a finding that explains
// no failure here, or context. Sent to the client as role_name() in the diagnostic's data.
enum class Role { kInitiating, kAlternative, kCollateral, kEvidence, kFinding, kContext };
std::string_view role_name(Role r);

struct RelatedInfo {
  std::string uri;
  Range range;
  std::string message;
  friend bool operator==(const RelatedInfo&, const RelatedInfo&) = default;
};

// A diagnosis's verdict (analysis::Verdict) as the editor shows it: on the initiating and
// alternative lines only.
struct VerdictItem {
  std::string fault, restart, node_action, host, gpu, xid_resolution, summary;
  friend bool operator==(const VerdictItem&, const VerdictItem&) = default;
};

struct DiagnosticItem {
  Range range;
  Severity severity = Severity::kHint;
  std::string rule_id;
  std::string title;  // the rule's title (the hypothesis's headline on its initiating line)
  std::string category;
  std::string message;
  std::string href;  // the rule's entry in docs/catalog.md
  std::vector<RelatedInfo> related;
  std::vector<std::pair<std::string, std::string>> env;  // the rule's fix, known values
  std::vector<std::string> env_missing;  // its variables whose value is a placeholder
  Role role = Role::kContext;
  int diagnosis = -1;  // index into Analysis::diagnoses, -1 for findings and context lines
  // Who printed the line (from its prefixes), and how sure the analysis is of the
  // hypothesis the line belongs to (none for findings and context).
  std::optional<int> rank;
  std::string host;
  std::optional<double> confidence;
  std::size_t event = 0;
  std::optional<VerdictItem> verdict;
  friend bool operator==(const DiagnosticItem&, const DiagnosticItem&) = default;
};

// A rule that fires on thousands of lines (a hint on every "NVLS unavailable", a watchdog
// timeout on every rank) marks the first this many of them per document and role, and says
// on the last one how many more there are: the Problems panel stays readable, and an
// analysis publishes in time bounded by this, not by the log (the hover, lens and report
// still count every event).
inline constexpr std::size_t kMaxMarkedLinesPerRule = 100;

struct DocumentSnapshot {
  std::string uri;
  std::int64_t version = 0;
  Text text;  // a prefix of the document's buffer: later appends do not change it
};

// The job a log belongs to: the logs of one directory (file: URIs) are one job (a folder
// of per-rank logs), a document without a folder (untitled:...) is a job of its own. An
// unrelated log open in the workspace is thus never correlated with another job's.
std::string job_of(const std::string& uri);

// One analysis over the logs of one job (job_of).
struct AnalysisRun {
  std::vector<DocumentSnapshot> docs;
  analysis::Analysis analysis;
  std::vector<std::vector<bool>> checks_seen;                // [rule][check]
  std::map<std::string, std::vector<DiagnosticItem>> items;  // per URI
  std::size_t bytes_scanned = 0;  // measured: bytes actually re-scanned by this run
  std::size_t bytes_total = 0;
  // Measured: where the run's time went (for the log), in milliseconds.
  double scan_ms = 0, merge_ms = 0, diagnose_ms = 0, items_ms = 0;
};

struct AnalyzerOptions {
  Encoding encoding = Encoding::kUtf16;
  std::string docs_base;  // "file:///.../docs" when known, else empty (relative links)
};

// Runs analyses, reusing each document's scan when the document only grew: the text is
// re-scanned from the start of its last line (ScanState::truncate + scan_text). That it only
// grew is known from the text's buffer (Text::extends); a text in a new buffer (an edit
// elsewhere) is compared with the old one to find out.
class Analyzer {
 public:
  // Scans [base, end) of a text whose line `first_line` starts at `base`, appending to the
  // state: how the bulk of a document is scanned. The default is analysis::scan_text on the
  // calling thread; the server passes one that uses every core (parallel::scan), which
  // gives the same result.
  using RangeScan =
      std::function<void(const analysis::Catalog&, std::string_view whole, std::size_t base,
                         std::size_t first_line, analysis::ScanState& state, std::size_t end)>;
  explicit Analyzer(const analysis::Catalog& catalog, RangeScan scan = {})
      : catalog_(catalog), scan_(std::move(scan)) {}
  AnalysisRun run(std::vector<DocumentSnapshot> docs, const AnalyzerOptions& options);
  // One job among several (AnalysisServer runs each job that changed). Like run(), except
  // that a single document's events are moved into the result instead of copied (copying
  // 6,000 events was a third of the time to re-diagnose a 1 MB append), and that the scans
  // of documents outside `docs` are kept (other jobs' documents; retain() prunes closed
  // ones). settle(result) gives the events back, on this thread before the next run; the
  // server calls it once the result is on its way to the client. A document whose events
  // were not given back is scanned again in full by the next run.
  AnalysisRun run_lending(std::vector<DocumentSnapshot> docs, const AnalyzerOptions& options);
  void settle(const AnalysisRun& run);
  void forget(const std::string& uri) { cache_.erase(uri); }
  void retain(const std::set<std::string>& uris);

 private:
  // The scan state as it was before the text's last line (which more text may extend) was
  // scanned: an append resumes from here, at a cost of what was appended, however many
  // events are capped or lines come before.
  struct Checkpoint {
    std::size_t offset = 0;  // where the last line starts
    std::size_t line = 0;    // its number
    std::size_t events = 0;
    std::vector<std::size_t> rule_hits;
    std::vector<std::vector<bool>> checks_seen;
  };
  struct Cached {
    Text text;
    analysis::ScanState state;
    Checkpoint tail;
    bool lent = false;  // state.events are in a run's result, until settle()
  };
  AnalysisRun run(std::vector<DocumentSnapshot> docs, const AnalyzerOptions& options, bool lend);
  std::size_t update(Cached& c, const Text& text);
  const analysis::Catalog& catalog_;
  RangeScan scan_;
  std::map<std::string, Cached> cache_;
};

struct ContentChange {
  std::optional<Range> range;  // none: the whole document
  std::string text;
};

struct Hover {
  std::string markdown;
  Range range;
};

struct TextEditItem {
  Range range;
  std::string new_text;
  friend bool operator==(const TextEditItem&, const TextEditItem&) = default;
};

// One document's part of a code action's WorkspaceEdit: a TextDocumentEdit on an open
// document, for the version its edits were computed on (the client refuses it when the
// document moved on), or a file the fix creates (a CreateFile, then its text inserted).
struct DocumentEdit {
  std::string uri;
  std::optional<std::int64_t> version;  // the open document's; none only for a created file
  bool create = false;
  std::vector<TextEditItem> edits;
};

struct CommandItem {
  std::string title;
  std::string command;
  std::vector<std::string> arguments;
};

struct CodeActionItem {
  std::string title;
  std::string kind = "quickfix";
  bool preferred = false;
  std::vector<DiagnosticItem> diagnostics;
  std::vector<DocumentEdit> edits;  // the WorkspaceEdit's documentChanges, in order
  std::optional<CommandItem> command;
};

// What a code action request asks the fix planner for (fix/planner.hpp, run on a worker
// by the AnalysisServer): the log's marked lines in the range whose rules have a fix, and
// the line in the range where every fix of the analysis is offered at once, as `analyze
// --fix` makes them: the root cause's initiating line, or with no root cause the first
// marked line.
struct FixQuery {
  std::string uri;
  std::vector<DiagnosticItem> items;
  std::optional<DiagnosticItem> fix_all_on;
  bool empty() const { return items.empty() && !fix_all_on; }
};

struct LensItem {
  Range range;
  CommandItem command;
};

bool looks_like_log(const std::string& uri, const std::string& language_id);
std::string uri_to_path(const std::string& uri);
std::string path_to_uri(const std::string& path);

class FeatureServer {
 public:
  explicit FeatureServer(const analysis::Catalog& catalog) : catalog_(catalog) {}

  const analysis::Catalog& catalog() const { return catalog_; }
  void set_encoding(Encoding e) { encoding_ = e; }
  Encoding encoding() const { return encoding_; }
  void set_docs_base(std::string base) { docs_base_ = std::move(base); }
  const std::string& docs_base() const { return docs_base_; }

  // Documents. change() returns false (and changes nothing) for an unknown document or a
  // version older than the one held. open() leaves the line index to index_documents() or
  // to the first use, so that the caller can start the analysis of a big document first and
  // index it while the analysis thread scans.
  void open(const std::string& uri, const std::string& language_id, std::int64_t version,
            std::string text);
  void index_documents();
  bool change(const std::string& uri, std::int64_t version,
              const std::vector<ContentChange>& changes);
  // Appends at the end of a document (a file read from disk that grew); false for an
  // unknown document.
  bool append_text(const std::string& uri, std::int64_t version, std::string_view more);
  bool close(const std::string& uri);
  bool is_open(const std::string& uri) const { return docs_.count(uri) > 0; }
  bool is_log(const std::string& uri) const;
  std::optional<std::int64_t> version(const std::string& uri) const;
  std::optional<std::string> text(const std::string& uri) const;  // a copy (tests)

  // Analysis: the snapshot to analyse (all open logs), and accepting a finished run. Only
  // documents whose version is still the one analysed get results; a run older than what
  // was already published is dropped. Returns what to publish.
  std::vector<DocumentSnapshot> log_snapshot() const;
  // The logs to analyse, one snapshot per job (job_of), of the jobs whose published
  // analysis is not of their current texts and members: a job nobody touched is not
  // analysed (or published) again when another changes.
  std::vector<std::vector<DocumentSnapshot>> changed_jobs() const;
  std::set<std::string> log_uris() const;
  // The open documents that are not logs (launch scripts a fix may edit): snapshots, cheap.
  std::vector<DocumentSnapshot> source_snapshot() const;
  std::optional<DocumentSnapshot> snapshot(const std::string& uri) const;
  // The analysis last published for a document, if any.
  std::shared_ptr<const AnalysisRun> published_run(const std::string& uri) const;
  AnalyzerOptions analyzer_options() const { return {encoding_, docs_base_}; }
  struct Publication {
    std::string uri;
    std::int64_t version;
    std::vector<DiagnosticItem> items;
  };
  std::vector<Publication> accept(std::shared_ptr<const AnalysisRun> run);
  // True when the document's latest version has been analysed (or needs no analysis).
  bool up_to_date(const std::string& uri) const;
  std::vector<DiagnosticItem> diagnostics(const std::string& uri) const;

  std::optional<Hover> hover(const std::string& uri, Position pos) const;
  // The actions that need no planning (verification commands); the fixes are asked for
  // with fix_query() and planned on a worker.
  std::vector<CodeActionItem> code_actions(const std::string& uri, Range range) const;
  FixQuery fix_query(const std::string& uri, Range range) const;
  std::vector<LensItem> code_lenses(const std::string& uri) const;
  // The report of a document's published analysis; none when it has none.
  std::optional<std::string> report_markdown(const std::string& uri) const;
  // The report of a document analysed alone (any thread: reads only the catalog).
  std::string standalone_report(const std::string& uri, const analysis::Analysis& a) const;
  // A full analysis of a text (any thread: reads only the catalog).
  // `outcome`: how the job whose output this is ended, when the client knows (a terminal's
  // exit code, "Diagnose as a hung job").
  analysis::Analysis diagnose_text(std::string_view text,
                                   const analysis::JobOutcome& outcome = {}) const;

 private:
  struct Document {
    std::string language_id;
    std::int64_t version = 0;
    std::shared_ptr<TextBuffer> buffer;  // where the text lives; appended to in place
    Text text;                           // the current version: a prefix of `buffer`
    mutable LineIndex index;             // of `text`, once `indexed`
    mutable bool indexed = false;
  };
  static const LineIndex& index_of(const Document& d);
  static void append(Document& d, std::string_view more);
  static void replace(Document& d, std::size_t b, std::size_t e, std::string_view with);
  struct Published {
    std::int64_t version = -1;
    std::shared_ptr<const AnalysisRun> run;
  };
  const DiagnosticItem* item_on_line(const std::string& uri, std::uint32_t line) const;
  // The run last published for `uri` (null: none) and its items that start on a line of
  // `range`, in order.
  const AnalysisRun* items_in(const std::string& uri, Range range,
                              std::vector<const DiagnosticItem*>& out) const;
  std::string rule_markdown(const analysis::Rule& rule, const AnalysisRun* run,
                            const DiagnosticItem* item) const;

  const analysis::Catalog& catalog_;
  Encoding encoding_ = Encoding::kUtf16;
  std::string docs_base_;
  std::map<std::string, Document> docs_;
  std::map<std::string, Published> published_;
};

}  // namespace ff::lsp
