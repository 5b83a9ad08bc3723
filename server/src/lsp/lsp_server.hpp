// Layer 2: the protocol adapter (clangd's ClangdLSPServer). All knowledge of LSP 3.17 and
// JSON-RPC lives in it: it validates messages, binds methods, converts JSON to the feature
// server's typed calls and their results back to JSON, holds the client's capabilities,
// enforces the lifecycle (initialize / shutdown / exit) and answers every request exactly
// once (ReplyOnce). It knows nothing of analysis, threads or debouncing: those are the
// AnalysisServer's (analysis_server.hpp), whose protocol thread runs everything here except
// the MessageReceiver calls (the reader thread). Its files: lsp_server.cpp (dispatch,
// lifecycle, documents, features), lsp_commands.cpp (workspace/executeCommand),
// message_reader.* (reader thread: a frame to a checked message), reply_once.*, lsp_json.*
// (JSON to typed values and back) and published_diagnostics.* (publishDiagnostics, cached).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "lsp/analysis_server.hpp"
#include "lsp/features.hpp"
#include "lsp/lsp_json.hpp"
#include "lsp/message_reader.hpp"
#include "lsp/published_diagnostics.hpp"
#include "lsp/reply_once.hpp"
#include "lsp/transport.hpp"
#include "report/mask.hpp"

namespace ff::lsp {

struct ServerOptions {
  std::string docs_dir;  // where docs/catalog.md is; empty: found from the workspace
  // Edits closer together than this are a burst: the first edit after a quiet period is
  // analysed at once, the rest of the burst once it pauses this long (at least every ten
  // periods while it lasts). Never below 50.
  int debounce_ms = 50;
  std::size_t max_message = kDefaultMaxMessage;
  // Where the fix planner's topology comes from (cached per folder; fix/topology_provider.hpp);
  // none: the log's folder, its logs and this machine.
  std::shared_ptr<fix::TopologyProvider> topology;
  // Reads logs from disk for firstfault.analyzeFile (the CLI's memory-mapped inputs); none:
  // the command fails. Files read so are checked for growth every watch_ms.
  std::shared_ptr<DiskFileReader> disk_reader;
  int watch_ms = 1000;
  // What the "exit" notification does once the server has flushed its log: by default it
  // ends the process at once (::_exit: worker threads may be mid-analysis). A host that
  // embeds the server (the fuzzer) keeps the process; the server then drops what follows.
  std::function<void(int code)> exit_process;
  // Tests: runs on the analysis thread before each analysis, and on a worker before each
  // slow job (topology, a selection's analysis, the fix planner), to count them or to hold one
  // while requests arrive.
  std::function<void()> before_analysis;
  std::function<void()> before_work;
};

class LspServer final : public MessageReceiver, public ReplyOnce::Sink {
 public:
  LspServer(const analysis::Catalog& catalog, ServerOptions options, Transport& out);
  ~LspServer();

  // Every request is answered once, through a ReplyOnce (reply_once.hpp) whose replies
  // this server sends.
  using ReplyOnce = lsp::ReplyOnce;
  // Replies attempted on a request that was already answered (a bug; 0 in every test).
  std::size_t replied_twice() const { return replied_twice_; }

  // Reader thread (one thread, never two at once): the frames (or framing errors) of one
  // read from the client, all parsed and accepted (ids and cancellations recorded) before any
  // is dispatched. The bodies are released once parsed.
  void on_frames(std::vector<Frame>& frames) override;
  // Reader thread: a message body of `size` bytes is arriving (and `size` is worth it,
  // kPrepareBodyBytes or more). Memory for a document of that size is faulted in on
  // another thread while the rest arrives; parsing the message takes it, and drop_prepared()
  // gives back what no message took.
  void prepare_for_body(std::size_t size) override;
  void drop_prepared() override;
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
  void handle_request(const json& id, const std::string& method, json& params);
  void handle_notification(const std::string& method, json& params);
  // A request whose answer comes later (from the AnalysisServer): the reply travels in
  // the callback.
  using SharedReply = std::shared_ptr<ReplyOnce>;
  // The callback that answers `reply` with render(result), or with the failure.
  template <class T, class Render>
  Callback<T> answer(SharedReply reply, Render render) {
    return [this, reply, render](Result<T> r) {
      if (!r.ok()) return answer_failure(*reply, r.failure());
      answer_rendered(*reply, [&] { return render(r.value()); });
    };
  }
  void answer_failure(ReplyOnce& reply, const Failure& f);
  // Answers with what `render` returns; a render that throws is answered as an internal error.
  void answer_rendered(ReplyOnce& reply, const std::function<json()>& render);

  // ReplyOnce::Sink: the reply to a request (a cancelled one is answered "cancelled").
  void send_result(const json& id, json result) override;
  void send_error(const json& id, int code, const std::string& message) override;
  void count_replied_twice() override { ++replied_twice_; }
  void notify(const std::string& method, json params);
  void send(const json& msg);
  bool is_cancelled(const json& id);

  // Methods: parse the params, call the AnalysisServer, answer.
  json initialize(const json& params);
  void did_open(json& params);
  void did_change(json& params);
  void did_close(const json& params);
  void hover(SharedReply reply, const json& params);
  void code_action(SharedReply reply, const json& params);
  void code_lens(SharedReply reply, const json& params);
  void pull_diagnostics(SharedReply reply, const json& params);

  // workspace/executeCommand, in lsp_commands.cpp: one method per command.
  static const std::vector<std::string>& command_names();  // those advertised
  void execute_command(SharedReply reply, const json& params);
  void diagnose_text_command(SharedReply reply, const json& arg);
  void report_command(SharedReply reply, const json& arg);
  void check_topology_command(SharedReply reply, const std::string& file,
                              const json& progress_token);
  void analyze_folder_command(SharedReply reply, const std::string& uri,
                              const json& progress_token);
  void analyze_file_command(SharedReply reply, const std::string& uri);

  // The shutdown reply, once no request that came before it still waits.
  void answer_shutdown_when_done();
  void publish(const FeatureServer::Publication& p);
  void push_empty(const std::string& uri);
  // Pull mode: one workspace/diagnostic/refresh after the publications of an analysis.
  void request_refresh();

  const analysis::Catalog& catalog_;
  ServerOptions options_;
  Transport& out_;

  // Protocol-thread state.
  bool initialized_ = false;
  bool mask_host_names_ = false;  // initializationOptions.maskHostNames
  // With maskHostNames: one table of pseudonyms for the session, so a host is the same
  // `host-1` in the diagnostics, the reports and the diagnosed texts (protocol thread only).
  report::Masker masker_;
  // The items as a client may see them: masked when maskHostNames asks.
  std::vector<DiagnosticItem> shown(std::vector<DiagnosticItem> items);
  // Diagnostics travel one way, so that a client never holds them twice (VS Code's language
  // client keeps pushed and pulled diagnostics in two collections, and its Problems badge
  // counts both). A client that declares textDocument.diagnostic and
  // workspace.diagnostics.refreshSupport pulls them for the documents it syncs; the server
  // then sends workspace/diagnostic/refresh when an analysis changed any of them (another
  // file's analysis may change a document's diagnostics: interFileDependencies). Any other
  // client gets them pushed, and diagnosticProvider is not advertised. Files the server
  // reads from disk (firstfault.analyzeFile) have no document the client could pull for:
  // their diagnostics are always pushed.
  bool pull_diagnostics_ = false;
  bool refresh_posted_ = false;
  std::uint64_t next_server_request_ = 0;
  // A shutdown that arrived while requests waited: answered after them.
  std::optional<ReplyOnce> shutdown_reply_;
  std::atomic<std::size_t> replied_twice_{0};
  PublishedDiagnostics published_;

  // Reader thread only.
  MessageReader reader_;

  // Shared between the reader and the protocol thread.
  std::atomic<bool> shutdown_{false};
  std::atomic<bool> exited_{false};
  std::mutex ids_mu_;
  std::set<std::string> inflight_;
  std::set<std::string> cancelled_;

  // Last: destroyed first, so its threads stop before anything above goes.
  std::unique_ptr<AnalysisServer> core_;
};

// Runs the server on stdin/stdout (a StdioTransport) until exit or end of input, then ends
// the process with the exit code.
int serve_stdio(const analysis::Catalog& catalog, const ServerOptions& options);

}  // namespace ff::lsp
