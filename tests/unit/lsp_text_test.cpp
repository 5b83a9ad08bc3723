#include <catch2/catch.hpp>
#include <string>

#include "lsp/text.hpp"

using namespace ff::lsp;

TEST_CASE("text: byte columns to UTF-16 and back", "[lsp]") {
  std::string line = "a\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80z";  // a é 日 😀 z
  CHECK(byte_to_column(line, 0, Encoding::kUtf16) == 0);
  CHECK(byte_to_column(line, 1, Encoding::kUtf16) == 1);
  CHECK(byte_to_column(line, 3, Encoding::kUtf16) == 2);
  CHECK(byte_to_column(line, 6, Encoding::kUtf16) == 3);
  CHECK(byte_to_column(line, 10, Encoding::kUtf16) == 5);
  CHECK(byte_to_column(line, 11, Encoding::kUtf16) == 6);
  CHECK(byte_to_column(line, 999, Encoding::kUtf16) == 6);
  CHECK(byte_to_column(line, 10, Encoding::kUtf8) == 10);
  CHECK(column_to_byte(line, 5, Encoding::kUtf16) == 10);
  CHECK(column_to_byte(line, 4, Encoding::kUtf16) == 6);  // inside the surrogate pair
  CHECK(column_to_byte(line, 99, Encoding::kUtf16) == line.size());
  CHECK(column_to_byte(line, 2, Encoding::kUtf8) == 1);  // inside é: stays at its start
}

TEST_CASE("text: invalid UTF-8 counts one unit per byte and never throws", "[lsp]") {
  std::string bad = "\xff\xfe\xc3\xe6\x97 x\xf0\x9f";
  CHECK(byte_to_column(bad, bad.size(), Encoding::kUtf16) == bad.size());
  for (std::uint32_t c = 0; c < 20; ++c)
    CHECK(column_to_byte(bad, c, Encoding::kUtf16) <= bad.size());
}

TEST_CASE("text: line index agrees with the analysis' line splitting", "[lsp]") {
  std::string t = "a\r\nbb\rccc\n\xe6\x97\xa5x";
  LineIndex idx(t);
  REQUIRE(idx.lines() == 4);
  CHECK(idx.line(t, 0) == "a");
  CHECK(idx.line(t, 1) == "bb");
  CHECK(idx.line(t, 2) == "ccc");
  CHECK(idx.line(t, 3) == "\xe6\x97\xa5x");
  CHECK(idx.offset(t, {3, 1}, Encoding::kUtf16) == t.size() - 1);
  CHECK(idx.offset(t, {99, 0}, Encoding::kUtf16) == t.size());
  CHECK(idx.offset(t, {0, 50}, Encoding::kUtf16) == 1);  // past the line end: its end
  CHECK(idx.position(t, t.size() - 1, Encoding::kUtf16) == Position{3, 1});
  CHECK(idx.position(t, t.size() - 1, Encoding::kUtf8) == Position{3, 3});
}
