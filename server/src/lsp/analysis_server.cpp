#include "lsp/analysis_server.hpp"

#include <spdlog/spdlog.h>

#include <atomic>
#include <filesystem>

#include "fix/topology_source.hpp"
#include "lsp/fix_actions.hpp"
#include "parallel/parallel_scan.hpp"
#include "topology/hwloc_loader.hpp"

namespace ff::lsp {

namespace {

// The analysis thread's scans use every core: a freshly opened 100 MB log is scanned in
// pieces side by side (a small append is one piece, scanned on the analysis thread itself).
void scan_on_every_core(const analysis::Catalog& catalog, std::string_view whole, std::size_t base,
                        std::size_t first_line, analysis::ScanState& state, std::size_t end) {
  parallel::scan_range(catalog, whole, base, first_line, state, end);
}

Failure not_open(const std::string& uri) {
  return {Failure::Kind::kInvalid, "document not open: " + uri};
}

}  // namespace

AnalysisServer::AnalysisServer(const analysis::Catalog& catalog, Scheduler& scheduler,
                               AnalysisServerOptions options, Callbacks callbacks)
    : options_(std::move(options)),
      callbacks_(std::move(callbacks)),
      features_(catalog),
      analyzer_(catalog, scan_on_every_core),
      planner_(catalog,
               options_.topology ? options_.topology : std::make_shared<fix::TopologyProvider>()),
      scheduler_(scheduler) {
  options_.debounce_ms = std::max(options_.debounce_ms, 50);
  debounce_ = std::make_unique<boost::asio::steady_timer>(scheduler_.io());
  disk_ = std::make_unique<DiskFollower>(
      scheduler_, options_.disk_reader, options_.watch_ms,
      [this](DiskFollower::Growth g) { on_disk_growth(std::move(g)); });
}

void AnalysisServer::stop() {
  // The timers go on the main loop, which runs their handlers; results posted later see
  // stopped_.
  debounce_.reset();
  disk_->stop();
  waiters_.clear();
  stopped_ = true;
}

// ---------------------------------------------------------------------------------------
// Documents

void AnalysisServer::open(const std::string& uri, const std::string& language_id,
                          std::int64_t version, std::string text) {
  auto t0 = std::chrono::steady_clock::now();
  bool was_log = features_.drafts().is_log(uri);
  // A file read from disk that the client now synchronizes: the client's text wins.
  if (disk_->forget(uri))
    spdlog::info("{} is open in the client now; no longer read from disk", uri);
  features_.open(uri, language_id, version, std::move(text));
  bool is_log = features_.drafts().is_log(uri);
  if (was_log || is_log) ++generation_;
  if (is_log) schedule_analysis(true);
  auto t1 = std::chrono::steady_clock::now();
  features_.drafts().index_all();  // while the analysis thread scans
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  spdlog::debug("open {} v{} ({}, log: {}): stored in {:.1f} ms, indexed in {:.1f} ms", uri,
                version, language_id, is_log, ms(t0, t1), ms(t1, std::chrono::steady_clock::now()));
}

bool AnalysisServer::change(const std::string& uri, std::int64_t version,
                            const std::vector<ContentChange>& changes) {
  if (!features_.change(uri, version, changes)) return false;
  if (features_.drafts().is_log(uri)) {
    ++generation_;
    schedule_analysis();
  }
  return true;
}

void AnalysisServer::close(const std::string& uri) {
  bool was_log = features_.drafts().is_log(uri);
  if (!features_.close(uri)) return;
  if (was_log) {
    ++generation_;
    if (callbacks_.clear) callbacks_.clear(uri);
    schedule_analysis();
  }
  answer_ready();  // requests that waited for this document's analysis
}

// ---------------------------------------------------------------------------------------
// Requests that wait

void AnalysisServer::when_analysed(CancelToken token, const std::string& uri,
                                   std::function<void()> ready) {
  if (features_.up_to_date(uri)) return ready();
  waiters_.emplace(next_waiter_++, Waiter{std::move(token), uri, std::move(ready)});
  // One analysis per version: the running one answers it when it saw these texts.
  if (!(analysis_running_ && running_generation_ == generation_)) schedule_analysis(true, false);
}

template <class T>
void AnalysisServer::run_on_worker(CancelToken token, std::function<T()> work, Callback<T> cb) {
  scheduler_.post_work([this, token, work = std::move(work), cb = std::move(cb)] {
    if (options_.before_work) options_.before_work();
    auto result = std::make_shared<std::optional<Result<T>>>();
    try {
      result->emplace(work());
    } catch (const std::exception& e) {
      result->emplace(Failure{Failure::Kind::kFailed, e.what()});
    }
    scheduler_.post([this, token, result, cb] {
      // Answered already by the request table (cancelled, abandoned), or stopping.
      if (token.cancelled() || stopped_) return;
      cb(std::move(**result));
    });
  });
}

void AnalysisServer::answer_ready() {
  // One at a time, in arrival order, each taken out just before it is answered: a waiter an
  // answer adds is seen, and a cancelled one is dropped (the request table answered it).
  std::uint64_t from = 0;
  for (;;) {
    auto it = waiters_.lower_bound(from);
    while (it != waiters_.end() && !it->second.token.cancelled() &&
           !features_.up_to_date(it->second.uri))
      ++it;
    if (it == waiters_.end()) return;
    from = it->first + 1;
    auto ready = std::move(it->second.ready);
    bool cancelled = it->second.token.cancelled();
    waiters_.erase(it);
    if (!cancelled) ready();
  }
}

// ---------------------------------------------------------------------------------------
// Features

void AnalysisServer::hover(CancelToken token, const std::string& uri, Position pos,
                           Callback<std::optional<Hover>> cb) {
  when_analysed(std::move(token), uri, [this, uri, pos, cb] { cb(features_.hover(uri, pos)); });
}

void AnalysisServer::code_lenses(CancelToken token, const std::string& uri,
                                 Callback<std::vector<LensItem>> cb) {
  when_analysed(std::move(token), uri, [this, uri, cb] { cb(features_.code_lenses(uri)); });
}

void AnalysisServer::diagnostics(CancelToken token, const std::string& uri,
                                 Callback<std::vector<DiagnosticItem>> cb) {
  when_analysed(std::move(token), uri, [this, uri, cb] { cb(features_.diagnostics(uri)); });
}

void AnalysisServer::code_actions(CancelToken token, const std::string& uri, Range range,
                                  Callback<std::vector<CodeActionItem>> cb) {
  when_analysed(token, uri, [this, token, uri, range, cb] {
    auto verify = features_.code_actions(uri, range);
    auto run = features_.published_run(uri);
    FixQuery query = features_.fix_query(uri, range);
    // A log without a folder (untitled:) has no workspace for a fix to write in.
    if (query.empty() || !run || uri.rfind("file://", 0) != 0) return cb(std::move(verify));
    // The planner reads topology files from the log's folder or the machine itself.
    auto sources = features_.drafts().source_snapshots();  // snapshots: no text is copied here
    auto encoding = features_.encoding();
    auto shared = std::make_shared<std::vector<CodeActionItem>>(std::move(verify));
    run_on_worker<std::vector<CodeActionItem>>(
        token,
        [this, query, run, sources, encoding] {
          std::vector<std::string> rules;
          for (const auto& d : query.items) rules.push_back(d.rule_id);
          auto plan = planner_.plan(run->analysis, plan_request(query, *run, sources), rules);
          return fix_actions(query, plan, sources, encoding);
        },
        [this, shared, cb](Result<std::vector<CodeActionItem>> r) {
          if (!r.ok()) return cb(r.failure());
          std::vector<CodeActionItem> out;
          for (auto& a : r.value())
            if (still_current(a)) out.push_back(std::move(a));
          for (auto& a : *shared) out.push_back(std::move(a));
          cb(std::move(out));
        });
  });
}

bool AnalysisServer::still_current(const CodeActionItem& action) const {
  return std::all_of(action.edits.begin(), action.edits.end(), [&](const DocumentEdit& e) {
    return e.create || (e.version && features_.drafts().version(e.uri) == e.version);
  });
}

void AnalysisServer::report(CancelToken token, const std::string& uri, Callback<Report> cb) {
  if (auto md = features_.report_markdown(uri)) {
    auto run = features_.published_run(uri);
    return cb(Report{std::move(*md), {run, &run->analysis}});
  }
  auto snap = features_.drafts().snapshot(uri);
  if (!snap) return cb(not_open(uri));
  // Not analysed yet (or not a log): this document alone, on a worker.
  run_on_worker<Report>(
      std::move(token),
      [this, snap = std::move(*snap)] {
        auto a = std::make_shared<const analysis::Analysis>(features_.diagnose_text(snap.text));
        return Report{features_.standalone_report(snap.uri, *a), a};
      },
      std::move(cb));
}

void AnalysisServer::diagnose_text(CancelToken token, std::string text,
                                   analysis::JobOutcome outcome, Callback<analysis::Analysis> cb) {
  auto shared = std::make_shared<const std::string>(std::move(text));
  run_on_worker<analysis::Analysis>(
      std::move(token),
      [this, shared, outcome] { return features_.diagnose_text(*shared, outcome); }, std::move(cb));
}

void AnalysisServer::check_topology(CancelToken token, std::map<std::string, std::string> env,
                                    std::string topology_file,
                                    Callback<topology::TopoAnalysis> cb) {
  run_on_worker<topology::TopoAnalysis>(
      std::move(token),
      [env = std::move(env), file = std::move(topology_file)]() -> topology::TopoAnalysis {
        topology::CheckOptions copt;
        copt.live = file.empty();
        copt.env = env;
        auto loaded = file.empty() ? topology::load_live() : fix::load_topology_file(file);
        if (!loaded.ok())
          throw std::runtime_error(
              (file.empty() ? "topology discovery failed: " : "cannot read the topology file: ") +
              loaded.error->to_string());
        return topology::analyze_topology(std::move(*loaded.topology), copt);
      },
      std::move(cb));
}

void AnalysisServer::find_docs_base(CancelToken token, std::string root, Callback<std::string> cb) {
  run_on_worker<std::string>(
      std::move(token),
      [root = std::move(root)] {
        std::filesystem::path docs = std::filesystem::path(root) / "docs";
        std::error_code ec;
        if (root.empty() || !std::filesystem::exists(docs / "catalog.md", ec)) return std::string();
        return path_to_uri(docs.lexically_normal().string());
      },
      std::move(cb));
}

// ---------------------------------------------------------------------------------------
// Files read from disk

void AnalysisServer::analyze_file(CancelToken token, const std::string& uri,
                                  Callback<DiskFileStatus> cb) {
  if (uri.rfind("file://", 0) != 0)
    return cb(Failure{Failure::Kind::kInvalid, "not a file:// URI: " + uri});
  if (features_.drafts().is_open(uri) && !is_disk_file(uri)) {
    auto snap = features_.drafts().snapshot(uri);
    return cb(DiskFileStatus{uri, snap ? snap->text.size() : 0, true});
  }
  if (is_disk_file(uri)) return cb(DiskFileStatus{uri, disk_->bytes_read(uri), false});
  if (!disk_->reads())
    return cb(Failure{Failure::Kind::kFailed, "this server reads no files from disk"});
  std::string path = uri_to_path(uri);
  run_on_worker<DiskFileReader::Piece>(
      std::move(token), disk_->read_file(path),
      [this, uri, path, cb](Result<DiskFileReader::Piece> r) {
        if (!r.ok()) return cb(r.failure());
        if (features_.drafts().is_open(uri) && !is_disk_file(uri))  // opened by the client
          return cb(DiskFileStatus{uri, 0, true});
        std::size_t size = r.value().size;
        adopt_disk_file(uri, path, std::move(r.value()));
        ++generation_;
        schedule_analysis(true);
        features_.drafts().index_all();  // while the analysis thread scans
        spdlog::info("{}: {} bytes read from disk; following it", path, size);
        disk_->watch();
        cb(DiskFileStatus{uri, size, false});
      });
}

void AnalysisServer::adopt_disk_file(const std::string& uri, const std::string& path,
                                     DiskFileReader::Piece piece) {
  std::int64_t version = disk_->adopt(uri, path, piece);
  features_.open(uri, "log", version, std::move(piece.bytes));
}

void AnalysisServer::on_disk_growth(DiskFollower::Growth g) {
  if (stopped_) return;
  if (g.whole)
    features_.open(g.uri, "log", g.version, std::move(g.bytes));
  else
    features_.append_text(g.uri, g.version, g.bytes);
  ++generation_;
  schedule_analysis();
}

void AnalysisServer::analyze_folder(CancelToken token, const std::string& uri,
                                    FolderProgress progress, Callback<FolderStatus> cb) {
  if (uri.rfind("file://", 0) != 0)
    return cb(Failure{Failure::Kind::kInvalid, "not a file:// URI: " + uri});
  if (!disk_->reads())
    return cb(Failure{Failure::Kind::kFailed, "this server reads no files from disk"});
  using FolderRead = DiskFollower::FolderRead;
  run_on_worker<std::shared_ptr<FolderRead>>(
      token, disk_->read_folder(uri_to_path(uri), token, std::move(progress)),
      [this, uri, cb](Result<std::shared_ptr<FolderRead>> r) {
        if (!r.ok()) return cb(r.failure());
        FolderStatus status{uri, {}, 0, {}, {}};
        auto& read = *r.value();
        status.problems = std::move(read.problems);
        for (const auto& p : status.problems) spdlog::warn("{}", p);
        for (std::size_t i = 0; i < read.paths.size(); ++i) {
          std::string file_uri = path_to_uri(read.paths[i]);
          if (features_.drafts().is_open(file_uri) && !is_disk_file(file_uri)) {
            status.files.push_back(file_uri);  // the client has it open already
            continue;
          }
          status.bytes += read.pieces[i].size;
          if (read.pieces[i].evidence) status.evidence.push_back(file_uri);
          adopt_disk_file(file_uri, read.paths[i], std::move(read.pieces[i]));
          status.files.push_back(file_uri);
        }
        if (!read.paths.empty()) {
          ++generation_;
          schedule_analysis(true);  // one analysis for the whole folder
          features_.drafts().index_all();
          disk_->watch();
        }
        spdlog::info("{}: {} log(s), {} bytes read from disk; following them", uri,
                     status.files.size(), status.bytes);
        cb(std::move(status));
      });
}

bool AnalysisServer::forget_file(const std::string& uri) {
  if (!is_disk_file(uri)) return false;
  if (callbacks_.clear) callbacks_.clear(uri);  // while it still counts as read from disk
  disk_->forget(uri);
  features_.close(uri);
  ++generation_;
  schedule_analysis();
  answer_ready();
  return true;
}

// ---------------------------------------------------------------------------------------
// Scheduling the analysis

void AnalysisServer::schedule_analysis(bool immediately, bool edit) {
  auto now = std::chrono::steady_clock::now();
  const auto period = std::chrono::milliseconds(options_.debounce_ms);
  // Leading edge: an edit after a quiet period (no edit for one debounce period) is analysed
  // at once, so a growing log is re-diagnosed in the time of the analysis. The edits of a
  // burst that follows keep pushing the analysis back to one period after the latest, but
  // never more than ten periods after the first.
  bool quiet = !last_edit_ || now - *last_edit_ >= period;
  if (edit) last_edit_ = now;
  if (!debounce_armed_) dirty_since_ = now;
  if (debounce_armed_ && now - dirty_since_ > 10 * period) return;
  if (immediately || (quiet && !debounce_armed_)) {
    // Started here, not from a zero timer: the caller may then do other work (index a
    // document) while the analysis thread scans.
    if (debounce_armed_) debounce_->cancel();
    debounce_armed_ = false;
    start_analysis();
    return;
  }
  debounce_armed_ = true;
  debounce_->expires_after(period);
  debounce_->async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // re-armed by a newer edit
    debounce_armed_ = false;
    start_analysis();
  });
}

void AnalysisServer::start_analysis() {
  if (analysis_running_) {
    analysis_again_ = true;
    return;
  }
  running_generation_ = generation_;
  // Each job (a folder's logs, an untitled document) is analysed on its own, and only the
  // jobs that changed: an unrelated log open beside a job never joins its diagnosis.
  auto jobs = features_.changed_jobs();
  if (jobs.empty()) return answer_ready();  // a log left a job that is now empty, or none
  analysis_running_ = true;
  auto live = features_.drafts().log_uris();
  auto opts = features_.analyzer_options();
  scheduler_.post_analysis([this, jobs = std::move(jobs), live = std::move(live), opts]() mutable {
    if (options_.before_analysis) options_.before_analysis();
    analyzer_.retain(live);  // the scans of closed logs
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      auto t0 = std::chrono::steady_clock::now();
      auto run = std::make_shared<AnalysisRun>(analyzer_.run_lending(std::move(jobs[i]), opts));
      auto ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      spdlog::info(
          "analysis: {} document(s), {} of {} bytes scanned, {} diagnoses, {} events, {:.1f} ms "
          "(scan {:.1f}, merge {:.1f}, diagnose {:.1f}, items {:.1f}); job {}",
          run->docs.size(), run->bytes_scanned, run->bytes_total, run->analysis.diagnoses.size(),
          run->analysis.events.size(), ms, run->scan_ms, run->merge_ms, run->diagnose_ms,
          run->items_ms, run->docs.empty() ? std::string() : job_of(run->docs.front().uri));
      bool last = i + 1 == jobs.size();
      scheduler_.post([this, run, last] { on_analysis(run, last); });
      analyzer_.settle(*run);  // while the main loop publishes
    }
  });
}

void AnalysisServer::on_analysis(std::shared_ptr<const AnalysisRun> run, bool last) {
  if (last) analysis_running_ = false;
  if (stopped_) return;
  for (const auto& p : features_.accept(run))
    if (callbacks_.publish) callbacks_.publish(p);
  answer_ready();
  if (last && analysis_again_) {
    analysis_again_ = false;
    // Only for texts this run did not see: never the same version twice.
    if (generation_ != running_generation_) start_analysis();
  }
}

}  // namespace ff::lsp
