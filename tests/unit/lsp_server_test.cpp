// The protocol adapter in process: a MemoryTransport, frames handed to on_frames() as the
// reader thread would, and hooks that hold an analysis or a worker's job while requests
// arrive. Covers issue 17's defects 1 (one analysis per document version), 2 (every request
// answered exactly once, including around shutdown and exit) and 3 (no slow work on the
// protocol thread).
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <unistd.h>
#include <thread>

#include "builtin_catalog.hpp"
#include "cli/lsp_disk_reader.hpp"
#include "lsp/lsp_server.hpp"

using namespace ff;
using namespace ff::lsp;
using json = nlohmann::json;

namespace {

std::string sample_log() {
  std::ifstream in(std::string(FF_TEST_DATA) + "/../../server/samples/oom-watchdog.log",
                   std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A gate the analysis thread waits at; counts the analyses that passed it.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = true;
  int analyses = 0;
  void pass() {
    std::unique_lock<std::mutex> lock(mu);
    ++analyses;
    cv.notify_all();
    cv.wait(lock, [&] { return open; });
  }
  void close() {
    std::lock_guard<std::mutex> lock(mu);
    open = false;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
    cv.notify_all();
  }
  bool wait_started(int n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return analyses >= n; });
  }
  int count() {
    std::lock_guard<std::mutex> lock(mu);
    return analyses;
  }
};

struct Client {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<json> received;
  std::optional<int> exit_code;
  Gate gate;       // held before each analysis
  Gate work_gate;  // held before each worker job
  MemoryTransport out{[this](std::string_view body) {
    std::lock_guard<std::mutex> lock(mu);
    received.push_back(json::parse(body));
    cv.notify_all();
  }};
  std::unique_ptr<LspServer> server;
  json init_options;

  // `topology`: where the fix planner's topology comes from; none: files only, never this
  // machine (the answers do not depend on the machine the tests run on).
  explicit Client(std::shared_ptr<fix::TopologyProvider> topology = nullptr,
                  json init_options = json::object(),
                  const std::function<void(ServerOptions&)>& configure = nullptr)
      : init_options(std::move(init_options)) {
    ServerOptions o;
    o.topology =
        topology ? std::move(topology) : std::make_shared<fix::TopologyProvider>(/*live=*/false);
    if (configure) configure(o);
    o.before_work = [this] { work_gate.pass(); };
    o.exit_process = [this](int code) {
      std::lock_guard<std::mutex> lock(mu);
      exit_code = code;
      cv.notify_all();
    };
    o.before_analysis = [this] { gate.pass(); };
    server = std::make_unique<LspServer>(test::builtin_catalog(), o, out);
  }
  ~Client() {
    if (std::getenv("FF_TEST_DUMP"))
      for (const auto& m : received) std::fprintf(stderr, "%s\n", m.dump().substr(0, 300).c_str());
    gate.release();
    work_gate.release();
    server.reset();
  }
  // One read's worth of messages.
  void send(const std::vector<json>& batch) {
    std::vector<Frame> frames;
    for (const auto& m : batch) {
      Frame f;
      std::string body = m.dump();
      f.body.reserve(body.size() + kBodyPadding);
      f.body = body;
      frames.push_back(std::move(f));
    }
    server->on_frames(frames);
  }
  // Returns once the server has handled every message sent before (clangd's
  // LSPClient::sync): a request the server answers at once, in arrival order.
  bool sync() {
    json id = "sync-" + std::to_string(++syncs);
    send({{{"jsonrpc", "2.0"}, {"id", id}, {"method", "firstfault/sync"}}});
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] {
      for (const auto& m : received)
        if (!m.contains("method") && m.contains("id") && m["id"] == id) return true;
      return false;
    });
  }
  int syncs = 0;
  template <class Pred>
  bool wait(Pred pred, int ms = 10000) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::milliseconds(ms), [&] { return pred(received); });
  }
  std::vector<json> replies_to(const json& id) {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<json> out;
    for (const auto& m : received)
      if (!m.contains("method") && m.contains("id") && m["id"] == id) out.push_back(m);
    return out;
  }
  std::size_t index_of_reply(const json& id) {
    std::lock_guard<std::mutex> lock(mu);
    for (std::size_t i = 0; i < received.size(); ++i)
      if (!received[i].contains("method") && received[i]["id"] == id) return i;
    return static_cast<std::size_t>(-1);
  }
  int publications(const std::string& uri, std::int64_t version) {
    std::lock_guard<std::mutex> lock(mu);
    int n = 0;
    for (const auto& m : received)
      if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri &&
          m["params"].value("version", std::int64_t{-1}) == version)
        ++n;
    return n;
  }
};

// For wait() predicates, which run under the client's lock.
std::size_t n_replies(const std::vector<json>& r, int id) {
  std::size_t n = 0;
  for (const auto& m : r)
    if (!m.contains("method") && m.contains("id") && m["id"] == id) ++n;
  return n;
}
int n_publications(const std::vector<json>& r, const std::string& uri, std::int64_t version) {
  int n = 0;
  for (const auto& m : r)
    if (m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri &&
        m["params"].value("version", std::int64_t{-1}) == version)
      ++n;
  return n;
}

json request(int id, const std::string& method, json params) {
  json m = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) m["params"] = std::move(params);
  return m;
}
json notification(const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

const std::string kUri = "file:///tmp/ff-lsp-server-test/job.log";

json open_log(const std::string& text) {
  return notification("textDocument/didOpen",
                      {{"textDocument",
                        {{"uri", kUri}, {"languageId", "log"}, {"version", 1}, {"text", text}}}});
}
json hover(int id) {
  return request(id, "textDocument/hover",
                 {{"textDocument", {{"uri", kUri}}}, {"position", {{"line", 0}, {"character", 0}}}});
}
json pull(int id) {
  return request(id, "textDocument/diagnostic", {{"textDocument", {{"uri", kUri}}}});
}

void initialize(Client& c, json capabilities = json::object()) {
  c.send({request(1, "initialize",
                  {{"capabilities", std::move(capabilities)},
                   {"initializationOptions", c.init_options}}),
          notification("initialized")});
  REQUIRE(c.wait([](const std::vector<json>& r) { return !r.empty(); }));
}

}  // namespace

TEST_CASE("lsp server: a request waiting for analysis is answered before the shutdown reply",
          "[lsp]") {
  Client c;
  initialize(c);
  c.gate.close();
  c.send({open_log(sample_log())});
  REQUIRE(c.gate.wait_started(1));
  // The hover waits for the analysis the gate holds; shutdown arrives behind it.
  c.send({hover(2), pull(3), request(4, "shutdown", nullptr)});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  c.gate.release();
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 4) == 1; }));
  for (int id : {2, 3, 4}) {
    auto replies = c.replies_to(id);
    REQUIRE(replies.size() == 1);
    CHECK(replies[0].contains("result"));  // its own answer, not "the server is shutting down"
  }
  CHECK(c.replies_to(3)[0]["result"]["kind"] == "full");
  CHECK(c.index_of_reply(2) < c.index_of_reply(4));
  CHECK(c.index_of_reply(3) < c.index_of_reply(4));
  // Requests after shutdown are refused, once.
  c.send({hover(5)});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 5) == 1; }));
  CHECK(c.replies_to(5)[0]["error"]["code"] == kInvalidRequest);
  CHECK(c.server->replied_twice() == 0);
}

TEST_CASE("lsp server: with exit in the same batch no request is left unanswered", "[lsp]") {
  Client c;
  initialize(c);
  c.gate.close();
  c.send({open_log(sample_log())});
  REQUIRE(c.gate.wait_started(1));
  c.send({hover(2), pull(3), request(4, "shutdown", nullptr), notification("exit")});
  REQUIRE(c.wait([&](const std::vector<json>&) { return c.exit_code.has_value(); }));  // under the lock
  CHECK(*c.exit_code == 0);
  for (int id : {2, 3, 4}) REQUIRE(c.replies_to(id).size() == 1);
  CHECK(c.replies_to(2)[0]["error"]["code"] == kRequestFailed);
  CHECK(c.replies_to(3)[0]["error"]["code"] == kRequestFailed);
  CHECK(c.replies_to(4)[0].contains("result"));
  CHECK(c.index_of_reply(2) < c.index_of_reply(4));
  c.gate.release();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Nothing more after exit: the held analysis finishes without answering or publishing.
  for (int id : {2, 3, 4}) CHECK(c.replies_to(id).size() == 1);
  CHECK(c.publications(kUri, 1) == 0);
  CHECK(c.server->replied_twice() == 0);
}

TEST_CASE("lsp server: requests during an analysis start no second one", "[lsp]") {
  Client c;
  initialize(c);
  c.gate.close();
  c.send({open_log(sample_log())});
  REQUIRE(c.gate.wait_started(1));
  c.send({hover(2), pull(3), hover(4)});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  c.gate.release();
  REQUIRE(c.wait([](const std::vector<json>& r) {
    return n_replies(r, 2) && n_replies(r, 3) && n_replies(r, 4);
  }));
  // Time for a second analysis to run and publish, if one had been started.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(c.gate.count() == 1);
  CHECK(c.publications(kUri, 1) == 1);
  CHECK(c.replies_to(3)[0]["result"]["items"].size() > 0);
  // A pull on the analysed version answers at once, with no analysis.
  c.send({pull(5)});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 5) == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(c.gate.count() == 1);
  CHECK(c.publications(kUri, 1) == 1);
}

TEST_CASE("lsp server: an edit during the analysis still gets its own analysis", "[lsp]") {
  Client c;
  initialize(c);
  c.gate.close();
  std::string log = sample_log();
  c.send({open_log(log)});
  REQUIRE(c.gate.wait_started(1));
  c.send({notification("textDocument/didChange",
                       {{"textDocument", {{"uri", kUri}, {"version", 2}}},
                        {"contentChanges", {{{"text", log + "more\n"}}}}}),
          hover(2)});
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  c.gate.release();
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 2) == 1; }));
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_publications(r, kUri, 2) == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK(c.gate.count() == 2);
  CHECK(c.publications(kUri, 1) == 0);  // stale: dropped
  CHECK(c.publications(kUri, 2) == 1);
}

TEST_CASE("lsp request table: one reply per request, an error when dropped", "[lsp]") {
  std::vector<json> sent;
  RequestTable table([&](const json& m) { sent.push_back(m); });
  auto replies_to = [&](int id) {
    std::vector<json> out;
    for (const auto& m : sent)
      if (m["id"] == id) out.push_back(m);
    return out;
  };
  auto start = [&](int id, const std::string& method) {
    return table.start(table.accept(id, method));
  };
  { ReplyOnce r = start(7, "test/dropped"); }
  {
    ReplyOnce r = start(8, "test/twice");
    r.result(1);
    r.result(2);
    r.error(kInternalError, "late");
  }
  {
    ReplyOnce a = start(9, "test/moved");
    ReplyOnce b = std::move(a);
    b.result(3);
  }
  REQUIRE(replies_to(7).size() == 1);
  CHECK(replies_to(7)[0]["error"]["code"] == kInternalError);
  REQUIRE(replies_to(8).size() == 1);
  CHECK(replies_to(8)[0]["result"] == 1);
  CHECK(table.replied_twice() == 2);
  REQUIRE(replies_to(9).size() == 1);
  CHECK(replies_to(9)[0]["result"] == 3);
  // Cancelled: answered by the table at once; the late result is dropped, not a second reply.
  {
    ReplyOnce r = start(10, "test/cancelled");
    table.mark_cancelled(10);
    CHECK(r.token().cancelled());
    table.cancel(10);
    REQUIRE(replies_to(10).size() == 1);
    CHECK(replies_to(10)[0]["error"]["code"] == kRequestCancelled);
    r.result(4);
  }
  CHECK(replies_to(10).size() == 1);
  // Marked on the reader thread but not started yet: the token says so; a result that
  // comes anyway is answered as cancelled.
  RequestSeq queued = table.accept(11, "test/queued");
  table.mark_cancelled(11);
  start(0, "unrelated").result(0);
  {
    ReplyOnce r = table.start(queued);
    CHECK(r.token().cancelled());
    r.result(5);
  }
  REQUIRE(replies_to(11).size() == 1);
  CHECK(replies_to(11)[0]["error"]["code"] == kRequestCancelled);
  // A held answer (shutdown's) goes out after the requests started before it.
  ReplyOnce waits = start(12, "test/waits");
  ReplyOnce shutdown = start(13, "shutdown");
  shutdown.result_after_earlier(nullptr);
  CHECK(replies_to(13).empty());
  waits.result(6);
  REQUIRE(replies_to(13).size() == 1);
  CHECK(replies_to(13)[0].contains("result"));
  CHECK(sent[sent.size() - 2]["id"] == 12);
  // At exit: what is started gets RequestFailed, a held answer its result after them.
  ReplyOnce abandoned = start(14, "test/abandoned");
  ReplyOnce shutdown2 = start(15, "shutdown");
  shutdown2.result_after_earlier(nullptr);
  table.abandon_started("exiting");
  REQUIRE(replies_to(14).size() == 1);
  CHECK(replies_to(14)[0]["error"]["code"] == kRequestFailed);
  CHECK(abandoned.token().cancelled());
  REQUIRE(replies_to(15).size() == 1);
  CHECK(sent.back()["id"] == 15);
  CHECK(table.replied_twice() == 2);
}

// Defect 3: slow work runs on a worker, never on the protocol thread.

namespace {

json code_action(int id) {
  return request(id, "textDocument/codeAction",
                 {{"textDocument", {{"uri", kUri}}},
                  {"range", {{"start", {{"line", 0}, {"character", 0}}},
                             {"end", {{"line", 100000}, {"character", 0}}}}},
                  {"context", {{"diagnostics", json::array()}}}});
}

}  // namespace

TEST_CASE("lsp server: a code action's fix planning does not delay a hover", "[lsp]") {
  Client c;
  initialize(c);
  c.send({open_log(sample_log())});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_publications(r, kUri, 1) == 1; }));
  c.work_gate.close();
  c.send({code_action(2)});
  REQUIRE(c.work_gate.wait_started(1));  // the fixes are being planned
  c.send({hover(3)});
  // Answered while the code action's topology read is still held.
  CHECK(c.wait([](const std::vector<json>& r) { return n_replies(r, 3) == 1; }, 3000));
  CHECK(c.replies_to(2).empty());
  c.work_gate.release();
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 2) == 1; }));
  bool planned = false;
  const json answer = c.replies_to(2)[0];
  for (const auto& a : answer["result"])
    if (a.contains("edit") && a["edit"].dump().find("firstfault-fix-") != std::string::npos)
      planned = true;
  CHECK(planned);
  CHECK(c.server->replied_twice() == 0);
}

TEST_CASE("lsp server: a slow command does not delay a hover, and is cancelled once", "[lsp]") {
  Client c;
  initialize(c);
  c.send({open_log(sample_log())});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_publications(r, kUri, 1) == 1; }));
  c.work_gate.close();
  c.send({request(2, "workspace/executeCommand",
                  {{"command", "firstfault.diagnoseText"}, {"arguments", {sample_log()}}})});
  REQUIRE(c.work_gate.wait_started(1));
  c.send({hover(3)});
  CHECK(c.wait([](const std::vector<json>& r) { return n_replies(r, 3) == 1; }, 3000));
  CHECK(c.replies_to(2).empty());
  // Cancelled while the worker holds it: answered at once, and the late result is dropped.
  c.send({notification("$/cancelRequest", {{"id", 2}})});
  REQUIRE(c.sync());  // the cancellation is handled: its answer is out
  REQUIRE(c.replies_to(2).size() == 1);
  CHECK(c.replies_to(2)[0]["error"]["code"] == kRequestCancelled);
  c.work_gate.release();
  // A later one runs to its end and carries the report.
  c.send({request(4, "workspace/executeCommand",
                  {{"command", "firstfault.diagnoseText"}, {"arguments", {sample_log()}}})});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 4) == 1; }));
  CHECK(c.replies_to(4)[0]["result"]["report"].is_object());
  CHECK(c.replies_to(2).size() == 1);
  CHECK(c.server->replied_twice() == 0);
}

// Defect 6, server side: initializationOptions.maskHostNames is read, and the server masks
// the reports and the diagnostics it sends (host names, IPs, users, tokens: report/mask.hpp),
// with one table of pseudonyms for the session.
TEST_CASE("lsp server: maskHostNames masks reports in the server", "[lsp]") {
  // A real log whose root-cause line names its host (tests/corpus/horovod-3929).
  std::ifstream in(std::string(FF_TEST_DATA) + "/../corpus/horovod-3929/log.txt", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string log = ss.str();
  const std::string host = "smc-gpu-03";
  REQUIRE(log.find(host) != std::string::npos);
  // report, text, JSON report, title, published diagnostics, the text's Markdown report
  std::map<bool, std::vector<std::string>> outputs;
  for (bool mask : {false, true}) {
    Client c(nullptr, {{"maskHostNames", mask}});
    initialize(c);
    c.send({open_log(log)});
    REQUIRE(c.wait([](const std::vector<json>& r) { return n_publications(r, kUri, 1) == 1; }));
    c.send({request(2, "workspace/executeCommand",
                    {{"command", "firstfault.report"}, {"arguments", {kUri}}}),
            request(3, "workspace/executeCommand",
                    {{"command", "firstfault.diagnoseText"}, {"arguments", {log}}}),
            // A terminal's command line as the client's heading comes back masked too.
            request(4, "workspace/executeCommand",
                    {{"command", "firstfault.diagnoseText"},
                     {"arguments", {{{"text", log}, {"title", "`ssh " + host + " ./train.sh`"}}}}})});
    REQUIRE(c.wait([](const std::vector<json>& r) {
      return n_replies(r, 2) && n_replies(r, 3) && n_replies(r, 4);
    }));
    std::string published;
    {
      std::lock_guard<std::mutex> lock(c.mu);
      for (const auto& m : c.received)
        if (m.value("method", "") == "textDocument/publishDiagnostics" &&
            m["params"]["uri"] == kUri)
          published += m["params"]["diagnostics"].dump();
    }
    outputs[mask] = {c.replies_to(2)[0]["result"]["markdown"],
                     c.replies_to(3)[0]["result"]["text"],
                     c.replies_to(3)[0]["result"]["report"].dump(),
                     c.replies_to(4)[0]["result"].value("title", ""),
                     published,
                     c.replies_to(4)[0]["result"].value("markdown", "")};
    CHECK_FALSE(c.replies_to(3)[0]["result"].contains("title"));  // no title given, none back
  }
  for (std::size_t i = 0; i < 6; ++i) {
    INFO("output " << i);
    CHECK(outputs[false][i].find(host) != std::string::npos);  // there is something to mask
    CHECK(outputs[true][i].find(host) == std::string::npos);
    CHECK(outputs[true][i].find("host-1") != std::string::npos);
  }
}

// Issue 18: each diagnostic reaches the client once. VS Code's language client keeps pushed
// and pulled diagnostics in two collections and counts both in the Problems badge.

namespace {

// What VS Code's language client (vscode-languageclient 9) declares.
json pulling_client() {
  return {{"textDocument", {{"diagnostic", {{"dynamicRegistration", true},
                                            {"relatedDocumentSupport", false}}}}},
          {"workspace", {{"diagnostics", {{"refreshSupport", true}}}}}};
}

std::size_t n_method(const std::vector<json>& r, const std::string& method,
                     const std::string& uri = "") {
  std::size_t n = 0;
  for (const auto& m : r)
    if (m.value("method", "") == method &&
        (uri.empty() || (m.contains("params") && m["params"].value("uri", "") == uri)))
      ++n;
  return n;
}

}  // namespace

TEST_CASE("lsp server: a client that cannot pull gets diagnostics pushed only", "[lsp]") {
  for (json caps : {json::object(),
                    // diagnostic pull without refresh: cross-file changes could not reach it
                    json{{"textDocument", {{"diagnostic", json::object()}}}}}) {
    INFO(caps.dump());
    Client c;
    initialize(c, caps);
    CHECK_FALSE(c.replies_to(1)[0]["result"]["capabilities"].contains("diagnosticProvider"));
    c.send({open_log(sample_log())});
    REQUIRE(c.wait([](const std::vector<json>& r) { return n_publications(r, kUri, 1) == 1; }));
    REQUIRE(c.sync());
    CHECK(c.wait([](const std::vector<json>& r) {
      return n_method(r, "workspace/diagnostic/refresh") == 0;
    }, 100));
  }
}

TEST_CASE("lsp server: a client that pulls gets no pushed diagnostics, and a refresh", "[lsp]") {
  Client c;
  initialize(c, pulling_client());
  auto caps = c.replies_to(1)[0]["result"]["capabilities"];
  REQUIRE(caps.contains("diagnosticProvider"));
  CHECK(caps["diagnosticProvider"]["interFileDependencies"] == true);
  c.send({open_log(sample_log()), pull(2)});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 2) == 1; }));
  CHECK(c.replies_to(2)[0]["result"]["items"].size() > 0);
  // The analysis's results are announced by a refresh request, not by a publication.
  REQUIRE(c.wait([](const std::vector<json>& r) {
    return n_method(r, "workspace/diagnostic/refresh") >= 1;
  }));
  json refresh;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    for (const auto& m : c.received)
      if (m.value("method", "") == "workspace/diagnostic/refresh") refresh = m;
  }
  REQUIRE(refresh.contains("id"));
  // The client's answer to the server's request is taken quietly.
  c.send({{{"jsonrpc", "2.0"}, {"id", refresh["id"]}, {"result", nullptr}}});
  // A second log changes the first one's diagnostics (one job): one more refresh.
  std::size_t before = 0;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    before = n_method(c.received, "workspace/diagnostic/refresh");
  }
  c.send({notification("textDocument/didOpen",
                       {{"textDocument", {{"uri", "file:///tmp/ff-lsp-server-test/rank1.log"},
                                          {"languageId", "log"},
                                          {"version", 1},
                                          {"text", sample_log()}}}}),
          notification("textDocument/didClose", {{"textDocument", {{"uri", kUri}}}})});
  REQUIRE(c.wait([&](const std::vector<json>& r) {
    return n_method(r, "workspace/diagnostic/refresh") > before;
  }));
  REQUIRE(c.sync());
  std::lock_guard<std::mutex> lock(c.mu);
  CHECK(n_method(c.received, "textDocument/publishDiagnostics") == 0);  // not even on close
}

// Issue 18: a log the editor does not synchronize (VS Code hands no document above 50 MB to
// extensions) is read from disk by the server, through the CLI's mapped inputs, published
// for its URI and followed as it grows.

namespace {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("ff-lsp-disk-" + std::to_string(::getpid()) + "-" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Lines of a healthy training run: no failure, and more bytes than the server accepts in
// one message (ServerOptions::max_message below), so no didOpen could have carried them.
std::string healthy_lines(std::size_t bytes) {
  std::string s;
  for (int step = 0; s.size() < bytes; ++step)
    s += "[rank0]: step " + std::to_string(step) + " loss 2.3" + std::to_string(step % 10) +
         " lr 0.0003 tokens/s 51234\n";
  return s;
}

void append_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::app);
  out << text;
}

json execute(int id, const std::string& command, json arg) {
  return request(id, "workspace/executeCommand",
                 {{"command", command}, {"arguments", json::array({std::move(arg)})}});
}

// The diagnostics of the latest publication for `uri` (none: null).
json latest_publication(Client& c, const std::string& uri) {
  std::lock_guard<std::mutex> lock(c.mu);
  json last;
  for (const auto& m : c.received)
    if (m.value("method", "") == "textDocument/publishDiagnostics" &&
        m["params"]["uri"] == uri)
      last = m["params"];
  return last;
}

bool has_root_cause(const json& publication) {
  if (publication.is_null()) return false;
  for (const auto& d : publication["diagnostics"])
    if (d["data"]["role"] == "initiating") return true;
  return false;
}

}  // namespace

TEST_CASE("lsp disk reader: a big file's bytes, whole or from an offset, with room to grow",
          "[lsp]") {
  // Files of 8 MB and more are copied with pread(), smaller ones from their mapping: both
  // give the file's bytes from the offset asked for to its end.
  TempDir dir;
  auto reader = cli::make_lsp_disk_reader();
  for (std::size_t size : {std::size_t{3} << 20, (std::size_t{9} << 20) + 17}) {
    INFO(size << " bytes");
    std::string text;
    for (std::size_t i = 0; text.size() < size; ++i)
      text += "host-" + std::to_string(i % 97) + ":1:1 [0] NCCL INFO line " + std::to_string(i) + "\n";
    text.resize(size);
    auto file = dir.path / ("f" + std::to_string(size) + ".log");
    std::ofstream(file, std::ios::binary) << text;
    auto whole = reader->read_from(file.string(), 0);
    CHECK(whole.from == 0);
    CHECK(whole.size == size);
    CHECK(whole.bytes == text);
    CHECK(whole.bytes.capacity() > size);  // appends land in place
    auto tail = reader->read_from(file.string(), size - 1000);
    CHECK(tail.from == size - 1000);
    CHECK(tail.bytes == text.substr(size - 1000));
  }
}

TEST_CASE("lsp server: a file read from disk is published, reported and followed as it grows",
          "[lsp]") {
  constexpr std::size_t kLimit = 64 * 1024;
  TempDir dir;
  auto file = dir.path / "night.log";
  append_file(file, healthy_lines(4 * kLimit));
  const auto size = std::filesystem::file_size(file);
  REQUIRE(size > kLimit);
  // Pushed even to a client that pulls: it has no document to pull for.
  Client c(nullptr, json::object(), [&](ServerOptions& o) {
    o.max_message = kLimit;
    o.disk_reader = cli::make_lsp_disk_reader();
    o.watch_ms = 50;
  });
  initialize(c, pulling_client());
  const std::string uri = path_to_uri(file.string());
  c.send({execute(2, "firstfault.analyzeFile", {{"path", file.string()}})});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 2) == 1; }));
  auto reply = c.replies_to(2)[0];
  REQUIRE(reply.contains("result"));
  CHECK(reply["result"]["uri"] == uri);
  CHECK(reply["result"]["bytes"] == size);
  REQUIRE(c.wait([&](const std::vector<json>& r) {
    return n_method(r, "textDocument/publishDiagnostics", uri) >= 1;
  }));
  CHECK_FALSE(has_root_cause(latest_publication(c, uri)));  // healthy so far

  // The job fails: the failure is appended on disk, and found with no request.
  const std::string failure = sample_log();
  append_file(file, failure);
  bool found = false;
  for (int i = 0; i < 100 && !found; ++i) {
    found = has_root_cause(latest_publication(c, uri));
    if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(found);
  json pub = latest_publication(c, uri);
  std::uint32_t root_line = 0;
  for (const auto& d : pub["diagnostics"])
    if (d["data"]["role"] == "initiating") root_line = d["range"]["start"]["line"];
  // Its line numbers are those of the whole file, not of the appended piece.
  CHECK(root_line > static_cast<std::uint32_t>(std::count(failure.begin(), failure.end(), '\n')));

  // Hover and report work on it as on an open log.
  c.send({request(3, "textDocument/hover",
                  {{"textDocument", {{"uri", uri}}},
                   {"position", {{"line", root_line}, {"character", 0}}}}),
          execute(4, "firstfault.report", {{"uri", uri}})});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 3) && n_replies(r, 4); }));
  CHECK_FALSE(c.replies_to(3)[0]["result"].is_null());
  std::string md = c.replies_to(4)[0]["result"].value("markdown", "");
  CHECK(md.find("night.log") != std::string::npos);

  // The client opens it after all (a small file): its text wins, the pushed diagnostics
  // are withdrawn (it pulls them now), and the file is no longer followed.
  c.send({notification("textDocument/didOpen",
                       {{"textDocument",
                         {{"uri", uri}, {"languageId", "log"}, {"version", 1}, {"text", "x\n"}}}}),
          execute(5, "firstfault.forgetFile", {{"uri", uri}})});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 5) == 1; }));
  CHECK(c.replies_to(5)[0]["result"]["forgotten"] == false);
  json last = latest_publication(c, uri);
  CHECK(last["diagnostics"].empty());
}

TEST_CASE("lsp server: analyzeFile refuses what analyze refuses, naming the file", "[lsp]") {
  TempDir dir;
  Client c(nullptr, json::object(),
           [&](ServerOptions& o) { o.disk_reader = cli::make_lsp_disk_reader(); });
  initialize(c);
  auto missing = (dir.path / "missing.log").string();
  c.send({execute(2, "firstfault.analyzeFile", {{"path", dir.path.string()}}),
          execute(3, "firstfault.analyzeFile", {{"path", missing}}),
          execute(4, "firstfault.analyzeFile", {{"uri", "untitled:Untitled-1"}}),
          execute(5, "firstfault.forgetFile", {{"path", missing}})});
  REQUIRE(c.wait([](const std::vector<json>& r) {
    return n_replies(r, 2) && n_replies(r, 3) && n_replies(r, 4) && n_replies(r, 5);
  }));
  for (int id : {2, 3, 4}) REQUIRE(c.replies_to(id)[0].contains("error"));
  CHECK(c.replies_to(2)[0]["error"]["message"].get<std::string>().find("directory") !=
        std::string::npos);
  CHECK(c.replies_to(3)[0]["error"]["message"].get<std::string>().find(missing) !=
        std::string::npos);
  CHECK(c.replies_to(5)[0]["result"]["forgotten"] == false);
}

// Issue 18: a folder of per-rank logs is one job: read on a worker with $/progress after each
// file, added at once for one analysis, and cancellable between files.
TEST_CASE("lsp server: a folder is read as one job, with progress", "[lsp]") {
  TempDir dir;
  append_file(dir.path / "rank0.log", healthy_lines(4096));
  append_file(dir.path / "rank1.log", sample_log());
  append_file(dir.path / "train.py", "print('not a log')\n");
  std::filesystem::create_directories(dir.path / "sub.log");  // a folder with a log's name
  Client c(nullptr, json::object(), [&](ServerOptions& o) {
    o.disk_reader = cli::make_lsp_disk_reader();
    o.watch_ms = 60000;
  });
  initialize(c);
  json folder = execute(2, "firstfault.analyzeFolder", {{"path", dir.path.string()}});
  folder["params"]["workDoneToken"] = "folder-1";
  c.send({folder});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 2) == 1; }));
  auto reply = c.replies_to(2)[0];
  REQUIRE(reply.contains("result"));
  const std::string rank0 = path_to_uri((dir.path / "rank0.log").string());
  const std::string rank1 = path_to_uri((dir.path / "rank1.log").string());
  CHECK(reply["result"]["files"] == json::array({rank0, rank1}));
  // One job: the root cause is in rank1.log, and rank0.log is published too.
  REQUIRE(c.wait([&](const std::vector<json>& r) {
    return n_method(r, "textDocument/publishDiagnostics", rank1) >= 1 &&
           n_method(r, "textDocument/publishDiagnostics", rank0) >= 1;
  }));
  CHECK(has_root_cause(latest_publication(c, rank1)));
  std::vector<std::string> kinds;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    for (const auto& m : c.received)
      if (m.value("method", "") == "$/progress" && m["params"]["token"] == "folder-1")
        kinds.push_back(m["params"]["value"]["kind"]);
  }
  CHECK(kinds == std::vector<std::string>{"begin", "report", "report", "end"});
}

TEST_CASE("lsp server: a cancelled folder job is answered at once and adds nothing", "[lsp]") {
  TempDir dir;
  for (int i = 0; i < 4; ++i)
    append_file(dir.path / ("rank" + std::to_string(i) + ".log"), sample_log());
  Client c(nullptr, json::object(),
           [&](ServerOptions& o) { o.disk_reader = cli::make_lsp_disk_reader(); });
  initialize(c);
  c.work_gate.close();  // the job waits before it lists the folder
  c.send({execute(2, "firstfault.analyzeFolder", {{"uri", path_to_uri(dir.path.string())}})});
  REQUIRE(c.work_gate.wait_started(1));
  c.send({notification("$/cancelRequest", {{"id", 2}})});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 2) == 1; }));
  CHECK(c.replies_to(2)[0]["error"]["code"] == kRequestCancelled);
  c.work_gate.release();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  REQUIRE(c.sync());
  std::lock_guard<std::mutex> lock(c.mu);
  CHECK(n_method(c.received, "textDocument/publishDiagnostics") == 0);
  CHECK(c.server->replied_twice() == 0);
}

// Issue 19: a folder of Flight Recorder dumps (and the text log of the same job), or of NCCL
// RAS output, is diagnosed like `firstfault analyze DIR`: the dumps are compared across
// ranks on the worker and the conclusion is published on the culprit's dump (line 0), with
// its verdict; the watchdog lines of the log are its collateral. The dump set is
// tests/data/flight_recorder/missing-rank2 (generated, see its README).
namespace {

void copy_data(const std::string& from, const std::filesystem::path& to) {
  for (const auto& e : std::filesystem::directory_iterator(std::string(FF_TEST_DATA) + "/" + from))
    if (e.path().filename() != "README.md")
      std::filesystem::copy_file(e.path(), to / e.path().filename());
}

std::string corpus_log(const std::string& name) {
  std::ifstream in(std::string(FF_TEST_DATA) + "/../corpus/" + name + "/log.txt", std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

json open_at(const std::string& uri, const std::string& text) {
  return notification(
      "textDocument/didOpen",
      {{"textDocument", {{"uri", uri}, {"languageId", "log"}, {"version", 1}, {"text", text}}}});
}

// The initiating diagnostic of a publication (null when there is none).
json root_diagnostic(const json& publication) {
  if (publication.is_null()) return json();
  for (const auto& d : publication["diagnostics"])
    if (d["data"]["role"] == "initiating") return d;
  return json();
}

}  // namespace

TEST_CASE("lsp server: a folder of Flight Recorder dumps and a log is one job", "[lsp]") {
  TempDir dir;
  copy_data("flight_recorder/missing-rank2", dir.path);
  Client c(nullptr, json::object(), [&](ServerOptions& o) {
    o.disk_reader = cli::make_lsp_disk_reader();
    o.watch_ms = 50;  // dumps are not followed: a poll must not append their bytes
  });
  initialize(c);
  c.send({execute(2, "firstfault.analyzeFolder", {{"path", dir.path.string()}})});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 2) == 1; }));
  auto reply = c.replies_to(2)[0];
  REQUIRE(reply.contains("result"));
  auto uri = [&](const std::string& f) { return path_to_uri((dir.path / f).string()); };
  CHECK(reply["result"]["files"].size() == 5);
  CHECK(reply["result"]["evidence"] ==
        json::array({uri("nccl_trace_rank_0"), uri("nccl_trace_rank_1"), uri("nccl_trace_rank_2"),
                     uri("nccl_trace_rank_3")}));
  CHECK(reply["result"]["problems"].empty());
  const std::string culprit = uri("nccl_trace_rank_2"), log = uri("train.log");
  REQUIRE(c.wait([&](const std::vector<json>& r) {
    return n_method(r, "textDocument/publishDiagnostics", culprit) >= 1 &&
           n_method(r, "textDocument/publishDiagnostics", log) >= 1;
  }));
  json root = root_diagnostic(latest_publication(c, culprit));
  REQUIRE_FALSE(root.is_null());
  CHECK(root["range"]["start"]["line"] == 0);
  CHECK(root["data"]["rule"] == "flight-recorder-missing-rank");
  CHECK(root["data"]["rank"] == 2);
  CHECK(root["data"]["verdict"]["fault"] == "workload");
  // The log's watchdog lines are collateral, not a root cause of their own.
  json log_pub = latest_publication(c, log);
  CHECK(root_diagnostic(log_pub).is_null());
  std::size_t collateral = 0;
  for (const auto& d : log_pub["diagnostics"]) collateral += d["data"]["role"] == "collateral";
  CHECK(collateral == 3);
  c.send({execute(3, "firstfault.report", {{"uri", culprit}})});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 3) == 1; }));
  std::string md = c.replies_to(3)[0]["result"].value("markdown", "");
  CHECK(md.find("## Verdict") != std::string::npos);
  CHECK(md.find("rank 2 never enqueued collective 3") != std::string::npos);
  // Polls leave the dumps as they were read.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  REQUIRE(c.sync());
  CHECK(root_diagnostic(latest_publication(c, culprit))["range"]["start"]["line"] == 0);
}

TEST_CASE("lsp server: NCCL RAS output alone names the ranks behind, on its own file", "[lsp]") {
  TempDir dir;
  std::filesystem::copy_file(std::string(FF_TEST_DATA) + "/ras/doc-mismatch-lagging.txt",
                             dir.path / "ncclras.txt");
  std::filesystem::copy_file(std::string(FF_TEST_DATA) + "/ras/doc-report.json",
                             dir.path / "report.json");
  Client c(nullptr, json::object(),
           [&](ServerOptions& o) { o.disk_reader = cli::make_lsp_disk_reader(); });
  initialize(c);
  const std::string text = path_to_uri((dir.path / "ncclras.txt").string());
  const std::string js = path_to_uri((dir.path / "report.json").string());
  // One file read from disk: the RAS JSON report alone.
  c.send({execute(2, "firstfault.analyzeFile", {{"uri", js}})});
  REQUIRE(c.wait([&](const std::vector<json>& r) {
    return n_method(r, "textDocument/publishDiagnostics", js) >= 1;
  }));
  json root = root_diagnostic(latest_publication(c, js));
  REQUIRE_FALSE(root.is_null());
  CHECK(root["data"]["rule"] == "nccl-ras-missing-rank");
  CHECK(root["data"]["rank"] == 1);
  CHECK(root["range"]["start"]["line"] == 0);
  // The folder: the text report's ranks behind lead, on the report's communicator line.
  c.send({execute(3, "firstfault.analyzeFolder", {{"path", dir.path.string()}})});
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 3) == 1; }));
  REQUIRE(c.wait([&](const std::vector<json>& r) {
    return n_method(r, "textDocument/publishDiagnostics", text) >= 1;
  }));
  root = root_diagnostic(latest_publication(c, text));
  REQUIRE_FALSE(root.is_null());
  CHECK(root["data"]["rule"] == "nccl-ras-ranks-behind");
  CHECK(root["data"]["rank"] == 0);
  CHECK(root["range"]["start"]["line"] == 7);
  CHECK(root["data"]["verdict"].is_object());
}

TEST_CASE("lsp server: logs in two folders are two jobs, each with its own root cause", "[lsp]") {
  // Two unrelated failed jobs open side by side (corpus funasr-2006: an OOM on rank 2;
  // horovod-3929: two ranks on one GPU). Were they one job, one root cause would make the
  // other log's lines its collateral.
  const std::string oom = corpus_log("funasr-2006");
  const std::string dup = corpus_log("horovod-3929");
  REQUIRE(!oom.empty());
  REQUIRE(!dup.empty());
  const std::string a = "file:///tmp/ff-jobs/train/train.log";
  const std::string b = "file:///tmp/ff-jobs/night/night.log";
  Client c;
  initialize(c);
  c.send({open_at(a, oom)});
  REQUIRE(c.wait([&](const std::vector<json>& r) {
    return n_method(r, "textDocument/publishDiagnostics", a) >= 1;
  }));
  c.send({open_at(b, dup)});
  REQUIRE(c.wait([&](const std::vector<json>& r) {
    return n_method(r, "textDocument/publishDiagnostics", b) >= 1;
  }));
  REQUIRE(c.sync());
  json ra = root_diagnostic(latest_publication(c, a));
  json rb = root_diagnostic(latest_publication(c, b));
  REQUIRE(!ra.is_null());
  REQUIRE(!rb.is_null());
  CHECK(ra["data"]["category"] == "gpu-oom");
  CHECK(ra["data"]["rank"] == 2);
  CHECK(rb["data"]["category"] == "config");
  // No diagnostic of either log points into the other one.
  for (const auto& [uri, other] : {std::pair{a, b}, std::pair{b, a}}) {
    const json publication = latest_publication(c, uri);  // alive for the loop below
    for (const auto& d : publication["diagnostics"])
      for (const auto& rel : d.value("relatedInformation", json::array()))
        CHECK(rel["location"]["uri"] != other);
  }
  // The second job left the first one alone: it was not analysed or published again.
  std::lock_guard<std::mutex> lock(c.mu);
  CHECK(n_method(c.received, "textDocument/publishDiagnostics", a) == 1);
}

TEST_CASE("lsp server: a document's version is an integer, or the open is refused", "[lsp]") {
  Client c;
  initialize(c, json::object());
  auto open_as = [&](const std::string& uri, json version) {
    c.send({notification("textDocument/didOpen",
                         {{"textDocument", {{"uri", uri},
                                            {"languageId", "log"},
                                            {"version", std::move(version)},
                                            {"text", sample_log()}}}})});
  };
  // (A folder of its own: the server reads a document's sibling logs as the same job.)
  // Integers, and a number written with a zero fraction, are versions; a float out of any
  // integer's range (fuzz_lsp_server: converting it was undefined behaviour), a fraction,
  // a string are invalid params, and the document is not opened.
  open_as("file:///tmp/ff-lsp-version-test/v-int.log", 7);
  open_as("file:///tmp/ff-lsp-version-test/v-float-integral.log", 2.0);
  open_as("file:///tmp/ff-lsp-version-test/v-huge-unsigned.log",
          std::numeric_limits<std::uint64_t>::max());
  open_as("file:///tmp/ff-lsp-version-test/v-huge-float.log", 1.1111e39);
  open_as("file:///tmp/ff-lsp-version-test/v-fraction.log", 1.5);
  open_as("file:///tmp/ff-lsp-version-test/v-string.log", "3");
  REQUIRE(c.wait([](const std::vector<json>& r) {
    // Each valid open is analysed on its own worker: wait for all three publications.
    // (Documents of one folder are one job: a later open may publish the earlier ones again.)
    return n_publications(r, "file:///tmp/ff-lsp-version-test/v-int.log", 7) >= 1 &&
           n_publications(r, "file:///tmp/ff-lsp-version-test/v-float-integral.log", 2) >= 1 &&
           n_publications(r, "file:///tmp/ff-lsp-version-test/v-huge-unsigned.log",
                          std::numeric_limits<std::int64_t>::max()) >= 1;
  }));
  REQUIRE(c.sync());
  auto versions_of = [&](const std::string& uri) {
    std::vector<json> out;
    std::lock_guard<std::mutex> lock(c.mu);
    for (const auto& m : c.received)
      if (m.value("method", "") == "textDocument/publishDiagnostics" &&
          m["params"]["uri"] == uri)
        out.push_back(m["params"]["version"]);
    return out;
  };
  auto huge = versions_of("file:///tmp/ff-lsp-version-test/v-huge-unsigned.log");
  REQUIRE_FALSE(huge.empty());
  for (const auto& v : huge)
    CHECK(v.get<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  CHECK(versions_of("file:///tmp/ff-lsp-version-test/v-huge-float.log").empty());
  CHECK(versions_of("file:///tmp/ff-lsp-version-test/v-fraction.log").empty());
  CHECK(versions_of("file:///tmp/ff-lsp-version-test/v-string.log").empty());
}

// Issue 29: the main loop does no file-system call. Whether the workspace holds
// docs/catalog.md is asked on a worker; what the client sent after initialize (in the same
// read here, as a client that does not wait for the answer would) waits for it, in order.
TEST_CASE("lsp server: initialize finds the docs on a worker; what follows it waits", "[lsp]") {
  const std::string root =
      std::filesystem::weakly_canonical(std::string(FF_TEST_DATA) + "/../..").string();
  REQUIRE(std::filesystem::exists(root + "/docs/catalog.md"));
  Client c;
  c.work_gate.close();  // holds the worker's look at the workspace
  c.send(
      {request(1, "initialize", {{"capabilities", json::object()}, {"rootUri", path_to_uri(root)}}),
       notification("initialized"), open_log(sample_log()), hover(2)});
  REQUIRE(c.work_gate.wait_started(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  {
    std::lock_guard<std::mutex> lock(c.mu);
    CHECK(c.received.empty());  // nothing answered or published while initialize waits
  }
  c.work_gate.release();
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_replies(r, 2) == 1; }));
  REQUIRE(c.replies_to(1).size() == 1);
  CHECK(c.replies_to(1)[0]["result"].contains("capabilities"));
  CHECK(c.index_of_reply(1) < c.index_of_reply(2));
  CHECK(c.replies_to(2)[0].contains("result"));  // handled after initialize, not refused
  REQUIRE(c.wait([](const std::vector<json>& r) { return n_publications(r, kUri, 1) == 1; }));
  std::lock_guard<std::mutex> lock(c.mu);
  for (const auto& m : c.received)
    if (m.value("method", "") == "textDocument/publishDiagnostics")
      for (const auto& d : m["params"]["diagnostics"])
        CHECK(d["codeDescription"]["href"].get<std::string>().rfind(
                  path_to_uri(root + "/docs/catalog.md"), 0) == 0);
}
