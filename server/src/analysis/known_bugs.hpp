// Which known bugs (rule.hpp, KnownBug) a stated release has: release strings compared as
// numbers, component by component ("2.9.9" < "2.19.1"), a missing component counting as 0.
// Pure; the loader validates the ranges with the same parser, so the diagnosis never meets one
// it cannot read.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/rule.hpp"

namespace ff::analysis {

// A release as its numeric components: "2.19.3" -> {2, 19, 3}. One to four components of
// digits, separated by dots; anything else (a suffix, a letter, an empty part) is no release.
std::optional<std::vector<unsigned>> parse_release(std::string_view text);

// <0, 0, >0 as a is older, the same, newer than b (components missing on one side are 0).
int compare_releases(const std::vector<unsigned>& a, const std::vector<unsigned>& b);

// Whether `release` lies in the bug's range: from <= release < fixed (no fixed: no end).
// False when any of them is no release.
bool affects(const KnownBug& bug, std::string_view release);

// The indexes of the rule's known bugs that `release` lies in, in the rule's order.
std::vector<std::size_t> bugs_of_release(const Rule& rule, std::string_view release);

}  // namespace ff::analysis
