// What Vectorscan is given for a catalog's RE2 patterns, and what each of its matches means.
//
// Vectorscan's speed depends on what it is asked: a thousand regexes cost it about 450 MB/s
// of a typical NCCL log (one core), mostly spent following common literals ("NCCL INFO",
// "NET/IB") into the rest of a pattern, while a thousand literals cost it about 1.4 GB/s.
// Most patterns cannot match a line unless the line holds one of a few strings of the
// pattern's own (its "gate": "-> 3" alone says little, "Got async error event" a lot), so a
// pattern with a good gate is given to Vectorscan as those strings, caseless; the others
// are given as regexes, as before. A match names the patterns it stands for, and RE2
// confirms every candidate line with each whole pattern, so the plan decides the speed,
// never the answer.
//
// Invariant (tests/unit/prefilter_test.cpp): every line an RE2 pattern matches holds a
// match of one of the expressions that stand for it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ff::analysis {

struct PrefilterPlan {
  struct Expression {
    std::string text;  // Vectorscan syntax
    bool literal;      // a gate string (escaped, matched caselessly) or a regex
  };
  std::vector<Expression> expressions;
  // The patterns expression i stands for: targets[offsets[i] .. offsets[i + 1]).
  std::vector<std::uint32_t> offsets{0};
  std::vector<std::uint32_t> targets;
};

// The plan for `patterns` (indices of targets are indices into `patterns`).
PrefilterPlan plan_prefilter(const std::vector<std::string>& patterns);

// The gate of one pattern: lowercase strings, one of which every line the pattern matches
// holds (compared caselessly); empty when the pattern has no good gate and is given to
// Vectorscan as a regex. Exposed for tests.
std::vector<std::string> prefilter_gate(const std::string& re2_pattern);

// An RE2 pattern as given to Vectorscan: a leading "^" and a trailing "$" also accept a
// carriage return next to them (Vectorscan's multiline anchors know only "\n"). Exposed
// for tests.
std::string prefilter_pattern(const std::string& re2_pattern);

// The part of an RE2 pattern Vectorscan needs to find every line the pattern matches: the
// pattern itself, the part after its last top-level gap when that starts with a long
// literal, or the part after a leading tag every line of a verbose producer carries
// ("NCCL INFO "). Exposed for tests.
std::string prefilter_factor(const std::string& re2_pattern);

}  // namespace ff::analysis
