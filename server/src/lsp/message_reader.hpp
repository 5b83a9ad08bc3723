// The reader thread's half of the protocol adapter: a frame's body parsed into JSON
// (jsonio::JsonReader, so a 100 MB didOpen is parsed before it reaches the main loop)
// and checked against JSON-RPC 2.0. A document's text arrives as one long string, which
// the document later adopts: it gets room to grow (text_capacity_for), in memory prepared
// on another thread while the message was still arriving, when the transport said a big
// body was coming, and the string is unescaped straight into it (jsonio/long_strings.hpp):
// the parser itself only reads the small rest of the message. It answers nobody: the adapter
// (LspServer::accept) replies to what it rejects.
#pragma once

#include <cstddef>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "jsonio/json_reader.hpp"
#include "lsp/transport.hpp"

namespace ff::lsp {

// The JSON-RPC error code a framing error is answered with: -32600 for a message refused for
// its size, -32700 for broken framing.
int frame_error_code(FrameError e);

class MessageReader {
 public:
  // A message that gets an error reply: `id` is the request's, or null when it has none
  // that can be trusted.
  struct Rejected {
    nlohmann::json id;
    int code;
    std::string message;
  };
  // A message that needs no reply: a response to a request of the server's, or a
  // notification with invalid params (a notification is never answered).
  struct Ignored {};
  using Outcome = std::variant<nlohmann::json, Rejected, Ignored>;

  // A well-formed request or notification (an object with jsonrpc "2.0", a string method,
  // an integer or string id if any, object or array params if any), or why not.
  Outcome read(const Frame& frame);

  // A body of `size` bytes is arriving: memory for its long string is faulted in on
  // another thread meanwhile; the next read() takes it, drop_prepared() gives it back.
  void prepare_for_body(std::size_t size);
  void drop_prepared();

 private:
  std::string long_string(std::size_t size);
  jsonio::JsonReader reader_{[this](std::size_t size) { return long_string(size); }};
  std::future<std::string> prepared_;  // storage for the body's long string
  std::string prepared_text_;          // taken from prepared_ by read(), until the parse uses it
};

}  // namespace ff::lsp
