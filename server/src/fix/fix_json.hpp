// JSON for the fix engine's types (for the language server's code actions and --format
// json consumers). Byte offsets are kept; the caller converts them to its positions.
#pragma once

#include <nlohmann/json.hpp>

#include "fix/edit.hpp"
#include "fix/engine.hpp"

namespace ff::fix {

nlohmann::json to_json(const TextEdit& e);
nlohmann::json to_json(const FileEdit& e);
nlohmann::json to_json(const WorkspaceEdit& e);
nlohmann::json to_json(const FixAction& a);  // schema "firstfault.fix/1"

}  // namespace ff::fix
