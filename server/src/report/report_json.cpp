#include <map>
#include <utility>

#include "report/report.hpp"

namespace ff::report {

using nlohmann::json;

std::string catalog_anchor(const std::string& rule_id) { return "docs/catalog.md#" + rule_id; }

namespace {

json source_json(const analysis::Analysis& a, const analysis::Event& e) {
  json j;
  j["file"] = a.files[e.file].name;
  j["line"] = e.line + 1;
  j["rank"] = e.source.rank ? json(*e.source.rank) : json(nullptr);
  j["host"] = e.source.host.empty() ? json(nullptr) : json(e.source.host);
  j["pid"] = e.source.pid ? json(*e.source.pid) : json(nullptr);
  j["device"] = e.source.device ? json(*e.source.device) : json(nullptr);
  if (e.source.local_rank) j["local_rank"] = *e.source.local_rank;
  return j;
}

// One line of a diagnosis's evidence. Built member by member: nlohmann's initializer lists
// build a temporary value per key and per pair, and a big job lists thousands of lines.
json evidence_json(const analysis::Analysis& a, const analysis::Event& e, const std::string& rule,
                   const char* role) {
  json j = json::object();
  auto& o = j.get_ref<json::object_t&>();
  o.emplace("file", a.files[e.file].name);
  o.emplace("line", e.line + 1);
  o.emplace("role", role);
  o.emplace("rule", rule);
  o.emplace("text", e.text);
  return j;
}

// The verdict object of docs/JSON.md (added within version 1).
json verdict_json(const analysis::Verdict& v) {
  json j = json::object();
  j["fault"] = analysis::fault_domain_name(v.fault);
  j["restart"] = analysis::restart_outlook_name(v.restart);
  j["node_action"] = analysis::node_action_name(v.node);
  j["host"] = v.host.empty() ? json(nullptr) : json(v.host);
  j["gpu"] = v.gpu.empty() ? json(nullptr) : json(v.gpu);
  if (!v.resolution.empty()) {
    j["xid"] = v.xid.empty() ? json(nullptr) : json(v.xid);
    j["xid_resolution"] = v.resolution;
  }
  j["summary"] = analysis::verdict_summary(v);
  j["reason"] = v.reason;
  return j;
}

json captures_json(const analysis::Event& e) {
  json c = json::object();
  for (const auto& cap : e.captures) c[cap.name] = cap.value;
  return c;
}

}  // namespace

// Values are moved into their parents, never copied: a 100 MB log's diagnosis lists
// thousands of evidence lines, and each copy was a deep copy of all of them.
json to_json(const analysis::Catalog& catalog, const analysis::Analysis& a) {
  const auto& rules = catalog.rules();
  json out;
  out["version"] = kJsonVersion;
  out["files"] = json::array();
  for (const auto& f : a.files) out["files"].push_back({{"path", f.name}, {"lines", f.lines}});
  out["diagnoses"] = json::array();
  for (const auto& d : a.diagnoses) {
    const analysis::Rule& r = rules[d.rule];
    const analysis::Event& init = a.events[d.initiating];
    json dj;
    dj["rule"] = r.id;
    dj["category"] = d.category;
    dj["title"] = r.title;
    if (!d.headline.empty()) dj["headline"] = d.headline;
    dj["confidence"] = d.confidence;
    dj["initiating"] = source_json(a, init);
    dj["initiating"]["text"] = init.text;
    if (auto peer = init.capture("peer"); !peer.empty()) dj["initiating"]["peer"] = peer;
    dj["reasoning"] = d.reasoning;
    dj["verdict"] = verdict_json(d.verdict);
    dj["indicates"] = r.indicates;
    dj["captures"] = captures_json(init);
    json ev = json::array();
    ev.get_ref<json::array_t&>().reserve(1 + d.evidence.size() + d.collateral.size());
    ev.push_back(evidence_json(a, init, r.id, "initiating"));
    for (std::size_t i : d.evidence)
      ev.push_back(evidence_json(a, a.events[i], rules[a.events[i].rule].id, "context"));
    for (std::size_t i : d.collateral)
      ev.push_back(evidence_json(a, a.events[i], rules[a.events[i].rule].id, "collateral"));
    dj["evidence"] = std::move(ev);
    json col = json::array();
    for (std::size_t i : d.collateral) {
      const auto& e = a.events[i];
      json cj = source_json(a, e);
      cj["rule"] = rules[e.rule].id;
      col.push_back(std::move(cj));
    }
    dj["collateral"] = std::move(col);
    json env = json::object();
    for (const auto& [k, v] : r.fix.env) env[k] = v;
    const analysis::KnownBug* bug = analysis::known_bug_of(rules, d);
    dj["fix"] = {{"summary", bug ? bug->fix : r.fix.summary},
                 {"env", std::move(env)},
                 {"steps", r.fix.steps}};
    if (bug)
      dj["known_bug"] = {{"id", bug->id},
                         {"release", init.capture("version")},
                         {"from", bug->from},
                         {"fixed", bug->fixed},
                         {"explains", bug->explains},
                         {"summary", bug->summary},
                         {"fix", bug->fix},
                         {"sources", bug->sources}};
    dj["verify"] = json::array();
    if (!r.verify.command.empty()) dj["verify"].push_back(r.verify.command);
    if (!r.verify.expect.empty()) dj["verify_expect"] = r.verify.expect;
    json checks = json::array();
    for (const auto& c : d.checks) checks.push_back({{"text", c.text}, {"satisfied", c.satisfied}});
    dj["checks"] = std::move(checks);
    json related = json::array();
    for (const auto& x : r.related) related.push_back({{"rule", x.rule}, {"distinguish", x.distinguish}});
    dj["related"] = std::move(related);
    dj["catalog"] = catalog_anchor(r.id);
    out["diagnoses"].push_back(std::move(dj));
  }
  out["only_victims"] = a.only_victims;
  // How the job ended, as given (docs/OUTCOME.md), and whether anything explains it.
  json oj;
  oj["given"] = a.outcome.end == analysis::JobEnd::kHung     ? "hung"
                : a.outcome.end == analysis::JobEnd::kFailed ? "failed"
                                                             : "unknown";
  if (a.outcome.exit_code) oj["exit_code"] = *a.outcome.exit_code;
  oj["failure_known"] = a.outcome.known_failure();
  if (std::string d = analysis::describe_outcome(a.outcome); !d.empty()) oj["description"] = d;
  oj["unexplained"] = a.unexplained;
  if (a.capture_rule) {
    const analysis::Rule& r = rules[*a.capture_rule];
    json env = json::object();
    for (const auto& [k, v] : r.fix.env) env[k] = v;
    oj["capture"] = {{"rule", r.id},
                     {"summary", r.fix.summary},
                     {"env", std::move(env)},
                     {"steps", r.fix.steps}};
  }
  out["outcome"] = std::move(oj);
  out["verdict"] = verdict_json(a.verdict);
  json ctx = json::array();
  std::size_t shown = 0;
  for (std::size_t i : a.context) {
    if (++shown > kContextLinesShown) break;
    const auto& e = a.events[i];
    ctx.push_back({{"file", a.files[e.file].name}, {"line", e.line + 1}, {"rule", rules[e.rule].id},
                   {"benign", rules[e.rule].benign}, {"text", e.text}});
  }
  out["context"] = std::move(ctx);
  json findings = json::array();
  for (std::size_t i : a.findings) {
    const auto& e = a.events[i];
    json fj = source_json(a, e);
    fj["rule"] = rules[e.rule].id;
    fj["category"] = rules[e.rule].category;
    fj["title"] = rules[e.rule].title;
    fj["text"] = e.text;
    findings.push_back(std::move(fj));
  }
  out["findings"] = std::move(findings);
  return out;
}

}  // namespace ff::report
