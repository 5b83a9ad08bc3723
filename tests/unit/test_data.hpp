// A file under tests/data (FF_TEST_DATA), read whole; a test that cannot read it fails.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace ff::test {

inline std::string test_data(const std::string& relative) {
  std::ifstream in(std::string(FF_TEST_DATA) + "/" + relative, std::ios::binary);
  INFO("tests/data/" << relative);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace ff::test
