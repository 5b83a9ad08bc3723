// `firstfault analyze --fix`: choose the topology, read the launch files, plan the fixes,
// print them as a unified diff and, with --apply, write them. Called by analyze_command.cpp.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/catalog.hpp"
#include "analysis/diagnosis.hpp"

namespace ff::fix {

struct FixCliOptions {
  bool apply = false;
  std::string topology;            // --topology FILE
  std::string workspace;           // --workspace DIR (default: the current directory)
  std::vector<std::string> files;  // --fix-file FILE...
  bool live = true;                // fall back to this machine's topology
  std::string shm_size = "16g";
};

// Returns the exit code (0, or 2 with a one-line message naming the file in `err`). `out`
// gets the explanation as '#' comment lines followed by the diff (patch -p1 / git apply
// read it from the workspace root). With `doc`, the same as a JSON document
// (`--format json`, docs/FIXES.md): {"version": 1, "kind": "firstfault.fix", "rules",
// "actions" (fix_json.hpp's), "notes", "files": [{path, create, executable, content |
// edits: [{begin, end, startLine, endLine, text}], diff}], "diff", "applied"}.
inline constexpr int kFixJsonVersion = 1;
int run_fix(const analysis::Catalog& catalog, const analysis::Analysis& analysis,
            const std::vector<std::pair<std::string, std::string_view>>& logs,
            const FixCliOptions& options, std::string& out, std::string& err,
            nlohmann::json* doc = nullptr);

}  // namespace ff::fix
