// A JSON document as the CLI writes it: two-space indent, a final newline. What goes into
// a document comes from files nobody checked (a log line cut in the middle of a character,
// binary bytes in a RAS report's version line, a topology file's device names), and
// nlohmann's default serializer throws on bytes that are not UTF-8; here they become
// U+FFFD, so a document is always written. Every CLI verb that prints JSON goes through it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ff::jsonio {

template <class Json = nlohmann::json>
std::string document_text(const Json& doc) {
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace ff::jsonio
