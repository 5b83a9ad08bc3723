// Message bodies through simdjson into nlohmann values: the same values (and value types) as
// nlohmann's own parser, the same refusals, padded or not.
#include "jsonio/json_reader.hpp"

#include <catch2/catch.hpp>
#include <future>
#include <cstdint>
#include <limits>
#include <string>

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

TEST_CASE("json reader: buffers prepared ahead, for the text's size or another, parse the same",
          "[json]") {
  std::string text(3 << 20, 'y');
  for (std::size_t i = 0; i < text.size(); i += 700) text[i] = '"';
  const std::string body = json{{"text", text}, {"n", 7}}.dump();
  JsonReader reader;
  const auto plain = reader.parse(padded(body));
  REQUIRE(plain);
  // Prepared on another thread, as the language server does while a body arrives; then
  // prepared too small (the parse allocates its own) and far too big.
  for (std::size_t size : {body.size(), std::size_t{100}, body.size() * 3}) {
    INFO("prepared for " << size << " bytes");
    auto buffers = std::async(std::launch::async, [size] { return JsonReader::prepare(size); });
    reader.adopt(buffers.get());
    auto j = reader.parse(padded(body));
    REQUIRE(j);
    CHECK(*j == *plain);
  }
  // Not adopted: dropped without harm; the reader goes on with its own.
  { JsonReader::Buffers unused = JsonReader::prepare(body.size()); }
  CHECK(reader.parse(padded("[1,2]"))->size() == 2);
}
