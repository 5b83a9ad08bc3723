// The protocol adapter (lsp_server.hpp): reader-thread acceptance, dispatch of requests and
// notifications to the methods below, the lifecycle and capability negotiation, and the
// replies. Its neighbours: message_reader (a frame to a checked JSON-RPC message),
// reply_once (one reply per request), lsp_json (JSON to typed values and back),
// published_diagnostics (publishDiagnostics rendering), lsp_commands.cpp (the
// workspace/executeCommand commands) and transport (the bytes).
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
    : catalog_(catalog), options_(std::move(options)), out_(out) {
  AnalysisServerOptions core;
  core.debounce_ms = options_.debounce_ms;
  core.topology = options_.topology;
  core.disk_reader = options_.disk_reader;
  core.watch_ms = options_.watch_ms;
  core.before_analysis = options_.before_analysis;
  core.before_work = options_.before_work;
  AnalysisServer::Callbacks callbacks;
  callbacks.publish = [this](const FeatureServer::Publication& p) { publish(p); };
  callbacks.clear = [this](const std::string& uri) {
    published_.forget(uri);
    // A pulling client forgets a closed document's diagnostics itself.
    if (!pull_diagnostics_ || core_->is_disk_file(uri)) push_empty(uri);
  };
  core_ = std::make_unique<AnalysisServer>(catalog, std::move(core), std::move(callbacks));
  if (!options_.docs_dir.empty())
    core_->set_docs_base(
        path_to_uri(std::filesystem::absolute(options_.docs_dir).lexically_normal().string()));
}

LspServer::~LspServer() {
  // Requests still waiting are answered (with an error) by the AnalysisServer's
  // destructor, on its protocol thread, while this server still exists. core_ keeps
  // pointing at it meanwhile (reset() would null it first): the protocol thread's last
  // publications still ask it which files it reads from disk.
  delete core_.get();
  (void)core_.release();
}

// ---------------------------------------------------------------------------------------
// Reader thread

void LspServer::on_frames(std::vector<Frame>& frames) {
  // Every frame of the batch is accepted before any is dispatched, so a $/cancelRequest
  // that arrived together with its request is marked before the protocol thread can
  // start the request: the cancellation cannot lose a race it was never meant to run.
  std::vector<json> accepted;
  accepted.reserve(frames.size());
  for (auto& f : frames) {
    if (auto msg = accept(f)) accepted.push_back(std::move(*msg));
    std::string().swap(f.body);  // a 100 MB didOpen's body is not kept past its parse
  }
  for (auto& msg : accepted)
    core_->post([this, msg = std::move(msg)]() mutable { handle(std::move(msg)); });
}

std::optional<nlohmann::json> LspServer::accept(const Frame& frame) {
  MessageReader::Outcome read = reader_.read(frame);
  if (auto* rejected = std::get_if<MessageReader::Rejected>(&read)) {
    send_error(rejected->id, rejected->code, rejected->message);  // no ReplyOnce yet
    return std::nullopt;
  }
  if (std::holds_alternative<MessageReader::Ignored>(read)) return std::nullopt;
  json msg = std::move(std::get<json>(read));
  if (!msg.contains("id") && msg["method"] == "$/cancelRequest") {
    // Marked here, at once: the request may still be queued behind slow work.
    const json& params = msg.contains("params") ? msg["params"] : json();
    if (params.is_object() && params.contains("id")) {
      std::string key = id_key(params["id"]);
      std::lock_guard<std::mutex> lock(ids_mu_);
      if (inflight_.count(key)) cancelled_.insert(key);
    }
  } else if (msg.contains("id")) {
    std::lock_guard<std::mutex> lock(ids_mu_);
    inflight_.insert(id_key(msg["id"]));
  }
  return msg;
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
  core_->post([&drained] { drained.set_value(); });
  f.wait_for(std::chrono::milliseconds(500));
  return exit_code();
}

// ---------------------------------------------------------------------------------------
// Protocol thread: dispatch

void LspServer::handle(json msg) {
  if (exited_) return;  // after "exit" nothing is answered (the process is normally gone)
  std::string method = msg["method"];
  // Moved, not copied: a didOpen's params hold the whole document.
  json params = msg.contains("params") ? std::move(msg["params"]) : json::object();
  if (!msg.contains("id")) {
    try {
      handle_notification(method, params);
    } catch (const RpcError& e) {
      spdlog::warn("{}: {}", method, e.message);
    } catch (const std::exception& e) {
      spdlog::warn("{}: {}", method, e.what());
    }
    return;
  }
  handle_request(msg["id"], method, params);
}

// ---------------------------------------------------------------------------------------
// Requests

void LspServer::answer_failure(ReplyOnce& reply, const Failure& f) {
  reply.error(error_code(f), f.message);
  answer_shutdown_when_done();
}

void LspServer::answer_rendered(ReplyOnce& reply, const std::function<json()>& render) {
  try {
    reply.result(render());
  } catch (const std::exception& e) {
    spdlog::error("{}: {}", reply.method(), e.what());
    reply.error(kInternalError, std::string("internal error: ") + e.what());
  }
  answer_shutdown_when_done();
}

void LspServer::handle_request(const json& id, const std::string& method, json& params) {
  ReplyOnce reply(*this, id, method);
  if (is_cancelled(id)) return reply.error(kRequestCancelled, "request cancelled");
  if (!initialized_ && method != "initialize")
    return reply.error(kServerNotInitialized, "server not initialized: send initialize first");
  if (shutdown_) return reply.error(kInvalidRequest, "the server is shutting down");
  if (method == "shutdown") {
    shutdown_ = true;
    // Requests that came before it and still wait are answered first.
    if (core_->waiting() > 0) {
      shutdown_reply_.emplace(std::move(reply));
      return;
    }
    return reply.result(nullptr);
  }
  // The methods the server binds; each answers through its reply, now or later.
  auto shared = std::make_shared<ReplyOnce>(std::move(reply));
  try {
    if (method == "initialize") {
      if (initialized_) return shared->error(kInvalidRequest, "initialize was already received");
      return shared->result(initialize(params));
    }
    if (method == "textDocument/hover") return hover(shared, params);
    if (method == "textDocument/codeAction") return code_action(shared, params);
    if (method == "textDocument/codeLens") return code_lens(shared, params);
    if (method == "textDocument/diagnostic") return pull_diagnostics(shared, params);
    if (method == "workspace/executeCommand") return execute_command(shared, params);
    shared->error(kMethodNotFound, "method not found: " + method);
  } catch (const RpcError& e) {
    shared->error(e.code, e.message);
  } catch (const json::exception& e) {
    shared->error(kInvalidParams, std::string("invalid params: ") + e.what());
  } catch (const std::exception& e) {
    spdlog::error("{}: {}", method, e.what());
    shared->error(kInternalError, std::string("internal error: ") + e.what());
  }
}

void LspServer::handle_notification(const std::string& method, json& params) {
  if (method == "exit") {
    // Nothing is left unanswered, whatever came in the same batch.
    core_->abandon_all("the server is exiting; the request was not answered");
    answer_shutdown_when_done();
    exited_ = true;
    int code = exit_code();
    spdlog::info("exit (code {})", code);
    spdlog::default_logger()->flush();
    if (options_.exit_process) return options_.exit_process(code);
    ::_exit(code);
  }
  if (!initialized_) return;  // notifications before initialize are dropped (spec)
  if (method == "initialized") return;
  if (method == "textDocument/didOpen") return did_open(params);
  if (method == "textDocument/didChange") return did_change(params);
  if (method == "textDocument/didClose") return did_close(params);
  if (method == "$/cancelRequest") {
    // Requests waiting (for an analysis or a worker) are answered now.
    if (params.contains("id")) core_->cancel(id_key(params["id"]));
    answer_shutdown_when_done();
    return;
  }
  // didSave, didChangeConfiguration, $/setTrace, unknown notifications: nothing to do.
}

bool LspServer::is_cancelled(const json& id) {
  std::lock_guard<std::mutex> lock(ids_mu_);
  return cancelled_.count(id_key(id)) > 0;
}

void LspServer::send_result(const json& id, json result) {
  {
    std::lock_guard<std::mutex> lock(ids_mu_);
    std::string key = id_key(id);
    bool cancelled = cancelled_.erase(key) > 0;
    inflight_.erase(key);
    if (cancelled) {
      send({{"jsonrpc", "2.0"},
            {"id", id},
            {"error", {{"code", kRequestCancelled}, {"message", "request cancelled"}}}});
      return;
    }
  }
  send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void LspServer::send_error(const json& id, int code, const std::string& message) {
  if (!id.is_null()) {
    std::lock_guard<std::mutex> lock(ids_mu_);
    cancelled_.erase(id_key(id));
    inflight_.erase(id_key(id));
  }
  send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void LspServer::notify(const std::string& method, json params) {
  send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void LspServer::send(const json& msg) {
  out_.write(msg.dump(-1, ' ', false, json::error_handler_t::replace));
}

// ---------------------------------------------------------------------------------------
// Lifecycle and documents

json LspServer::initialize(const json& params) {
  if (!params.is_object()) invalid_params("initialize params must be an object");
  ClientCapabilities client = client_capabilities(params.value("capabilities", json::object()));
  Encoding enc = client.encoding;
  core_->set_encoding(enc);
  pull_diagnostics_ = client.pulls_diagnostics;
  const json opts = params.value("initializationOptions", json::object());
  if (opts.is_object()) {
    if (opts.contains("debounceMs") && opts["debounceMs"].is_number_integer())
      core_->set_debounce_ms(opts["debounceMs"].get<int>());
    if (opts.contains("docsDir") && opts["docsDir"].is_string())
      core_->set_docs_base(path_to_uri(opts["docsDir"].get<std::string>()));
    if (opts.contains("maskHostNames") && opts["maskHostNames"].is_boolean())
      mask_host_names_ = opts["maskHostNames"].get<bool>();
  }
  if (core_->docs_base().empty()) {
    std::string root;
    if (params.contains("rootUri") && params["rootUri"].is_string())
      root = uri_to_path(params["rootUri"]);
    else if (params.contains("rootPath") && params["rootPath"].is_string())
      root = params["rootPath"];
    std::error_code ec;
    if (!root.empty() &&
        std::filesystem::exists(std::filesystem::path(root) / "docs" / "catalog.md", ec))
      core_->set_docs_base(
          path_to_uri((std::filesystem::path(root) / "docs").lexically_normal().string()));
  }
  initialized_ = true;
  spdlog::info("initialize: encoding {}, docs '{}', mask {}, diagnostics {}",
               enc == Encoding::kUtf8 ? "utf-8" : "utf-16", core_->docs_base(), mask_host_names_,
               pull_diagnostics_ ? "pulled" : "pushed");
  return {{"capabilities", server_capabilities(client, command_names())},
          {"serverInfo", {{"name", "firstfault"}, {"version", FF_VERSION}}}};
}

void LspServer::did_open(json& params) {
  member(params, "textDocument", "textDocument");
  json& td = params["textDocument"];
  std::string uri = uri_of(params);
  std::string lang = td.value("languageId", "");
  std::int64_t version = version_of(params);
  member(td, "text", "textDocument.text");
  json& text = td["text"];
  if (!text.is_string()) invalid_params("textDocument.text must be a string");
  // A file the server read from disk is synchronized by the client from now on: a pulling
  // client would otherwise keep the diagnostics pushed for it beside the pulled ones.
  bool was_on_disk = core_->is_disk_file(uri);
  // Moved out, not copied: it is the whole document.
  core_->open(uri, lang, version, std::move(text.get_ref<std::string&>()));
  if (was_on_disk && pull_diagnostics_) {
    published_.forget(uri);
    push_empty(uri);
  }
}

void LspServer::did_change(json& params) {
  std::string uri = uri_of(params);
  std::int64_t version = version_of(params);
  std::vector<ContentChange> changes;
  member(params, "contentChanges", "contentChanges");
  for (auto& c : params["contentChanges"]) {
    ContentChange ch;
    const json& t = member(c, "text", "contentChanges[].text");
    if (!t.is_string()) invalid_params("contentChanges[].text must be a string");
    ch.text = std::move(c["text"].get_ref<std::string&>());
    if (c.contains("range")) ch.range = range_of(c["range"]);
    changes.push_back(std::move(ch));
  }
  if (!core_->change(uri, version, changes))
    spdlog::warn("didChange {} v{} ignored (unknown document or older version)", uri, version);
}

void LspServer::did_close(const json& params) {
  std::string uri = uri_of(params);
  published_.forget(uri);
  core_->close(uri);
  answer_shutdown_when_done();
}

void LspServer::push_empty(const std::string& uri) {
  if (!exited_)
    notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
}

void LspServer::request_refresh() {
  if (refresh_posted_) return;
  refresh_posted_ = true;
  // After the rest of this analysis's publications and the pulls it answers.
  core_->post([this] {
    refresh_posted_ = false;
    if (exited_ || shutdown_) return;
    send({{"jsonrpc", "2.0"},
          {"id", "firstfault/refresh/" + std::to_string(next_server_request_++)},
          {"method", "workspace/diagnostic/refresh"}});
  });
}

void LspServer::publish(const FeatureServer::Publication& p) {
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
// Features

void LspServer::hover(SharedReply reply, const json& params) {
  std::string uri = uri_of(params);
  Position pos = position_of(member(params, "position", "position"));
  core_->hover(id_key(reply->id()), uri, pos,
               answer<std::optional<Hover>>(reply, [](const std::optional<Hover>& h) -> json {
                 if (!h) return nullptr;
                 return {{"contents", {{"kind", "markdown"}, {"value", h->markdown}}},
                         {"range", range_json(h->range)}};
               }));
}

void LspServer::code_action(SharedReply reply, const json& params) {
  std::string uri = uri_of(params);
  Range range = range_of(member(params, "range", "range"));
  core_->code_actions(
      id_key(reply->id()), uri, range,
      answer<std::vector<CodeActionItem>>(reply, [](const std::vector<CodeActionItem>& actions) {
        json out = json::array();
        for (const auto& a : actions) out.push_back(code_action_json(a));
        return out;
      }));
}

void LspServer::code_lens(SharedReply reply, const json& params) {
  std::string uri = uri_of(params);
  core_->code_lenses(
      id_key(reply->id()), uri,
      answer<std::vector<LensItem>>(reply, [](const std::vector<LensItem>& ls) {
        json out = json::array();
        for (const auto& l : ls)
          out.push_back({{"range", range_json(l.range)}, {"command", command_json(l.command)}});
        return out;
      }));
}

void LspServer::pull_diagnostics(SharedReply reply, const json& params) {
  std::string uri = uri_of(params);
  core_->diagnostics(
      id_key(reply->id()), uri,
      answer<std::vector<DiagnosticItem>>(reply, [this](const std::vector<DiagnosticItem>& ds) {
        json items = json::array();
        for (const auto& d : shown(ds)) items.push_back(diagnostic_json(d));
        return json{{"kind", "full"}, {"items", items}};
      }));
}

void LspServer::answer_shutdown_when_done() {
  // core_ is null while it is being destroyed (unique_ptr::reset clears the pointer first):
  // its destructor answers what still waits, and then nothing does.
  if (!shutdown_reply_ || (core_ && core_->waiting() > 0)) return;
  shutdown_reply_->result(nullptr);
  shutdown_reply_.reset();
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
