#include "lsp/message_reader.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

#include "lsp/document_text.hpp"
#include "lsp/lsp_json.hpp"

namespace ff::lsp {

static_assert(kBodyPadding >= jsonio::kPadding,
              "frame bodies must carry the JSON parser's padding");

using json = nlohmann::json;

int frame_error_code(FrameError e) {
  switch (e) {
    case FrameError::kTooLarge:
      return kInvalidRequest;  // well framed, refused for its size
    case FrameError::kNone:
    case FrameError::kNoHeader:
    case FrameError::kHeaderTooLong:
    case FrameError::kMalformedHeader:
    case FrameError::kInvalidLength:
    case FrameError::kNoContentLength:
      break;
  }
  return kParseError;
}

MessageReader::Outcome MessageReader::read(const Frame& frame) {
  if (frame.kind == Frame::Kind::kError) {
    spdlog::warn("framing: {}", frame.error);
    return Rejected{nullptr, frame_error_code(frame.problem), frame.error};
  }
  std::string why;
  auto t0 = std::chrono::steady_clock::now();
  if (prepared_.valid()) prepared_text_ = prepared_.get();
  std::optional<json> parsed = reader_.parse(frame.body, &why);
  prepared_text_ = std::string();  // what the parse did not take
  if (frame.body.size() >= (std::size_t{1} << 20))
    spdlog::debug(
        "parsed a {} byte message in {:.1f} ms", frame.body.size(),
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  if (!parsed) {
    spdlog::warn("body is not JSON ({} bytes): {}", frame.body.size(), why);
    return Rejected{nullptr, kParseError, "Parse error: the message body is not JSON"};
  }
  json msg = std::move(*parsed);
  if (!msg.is_object())
    return Rejected{nullptr, kInvalidRequest, "Invalid Request: a message must be a JSON object"};
  bool has_id = msg.contains("id");
  json id = has_id ? msg["id"] : json();
  if (has_id && !id.is_string() && !id.is_number_integer() && !id.is_number_unsigned())
    return Rejected{nullptr, kInvalidRequest, "Invalid Request: id must be an integer or a string"};
  auto jsonrpc = msg.find("jsonrpc");
  if (jsonrpc == msg.end() || *jsonrpc != "2.0")
    return Rejected{id, kInvalidRequest, "Invalid Request: jsonrpc must be \"2.0\""};
  auto method = msg.find("method");
  if (method == msg.end()) {
    // A response to a request of ours.
    if (has_id && (msg.contains("result") || msg.contains("error"))) return Ignored{};
    return Rejected{id, kInvalidRequest, "Invalid Request: no method"};
  }
  if (!method->is_string())
    return Rejected{id, kInvalidRequest, "Invalid Request: method must be a string"};
  if (msg.contains("params") && !msg["params"].is_object() && !msg["params"].is_array()) {
    if (!has_id) return Ignored{};
    return Rejected{id, kInvalidRequest, "Invalid Request: params must be an object or array"};
  }
  return msg;
}

void MessageReader::prepare_for_body(std::size_t size) {
  if (prepared_.valid()) return;  // already preparing for this message
  prepared_ = std::async(std::launch::async, [size] { return prepared_text_storage(size); });
}

void MessageReader::drop_prepared() {
  if (prepared_.valid()) prepared_.get();
}

std::string MessageReader::long_string(std::size_t size) {
  std::string s = std::move(prepared_text_);
  prepared_text_ = std::string();
  if (s.capacity() < size) {
    s = std::string();
    s.reserve(text_capacity_for(size));
  }
  return s;
}

}  // namespace ff::lsp
