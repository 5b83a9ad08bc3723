// A JSON document as the CLI writes it: two-space indent, a final newline. What goes into
// a document comes from files nobody checked (a log line cut in the middle of a character,
// binary bytes in a RAS report's version line, a topology file's device names), and
// nlohmann's default serializer throws on bytes that are not UTF-8; here they become
// U+FFFD, so a document is always written. Every CLI verb that prints JSON goes through it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ff::jsonio {

inline std::string document_text(const nlohmann::json& doc) {
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace ff::jsonio
