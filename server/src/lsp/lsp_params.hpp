// The params of each method the protocol adapter binds, as typed structs, each read by its
// from_json. A from_json throws RpcError (kInvalidParams) whose message names the field
// that is missing or wrong ("missing textDocument.uri", "position.line must be an integer");
// the binding (LspServer::bind) answers it, so no handler sees malformed params. They take
// the JSON by non-const reference because a document's text is moved out of it, not copied.
// Pure functions, any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lsp/features.hpp"
#include "lsp/lsp_json.hpp"
#include "lsp/text.hpp"

namespace ff::lsp {

// shutdown, and anything else whose params are ignored.
struct NoParams {};

struct InitializeParams {
  ClientCapabilities client;
  // initializationOptions: each when given with the right type (anything else is ignored).
  std::optional<int> debounce_ms;
  std::optional<std::string> docs_dir;
  std::optional<bool> mask_host_names;
  std::string root;  // rootUri as a path, else rootPath; empty when neither
};

// textDocument/codeLens, textDocument/diagnostic, textDocument/didClose.
struct TextDocumentParams {
  std::string uri;
};

struct DidOpenParams {
  std::string uri;
  std::string language_id;
  std::int64_t version = 0;
  std::string text;
};

struct DidChangeParams {
  std::string uri;
  std::int64_t version = 0;
  std::vector<ContentChange> changes;
};

struct HoverParams {
  std::string uri;
  Position position;
};

struct CodeActionParams {
  std::string uri;
  Range range;
};

struct ExecuteCommandParams {
  std::string command;
  nlohmann::json argument;         // the first of `arguments`; null when there is none
  nlohmann::json work_done_token;  // null when not given
};

struct CancelParams {
  std::optional<nlohmann::json> id;  // none: nothing to cancel
};

void from_json(nlohmann::json& j, NoParams& out);
void from_json(nlohmann::json& j, InitializeParams& out);
void from_json(nlohmann::json& j, TextDocumentParams& out);
void from_json(nlohmann::json& j, DidOpenParams& out);
void from_json(nlohmann::json& j, DidChangeParams& out);
void from_json(nlohmann::json& j, HoverParams& out);
void from_json(nlohmann::json& j, CodeActionParams& out);
void from_json(nlohmann::json& j, ExecuteCommandParams& out);
void from_json(nlohmann::json& j, CancelParams& out);

}  // namespace ff::lsp
