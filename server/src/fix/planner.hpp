// The one fix planner behind every front end: `firstfault analyze --fix` and the language
// server's code actions both call Planner::plan. It takes the analysis, the documents a fix
// may edit (with their versions, when an editor holds them) and the shared topology
// provider, and returns the fixes as minimal edits (byte ranges of each document's text,
// files to create): the combined plan `analyze --fix` writes, and each rule's fixes alone,
// computed on the documents as they are (one code action each). The topology is read here,
// through the provider (files, the live machine): call it on a worker, not a protocol thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/diagnosis.hpp"
#include "fix/engine.hpp"
#include "fix/topology_provider.hpp"

namespace ff::fix {

// A file a fix may edit: a launch script, an entry point, a compose file or a pod spec.
struct Document {
  std::string path;                     // absolute
  std::optional<std::int64_t> version;  // the editor's version of `text`; none: read from disk
  std::string text;
};

struct PlanRequest {
  std::vector<std::pair<std::string, std::string_view>> logs;  // name, text: NCCL INFO lines
  std::vector<Document> documents;                             // only these are ever edited
  std::string workspace;      // absolute: topology files are looked for here, and
                              // created files go here when no launch script says where
  std::string topology_file;  // the user's choice (--topology); empty: none
  std::string shm_size = "16g";
  // The env fix writes firstfault-fix-<rule>.sh in the workspace when no launch script or
  // entry point is among the documents (the language server: an editor has nowhere else to
  // put it); false: it says what to export (the CLI).
  bool env_script_without_launch_file = false;
  std::string log_name;  // named in that script
};

struct Plan {
  std::vector<const analysis::Rule*> rules;  // what the analysis asks to fix (rules_to_fix)
  FixPlan combined;  // every fix chained, each file once: what `analyze --fix` writes
  // Each rule's fixes alone (the plan's rules and the ones asked for in `also`), on the
  // documents as they are.
  std::map<std::string, std::vector<FixAction>> by_rule;
  TopologyChoice topology;  // when a rule needed one (error: --topology did not load)
  FixRequest request;       // what the engine was given (the documents' texts, the wrapper)
};

class Planner {
 public:
  Planner(const analysis::Catalog& catalog, std::shared_ptr<TopologyProvider> topology)
      : catalog_(catalog), topology_(std::move(topology)) {}

  // `also`: further rules whose fixes the caller shows (a diagnostic line's rule that the
  // analysis does not ask to fix as a whole). Returns with `topology.error` set, and nothing
  // planned, when the named topology file does not load.
  Plan plan(const analysis::Analysis& analysis, const PlanRequest& request,
            const std::vector<std::string>& also = {}) const;

 private:
  const analysis::Catalog& catalog_;
  std::shared_ptr<TopologyProvider> topology_;
};

}  // namespace ff::fix
