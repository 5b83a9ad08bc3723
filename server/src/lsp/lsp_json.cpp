#include "lsp/lsp_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "lsp/log_files.hpp"

namespace ff::lsp {

using json = nlohmann::json;

void invalid_params(const std::string& what) {
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

std::int64_t version_of(const json& params) {
  const json& td = member(params, "textDocument", "textDocument");
  if (!td.is_object() || !td.contains("version")) return 0;
  const json& v = td["version"];
  if (v.is_null()) return 0;
  if (v.is_number_unsigned())
    return static_cast<std::int64_t>(
        std::min<std::uint64_t>(v.get<std::uint64_t>(), std::numeric_limits<std::int64_t>::max()));
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    // 2^63 is exact as a double; everything below it and at or above -2^63 converts.
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && d >= -9223372036854775808.0 &&
        d < 9223372036854775808.0)
      return static_cast<std::int64_t>(d);
  }
  invalid_params("textDocument.version must be an integer");
}

namespace {

std::uint32_t u32(const json& j, const char* what) {
  if (!j.is_number_integer() && !j.is_number_unsigned())
    invalid_params(std::string(what) + " must be an integer");
  auto v = j.get<std::int64_t>();
  if (v < 0) invalid_params(std::string(what) + " must not be negative");
  return static_cast<std::uint32_t>(std::min<std::int64_t>(v, 0xFFFFFFFF));
}

// The typed half of a diagnostic, which clients read instead of its message (the
// extension's status bar; docs/LSP.md). rank, host and confidence are null when unknown.
// tests/lsp/golden/ holds what the server sends for a real log; the extension's tests read it.
json diagnostic_data(const DiagnosticItem& d) {
  json env = json::object();
  for (const auto& [k, v] : d.env) env[k] = v;
  json data = {{"rule", d.rule_id},
               {"title", d.title},
               {"category", d.category},
               {"role", role_name(d.role)},
               {"rank", d.rank ? json(*d.rank) : json()},
               {"host", d.host.empty() ? json() : json(d.host)},
               {"confidence", d.confidence ? json(*d.confidence) : json()},
               {"env", std::move(env)},
               {"envMissing", d.env_missing}};
  if (d.verdict) {
    const VerdictItem& v = *d.verdict;
    json vj = {{"fault", v.fault},
               {"restart", v.restart},
               {"node_action", v.node_action},
               {"host", v.host.empty() ? json(nullptr) : json(v.host)},
               {"gpu", v.gpu.empty() ? json(nullptr) : json(v.gpu)},
               {"summary", v.summary}};
    if (!v.xid_resolution.empty()) vj["xid_resolution"] = v.xid_resolution;
    data["verdict"] = std::move(vj);
  }
  return data;
}

}  // namespace

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

ClientCapabilities client_capabilities(const json& caps) {
  ClientCapabilities c;
  try {
    for (const auto& e : caps.at("general").at("positionEncodings"))
      if (e == "utf-8") c.encoding = Encoding::kUtf8;
  } catch (const json::exception&) {
  }
  try {
    c.pulls_diagnostics = caps.at("textDocument").at("diagnostic").is_object() &&
                          caps.at("workspace").at("diagnostics").value("refreshSupport", false);
  } catch (const json::exception&) {
    c.pulls_diagnostics = false;
  }
  return c;
}

json server_capabilities(const ClientCapabilities& client,
                         const std::vector<std::string>& commands) {
  json caps = {{"positionEncoding", client.encoding == Encoding::kUtf8 ? "utf-8" : "utf-16"},
               {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", false}}},
               {"hoverProvider", true},
               {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
               {"codeLensProvider", {{"resolveProvider", false}}},
               {"executeCommandProvider", {{"commands", commands}}}};
  // Which file names are logs (log_files.hpp): clients build their selectors from these.
  json patterns = json::array();
  for (std::string_view p : kLogFilePatterns) patterns.push_back(p);
  caps["experimental"] = {{"firstfault", {{"logFiles", {{"patterns", std::move(patterns)}}}}}};
  // Pulled diagnostics are offered only to a client that pulls (LspServer::pull_diagnostics_).
  if (client.pulls_diagnostics)
    caps["diagnosticProvider"] = {{"identifier", "firstfault"},
                                  {"interFileDependencies", true},
                                  {"workspaceDiagnostics", false}};
  return caps;
}

json range_json(const Range& r) {
  return {{"start", {{"line", r.start.line}, {"character", r.start.character}}},
          {"end", {{"line", r.end.line}, {"character", r.end.character}}}};
}

json diagnostic_json(const DiagnosticItem& d) {
  json related = json::array();
  for (const auto& r : d.related)
    related.push_back(
        {{"location", {{"uri", r.uri}, {"range", range_json(r.range)}}}, {"message", r.message}});
  json j = {{"range", range_json(d.range)},
            {"severity", static_cast<int>(d.severity)},
            {"code", d.rule_id},
            {"codeDescription", {{"href", d.href}}},
            {"source", "firstfault"},
            {"message", d.message},
            {"data", diagnostic_data(d)}};
  if (!related.empty()) j["relatedInformation"] = related;
  return j;
}

// One document's change: a CreateFile (overwrite: the created files are the fix's own,
// one name per rule) and its text, or the edits of an open document at its version.
namespace {

void add_document_edit(json& changes, const DocumentEdit& e) {
  if (e.create)
    changes.push_back({{"kind", "create"}, {"uri", e.uri}, {"options", {{"overwrite", true}}}});
  json edits = json::array();
  for (const auto& t : e.edits)
    edits.push_back({{"range", range_json(t.range)}, {"newText", t.new_text}});
  changes.push_back({{"textDocument",
                      {{"uri", e.uri}, {"version", e.version ? json(*e.version) : json(nullptr)}}},
                     {"edits", std::move(edits)}});
}

}  // namespace

json command_json(const CommandItem& c) {
  return {{"title", c.title}, {"command", c.command}, {"arguments", c.arguments}};
}

json code_action_json(const CodeActionItem& a) {
  json diags = json::array();
  for (const auto& d : a.diagnostics) diags.push_back(diagnostic_json(d));
  json j = {{"title", a.title}, {"kind", a.kind}, {"diagnostics", diags}};
  if (a.preferred) j["isPreferred"] = true;
  if (!a.edits.empty()) {
    json changes = json::array();
    for (const auto& e : a.edits) add_document_edit(changes, e);
    j["edit"] = {{"documentChanges", std::move(changes)}};
  }
  if (a.command) j["command"] = command_json(*a.command);
  return j;
}

json to_json(const json& j) {
  return j;
}

json to_json(const std::optional<Hover>& hover) {
  if (!hover) return nullptr;
  return {{"contents", {{"kind", "markdown"}, {"value", hover->markdown}}},
          {"range", range_json(hover->range)}};
}

json to_json(const std::vector<CodeActionItem>& actions) {
  json out = json::array();
  for (const auto& a : actions) out.push_back(code_action_json(a));
  return out;
}

json to_json(const std::vector<LensItem>& lenses) {
  json out = json::array();
  for (const auto& l : lenses)
    out.push_back({{"range", range_json(l.range)}, {"command", command_json(l.command)}});
  return out;
}

json to_json(const FullDiagnosticReport& report) {
  json items = json::array();
  for (const auto& d : report.items) items.push_back(diagnostic_json(d));
  return {{"kind", "full"}, {"items", std::move(items)}};
}

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

}  // namespace ff::lsp
