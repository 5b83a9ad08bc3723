// The fix engine: which quick fixes a diagnosis calls for, and the edits that apply them to
// the launch files the caller passes in. Pure: file texts in, edits out. What each rule
// needs is read from the rule itself (fix.env, category, verify); the few judgements that
// are not in the rule files are the tables in engine.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/diagnosis.hpp"
#include "analysis/rule.hpp"
#include "fix/edit.hpp"
#include "fix/generators.hpp"

namespace ff::fix {

struct LaunchFile {
  std::string path;  // as it will appear in edits and diffs
  std::string text;
};

struct FixRequest {
  std::vector<LaunchFile> files;
  // The per-rank binding from the best topology available (see topology_source.hpp), or
  // none: then `binding_missing` says what to export from the node.
  std::optional<BindingTable> binding;
  std::string binding_missing;
  std::string wrapper_path;  // where firstfault-bind.sh is created (a path like the files')
  std::string wrapper_ref;   // how launch lines name it (an absolute path)
  std::string shm_size = "16g";
  // Where the env fix writes a script of its own (firstfault-fix-<rule>.sh, one name per
  // rule so that no fix replaces another's) when no shell or Python launch file is among
  // `files`; empty: never (the CLI says what to export instead). `env_script_for` names
  // the log it is for.
  std::string env_script_dir;
  std::string env_script_for;
};

// The env fix's own script for a rule, in `dir` (no launch file took the variables).
std::string env_script_path(std::string_view dir, std::string_view rule_id);

struct FixAction {
  std::string rule;   // rule id
  std::string kind;   // "nccl-ib-hca-binding", "env", "shm-size"
  std::string title;  // one line, for a code action's title
  WorkspaceEdit edit;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;  // costs of the fix (bandwidth, debugging only)
  std::string verify_command, verify_expect;
};

// Whether the rule is about which NIC a GPU talks through (GPU-NIC path): category gdr,
// the NCCL_IB_HCA rules, or a rule whose fix sets NCCL_IB_HCA.
bool wants_binding(const analysis::Rule& rule);
// Whether the rule's fix turns on evidence capture for the next failure (its fix.env sets
// TORCH_FR_BUFFER_SIZE: the Flight Recorder, dumps, NCCL's warnings and RAS).
bool wants_evidence_capture(const analysis::Rule& rule);
// Whether the rule's fix is more room in /dev/shm.
bool wants_shm(const analysis::Rule& rule);

// The environment part of a rule's fix (fix.env), resolved once for every front end (the
// --fix edits, the scripts firstfault-fix-<rule>.sh). A rule's value may be a
// placeholder ("<routable interface, e.g. ens5>"): it is filled from the topology where
// the engine can (NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME), and otherwise never written: the
// variable goes to `missing` with how to find its value.
struct MissingValue {
  std::string name;
  std::string how;  // "the rule says: <routable interface, e.g. ens5>; run ip -br addr ..."
};
struct EnvPlan {
  EnvList set;                       // variables whose values are known, in the rule's order
  std::vector<MissingValue> missing;  // placeholders nobody could fill
  std::vector<std::string> notes;    // where a filled value came from
  std::vector<std::string> warnings;  // costs of the variables set
};
// Whether a rule's value is a placeholder for the user to fill in (it holds "<...>").
bool is_placeholder(std::string_view value);
// `with_ib_hca` false leaves NCCL_IB_HCA out (the binding sets it per rank).
EnvPlan resolve_env(const analysis::Rule& rule, const std::optional<BindingTable>& binding,
                    bool with_ib_hca);
// A POSIX sh file to source before launching the job, for one rule's fix.env: an `export`
// line per known value (shell-quoted), and a comment per missing one saying how to find it.
// `for_what` names the log it was written for. Never contains a placeholder outside a
// comment; `sh -n` accepts it for every rule.
std::string env_script(const analysis::Rule& rule, std::string_view for_what,
                       const std::optional<BindingTable>& binding = std::nullopt);

// The rules an analysis asks to fix: the top diagnosis' initiating and evidence rules, and
// context rules that are latent misconfigurations (NCCL_IB_HCA prefix). Each rule once.
std::vector<const analysis::Rule*> rules_to_fix(const analysis::Catalog& catalog,
                                                const analysis::Analysis& analysis);

// The fixes for one rule, each computed on the request's file texts (independent of each
// other; the language server offers each as one code action).
std::vector<FixAction> fixes_for_rule(const analysis::Rule& rule, const FixRequest& req);

// All fixes for several rules, chained: each fix is computed on the texts the previous ones
// left, so they compose. `result` is the combined edit against the original texts (created
// files last), with each file once.
struct FixPlan {
  std::vector<FixAction> actions;
  WorkspaceEdit result;
  std::vector<std::string> notes;  // rules without a quick fix, files nothing applied to
};
FixPlan plan_fixes(const std::vector<const analysis::Rule*>& rules, const FixRequest& req);

}  // namespace ff::fix
