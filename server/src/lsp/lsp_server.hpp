// Layer 2: the protocol adapter (clangd's ClangdLSPServer). All knowledge of LSP 3.17 and
// JSON-RPC lives in it: it validates messages, enforces the lifecycle (initialize / shutdown
// / exit), holds the client's capabilities, and binds each method to a handler through one
// table (bind: params parsed into structs, errors and the typed result's JSON in one place),
// so each handler only translates a typed call of the AnalysisServer (analysis_server.hpp).
// Every request is in the request table (request_table.hpp) with its cancellation token,
// and answered once, from there. It owns the main loop (scheduler.hpp) its dispatch runs
// on, and lends it to the AnalysisServer; the MessageReceiver calls run on the reader
// thread. Its files: lsp_server.cpp (acceptance, dispatch, lifecycle, documents,
// features), lsp_commands.cpp (workspace/executeCommand), message_reader.* (reader thread: a
// frame to a checked message), request_table.* and reply_once.* (one reply per request),
// lsp_params.* (params to structs), lsp_json.* (typed values to JSON and back) and
// published_diagnostics.* (publishDiagnostics, cached).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "lsp/analysis_server.hpp"
#include "lsp/cancel_token.hpp"
#include "lsp/features.hpp"
#include "lsp/lsp_json.hpp"
#include "lsp/lsp_params.hpp"
#include "lsp/message_reader.hpp"
#include "lsp/published_diagnostics.hpp"
#include "lsp/reply_once.hpp"
#include "lsp/request_table.hpp"
#include "lsp/scheduler.hpp"
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

class LspServer final : public MessageReceiver {
 public:
  LspServer(const analysis::Catalog& catalog, ServerOptions options, Transport& out);
  // Answers what still waits (RequestFailed), stops the main loop, then waits for the
  // analysis and worker threads' current jobs.
  ~LspServer();
  LspServer(const LspServer&) = delete;
  LspServer& operator=(const LspServer&) = delete;

  // Replies attempted on a request that was already answered (a bug; 0 in every test).
  std::size_t replied_twice() const { return requests_.replied_twice(); }

  // Reader thread (one thread, never two at once): the frames (or framing errors) of one
  // read from the client, all parsed and accepted (requests entered in the request table,
  // cancellations marked) before any is posted to the main loop. The bodies are released
  // once parsed.
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
  // A message the reader thread accepted, on its way to the main loop: a request has its
  // place in the request table.
  struct Incoming {
    json msg;
    std::optional<RequestSeq> request;
  };
  // Reader thread: validates a frame, answers it if it is malformed, enters a request in the
  // table or marks the cancellation a message carries; the message to dispatch, if any.
  std::optional<Incoming> accept(const Frame& frame);

  // Main loop: the lifecycle (initialize, shutdown, exit), then the method tables.
  void handle(Incoming in);
  void handle_request(RequestSeq seq, const std::string& method, json& params);
  void handle_notification(const std::string& method, json& params);
  void exit();

  // The method tables. bind() binds a request to a handler that takes its params as a
  // struct (lsp_params.hpp), its cancellation token and the callback its typed result goes
  // to; bind_notification() a notification to one that takes its params. Malformed params
  // are answered InvalidParams naming the field (a notification's are logged and it is
  // dropped), an exception from a handler is answered as an error, and the result is
  // written as JSON by lsp_json's to_json, all in one place: the handlers only translate.
  template <class Params, class R>
  void bind(const std::string& method,
            void (LspServer::*handler)(Params, const CancelToken&, Callback<R>));
  template <class Params>
  void bind_notification(const std::string& method, void (LspServer::*handler)(Params));
  void bind_methods();
  // The callback that answers `reply` with a typed result or failure.
  template <class R>
  static Callback<R> answer(std::shared_ptr<ReplyOnce> reply);
  using RequestHandler = std::function<void(json& params, ReplyOnce reply)>;
  using NotificationHandler = std::function<void(json& params)>;
  std::map<std::string, RequestHandler> request_methods_;
  std::map<std::string, NotificationHandler> notification_methods_;

  void notify(const std::string& method, json params);
  void send(const json& msg);

  // Requests.
  void initialize(InitializeParams p, const CancelToken& token, Callback<json> cb);
  // initialize's answer, once the settings are known; then the messages held meanwhile.
  json initialized(const ClientCapabilities& client);
  void resume_held();
  void hover(HoverParams p, const CancelToken& token, Callback<std::optional<Hover>> cb);
  void code_action(CodeActionParams p, const CancelToken& token,
                   Callback<std::vector<CodeActionItem>> cb);
  void code_lens(TextDocumentParams p, const CancelToken& token,
                 Callback<std::vector<LensItem>> cb);
  void pull_diagnostics(TextDocumentParams p, const CancelToken& token,
                        Callback<FullDiagnosticReport> cb);
  // Notifications.
  void did_open(DidOpenParams p);
  void did_change(DidChangeParams p);
  void did_close(TextDocumentParams p);
  void cancel_request(CancelParams p);

  // workspace/executeCommand, in lsp_commands.cpp: a table of commands, one method each.
  using CommandHandler = void (LspServer::*)(const ExecuteCommandParams&, const CancelToken&,
                                             Callback<json>);
  static const std::map<std::string, CommandHandler>& commands();
  static const std::vector<std::string>& command_names();  // those advertised
  void execute_command(ExecuteCommandParams p, const CancelToken& token, Callback<json> cb);
  void diagnose_text_command(const ExecuteCommandParams& p, const CancelToken& token,
                             Callback<json> cb);
  void report_command(const ExecuteCommandParams& p, const CancelToken& token, Callback<json> cb);
  void check_topology_command(const ExecuteCommandParams& p, const CancelToken& token,
                              Callback<json> cb);
  void analyze_folder_command(const ExecuteCommandParams& p, const CancelToken& token,
                              Callback<json> cb);
  void analyze_file_command(const ExecuteCommandParams& p, const CancelToken& token,
                            Callback<json> cb);
  void forget_file_command(const ExecuteCommandParams& p, const CancelToken& token,
                           Callback<json> cb);
  void verification_command(const ExecuteCommandParams& p, const CancelToken& token,
                            Callback<json> cb);

  void publish(const Publication& p);
  void push_empty(const std::string& uri);
  // Pull mode: one workspace/diagnostic/refresh after the publications of an analysis.
  void request_refresh();

  const analysis::Catalog& catalog_;
  ServerOptions options_;
  Transport& out_;
  // Every request the client sent that has no reply yet, with its cancellation token; the
  // reader thread enters them and marks cancellations, the main loop answers them.
  RequestTable requests_;

  // Main-loop state.
  bool initialized_ = false;
  // initialize waits for a worker (whether the workspace has docs/catalog.md): the messages
  // that arrive meanwhile are held, in order, and handled once it is answered.
  bool initializing_ = false;
  std::vector<Incoming> held_;
  bool mask_host_names_ = false;  // initializationOptions.maskHostNames
  // With maskHostNames: one table of pseudonyms for the session, so a host is the same
  // `host-1` in the diagnostics, the reports and the diagnosed texts.
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
  PublishedDiagnostics published_;

  // Reader thread only.
  MessageReader reader_;

  // Shared between the reader thread and the main loop.
  std::atomic<bool> shutdown_{false};
  std::atomic<bool> exited_{false};

  // The main loop and the threads it lends the AnalysisServer; destroyed after it (its
  // timers live on the loop), before the request table (the loop's queued work may hold
  // replies).
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<AnalysisServer> core_;
};

// Runs the server on stdin/stdout (a StdioTransport) until exit or end of input, then ends
// the process with the exit code.
int serve_stdio(const analysis::Catalog& catalog, const ServerOptions& options);

}  // namespace ff::lsp
