#include "lsp/lsp_server.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <future>
#include <utility>

#include "report/mask.hpp"
#include "report/report.hpp"
#include "topology/topo_report.hpp"

#ifndef FF_VERSION
#define FF_VERSION "dev"
#endif

namespace ff::lsp {

static_assert(kBodyPadding >= jsonio::kPadding,
              "frame bodies must carry the JSON parser's padding");

namespace {

using json = nlohmann::json;

struct RpcError {
  int code;
  std::string message;
};

[[noreturn]] void invalid_params(const std::string& what) {
  throw RpcError{kInvalidParams, what};
}

const json& member(const json& j, const char* key, const char* what) {
  if (!j.is_object() || !j.contains(key)) invalid_params(std::string("missing ") + what);
  return j.at(key);
}

std::string uri_of(const json& params) {
  const json& td = member(params, "textDocument", "textDocument");
  const json& uri = member(td, "uri", "textDocument.uri");
  if (!uri.is_string()) invalid_params("textDocument.uri must be a string");
  return uri.get<std::string>();
}

std::uint32_t u32(const json& j, const char* what) {
  if (!j.is_number_integer() && !j.is_number_unsigned())
    invalid_params(std::string(what) + " must be an integer");
  auto v = j.get<std::int64_t>();
  if (v < 0) invalid_params(std::string(what) + " must not be negative");
  return static_cast<std::uint32_t>(std::min<std::int64_t>(v, 0xFFFFFFFF));
}

Position position_of(const json& j) {
  return {u32(member(j, "line", "position.line"), "line"),
          u32(member(j, "character", "position.character"), "character")};
}

Range range_of(const json& j) {
  return {position_of(member(j, "start", "range.start")),
          position_of(member(j, "end", "range.end"))};
}

std::string id_key(const json& id) {
  return id.dump();
}

}  // namespace

LspServer::LspServer(const analysis::Catalog& catalog, ServerOptions options, Transport& out)
    : catalog_(catalog), options_(std::move(options)), out_(out) {
  AnalysisServerOptions core;
  core.debounce_ms = options_.debounce_ms;
  core.binding = options_.binding;
  core.disk_reader = options_.disk_reader;
  core.watch_ms = options_.watch_ms;
  core.before_analysis = options_.before_analysis;
  core.before_work = options_.before_work;
  AnalysisServer::Callbacks callbacks;
  callbacks.publish = [this](const FeatureServer::Publication& p) { publish(p); };
  callbacks.clear = [this](const std::string& uri) {
    rendered_.erase(uri);
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
  if (frame.kind == Frame::Kind::kError) {
    spdlog::warn("framing: {}", frame.error);
    bool too_large = frame.error.find("exceeds the limit") != std::string::npos;
    reply_error(nullptr, too_large ? kInvalidRequest : kParseError, frame.error);
    return std::nullopt;
  }
  std::string why;
  auto t0 = std::chrono::steady_clock::now();
  std::optional<json> parsed = reader_.parse(frame.body, &why);
  if (frame.body.size() >= (std::size_t{1} << 20))
    spdlog::debug(
        "parsed a {} byte message in {:.1f} ms", frame.body.size(),
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  if (!parsed) {
    spdlog::warn("body is not JSON ({} bytes): {}", frame.body.size(), why);
    reply_error(nullptr, kParseError, "Parse error: the message body is not JSON");
    return std::nullopt;
  }
  json msg = std::move(*parsed);
  if (!msg.is_object()) {
    reply_error(nullptr, kInvalidRequest, "Invalid Request: a message must be a JSON object");
    return std::nullopt;
  }
  json id = msg.contains("id") ? msg["id"] : json();
  bool has_id = msg.contains("id");
  if (has_id && !id.is_string() && !id.is_number_integer() && !id.is_number_unsigned()) {
    reply_error(nullptr, kInvalidRequest, "Invalid Request: id must be an integer or a string");
    return std::nullopt;
  }
  auto jsonrpc = msg.find("jsonrpc");
  if (jsonrpc == msg.end() || *jsonrpc != "2.0") {
    reply_error(has_id ? id : json(), kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"");
    return std::nullopt;
  }
  auto method = msg.find("method");
  if (method == msg.end()) {
    // A response to a request of ours.
    if (has_id && (msg.contains("result") || msg.contains("error"))) return std::nullopt;
    reply_error(has_id ? id : json(), kInvalidRequest, "Invalid Request: no method");
    return std::nullopt;
  }
  if (!method->is_string()) {
    reply_error(has_id ? id : json(), kInvalidRequest, "Invalid Request: method must be a string");
    return std::nullopt;
  }
  if (msg.contains("params") && !msg["params"].is_object() && !msg["params"].is_array()) {
    if (has_id)
      reply_error(id, kInvalidRequest, "Invalid Request: params must be an object or array");
    return std::nullopt;
  }
  std::string m = *method;
  if (!has_id && m == "$/cancelRequest") {
    // Marked here, at once: the request may still be queued behind slow work.
    const json& params = msg.contains("params") ? msg["params"] : json();
    if (params.is_object() && params.contains("id")) {
      std::string key = id_key(params["id"]);
      std::lock_guard<std::mutex> lock(ids_mu_);
      if (inflight_.count(key)) cancelled_.insert(key);
    }
  } else if (has_id) {
    std::lock_guard<std::mutex> lock(ids_mu_);
    inflight_.insert(id_key(id));
  }
  return msg;
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
// One reply per request

LspServer::ReplyOnce::ReplyOnce(LspServer& server, json id, std::string method)
    : server_(&server), id_(std::move(id)), method_(std::move(method)) {}

LspServer::ReplyOnce::ReplyOnce(ReplyOnce&& o) noexcept
    : server_(std::exchange(o.server_, nullptr)),
      id_(std::move(o.id_)),
      method_(std::move(o.method_)),
      replied_(o.replied_) {}

LspServer::ReplyOnce& LspServer::ReplyOnce::operator=(ReplyOnce&& o) noexcept {
  if (this != &o) {
    if (server_ && !replied_) error(kInternalError, "server failed to reply to " + method_);
    server_ = std::exchange(o.server_, nullptr);
    id_ = std::move(o.id_);
    method_ = std::move(o.method_);
    replied_ = o.replied_;
  }
  return *this;
}

LspServer::ReplyOnce::~ReplyOnce() {
  if (!server_ || replied_) return;
  spdlog::error("{} (id {}) was never answered; replying with an error", method_, id_.dump());
  try {
    error(kInternalError, "server failed to reply to " + method_);
  } catch (...) {
  }
}

bool LspServer::ReplyOnce::claim() {
  if (!server_) return false;
  if (replied_) {
    ++server_->replied_twice_;
    spdlog::error("{} (id {}) answered twice; the second reply is dropped", method_, id_.dump());
    return false;
  }
  replied_ = true;
  return true;
}

void LspServer::ReplyOnce::result(json r) {
  if (claim()) server_->reply(id_, std::move(r));
}

void LspServer::ReplyOnce::error(int code, const std::string& message) {
  if (claim()) server_->reply_error(id_, code, message);
}

// ---------------------------------------------------------------------------------------
// Requests

namespace {

int error_code(const Failure& f) {
  switch (f.kind) {
    case Failure::Kind::kCancelled:
      return kRequestCancelled;
    case Failure::Kind::kAbandoned:
      return kRequestFailed;
    case Failure::Kind::kInvalid:
      return kInvalidParams;
    case Failure::Kind::kFailed:
      break;
  }
  return kInternalError;
}

}  // namespace

template <class T, class Render>
Callback<T> LspServer::answer(SharedReply reply, Render render) {
  return [this, reply, render](Result<T> r) {
    if (!r.ok()) {
      reply->error(error_code(r.failure()), r.failure().message);
    } else {
      try {
        reply->result(render(r.value()));
      } catch (const std::exception& e) {
        spdlog::error("{}: {}", reply->method(), e.what());
        reply->error(kInternalError, std::string("internal error: ") + e.what());
      }
    }
    answer_shutdown_when_done();
  };
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
    if (method == "codeAction/resolve") return shared->result(code_action_resolve(params));
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

void LspServer::reply(const json& id, json result) {
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

void LspServer::reply_error(const json& id, int code, const std::string& message) {
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
  const json caps = params.value("capabilities", json::object());
  Encoding enc = Encoding::kUtf16;
  try {
    for (const auto& e : caps.at("general").at("positionEncodings"))
      if (e == "utf-8") enc = Encoding::kUtf8;
  } catch (const json::exception&) {
  }
  core_->set_encoding(enc);
  try {
    for (const auto& p :
         caps.at("textDocument").at("codeAction").at("resolveSupport").at("properties"))
      if (p == "edit") can_resolve_ = true;
  } catch (const json::exception&) {
  }
  try {
    pull_diagnostics_ = caps.at("textDocument").at("diagnostic").is_object() &&
                        caps.at("workspace").at("diagnostics").value("refreshSupport", false);
  } catch (const json::exception&) {
    pull_diagnostics_ = false;
  }
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
  spdlog::info("initialize: encoding {}, resolve {}, docs '{}', mask {}, diagnostics {}",
               enc == Encoding::kUtf8 ? "utf-8" : "utf-16", can_resolve_, core_->docs_base(),
               mask_host_names_, pull_diagnostics_ ? "pulled" : "pushed");
  json commands = {"firstfault.diagnoseText", "firstfault.checkTopology", "firstfault.report",
                   "firstfault.analyzeFile",  "firstfault.analyzeFolder", "firstfault.forgetFile"};
  json caps_out = {
      {"positionEncoding", enc == Encoding::kUtf8 ? "utf-8" : "utf-16"},
      {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", false}}},
      {"hoverProvider", true},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}, {"resolveProvider", true}}},
      {"codeLensProvider", {{"resolveProvider", false}}},
      {"executeCommandProvider", {{"commands", commands}}}};
  if (pull_diagnostics_)
    caps_out["diagnosticProvider"] = {{"identifier", "firstfault"},
                                      {"interFileDependencies", true},
                                      {"workspaceDiagnostics", false}};
  return {{"capabilities", std::move(caps_out)},
          {"serverInfo", {{"name", "firstfault"}, {"version", FF_VERSION}}}};
}

void LspServer::did_open(json& params) {
  member(params, "textDocument", "textDocument");
  json& td = params["textDocument"];
  std::string uri = uri_of(params);
  std::string lang = td.value("languageId", "");
  std::int64_t version = td.value("version", 0);
  member(td, "text", "textDocument.text");
  json& text = td["text"];
  if (!text.is_string()) invalid_params("textDocument.text must be a string");
  // A file the server read from disk is synchronized by the client from now on: a pulling
  // client would otherwise keep the diagnostics pushed for it beside the pulled ones.
  bool was_on_disk = core_->is_disk_file(uri);
  // Moved out, not copied: it is the whole document.
  core_->open(uri, lang, version, std::move(text.get_ref<std::string&>()));
  if (was_on_disk && pull_diagnostics_) {
    rendered_.erase(uri);
    push_empty(uri);
  }
}

void LspServer::did_change(json& params) {
  std::string uri = uri_of(params);
  std::int64_t version = params["textDocument"].value("version", 0);
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
  rendered_.erase(uri);
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
  auto t0 = std::chrono::steady_clock::now();
  auto& cache = rendered_[p.uri];
  std::vector<std::pair<DiagnosticItem, std::string>> now;
  now.reserve(p.items.size());
  std::size_t reused = 0, bytes = 0;
  for (std::size_t i = 0; i < p.items.size(); ++i) {
    // Items come sorted by line, so an unchanged one sits at the same index.
    if (i < cache.size() && cache[i].first == p.items[i]) {
      now.push_back(std::move(cache[i]));
      ++reused;
    } else {
      now.emplace_back(
          p.items[i],
          diagnostic_json(p.items[i]).dump(-1, ' ', false, json::error_handler_t::replace));
    }
    bytes += now.back().second.size() + 1;
  }
  cache = std::move(now);
  // The same message notify() would send, assembled from the rendered items.
  std::string body = R"({"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{)";
  body.reserve(body.size() + bytes + p.uri.size() + 64);
  body += R"("uri":)" + json(p.uri).dump(-1, ' ', false, json::error_handler_t::replace);
  body += R"(,"version":)" + std::to_string(p.version) + R"(,"diagnostics":[)";
  for (std::size_t i = 0; i < cache.size(); ++i) {
    if (i) body += ',';
    body += cache[i].second;
  }
  body += "]}}";
  out_.write(body);
  spdlog::debug(
      "published {} diagnostics ({} rendered again) for {} v{} in {:.1f} ms", p.items.size(),
      p.items.size() - reused, p.uri, p.version,
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

// ---------------------------------------------------------------------------------------
// JSON conversions

json LspServer::range_json(const Range& r) const {
  return {{"start", {{"line", r.start.line}, {"character", r.start.character}}},
          {"end", {{"line", r.end.line}, {"character", r.end.character}}}};
}

namespace {

// The typed half of a diagnostic, which clients read instead of its message (the
// extension's status bar; docs/LSP.md). rank, host and confidence are null when unknown.
// tests/lsp/golden/ holds what the server sends for a real log; the extension's tests read it.
json diagnostic_data(const DiagnosticItem& d, json env) {
  json data = {{"rule", d.rule_id},
               {"title", d.title},
               {"category", d.category},
               {"role", role_name(d.role)},
               {"rank", d.rank ? json(*d.rank) : json()},
               {"host", d.host.empty() ? json() : json(d.host)},
               {"confidence", d.confidence ? json(*d.confidence) : json()},
               {"env", std::move(env)}};
  if (d.verdict) {
    const VerdictItem& v = *d.verdict;
    json vj = {{"fault", v.fault}, {"restart", v.restart}, {"node_action", v.node_action},
               {"host", v.host.empty() ? json(nullptr) : json(v.host)},
               {"gpu", v.gpu.empty() ? json(nullptr) : json(v.gpu)}, {"summary", v.summary}};
    if (!v.xid_resolution.empty()) vj["xid_resolution"] = v.xid_resolution;
    data["verdict"] = std::move(vj);
  }
  return data;
}

}  // namespace

json LspServer::diagnostic_json(const DiagnosticItem& d) const {
  json related = json::array();
  for (const auto& r : d.related)
    related.push_back(
        {{"location", {{"uri", r.uri}, {"range", range_json(r.range)}}}, {"message", r.message}});
  json env = json::object();
  for (const auto& [k, v] : d.env) env[k] = v;
  json j = {{"range", range_json(d.range)},
            {"severity", static_cast<int>(d.severity)},
            {"code", d.rule_id},
            {"codeDescription", {{"href", d.href}}},
            {"source", "firstfault"},
            {"message", d.message},
            {"data", diagnostic_data(d, std::move(env))}};
  if (!related.empty()) j["relatedInformation"] = related;
  return j;
}

json LspServer::file_edit_json(const FileEdit& e) const {
  return {{"documentChanges",
           {{{"kind", "create"}, {"uri", e.uri}, {"options", {{"overwrite", true}}}},
            {{"textDocument", {{"uri", e.uri}, {"version", nullptr}}},
             {"edits", {{{"range", range_json({})}, {"newText", e.text}}}}}}}};
}

// ---------------------------------------------------------------------------------------
// Features

void LspServer::hover(SharedReply reply, const json& params) {
  std::string uri = uri_of(params);
  Position pos = position_of(member(params, "position", "position"));
  core_->hover(id_key(reply->id()), uri, pos,
               answer<std::optional<Hover>>(reply, [this](const std::optional<Hover>& h) -> json {
                 if (!h) return nullptr;
                 return {{"contents", {{"kind", "markdown"}, {"value", h->markdown}}},
                         {"range", range_json(h->range)}};
               }));
}

json LspServer::code_action_json(const CodeActionItem& a) const {
  json diags = json::array();
  for (const auto& d : a.diagnostics) diags.push_back(diagnostic_json(d));
  json j = {{"title", a.title}, {"kind", a.kind}, {"diagnostics", diags}};
  if (a.preferred) j["isPreferred"] = true;
  if (a.resolve)
    j["data"] = {{"uri", a.resolve->uri},
                 {"rule", a.resolve->rule_id},
                 {"kind", action_kind_name(a.resolve->kind)}};
  if (a.edit || !a.more_edits.empty()) {
    j["edit"] = a.edit ? file_edit_json(*a.edit) : json{{"documentChanges", json::array()}};
    // Open launch scripts: their whole text replaced (clients clamp the end position).
    for (const auto& more : a.more_edits)
      j["edit"]["documentChanges"].push_back(
          {{"textDocument", {{"uri", more.uri}, {"version", nullptr}}},
           {"edits",
            {{{"range",
               {{"start", {{"line", 0}, {"character", 0}}},
                {"end", {{"line", 1 << 30}, {"character", 0}}}}},
              {"newText", more.text}}}}});
  }
  if (a.command)
    j["command"] = {{"title", a.command->title},
                    {"command", a.command->command},
                    {"arguments", a.command->arguments}};
  return j;
}

void LspServer::code_action(SharedReply reply, const json& params) {
  std::string uri = uri_of(params);
  Range range = range_of(member(params, "range", "range"));
  core_->code_actions(id_key(reply->id()), uri, range, can_resolve_,
                      answer<std::vector<CodeActionItem>>(
                          reply, [this](const std::vector<CodeActionItem>& actions) {
                            json out = json::array();
                            for (const auto& a : actions) out.push_back(code_action_json(a));
                            return out;
                          }));
}

json LspServer::code_action_resolve(const json& params) {
  const json& data = member(params, "data", "data");
  auto kind = parse_action_kind(member(data, "kind", "data.kind").get<std::string>());
  if (!kind) invalid_params("data.kind names no kind of action this server resolves");
  ActionKey key{member(data, "uri", "data.uri").get<std::string>(),
                member(data, "rule", "data.rule").get<std::string>(), *kind};
  auto edit = core_->resolve(key);
  if (!edit) invalid_params("nothing to resolve for rule '" + key.rule_id + "'");
  json out = params;
  out["edit"] = file_edit_json(*edit);
  return out;
}

void LspServer::code_lens(SharedReply reply, const json& params) {
  std::string uri = uri_of(params);
  core_->code_lenses(id_key(reply->id()), uri,
                     answer<std::vector<LensItem>>(reply, [this](const std::vector<LensItem>& ls) {
                       json out = json::array();
                       for (const auto& l : ls)
                         out.push_back({{"range", range_json(l.range)},
                                        {"command",
                                         {{"title", l.command.title},
                                          {"command", l.command.command},
                                          {"arguments", l.command.arguments}}}});
                       return out;
                     }));
}

void LspServer::pull_diagnostics(SharedReply reply, const json& params) {
  std::string uri = uri_of(params);
  core_->diagnostics(
      id_key(reply->id()), uri,
      answer<std::vector<DiagnosticItem>>(reply, [this](const std::vector<DiagnosticItem>& ds) {
        json items = json::array();
        for (const auto& d : ds) items.push_back(diagnostic_json(d));
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
// Commands

namespace {

// A command's file argument: {uri}, {path} or the string itself, a file:// URI or an
// absolute path; the URI.
std::string file_uri_argument(const std::string& command, const nlohmann::json& arg) {
  std::string where;
  if (arg.is_string())
    where = arg;
  else if (arg.is_object() && arg.contains("uri") && arg["uri"].is_string())
    where = arg["uri"];
  else if (arg.is_object() && arg.contains("path") && arg["path"].is_string())
    where = arg["path"];
  else
    invalid_params(command + " takes {uri: string} or {path: string}");
  if (!where.empty() && where.front() == '/') where = path_to_uri(where);
  if (where.rfind("file://", 0) != 0)
    invalid_params(command + ": not a file:// URI or an absolute path: " + where);
  return where;
}

}  // namespace

void LspServer::execute_command(SharedReply reply, const json& params) {
  const json& cmd = member(params, "command", "command");
  if (!cmd.is_string()) invalid_params("command must be a string");
  json args = params.value("arguments", json::array());
  json first = args.is_array() && !args.empty() ? args[0] : json();
  std::string name = cmd;
  Tag tag = id_key(reply->id());
  if (name == "firstfault.diagnoseText") {
    std::string text;
    if (first.is_string())
      text = first;
    else if (first.is_object() && first.contains("text") && first["text"].is_string())
      text = first["text"];
    else
      invalid_params("firstfault.diagnoseText takes {text: string}");
    return core_->diagnose_text(
        tag, std::move(text),
        answer<analysis::Analysis>(reply, [this](const analysis::Analysis& a) {
          report::TextOptions to;
          json report = report::to_json(catalog_, a);
          std::string text = report::to_text(catalog_, a, to);
          if (mask_host_names_) {  // one Masker: the same pseudonyms in both
            report::Masker m;
            m.add_hosts_from(a);
            m.learn(text);
            m.mask(report);
            text = m.mask(text);
          }
          return json{{"report", std::move(report)}, {"text", std::move(text)}};
        }));
  }
  if (name == "firstfault.report") {
    std::string uri;
    if (first.is_string())
      uri = first;
    else if (first.is_object() && first.contains("uri") && first["uri"].is_string())
      uri = first["uri"];
    else
      invalid_params("firstfault.report takes {uri: string}");
    return core_->report(
        tag, uri, answer<AnalysisServer::Report>(reply, [this](const AnalysisServer::Report& r) {
          if (!mask_host_names_) return json{{"markdown", r.markdown}};
          report::Masker m;
          if (r.analysis) m.add_hosts_from(*r.analysis);
          return json{{"markdown", m.mask(r.markdown)}};
        }));
  }
  if (name == "firstfault.checkTopology") {
    json token = params.contains("workDoneToken") ? params["workDoneToken"] : json();
    if (!token.is_null())
      notify("$/progress",
             {{"token", token},
              {"value", {{"kind", "begin"}, {"title", "firstfault: checking topology"}}}});
    std::map<std::string, std::string> env;
    for (const char* v :
         {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "LOCAL_RANK", "CUDA_VISIBLE_DEVICES"})
      if (const char* val = std::getenv(v)) env[v] = val;
    auto render = answer<topology::TopoAnalysis>(
        reply, [](const topology::TopoAnalysis& t) { return topology::render_json(t); });
    return core_->check_topology(
        tag, std::move(env), [this, token, render](Result<topology::TopoAnalysis> r) {
          if (!token.is_null() && !exited_)
            notify(
                "$/progress",
                {{"token", token},
                 {"value", {{"kind", "end"}, {"message", r.ok() ? "done" : r.failure().message}}}});
          render(std::move(r));
        });
  }
  if (name == "firstfault.analyzeFolder") {
    // {uri} or {path}: every log directly inside the folder, as one job, with $/progress
    // (begin, a report per file read, end) when a workDoneToken is given.
    std::string where = file_uri_argument(name, first);
    json token = params.contains("workDoneToken") ? params["workDoneToken"] : json();
    auto ended = std::make_shared<bool>(false);
    if (!token.is_null())
      notify("$/progress", {{"token", token},
                            {"value",
                             {{"kind", "begin"},
                              {"title", "firstfault: reading the folder's logs"},
                              {"cancellable", true},
                              {"percentage", 0}}}});
    AnalysisServer::FolderProgress progress;
    if (!token.is_null())
      progress = [this, token, ended](std::size_t done, std::size_t total, const std::string& f) {
        if (*ended || exited_) return;
        notify("$/progress",
               {{"token", token},
                {"value",
                 {{"kind", "report"},
                  {"message", std::to_string(done) + " of " + std::to_string(total) + ": " +
                                  std::filesystem::path(f).filename().string()},
                  {"percentage", total ? done * 100 / total : 100}}}});
      };
    auto render =
        answer<AnalysisServer::FolderStatus>(reply, [](const AnalysisServer::FolderStatus& s) {
          return json{{"uri", s.uri},
                      {"files", s.files},
                      {"bytes", s.bytes},
                      {"evidence", s.evidence},
                      {"problems", s.problems}};
        });
    return core_->analyze_folder(
        tag, where, std::move(progress),
        [this, token, ended, render](Result<AnalysisServer::FolderStatus> r) {
          *ended = true;
          if (!token.is_null() && !exited_)
            notify("$/progress",
                   {{"token", token},
                    {"value",
                     {{"kind", "end"},
                      {"message", r.ok() ? std::to_string(r.value().files.size()) + " log(s)"
                                         : r.failure().message}}}});
          render(std::move(r));
        });
  }
  if (name == "firstfault.analyzeFile" || name == "firstfault.forgetFile") {
    // {uri} or {path} (or the string itself): a file:// URI or an absolute path.
    std::string where = file_uri_argument(name, first);
    if (name == "firstfault.forgetFile")
      return reply->result({{"uri", where}, {"forgotten", core_->forget_file(where)}});
    return core_->analyze_file(
        tag, where,
        answer<AnalysisServer::DiskFileStatus>(reply, [](const AnalysisServer::DiskFileStatus& s) {
          return json{{"uri", s.uri}, {"bytes", s.bytes}, {"synchronized", s.synchronized}};
        }));
  }
  if (name == "firstfault.runVerification") {
    // The client runs it in a terminal; the server never executes commands.
    return reply->result({{"command", first.is_string() ? first : json()}});
  }
  invalid_params("unknown command: " + name);
}

// ---------------------------------------------------------------------------------------
// stdio

void LspServer::prepare_for_body(std::size_t size) {
  if (prepared_.valid()) return;  // already preparing for this message
  prepared_ = std::async(std::launch::async, [size] { return prepared_text_storage(size); });
}

void LspServer::drop_prepared() {
  if (prepared_.valid()) prepared_.get();
}

std::string LspServer::long_string(std::size_t size) {
  std::string s;
  if (prepared_.valid()) s = prepared_.get();
  if (s.capacity() < size) {
    s = std::string();
    s.reserve(text_capacity_for(size));
  }
  return s;
}

int serve_stdio(const analysis::Catalog& catalog, const ServerOptions& options) {
  StdioTransport out(STDOUT_FILENO);
  LspServer* server_ptr = nullptr;
  out.set_on_closed([&] {
    // The client went away (EPIPE): nobody is listening, leave quietly.
    spdlog::info("stdout closed by the client; exiting");
    spdlog::default_logger()->flush();
    ::_exit(server_ptr ? server_ptr->exit_code() : 1);
  });
  LspServer server(catalog, options, out);
  server_ptr = &server;
  FrameParser parser(options.max_message);
  std::vector<Frame> frames;
  std::vector<char> buf(1 << 16);
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    frames.clear();
    parser.feed(std::string_view(buf.data(), static_cast<std::size_t>(n)), frames);
    server.on_frames(frames);
    if (!frames.empty()) server.drop_prepared();  // a message ended: what it did not take
    // Only for a body that is really arriving (a quarter of it is here): a header alone
    // commits no memory.
    if (std::size_t len = parser.body_expected();
        len >= kPrepareBodyBytes && parser.body_received() >= len / 4)
      server.prepare_for_body(len);
  }
  if (parser.mid_message()) spdlog::warn("end of input in the middle of a message");
  int code = server.on_eof();
  spdlog::info("end of input; exiting with {}", code);
  spdlog::default_logger()->flush();
  ::_exit(code);  // worker threads may be mid-analysis: do not wait for them
}

}  // namespace ff::lsp
