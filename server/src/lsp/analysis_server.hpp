// Layer 3: the feature server (clangd's ClangdServer with its TUScheduler). Documents,
// analyses, hovers, code actions, lenses, reports and topology checks as typed calls that
// answer through callbacks; no JSON, no request ids, no LSP. It works on the threads of the
// scheduler its owner lends it (scheduler.hpp) and decides where each piece of work runs:
//   - every call below is made on the main loop, and every callback runs there;
//   - the analysis of the open logs runs on the analysis thread, once per set of document
//     versions, job by job (job_of: the logs of one folder; an untitled document alone),
//     only the jobs that changed: requests that need it wait for it (they never start
//     another), edits are debounced;
//   - slow one-off work (topology discovery, the fix planner with its topology read, the
//     analysis of a selection) runs on a worker thread.
// A request comes with its cancellation token (cancel_token.hpp); the caller's request table
// answers a cancelled or abandoned request itself. A request waiting for an analysis whose
// token is set is dropped instead of answered, and so is a worker's result for one.
//
// A file read from disk (analyze_file: a log the client does not synchronize) is read and
// followed by the DiskFollower (disk_follower.hpp): read on a worker, then held as a document
// like an open one (its analysis, hovers, lenses and report are the same) and published
// through the same callback; what it grows by (polled on a main-loop timer, read on a worker)
// is appended in place, so the analysis scans only the new bytes. A didOpen of its URI hands
// it over to the client. A folder is one job (analyze_folder): the DiskFollower reads its
// inputs on a worker, one after the other, with progress after each, stopping between files
// once the request's token is cancelled; then they all join at once, for one analysis of
// their folder's job.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/catalog.hpp"
#include "fix/planner.hpp"
#include "lsp/cancel_token.hpp"
#include "lsp/disk_file_reader.hpp"
#include "lsp/disk_follower.hpp"
#include "lsp/features.hpp"
#include "lsp/scheduler.hpp"
#include "topology/topo_report.hpp"

namespace ff::lsp {

// Why a request got no result.
struct Failure {
  enum class Kind {
    kCancelled,  // the client cancelled it
    kAbandoned,  // the server stopped (shutdown, exit) before it was answered
    kInvalid,    // the arguments name nothing the server knows (a closed document...)
    kFailed,     // the work itself failed (topology discovery found no hwloc...)
  };
  Kind kind;
  std::string message;
};

// A value, or the failure in its place. Not a std::variant: GCC 12 at -O2 takes a Failure
// copied out of one for a read of uninitialized memory (-Wmaybe-uninitialized).
template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose
  Result(Failure f) : failure_(std::move(f)) {}  // NOLINT
  bool ok() const { return value_.has_value(); }
  T& value() { return *value_; }
  const Failure& failure() const { return failure_; }

 private:
  std::optional<T> value_;
  Failure failure_{Failure::Kind::kFailed, {}};
};

template <class T>
using Callback = std::function<void(Result<T>)>;

struct AnalysisServerOptions {
  // Edits closer together than this are a burst: the first edit after a quiet period is
  // analysed at once, the rest of the burst once it pauses this long (at least every ten
  // periods while it lasts). Never below 50.
  int debounce_ms = 50;
  // Where the fix planner's topology comes from (files in the log's folder, the logs, this
  // machine), cached per folder; none: a live one made by the server.
  std::shared_ptr<fix::TopologyProvider> topology;
  // Reads logs from disk for analyze_file(); none: analyze_file() fails.
  std::shared_ptr<DiskFileReader> disk_reader;
  // How often files read from disk are checked for growth.
  int watch_ms = 1000;
  // Tests: run on the analysis thread before each analysis, and on a worker before each
  // slow job (to count them, or to hold one while requests arrive).
  std::function<void()> before_analysis;
  std::function<void()> before_work;
};

class AnalysisServer {
 public:
  struct Callbacks {
    // A document's diagnostics for a version (after each analysis that changed what it
    // shows), and the end of a closed log's diagnostics.
    std::function<void(const Publication&)> publish;
    std::function<void(const std::string& uri)> clear;
  };
  // `scheduler` must outlive it, and be shut down (Scheduler::shutdown) before it is
  // destroyed: a running analysis or worker job posts its result to it.
  AnalysisServer(const analysis::Catalog& catalog, Scheduler& scheduler,
                 AnalysisServerOptions options, Callbacks callbacks);
  AnalysisServer(const AnalysisServer&) = delete;
  AnalysisServer& operator=(const AnalysisServer&) = delete;

  // Main loop, once, before the owner shuts the scheduler down: the timers stop, requests
  // still waiting for an analysis are dropped, and results that come later are ignored.
  void stop();

  // Any thread: runs `f` on the main loop after everything posted before it.
  void post(std::function<void()> f) { scheduler_.post(std::move(f)); }

  // Settings (from the client's initialize).
  void set_encoding(Encoding e) { features_.set_encoding(e); }
  void set_docs_base(std::string base) { features_.set_docs_base(std::move(base)); }
  const std::string& docs_base() const { return features_.docs_base(); }
  void set_debounce_ms(int ms) { options_.debounce_ms = std::max(50, ms); }
  // On a worker: the URI of `root`/docs when it holds catalog.md, else empty.
  void find_docs_base(CancelToken token, std::string root, Callback<std::string> cb);

  // Documents. change() is false (nothing changed) for an unknown document or an older
  // version.
  void open(const std::string& uri, const std::string& language_id, std::int64_t version,
            std::string text);
  bool change(const std::string& uri, std::int64_t version,
              const std::vector<ContentChange>& changes);
  void close(const std::string& uri);

  // Features of a document; on a log, once its latest version is analysed.
  void hover(CancelToken token, const std::string& uri, Position pos,
             Callback<std::optional<Hover>> cb);
  // The verification commands at once; the fixes planned on a worker (fix::Planner), each
  // dropped when a document it edits moved on before the answer.
  void code_actions(CancelToken token, const std::string& uri, Range range,
                    Callback<std::vector<CodeActionItem>> cb);
  void code_lenses(CancelToken token, const std::string& uri, Callback<std::vector<LensItem>> cb);
  void diagnostics(CancelToken token, const std::string& uri,
                   Callback<std::vector<DiagnosticItem>> cb);
  // The Markdown report of a document (the published analysis, or one of the document
  // alone, on a worker, when it has none), with the analysis it reports (whose hosts a
  // masker must know).
  struct Report {
    std::string markdown;
    std::shared_ptr<const analysis::Analysis> analysis;
  };
  void report(CancelToken token, const std::string& uri, Callback<Report> cb);
  // On a worker: the analysis of a text (a selection), and topology discovery (this
  // machine's, or the file `topology_file` when not empty: hwloc or NCCL XML, an NCCL log,
  // nvidia-smi text, told apart by its content) checked against the given environment
  // (NCCL_IB_HCA... as the process that launches the job sees it).
  void diagnose_text(CancelToken token, std::string text, analysis::JobOutcome outcome,
                     Callback<analysis::Analysis> cb);
  void check_topology(CancelToken token, std::map<std::string, std::string> env,
                      std::string topology_file, Callback<topology::TopoAnalysis> cb);

  // A log read from disk for its URI (file:// only) and followed as it grows; answered once
  // it is read (its diagnostics are published after its analysis). A document the client
  // already synchronizes is answered at once, unread.
  struct DiskFileStatus {
    std::string uri;
    std::size_t bytes = 0;
    bool synchronized = false;  // the client has it open: nothing was read
  };
  void analyze_file(CancelToken token, const std::string& uri, Callback<DiskFileStatus> cb);
  // Every input directly inside a folder (file:// URI) that `firstfault analyze DIR` takes,
  // read from disk as above and added as one job: Flight Recorder dumps and NCCL RAS output
  // are held as the lines the analysis reads for them (DiskFileReader::read_evidence; not
  // followed as they grow), so their conclusions are published on their URIs. `progress`
  // (main loop) after each file read; answered with the files once all are read.
  // Cancelled (its token), it stops reading and adds none of them.
  struct FolderStatus {
    std::string uri;
    std::vector<std::string> files;  // URIs
    std::size_t bytes = 0;
    std::vector<std::string> evidence;  // URIs of the files read as evidence (dumps, RAS)
    // "PATH: what" for files that could not be read as the evidence they look like
    std::vector<std::string> problems;
  };
  using FolderProgress = DiskFollower::FolderProgress;
  void analyze_folder(CancelToken token, const std::string& uri, FolderProgress progress,
                      Callback<FolderStatus> cb);
  // Stops following a file read from disk and clears its diagnostics; false if it was not.
  bool forget_file(const std::string& uri);
  bool is_disk_file(const std::string& uri) const { return disk_->follows(uri); }

  // Tests: the FeatureServer (main loop only).
  const FeatureServer& features() const { return features_; }

 private:
  // A request waiting for a document's analysis.
  struct Waiter {
    CancelToken token;
    std::string uri;
    std::function<void()> ready;  // the document is analysed: answer now
  };
  // Runs `ready` at once when the document needs no analysis, else when it has one (never
  // when the request was cancelled meanwhile).
  void when_analysed(CancelToken token, const std::string& uri, std::function<void()> ready);
  // Runs `work` on a worker; `cb` gets its result on the main loop unless the request was
  // cancelled meanwhile. An exception from `work` is a kFailed failure.
  template <class T>
  void run_on_worker(CancelToken token, std::function<T()> work, Callback<T> cb);
  // Main loop: whether every document the action edits is still at the version the
  // edit is for.
  bool still_current(const CodeActionItem& action) const;

  // Holds a file read whole from disk as a followed document (no analysis scheduled).
  void adopt_disk_file(const std::string& uri, const std::string& path,
                       DiskFileReader::Piece piece);
  // A followed file grew (or was replaced): its document follows, and is analysed.
  void on_disk_growth(DiskFollower::Growth growth);

  void schedule_analysis(bool immediately = false, bool edit = true);
  void start_analysis();
  // One job's run; `last`: the last job of the pass (the analysis thread is free again).
  void on_analysis(std::shared_ptr<const AnalysisRun> run, bool last);
  void answer_ready();

  AnalysisServerOptions options_;
  Callbacks callbacks_;
  FeatureServer features_;
  Analyzer analyzer_;
  fix::Planner planner_;
  Scheduler& scheduler_;
  std::unique_ptr<boost::asio::steady_timer> debounce_;
  std::unique_ptr<DiskFollower> disk_;

  // Main-loop state.
  bool analysis_running_ = false;
  bool analysis_again_ = false;
  bool stopped_ = false;
  // Bumped by every change to the set of logs or their texts; the running analysis saw
  // running_generation_. A request waiting for an analysis starts none when the running
  // one already covers the current texts (one analysis per version).
  std::uint64_t generation_ = 0;
  std::uint64_t running_generation_ = 0;
  bool debounce_armed_ = false;
  std::chrono::steady_clock::time_point dirty_since_;  // when the armed debounce began
  std::optional<std::chrono::steady_clock::time_point> last_edit_;
  std::uint64_t next_waiter_ = 0;
  std::map<std::uint64_t, Waiter> waiters_;  // in arrival order
};

}  // namespace ff::lsp
