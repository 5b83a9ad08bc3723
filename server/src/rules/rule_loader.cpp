#include "rules/rule_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "analysis/known_bugs.hpp"
#include "analysis/taxonomy.hpp"
#include "analysis/verdict.hpp"
#include "jsonio/json_reader.hpp"
#include "rules/builtin_rules.hpp"

namespace ff::rules {

using nlohmann::json;

std::string RuleProblem::to_string() const {
  std::string s = origin.empty() ? std::string("<rules>") : origin;
  if (!rule.empty()) s += ": rule '" + rule + "'";
  if (!field.empty()) s += ": field '" + field + "'";
  s += ": " + message;
  return s;
}

namespace {

const std::set<std::string>& known_fields() {
  static const std::set<std::string> f = {
      "$schema",    "id",         "category",  "title",       "role",    "weight",
      "benign",     "success",    "progress",  "patterns",    "exclude", "indicates",
      "mechanisms", "checks",     "fix",       "verify",      "related", "versions",
      "examples",   "cross_rank", "explains",  "decode",      "sources", "verdict",
      "agree",      "unique",     "members",   "on_one_host", "words",   "only_under_failure",
      "known_bugs", "setup_step", "background"};
  return f;
}

struct Reader {
  const json& j;
  const std::string& origin;
  std::string id;
  std::vector<RuleProblem>& problems;
  bool ok = true;

  void fail(const std::string& field, const std::string& msg) {
    problems.push_back({origin, id, field, msg});
    ok = false;
  }

  std::string str(const json& obj, const char* key, const std::string& path, bool required) {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(path, "is required");
      return {};
    }
    if (!it->is_string()) {
      fail(path, "must be a string");
      return {};
    }
    return it->get<std::string>();
  }

  std::vector<std::string> strings(const json& obj, const char* key, const std::string& path,
                                   bool required) {
    std::vector<std::string> out;
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(path, "is required");
      return out;
    }
    if (it->is_string()) {  // a single string is accepted where a list is expected
      out.push_back(it->get<std::string>());
      return out;
    }
    if (!it->is_array()) {
      fail(path, "must be a list of strings");
      return out;
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_string()) {
        fail(path + "[" + std::to_string(i) + "]", "must be a string");
        continue;
      }
      out.push_back((*it)[i].get<std::string>());
    }
    return out;
  }
};

// The text as one JSON value. simdjson reads it (the built-in rules are parsed at every
// start-up, and nlohmann's parser took 3.5 ms of it); where simdjson refuses the text,
// nlohmann's parser decides, as it always did, and says where the text is broken.
std::optional<json> read_rule_json(jsonio::JsonReader& reader, std::string_view text,
                                   const std::string& origin, std::vector<RuleProblem>& problems) {
  if (auto j = reader.parse(text, false)) return j;
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // nlohmann reports the byte position; turn it into line:column for people.
    std::size_t pos = std::min<std::size_t>(e.byte, text.size());
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i + 1 < pos; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string msg = e.what();
    auto p = msg.find("parse error");
    if (p != std::string::npos) msg = msg.substr(p);
    problems.push_back({origin + ":" + std::to_string(line) + ":" + std::to_string(col), "", "",
                        "not valid JSON: " + msg});
    return std::nullopt;
  } catch (const json::exception& e) {
    // Not a syntax error but still unreadable, e.g. a number too large for a double (406);
    // found by fuzz/fuzz_rule.cpp, regression tests/hostile/regressions/rule/.
    std::string msg = e.what();
    auto p = msg.find(']');
    problems.push_back({origin, "", "", "not valid JSON: " + (p == std::string::npos ? msg : msg.substr(p + 2))});
    return std::nullopt;
  }
  return j;
}

// The rule's name and kind: its id (and that every field is known), category, title, role,
// weight and the flags of what its lines show.
void read_identity(const json& j, Reader& r, analysis::Rule& rule) {
  r.id = r.str(j, "id", "id", true);
  rule.id = r.id;
  if (!rule.id.empty()) {
    bool good = std::all_of(rule.id.begin(), rule.id.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    });
    if (!good) r.fail("id", "must be lower-case letters, digits, '-' or '.'");
  }
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known_fields().count(it.key())) r.fail(it.key(), "unknown field");

  rule.category = r.str(j, "category", "category", true);
  if (!rule.category.empty() && !analysis::is_category(rule.category))
    r.fail("category", "'" + rule.category + "' is not a category of the taxonomy");
  rule.title = r.str(j, "title", "title", true);
  std::string role = r.str(j, "role", "role", true);
  bool role_known = false;
  for (auto candidate : {analysis::Role::kCause, analysis::Role::kSymptom, analysis::Role::kContext,
                         analysis::Role::kFinding, analysis::Role::kFallback})
    if (role == analysis::role_name(candidate)) {
      rule.role = candidate;
      role_known = true;
    }
  if (!role_known && !role.empty())
    r.fail("role", "must be one of cause, symptom, context, finding, fallback");
  if (auto it = j.find("weight"); it != j.end()) {
    if (!it->is_number() || it->get<double>() <= 0 || it->get<double>() > 1)
      r.fail("weight", "must be a number in (0, 1]");
    else
      rule.weight = it->get<double>();
  }
  if (auto it = j.find("benign"); it != j.end()) {
    if (!it->is_boolean())
      r.fail("benign", "must be true or false");
    else
      rule.benign = it->get<bool>();
  }
  // A flag that only rules of one role may set: `why` says so when another sets it.
  auto role_flag = [&](const char* field, bool& out, analysis::Role role, const std::string& why) {
    auto it = j.find(field);
    if (it == j.end()) return;
    if (!it->is_boolean()) return r.fail(field, "must be true or false");
    out = it->get<bool>();
    if (out && rule.role != role) r.fail(field, why);
  };
  // What a context line shows about the job (success, progress, members).
  auto context_flag = [&](const char* field, bool& out) {
    role_flag(field, out, analysis::Role::kContext,
              std::string("a line that shows ") + field + " has role 'context'");
  };
  context_flag("success", rule.success);
  context_flag("progress", rule.progress);
  context_flag("members", rule.members);
  // An observation (finding) or a wording no rule knows (fallback) may wait for a failure.
  const analysis::Role waits =
      rule.role == analysis::Role::kFallback ? analysis::Role::kFallback : analysis::Role::kFinding;
  role_flag("only_under_failure", rule.only_under_failure, waits,
            "only a rule with role 'finding' or 'fallback' waits for a known failure");
  role_flag("setup_step", rule.setup_step, analysis::Role::kFinding,
            "a step of setting up NCCL (setup_step) is an observation: role 'finding'");
  role_flag("background", rule.background, analysis::Role::kSymptom,
            "a line a background thread prints (background) is a symptom: role 'symptom'");
  if (rule.setup_step && !rule.only_under_failure)
    r.fail("setup_step", "a setup step is what a working job passes too: needs only_under_failure");
  rule.on_one_host = r.str(j, "on_one_host", "on_one_host", false);
  if (!rule.on_one_host.empty() && !analysis::is_category(rule.on_one_host))
    r.fail("on_one_host", "'" + rule.on_one_host + "' is not a category");
}

// What the rule matches and what a match indicates.
void read_patterns(const json& j, Reader& r, analysis::Rule& rule) {
  rule.patterns = r.strings(j, "patterns", "patterns", true);
  if (rule.patterns.empty() && j.contains("patterns")) r.fail("patterns", "must not be empty");
  rule.exclude = r.strings(j, "exclude", "exclude", false);
  rule.indicates = r.str(j, "indicates", "indicates", true);
  rule.mechanisms = r.strings(j, "mechanisms", "mechanisms", false);
}

// What to check once the rule matched: each check a text, with the evidence it looks for.
void read_checks(const json& j, Reader& r, analysis::Rule& rule) {
  if (auto it = j.find("checks"); it != j.end()) {
    if (!it->is_array()) {
      r.fail("checks", "must be a list");
    } else {
      for (std::size_t i = 0; i < it->size(); ++i) {
        const json& c = (*it)[i];
        std::string path = "checks[" + std::to_string(i) + "]";
        analysis::Check check;
        if (c.is_string()) {
          check.text = c.get<std::string>();
        } else if (c.is_object()) {
          check.text = r.str(c, "text", path + ".text", true);
          check.evidence = r.strings(c, "evidence", path + ".evidence", false);
        } else {
          r.fail(path, "must be a string or an object with 'text' and 'evidence'");
        }
        rule.checks.push_back(std::move(check));
      }
    }
  }
}

// The fix: a summary alone, or actions, environment variables and steps.
void read_fix(const json& j, Reader& r, analysis::Rule& rule) {
  if (auto it = j.find("fix"); it != j.end()) {
    if (it->is_string()) {
      rule.fix.summary = it->get<std::string>();
    } else if (it->is_object()) {
      rule.fix.actions = r.strings(*it, "actions", "fix.actions", false);
      for (const auto& a : rule.fix.actions)
        if (a != "nccl-ib-hca-binding" && a != "shm-size")
          r.fail("fix.actions", "unknown action '" + a + "' (nccl-ib-hca-binding or shm-size)");
      // A rule whose whole fix is an action (the binding) needs no words of its own.
      rule.fix.summary = r.str(*it, "summary", "fix.summary", rule.fix.actions.empty());
      if (auto env = it->find("env"); env != it->end()) {
        if (!env->is_object()) {
          r.fail("fix.env", "must be an object of variable: value");
        } else {
          for (auto e = env->begin(); e != env->end(); ++e) {
            if (!e.value().is_string())
              r.fail("fix.env." + e.key(), "must be a string");
            else
              rule.fix.env.emplace_back(e.key(), e.value().get<std::string>());
          }
        }
      }
      rule.fix.steps = r.strings(*it, "steps", "fix.steps", false);
    } else {
      r.fail("fix", "must be a string or an object");
    }
  }
}

// How to verify the diagnosis, the rules to tell it apart from, the releases it concerns
// and the example lines its patterns must (and must not) match.
void read_references(const json& j, Reader& r, analysis::Rule& rule) {
  if (auto it = j.find("verify"); it != j.end()) {
    if (!it->is_object()) {
      r.fail("verify", "must be an object with 'command' and 'expect'");
    } else {
      rule.verify.command = r.str(*it, "command", "verify.command", true);
      rule.verify.expect = r.str(*it, "expect", "verify.expect", false);
    }
  }
  if (auto it = j.find("related"); it != j.end()) {
    if (!it->is_array()) {
      r.fail("related", "must be a list");
    } else {
      for (std::size_t i = 0; i < it->size(); ++i) {
        const json& x = (*it)[i];
        std::string path = "related[" + std::to_string(i) + "]";
        if (!x.is_object()) {
          r.fail(path, "must be an object with 'rule' and 'distinguish'");
          continue;
        }
        rule.related.push_back({r.str(x, "rule", path + ".rule", true),
                                r.str(x, "distinguish", path + ".distinguish", true)});
      }
    }
  }
  if (auto it = j.find("versions"); it != j.end()) {
    if (!it->is_object()) {
      r.fail("versions", "must be an object with 'nccl' and/or 'pytorch'");
    } else {
      rule.nccl_versions = r.str(*it, "nccl", "versions.nccl", false);
      rule.pytorch_versions = r.str(*it, "pytorch", "versions.pytorch", false);
    }
  }
  if (auto it = j.find("examples"); it != j.end() && it->is_object()) {
    rule.examples_match = r.strings(*it, "match", "examples.match", true);
    rule.examples_no_match = r.strings(*it, "no_match", "examples.no_match", false);
  } else {
    r.fail("examples", "is required: an object with 'match' (and 'no_match') example lines");
  }
}

void read_cross_rank(const json& j, Reader& r, analysis::Rule& rule) {
  if (auto it = j.find("cross_rank"); it != j.end()) {
    if (!it->is_object()) {
      r.fail("cross_rank", "must be an object with 'keys'");
    } else {
      analysis::CrossRank cr;
      cr.keys = r.strings(*it, "keys", "cross_rank.keys", true);
      cr.mismatch_category = r.str(*it, "mismatch_category", "cross_rank.mismatch_category", false);
      if (!cr.mismatch_category.empty() && !analysis::is_category(cr.mismatch_category))
        r.fail("cross_rank.mismatch_category", "'" + cr.mismatch_category + "' is not a category");
      // One capture ("pg") or several (["opcount", "nranks"]).
      cr.within = r.strings(*it, "within", "cross_rank.within", false);
      cr.position = r.str(*it, "position", "cross_rank.position", false);
      if (!cr.position.empty() &&
          std::find(cr.keys.begin(), cr.keys.end(), cr.position) == cr.keys.end())
        r.fail("cross_rank.position", "'" + cr.position + "' is not one of cross_rank.keys");
      rule.cross_rank = std::move(cr);
    }
  }
}

  // `agree` (every line the same value) and `unique` (no two members the same value) share
  // one shape; a rule has at most one of them.
void read_agreement(const json& j, Reader& r, analysis::Rule& rule) {
  for (const char* key : {"agree", "unique"}) {
    auto it = j.find(key);
    if (it == j.end()) continue;
    const std::string k = key;
    const bool distinct = k == "unique";
    if (!it->is_object()) {
      r.fail(k, distinct ? "must be an object with 'value', 'of' and 'category'"
                         : "must be an object with 'value' and 'category'");
      continue;
    }
    if (rule.agree) {
      r.fail(k, "a rule has either 'agree' or 'unique', not both");
      continue;
    }
    analysis::Agreement ag;
    ag.distinct = distinct;
    ag.value = r.str(*it, "value", k + ".value", true);
    ag.within = r.str(*it, "within", k + ".within", false);
    ag.category = r.str(*it, "category", k + ".category", true);
    if (distinct) ag.of = r.str(*it, "of", k + ".of", true);
    if (!ag.category.empty() && !analysis::is_category(ag.category))
      r.fail(k + ".category", "'" + ag.category + "' is not a category");
    if (auto w = it->find("weight"); w != it->end()) {
      if (!w->is_number() || w->get<double>() <= 0 || w->get<double>() > 1)
        r.fail(k + ".weight", "must be a number in (0, 1]");
      else
        ag.weight = w->get<double>();
    }
    rule.agree = std::move(ag);
  }
}

void read_words(const json& j, Reader& r, analysis::Rule& rule) {
  if (auto it = j.find("words"); it != j.end()) {
    if (!it->is_array()) {
      r.fail("words", "must be a list of {\"pattern\", \"category\"}");
    } else {
      for (std::size_t i = 0; i < it->size(); ++i) {
        const std::string at = "words[" + std::to_string(i) + "]";
        const json& w = (*it)[i];
        if (!w.is_object()) {
          r.fail(at, "must be an object with 'pattern' and 'category'");
          continue;
        }
        analysis::Rule::WordCategory wc{r.str(w, "pattern", at + ".pattern", true),
                                        r.str(w, "category", at + ".category", true)};
        if (!wc.category.empty() && !analysis::is_category(wc.category))
          r.fail(at + ".category", "'" + wc.category + "' is not a category");
        rule.words.push_back(std::move(wc));
      }
      if (rule.role != analysis::Role::kFallback)
        r.fail("words", "only a rule with role 'fallback' reads its lines' words");
    }
  }
}

// Which failures a finding explains, and how its lines are decoded.
void read_explains_and_decode(const json& j, Reader& r, analysis::Rule& rule) {
  rule.explains = r.strings(j, "explains", "explains", false);
  for (const auto& c : rule.explains)
    if (!analysis::is_category(c)) r.fail("explains", "'" + c + "' is not a category of the taxonomy");
  if (!rule.explains.empty() && rule.role != analysis::Role::kFinding)
    r.fail("explains", "only a rule with role 'finding' explains other categories");
  std::string decode = r.str(j, "decode", "decode", false);
  if (decode == "exit-status")
    rule.decode = analysis::Decode::kExitStatus;
  else if (decode == "nccl-source")
    rule.decode = analysis::Decode::kNcclSource;
  else if (decode == "frame")
    rule.decode = analysis::Decode::kFrame;
  else if (decode == "progress")
    rule.decode = analysis::Decode::kProgress;
  else if (decode == "stack")
    rule.decode = analysis::Decode::kStack;
  else if (decode == "traceback")
    rule.decode = analysis::Decode::kTraceback;
  else if (!decode.empty())
    r.fail("decode",
           "must be 'exit-status', 'nccl-source', 'frame', 'progress', 'stack' or 'traceback'");
  if (analysis::read_after_scan(rule.decode) &&
      (rule.role != analysis::Role::kFinding || !rule.only_under_failure))
    r.fail("decode",
           "a progress, stack or traceback rule has role 'finding' and only_under_failure: "
           "counters, stacks and cut tracebacks are read only when the job is known to have "
           "failed");
  if (rule.decode == analysis::Decode::kFrame &&
      (rule.role != analysis::Role::kContext || rule.benign))
    r.fail("decode",
           "a frame rule has role 'context' and is not benign: a frame only names "
           "where a crash happened");
}

// What the diagnosis means for the job: whose fault, whether a restart helps, what the
// node needs, and how Xid codes resolve.
void read_verdict(const json& j, Reader& r, analysis::Rule& rule) {
  if (auto it = j.find("verdict"); it != j.end()) {
    if (!it->is_object()) {
      r.fail("verdict", "must be an object with 'fault', 'restart', 'node' or 'xid_resolution'");
    } else {
      for (auto k = it->begin(); k != it->end(); ++k)
        if (k.key() != "fault" && k.key() != "restart" && k.key() != "node" &&
            k.key() != "xid_resolution")
          r.fail("verdict." + k.key(), "unknown field");
      auto& v = rule.verdict;
      v.fault = r.str(*it, "fault", "verdict.fault", false);
      if (!v.fault.empty() && !analysis::parse_fault_domain(v.fault))
        r.fail("verdict.fault", "must be 'workload', 'infrastructure' or 'undetermined'");
      v.restart = r.str(*it, "restart", "verdict.restart", false);
      if (!v.restart.empty() && !analysis::parse_restart_outlook(v.restart))
        r.fail("verdict.restart", "must be 'may-succeed', 'will-fail' or 'after-node-action'");
      v.node = r.str(*it, "node", "verdict.node", false);
      if (!v.node.empty() && !analysis::parse_node_action(v.node))
        r.fail("verdict.node", "must be 'none', 'reset-gpu' or 'drain-and-service'");
      if (auto x = it->find("xid_resolution"); x != it->end()) {
        if (!x->is_object()) r.fail("verdict.xid_resolution", "must be an object: Xid code -> bucket");
        for (auto b = x->begin(); x->is_object() && b != x->end(); ++b) {
          if (!b->is_string() || !analysis::is_xid_resolution(b->get<std::string>())) {
            r.fail("verdict.xid_resolution." + b.key(),
                   "must name a resolution bucket of NVIDIA's Xid catalog (RESTART_APP, "
                   "RESET_GPU, RESTART_BM, ...)");
            continue;
          }
          v.xid_resolution.emplace_back(b.key(), b->get<std::string>());
        }
      }
    }
  }
}

// One known bug of the release the rule's `version` capture states: its range must read as
// releases, in order, and every category and source must be there, since the diagnosis shows
// the bug as a cause with its fix and its sources.
void read_known_bug(const json& b, const std::string& at, Reader& r, analysis::KnownBug& bug) {
  static const std::set<std::string> fields = {"id",       "from",    "fixed", "category",
                                               "explains", "summary", "fix",   "sources"};
  for (auto it = b.begin(); it != b.end(); ++it)
    if (!fields.count(it.key())) r.fail(at + "." + it.key(), "unknown field");
  bug.id = r.str(b, "id", at + ".id", true);
  if (!bug.id.empty() && !std::all_of(bug.id.begin(), bug.id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
      }))
    r.fail(at + ".id", "must be lower-case letters, digits, '-' or '.'");
  bug.from = r.str(b, "from", at + ".from", true);
  bug.fixed = r.str(b, "fixed", at + ".fixed", false);
  auto from = analysis::parse_release(bug.from), fixed = analysis::parse_release(bug.fixed);
  if (!bug.from.empty() && !from)
    r.fail(at + ".from", "'" + bug.from + "' is not a release (digits and dots: 2.19.1)");
  if (b.contains("fixed") && !fixed)
    r.fail(at + ".fixed", "'" + bug.fixed + "' is not a release (digits and dots: 2.20.3)");
  if (from && fixed && analysis::compare_releases(*from, *fixed) >= 0)
    r.fail(at + ".fixed", "must be a later release than 'from' (" + bug.from + ")");
  bug.category = r.str(b, "category", at + ".category", true);
  if (!bug.category.empty() && !analysis::is_category(bug.category))
    r.fail(at + ".category", "'" + bug.category + "' is not a category of the taxonomy");
  bug.explains = r.strings(b, "explains", at + ".explains", true);
  if (bug.explains.empty() && b.contains("explains"))
    r.fail(at + ".explains", "must name the failure categories the bug shows up as");
  for (const auto& c : bug.explains)
    if (!analysis::is_category(c)) r.fail(at + ".explains", "'" + c + "' is not a category");
  bug.summary = r.str(b, "summary", at + ".summary", true);
  bug.fix = r.str(b, "fix", at + ".fix", true);
  bug.sources = r.strings(b, "sources", at + ".sources", true);
  if (bug.sources.empty() && b.contains("sources"))
    r.fail(at + ".sources", "must cite where the bug is confirmed (release notes, an issue)");
}

// The known bugs of the release a rule's lines state: only a rule that captures `version`.
void read_known_bugs(const json& j, Reader& r, analysis::Rule& rule) {
  auto it = j.find("known_bugs");
  if (it == j.end()) return;
  if (!it->is_array()) return r.fail("known_bugs", "must be a list of known bugs");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const std::string at = "known_bugs[" + std::to_string(i) + "]";
    if (!(*it)[i].is_object()) {
      r.fail(at,
             "must be an object with 'id', 'from', 'category', 'explains', 'summary', "
             "'fix' and 'sources'");
      continue;
    }
    analysis::KnownBug bug;
    read_known_bug((*it)[i], at, r, bug);
    if (!bug.id.empty() && !ids.insert(bug.id).second) r.fail(at + ".id", "'" + bug.id + "' twice");
    rule.known_bugs.push_back(std::move(bug));
  }
  const bool states_release =
      std::any_of(rule.patterns.begin(), rule.patterns.end(),
                  [](const std::string& p) { return p.find("(?P<version>") != std::string::npos; });
  if (!rule.known_bugs.empty() && !states_release)
    r.fail("known_bugs", "only a rule whose patterns capture `version` knows a release's bugs");
}

bool parse_rule_value(const json& j, const std::string& origin, analysis::Rule& out,
                      std::vector<RuleProblem>& problems) {
  if (!j.is_object()) {
    problems.push_back({origin, "", "", "a rule file must hold one JSON object"});
    return false;
  }
  Reader r{j, origin, {}, problems};
  analysis::Rule rule;
  rule.origin = origin;
  read_identity(j, r, rule);
  read_patterns(j, r, rule);
  read_checks(j, r, rule);
  read_fix(j, r, rule);
  read_references(j, r, rule);
  read_cross_rank(j, r, rule);
  read_agreement(j, r, rule);
  read_words(j, r, rule);
  read_explains_and_decode(j, r, rule);
  rule.sources = r.strings(j, "sources", "sources", false);
  read_verdict(j, r, rule);
  read_known_bugs(j, r, rule);
  if (!r.ok) return false;
  out = std::move(rule);
  return true;
}

bool parse_rule(jsonio::JsonReader& reader, std::string_view text, const std::string& origin,
                analysis::Rule& out, std::vector<RuleProblem>& problems) {
  auto j = read_rule_json(reader, text, origin, problems);
  return j && parse_rule_value(*j, origin, out, problems);
}

}  // namespace

bool parse_rule(std::string_view text, const std::string& origin, analysis::Rule& out,
                std::vector<RuleProblem>& problems) {
  jsonio::JsonReader reader;
  return parse_rule(reader, text, origin, out, problems);
}

std::vector<analysis::Rule> builtin_rules(std::vector<RuleProblem>& problems) {
  std::vector<analysis::Rule> out;
  out.reserve(builtin_rule_files().size());
  jsonio::JsonReader reader;
  for (const auto& f : builtin_rule_files()) {
    analysis::Rule r;
    if (parse_rule(reader, f.text, "builtin:" + std::string(f.name), r, problems))
      out.push_back(std::move(r));
  }
  return out;
}

std::vector<analysis::Rule> load_rule_dir(const std::string& dir, std::vector<RuleProblem>& problems) {
  namespace fs = std::filesystem;
  std::vector<analysis::Rule> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    problems.push_back({dir, "", "", "not a directory"});
    return out;
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") files.push_back(it->path());
  if (ec) problems.push_back({dir, "", "", ec.message()});
  std::sort(files.begin(), files.end());
  jsonio::JsonReader reader;
  for (const auto& p : files) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      problems.push_back({p.string(), "", "", "cannot be read"});
      continue;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (text.size() > (1u << 20)) {
      problems.push_back({p.string(), "", "", "larger than 1 MiB; not a rule file"});
      continue;
    }
    analysis::Rule r;
    if (parse_rule(reader, text, p.string(), r, problems)) out.push_back(std::move(r));
  }
  return out;
}

std::vector<analysis::Rule> load_rules(const std::vector<std::string>& user_dirs,
                                       std::vector<RuleProblem>& problems, bool include_builtin) {
  std::vector<analysis::Rule> rules;
  if (include_builtin) rules = builtin_rules(problems);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < rules.size(); ++i) index[rules[i].id] = i;
  for (const auto& d : user_dirs) {
    for (auto& r : load_rule_dir(d, problems)) {
      auto it = index.find(r.id);
      if (it != index.end()) {
        rules[it->second] = std::move(r);
      } else {
        index[r.id] = rules.size();
        rules.push_back(std::move(r));
      }
    }
  }
  return rules;
}

std::string rule_to_json(const analysis::Rule& r) {
  json j;
  j["id"] = r.id;
  j["category"] = r.category;
  j["title"] = r.title;
  j["role"] = analysis::role_name(r.role);
  j["weight"] = r.weight;
  if (r.benign) j["benign"] = true;
  j["patterns"] = r.patterns;
  if (!r.exclude.empty()) j["exclude"] = r.exclude;
  j["indicates"] = r.indicates;
  if (!r.mechanisms.empty()) j["mechanisms"] = r.mechanisms;
  if (!r.checks.empty()) {
    json checks = json::array();
    for (const auto& c : r.checks) {
      json cj{{"text", c.text}};
      if (!c.evidence.empty()) cj["evidence"] = c.evidence;
      checks.push_back(cj);
    }
    j["checks"] = checks;
  }
  if (!r.fix.summary.empty() || !r.fix.actions.empty()) {
    json fix = json::object();
    if (!r.fix.actions.empty()) fix["actions"] = r.fix.actions;
    if (!r.fix.summary.empty()) fix["summary"] = r.fix.summary;
    if (!r.fix.env.empty()) {
      json env = json::object();
      for (const auto& [k, v] : r.fix.env) env[k] = v;
      fix["env"] = env;
    }
    if (!r.fix.steps.empty()) fix["steps"] = r.fix.steps;
    j["fix"] = fix;
  }
  if (!r.verify.command.empty()) j["verify"] = {{"command", r.verify.command}, {"expect", r.verify.expect}};
  if (!r.related.empty()) {
    json rel = json::array();
    for (const auto& x : r.related) rel.push_back({{"rule", x.rule}, {"distinguish", x.distinguish}});
    j["related"] = rel;
  }
  if (!r.nccl_versions.empty() || !r.pytorch_versions.empty()) {
    json v = json::object();
    if (!r.nccl_versions.empty()) v["nccl"] = r.nccl_versions;
    if (!r.pytorch_versions.empty()) v["pytorch"] = r.pytorch_versions;
    j["versions"] = v;
  }
  if (r.cross_rank) {
    json cr{{"keys", r.cross_rank->keys}};
    if (!r.cross_rank->mismatch_category.empty()) cr["mismatch_category"] = r.cross_rank->mismatch_category;
    if (!r.cross_rank->position.empty()) cr["position"] = r.cross_rank->position;
    const auto& within = r.cross_rank->within;
    if (within.size() == 1)
      cr["within"] = within.front();
    else if (!within.empty())
      cr["within"] = within;
    j["cross_rank"] = cr;
  }
  if (r.agree) {
    json ag{
        {"value", r.agree->value}, {"category", r.agree->category}, {"weight", r.agree->weight}};
    if (!r.agree->within.empty()) ag["within"] = r.agree->within;
    if (r.agree->distinct) ag["of"] = r.agree->of;
    j[r.agree->distinct ? "unique" : "agree"] = ag;
  }
  if (!r.explains.empty()) j["explains"] = r.explains;
  if (r.success) j["success"] = true;
  if (r.progress) j["progress"] = true;
  if (r.only_under_failure) j["only_under_failure"] = true;
  if (r.setup_step) j["setup_step"] = true;
  if (r.background) j["background"] = true;
  if (r.members) j["members"] = true;
  if (!r.on_one_host.empty()) j["on_one_host"] = r.on_one_host;
  if (!r.words.empty()) {
    json words = json::array();
    for (const auto& w : r.words)
      words.push_back({{"pattern", w.pattern}, {"category", w.category}});
    j["words"] = std::move(words);
  }
  if (r.decode == analysis::Decode::kExitStatus) j["decode"] = "exit-status";
  if (r.decode == analysis::Decode::kNcclSource) j["decode"] = "nccl-source";
  if (r.decode == analysis::Decode::kProgress) j["decode"] = "progress";
  if (r.decode == analysis::Decode::kStack) j["decode"] = "stack";
  if (r.decode == analysis::Decode::kTraceback) j["decode"] = "traceback";
  if (r.decode == analysis::Decode::kFrame) j["decode"] = "frame";
  if (!r.sources.empty()) j["sources"] = r.sources;
  if (!r.verdict.empty()) {
    json v = json::object();
    if (!r.verdict.fault.empty()) v["fault"] = r.verdict.fault;
    if (!r.verdict.restart.empty()) v["restart"] = r.verdict.restart;
    if (!r.verdict.node.empty()) v["node"] = r.verdict.node;
    if (!r.verdict.xid_resolution.empty()) {
      json x = json::object();
      for (const auto& [code, bucket] : r.verdict.xid_resolution) x[code] = bucket;
      v["xid_resolution"] = x;
    }
    j["verdict"] = v;
  }
  if (!r.known_bugs.empty()) {
    json bugs = json::array();
    for (const auto& b : r.known_bugs) {
      json bj{{"id", b.id}, {"from", b.from}};
      if (!b.fixed.empty()) bj["fixed"] = b.fixed;
      bj["category"] = b.category;
      bj["explains"] = b.explains;
      bj["summary"] = b.summary;
      bj["fix"] = b.fix;
      bj["sources"] = b.sources;
      bugs.push_back(std::move(bj));
    }
    j["known_bugs"] = std::move(bugs);
  }
  j["examples"] = {{"match", r.examples_match}, {"no_match", r.examples_no_match}};
  return j.dump(2);
}

}  // namespace ff::rules
