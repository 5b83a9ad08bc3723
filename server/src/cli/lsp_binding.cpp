#include "cli/lsp_binding.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>

#include "fix/edit.hpp"
#include "fix/engine.hpp"
#include "fix/generators.hpp"
#include "fix/topology_source.hpp"
#include "fix/workspace_io.hpp"

namespace ff::cli {

namespace {

class FixEngineBinding : public lsp::BindingEditProvider {
 public:
  bool applies_to(const analysis::Rule& rule) const override { return fix::wants_binding(rule); }

  std::optional<lsp::FileEdit> binding_edit(const analysis::Rule& rule, const analysis::Analysis&,
                                            const std::string& log_uri) override {
    if (!fix::wants_binding(rule)) return std::nullopt;
    std::string path = lsp::uri_to_path(log_uri);
    if (path.empty()) return std::nullopt;
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    std::optional<fix::BindingTable> table = table_for(dir.string());
    if (!table) return std::nullopt;  // no topology with GPUs and NICs at hand
    return lsp::FileEdit{lsp::path_to_uri((dir / std::string(fix::kWrapperName)).string()),
                         fix::wrapper_script(*table)};
  }

  std::vector<lsp::FileEdit> launcher_edits(
      const analysis::Rule& rule, const std::string& log_uri,
      const std::vector<lsp::DocumentSnapshot>& open_documents) override {
    std::vector<lsp::FileEdit> out;
    if (!fix::wants_binding(rule)) return out;
    std::string log_path = lsp::uri_to_path(log_uri);
    if (log_path.empty()) return out;
    std::string dir = std::filesystem::path(log_path).parent_path().string();
    std::optional<fix::BindingTable> table = table_for(dir);
    if (!table) return out;
    std::string wrapper = (std::filesystem::path(dir) / std::string(fix::kWrapperName)).string();
    for (const auto& doc : open_documents) {
      const std::string& uri = doc.uri;
      std::string_view text = doc.text.view();
      std::string path = lsp::uri_to_path(uri);
      // Only shell launchers the user has open, inside the log's folder tree.
      if (path.empty() || !fix::inside_workspace(dir, path)) continue;
      if (fix::detect_file_kind(path, text) != fix::FileKind::Shell) continue;
      auto r = fix::shell_binding_edits(text, *table, wrapper);
      if (!r.found_target || r.edits.empty()) continue;
      std::string edited = fix::apply_text_edits(text, r.edits);
      if (edited != text) out.push_back({uri, std::move(edited)});
    }
    return out;
  }

 private:
  // Code actions are asked for often (every cursor move in some editors) and discovery
  // reads files or the live machine, so a folder's answer is kept for a while.
  std::optional<fix::BindingTable> table_for(const std::string& dir) {
    using clock = std::chrono::steady_clock;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(dir);
    if (it != cache_.end() && clock::now() - it->second.when < std::chrono::seconds(30))
      return it->second.table;
    fix::TopologyInputs in;
    in.workspace = dir;
    in.live = true;
    fix::TopologyChoice choice = fix::choose_topology(in);
    cache_[dir] = {clock::now(), choice.table};
    return choice.table;
  }

  struct Entry {
    std::chrono::steady_clock::time_point when;
    std::optional<fix::BindingTable> table;
  };
  std::mutex mu_;
  std::map<std::string, Entry> cache_;
};

}  // namespace

std::shared_ptr<lsp::BindingEditProvider> make_binding_provider() {
  return std::make_shared<FixEngineBinding>();
}

}  // namespace ff::cli
