#include "analysis/prefilter_plan.hpp"

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

namespace ff::analysis {

namespace {

// Tags a verbose producer puts on nearly every line it writes (lowercase): with
// NCCL_DEBUG=INFO, "NCCL INFO " starts most lines of a job's log. A string inside one says
// nothing about a line, so it never gates; a pattern that starts with one is given to
// Vectorscan without it (prefilter_factor).
constexpr std::string_view kBulkTags[] = {"nccl info "};

// FilteredRE2 keeps strings of at least this length as atoms (shorter ones count as
// "anything"); a gate string needs a few more characters to be rare in a log: "-> 3" is
// on every NCCL channel line, "error" on few lines of a healthy log.
constexpr int kMinAtomLength = 3;
constexpr std::size_t kMinGateLength = 5;

bool is_quantifier(char c) {
  return c == '*' || c == '+' || c == '?' || c == '{';
}

// One past the group or class that starts at p[i] ('(' or '['), or npos.
std::size_t skip_group(std::string_view p, std::size_t i) {
  if (p[i] == '[') {
    std::size_t j = i + 1;
    if (j < p.size() && p[j] == '^') ++j;
    if (j < p.size() && p[j] == ']') ++j;
    while (j < p.size() && p[j] != ']') j += p[j] == '\\' ? 2 : 1;
    return j < p.size() ? j + 1 : std::string_view::npos;
  }
  int depth = 0;
  for (std::size_t j = i; j < p.size(); ++j) {
    if (p[j] == '\\') {
      ++j;
    } else if (p[j] == '[') {
      j = skip_group(p, j);
      if (j == std::string_view::npos) return j;
      --j;
    } else if (p[j] == '(') {
      ++depth;
    } else if (p[j] == ')' && --depth == 0) {
      return j + 1;
    }
  }
  return std::string_view::npos;
}

bool has_top_level_bar(std::string_view p) {
  int depth = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\') {
      ++i;
    } else if (p[i] == '[') {
      std::size_t j = skip_group(p, i);
      if (j == std::string_view::npos) return true;  // malformed: assume the worst
      i = j - 1;
    } else if (p[i] == '(') {
      ++depth;
    } else if (p[i] == ')') {
      --depth;
    } else if (p[i] == '|' && depth == 0) {
      return true;
    }
  }
  return false;
}

// Whether the group p[0, end) has a top-level alternative that is a line-start anchor:
// "(?:^|[\]:>]\s?)", the "at the start of a line or after a prefix" of many patterns.
bool is_line_start_group(std::string_view p, std::size_t end) {
  std::size_t i = 1;
  if (p.compare(0, 3, "(?:") == 0)
    i = 3;
  else if (p.compare(0, 2, "(?") == 0)
    return false;  // named or flagged: leave it
  int depth = 0;
  std::size_t alternative = i;  // where the current top-level alternative starts
  for (; i + 1 < end; ++i) {
    char c = p[i];
    if (c == '\\') {
      ++i;
    } else if (c == '[') {
      std::size_t j = skip_group(p, i);
      if (j == std::string_view::npos) return false;
      i = j - 1;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (c == '|' && depth == 0) {
      if (p.substr(alternative, i - alternative) == "^") return true;
      alternative = i + 1;
    }
  }
  return p.substr(alternative, end - 1 - alternative) == "^";
}

// One past a single-character atom at p[0] ("x", "\\[", "\\s", "[...]"), or 0.
std::size_t skip_atom(std::string_view p) {
  if (p.empty()) return 0;
  if (p[0] == '[') {
    std::size_t j = skip_group(p, 0);
    return j == std::string_view::npos ? 0 : j;
  }
  if (p[0] == '\\') {
    // \x, \p, \Q... take more than one character after the backslash: not handled.
    if (p.size() < 2 || std::strchr("xpPQEC0123456789", p[1])) return 0;
    return 2;
  }
  if (std::strchr(".()|*+?{}^$", p[0])) return 0;
  return 1;
}

// The pattern without what it starts with to place its match but not to tell it apart,
// the part Vectorscan is worst at, since it matches on most lines: a bulk tag ("NCCL INFO
// (?:file:line )?-> 3..." becomes "-> 3..."), a line-start anchor or a group of them
// ("(?:^|[\]:>]\s?)\[?[EF]\d{4} ..." becomes "[EF]\d{4} ..."; the glog pattern cost
// four times as much with it) and the optional parts that follow. Any match of a pattern
// holds a match of its rest on the same line. Unchanged when nothing would be left, or when
// a top-level "|" makes the start part of one alternative only.
std::string drop_leading_context(const std::string& p) {
  if (has_top_level_bar(p)) return p;
  std::string_view rest = p;
  for (std::string_view tag : kBulkTags) {
    if (rest.size() <= tag.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < tag.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(rest[i])) == tag[i];
    if (same && !is_quantifier(rest[tag.size()])) {
      rest.remove_prefix(tag.size());
      break;
    }
  }
  for (;;) {
    if (!rest.empty() && rest[0] == '^') {
      rest.remove_prefix(1);
      continue;
    }
    std::size_t end = 0;
    bool line_start = false;
    if (!rest.empty() && rest[0] == '(') {
      end = skip_group(rest, 0);
      if (end == std::string_view::npos) break;
      line_start = is_line_start_group(rest, end);
    } else {
      end = skip_atom(rest);
      if (end == 0) break;
    }
    if (end < rest.size() && (rest[end] == '?' || rest[end] == '*')) {
      ++end;
      if (end < rest.size() && rest[end] == '?') ++end;  // lazy
    } else if (!line_start) {
      break;  // a part the match needs
    }
    rest.remove_prefix(end);
  }
  if (rest.empty() || is_quantifier(rest[0]) || rest[0] == ')') return p;
  return std::string(rest);
}

}  // namespace

// What Vectorscan is given for one RE2 pattern:
// - named groups become plain groups: Vectorscan needs no names, and rejects a name used
//   twice in one pattern, which RE2 accepts (alternatives that capture the same thing);
// - Vectorscan's multiline anchors know only "\n", and a line may also end in "\r": every
//   anchor, wherever it stands (an alternative's "$" too), also accepts a carriage return
//   (a superset is always fine for a prefilter);
// - a colour code rsyslog escaped ("#033[0m", no control byte that would have the line
//   cleaned before it is prefiltered) may stand between an anchor and the text: RE2 reads
//   the line without it (strip_ansi), Vectorscan reads the raw line.
std::string prefilter_pattern(const std::string& p) {
  static constexpr std::string_view kEscapedColour = "(?:#033\\[[0-9;]{0,12}m)*";
  std::string out;
  out.reserve(p.size() + 16);
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      out += c;
      out += p[++i];
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      // "[]..." and "[^]...": a leading ']' is a literal member
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];
      continue;
    }
    if (p.compare(i, 4, "(?P<") == 0) {
      std::size_t close = p.find('>', i + 4);
      if (close != std::string::npos) {
        out += "(?:";
        i = close;
        continue;
      }
    }
    if (c == '^') {
      out += "(?:^|\\r)";
      out += kEscapedColour;
      continue;
    }
    if (c == '$') {
      out += kEscapedColour;
      out += "(?:$|\\r)";
      continue;
    }
    out += c;
  }
  return out;
}

namespace {

// The length of the literal text `p` starts with (after any leading "\\b"), as RE2 reads it:
// plain characters and escaped punctuation, not counting a character a quantifier follows.
std::size_t leading_literal(std::string_view p) {
  std::size_t i = 0;
  while (p.compare(i, 2, "\\b") == 0) i += 2;
  std::size_t n = 0;
  while (i < p.size()) {
    char c = p[i];
    std::size_t width = 1;
    if (c == '\\') {
      if (i + 1 >= p.size() || std::isalnum(static_cast<unsigned char>(p[i + 1])))
        break;  // \d, \w...
      width = 2;
    } else if (std::strchr(".[](){}*+?|^$", c)) {
      break;
    }
    if (i + width < p.size() && std::strchr("*+?{", p[i + width])) break;  // "ab*": "a" only
    i += width;
    ++n;
  }
  return n;
}

// A pattern is a concatenation; any match of it holds a match of every later part of it at
// the same place, so the part after its last top-level gap (".*", ".+?", "[^']*?": a run
// of anything on the line) finds every line the pattern does. When that part starts with a
// long literal, Vectorscan is given it alone: the whole pattern starting on a literal found
// on most lines ("(?i:nccl)\\w*\\b[^']*?...\\binvalid usage") cost a quarter of the scan of an
// NCCL_DEBUG=INFO log, spent following every "NCCL INFO" to its line end. RE2 still
// confirms every candidate line with the whole pattern. Patterns with a top-level "|" or an
// inline flag group ("(?i)", which would not reach the part) are left whole.
std::string gap_tail(const std::string& p) {
  constexpr std::size_t kMinLiteral = 10;
  int depth = 0;
  std::size_t tail = std::string::npos;  // where the part after the last gap starts
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    std::size_t gap_end = std::string::npos;  // one past a gap starting at i
    if (c == '[') {
      const std::size_t after = skip_group(p, i);  // one past the class's ']'
      if (after == std::string_view::npos) return p;
      if (depth == 0 && p[i + 1] == '^' && after < p.size() && (p[after] == '*' || p[after] == '+'))
        gap_end = after + 1;
      else {
        i = after - 1;
        continue;
      }
    } else if (c == '.' && depth == 0 && i + 1 < p.size() && (p[i + 1] == '*' || p[i + 1] == '+')) {
      gap_end = i + 2;
    } else if (c == '(') {
      if (p.compare(i, 2, "(?") == 0) {
        // An inline flag group without a colon changes what follows: leave the pattern.
        std::size_t j = i + 2;
        while (j < p.size() && std::isalpha(static_cast<unsigned char>(p[j]))) ++j;
        if (j < p.size() && p[j] == ')') return p;
      }
      ++depth;
      continue;
    } else if (c == ')') {
      --depth;
      continue;
    } else if (c == '|' && depth == 0) {
      return p;
    } else {
      continue;
    }
    if (gap_end < p.size() && p[gap_end] == '?') ++gap_end;  // lazy
    tail = gap_end;
    i = gap_end - 1;
  }
  if (tail == std::string::npos || tail >= p.size()) return p;
  if (leading_literal(std::string_view(p).substr(tail)) < kMinLiteral) return p;
  return p.substr(tail);
}

// Whether the pattern ends with "$" (not an escaped one).
bool ends_with_anchor(std::string_view p) {
  if (p.empty() || p.back() != '$') return false;
  std::size_t backslashes = 0;
  for (std::size_t i = p.size() - 1; i > 0 && p[i - 1] == '\\'; --i) ++backslashes;
  return backslashes % 2 == 0;
}

}  // namespace

std::string prefilter_factor(const std::string& p) {
  return gap_tail(drop_leading_context(p));
}

std::vector<std::string> prefilter_gate(const std::string& pattern) {
  // A pattern ending at the line's end ("via NET/IB/0\s*$": the channel is not GDRDMA) is
  // told apart by where its text stops, which no string says: its gate would be on every
  // channel line, and RE2 would reject most of them. Vectorscan takes it as a regex.
  if (ends_with_anchor(pattern)) return {};
  re2::FilteredRE2 filter(kMinAtomLength);
  RE2::Options options;  // as the catalog compiles its patterns: UTF-8, case-sensitive
  options.set_log_errors(false);
  int id = 0;
  if (filter.Add(pattern, options, &id) != RE2::NoError) return {};
  std::vector<std::string> atoms;
  filter.Compile(&atoms);
  // FilteredRE2 says which patterns can match a text holding a given set of atoms (an
  // AND/OR tree over them). A set of strings is a gate when a text holding every atom but
  // those cannot match: then every matching line holds one of them. Start from every
  // usable atom and drop the shortest while the rest still is a gate.
  auto usable = [](const std::string& a) {
    if (a.size() < kMinGateLength) return false;
    for (unsigned char c : a)
      if (c >= 0x80 || c == '\n' || c == '\r') return false;  // caseless only for ASCII
    for (std::string_view tag : kBulkTags)
      if (tag.find(a) != std::string_view::npos) return false;
    return true;
  };
  std::vector<char> in_gate(atoms.size(), 0);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < atoms.size(); ++i)
    if (usable(atoms[i])) {
      in_gate[i] = 1;
      order.push_back(i);
    }
  std::vector<int> present, potential;
  auto is_gate = [&] {
    present.clear();
    for (std::size_t i = 0; i < atoms.size(); ++i)
      if (!in_gate[i]) present.push_back(static_cast<int>(i));
    potential.clear();
    filter.AllPotentials(present, &potential);
    return potential.empty();
  };
  if (order.empty() || !is_gate()) return {};
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return atoms[a].size() < atoms[b].size(); });
  for (std::size_t i : order) {
    in_gate[i] = 0;
    if (!is_gate()) in_gate[i] = 1;
  }
  // A string holding another gate string adds no line: "via net/ib" where "via net/" is.
  std::vector<std::string> gate;
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    if (!in_gate[i]) continue;
    bool redundant = false;
    for (std::size_t j = 0; j < atoms.size() && !redundant; ++j)
      redundant = j != i && in_gate[j] && atoms[j].size() < atoms[i].size() &&
                  atoms[i].find(atoms[j]) != std::string::npos;
    if (!redundant) gate.push_back(atoms[i]);
  }
  std::sort(gate.begin(), gate.end());
  return gate;
}

namespace {

// A gate string as a Vectorscan expression: every byte but letters and digits escaped.
std::string escaped_literal(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() * 2);
  for (unsigned char c : s) {
    if (std::isalnum(c)) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace

PrefilterPlan plan_prefilter(const std::vector<std::string>& patterns) {
  // Expression text -> the patterns it stands for, literals and regexes apart (a regex and
  // a gate string may be spelled alike).
  std::map<std::pair<bool, std::string>, std::vector<std::uint32_t>> stands_for;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const auto pattern = static_cast<std::uint32_t>(i);
    std::vector<std::string> gate = prefilter_gate(patterns[i]);
    if (gate.empty())
      stands_for[{false, prefilter_pattern(prefilter_factor(patterns[i]))}].push_back(pattern);
    for (const auto& s : gate) stands_for[{true, escaped_literal(s)}].push_back(pattern);
  }
  PrefilterPlan plan;
  for (auto& [key, targets] : stands_for) {
    plan.expressions.push_back({key.second, key.first});
    plan.targets.insert(plan.targets.end(), targets.begin(), targets.end());
    plan.offsets.push_back(static_cast<std::uint32_t>(plan.targets.size()));
  }
  return plan;
}

}  // namespace ff::analysis
