// libFuzzer: the LSP base-protocol framing (FrameParser), fed in chunks whose sizes come
// from the input, with a small message limit so the oversized-body path is reached. Each
// complete body is parsed as JSON the way the server's reader thread does, and again with
// long strings lifted from a few bytes on (jsonio/long_strings.hpp): the two must agree.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "jsonio/json_reader.hpp"
#include "lsp/transport.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  std::size_t chunk = 1 + data[0] % 64;
  std::size_t limit = 16 + static_cast<std::size_t>(data[1]) * 64;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);
  ff::lsp::FrameParser parser(limit);
  std::vector<ff::lsp::Frame> frames;
  for (std::size_t i = 0; i < bytes.size(); i += chunk) {
    parser.feed(bytes.substr(i, chunk), frames);
    if (parser.buffered() > limit + ff::lsp::kMaxHeaderBytes + 64) __builtin_trap();  // unbounded
  }
  ff::jsonio::JsonReader reader;
  ff::jsonio::JsonReader lifting([](std::size_t) { return std::string(); }, 1 + data[0] % 16);
  for (const auto& f : frames) {
    if (f.kind != ff::lsp::Frame::Kind::kMessage) continue;
    if (f.body.size() > limit) __builtin_trap();
    if (f.body.capacity() - f.body.size() < ff::lsp::kBodyPadding) __builtin_trap();
    auto j = reader.parse(f.body);
    if (j) (void)j->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    auto lifted = lifting.parse(f.body);
    if (lifted.has_value() != j.has_value() || (j && *lifted != *j)) __builtin_trap();
  }
  (void)parser.mid_message();
  return 0;
}
