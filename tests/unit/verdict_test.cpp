// The verdict beside the cause (analysis/verdict.hpp): for every category of the taxonomy,
// a log whose diagnosis is that category carries the verdict the category stands for; Xid
// lines are judged by the resolution bucket of NVIDIA's Xid catalog.
#include "analysis/verdict.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <span>
#include <string>

#include "analysis/analyze.hpp"
#include "analysis/taxonomy.hpp"
#include "builtin_catalog.hpp"

using namespace ff;
using analysis::FaultDomain;
using analysis::NodeAction;
using analysis::RestartOutlook;

namespace {

// Each example is the log of a job that failed (some lines alone, an INFO line among them,
// are a diagnosis only under a known failure: docs/OUTCOME.md).
analysis::Analysis analyze_text(std::string_view text) {
  analysis::LogInput in{"job.log", text};
  return analysis::analyze(test::builtin_catalog(), std::span(&in, 1),
                           {analysis::JobEnd::kFailed, std::nullopt});
}

struct Case {
  const char* category;
  const char* log;
  FaultDomain fault;
  RestartOutlook restart;
  NodeAction node;
};

// One log per category, each a line the shipped rules know, and what a site reliability
// engineer would do with it.
const Case kCases[] = {
    {"gdr",
     "gpu-c11:5120:5120 [4] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 4 'mlx5_4' (no "
     "module)\n",
     FaultDomain::kInfrastructure, RestartOutlook::kWillFail, NodeAction::kDrainAndService},
    {"ib",
     "node03: gpu-worker-12:2231:2870 [5] transport/net_ib.cc:816 NCCL WARN NET/IB : Got "
     "completion with error 12, opcode 0, len 21847, vendor err 129\n",
     FaultDomain::kInfrastructure, RestartOutlook::kMaySucceed, NodeAction::kNone},
    {"socket",
     "Exception: Unable to find a set of common task-to-task communication interfaces: [(0, "
     "{'eth0': [('10.0.0.4', 32311)]}), (1, {'ens5': [('10.1.0.9', 41522)]})]\n",
     FaultDomain::kInfrastructure, RestartOutlook::kWillFail, NodeAction::kNone},
    {"p2p",
     "[532907.114582] nvidia 0000:41:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0021 "
     "address=0x00000000fc4d8000 flags=0x0030]\n",
     FaultDomain::kInfrastructure, RestartOutlook::kWillFail, NodeAction::kDrainAndService},
    {"nvlink-fabric",
     "[ 8812.110218] nvidia-nvswitch2: SXid (PCI:0000:86:00.0): 24007, Fatal, Link 44 "
     "sourcetrack TCEN0 crumbstore ECC DBE error (First)\n",
     FaultDomain::kInfrastructure, RestartOutlook::kAfterNodeAction, NodeAction::kDrainAndService},
    {"shm",
     "include/shm.h:48 NCCL WARN Error while creating shared memory segment "
     "nccl-shm-recv-7c41d09e3a5f1b62-1-2-0 (size 5245440)\n",
     FaultDomain::kInfrastructure, RestartOutlook::kWillFail, NodeAction::kNone},
    {"cuda", "RuntimeError: CUDA error: device-side assert triggered\n", FaultDomain::kWorkload,
     RestartOutlook::kWillFail, NodeAction::kNone},
    {"gpu-oom",
     "[rank6]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.17 GiB. GPU  "
     "has a total capacity of 39.39 GiB of which 612.38 MiB is free.\n",
     FaultDomain::kWorkload, RestartOutlook::kWillFail, NodeAction::kNone},
    {"host-oom",
     "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n",
     FaultDomain::kWorkload, RestartOutlook::kWillFail, NodeAction::kNone},
    {"process-crash",
     "[1203441.120843] python[48211]: segfault at 0 ip 00007f3a2c1b4e10 sp 00007ffd5a3c1f80 error "
     "4 in libnccl.so.2.21.5[7f3a2c000000+1e3c000] likely on CPU 17 (core 1, socket 0)\n",
     FaultDomain::kWorkload, RestartOutlook::kWillFail, NodeAction::kNone},
    {"hardware", "[  412.880311] NVRM: GPU 0000:b1:00.0: GPU has fallen off the bus.\n",
     FaultDomain::kInfrastructure, RestartOutlook::kAfterNodeAction, NodeAction::kDrainAndService},
    {"collective-mismatch",
     "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running "
     "collective: CollectiveFingerPrint(SequenceNumber=20, OpType=ALLREDUCE, TensorShape=[10]), "
     "but Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=20, OpType=REDUCE, "
     "TensorShape=[10]).\n",
     FaultDomain::kWorkload, RestartOutlook::kWillFail, NodeAction::kNone},
    {"straggler", "RuntimeError: Rank 1 failed to pass monitoredBarrier in 30000 ms\n",
     FaultDomain::kWorkload, RestartOutlook::kWillFail, NodeAction::kNone},
    {"rendezvous",
     "torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 7/8 "
     "clients joined.\n",
     FaultDomain::kInfrastructure, RestartOutlook::kMaySucceed, NodeAction::kNone},
    {"version", "Failed to initialize NVML: Driver/library version mismatch\n",
     FaultDomain::kInfrastructure, RestartOutlook::kWillFail, NodeAction::kNone},
    {"net-plugin",
     "register_mr_buffers:544 NCCL WARN NET/OFI Unable to register memory (type = 2) for device "
     "3. RC: -22, Error: Invalid argument\n",
     FaultDomain::kInfrastructure, RestartOutlook::kWillFail, NodeAction::kNone},
    {"config",
     "ValueError: You set `devices=8` in Lightning, but the number of tasks per node configured "
     "in SLURM `--ntasks-per-node=1` does not match. HINT: Set `devices=1`.\n",
     FaultDomain::kWorkload, RestartOutlook::kWillFail, NodeAction::kNone},
    {"remote-peer",
     "node:1:2 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer "
     "gpu-7.cluster<51234>\n",
     FaultDomain::kUndetermined, RestartOutlook::kMaySucceed, NodeAction::kNone},
};

}  // namespace

TEST_CASE("verdict: every category of the taxonomy has its own verdict", "[verdict]") {
  std::set<std::string> covered;
  for (const auto& c : kCases) covered.insert(c.category);
  covered.insert("none");  // below
  for (auto cat : analysis::kCategories) {
    INFO(cat);
    CHECK(covered.count(std::string(cat)));
    analysis::Rule r;
    r.category = std::string(cat);
    analysis::Event e;
    auto v = analysis::verdict_for(cat, r, e);
    CHECK_FALSE(v.reason.empty());
    if (cat != "none") CHECK(v.reason != analysis::no_failure_verdict().reason);
  }
}

TEST_CASE("verdict: a diagnosis of each category carries that category's verdict", "[verdict]") {
  // One section per category, so a failure names the category.
  for (const auto& c : kCases) {
    DYNAMIC_SECTION(c.category) {
      INFO(c.category << ": " << c.log);
      auto a = analyze_text(c.log);
      REQUIRE_FALSE(a.diagnoses.empty());
      const auto& d = a.diagnoses.front();
      REQUIRE(d.category == c.category);
      CHECK(d.verdict.fault == c.fault);
      CHECK(d.verdict.restart == c.restart);
      CHECK(d.verdict.node == c.node);
      CHECK_FALSE(d.verdict.reason.empty());
      // The job's verdict is the top diagnosis's.
      CHECK(a.verdict.node == d.verdict.node);
      CHECK(a.verdict.reason == d.verdict.reason);
    }
  }
}

TEST_CASE("verdict: a log without failure says nothing is to be done", "[verdict]") {
  auto a = analyze_text("NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nstep 10 loss 2.3\n");
  REQUIRE(a.diagnoses.empty());
  CHECK(a.verdict.fault == FaultDomain::kUndetermined);
  CHECK(a.verdict.restart == RestartOutlook::kMaySucceed);
  CHECK(a.verdict.node == NodeAction::kNone);
}

TEST_CASE("verdict: Xid lines follow the catalog's resolution buckets", "[verdict]") {
  struct XidCase {
    const char* line;
    const char* resolution;
    FaultDomain fault;
    RestartOutlook restart;
    NodeAction node;
  };
  const XidCase cases[] = {
      {"NVRM: Xid (PCI:0000:2b:00): 79, pid=9123, name=python, GPU has fallen off the bus.",
       "RESTART_BM", FaultDomain::kInfrastructure, RestartOutlook::kAfterNodeAction,
       NodeAction::kDrainAndService},
      {"NVRM: Xid (PCI:0000:41:00): 48, pid=2345, name=python, An uncorrectable double bit error "
       "(DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
       "WORKFLOW_XID_48", FaultDomain::kInfrastructure, RestartOutlook::kAfterNodeAction,
       NodeAction::kResetGpu},
      // 94 is contained: the killed application may restart; 95 is not: reset the GPU.
      {"NVRM: Xid (PCI:0000:9d:00): 94, pid=1234, name=python, Contained: SM (0x1). RST: No, "
       "D-RST: No",
       "RESTART_APP", FaultDomain::kInfrastructure, RestartOutlook::kMaySucceed, NodeAction::kNone},
      {"NVRM: Xid (PCI:0000:9d:00): 95, pid=1234, name=python, Uncontained: FBHUB. RST: Yes, "
       "D-RST: No",
       "RESET_GPU", FaultDomain::kInfrastructure, RestartOutlook::kAfterNodeAction,
       NodeAction::kResetGpu},
      // An application fault seen by the driver stays the workload's.
      {"NVRM: Xid (PCI:0000:3b:00): 13, pid=4711, name=python, Graphics SM Warp Exception on "
       "(GPC 4, TPC 0, SM 1): Out Of Range Address",
       "RESTART_APP", FaultDomain::kWorkload, RestartOutlook::kMaySucceed, NodeAction::kNone},
      // Xid 154 says the action itself.
      {"NVRM: Xid (PCI:0000:b1:00): 154, pid='<unknown>', name=<unknown>, GPU recovery action "
       "changed from 0x0 (None) to 0x2 (Node Reboot Required)",
       "XID_154", FaultDomain::kInfrastructure, RestartOutlook::kAfterNodeAction,
       NodeAction::kDrainAndService},
      {"NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU "
       "Reset Required)",
       "XID_154", FaultDomain::kInfrastructure, RestartOutlook::kAfterNodeAction,
       NodeAction::kResetGpu},
  };
  for (const auto& c : cases) {
    INFO(c.line);
    auto a = analyze_text(std::string("gpu-node7 kernel: ") + c.line + "\n");
    REQUIRE_FALSE(a.diagnoses.empty());
    const auto& v = a.diagnoses.front().verdict;
    CHECK(v.resolution == c.resolution);
    CHECK(v.fault == c.fault);
    CHECK(v.restart == c.restart);
    CHECK(v.node == c.node);
    CHECK_FALSE(v.gpu.empty());
    CHECK(v.reason.find(c.resolution) != std::string::npos);
  }
}

TEST_CASE("verdict: the node to act on is the initiating line's host", "[verdict]") {
  auto a = analyze_text(
      "Jun 04 09:12:44 gpu-node12 kernel: NVRM: Xid (PCI:0000:b1:00): 95, pid=1, name=python, "
      "Uncontained: FBHUB. RST: Yes, D-RST: No\n");
  REQUIRE_FALSE(a.diagnoses.empty());
  const auto& v = a.diagnoses.front().verdict;
  CHECK(v.host == "gpu-node12");
  CHECK(v.gpu == "0000:b1:00");
  auto s = analysis::verdict_summary(v);
  CHECK(s.find("gpu-node12") != std::string::npos);
  CHECK(s.find("reset the GPU") != std::string::npos);
}

TEST_CASE("verdict: names round-trip and unknown names are refused", "[verdict]") {
  for (auto f : {FaultDomain::kWorkload, FaultDomain::kInfrastructure, FaultDomain::kUndetermined})
    CHECK(analysis::parse_fault_domain(analysis::fault_domain_name(f)) == f);
  for (auto r :
       {RestartOutlook::kMaySucceed, RestartOutlook::kWillFail, RestartOutlook::kAfterNodeAction})
    CHECK(analysis::parse_restart_outlook(analysis::restart_outlook_name(r)) == r);
  for (auto n : {NodeAction::kNone, NodeAction::kResetGpu, NodeAction::kDrainAndService})
    CHECK(analysis::parse_node_action(analysis::node_action_name(n)) == n);
  CHECK_FALSE(analysis::parse_node_action("reboot"));
  CHECK(analysis::is_xid_resolution("RESET_GPU"));
  CHECK_FALSE(analysis::is_xid_resolution("reset_gpu"));
}
