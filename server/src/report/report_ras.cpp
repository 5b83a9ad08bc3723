// NCCL RAS client output in the reports: the JSON `ras` array and the text section.
#include <sstream>

#include "report/report.hpp"

namespace ff::report {

using nlohmann::json;

namespace {

json process_json(const evidence::RasProcess& p) {
  json j = json::object();
  j["host"] = p.host.empty() ? json(nullptr) : json(p.host);
  j["pid"] = p.pid >= 0 ? json(p.pid) : json(nullptr);
  j["gpu"] = p.gpu.empty() ? json(nullptr) : json(p.gpu);
  return j;
}

json ranks_json(const std::vector<evidence::RasRank>& ranks) {
  json a = json::array();
  for (const auto& r : ranks) {
    json j = process_json(r.process);
    j["rank"] = r.rank;
    a.push_back(std::move(j));
  }
  return a;
}

}  // namespace

json ras_json(const std::vector<RasInput>& inputs) {
  json out = json::array();
  for (const auto& in : inputs) {
    const auto& r = in.report;
    json j;
    j["file"] = in.file;
    j["format"] = evidence::ras_format_name(r.format);
    j["nccl_version"] = r.nccl_version.empty() ? json(nullptr) : json(r.nccl_version);
    j["reports"] = r.reports;
    j["stuck_ranks"] = r.stuck_ranks;
    j["conclusions"] = r.conclusions;
    json comms = json::array();
    for (const auto& c : r.communicators) {
      json cj;
      cj["id"] = c.id.empty() ? json(nullptr) : json(c.id);
      cj["hash"] = c.hash;
      cj["line"] = c.line + 1;
      cj["size"] = c.size > 0 ? json(c.size) : json(nullptr);
      cj["problems"] = c.problems;
      cj["behind"] = c.behind;
      cj["behind_inferred"] = c.behind_inferred;
      using T = evidence::RasCommunicator::Trend;
      cj["trend"] = c.trend == T::kFrozen      ? "frozen"
                    : c.trend == T::kAdvancing ? "advancing"
                                               : "single";
      cj["ahead"] = c.ahead;
      cj["missing"] = ranks_json(c.missing);
      cj["errored"] = ranks_json(c.errored);
      comms.push_back(std::move(cj));
    }
    j["communicators"] = std::move(comms);
    json dead = json::array();
    for (const auto& p : r.dead) dead.push_back(process_json(p));
    j["dead_processes"] = std::move(dead);
    json unreachable = json::array();
    for (const auto& p : r.unreachable) unreachable.push_back(process_json(p));
    j["unreachable_processes"] = std::move(unreachable);
    json events = json::array();
    for (const auto& e : r.events)
      events.push_back({{"line", e.line + 1},
                        {"time", e.time},
                        {"event", e.event},
                        {"peer", process_json(e.peer)}});
    j["events"] = std::move(events);
    out.push_back(std::move(j));
  }
  return out;
}

std::string ras_text(const std::vector<RasInput>& inputs, bool color) {
  if (inputs.empty()) return {};
  std::ostringstream o;
  const char* bold = color ? "\x1b[1m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  o << bold << "NCCL RAS" << reset << " (NCCL's own view of the job):\n";
  for (const auto& in : inputs) {
    const auto& r = in.report;
    o << "  " << in.file << " (" << evidence::ras_format_name(r.format)
      << (r.nccl_version.empty() ? "" : ", NCCL " + r.nccl_version) << "):\n";
    if (r.conclusions.empty()) o << "    no problem reported\n";
    for (const auto& c : r.conclusions) o << "    - " << c << "\n";
  }
  return o.str();
}

}  // namespace ff::report
