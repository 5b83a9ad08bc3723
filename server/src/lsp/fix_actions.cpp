#include "lsp/fix_actions.hpp"

#include <algorithm>
#include <filesystem>

#include "fix/workspace_io.hpp"
#include "lsp/uri.hpp"

namespace ff::lsp {

namespace fs = std::filesystem;

namespace {

std::string real_path(const std::string& path) {
  std::error_code ec;
  auto abs = fs::absolute(path, ec);  // an empty path is an error, not the current directory
  if (ec) return path;
  auto p = fs::weakly_canonical(abs, ec);
  return ec ? path : p.string();
}

// The file edits as the action's document changes; false when an edited file is not one of
// the open documents (then the action is not offered: it could not carry a version).
bool document_edits(const fix::WorkspaceEdit& edit, const std::vector<DocumentSnapshot>& sources,
                    Encoding encoding, std::vector<DocumentEdit>& out) {
  for (const auto& f : edit.files) {
    if (f.create) {
      out.push_back({path_to_uri(f.path), std::nullopt, true, {{Range{}, f.content}}});
      continue;
    }
    auto doc = std::find_if(sources.begin(), sources.end(), [&](const DocumentSnapshot& d) {
      return real_path(uri_to_path(d.uri)) == f.path;
    });
    if (doc == sources.end()) return false;
    auto edits = text_edits(doc->text.view(), f.edits, encoding);
    if (!edits.empty()) out.push_back({doc->uri, doc->version, false, std::move(edits)});
  }
  return true;
}

// "launch.sh, firstfault-bind.sh": where the action writes, for its title.
std::string file_names(const std::vector<DocumentEdit>& edits) {
  std::string out;
  for (const auto& e : edits)
    out += (out.empty() ? "" : ", ") + fs::path(uri_to_path(e.uri)).filename().string();
  return out;
}

}  // namespace

std::vector<TextEditItem> text_edits(std::string_view text, const std::vector<fix::TextEdit>& edits,
                                     Encoding encoding) {
  LineIndex index(text);
  std::vector<TextEditItem> out;
  for (const auto& e : edits)
    out.push_back(
        {{index.position(text, e.begin, encoding), index.position(text, e.end, encoding)}, e.text});
  return out;
}

fix::PlanRequest plan_request(const FixQuery& query, const AnalysisRun& run,
                              const std::vector<DocumentSnapshot>& sources) {
  fix::PlanRequest in;
  std::string log_path = uri_to_path(query.uri);
  in.workspace = real_path(fs::path(log_path).parent_path().string());
  in.log_name = fs::path(log_path).filename().string();
  in.env_script_without_launch_file = true;
  for (const auto& d : run.docs) in.logs.emplace_back(uri_to_path(d.uri), d.text.view());
  for (const auto& d : sources) {
    std::string path = uri_to_path(d.uri);
    // Only files the user has open, inside the log's folder tree.
    if (path.empty() || in.workspace.empty() || !fix::inside_workspace(in.workspace, path))
      continue;
    in.documents.push_back({real_path(path), d.version, std::string(d.text.view())});
  }
  return in;
}

std::vector<CodeActionItem> fix_actions(const FixQuery& query, const fix::Plan& plan,
                                        const std::vector<DocumentSnapshot>& sources,
                                        Encoding encoding) {
  std::vector<CodeActionItem> out;
  for (const auto& item : query.items) {
    auto fixes = plan.by_rule.find(item.rule_id);
    if (fixes == plan.by_rule.end()) continue;
    for (const auto& f : fixes->second) {
      CodeActionItem a;
      a.preferred = item.role == Role::kInitiating && f.kind == "env";
      a.diagnostics.push_back(item);
      if (!document_edits(f.edit, sources, encoding, a.edits) || a.edits.empty()) continue;
      a.title = "firstfault: " + f.title + " (" + file_names(a.edits) + ")";
      out.push_back(std::move(a));
    }
  }
  if (query.fix_all_on && !plan.combined.result.empty()) {
    CodeActionItem all;
    all.title = std::string(kFixAllTitle) + " (" + std::to_string(plan.combined.actions.size()) +
                " fixes, as analyze --fix)";
    all.diagnostics.push_back(*query.fix_all_on);
    if (document_edits(plan.combined.result, sources, encoding, all.edits) && !all.edits.empty())
      out.push_back(std::move(all));
  }
  return out;
}

}  // namespace ff::lsp
