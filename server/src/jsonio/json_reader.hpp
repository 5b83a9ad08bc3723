// JSON text to nlohmann values through simdjson's DOM parser: the same values (and value
// types) as nlohmann's own parser, which reads text a byte at a time (1.6 s for a 100 MB
// LSP didOpen, 3.5 ms for the built-in rules at every start-up; simdjson takes a few
// percent of that, and the conversion is one copy). Numbers simdjson cannot represent
// (integers beyond 64 bits, exponents out of range) are handed to nlohmann's parser, which
// decides exactly as it always did: big integers become doubles, overflowing exponents are
// errors. A leading UTF-8 byte order mark is skipped (RFC 8259 8.1 allows it; nlohmann
// always did). Nesting deeper than kMaxJsonDepth is an error (RFC 8259 9 allows the limit;
// it also keeps the conversion's recursion bounded).
//
// Used by the language server's reader thread and the rule loader. Errors carry simdjson's
// short message only: a caller that must say where text is broken (a rule file) asks
// nlohmann, which knows the position, once parsing here has failed.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ff::jsonio {

inline constexpr std::size_t kMaxJsonDepth = 1024;
// Bytes past the end of the text the parser reads (never uses); text with this much spare
// allocation after it is parsed where it lies, any other is copied once.
inline constexpr std::size_t kPadding = 64;

// Storage for a string value of `size` bytes (1 MiB or more): an empty string with capacity
// for at least `size`. A language server's document adopts the string: room to grow lets a
// tailing log's appends be written in place, and memory prepared while the message was
// still arriving saves faulting it in afterwards. Empty: exactly the size.
using LongString = std::function<std::string(std::size_t size)>;

// One per thread: it keeps simdjson's buffers between parses (released after a big one).
class JsonReader {
 public:
  explicit JsonReader(LongString long_string = {});
  ~JsonReader();
  JsonReader(const JsonReader&) = delete;
  JsonReader& operator=(const JsonReader&) = delete;

  // Parses the whole text as one JSON value; nothing when it is not one (`error` says
  // why). `padded`: kPadding bytes after the text may be read.
  std::optional<nlohmann::json> parse(std::string_view text, bool padded,
                                      std::string* error = nullptr);
  // A string with kPadding bytes of spare capacity is parsed in place.
  std::optional<nlohmann::json> parse(const std::string& body, std::string* error = nullptr) {
    return parse(body, body.capacity() - body.size() >= kPadding, error);
  }

  // The parser's buffers for a text of `size` bytes, allocated and, for the strings, faulted
  // in ahead, on any thread. The parser writes every string value of a text into a buffer as
  // large: for a 100 MB didOpen, faulting that in a page at a time during the parse was half
  // of it (200 of 400 ms on the development machine).
  class Buffers {
   public:
    Buffers();
    ~Buffers();
    Buffers(Buffers&&) noexcept;
    Buffers& operator=(Buffers&&) noexcept;

   private:
    friend class JsonReader;
    struct State;
    std::unique_ptr<State> state_;
  };
  static Buffers prepare(std::size_t size);
  // The next parse uses these buffers (then keeps or releases them as its own).
  void adopt(Buffers buffers);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ff::jsonio
