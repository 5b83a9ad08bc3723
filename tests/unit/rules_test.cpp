// Rule files: loading errors name the file, the rule and the field; user rules override
// built-ins by id; the shipped catalog is valid.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "analysis/catalog.hpp"
#include "analysis/taxonomy.hpp"
#include "rules/env_var_docs.hpp"
#include "rules/rule_lint.hpp"
#include "rules/rule_loader.hpp"

using namespace ff;
namespace fs = std::filesystem;

namespace {

const char* kValid = R"json({
  "id": "test-rule", "category": "shm", "title": "t", "role": "cause", "weight": 0.5,
  "patterns": ["shared memory (?P<size>\\d+)"], "indicates": "i",
  "fix": {"summary": "f", "env": {"NCCL_SHM_DISABLE": "1"}},
  "examples": {"match": ["shared memory 12"], "no_match": ["shared memory x"]}
})json";

std::string problems_text(const std::vector<rules::RuleProblem>& ps) {
  std::string s;
  for (const auto& p : ps) s += p.to_string() + "\n";
  return s;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("ff-rules-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(path / name, std::ios::binary) << text;
  }
};

}  // namespace

TEST_CASE("a valid rule loads with every field", "[rules]") {
  analysis::Rule r;
  std::vector<rules::RuleProblem> ps;
  REQUIRE(rules::parse_rule(kValid, "x.json", r, ps));
  CHECK(ps.empty());
  CHECK(r.id == "test-rule");
  CHECK(r.role == analysis::Role::kCause);
  REQUIRE(r.fix.env.size() == 1);
  CHECK(r.fix.env[0].first == "NCCL_SHM_DISABLE");
  CHECK(r.origin == "x.json");
  // Round trip through the JSON writer.
  analysis::Rule again;
  REQUIRE(rules::parse_rule(rules::rule_to_json(r), "y.json", again, ps));
  CHECK(again.patterns == r.patterns);
  CHECK(again.examples_no_match == r.examples_no_match);
  // A finding that waits for a known failure keeps the flag through the writer.
  r.role = analysis::Role::kFinding;
  r.only_under_failure = true;
  REQUIRE(rules::parse_rule(rules::rule_to_json(r), "z.json", again, ps));
  CHECK(again.only_under_failure);
  // So does a setup step.
  r.setup_step = true;
  REQUIRE(rules::parse_rule(rules::rule_to_json(r), "s.json", again, ps));
  CHECK(again.setup_step);
  // And a line of a background thread.
  r.role = analysis::Role::kSymptom;
  r.only_under_failure = r.setup_step = false;
  r.background = true;
  REQUIRE(rules::parse_rule(rules::rule_to_json(r), "b.json", again, ps));
  CHECK(again.background);
}

TEST_CASE("a rule's verdict loads and round-trips", "[rules][verdict]") {
  std::string text = kValid;
  text.replace(text.find("\"indicates\""), 0,
               "\"verdict\": {\"fault\": \"infrastructure\", \"node\": \"reset-gpu\", "
               "\"xid_resolution\": {\"95\": \"RESET_GPU\", \"*\": \"RESTART_APP\"}}, ");
  analysis::Rule r;
  std::vector<rules::RuleProblem> ps;
  REQUIRE(rules::parse_rule(text, "x.json", r, ps));
  CHECK(r.verdict.fault == "infrastructure");
  CHECK(r.verdict.restart.empty());
  CHECK(r.verdict.node == "reset-gpu");
  CHECK(r.verdict.xid_resolution.size() == 2);
  analysis::Rule again;
  REQUIRE(rules::parse_rule(rules::rule_to_json(r), "y.json", again, ps));
  CHECK(again.verdict.fault == r.verdict.fault);
  CHECK(again.verdict.node == r.verdict.node);
  CHECK(again.verdict.xid_resolution.size() == 2);
}

TEST_CASE("a cross-rank comparison's groups load from one capture or several", "[rules]") {
  for (const char* within : {"\"pg\"", "[\"opcount\", \"nranks\"]"}) {
    INFO(within);
    std::string text = kValid;
    text.replace(text.find("\"indicates\""), 0,
                 std::string("\"cross_rank\": {\"keys\": [\"op\"], \"within\": ") + within + "}, ");
    analysis::Rule r;
    std::vector<rules::RuleProblem> ps;
    REQUIRE(rules::parse_rule(text, "x.json", r, ps));
    REQUIRE(r.cross_rank);
    CHECK(r.cross_rank->within.size() == (within[0] == '[' ? 2u : 1u));
    analysis::Rule again;
    REQUIRE(rules::parse_rule(rules::rule_to_json(r), "y.json", again, ps));
    REQUIRE(again.cross_rank);
    CHECK(again.cross_rank->within == r.cross_rank->within);
  }
}

TEST_CASE("invalid rules are reported with file, rule and field", "[rules]") {
  struct Case {
    std::string text;
    std::string expect;
  };
  std::string base = kValid;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    auto p = s.find(from);
    REQUIRE(p != std::string::npos);
    return s.replace(p, from.size(), to);
  };
  const std::vector<Case> cases = {
      {"{ not json", "bad.json:1:4: not valid JSON"},
      {"[1,2]", "must hold one JSON object"},
      {with("\"category\": \"shm\"", "\"category\": \"disk\""),
       "rule 'test-rule': field 'category': 'disk' is not a category"},
      {with("\"role\": \"cause\"", "\"role\": \"root\""), "field 'role': must be one of"},
      {with("\"weight\": 0.5", "\"weight\": 3"), "field 'weight': must be a number in (0, 1]"},
      {with("\"weight\": 0.5",
            "\"weight\": 0.5, \"cross_rank\": {\"keys\": [\"op\"], \"position\": \"seq\"}"),
       "field 'cross_rank.position': 'seq' is not one of cross_rank.keys"},
      {with("\"title\": \"t\", ", ""), "field 'title': is required"},
      {with("\"indicates\": \"i\"", "\"indicates\": \"i\", \"colour\": 1"),
       "field 'colour': unknown field"},
      {with("\"patterns\": [", "\"patterns\": [7, "), "field 'patterns[0]': must be a string"},
      {with("\"id\": \"test-rule\"", "\"id\": \"Bad Id\""), "field 'id': must be lower-case"},
      // Refused by the fast parser; nlohmann's parser still says where (or what) is wrong.
      {with("\"title\": \"t\"", "\"title\": \"t\xff\""), "bad.json:2:52: not valid JSON"},
      {with("\"weight\": 0.5", "\"weight\": 1e400"), "not valid JSON"},
      {kValid + std::string("}"), "not valid JSON"},
      {with("\"indicates\": \"i\"", "\"indicates\": \"i\", \"verdict\": {\"node\": \"reboot\"}"),
       "field 'verdict.node': must be 'none', 'reset-gpu' or 'drain-and-service'"},
      {with("\"indicates\": \"i\"", "\"indicates\": \"i\", \"verdict\": {\"restart\": \"yes\"}"),
       "field 'verdict.restart': must be"},
      {with("\"indicates\": \"i\"",
            "\"indicates\": \"i\", \"verdict\": {\"xid_resolution\": {\"79\": \"REBOOT\"}}"),
       "field 'verdict.xid_resolution.79': must name a resolution bucket"},
      {with("\"indicates\": \"i\"", "\"indicates\": \"i\", \"verdict\": {\"domain\": \"x\"}"),
       "field 'verdict.domain': unknown field"},
      {with("\"indicates\": \"i\"",
            "\"indicates\": \"i\", \"unique\": {\"value\": \"rank\", \"category\": \"config\"}"),
       "field 'unique.of': is required"},
      {with("\"indicates\": \"i\"",
            "\"indicates\": \"i\", \"agree\": {\"value\": \"v\", \"category\": \"version\"}, "
            "\"unique\": {\"value\": \"rank\", \"of\": \"w\", \"category\": \"config\"}"),
       "field 'unique': a rule has either 'agree' or 'unique', not both"},
      {with("\"indicates\": \"i\"", "\"indicates\": \"i\", \"unique\": [1]"),
       "field 'unique': must be an object with 'value', 'of' and 'category'"},
      {with("\"indicates\": \"i\"",
            "\"indicates\": \"i\", \"words\": [{\"pattern\": \"shm\", \"category\": \"shm\"}]"),
       "field 'words': only a rule with role 'fallback' reads its lines' words"},
      {with("\"role\": \"cause\"",
            "\"role\": \"fallback\", \"words\": [{\"pattern\": \"x\", "
            "\"category\": \"disk\"}]"),
       "field 'words[0].category': 'disk' is not a category"},
      {with("\"role\": \"cause\"", "\"role\": \"fallback\", \"words\": [{\"category\": \"shm\"}]"),
       "field 'words[0].pattern': is required"},
      {with("\"role\": \"cause\"", "\"role\": \"fallback\", \"words\": {\"shm\": 1}"),
       "field 'words': must be a list"},
      {with("\"indicates\": \"i\"", "\"indicates\": \"i\", \"only_under_failure\": true"),
       "field 'only_under_failure': only a rule with role 'finding' or 'fallback' waits for a "
       "known failure"},
      {with("\"role\": \"cause\"", "\"role\": \"finding\", \"only_under_failure\": \"yes\""),
       "field 'only_under_failure': must be true or false"},
      {with("\"role\": \"cause\"", "\"role\": \"finding\", \"setup_step\": true"),
       "field 'setup_step': a setup step is what a working job passes too: needs "
       "only_under_failure"},
      {with("\"role\": \"cause\"", "\"role\": \"cause\", \"background\": true"),
       "field 'background': a line a background thread prints (background) is a symptom: role "
       "'symptom'"},
      {with("\"indicates\": \"i\"", "\"indicates\": \"i\", \"setup_step\": true"),
       "field 'setup_step': a step of setting up NCCL (setup_step) is an observation: role "
       "'finding'"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    analysis::Rule r;
    std::vector<rules::RuleProblem> ps;
    CHECK_FALSE(rules::parse_rule(c.text, "bad.json", r, ps));
    CHECK_THAT(problems_text(ps), Catch::Contains(c.expect));
    CHECK_THAT(problems_text(ps), Catch::Contains("bad.json"));
  }
}

TEST_CASE("rule text the fast parser hands to nlohmann's parser reads as before", "[rules]") {
  // A byte order mark; an integer beyond 64 bits (nlohmann reads it as a double, so the
  // weight is out of range rather than the text unreadable).
  analysis::Rule plain, bom, big;
  std::vector<rules::RuleProblem> ps;
  REQUIRE(rules::parse_rule(kValid, "a.json", plain, ps));
  REQUIRE(rules::parse_rule("\xEF\xBB\xBF" + std::string(kValid), "b.json", bom, ps));
  CHECK(ps.empty());
  CHECK(bom.patterns == plain.patterns);
  std::string text = kValid;
  text.replace(text.find("\"weight\": 0.5"), 13, "\"weight\": 100000000000000000000000");
  CHECK_FALSE(rules::parse_rule(text, "c.json", big, ps));
  REQUIRE(ps.size() == 1);
  CHECK(ps[0].field == "weight");
}

TEST_CASE("a regex RE2 rejects is reported with RE2's message", "[rules]") {
  analysis::Rule r;
  std::vector<rules::RuleProblem> ps;
  std::string text = kValid;
  const std::string old = "shared memory (?P<size>\\\\d+)";
  REQUIRE(text.find(old) != std::string::npos);
  text.replace(text.find(old), old.size(), "(?<=lookbehind)x");
  REQUIRE(rules::parse_rule(text, "re.json", r, ps));
  std::vector<analysis::CompileError> errors;
  auto cat = analysis::Catalog::compile({r}, &errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].origin == "re.json");
  CHECK(errors[0].rule == "test-rule");
  CHECK(errors[0].field == "patterns[0]");
  CHECK_THAT(errors[0].message, Catch::Contains("invalid"));
  CHECK(cat.rules().empty());  // the broken rule is left out, not half-compiled
}

TEST_CASE("user rule directories add and override; broken files are skipped", "[rules]") {
  TempDir dir;
  std::vector<rules::RuleProblem> ps;
  auto builtin = rules::builtin_rules(ps);
  REQUIRE(ps.empty());
  REQUIRE_FALSE(builtin.empty());
  std::string override_id = builtin.front().id;
  std::string over = kValid;
  over.replace(over.find("test-rule"), 9, override_id);
  dir.write("a-override.json", over);
  dir.write("b-new.json", kValid);
  dir.write("c-broken.json", "{\"id\": \"x\"");
  dir.write("notes.txt", "not a rule");
  auto rules = rules::load_rules({dir.path.string()}, ps);
  CHECK(rules.size() == builtin.size() + 1);
  bool overridden = false, added = false;
  for (const auto& r : rules) {
    if (r.id == override_id) overridden = r.origin.find("a-override.json") != std::string::npos;
    if (r.id == "test-rule") added = true;
  }
  CHECK(overridden);
  CHECK(added);
  REQUIRE(ps.size() == 1);
  CHECK_THAT(ps[0].to_string(), Catch::Contains("c-broken.json"));
  ps.clear();
  rules::load_rules({(dir.path / "missing").string()}, ps);
  REQUIRE(ps.size() == 1);
  CHECK_THAT(ps[0].to_string(), Catch::Contains("not a directory"));
}

TEST_CASE("the shipped catalog is valid and covers every category", "[rules]") {
  std::vector<rules::RuleProblem> ps;
  auto rules = rules::builtin_rules(ps);
  CHECK(problems_text(ps).empty());
  auto rep = rules::lint(rules, {});
  CHECK(problems_text(rep.problems).empty());
  for (auto cat : analysis::kCategories) {
    if (cat == "none") continue;
    int n = 0;
    for (const auto& r : rules) n += r.category == cat && !r.benign;
    INFO(cat);
    CHECK(n >= 1);
  }
}

TEST_CASE("lint finds duplicates, failing examples and shadowed rules", "[rules]") {
  analysis::Rule a;
  std::vector<rules::RuleProblem> ps;
  REQUIRE(rules::parse_rule(kValid, "a.json", a, ps));
  analysis::Rule dup = a;
  dup.origin = "dup.json";
  analysis::Rule bad = a;
  bad.id = "bad-examples";
  bad.examples_match = {"nothing like it"};
  analysis::Rule weak = a;
  weak.id = "weak";
  weak.weight = 0.1;
  weak.patterns = {"shared memory"};
  weak.examples_no_match = {};
  auto rep = rules::lint({a, dup, bad, weak}, {});
  std::string all = problems_text(rep.problems);
  CHECK_THAT(all, Catch::Contains("dup.json: rule 'test-rule': field 'id': duplicates"));
  CHECK_THAT(all, Catch::Contains("rule 'bad-examples': field 'examples.match'"));
  CHECK_THAT(all, Catch::Contains("rule 'weak': field 'patterns': shadowed"));
}

TEST_CASE("the variables explained on hover are data, checked like the rules", "[rules]") {
  // The built-in file: every entry complete, the ones the fixes set among them.
  const auto& docs = rules::builtin_env_var_docs();
  CHECK(docs.size() >= 20);
  for (const char* name : {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_DEBUG"}) {
    const rules::EnvVarDoc* d = rules::find_env_var(name);
    REQUIRE(d != nullptr);
    CHECK_FALSE(d->meaning.empty());
    CHECK_FALSE(d->syntax.empty());
  }
  CHECK(rules::find_env_var("NCCL_NO_SUCH_THING") == nullptr);
  std::vector<rules::RuleProblem> none;
  rules::parse_env_var_docs(rules::builtin_env_var_docs_text(), "b", none);
  CHECK(none.empty());
  // A broken file: each problem names the file and the place; good entries are kept.
  const char* text = R"({"variables": [
    {"name": "NCCL_A", "owner": "NCCL", "default": "0", "meaning": "m", "syntax": "s"},
    {"name": "NCCL_B", "owner": "NCCL", "default": "0", "meaning": "", "syntax": "s"},
    {"name": "NCCL_A", "owner": "NCCL", "default": "0", "meaning": "m", "syntax": "s"},
    {"name": "NCCL_C", "owner": "NCCL", "default": "0", "meaning": "m", "syntax": "s", "x": 1},
    7]})";
  std::vector<rules::RuleProblem> ps;
  auto got = rules::parse_env_var_docs(text, "vars.json", ps);
  REQUIRE(got.size() == 1);
  CHECK(got[0].name == "NCCL_A");
  const std::string all = problems_text(ps);
  CHECK_THAT(
      all, Catch::Contains("vars.json: field 'variables[1].meaning': must be a non-empty string"));
  CHECK_THAT(all, Catch::Contains("field 'variables[2].name': 'NCCL_A' is described twice"));
  CHECK_THAT(all, Catch::Contains("field 'variables[3].x': unknown field"));
  CHECK_THAT(all, Catch::Contains("field 'variables[4]': must be an object"));
  std::vector<rules::RuleProblem> bad;
  CHECK(rules::parse_env_var_docs("{ nope", "v.json", bad).empty());
  CHECK_THAT(problems_text(bad), Catch::Contains("v.json: not valid JSON"));
}
