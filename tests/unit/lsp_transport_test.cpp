#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lsp/transport.hpp"

using ff::lsp::Frame;
using ff::lsp::FrameParser;

namespace {

std::vector<Frame> feed_all(FrameParser& p, const std::string& bytes, std::size_t chunk = 0) {
  std::vector<Frame> out;
  if (chunk == 0) {
    p.feed(bytes, out);
  } else {
    for (std::size_t i = 0; i < bytes.size(); i += chunk)
      p.feed(std::string_view(bytes).substr(i, chunk), out);
  }
  return out;
}

}  // namespace

TEST_CASE("framing: messages split at any byte boundary", "[lsp]") {
  std::string data = ff::lsp::frame("{\"a\":1}") + ff::lsp::frame("{\"b\":\"\xc3\xa9\"}");
  for (std::size_t chunk : {0, 1, 2, 3, 7}) {
    FrameParser p;
    auto frames = feed_all(p, data, chunk);
    REQUIRE(frames.size() == 2);
    CHECK(frames[0].kind == Frame::Kind::kMessage);
    CHECK(frames[0].body == "{\"a\":1}");
    CHECK(frames[1].body == "{\"b\":\"\xc3\xa9\"}");
    CHECK_FALSE(p.mid_message());
  }
}

TEST_CASE("framing: oversized bodies are skipped, never buffered", "[lsp]") {
  FrameParser p(100);
  std::string big(100000, 'x');
  std::string data = "Content-Length: 100000\r\n\r\n" + big + ff::lsp::frame("{}");
  auto frames = feed_all(p, data, 4096);
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].kind == Frame::Kind::kError);
  CHECK(frames[0].error.find("exceeds the limit") != std::string::npos);
  CHECK(frames[1].body == "{}");
  // While skipping, at most one chunk is ever held.
  FrameParser q(100);
  std::vector<Frame> out;
  q.feed("Content-Length: 100000\r\n\r\n", out);
  for (int i = 0; i < 20; ++i) {
    q.feed(std::string(4096, 'y'), out);
    CHECK(q.buffered() <= 4096);
  }
}

TEST_CASE("framing: broken headers resynchronise on the next Content-Length", "[lsp]") {
  FrameParser p;
  std::string data = "Content-Type: x\r\n\r\n{\"lost\":1}" + ff::lsp::frame("{\"ok\":1}") +
                     "Content-Length: zz\r\n\r\n" + ff::lsp::frame("{\"ok\":2}") +
                     "{\"no header\":1}\r\n" + ff::lsp::frame("{\"ok\":3}") +
                     "Content-Length: 3\r\n\r\n{\"too short\":1}" + ff::lsp::frame("{\"ok\":4}");
  auto frames = feed_all(p, data);
  std::vector<std::string> ok;
  int errors = 0;
  for (const auto& f : frames) {
    if (f.kind == Frame::Kind::kError)
      ++errors;
    else if (f.body.rfind("{\"ok\"", 0) == 0)
      ok.push_back(f.body);
  }
  CHECK(ok == std::vector<std::string>{"{\"ok\":1}", "{\"ok\":2}", "{\"ok\":3}", "{\"ok\":4}"});
  CHECK(errors >= 4);
}

TEST_CASE("framing: a header without its body is pending, not an error", "[lsp]") {
  FrameParser p;
  auto frames = feed_all(p, "Content-Length: 10\r\n\r\n{\"a\"");
  CHECK(frames.empty());
  CHECK(p.mid_message());
}

TEST_CASE("framing: the length of a body is known from its header until it is complete", "[lsp]") {
  FrameParser p;
  std::vector<Frame> out;
  std::string body(5000, ' ');
  body.front() = '[';
  body.back() = ']';
  std::string f = ff::lsp::frame(body);
  CHECK(p.body_expected() == 0);
  p.feed(std::string_view(f).substr(0, 10), out);  // inside the header: not yet known
  CHECK(p.body_expected() == 0);
  p.feed(std::string_view(f).substr(10, 40), out);
  CHECK(p.body_expected() == body.size());
  CHECK(p.body_received() == 50 - (f.size() - body.size()));
  p.feed(std::string_view(f).substr(50), out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].body == body);
  CHECK(p.body_expected() == 0);
}

TEST_CASE("framing: every body carries the parser's padding, however it arrives", "[lsp]") {
  std::string body(100000, 'x');
  std::string bytes = ff::lsp::frame("{\"a\":1}") + ff::lsp::frame(body) + ff::lsp::frame("{}");
  for (std::size_t chunk : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{65536}}) {
    FrameParser p;
    auto frames = feed_all(p, bytes, chunk);
    REQUIRE(frames.size() == 3);
    CHECK(frames[1].body == body);
    for (const auto& f : frames) {
      CHECK(f.kind == Frame::Kind::kMessage);
      CHECK(f.body.capacity() - f.body.size() >= ff::lsp::kBodyPadding);
    }
    CHECK_FALSE(p.mid_message());
    CHECK(p.buffered() == 0);
  }
}
