#include "analysis/verdict.hpp"

#include <array>

namespace ff::analysis {

namespace {

using F = FaultDomain;
using R = RestartOutlook;
using N = NodeAction;

struct CategoryVerdict {
  std::string_view category;
  F fault;
  R restart;
  N node;
  const char* reason;
};

// One row per category of taxonomy.hpp (the verdict test checks that none is missing).
// The reasons say what decides the row, so a reader can disagree with it knowingly.
constexpr std::array<CategoryVerdict, 19> kCategoryVerdicts = {{
    {"gdr", F::kInfrastructure, R::kWillFail, N::kDrainAndService,
     "GPUDirect RDMA depends on the node's kernel modules, PCIe/ACS/IOMMU settings and "
     "GPU-NIC placement; the same node fails the same way until it is serviced"},
    {"ib", F::kInfrastructure, R::kMaySucceed, N::kNone,
     "InfiniBand/RoCE errors come from links, switches and HCAs; a flap or a congested "
     "fabric can clear, so a restart may succeed, but a port that keeps failing needs service"},
    {"socket", F::kInfrastructure, R::kWillFail, N::kNone,
     "the chosen interface or address is unusable (interface name, firewall, routing); the "
     "job's network settings must change before a restart can succeed"},
    {"p2p", F::kInfrastructure, R::kWillFail, N::kDrainAndService,
     "intra-node GPU peer access depends on the node's IOMMU/ACS/BIOS settings, which a "
     "restart does not change"},
    {"nvlink-fabric", F::kInfrastructure, R::kAfterNodeAction, N::kDrainAndService,
     "the NVSwitch/NVLink fabric (Fabric Manager, IMEX, NVLS) of this node is not usable; "
     "the node must be serviced before jobs run on it again"},
    {"shm", F::kInfrastructure, R::kWillFail, N::kNone,
     "/dev/shm is too small or missing in the container; the launch settings (shm size, "
     "IPC namespace) must change"},
    {"cuda", F::kWorkload, R::kWillFail, N::kNone,
     "a CUDA error inside one rank (illegal access, launch failure, missing kernel image) is "
     "almost always the program's; it recurs at the same step"},
    {"gpu-oom", F::kWorkload, R::kWillFail, N::kNone,
     "GPU memory ran out; the same model, batch and parallelism exhaust it again"},
    {"host-oom", F::kWorkload, R::kWillFail, N::kNone,
     "host memory ran out (the OOM killer); the same job exhausts it again"},
    {"process-crash", F::kWorkload, R::kWillFail, N::kNone,
     "a rank crashed on its own (a signal or an uncaught exception); the same code path "
     "crashes again"},
    {"hardware", F::kInfrastructure, R::kAfterNodeAction, N::kDrainAndService,
     "a GPU or PCIe hardware fault; the node must be checked before it takes work again"},
    {"collective-mismatch", F::kWorkload, R::kWillFail, N::kNone,
     "ranks issued different collectives (a desync): a bug in the program's control flow "
     "that a restart repeats"},
    {"straggler", F::kWorkload, R::kWillFail, N::kNone,
     "one rank was late with no error of its own (uneven work, a rank busy elsewhere); the "
     "same work is late again. If the late rank is always on one node, check that node"},
    {"rendezvous", F::kInfrastructure, R::kMaySucceed, N::kNone,
     "the launcher's store or rendezvous failed (address, port, timing); these are often "
     "transient, so a restart may succeed"},
    {"version", F::kInfrastructure, R::kWillFail, N::kNone,
     "the software stack is inconsistent or too old (NCCL, driver, CUDA); the images or "
     "nodes must be brought to one working version"},
    {"net-plugin", F::kInfrastructure, R::kWillFail, N::kNone,
     "the NCCL network plugin is missing or broken in the image or on some nodes; a restart "
     "loads the same plugin"},
    {"config", F::kWorkload, R::kWillFail, N::kNone,
     "the job's configuration or NCCL variables are invalid or inconsistent; they must be "
     "corrected"},
    {"remote-peer", F::kUndetermined, R::kMaySucceed, N::kNone,
     "the log only shows victims; the failing rank's output is missing, so the cause and the "
     "node cannot be judged. Collect the other ranks' logs"},
    {"none", F::kUndetermined, R::kMaySucceed, N::kNone, "no failure signature in the log"},
}};

const CategoryVerdict* category_verdict(std::string_view category) {
  for (const auto& v : kCategoryVerdicts)
    if (v.category == category) return &v;
  return nullptr;
}

struct Bucket {
  std::string_view name;
  F fault;  // kUndetermined: keep the category's
  R restart;
  N node;
  const char* meaning;
};

// NVIDIA's Xid catalog, column "Resolution Bucket (Immediate Action)"
// (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html). The WORKFLOW_* buckets
// are decision trees whose first step is a GPU reset (48, NVLink) or following the other
// Xid (45); XID_154 is read from the recovery action the driver prints.
constexpr std::array<Bucket, 15> kBuckets = {{
    {"IGNORE", F::kUndetermined, R::kMaySucceed, N::kNone, "no action needed"},
    {"RESTART_APP", F::kUndetermined, R::kMaySucceed, N::kNone, "restart the application"},
    {"CHECK_APP/CUDA", F::kWorkload, R::kWillFail, N::kNone, "check the application and CUDA"},
    {"CHECK_UVM", F::kWorkload, R::kWillFail, N::kNone, "check the application's UVM use"},
    {"RESET_GPU", F::kInfrastructure, R::kAfterNodeAction, N::kResetGpu, "reset the GPU"},
    {"RESTART_BM", F::kInfrastructure, R::kAfterNodeAction, N::kDrainAndService,
     "reboot the node (bare metal)"},
    {"RESTART_VM", F::kInfrastructure, R::kAfterNodeAction, N::kDrainAndService,
     "reboot the virtual machine"},
    {"CHECK_MECHANICALS", F::kInfrastructure, R::kAfterNodeAction, N::kDrainAndService,
     "check power cabling and seating"},
    {"CONTACT_SUPPORT", F::kInfrastructure, R::kAfterNodeAction, N::kDrainAndService,
     "contact NVIDIA support"},
    {"UPDATE_SWFW", F::kInfrastructure, R::kAfterNodeAction, N::kDrainAndService,
     "update the driver or firmware"},
    {"WORKFLOW_XID_48", F::kInfrastructure, R::kAfterNodeAction, N::kResetGpu,
     "reset the GPU so the failing memory is retired, then check the remap counters"},
    {"WORKFLOW_NVLINK_ERR", F::kInfrastructure, R::kAfterNodeAction, N::kResetGpu,
     "reset the GPU, then service the link if the error returns"},
    {"WORKFLOW_NVLINK5_ERR", F::kInfrastructure, R::kAfterNodeAction, N::kResetGpu,
     "reset the GPU, then service the link if the error returns"},
    {"WORKFLOW_XID_45", F::kUndetermined, R::kMaySucceed, N::kNone,
     "follow the Xid that came before it; alone, restart the Fabric Manager"},
    {"XID_154", F::kInfrastructure, R::kAfterNodeAction, N::kResetGpu,
     "do the recovery action the driver names"},
}};

const Bucket* find_bucket(std::string_view name) {
  for (const auto& b : kBuckets)
    if (b.name == name) return &b;
  return nullptr;
}

bool contains(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

}  // namespace

const char* fault_domain_name(FaultDomain f) {
  switch (f) {
    case F::kWorkload:
      return "workload";
    case F::kInfrastructure:
      return "infrastructure";
    case F::kUndetermined:
      return "undetermined";
  }
  return "undetermined";
}

const char* restart_outlook_name(RestartOutlook r) {
  switch (r) {
    case R::kMaySucceed:
      return "may-succeed";
    case R::kWillFail:
      return "will-fail";
    case R::kAfterNodeAction:
      return "after-node-action";
  }
  return "may-succeed";
}

const char* node_action_name(NodeAction n) {
  switch (n) {
    case N::kNone:
      return "none";
    case N::kResetGpu:
      return "reset-gpu";
    case N::kDrainAndService:
      return "drain-and-service";
  }
  return "none";
}

std::optional<FaultDomain> parse_fault_domain(std::string_view s) {
  for (F f : {F::kWorkload, F::kInfrastructure, F::kUndetermined})
    if (s == fault_domain_name(f)) return f;
  return std::nullopt;
}

std::optional<RestartOutlook> parse_restart_outlook(std::string_view s) {
  for (R r : {R::kMaySucceed, R::kWillFail, R::kAfterNodeAction})
    if (s == restart_outlook_name(r)) return r;
  return std::nullopt;
}

std::optional<NodeAction> parse_node_action(std::string_view s) {
  for (N n : {N::kNone, N::kResetGpu, N::kDrainAndService})
    if (s == node_action_name(n)) return n;
  return std::nullopt;
}

bool is_xid_resolution(std::string_view bucket) {
  return find_bucket(bucket) != nullptr;
}

Verdict no_failure_verdict() {
  const CategoryVerdict* c = category_verdict("none");
  Verdict v;
  v.fault = c->fault;
  v.restart = c->restart;
  v.node = c->node;
  v.reason = c->reason;
  return v;
}

Verdict verdict_for(std::string_view category, const Rule& rule, const Event& initiating) {
  const CategoryVerdict* c = category_verdict(category);
  if (!c) c = category_verdict("none");
  Verdict v;
  v.fault = c->fault;
  v.restart = c->restart;
  v.node = c->node;
  v.reason = c->reason;
  v.host = initiating.source.host;
  if (auto pci = initiating.capture("pci"); !pci.empty())
    v.gpu = std::string(pci);
  else if (initiating.source.device)
    v.gpu = std::to_string(*initiating.source.device);

  // The rule's own verdict applies only when the diagnosis kept the rule's category: a
  // launcher line decoded into another category (an exit status) speaks for that category.
  const RuleVerdict& rv = rule.verdict;
  if (rule.category == category) {
    if (auto f = parse_fault_domain(rv.fault)) v.fault = *f;
    if (auto r = parse_restart_outlook(rv.restart)) v.restart = *r;
    if (auto n = parse_node_action(rv.node)) v.node = *n;
  }

  // The bucket of the Xid the line names; "*" for the rule's lines that name none (the
  // "GPU has fallen off the bus" wording of Xid 79) or a code the table does not list.
  std::string_view xid = initiating.capture("xid");
  if (rv.xid_resolution.empty()) return v;
  const Bucket* bucket = nullptr;
  bool exact = false;
  for (const auto& [code, name] : rv.xid_resolution) {
    if (!xid.empty() && code == xid) {
      bucket = find_bucket(name);
      exact = true;
    } else if (code == "*" && !exact) {
      bucket = find_bucket(name);
    }
  }
  if (!bucket) return v;
  v.xid = std::string(xid);
  v.resolution = std::string(bucket->name);
  if (bucket->fault != F::kUndetermined) v.fault = bucket->fault;
  v.restart = bucket->restart;
  v.node = bucket->node;
  if (bucket->name == "XID_154") {
    // The driver prints the action: "... to 0x1 (GPU Reset Required)", "(Node Reboot
    // Required)", "(Drain P2P)", "(Drain and Reset)"; "(None)" means recovered.
    std::string_view action = initiating.capture("recovery_action");
    if (contains(action, "Reboot") || contains(action, "Drain"))
      v.node = N::kDrainAndService;
    else if (contains(action, "None")) {
      v.node = N::kNone;
      v.restart = R::kMaySucceed;
    }
  }
  v.reason = "NVIDIA's Xid catalog resolves " +
             (xid.empty() ? std::string("this Xid") : "Xid " + v.xid) + " with " + v.resolution +
             " (" + bucket->meaning + ")";
  return v;
}

std::string verdict_summary(const Verdict& v) {
  std::string s;
  switch (v.fault) {
    case F::kWorkload:
      s = "workload fault (the job's code or configuration)";
      break;
    case F::kInfrastructure:
      s = "infrastructure fault (node, network or software stack)";
      break;
    case F::kUndetermined:
      s = "fault domain undetermined";
      break;
  }
  switch (v.restart) {
    case R::kMaySucceed:
      s += "; a restart unchanged may succeed";
      break;
    case R::kWillFail:
      s += "; a restart unchanged will fail the same way";
      break;
    case R::kAfterNodeAction:
      s += "; a restart unchanged fails again on this node until the node action is done";
      break;
  }
  std::string node = v.host.empty() ? "the node" : "node " + v.host;
  if (!v.gpu.empty()) node += " (GPU " + v.gpu + ")";
  switch (v.node) {
    case N::kNone:
      s += "; no node action";
      break;
    case N::kResetGpu:
      s += "; " + node + ": reset the GPU";
      break;
    case N::kDrainAndService:
      s += "; " + node + ": drain and service";
      break;
  }
  return s;
}

}  // namespace ff::analysis
