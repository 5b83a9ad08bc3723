// Layer 2: the protocol adapter. All knowledge of LSP 3.17 and JSON-RPC lives here: it
// validates messages, converts JSON to the feature API's structs and back, enforces the
// lifecycle (initialize / shutdown / exit) and drives the scheduler.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "lsp/features.hpp"
#include "lsp/scheduler.hpp"
#include "lsp/transport.hpp"

namespace ff::lsp {

// JSON-RPC and LSP error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kServerNotInitialized = -32002;
inline constexpr int kRequestCancelled = -32800;

struct ServerOptions {
  std::string docs_dir;  // where docs/catalog.md is; empty: found from the workspace
  int debounce_ms = 50;  // re-analysis delay after an edit (never below 50)
  std::size_t max_message = kDefaultMaxMessage;
  // Offers the per-rank NCCL_IB_HCA binding as a code action (the fix engine's, set by
  // the CLI); none: the action is not offered.
  std::shared_ptr<BindingEditProvider> binding;
};

class LspServer {
 public:
  LspServer(const analysis::Catalog& catalog, ServerOptions options, Output& out);
  ~LspServer();

  // Reader thread: the frames (or framing errors) of one read from the client, all
  // accepted (ids and cancellations recorded) before any is dispatched.
  void on_frames(const std::vector<Frame>& frames);
  // Reader thread, at end of input: waits briefly for queued work, returns the exit code.
  int on_eof();
  bool exited() const { return exited_; }
  int exit_code() const { return shutdown_ ? 0 : 1; }

 private:
  using json = nlohmann::json;
  // Reader thread: validates a frame, answers it if it is malformed, records its id or
  // the cancellation it carries; the message to dispatch, if any.
  std::optional<json> accept(const Frame& frame);
  void handle(json msg);  // protocol thread
  void handle_request(const json& id, const std::string& method, const json& params);
  void handle_notification(const std::string& method, const json& params);

  void reply(const json& id, json result);
  void reply_error(const json& id, int code, const std::string& message);
  void notify(const std::string& method, json params);
  void send(const json& msg);
  bool is_cancelled(const json& id);

  json initialize(const json& params);
  void did_open(const json& params);
  void did_change(const json& params);
  void did_close(const json& params);
  json hover(const json& params);
  json code_action(const json& params);
  json code_action_resolve(const json& params);
  json code_lens(const json& params);
  json execute_command(const json& id, const json& params);
  json pull_diagnostics(const json& params);

  void schedule_analysis(bool immediately = false);
  void start_analysis();
  void on_analysis(std::shared_ptr<const AnalysisRun> run);
  void answer_pending();
  void publish(const FeatureServer::Publication& p);
  json diagnostic_json(const DiagnosticItem& d) const;
  json range_json(const Range& r) const;
  json file_edit_json(const FileEdit& e) const;

  const analysis::Catalog& catalog_;
  ServerOptions options_;
  Output& out_;
  FeatureServer features_;
  Analyzer analyzer_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<boost::asio::steady_timer> debounce_;

  // Protocol-thread state.
  bool initialized_ = false;
  bool can_resolve_ = false;
  bool analysis_running_ = false;
  bool analysis_again_ = false;
  bool debounce_armed_ = false;
  std::chrono::steady_clock::time_point dirty_since_;
  // Requests on a log whose latest version is not analysed yet wait for the analysis.
  struct Pending {
    json id;
    std::string uri;
    std::string method;
    json params;
  };
  std::vector<Pending> pending_;

  // Shared between the reader and the protocol thread.
  std::atomic<bool> shutdown_{false};
  std::atomic<bool> exited_{false};
  std::mutex ids_mu_;
  std::set<std::string> inflight_;
  std::set<std::string> cancelled_;
};

// Runs the server on stdin/stdout until exit or end of input; returns the exit code.
int serve_stdio(const analysis::Catalog& catalog, const ServerOptions& options);

}  // namespace ff::lsp
