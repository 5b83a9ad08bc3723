#include "rules/env_var_docs.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "rules/builtin_rules.hpp"

namespace ff::rules {

namespace {

using json = nlohmann::json;

// Every field a variable has, each a non-empty string.
constexpr const char* kFields[] = {"name", "owner", "default", "meaning", "syntax"};

bool read_entry(const json& v, const std::string& at, const std::string& origin, EnvVarDoc& out,
                std::vector<RuleProblem>& problems) {
  if (!v.is_object()) {
    problems.push_back(
        {origin, "", at, "must be an object with name, owner, default, meaning, syntax"});
    return false;
  }
  bool ok = true;
  std::string got[5];
  for (int i = 0; i < 5; ++i) {
    auto it = v.find(kFields[i]);
    if (it == v.end() || !it->is_string() || it->get<std::string>().empty()) {
      problems.push_back({origin, "", at + "." + kFields[i], "must be a non-empty string"});
      ok = false;
      continue;
    }
    got[i] = it->get<std::string>();
  }
  for (const auto& [key, _] : v.items())
    if (std::find(std::begin(kFields), std::end(kFields), key) == std::end(kFields)) {
      problems.push_back({origin, "", at + "." + key, "unknown field"});
      ok = false;
    }
  if (ok) out = {got[0], got[1], got[2], got[3], got[4]};
  return ok;
}

}  // namespace

std::vector<EnvVarDoc> parse_env_var_docs(std::string_view text, const std::string& origin,
                                          std::vector<RuleProblem>& problems) {
  std::vector<EnvVarDoc> out;
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) {
    problems.push_back({origin, "", "", "not valid JSON"});
    return out;
  }
  if (!j.is_object() || !j.contains("variables") || !j["variables"].is_array()) {
    problems.push_back({origin, "", "variables", "must be a list of variables"});
    return out;
  }
  std::set<std::string> names;
  const json& vars = j["variables"];
  for (std::size_t i = 0; i < vars.size(); ++i) {
    const std::string at = "variables[" + std::to_string(i) + "]";
    EnvVarDoc d;
    if (!read_entry(vars[i], at, origin, d, problems)) continue;
    if (!names.insert(d.name).second) {
      problems.push_back({origin, "", at + ".name", "'" + d.name + "' is described twice"});
      continue;
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::string_view builtin_env_var_docs_text() {
  for (const auto& f : builtin_data_files())
    if (f.name == "variables/env-vars.json") return f.text;
  return {};
}

const std::vector<EnvVarDoc>& builtin_env_var_docs() {
  static const std::vector<EnvVarDoc> docs = [] {
    std::vector<RuleProblem> ignored;  // `firstfault rules lint` reports them
    return parse_env_var_docs(builtin_env_var_docs_text(), "builtin:variables/env-vars.json",
                              ignored);
  }();
  return docs;
}

const EnvVarDoc* find_env_var(std::string_view name) {
  for (const auto& v : builtin_env_var_docs())
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace ff::rules
