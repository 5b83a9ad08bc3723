// textDocument/publishDiagnostics messages, rendered with a cache: the diagnostics last
// published per document, each with its JSON text. After an append nearly all of a log's
// diagnostics are unchanged, and they are not rendered again. It caches JSON, so it belongs
// to the protocol adapter (which owns it, on the main loop), not to the
// AnalysisServer, which has no JSON.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lsp/features.hpp"

namespace ff::lsp {

class PublishedDiagnostics {
 public:
  // The whole notification (a JSON-RPC message body) publishing `p`, the same text
  // nlohmann would give for it; remembers `p` for the next publication of its document.
  std::string message(const Publication& p);
  // The document was closed or its diagnostics cleared: nothing of it is reused.
  void forget(const std::string& uri) { rendered_.erase(uri); }

 private:
  std::map<std::string, std::vector<std::pair<DiagnosticItem, std::string>>> rendered_;
};

}  // namespace ff::lsp
