// The protocol adapter (lsp_server.hpp): reader-thread acceptance, the lifecycle, the method
// tables and their binding, documents and features. Its neighbours: message_reader (a frame
// to a checked JSON-RPC message), request_table and reply_once (one reply per request),
// lsp_params (params to structs), lsp_json (typed values to JSON), published_diagnostics
// (publishDiagnostics rendering), lsp_commands.cpp (the workspace/executeCommand commands)
// and transport (the bytes).
#include "lsp/lsp_server.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <utility>

#ifndef FF_VERSION
#define FF_VERSION "dev"
#endif

namespace ff::lsp {

using json = nlohmann::json;

LspServer::LspServer(const analysis::Catalog& catalog, ServerOptions options, Transport& out)
    : catalog_(catalog),
      options_(std::move(options)),
      out_(out),
      requests_([this](const json& response) { send(response); }),
      scheduler_(std::make_unique<Scheduler>()) {
  AnalysisServerOptions core;
  core.debounce_ms = options_.debounce_ms;
  core.topology = options_.topology;
  core.disk_reader = options_.disk_reader;
  core.watch_ms = options_.watch_ms;
  core.before_analysis = options_.before_analysis;
  core.before_work = options_.before_work;
  AnalysisServer::Callbacks callbacks;
  callbacks.publish = [this](const Publication& p) { publish(p); };
  callbacks.clear = [this](const std::string& uri) {
    published_.forget(uri);
    // A pulling client forgets a closed document's diagnostics itself.
    if (!pull_diagnostics_ || core_->is_disk_file(uri)) push_empty(uri);
  };
  core_ =
      std::make_unique<AnalysisServer>(catalog, *scheduler_, std::move(core), std::move(callbacks));
  // On the constructing thread, before the main loop has anything to do.
  if (!options_.docs_dir.empty())
    core_->set_docs_base(
        path_to_uri(std::filesystem::absolute(options_.docs_dir).lexically_normal().string()));
  bind_methods();
}

LspServer::~LspServer() {
  // On the main loop, while everything the replies need exists: what still waits is answered
  // and the AnalysisServer stops its timers. Then the loop stops and the analysis and worker
  // threads finish their current jobs (whose results are posted and never run).
  std::promise<void> done;
  scheduler_->post([&] {
    requests_.abandon_started("the server stopped before the request was answered");
    core_->stop();
    done.set_value();
  });
  done.get_future().wait_for(std::chrono::seconds(1));
  scheduler_->shutdown();
}

// ---------------------------------------------------------------------------------------
// Reader thread

void LspServer::on_frames(std::vector<Frame>& frames) {
  // Every frame of the batch is accepted before any is dispatched, so a $/cancelRequest
  // that arrived together with its request is marked before the main loop can start the
  // request: the cancellation cannot lose a race it was never meant to run.
  std::vector<Incoming> accepted;
  accepted.reserve(frames.size());
  for (auto& f : frames) {
    if (auto in = accept(f)) accepted.push_back(std::move(*in));
    std::string().swap(f.body);  // a 100 MB didOpen's body is not kept past its parse
  }
  for (auto& in : accepted)
    scheduler_->post([this, in = std::move(in)]() mutable { handle(std::move(in)); });
}

std::optional<LspServer::Incoming> LspServer::accept(const Frame& frame) {
  MessageReader::Outcome read = reader_.read(frame);
  if (auto* rejected = std::get_if<MessageReader::Rejected>(&read)) {
    requests_.reject(rejected->id, rejected->code, rejected->message);
    return std::nullopt;
  }
  if (std::holds_alternative<MessageReader::Ignored>(read)) return std::nullopt;
  Incoming in{std::move(std::get<json>(read)), std::nullopt};
  json& msg = in.msg;
  if (msg.contains("id")) {
    in.request = requests_.accept(msg["id"], msg["method"].get<std::string>());
  } else if (msg["method"] == "$/cancelRequest") {
    // Marked here, at once: the request may still be queued behind slow work.
    const json& params = msg.contains("params") ? msg["params"] : json();
    if (params.is_object() && params.contains("id")) requests_.mark_cancelled(params["id"]);
  }
  return in;
}

void LspServer::prepare_for_body(std::size_t size) {
  reader_.prepare_for_body(size);
}

void LspServer::drop_prepared() {
  reader_.drop_prepared();
}

int LspServer::on_eof() {
  // Give queued messages a moment (a client may write "exit" and close at once), but never
  // more than half a second: the process must end within a second of stdin closing.
  std::promise<void> drained;
  auto f = drained.get_future();
  scheduler_->post([&drained] { drained.set_value(); });
  f.wait_for(std::chrono::milliseconds(500));
  return exit_code();
}

// ---------------------------------------------------------------------------------------
// Main loop: the lifecycle and dispatch

void LspServer::handle(Incoming in) {
  if (exited_) return;  // after "exit" nothing is answered (the process is normally gone)
  if (initializing_) {  // initialize is not answered yet: in order, after it
    held_.push_back(std::move(in));
    return;
  }
  std::string method = in.msg["method"];
  // Moved, not copied: a didOpen's params hold the whole document.
  json params = in.msg.contains("params") ? std::move(in.msg["params"]) : json::object();
  if (in.request) return handle_request(*in.request, method, params);
  handle_notification(method, params);
}

void LspServer::handle_request(RequestSeq seq, const std::string& method, json& params) {
  ReplyOnce reply = requests_.start(seq);
  if (reply.token().cancelled()) return reply.error(kRequestCancelled, "request cancelled");
  if (!initialized_ && method != "initialize")
    return reply.error(kServerNotInitialized, "server not initialized: send initialize first");
  if (shutdown_) return reply.error(kInvalidRequest, "the server is shutting down");
  if (method == "shutdown") {
    shutdown_ = true;
    // Requests that came before it and still wait are answered first.
    return reply.result_after_earlier(nullptr);
  }
  if (method == "initialize" && initialized_)
    return reply.error(kInvalidRequest, "initialize was already received");
  auto it = request_methods_.find(method);
  if (it == request_methods_.end())
    return reply.error(kMethodNotFound, "method not found: " + method);
  it->second(params, std::move(reply));
}

void LspServer::handle_notification(const std::string& method, json& params) {
  if (method == "exit") return exit();
  if (!initialized_) return;  // notifications before initialize are dropped (spec)
  auto it = notification_methods_.find(method);
  // initialized, didSave, didChangeConfiguration, $/setTrace, unknown ones: nothing to do.
  if (it == notification_methods_.end()) return;
  try {
    it->second(params);
  } catch (const RpcError& e) {
    spdlog::warn("{}: {}", method, e.message);
  } catch (const std::exception& e) {
    spdlog::warn("{}: {}", method, e.what());
  }
}

void LspServer::exit() {
  // Nothing is left unanswered, whatever came in the same batch: the requests that wait get
  // an error, then a pending shutdown its result.
  requests_.abandon_started("the server is exiting; the request was not answered");
  exited_ = true;
  int code = exit_code();
  spdlog::info("exit (code {})", code);
  spdlog::default_logger()->flush();
  if (options_.exit_process) return options_.exit_process(code);
  ::_exit(code);
}

// ---------------------------------------------------------------------------------------
// The method tables

template <class R>
Callback<R> LspServer::answer(std::shared_ptr<ReplyOnce> reply) {
  return [reply = std::move(reply)](Result<R> r) {
    if (!r.ok()) return reply->error(error_code(r.failure()), r.failure().message);
    json result;
    try {
      result = to_json(r.value());
    } catch (const std::exception& e) {
      spdlog::error("{}: {}", reply->method(), e.what());
      return reply->error(kInternalError, std::string("internal error: ") + e.what());
    }
    reply->result(std::move(result));
  };
}

template <class Params, class R>
void LspServer::bind(const std::string& method,
                     void (LspServer::*handler)(Params, const CancelToken&, Callback<R>)) {
  request_methods_[method] = [this, handler](json& params, ReplyOnce reply) {
    Params parsed;
    try {
      from_json(params, parsed);
    } catch (const RpcError& e) {
      return reply.error(e.code, e.message);
    } catch (const json::exception& e) {
      return reply.error(kInvalidParams, std::string("invalid params: ") + e.what());
    }
    CancelToken token = reply.token();
    auto shared = std::make_shared<ReplyOnce>(std::move(reply));
    try {
      (this->*handler)(std::move(parsed), token, answer<R>(shared));
    } catch (const RpcError& e) {
      shared->error(e.code, e.message);
    } catch (const json::exception& e) {
      shared->error(kInvalidParams, std::string("invalid params: ") + e.what());
    } catch (const std::exception& e) {
      spdlog::error("{}: {}", shared->method(), e.what());
      shared->error(kInternalError, std::string("internal error: ") + e.what());
    }
  };
}

template <class Params>
void LspServer::bind_notification(const std::string& method, void (LspServer::*handler)(Params)) {
  // Errors are logged by handle_notification: a notification is never answered.
  notification_methods_[method] = [this, handler](json& params) {
    Params parsed;
    from_json(params, parsed);
    (this->*handler)(std::move(parsed));
  };
}

void LspServer::bind_methods() {
  bind("initialize", &LspServer::initialize);
  bind("textDocument/hover", &LspServer::hover);
  bind("textDocument/codeAction", &LspServer::code_action);
  bind("textDocument/codeLens", &LspServer::code_lens);
  bind("textDocument/diagnostic", &LspServer::pull_diagnostics);
  bind("workspace/executeCommand", &LspServer::execute_command);
  bind_notification("textDocument/didOpen", &LspServer::did_open);
  bind_notification("textDocument/didChange", &LspServer::did_change);
  bind_notification("textDocument/didClose", &LspServer::did_close);
  bind_notification("$/cancelRequest", &LspServer::cancel_request);
}

void LspServer::notify(const std::string& method, json params) {
  send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void LspServer::send(const json& msg) {
  out_.write(msg.dump(-1, ' ', false, json::error_handler_t::replace));
}

// ---------------------------------------------------------------------------------------
// Lifecycle and documents

void LspServer::initialize(InitializeParams p, const CancelToken&, Callback<json> cb) {
  core_->set_encoding(p.client.encoding);
  pull_diagnostics_ = p.client.pulls_diagnostics;
  if (p.debounce_ms) core_->set_debounce_ms(*p.debounce_ms);
  if (p.docs_dir) core_->set_docs_base(path_to_uri(*p.docs_dir));
  if (p.mask_host_names) mask_host_names_ = *p.mask_host_names;
  if (!core_->docs_base().empty() || p.root.empty()) return cb(initialized(p.client));
  // Whether the workspace holds docs/catalog.md is asked on a worker, never on the main
  // loop; what the client sends meanwhile waits. Not cancellable: the server needs the
  // answer whether or not the client still does.
  initializing_ = true;
  core_->find_docs_base(CancelToken(), std::move(p.root),
                        [this, client = p.client, cb](Result<std::string> r) {
                          if (r.ok() && !r.value().empty()) core_->set_docs_base(r.value());
                          cb(initialized(client));
                          resume_held();
                        });
}

json LspServer::initialized(const ClientCapabilities& client) {
  initialized_ = true;
  spdlog::info("initialize: encoding {}, docs '{}', mask {}, diagnostics {}",
               client.encoding == Encoding::kUtf8 ? "utf-8" : "utf-16", core_->docs_base(),
               mask_host_names_, pull_diagnostics_ ? "pulled" : "pushed");
  return {{"capabilities", server_capabilities(client, command_names())},
          {"serverInfo", {{"name", "firstfault"}, {"version", FF_VERSION}}}};
}

void LspServer::resume_held() {
  initializing_ = false;
  std::vector<Incoming> held = std::move(held_);
  held_.clear();
  for (auto& in : held) handle(std::move(in));
}

void LspServer::did_open(DidOpenParams p) {
  // A file the server read from disk is synchronized by the client from now on: a pulling
  // client would otherwise keep the diagnostics pushed for it beside the pulled ones.
  bool was_on_disk = core_->is_disk_file(p.uri);
  // Moved, not copied: it is the whole document.
  core_->open(p.uri, p.language_id, p.version, std::move(p.text));
  if (was_on_disk && pull_diagnostics_) {
    published_.forget(p.uri);
    push_empty(p.uri);
  }
}

void LspServer::did_change(DidChangeParams p) {
  if (!core_->change(p.uri, p.version, p.changes))
    spdlog::warn("didChange {} v{} ignored (unknown document or older version)", p.uri, p.version);
}

void LspServer::did_close(TextDocumentParams p) {
  published_.forget(p.uri);
  core_->close(p.uri);
}

void LspServer::cancel_request(CancelParams p) {
  // A started request is answered now, whatever it waits for (an analysis, a worker).
  if (p.id) requests_.cancel(*p.id);
}

void LspServer::push_empty(const std::string& uri) {
  if (!exited_)
    notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
}

void LspServer::request_refresh() {
  if (refresh_posted_) return;
  refresh_posted_ = true;
  // After the rest of this analysis's publications and the pulls it answers.
  scheduler_->post([this] {
    refresh_posted_ = false;
    if (exited_ || shutdown_) return;
    send({{"jsonrpc", "2.0"},
          {"id", "firstfault/refresh/" + std::to_string(next_server_request_++)},
          {"method", "workspace/diagnostic/refresh"}});
  });
}

void LspServer::publish(const Publication& p) {
  if (exited_) return;  // nothing is sent after exit
  if (pull_diagnostics_ && !core_->is_disk_file(p.uri)) return request_refresh();
  if (mask_host_names_)
    out_.write(published_.message({p.uri, p.version, shown(p.items)}));
  else
    out_.write(published_.message(p));
}

std::vector<DiagnosticItem> LspServer::shown(std::vector<DiagnosticItem> items) {
  if (!mask_host_names_) return items;
  // Every host first, so a name is masked wherever it appears, even before its own line.
  for (const auto& d : items) {
    if (!d.host.empty()) masker_.add_host(d.host);
    if (d.verdict && !d.verdict->host.empty()) masker_.add_host(d.verdict->host);
    masker_.learn(d.message);
  }
  for (auto& d : items) {
    d.message = masker_.mask(d.message);
    if (!d.host.empty()) d.host = masker_.mask(d.host);
    for (auto& r : d.related) r.message = masker_.mask(r.message);
    if (d.verdict) {
      d.verdict->host = masker_.mask(d.verdict->host);
      d.verdict->summary = masker_.mask(d.verdict->summary);
    }
  }
  return items;
}

// ---------------------------------------------------------------------------------------
// Features: each a typed call of the AnalysisServer

void LspServer::hover(HoverParams p, const CancelToken& token, Callback<std::optional<Hover>> cb) {
  core_->hover(token, p.uri, p.position, std::move(cb));
}

void LspServer::code_action(CodeActionParams p, const CancelToken& token,
                            Callback<std::vector<CodeActionItem>> cb) {
  core_->code_actions(token, p.uri, p.range, std::move(cb));
}

void LspServer::code_lens(TextDocumentParams p, const CancelToken& token,
                          Callback<std::vector<LensItem>> cb) {
  core_->code_lenses(token, p.uri, std::move(cb));
}

void LspServer::pull_diagnostics(TextDocumentParams p, const CancelToken& token,
                                 Callback<FullDiagnosticReport> cb) {
  core_->diagnostics(token, p.uri,
                     [this, cb = std::move(cb)](Result<std::vector<DiagnosticItem>> r) {
                       if (!r.ok()) return cb(r.failure());
                       cb(FullDiagnosticReport{shown(std::move(r.value()))});
                     });
}

// ---------------------------------------------------------------------------------------
// stdio

int serve_stdio(const analysis::Catalog& catalog, const ServerOptions& options) {
  StdioTransport transport(STDOUT_FILENO, STDIN_FILENO);
  LspServer* server_ptr = nullptr;
  transport.set_on_closed([&] {
    // The client went away (EPIPE): nobody is listening, leave quietly.
    spdlog::info("stdout closed by the client; exiting");
    spdlog::default_logger()->flush();
    ::_exit(server_ptr ? server_ptr->exit_code() : 1);
  });
  LspServer server(catalog, options, transport);
  server_ptr = &server;
  transport.read_until_eof(server, options.max_message);
  int code = server.on_eof();
  spdlog::info("end of input; exiting with {}", code);
  spdlog::default_logger()->flush();
  ::_exit(code);  // worker threads may be mid-analysis: do not wait for them
}

}  // namespace ff::lsp
