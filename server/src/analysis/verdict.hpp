// The verdict beside the cause: is the fault in the workload or in the infrastructure, can
// the job succeed if it is restarted unchanged, and what should happen to the node. Each
// category has a default (verdict.cpp); a rule may refine it (`verdict` in the rule file),
// and Xid rules say it through the resolution buckets of NVIDIA's Xid catalog.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/event.hpp"
#include "analysis/rule.hpp"

namespace ff::analysis {

// Where the fault lies. `undetermined`: the log cannot tell (only victims, no failure).
enum class FaultDomain { kWorkload, kInfrastructure, kUndetermined };

// What restarting the job unchanged (same code, same configuration, same nodes) gives:
//   may-succeed:       the fault is transient or outside the job; a restart can succeed
//   will-fail:         the same failure comes back until the job or its setup changes
//   after-node-action: it fails again on this node until the node action is done (or the
//                      scheduler places the job elsewhere)
enum class RestartOutlook { kMaySucceed, kWillFail, kAfterNodeAction };

// What to do with the node the initiating line came from, in increasing cost.
enum class NodeAction { kNone, kResetGpu, kDrainAndService };

struct Verdict {
  FaultDomain fault = FaultDomain::kUndetermined;
  RestartOutlook restart = RestartOutlook::kMaySucceed;
  NodeAction node = NodeAction::kNone;
  std::string host;        // the node the action is for (empty: not known from the log)
  std::string gpu;         // the GPU (PCI address or device index), when the line names it
  std::string xid;         // the Xid code the verdict was read from, if any
  std::string resolution;  // that Xid's resolution bucket in NVIDIA's catalog
  std::string reason;      // one sentence: why
};

const char* fault_domain_name(FaultDomain f);
const char* restart_outlook_name(RestartOutlook r);
const char* node_action_name(NodeAction n);
std::optional<FaultDomain> parse_fault_domain(std::string_view s);
std::optional<RestartOutlook> parse_restart_outlook(std::string_view s);
std::optional<NodeAction> parse_node_action(std::string_view s);
// Whether `bucket` is an immediate resolution bucket of NVIDIA's Xid catalog that the
// verdict knows (RESTART_APP, RESET_GPU, RESTART_BM, ..., XID_154).
bool is_xid_resolution(std::string_view bucket);

// The verdict for a diagnosis of `category` whose initiating line is `initiating`, matched
// by `rule`. Pure; every category (including "none") has one.
Verdict verdict_for(std::string_view category, const Rule& rule, const Event& initiating);

// The verdict in words, one line: "infrastructure fault; a restart unchanged fails on this
// node until it is serviced; node host-3 (GPU 0000:b1:00): drain and service".
std::string verdict_summary(const Verdict& v);

// The verdict when the log shows no failure (category "none").
Verdict no_failure_verdict();

}  // namespace ff::analysis
