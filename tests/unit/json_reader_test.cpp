// Message bodies through simdjson into nlohmann values: the same values (and value types) as
// nlohmann's own parser, the same refusals, padded or not.
#include "jsonio/json_reader.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

using ff::jsonio::JsonReader;
using json = nlohmann::json;

namespace {

std::string padded(std::string_view s) {
  std::string out;
  out.reserve(s.size() + ff::jsonio::kPadding);
  out.append(s);
  return out;
}

std::string unpadded(const std::string& s) {
  std::string out(s);
  out.shrink_to_fit();
  return out;
}

// Parses both ways (in place with padding, and copied without) and checks they agree.
std::optional<json> parse(const std::string& body) {
  JsonReader reader;
  auto a = reader.parse(padded(body));
  auto b = reader.parse(unpadded(body));
  CHECK(a.has_value() == b.has_value());
  if (a && b) CHECK(*a == *b);
  return a;
}

// Same value and same types as nlohmann's parser, down to every number.
void same_as_nlohmann(const json& got, const json& want) {
  REQUIRE(got.type() == want.type());
  if (got.is_object()) {
    REQUIRE(got.size() == want.size());
    for (auto it = want.begin(); it != want.end(); ++it) same_as_nlohmann(got.at(it.key()), *it);
  } else if (got.is_array()) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) same_as_nlohmann(got[i], want[i]);
  } else {
    CHECK(got == want);
  }
}

}  // namespace

TEST_CASE("json reader: numbers keep their values and nlohmann's types", "[json]") {
  auto j =
      parse(R"({"zero":0,"int":42,"neg":-7,"min":-9223372036854775808,"max":9223372036854775807,)"
            R"("umax":18446744073709551615,"d":1.5,"e":-2.5e-3,"big":1e300,"one":1.0})");
  REQUIRE(j);
  CHECK(j->at("zero").is_number_unsigned());
  CHECK(j->at("int").is_number_unsigned());
  CHECK(j->at("int").get<int>() == 42);
  CHECK(j->at("neg").is_number_integer());
  CHECK_FALSE(j->at("neg").is_number_unsigned());
  CHECK(j->at("neg").get<int>() == -7);
  CHECK(j->at("min").get<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
  CHECK(j->at("max").get<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  CHECK(j->at("umax").get<std::uint64_t>() == std::numeric_limits<std::uint64_t>::max());
  CHECK(j->at("d").is_number_float());
  CHECK(j->at("d").get<double>() == 1.5);
  CHECK(j->at("e").get<double>() == -2.5e-3);
  CHECK(j->at("big").get<double>() == 1e300);
  CHECK(j->at("one").is_number_float());
  same_as_nlohmann(*j, json::parse(j->dump()));
}

TEST_CASE("json reader: numbers beyond 64 bits are read as nlohmann reads them", "[json]") {
  // simdjson refuses integers it cannot hold; valid JSON all the same (RFC 8259 6).
  auto j = parse(R"({"id":18446744073709551616,"n":-123456789012345678901234567890})");
  REQUIRE(j);
  CHECK(j->at("id").is_number_float());
  CHECK(j->at("id").get<double>() == 18446744073709551616.0);
  CHECK(j->at("n").get<double>() < -1e29);
  // An exponent out of range is refused by both.
  CHECK_FALSE(parse(R"({"x":1e5555})"));
  CHECK_FALSE(parse(R"({"x":01})"));
  CHECK_FALSE(parse(R"({"x":1.})"));
}

TEST_CASE("json reader: strings with escapes and Unicode", "[json]") {
  const std::string body =
      R"({"esc":"a\"b\\c\/d\b\f\n\r\t","u":"\u00e9\u4e2d","pair":"\ud83d\ude00",)"
      R"("raw":"é中😀","nul":"x\u0000y","ansi":"\u001b[31mred\u001b[0m","":"empty key"})";
  auto j = parse(body);
  REQUIRE(j);
  CHECK(j->at("esc").get<std::string>() == "a\"b\\c/d\b\f\n\r\t");
  CHECK(j->at("u").get<std::string>() == "\xc3\xa9\xe4\xb8\xad");
  CHECK(j->at("pair").get<std::string>() == "\xf0\x9f\x98\x80");
  CHECK(j->at("raw").get<std::string>() == "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80");
  CHECK(j->at("nul").get<std::string>() == std::string("x\0y", 3));
  CHECK(j->at("ansi").get<std::string>() == "\x1b[31mred\x1b[0m");
  CHECK(j->at("").get<std::string>() == "empty key");
  same_as_nlohmann(*j, json::parse(body));
}

TEST_CASE("json reader: nested objects and arrays, as nlohmann builds them", "[json]") {
  const std::string body =
      R"({"jsonrpc":"2.0","id":3,"method":"textDocument/didChange","params":{"textDocument":)"
      R"({"uri":"file:///x.log","version":9},"contentChanges":[{"range":{"start":{"line":1,)"
      R"("character":0},"end":{"line":1,"character":0}},"text":"more\n"},{"text":"all"}],)"
      R"("empty":{},"none":[],"mixed":[null,true,false,[[]],{"a":[1,{"b":null}]}]}})";
  auto j = parse(body);
  REQUIRE(j);
  same_as_nlohmann(*j, json::parse(body));
  CHECK(j->at("params").at("contentChanges")[0].at("range").at("end").at("line") == 1);
  // Duplicate keys: the last wins, as with nlohmann.
  auto d = parse(R"({"a":1,"a":2})");
  REQUIRE(d);
  CHECK(d->at("a") == 2);
  CHECK(d->size() == 1);
  // Top-level scalars and arrays are values too (the server then refuses them itself).
  CHECK(parse("[1,2,3]")->size() == 3);
  CHECK(*parse(" 42 ") == 42);
}

TEST_CASE("json reader: invalid input is refused, as nlohmann refused it", "[json]") {
  const char* bad[] = {
      "",
      "   ",
      "{\"jsonrp}",
      "{\"a\":1,}",
      "[1,]",
      "{\"a\":1} {}",
      "{\"a\":1}x",
      "tru",
      "NaN",
      "{'a':1}",
      "{\"a\":\"\xff\"}",       // invalid UTF-8
      "{\"a\":\"\xc3\"}",       // truncated sequence
      "{\"a\":\"\\ud800\"}",    // lone high surrogate
      "{\"a\":\"\\udc00\"}",    // lone low surrogate
      "{\"a\":\"tab\there\"}",  // unescaped control character
      "{\"a\":\"\\x\"}",        // unknown escape
      "{\"a\":\"unterminated}",
  };
  for (const char* b : bad) {
    INFO(json(b).dump(-1, ' ', false, json::error_handler_t::replace));
    JsonReader reader;
    std::string why;
    CHECK_FALSE(reader.parse(padded(b), &why));
    CHECK_FALSE(why.empty());
    CHECK(json::parse(b, nullptr, false).is_discarded());  // nlohmann agrees
  }
}

TEST_CASE("json reader: a byte order mark is skipped; nesting is bounded", "[json]") {
  auto j = parse("\xEF\xBB\xBF{\"a\":1}");
  REQUIRE(j);
  CHECK(j->at("a") == 1);
  // 1024 levels are read; deeper is refused (RFC 8259 9 allows the limit) instead of
  // recursing without bound.
  std::size_t depth = ff::jsonio::kMaxJsonDepth;
  auto ok = parse(std::string(depth, '[') + std::string(depth, ']'));
  REQUIRE(ok);
  CHECK(ok->is_array());
  CHECK_FALSE(parse(std::string(depth + 1, '[') + std::string(depth + 1, ']')));
  CHECK_FALSE(parse(std::string(100000, '[')));
}

TEST_CASE("json reader: a big string is read whole, with the room to grow asked for", "[json]") {
  std::string text(3 << 20, 'x');
  for (std::size_t i = 0; i < text.size(); i += 1000) text[i] = '\n';
  std::string body = R"({"text":")" + json(text).dump().substr(1);
  body.pop_back();
  body += "\"}";
  // The language server asks for room (a document adopting the text can append in place).
  JsonReader reader([](std::size_t n) {
    std::string s;
    s.reserve(n + (std::size_t{2} << 20));
    return s;
  });
  for (int round = 0; round < 2; ++round) {  // the parser's buffers are released in between
    auto j = reader.parse(padded(body));
    REQUIRE(j);
    const auto& s = j->at("text").get_ref<const std::string&>();
    CHECK(s == text);
    CHECK(s.capacity() >= s.size() + (std::size_t{2} << 20));
  }
  // Without a capacity function, strings are their size (rule files keep no spare room).
  JsonReader plain;
  auto j = plain.parse(padded(body));
  REQUIRE(j);
  CHECK(j->at("text").get_ref<const std::string&>().capacity() < text.size() + 4096);
  // Small messages after a big one parse as before.
  CHECK(reader.parse(padded("{\"id\":1}"))->at("id") == 1);
}

namespace {

// A reader that lifts strings of `min` raw bytes or more, recording the storage asked for.
struct LiftingReader {
  std::vector<std::size_t> asked;
  JsonReader reader;
  explicit LiftingReader(std::size_t min)
      : reader(
            [this](std::size_t n) {
              asked.push_back(n);
              std::string s;
              s.reserve(n);
              return s;
            },
            min) {}
};

// Lifted or not, the same verdict and the same value (types included).
void same_either_way(const std::string& body, std::size_t min) {
  INFO(json(body).dump(-1, ' ', false, json::error_handler_t::replace) << " lifting from " << min);
  JsonReader plain;
  LiftingReader lifting(min);
  std::string why_plain, why_lifted;
  auto want = plain.parse(padded(body), &why_plain);
  auto got = lifting.reader.parse(padded(body), &why_lifted);
  REQUIRE(got.has_value() == want.has_value());
  if (want)
    same_as_nlohmann(*got, *want);
  else
    CHECK(why_lifted == why_plain);
}

}  // namespace

TEST_CASE("json reader: long strings lifted out of the text read as the text does", "[json]") {
  // The storage asked for is the raw content's size (17 bytes here, 11 unescaped): the
  // string was lifted, not parsed by simdjson and copied.
  {
    LiftingReader r(8);
    const std::string raw = R"(a\nb\"c\\d\u00e9f)";
    auto j = r.reader.parse(padded("{\"text\":\"" + raw + R"(","k":"short"})"));
    REQUIRE(j);
    CHECK(j->at("text") ==
          "a\nb\"c\\d\xc3\xa9"
          "f");
    CHECK(j->at("k") == "short");
    CHECK(r.asked == std::vector<std::size_t>{raw.size()});
  }
  // Hand-written cases: escapes and backslash runs at every place a 16-byte block can put
  // them, long keys, several long strings, and each way a string's content can be invalid.
  std::vector<std::string> bodies = {
      R"({"a":"0123456789abcd\n","b":"0123456789abcde\n","c":"0123456789abcdef\n"})",
      R"(["\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\", "x\\\"y\\\\\"z\\\\\\\"w"])",
      R"({"0123456789abcdefghij":"v","k":{"0123456789abcdefghij":["0123456789abcdefghij"]}})",
      R"({"k":"0123456789abcdefghij","k":"zyxwvutsrqponmlkjihg0"})",  // the last one wins
      R"(["emoji \ud83d\ude00 and \uD83D\uDE00 and é中😀 raw", "nul \u0000 in the middle"])",
      R"(["0123456789abcdef\/\b\f\r\t\u001b[0m", 1, -2, 3.5, true, null, {}])",
      R"(["0123456789abcdefghij\ud800"])",          // lone high surrogate
      R"(["0123456789abcdefghij\ud800\u0041"])",    // high then no low
      R"(["0123456789abcdefghij\udc00xx"])",        // lone low
      R"(["0123456789abcdefghij\x"])",              // unknown escape
      R"(["0123456789abcdefghij\u12G4"])",          // bad hex
      R"(["0123456789abcdefghij\u12"])",            // cut \u
      "[\"0123456789abcdefghij\tx\"]",              // unescaped control byte
      "[\"0123456789abcde\x01\"]",                  // in the first block
      "[\"0123456789abcdefghijklmnopqrstu\xc3\"]",  // UTF-8 cut at the end
      "[\"0123456789abcdefghijklmnopq\xff rst\"]",  // not UTF-8
      R"(["0123456789abcdefghij")",                 // not closed
      R"(["0123456789abcdefghij\"])",               // not closed (escaped quote)
      R"(["0123456789abcdefghij"] x)",              // trailing garbage after it
      R"({"a":"0123456789abcdefghij" "b":1})",      // missing comma
      R"(["0123456789abcdefghij", 1e999])",         // a number for nlohmann to judge
      R"(["0123456789abcdefghij", 123456789012345678901234567890])",
  };
  for (const auto& b : bodies)
    for (std::size_t min : {1, 8, 20, 1000}) same_either_way(b, min);
}

TEST_CASE("json reader: random texts and their mutations read the same lifted or not", "[json]") {
  std::mt19937 rng(20261204);
  const std::vector<std::string> pieces = {"a",
                                           "Z",
                                           " ",
                                           "\"",
                                           "\\",
                                           "/",
                                           "\n",
                                           "\t",
                                           "\r",
                                           "\x01",
                                           "\x1f",
                                           "\x7f",
                                           "\xc3\xa9",
                                           "\xe4\xb8\xad",
                                           "\xf0\x9f\x98\x80",
                                           "NCCL WARN ",
                                           "0123456789abcdef",
                                           "\\u00",
                                           "{",
                                           "]"};
  auto random_string = [&](std::size_t n) {
    std::string s;
    while (s.size() < n) s += pieces[rng() % pieces.size()];
    return s;
  };
  std::function<json(int)> random_value = [&](int depth) -> json {
    switch (depth > 2 ? rng() % 3 : rng() % 5) {
      case 0:
        return random_string(rng() % 40);
      case 1:
        return static_cast<int>(rng() % 1000) - 500;
      case 2:
        return rng() % 2 == 0;
      case 3: {
        json a = json::array();
        for (int i = rng() % 4; i > 0; --i) a.push_back(random_value(depth + 1));
        return a;
      }
      default: {
        json o = json::object();
        for (int i = rng() % 4; i > 0; --i) o[random_string(rng() % 24)] = random_value(depth + 1);
        return o;
      }
    }
  };
  for (int round = 0; round < 1500; ++round) {
    std::string body = random_value(0).dump(-1, ' ', rng() % 2 == 0);  // ASCII-escaped or not
    // Up to three byte edits: most mutants are invalid, some in a string's content.
    for (int edits = rng() % 4; edits > 0 && !body.empty(); --edits) {
      std::size_t at = rng() % body.size();
      switch (rng() % 3) {
        case 0:
          body[at] = "\"\\\x01u\xff{}:,0"[rng() % 11];
          break;
        case 1:
          body.erase(at, 1);
          break;
        default:
          body.insert(at, 1, "\"\\nu\x80 "[rng() % 6]);
      }
    }
    same_either_way(body, 1 + rng() % 24);
  }
}
