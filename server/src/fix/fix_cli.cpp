#include "fix/fix_cli.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "fix/diff.hpp"
#include "fix/engine.hpp"
#include "fix/fix_json.hpp"
#include "fix/planner.hpp"
#include "fix/workspace_io.hpp"

namespace ff::fix {

namespace fs = std::filesystem;

namespace {

std::string rel(const fs::path& root, const std::string& p) {
  std::error_code ec;
  auto r = fs::relative(fs::weakly_canonical(fs::absolute(p), ec), root, ec);
  return ec || r.empty() ? p : r.generic_string();
}

void comment(std::string& out, const std::string& prefix, const std::string& text) {
  out += "# " + prefix + text + "\n";
}

// The plan's explanation as '#' lines (and its actions and notes in the JSON document).
void explain(const Plan& p, const fs::path& root, std::string& out, nlohmann::json* doc) {
  const FixPlan& plan = p.combined;
  std::string ids;
  for (const auto* r : p.rules) ids += (ids.empty() ? "" : ", ") + r->id;
  comment(out, "firstfault --fix for: ", ids);
  for (const auto& a : plan.actions) {
    comment(out, "", "[" + a.rule + "] " + a.title);
    for (auto n : a.notes) {
      std::string prefix = root.string() + "/";
      for (std::size_t at; (at = n.find(prefix)) != std::string::npos;) n.erase(at, prefix.size());
      comment(out, "  ", n);
    }
    for (const auto& w : a.warnings) comment(out, "  warning: ", w);
    if (!a.verify_command.empty()) comment(out, "  verify: ", a.verify_command);
    if (!a.verify_expect.empty()) comment(out, "  expect: ", a.verify_expect);
  }
  for (const auto& n : plan.notes) comment(out, "", n);
  if (doc) {
    std::string prefix = root.string() + "/";
    for (const auto& a : plan.actions) {
      FixAction shown = a;
      for (auto& n : shown.notes)
        for (std::size_t at; (at = n.find(prefix)) != std::string::npos;)
          n.erase(at, prefix.size());
      for (auto& f : shown.edit.files) f.path = rel(root, f.path);
      (*doc)["actions"].push_back(to_json(shown));
    }
    for (const auto& n : plan.notes) (*doc)["notes"].push_back(n);
  }
}

// The combined plan's files as a unified diff against what is on disk now (and in the JSON
// document); returns the file edits that change something.
WorkspaceEdit diff_files(const Plan& p, const fs::path& root, std::string& diff,
                         nlohmann::json* doc) {
  const FixRequest& req = p.request;
  const FixPlan& plan = p.combined;
  WorkspaceEdit to_write;
  std::error_code ec;
  for (const auto& fe : plan.result.files) {
    std::string name = rel(root, fe.path);
    if (fe.create) {
      std::string cur;
      std::string e;
      bool exists = fs::exists(fe.path, ec) && read_text_file(fe.path, cur, e);
      if (exists && cur == fe.content) continue;
      std::string d = unified_diff(cur, fe.content, exists ? "a/" + name : "/dev/null", "b/" + name);
      diff += d;
      to_write.files.push_back(fe);
      if (doc) {
        nlohmann::json j = to_json(fe);
        j["path"] = name;
        j["diff"] = d;
        (*doc)["files"].push_back(std::move(j));
      }
      continue;
    }
    const LaunchFile* lf = nullptr;
    for (const auto& f : req.files)
      if (f.path == fe.path) lf = &f;
    if (!lf) continue;
    std::string d =
        unified_diff(lf->text, apply_text_edits(lf->text, fe.edits), "a/" + name, "b/" + name);
    diff += d;
    to_write.files.push_back(fe);
    if (doc) {
      nlohmann::json j = to_json(fe);
      j["path"] = name;
      // Lines (1-based) beside the byte offsets, counted in the file's current text.
      for (auto& je : j["edits"]) {
        auto line_at = [&](std::size_t off) {
          std::string_view t(lf->text);
          off = std::min(off, t.size());
          return 1 + static_cast<std::size_t>(std::count(t.begin(), t.begin() + off, '\n'));
        };
        je["startLine"] = line_at(je["begin"].get<std::size_t>());
        je["endLine"] = line_at(je["end"].get<std::size_t>());
      }
      j["diff"] = d;
      (*doc)["files"].push_back(std::move(j));
    }
  }
  return to_write;
}

}  // namespace

int run_fix(const analysis::Catalog& catalog, const analysis::Analysis& analysis,
            const std::vector<std::pair<std::string, std::string_view>>& logs,
            const FixCliOptions& o, std::string& out, std::string& err, nlohmann::json* doc) {
  std::error_code ec;
  std::string ws = o.workspace.empty() ? fs::current_path(ec).string() : o.workspace;
  if (!fs::is_directory(ws, ec)) {
    err = ws + ": the workspace is not a directory";
    return 2;
  }
  fs::path root = fs::weakly_canonical(fs::absolute(ws), ec);

  PlanRequest in;
  in.workspace = root.string();
  in.topology_file = o.topology;
  in.shm_size = o.shm_size;
  in.logs = logs;
  for (const auto& f : o.files) {
    if (!inside_workspace(root.string(), f)) {
      err = f + ": outside the workspace " + root.string() + " (see --workspace)";
      return 2;
    }
    Document d;
    d.path = fs::weakly_canonical(fs::absolute(f), ec).string();
    if (!read_text_file(d.path, d.text, err)) {
      err = f + ": " + err.substr(err.find(": ") == std::string::npos ? 0 : err.find(": ") + 2);
      return 2;
    }
    in.documents.push_back(std::move(d));
  }
  // The one planner (fix/planner.hpp), as the language server's code actions call it; the
  // CLI runs once, so its topology is not cached.
  Planner planner(catalog, std::make_shared<TopologyProvider>(o.live, std::chrono::seconds(0)));
  Plan p = planner.plan(analysis, in);
  if (doc) {
    *doc = {{"version", kFixJsonVersion},
            {"kind", "firstfault.fix"},
            {"rules", nlohmann::json::array()},
            {"actions", nlohmann::json::array()},
            {"notes", nlohmann::json::array()},
            {"files", nlohmann::json::array()},
            {"diff", ""},
            {"applied", false}};
    for (const auto* r : p.rules) (*doc)["rules"].push_back(r->id);
  }
  if (p.rules.empty()) {
    out += "# firstfault --fix: nothing to fix (no failure found)\n";
    if (doc) (*doc)["notes"].push_back("nothing to fix (no failure found)");
    return 0;
  }
  if (!p.topology.error.empty()) {
    err = p.topology.error;
    return 2;
  }
  for (const auto& t : p.topology.tried) {
    comment(out, "topology not used: ", t);
    if (doc) (*doc)["notes"].push_back("topology not used: " + t);
  }
  explain(p, root, out, doc);

  // The diff, against what is on disk now.
  std::string diff;
  WorkspaceEdit to_write = diff_files(p, root, diff, doc);
  if (diff.empty())
    comment(out, "", "no changes to the files (already applied, or see the notes above)");
  out += diff;
  if (doc) (*doc)["diff"] = diff;
  if (o.apply && !to_write.empty()) {
    if (!apply_workspace_edit(root.string(), to_write, err)) return 2;
    comment(out, "", "applied to " + std::to_string(to_write.files.size()) + " file(s)");
    if (doc) (*doc)["applied"] = true;
  }
  return 0;
}

}  // namespace ff::fix
