#include <map>
#include <set>
#include <utility>

#include "report/report.hpp"

namespace ff::report {

using nlohmann::json;

namespace {

json location(const analysis::Analysis& a, const analysis::Event& e,
              const std::vector<std::string_view>& texts) {
  std::size_t begin = e.match_begin, end = e.match_end;
  std::string_view raw;
  bool have_raw = true;
  // A null text is a file known only from its summary (report/summary.hpp).
  if (e.file < texts.size() && texts[e.file].data() != nullptr && e.offset <= texts[e.file].size())
    raw = texts[e.file].substr(e.offset, e.length);
  else if (e.text.size() == e.length)
    raw = e.text;  // no escapes stripped, not capped: the raw line
  else
    have_raw = false;
  if (have_raw) {
    begin = utf16_units(raw.substr(0, std::min(begin, raw.size())));
    end = utf16_units(raw.substr(0, std::min(end, raw.size())));
  }
  json region = {{"startLine", e.line + 1}, {"startColumn", begin + 1}, {"endColumn", end + 1}};
  json physical = {{"artifactLocation", {{"uri", a.files[e.file].name}}}, {"region", region}};
  return {{"physicalLocation", physical}};
}

}  // namespace

std::size_t utf16_units(std::string_view s) {
  std::size_t n = 0, i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k)
      ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (!ok) {
      ++n;
      ++i;
      continue;
    }
    n += len == 4 ? 2 : 1;
    i += len;
  }
  return n;
}

json to_sarif(const analysis::Catalog& catalog, const analysis::Analysis& a,
              const std::vector<std::string_view>& texts) {
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
    const analysis::KnownBug* bug = analysis::known_bug_of(rules, d);
    std::string msg = bug ? d.headline : r.title;
    if (e.source.rank) msg += " (rank " + std::to_string(*e.source.rank) + ")";
    if (bug)
      msg += ". Fix: " + bug->fix;
    else if (!r.fix.summary.empty())
      msg += ". Fix: " + r.fix.summary;
    res["message"] = {{"text", msg}};
    res["locations"] = json::array({location(a, e, texts)});
    res["properties"] = {{"category", d.category}, {"confidence", d.confidence},
                         {"role", "initiating"}};
    json related = json::array();
    for (std::size_t i : d.collateral) {
      const auto& c = a.events[i];
      json loc = location(a, c, texts);
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
                         {"locations", json::array({location(a, c, texts)})},
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
  run["columnKind"] = "utf16CodeUnits";
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({std::move(run)})}};
}

}  // namespace ff::report
