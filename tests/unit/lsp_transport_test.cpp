#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
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
  CHECK(frames[0].problem == ff::lsp::FrameError::kTooLarge);
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
  std::vector<ff::lsp::FrameError> problems;
  for (const auto& f : frames) {
    if (f.kind == Frame::Kind::kError)
      problems.push_back(f.problem);
    else if (f.body.rfind("{\"ok\"", 0) == 0)
      ok.push_back(f.body);
  }
  CHECK(ok == std::vector<std::string>{"{\"ok\":1}", "{\"ok\":2}", "{\"ok\":3}", "{\"ok\":4}"});
  CHECK(problems.size() >= 4);
  auto reported = [&](ff::lsp::FrameError e) {
    return std::find(problems.begin(), problems.end(), e) != problems.end();
  };
  CHECK(reported(ff::lsp::FrameError::kNoContentLength));
  CHECK(reported(ff::lsp::FrameError::kInvalidLength));
  CHECK(reported(ff::lsp::FrameError::kNoHeader));
  CHECK(reported(ff::lsp::FrameError::kMalformedHeader));
  CHECK_FALSE(reported(ff::lsp::FrameError::kNone));
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

// The reading side of StdioTransport, on a pipe: what the adapter's reader thread gets.
namespace {

struct CountingReceiver : ff::lsp::MessageReceiver {
  std::vector<std::string> events;  // "frame:<body or error>", "prepare:<size>", "drop"
  void on_frames(std::vector<Frame>& frames) override {
    for (auto& f : frames)
      events.push_back(f.kind == Frame::Kind::kError ? "error:" + f.error : "frame:" + f.body);
  }
  void prepare_for_body(std::size_t size) override {
    events.push_back("prepare:" + std::to_string(size));
  }
  void drop_prepared() override { events.push_back("drop"); }
};

}  // namespace

TEST_CASE("stdio transport: reads frames until end of input, and prepares for a big body",
          "[lsp]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const std::string big(std::size_t{2} << 20, 'x');  // 2 MiB, above kPrepareBodyBytes
  std::string input = ff::lsp::frame("{\"a\":1}") + ff::lsp::frame(big) +
                      "Content-Length: 100000000\r\n\r\n" +  // over the limit: refused
                      ff::lsp::frame("{\"b\":2}");
  std::thread writer([&] {
    std::size_t done = 0;
    while (done < input.size()) {
      ssize_t n =
          ::write(fds[1], input.data() + done, std::min<std::size_t>(input.size() - done, 4096));
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::close(fds[1]);
  });
  CountingReceiver r;
  ff::lsp::StdioTransport transport(-1, fds[0]);
  transport.read_until_eof(r, std::size_t{4} << 20);
  writer.join();
  ::close(fds[0]);

  std::vector<std::string> frames;
  std::size_t first_prepare = r.events.size(), big_frame = r.events.size();
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    const std::string& e = r.events[i];
    if (e.rfind("frame:", 0) == 0 || e.rfind("error:", 0) == 0) frames.push_back(e.substr(0, 40));
    if (e == "prepare:" + std::to_string(big.size()) && first_prepare == r.events.size())
      first_prepare = i;
    if (e == "frame:" + big) big_frame = i;
  }
  REQUIRE(frames.size() == 3);
  CHECK(frames[0] == "frame:{\"a\":1}");
  CHECK(frames[1] == "frame:" + big.substr(0, 34));
  // The oversized message is a framing error, and the next message is still read... once its
  // 100 MB have been skipped: here the input ends first, so the last frame is the error.
  CHECK(frames[2].rfind("error:message of 100000000 bytes", 0) == 0);
  // Memory for the big body was prepared while it arrived, before its frame.
  REQUIRE(first_prepare < r.events.size());
  CHECK(first_prepare < big_frame);
  // The read that completed it is followed by drop_prepared() (after that read's frames).
  CHECK(std::find(r.events.begin() + static_cast<std::ptrdiff_t>(big_frame), r.events.end(),
                  "drop") != r.events.end());
}
