#include "fix/planner.hpp"

#include <algorithm>
#include <filesystem>

namespace ff::fix {

namespace fs = std::filesystem;

namespace {

// The wrapper goes next to the first shell launcher, else in the workspace root.
std::string wrapper_path(const PlanRequest& in) {
  fs::path dir = in.workspace;
  for (const auto& d : in.documents)
    if (detect_file_kind(d.path, d.text) == FileKind::Shell) {
      dir = fs::path(d.path).parent_path();
      break;
    }
  return (dir / std::string(kWrapperName)).string();
}

FixRequest engine_request(const PlanRequest& in) {
  FixRequest req;
  req.shm_size = in.shm_size;
  for (const auto& d : in.documents) req.files.push_back({d.path, d.text});
  req.wrapper_path = wrapper_path(in);
  req.wrapper_ref = req.wrapper_path;
  if (in.env_script_without_launch_file) {
    req.env_script_dir = in.workspace;
    req.env_script_for = in.log_name;
  }
  return req;
}

}  // namespace

Plan Planner::plan(const analysis::Analysis& analysis, const PlanRequest& in,
                   const std::vector<std::string>& also) const {
  Plan out;
  out.rules = rules_to_fix(catalog_, analysis);
  std::vector<const analysis::Rule*> shown = out.rules;
  for (const auto& id : also)
    if (const analysis::Rule* r = catalog_.find(id))
      if (std::find(shown.begin(), shown.end(), r) == shown.end()) shown.push_back(r);
  out.request = engine_request(in);
  // The topology is read only when a fix binds NICs: it may read the machine. The combined
  // plan uses it only when one of its own rules binds (as `analyze --fix` always did), so
  // what a front end shows beside it never changes it.
  auto binds = [](const analysis::Rule* r) { return wants_binding(*r); };
  bool plan_binds = std::any_of(out.rules.begin(), out.rules.end(), binds);
  FixRequest shown_req = out.request;
  if (std::any_of(shown.begin(), shown.end(), binds) && topology_) {
    TopologyInputs ti;
    ti.logs = in.logs;
    ti.topology_file = in.topology_file;
    ti.workspace = in.workspace;
    for (const auto& d : in.documents) ti.skip.push_back(d.path);
    out.topology = topology_->choose(std::move(ti));
    if (!out.topology.error.empty()) return out;
    shown_req.binding = out.topology.table;
    shown_req.binding_missing = out.topology.missing;
    if (plan_binds) out.request = shown_req;
  }
  if (!out.rules.empty()) out.combined = plan_fixes(out.rules, out.request);
  for (const auto* r : shown) out.by_rule[r->id] = fixes_for_rule(*r, shown_req);
  return out;
}

}  // namespace ff::fix
