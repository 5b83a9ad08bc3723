// MessageReader: a frame's body to a checked JSON-RPC 2.0 message, on the reader thread.
// What it rejects the adapter answers with the code and id given here; what it ignores gets
// no answer (tests/lsp/errors.lsp checks the same end to end).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "lsp/lsp_json.hpp"
#include "lsp/message_reader.hpp"

using ff::lsp::Frame;
using ff::lsp::FrameError;
using ff::lsp::MessageReader;
using json = nlohmann::json;

namespace {

MessageReader::Outcome read(MessageReader& r, const std::string& body) {
  Frame f;
  f.body.reserve(body.size() + ff::lsp::kBodyPadding);
  f.body = body;
  return r.read(f);
}

const MessageReader::Rejected& rejected(const MessageReader::Outcome& o) {
  REQUIRE(std::holds_alternative<MessageReader::Rejected>(o));
  return std::get<MessageReader::Rejected>(o);
}

}  // namespace

TEST_CASE("message reader: well-formed requests and notifications pass, with their params",
          "[lsp]") {
  MessageReader r;
  auto o = read(r, R"({"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"x":1}})");
  REQUIRE(std::holds_alternative<json>(o));
  CHECK(std::get<json>(o)["params"]["x"] == 1);
  CHECK(std::holds_alternative<json>(read(r, R"({"jsonrpc":"2.0","method":"initialized"})")));
  CHECK(std::holds_alternative<json>(
      read(r, R"({"jsonrpc":"2.0","id":"s","method":"m","params":[]})")));
}

TEST_CASE("message reader: malformed messages are rejected with the right code and id", "[lsp]") {
  MessageReader r;
  CHECK(rejected(read(r, "{not json")).code == ff::lsp::kParseError);
  CHECK(rejected(read(r, "[1,2]")).code == ff::lsp::kInvalidRequest);
  auto bad_id = rejected(read(r, R"({"jsonrpc":"2.0","id":1.5,"method":"m"})"));
  CHECK(bad_id.code == ff::lsp::kInvalidRequest);
  CHECK(bad_id.id.is_null());  // an id that is no id is not echoed
  auto no_version = rejected(read(r, R"({"id":3,"method":"m"})"));
  CHECK(no_version.id == 3);
  CHECK(no_version.message.find("jsonrpc") != std::string::npos);
  CHECK(rejected(read(r, R"({"jsonrpc":"2.0","id":4})")).message.find("no method") !=
        std::string::npos);
  CHECK(rejected(read(r, R"({"jsonrpc":"2.0","id":5,"method":9})")).id == 5);
  CHECK(rejected(read(r, R"({"jsonrpc":"2.0","id":6,"method":"m","params":3})")).id == 6);
  Frame framing;
  framing.kind = Frame::Kind::kError;
  framing.problem = FrameError::kTooLarge;
  framing.error = "message of 9 bytes exceeds the limit of 1 bytes; skipped";
  CHECK(r.read(framing).index() == 1);
  CHECK(std::get<MessageReader::Rejected>(r.read(framing)).code == ff::lsp::kInvalidRequest);
  // The code follows the kind of error, not its wording.
  framing.problem = FrameError::kMalformedHeader;
  CHECK(std::get<MessageReader::Rejected>(r.read(framing)).code == ff::lsp::kParseError);
  for (FrameError e : {FrameError::kNoHeader, FrameError::kHeaderTooLong,
                       FrameError::kInvalidLength, FrameError::kNoContentLength})
    CHECK(ff::lsp::frame_error_code(e) == ff::lsp::kParseError);
}

TEST_CASE("message reader: responses and bad notifications are ignored, never answered", "[lsp]") {
  MessageReader r;
  CHECK(std::holds_alternative<MessageReader::Ignored>(
      read(r, R"({"jsonrpc":"2.0","id":"firstfault/refresh/0","result":null})")));
  CHECK(std::holds_alternative<MessageReader::Ignored>(
      read(r, R"({"jsonrpc":"2.0","method":"textDocument/didOpen","params":"x"})")));
}

TEST_CASE("message reader: a body prepared for while it arrived reads as any other", "[lsp]") {
  // The transport announces a big body (prepare_for_body) and the next read takes the
  // memory prepared for it: the storage the document's string is unescaped into.
  std::string text(2 << 20, 'z');
  for (std::size_t i = 0; i < text.size(); i += 90) text[i] = '\n';
  const json msg = {{"jsonrpc", "2.0"},
                    {"method", "textDocument/didOpen"},
                    {"params",
                     {{"textDocument",
                       {{"uri", "file:///a.log"}, {"languageId", "log"}, {"version", 1},
                        {"text", text}}}}}};
  const std::string body = msg.dump();
  MessageReader reader;
  for (std::size_t announced : {body.size(), body.size() / 2}) {
    INFO("announced " << announced << " bytes");
    reader.prepare_for_body(announced);
    auto out = read(reader, body);
    REQUIRE(std::holds_alternative<json>(out));
    CHECK(std::get<json>(out) == msg);
  }
  // Prepared, then dropped (the message did not come): the next one reads as usual.
  reader.prepare_for_body(body.size());
  reader.drop_prepared();
  auto out = read(reader, R"({"jsonrpc":"2.0","id":3,"method":"shutdown"})");
  REQUIRE(std::holds_alternative<json>(out));
  CHECK(std::get<json>(out).at("id") == 3);
}
