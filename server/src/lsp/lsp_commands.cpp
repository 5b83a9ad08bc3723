// workspace/executeCommand: the firstfault.* commands the adapter binds, in one table. Each
// reads its arguments, calls the AnalysisServer (which runs the work on its workers) and
// renders the typed result as JSON; commands that run long report $/progress when the client
// gave a workDoneToken. Like the rest of the adapter this runs on the main loop and decides
// nothing about failures. Part of LspServer (lsp_server.hpp).
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "lsp/lsp_server.hpp"
#include "report/markdown_report.hpp"
#include "report/mask.hpp"
#include "report/report.hpp"
#include "topology/topo_report.hpp"

namespace ff::lsp {

using json = nlohmann::json;

namespace {

// A command's file argument: {uri}, {path} or the string itself, a file:// URI or an
// absolute path; the URI.
std::string file_uri_argument(const std::string& command, const json& arg) {
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

// A string argument given as itself or as {key: string}.
std::string string_argument(const std::string& command, const json& arg, const char* key) {
  if (arg.is_string()) return arg;
  if (arg.is_object() && arg.contains(key) && arg[key].is_string()) return arg[key];
  invalid_params(command + " takes {" + key + ": string}");
}

// checkTopology's optional argument: a topology file to read instead of this machine, as
// an absolute path or {file: path} (relative paths are the client's to resolve: the server
// has no folder of its own to resolve them against).
std::string topology_file_argument(const std::string& command, const json& arg) {
  if (arg.is_null()) return {};
  if (arg.is_object() && (!arg.contains("file") || arg["file"].is_null())) return {};
  std::string file = string_argument(command, arg, "file");
  if (!file.empty() && file.front() != '/')
    invalid_params(command + ": the topology file must be an absolute path: " + file);
  return file;
}

// The callback that renders a command's typed result as its JSON answer; a render that
// throws is answered as an internal error.
template <class T, class Render>
Callback<T> rendered(Callback<json> cb, Render render) {
  return [cb = std::move(cb), render = std::move(render)](Result<T> r) {
    if (!r.ok()) return cb(r.failure());
    json out;
    try {
      out = render(r.value());
    } catch (const std::exception& e) {
      spdlog::error("workspace/executeCommand: {}", e.what());
      return cb(Failure{Failure::Kind::kFailed, std::string("internal error: ") + e.what()});
    }
    cb(std::move(out));
  };
}

}  // namespace

const std::vector<std::string>& LspServer::command_names() {
  // firstfault.runVerification and firstfault.editVerification are answered too, but are the
  // client's to offer (they run the command in a terminal, the second after the user filled
  // in its placeholders), so they are not advertised.
  static const std::vector<std::string> names = {
      "firstfault.diagnoseText", "firstfault.checkTopology", "firstfault.report",
      "firstfault.analyzeFile",  "firstfault.analyzeFolder", "firstfault.forgetFile"};
  return names;
}

const std::map<std::string, LspServer::CommandHandler>& LspServer::commands() {
  static const std::map<std::string, CommandHandler> table = {
      {"firstfault.diagnoseText", &LspServer::diagnose_text_command},
      {"firstfault.report", &LspServer::report_command},
      {"firstfault.checkTopology", &LspServer::check_topology_command},
      {"firstfault.analyzeFolder", &LspServer::analyze_folder_command},
      {"firstfault.analyzeFile", &LspServer::analyze_file_command},
      {"firstfault.forgetFile", &LspServer::forget_file_command},
      {"firstfault.runVerification", &LspServer::verification_command},
      {"firstfault.editVerification", &LspServer::verification_command},
  };
  return table;
}

void LspServer::execute_command(ExecuteCommandParams p, const CancelToken& token,
                                Callback<json> cb) {
  auto it = commands().find(p.command);
  if (it == commands().end()) invalid_params("unknown command: " + p.command);
  (this->*it->second)(p, token, std::move(cb));
}

void LspServer::forget_file_command(const ExecuteCommandParams& p, const CancelToken&,
                                    Callback<json> cb) {
  std::string uri = file_uri_argument(p.command, p.argument);
  cb(json{{"uri", uri}, {"forgotten", core_->forget_file(uri)}});
}

void LspServer::verification_command(const ExecuteCommandParams& p, const CancelToken&,
                                     Callback<json> cb) {
  // The client runs it in a terminal; the server never executes commands.
  cb(json{{"command", p.argument.is_string() ? p.argument : json()}});
}

namespace {

// The `outcome` member of a diagnose command's argument: {failed?: bool, hung?: bool,
// exitCode?: integer} (docs/LSP.md). Absent: nothing is known about how the job ended.
analysis::JobOutcome outcome_argument(const json& arg) {
  analysis::JobOutcome o;
  if (!arg.is_object() || !arg.contains("outcome")) return o;
  const json& v = arg["outcome"];
  if (v.is_null()) return o;
  if (!v.is_object()) invalid_params("outcome must be an object {failed?, hung?, exitCode?}");
  auto flag = [&](const char* name) {
    if (!v.contains(name)) return false;
    if (!v[name].is_boolean())
      invalid_params(std::string("outcome.") + name + " must be a boolean");
    return v[name].get<bool>();
  };
  if (flag("failed")) o.end = analysis::JobEnd::kFailed;
  if (flag("hung")) o.end = analysis::JobEnd::kHung;
  if (v.contains("exitCode") && !v["exitCode"].is_null()) {
    const json& c = v["exitCode"];
    std::optional<int> code;
    if (c.is_number_integer()) code = analysis::parse_exit_code(std::to_string(c.get<long long>()));
    if (!code) invalid_params("outcome.exitCode must be an integer from -64 to 255");
    o.exit_code = code;
  }
  return o;
}

}  // namespace

// {text, title?, outcome?}: a one-off analysis of the text (a selection, a terminal's output), as
// the CLI's JSON report, its text and the Markdown report the client shows. `title` is the client's
// heading for it (a terminal's command line): it comes back as `title`, masked with the report when
// maskHostNames is on, so the client never shows an unmasked line beside a masked report.
void LspServer::diagnose_text_command(const ExecuteCommandParams& p, const CancelToken& token,
                                      Callback<json> cb) {
  const json& arg = p.argument;
  std::string text = string_argument("firstfault.diagnoseText", arg, "text");
  std::optional<std::string> title;
  if (arg.is_object() && arg.contains("title")) {
    if (!arg["title"].is_string())
      invalid_params("firstfault.diagnoseText: title must be a string");
    title = arg["title"].get<std::string>();
  }
  analysis::JobOutcome outcome = outcome_argument(arg);
  core_->diagnose_text(
      token, std::move(text), outcome,
      rendered<analysis::Analysis>(std::move(cb), [this, title](const analysis::Analysis& a) {
        report::TextOptions to;
        json report = report::to_json(catalog_, a);
        std::string text = report::to_text(catalog_, a, to);
        std::optional<std::string> heading = title;
        if (mask_host_names_) {  // the session's pseudonyms, as in the diagnostics
          report::Masker& m = masker_;
          m.add_hosts_from(a);
          m.learn(text);
          if (heading) m.learn(*heading);
          m.mask(report);
          text = m.mask(text);
          if (heading) heading = m.mask(*heading);
        }
        std::string markdown = report::text_report_markdown(
            catalog_, a, "firstfault: " + heading.value_or("diagnosis of the text"), text);
        json out{{"report", std::move(report)},
                 {"text", std::move(text)},
                 {"markdown", std::move(markdown)}};
        if (heading) out["title"] = std::move(*heading);
        return out;
      }));
}

// {uri}: the Markdown report of an open (or read) log's analysis.
void LspServer::report_command(const ExecuteCommandParams& p, const CancelToken& token,
                               Callback<json> cb) {
  std::string uri = string_argument("firstfault.report", p.argument, "uri");
  core_->report(
      token, uri,
      rendered<AnalysisServer::Report>(std::move(cb), [this](const AnalysisServer::Report& r) {
        if (!mask_host_names_) return json{{"markdown", r.markdown}};
        if (r.analysis) masker_.add_hosts_from(*r.analysis);
        return json{{"markdown", masker_.mask(r.markdown)}};
      }));
}

// This machine's topology, or the one a file describes, read on a worker and checked
// against the NCCL variables of the server's environment.
void LspServer::check_topology_command(const ExecuteCommandParams& p, const CancelToken& cancel,
                                       Callback<json> cb) {
  std::string file = topology_file_argument(p.command, p.argument);
  const json& token = p.work_done_token;
  if (!token.is_null())
    notify("$/progress",
           {{"token", token},
            {"value", {{"kind", "begin"}, {"title", "firstfault: checking topology"}}}});
  std::map<std::string, std::string> env;
  for (const char* v : {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "LOCAL_RANK", "CUDA_VISIBLE_DEVICES"})
    if (const char* val = std::getenv(v)) env[v] = val;
  auto render = rendered<topology::TopoAnalysis>(
      std::move(cb), [](const topology::TopoAnalysis& t) { return topology::render_json(t); });
  core_->check_topology(
      cancel, std::move(env), file, [this, token, render](Result<topology::TopoAnalysis> r) {
        if (!token.is_null() && !exited_)
          notify(
              "$/progress",
              {{"token", token},
               {"value", {{"kind", "end"}, {"message", r.ok() ? "done" : r.failure().message}}}});
        render(std::move(r));
      });
}

// Every log directly inside the folder, as one job, with $/progress (begin, a report per
// file read, end) when a workDoneToken is given.
void LspServer::analyze_folder_command(const ExecuteCommandParams& p, const CancelToken& cancel,
                                       Callback<json> cb) {
  std::string uri = file_uri_argument(p.command, p.argument);
  const json& token = p.work_done_token;
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
      notify("$/progress", {{"token", token},
                            {"value",
                             {{"kind", "report"},
                              {"message", std::to_string(done) + " of " + std::to_string(total) +
                                              ": " + std::filesystem::path(f).filename().string()},
                              {"percentage", total ? done * 100 / total : 100}}}});
    };
  auto render = rendered<AnalysisServer::FolderStatus>(
      std::move(cb), [](const AnalysisServer::FolderStatus& s) {
        return json{{"uri", s.uri},
                    {"files", s.files},
                    {"bytes", s.bytes},
                    {"evidence", s.evidence},
                    {"problems", s.problems}};
      });
  core_->analyze_folder(
      cancel, uri, std::move(progress),
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

// A log on disk the editor has not opened (too big for it): read, analysed and followed as
// it grows.
void LspServer::analyze_file_command(const ExecuteCommandParams& p, const CancelToken& token,
                                     Callback<json> cb) {
  std::string uri = file_uri_argument(p.command, p.argument);
  core_->analyze_file(
      token, uri,
      rendered<AnalysisServer::DiskFileStatus>(
          std::move(cb), [](const AnalysisServer::DiskFileStatus& s) {
            return json{{"uri", s.uri}, {"bytes", s.bytes}, {"synchronized", s.synchronized}};
          }));
}

}  // namespace ff::lsp
