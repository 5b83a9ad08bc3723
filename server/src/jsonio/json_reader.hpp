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

// The size from which a string is a long one (raw content, between its quotes).
inline constexpr std::size_t kLongStringBytes = std::size_t{1} << 20;

// One per thread: it keeps simdjson's buffers between parses (released after a big one).
// With a LongString, a long string value is unescaped once, straight into the storage it
// gives, and the parser reads the rest of the text (long_strings.hpp); the values are the
// same. `long_string_bytes` is the threshold (tests use small ones).
class JsonReader {
 public:
  explicit JsonReader(LongString long_string = {},
                      std::size_t long_string_bytes = kLongStringBytes);
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

 private:
  // The text with its long strings lifted (long_strings.hpp); nothing when none is long, or
  // the text or a lifted string is not one simdjson accepts (then parse() reads it whole).
  std::optional<nlohmann::json> parse_lifted(std::string_view text);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ff::jsonio
