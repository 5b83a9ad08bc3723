// Command-line pieces the measurement tests share: a flag's value given as "--flag V" or
// "--flag=V", and a fraction in [0, 1] for a threshold.
#pragma once

#include <cstdlib>
#include <string>

namespace ff::test {

// The value of `flag` at argv[i] ("--min 0.9" or "--min=0.9"), advancing i past a separate
// value; nullptr when argv[i] is not that flag or its value is missing.
inline const char* flag_value(int argc, char** argv, int& i, const std::string& flag) {
  const std::string a = argv[i];
  if (a.rfind(flag + "=", 0) == 0) return argv[i] + flag.size() + 1;
  if (a == flag && i + 1 < argc) return argv[++i];
  return nullptr;
}

// A threshold: a number in [0, 1] and nothing after it.
inline bool parse_fraction(const char* s, double& out) {
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || *end != '\0' || !(v >= 0.0 && v <= 1.0)) return false;
  out = v;
  return true;
}

}  // namespace ff::test
