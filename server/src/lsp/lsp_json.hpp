// The protocol adapter's conversions between LSP's JSON and the feature server's typed
// values: params read into positions, ranges and URIs (a malformed one throws RpcError,
// which the adapter answers as -32602), typed results written as LSP JSON, and a typed
// Failure mapped to its JSON-RPC error code. Pure functions, no state: the adapter
// (lsp_server.cpp) and its commands (lsp_commands.cpp) share them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lsp/analysis_server.hpp"
#include "lsp/features.hpp"
#include "lsp/text.hpp"

namespace ff::lsp {

// JSON-RPC and LSP error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kServerNotInitialized = -32002;
inline constexpr int kRequestCancelled = -32800;
inline constexpr int kRequestFailed = -32803;

// A request that cannot be answered with a result: thrown while reading its params,
// answered by the adapter with this code and message.
struct RpcError {
  int code;
  std::string message;
};

[[noreturn]] void invalid_params(const std::string& what);

// JSON to typed. Each throws RpcError (kInvalidParams) naming what is missing or wrong.
const nlohmann::json& member(const nlohmann::json& j, const char* key, const char* what);
std::string uri_of(const nlohmann::json& params);  // params.textDocument.uri
// params.textDocument.version: an integer (LSP's `integer`); 0 when absent or null. A number
// with a fraction or out of int64_t's range, or anything else, is invalid params (a float
// out of range converted to an integer is undefined behaviour, which fuzz_lsp_server found).
std::int64_t version_of(const nlohmann::json& params);
Position position_of(const nlohmann::json& j);
Range range_of(const nlohmann::json& j);
// The key a request is known by (cancellation, tags): its id as JSON text.
std::string id_key(const nlohmann::json& id);

// initialize: what the client can do, read from its capabilities (anything missing or
// malformed is taken as not offered).
struct ClientCapabilities {
  Encoding encoding = Encoding::kUtf16;  // utf-8 when general.positionEncodings offers it
  // textDocument.diagnostic and workspace.diagnostics.refreshSupport: diagnostics are pulled
  bool pulls_diagnostics = false;
};
ClientCapabilities client_capabilities(const nlohmann::json& capabilities);
// initialize's answer: what the server offers that client.
nlohmann::json server_capabilities(const ClientCapabilities& client,
                                   const std::vector<std::string>& commands);

// Typed to JSON.
nlohmann::json range_json(const Range& r);
// A bound request's typed result as its JSON answer (LspServer::bind). A result the adapter
// builds as JSON itself (initialize, the commands) is answered as it is.
struct FullDiagnosticReport {
  std::vector<DiagnosticItem> items;
};
nlohmann::json to_json(const nlohmann::json& j);
nlohmann::json to_json(const std::optional<Hover>& hover);
nlohmann::json to_json(const std::vector<CodeActionItem>& actions);
nlohmann::json to_json(const std::vector<LensItem>& lenses);
nlohmann::json to_json(const FullDiagnosticReport& report);
nlohmann::json diagnostic_json(const DiagnosticItem& d);
nlohmann::json code_action_json(const CodeActionItem& a);
nlohmann::json command_json(const CommandItem& c);

// The JSON-RPC error a typed failure is answered with.
int error_code(const Failure& f);

}  // namespace ff::lsp
