#include "rules/rule_lint.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/line_matcher.hpp"
#include "analysis/line_source.hpp"
#include "analysis/prefilter.hpp"

namespace ff::rules {

std::vector<ExampleResult> run_examples(const analysis::Catalog& catalog) {
  std::vector<ExampleResult> out;
  std::vector<analysis::PatternHit> hits;
  std::vector<std::pair<std::size_t, std::size_t>> checks;
  analysis::LineMatcher matcher(catalog);
  const auto& rules = catalog.rules();
  for (std::size_t ri = 0; ri < rules.size(); ++ri) {
    const auto& r = rules[ri];
    auto hit_rules = [&](const std::string& line) {
      hits.clear();
      checks.clear();
      matcher.match(line, hits, checks);
      std::set<std::size_t> s;
      for (const auto& h : hits) s.insert(h.rule);
      // Progress counters and stack frames are read after the scan, by their own patterns
      // (Catalog::matches).
      if (analysis::read_after_scan(r.decode) && catalog.matches(ri, line)) s.insert(ri);
      return s;
    };
    for (const auto& ex : r.examples_match) {
      auto s = hit_rules(ex);
      bool ok = s.count(ri) > 0;
      out.push_back({r.id, true, ex, ok, ok ? "" : "the rule's patterns do not match this line"});
    }
    for (const auto& ex : r.examples_no_match) {
      auto s = hit_rules(ex);
      bool ok = s.count(ri) == 0;
      out.push_back({r.id, false, ex, ok, ok ? "" : "the rule matches this near miss"});
    }
  }
  return out;
}

// Whether one of the rule's patterns defines the named capture `name`.
bool names_capture(const analysis::Rule& r, const std::string& name) {
  const std::string group = "(?P<" + name + ">";
  return std::any_of(r.patterns.begin(), r.patterns.end(),
                     [&](const std::string& p) { return p.find(group) != std::string::npos; });
}

LintReport lint(const std::vector<analysis::Rule>& raw, std::vector<RuleProblem> load_problems) {
  LintReport rep;
  rep.problems = std::move(load_problems);
  rep.rules = raw.size();
  std::map<std::string, std::string> seen;
  for (const auto& r : raw) {
    auto [it, fresh] = seen.emplace(r.id, r.origin);
    if (!fresh)
      rep.problems.push_back({r.origin, r.id, "id", "duplicates the rule in " + it->second});
    if (r.examples_match.empty())
      rep.problems.push_back({r.origin, r.id, "examples.match", "needs at least one example line"});
    if (r.role != analysis::Role::kContext && !r.benign && r.fix.summary.empty() &&
        r.role == analysis::Role::kCause)
      rep.problems.push_back({r.origin, r.id, "fix", "a cause needs a fix"});
    // The shipped catalog is written from the producers' sources, and says which.
    if (r.sources.empty() && r.origin.rfind("builtin:", 0) == 0)
      rep.problems.push_back({r.origin, r.id, "sources",
                              "a built-in rule cites where its message comes from (owner/repo release path)"});
    if (r.decode == analysis::Decode::kExitStatus) {
      bool named = false;
      for (const char* k : {"signal", "returncode", "exitcode"})
        named = named || names_capture(r, k);
      if (!named)
        rep.problems.push_back(
            {r.origin, r.id, "decode",
             "an exit-status rule captures 'signal', 'returncode' or 'exitcode'"});
    }
    if (r.agree) {
      std::vector<std::pair<std::string, std::string>> named{{"value", r.agree->value}};
      if (!r.agree->of.empty()) named.push_back({"of", r.agree->of});
      if (!r.agree->within.empty()) named.push_back({"within", r.agree->within});
      const std::string field = r.agree->distinct ? "unique" : "agree";
      for (const auto& [what, capture] : named)
        if (!names_capture(r, capture))
          rep.problems.push_back({r.origin, r.id, field + "." + what,
                                  "'" + capture + "' is not a named capture of any pattern"});
    }
    if (r.cross_rank)
      for (const auto* list : {&r.cross_rank->keys, &r.cross_rank->within})
        for (const auto& k : *list)
          if (!names_capture(r, k))
            rep.problems.push_back(
                {r.origin, r.id,
                 list == &r.cross_rank->keys ? "cross_rank.keys" : "cross_rank.within",
                 "'" + k + "' is not a named capture of any pattern"});
    for (const auto& rel : r.related) {
      bool exists = false;
      for (const auto& o : raw)
        if (o.id == rel.rule) exists = true;
      if (!exists)
        rep.problems.push_back(
            {r.origin, r.id, "related", "names unknown rule '" + rel.rule + "'"});
    }
  }
  std::vector<analysis::CompileError> errors;
  auto catalog = analysis::Catalog::compile(raw, &errors);
  for (auto& e : errors) rep.problems.push_back({e.origin, e.rule, e.field, e.message});
  // Every pattern must also go into the whole-buffer prefilter: when Vectorscan refuses the
  // set, big logs are scanned line by line, correct but many times slower.
  if (errors.empty() && !catalog.empty()) {
    std::vector<std::string> patterns;
    for (const auto& r : catalog.rules()) {
      patterns.insert(patterns.end(), r.patterns.begin(), r.patterns.end());
      for (const auto& c : r.checks)
        patterns.insert(patterns.end(), c.evidence.begin(), c.evidence.end());
    }
    std::string why;
    if (!analysis::Prefilter::build(patterns, &why))
      rep.problems.push_back({"", "", "patterns", "the prefilter cannot be built: " + why});
  }
  rep.examples = run_examples(catalog);
  for (const auto& ex : rep.examples)
    if (!ex.passed) {
      const analysis::Rule* r = catalog.find(ex.rule);
      rep.problems.push_back({r ? r->origin : "", ex.rule,
                              ex.expect_match ? "examples.match" : "examples.no_match",
                              ex.detail + ": " + ex.line});
    }
  // Shadowing: every match example of a rule is also matched by one other rule that wins
  // the line (a higher weight in the same or a stronger role).
  std::vector<analysis::PatternHit> hits;
  std::vector<std::pair<std::size_t, std::size_t>> checks;
  analysis::LineMatcher matcher(catalog);
  const auto& rules = catalog.rules();
  auto strength = [&](std::size_t i) { return analysis::line_precedence(rules[i]); };
  for (std::size_t ri = 0; ri < rules.size(); ++ri) {
    // A progress counter or a stack frame makes no event of a line the scan reads: nothing
    // shadows it.
    if (rules[ri].examples_match.empty() || analysis::read_after_scan(rules[ri].decode)) continue;
    std::map<std::size_t, std::size_t> beaten_by;
    for (const auto& ex : rules[ri].examples_match) {
      hits.clear();
      checks.clear();
      matcher.match(ex, hits, checks);
      for (const auto& h : hits)
        if (h.rule != ri && strength(h.rule) > strength(ri)) ++beaten_by[h.rule];
    }
    for (const auto& [other, n] : beaten_by)
      if (n == rules[ri].examples_match.size())
        rep.problems.push_back(
            {rules[ri].origin, rules[ri].id, "patterns",
             "shadowed: rule '" + rules[other].id + "' wins every example line of this rule"});
  }
  return rep;
}

}  // namespace ff::rules
