#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <set>

#include "cli/commands.hpp"
#include "cli/rule_set.hpp"
#include "rules/catalog_doc.hpp"
#include "rules/env_var_docs.hpp"
#include "rules/rule_lint.hpp"
#include "rules/rule_loader.hpp"

namespace ff::cli {

namespace po = boost::program_options;

namespace {

const char* kUsage =
    "Usage: firstfault rules <subcommand> [options]\n"
    "\n"
    "Subcommands:\n"
    "  list                 one line per rule: id, category, role, title\n"
    "  show ID              the rule as JSON\n"
    "  lint                 schema, patterns, examples, duplicate and shadowed rules\n"
    "  test                 run every rule's example lines\n"
    "  doc [-o FILE]        generate the error catalog (docs/catalog.md)\n"
    "  export-patterns      every pattern, one per line (for side-by-side benchmarks)\n"
    "\n"
    "Options";

// `rules lint`: reads the rule files itself (not through the catalog), so that it sees every
// rule, duplicates and shadowed ones included.
int lint_rules(const std::vector<std::string>& rule_dirs, bool builtin) {
  std::vector<rules::RuleProblem> problems;
  std::vector<analysis::Rule> raw;
  if (builtin) {
    raw = rules::builtin_rules(problems);
    // The variables explained on hover are built-in data too.
    rules::parse_env_var_docs(rules::builtin_env_var_docs_text(), "builtin:variables/env-vars.json",
                              problems);
  }
  for (const auto& d : rule_dirs)
    for (auto& r : rules::load_rule_dir(d, problems)) raw.push_back(std::move(r));
  auto rep = rules::lint(raw, std::move(problems));
  for (const auto& p : rep.problems) std::cout << p.to_string() << "\n";
  std::set<std::string> cats;
  for (const auto& r : raw) cats.insert(r.category);
  std::cout << "rules lint: " << rep.rules << " rules in " << cats.size() << " categories, "
            << rep.examples.size() << " example lines, " << rep.problems.size() << " problems\n";
  return rep.problems.empty() ? kExitOk : kExitFailure;
}

int list_rules(const std::vector<analysis::Rule>& rules) {
  for (const auto& r : rules) {
    const char* role = analysis::role_name(r.role);
    std::cout << r.id << "\t" << r.category << "\t" << role << "\t" << r.title << "\n";
  }
  return kExitOk;
}

int show_rule(const analysis::Catalog& catalog, const std::vector<std::string>& positional) {
  if (positional.size() != 2) {
    std::cerr << "firstfault rules show: give exactly one rule id\n";
    return kExitUsage;
  }
  const analysis::Rule* r = catalog.find(positional[1]);
  if (!r) {
    std::cerr << "firstfault rules show: no rule '" << positional[1]
              << "' (see firstfault rules list)\n";
    return kExitUsage;
  }
  std::cout << rules::rule_to_json(*r) << "\n";
  return kExitOk;
}

int test_rules(const analysis::Catalog& catalog) {
  auto results = rules::run_examples(catalog);
  std::size_t passed = 0, failed = 0;
  for (const auto& e : results) {
    if (e.passed) {
      ++passed;
    } else {
      ++failed;
      std::cout << "FAIL " << e.rule << " (" << (e.expect_match ? "match" : "no_match")
                << "): " << e.detail << "\n    " << e.line << "\n";
    }
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed ? kExitFailure : kExitOk;
}

int write_doc(const std::vector<analysis::Rule>& rules, const std::string& output) {
  std::string md = rules::catalog_markdown(rules);
  if (output.empty()) {
    std::cout << md;
    return kExitOk;
  }
  std::ofstream f(output, std::ios::binary | std::ios::trunc);
  if (!f || !(f << md)) {
    std::cerr << "firstfault rules doc: " << output << ": cannot be written\n";
    return kExitUsage;
  }
  return kExitOk;
}

// A pattern in the common subset of RE2 and Rust's regex (ripgrep, for side-by-side
// benchmarks): named groups become plain groups (names repeat across rules) and "\'"
// becomes "'".
std::string portable_pattern(std::string p) {
  // Copied piece by piece, not p.replace(...): GCC 12 at -O3 reports a false
  // -Wrestrict (PR 105329) in an in-place replace by a shorter literal.
  {
    std::string plain;
    std::size_t from = 0;
    for (std::size_t i; (i = p.find("(?P<", from)) != std::string::npos;) {
      std::size_t close = p.find('>', i);
      if (close == std::string::npos) break;
      plain.append(p, from, i - from).append("(");
      from = close + 1;
    }
    plain.append(p, from, std::string::npos);
    p = std::move(plain);
  }
  // Rust's regex rejects escapes of characters that are not metacharacters.
  std::string out;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\' && i + 1 < p.size() &&
        std::string_view("'\"/<>`!@%,:;=~_&#").find(p[i + 1]) != std::string_view::npos)
      continue;
    out += p[i];
    if (p[i] == '\\' && i + 1 < p.size()) out += p[++i];
  }
  p = out;
  return p;
}

int export_patterns(const std::vector<analysis::Rule>& rules) {
  for (const auto& r : rules)
    for (const std::string& p : r.patterns) std::cout << portable_pattern(p) << "\n";
  return kExitOk;
}

}  // namespace

int run_rules(const std::vector<std::string>& args) {
  po::options_description opts(kUsage);
  std::vector<std::string> rule_dirs, positional;
  std::string output;
  opts.add_options()("help,h", "show this help")(
      "rules,r", po::value(&rule_dirs)->value_name("DIR")->composing(), "also load rules from DIR")(
      "no-builtin-rules", "use only the rules given with --rules")(
      "output,o", po::value(&output)->value_name("FILE"), "write to FILE instead of stdout (doc)");
  po::options_description hidden;
  hidden.add_options()("args", po::value(&positional));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("args", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "firstfault rules: " << e.what() << "\n";
    return kExitUsage;
  }
  if (vm.count("help") || positional.empty()) {
    (positional.empty() && !vm.count("help") ? std::cerr : std::cout) << opts << "\n";
    return vm.count("help") ? kExitOk : kExitUsage;
  }
  const std::string sub = positional.front();
  bool builtin = !vm.count("no-builtin-rules");

  if (sub == "lint") return lint_rules(rule_dirs, builtin);

  auto loaded = load_catalog(rule_dirs, builtin);
  for (const auto& p : loaded.problems) std::cerr << "firstfault: warning: " << p.to_string() << "\n";
  const auto& rules = loaded.catalog.rules();

  if (sub == "list") return list_rules(rules);
  if (sub == "show") return show_rule(loaded.catalog, positional);
  if (sub == "test") return test_rules(loaded.catalog);
  if (sub == "doc") return write_doc(rules, output);
  if (sub == "export-patterns") return export_patterns(rules);
  std::cerr << "firstfault rules: unknown subcommand '" << sub << "'\n" << opts << "\n";
  return kExitUsage;
}

}  // namespace ff::cli
