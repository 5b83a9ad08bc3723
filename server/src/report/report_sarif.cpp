#include <map>
#include <set>
#include <utility>

#include "report/report.hpp"

namespace ff::report {

using nlohmann::json;

namespace {

json location(const analysis::Analysis& a, const analysis::Event& e) {
  json region = {{"startLine", e.line + 1},
                 {"startColumn", e.match_begin + 1},
                 {"endColumn", e.match_end + 1}};
  json physical = {{"artifactLocation", {{"uri", a.files[e.file].name}}}, {"region", region}};
  return {{"physicalLocation", physical}};
}

}  // namespace

json to_sarif(const analysis::Catalog& catalog, const analysis::Analysis& a) {
  const auto& rules = catalog.rules();
  json run;
  json driver = {{"name", "firstfault"},
                 {"informationUri", "https://github.com/firstfault/firstfault"},
                 {"version", FF_VERSION}};
  // Only the rules the results refer to, indexed for ruleIndex.
  std::vector<std::size_t> used;
  std::map<std::size_t, std::size_t> index;
  auto rule_index = [&](std::size_t r) {
    auto it = index.find(r);
    if (it != index.end()) return it->second;
    index[r] = used.size();
    used.push_back(r);
    return used.size() - 1;
  };
  json results = json::array();
  for (std::size_t k = 0; k < a.diagnoses.size(); ++k) {
    const auto& d = a.diagnoses[k];
    const auto& e = a.events[d.initiating];
    const auto& r = rules[d.rule];
    json res;
    res["ruleId"] = r.id;
    res["ruleIndex"] = rule_index(d.rule);
    res["level"] = k == 0 ? "error" : "warning";
    std::string msg = r.title;
    if (e.source.rank) msg += " (rank " + std::to_string(*e.source.rank) + ")";
    if (!r.fix.summary.empty()) msg += ". Fix: " + r.fix.summary;
    res["message"] = {{"text", msg}};
    res["locations"] = json::array({location(a, e)});
    res["properties"] = {{"category", d.category}, {"confidence", d.confidence},
                         {"role", "initiating"}};
    json related = json::array();
    for (std::size_t i : d.collateral) {
      const auto& c = a.events[i];
      json loc = location(a, c);
      loc["id"] = related.size();
      loc["message"] = {{"text", "collateral: " + rules[c.rule].title}};
      related.push_back(std::move(loc));
    }
    if (!related.empty()) res["relatedLocations"] = std::move(related);
    results.push_back(std::move(res));
  }
  if (!a.diagnoses.empty()) {
    for (std::size_t i : a.diagnoses.front().collateral) {
      const auto& c = a.events[i];
      const auto& r = rules[c.rule];
      results.push_back({{"ruleId", r.id},
                         {"ruleIndex", rule_index(c.rule)},
                         {"level", "note"},
                         {"message", {{"text", r.title + " (collateral of " +
                                                   rules[a.diagnoses.front().rule].id + ")"}}},
                         {"locations", json::array({location(a, c)})},
                         {"properties", {{"category", r.category}, {"role", "collateral"}}}});
    }
  }
  json rules_json = json::array();
  for (std::size_t r : used) {
    const auto& rule = rules[r];
    rules_json.push_back({{"id", rule.id},
                          {"name", rule.id},
                          {"shortDescription", {{"text", rule.title}}},
                          {"fullDescription", {{"text", rule.indicates}}},
                          {"help", {{"text", rule.fix.summary.empty() ? rule.indicates : rule.fix.summary}}},
                          {"helpUri", catalog_anchor(rule.id)},
                          {"properties", {{"category", rule.category}}}});
  }
  driver["rules"] = std::move(rules_json);
  run["tool"] = {{"driver", std::move(driver)}};
  json artifacts = json::array();
  for (const auto& f : a.files) artifacts.push_back({{"location", {{"uri", f.name}}}});
  // Moved, not copied: the results list every collateral line of a big job.
  run["artifacts"] = std::move(artifacts);
  run["results"] = std::move(results);
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({std::move(run)})}};
}

}  // namespace ff::report
