// A code action as the language server offers it, and the commands and edits it carries:
// plain structs, rendered by lsp_json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lsp/diagnostic_item.hpp"
#include "lsp/text.hpp"

namespace ff::lsp {

struct TextEditItem {
  Range range;
  std::string new_text;
  friend bool operator==(const TextEditItem&, const TextEditItem&) = default;
};

// One document's part of a code action's WorkspaceEdit: a TextDocumentEdit on an open
// document, for the version its edits were computed on (the client refuses it when the
// document moved on), or a file the fix creates (a CreateFile, then its text inserted).
struct DocumentEdit {
  std::string uri;
  std::optional<std::int64_t> version;  // the open document's; none only for a created file
  bool create = false;
  std::vector<TextEditItem> edits;
};

struct CommandItem {
  std::string title;
  std::string command;
  std::vector<std::string> arguments;
};

struct CodeActionItem {
  std::string title;
  std::string kind = "quickfix";
  bool preferred = false;
  std::vector<DiagnosticItem> diagnostics;
  std::vector<DocumentEdit> edits;  // the WorkspaceEdit's documentChanges, in order
  std::optional<CommandItem> command;
};

}  // namespace ff::lsp
