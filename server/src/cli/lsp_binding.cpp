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

  // The fix engine's binding action (fix::fixes_for_rule, the one behind `analyze --fix`),
  // computed on the open documents under the log's folder: shell launch lines get the
  // wrapper in front of the program, a Python entry point its NCCL_IB_HCA block, and the
  // wrapper is created only when a launch line uses it or no launch file is open.
  std::optional<lsp::BindingEdits> binding_edits(
      const analysis::Rule& rule, const analysis::Analysis&, const std::string& log_uri,
      const std::vector<lsp::DocumentSnapshot>& open_documents) override {
    if (!fix::wants_binding(rule)) return std::nullopt;
    std::string log_path = lsp::uri_to_path(log_uri);
    if (log_path.empty()) return std::nullopt;
    std::filesystem::path dir = std::filesystem::path(log_path).parent_path();
    std::optional<fix::BindingTable> table = table_for(dir.string());
    if (!table || !table->usable()) return std::nullopt;  // no topology with GPUs and NICs
    fix::FixRequest req;
    req.binding = table;
    req.wrapper_path = (dir / std::string(fix::kWrapperName)).string();
    req.wrapper_ref = req.wrapper_path;
    std::map<std::string, std::string> uri_of_path;
    for (const auto& doc : open_documents) {
      std::string path = lsp::uri_to_path(doc.uri);
      // Only files the user has open, inside the log's folder tree.
      if (path.empty() || !fix::inside_workspace(dir.string(), path)) continue;
      req.files.push_back({path, std::string(doc.text.view())});
      uri_of_path[path] = doc.uri;
    }
    for (const auto& action : fix::fixes_for_rule(rule, req)) {
      if (action.kind != "nccl-ib-hca-binding") continue;
      lsp::BindingEdits out;
      for (const auto& f : action.edit.files) {
        if (f.create) {
          out.create = lsp::FileEdit{lsp::path_to_uri(f.path), f.content};
          continue;
        }
        auto uri = uri_of_path.find(f.path);
        if (uri == uri_of_path.end()) continue;
        for (const auto& in : req.files)
          if (in.path == f.path) {
            std::string edited = fix::apply_text_edits(in.text, f.edits);
            if (edited != in.text) out.replace.push_back({uri->second, std::move(edited)});
          }
      }
      return out;
    }
    return std::nullopt;
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
