#include "lsp/lsp_params.hpp"

#include <utility>

namespace ff::lsp {

using json = nlohmann::json;

void from_json(json&, NoParams&) {}

void from_json(json& j, InitializeParams& out) {
  if (!j.is_object()) invalid_params("initialize params must be an object");
  out.client = client_capabilities(j.value("capabilities", json::object()));
  const json opts = j.value("initializationOptions", json::object());
  if (opts.is_object()) {
    if (opts.contains("debounceMs") && opts["debounceMs"].is_number_integer())
      out.debounce_ms = opts["debounceMs"].get<int>();
    if (opts.contains("docsDir") && opts["docsDir"].is_string())
      out.docs_dir = opts["docsDir"].get<std::string>();
    if (opts.contains("maskHostNames") && opts["maskHostNames"].is_boolean())
      out.mask_host_names = opts["maskHostNames"].get<bool>();
  }
  if (j.contains("rootUri") && j["rootUri"].is_string())
    out.root = uri_to_path(j["rootUri"]);
  else if (j.contains("rootPath") && j["rootPath"].is_string())
    out.root = j["rootPath"];
}

void from_json(json& j, TextDocumentParams& out) {
  out.uri = uri_of(j);
}

void from_json(json& j, DidOpenParams& out) {
  member(j, "textDocument", "textDocument");
  json& td = j["textDocument"];
  out.uri = uri_of(j);
  out.language_id = td.value("languageId", "");
  out.version = version_of(j);
  member(td, "text", "textDocument.text");
  json& text = td["text"];
  if (!text.is_string()) invalid_params("textDocument.text must be a string");
  out.text = std::move(text.get_ref<std::string&>());  // the whole document: moved
}

void from_json(json& j, DidChangeParams& out) {
  out.uri = uri_of(j);
  out.version = version_of(j);
  member(j, "contentChanges", "contentChanges");
  for (auto& c : j["contentChanges"]) {
    ContentChange ch;
    const json& t = member(c, "text", "contentChanges[].text");
    if (!t.is_string()) invalid_params("contentChanges[].text must be a string");
    ch.text = std::move(c["text"].get_ref<std::string&>());
    if (c.contains("range")) ch.range = range_of(c["range"]);
    out.changes.push_back(std::move(ch));
  }
}

void from_json(json& j, HoverParams& out) {
  out.uri = uri_of(j);
  out.position = position_of(member(j, "position", "position"));
}

void from_json(json& j, CodeActionParams& out) {
  out.uri = uri_of(j);
  out.range = range_of(member(j, "range", "range"));
}

void from_json(json& j, ExecuteCommandParams& out) {
  const json& cmd = member(j, "command", "command");
  if (!cmd.is_string()) invalid_params("command must be a string");
  out.command = cmd.get<std::string>();
  json args = j.value("arguments", json::array());
  if (args.is_array() && !args.empty()) out.argument = std::move(args[0]);
  if (j.contains("workDoneToken")) out.work_done_token = j["workDoneToken"];
}

void from_json(json& j, CancelParams& out) {
  if (j.contains("id")) out.id = j["id"];
}

}  // namespace ff::lsp
