// Inputs of jobs that did not fail, or that hold no failure, with the shipped catalog: each
// once gave a root cause (issue 15). Observations are findings; only a failure in the same
// log can make them a cause.
#include <catch2/catch.hpp>

#include "analysis/analyze.hpp"
#include "builtin_catalog.hpp"

using namespace ff::analysis;

namespace {

Analysis run(std::string_view text) {
  LogInput in{"test.log", text};
  return analyze(ff::test::builtin_catalog(), std::span(&in, 1));
}

// aws-ofi-nccl failing to set up on a node without EFA, in a job whose only communicator
// spans one node: NCCL falls back, and on one host no network carries anything.
constexpr const char* kOfiInitFailedOneNode =
    "node1:35115:35469 [2] int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):208 NCCL WARN "
    "NET/OFI Failed to initialize sendrecv protocol\n"
    "node1:35115:35469 [2] int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):353 NCCL WARN "
    "NET/OFI aws-ofi-nccl initialization failed\n"
    "node1:35115:35469 [2] ncclResult_t nccl_net_ofi_init_v6(ncclDebugLogger_t):162 NCCL WARN "
    "NET/OFI Initializing plugin failed\n"
    "node1:35115:35469 [2] NCCL INFO Using network Socket\n"
    "node1:35115:35469 [2] NCCL INFO comm 0x55b4 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 "
    "MNNVL 0\n"
    "node1:35116:35470 [3] NCCL INFO comm 0x5609 rank 1 nRanks 2 nNodes 1 localRanks 2 localRank 1 "
    "MNNVL 0\n";

// Ranks that read different values of a setting both ends must share (NCCL_PROTO).
constexpr const char* kProtoDisagreement =
    "node01:1:1 [0] NCCL INFO NCCL_PROTO set by environment to Simple\n"
    "node02:2:2 [0] NCCL INFO NCCL_PROTO set by environment to LL128\n"
    "node03:3:3 [0] NCCL INFO NCCL_PROTO set by environment to Simple\n";

// Horovod's stall inspector at WARNING level: printed while it waits, the job may go on.
constexpr const char* kStallWarning =
    "[2021-02-02 21:19:07.345988: W /tmp/pip/horovod/common/stall_inspector.cc:105] One or more "
    "tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are "
    "waiting for remainder of ranks for more than 60 seconds. This may indicate that different "
    "ranks are trying to submit different tensors or that only subset of ranks is submitting "
    "tensors, which will cause deadlock. \n";

// RCCL's startup advice, printed on most AMD GPU nodes whatever their IOMMU does.
constexpr const char* kIommuAdvice =
    "mi300-node07:5521:5521 [0] /opt/rccl/hipify/src/init.cc:179 NCCL WARN Missing \"iommu=pt\" "
    "from kernel command line which can lead to system instablity or hang!\n"
    "mi300-node07:5521:5521 [0] NCCL INFO Bootstrap : Using eth0:10.1.2.3<0>\n";

std::string rule_of_finding(const Analysis& a, std::size_t k) {
  return ff::test::builtin_catalog().rules()[a.events[a.findings.at(k)].rule].id;
}

}  // namespace

TEST_CASE("observations alone give no diagnosis", "[false-alarm]") {
  struct Case {
    const char* what;
    const char* text;
    const char* finding;  // the rule that must report it as a finding, or nullptr
  };
  const Case cases[] = {
      {"cuMem enabled in a launch script", "#!/bin/bash\nexport NCCL_CUMEM_ENABLE=1\n",
       "nccl-cumem-hang-2-19"},
      {"an INIT log whose IB channels run without GDRDMA",
       "gpu-node-3:4100:4188 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/3\n"
       "gpu-node-3:4100:4188 [0] NCCL INFO Channel 01/0 : 8[0] -> 0[0] [receive] via NET/IB/3\n"
       "gpu-node-3:4100:4188 [0] NCCL INFO comm 0x55d1 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId "
       "18000 commId 0x9a1 - Init COMPLETE\n",
       "nccl-channel-no-gdrdma"},
      {"a stack frame inside NCCL's launch path",
       "Thread 4242 (idle): \"MainThread\"\n    ncclLaunchKernelBefore_NoUncapturedCuda "
       "(enqueue.cc:968)\n    ncclAllReduce (collectives.cc:49)\n",
       nullptr},
      {"an nvidia-smi topo -m matrix without NVLink",
       "        GPU0    GPU1    CPU Affinity    NUMA Affinity\nGPU0     X      PHB     0-31        "
       "    0\nGPU1    PHB      X      0-31            0\n",
       "nvsmi-topo-no-p2p-path"},
      {"NCCL_IB_HCA set by prefix", "node2:77:77 [0] NCCL INFO NCCL_IB_HCA set to mlx5_1\n",
       "nccl-ib-hca-prefix"},
      {"a torchrun run that succeeded",
       "[2024-05-01 10:00:00,100] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS "
       "environment variable for each process to be 1 in default, to avoid your system being "
       "overloaded, please further tune the variable for optimal performance in your application "
       "as needed.\n"
       "epoch 0 step 100 loss 1.234\n",
       nullptr},
      {"a clean exit reported by Slurm",
       "srun: error: gpu-node-3: task 0: Exited with exit code 0\n", nullptr},
      {"ranks that read different NCCL_PROTO, with no failure shown", kProtoDisagreement,
       "nccl-env-must-agree"},
      {"NCCL's proxy closing a connection that never said which rank it is",
       "host0:39:302 [0] NCCL INFO [Service thread] Connection closed by localRank -1\n"
       "host0:39:302 [0] proxy.cc:1111 NCCL WARN [Service thread] Unknown command 66326 from "
       "localRank -1\n",
       nullptr},
      {"a Horovod stall warning of a job that went on", kStallWarning, "horovod-stall-warning"},
      {"RCCL's advice to set iommu=pt", kIommuAdvice, nullptr},
      {"aws-ofi-nccl failing to set up in a job on one node", kOfiInitFailedOneNode, nullptr},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    auto a = run(c.text);
    CHECK(a.diagnoses.empty());
    if (c.finding) {
      REQUIRE_FALSE(a.findings.empty());
      CHECK(rule_of_finding(a, 0) == c.finding);
    }
  }
}

TEST_CASE("the same observations under a known failure are its hypotheses", "[false-alarm]") {
  auto failed = [](std::string_view text, JobEnd end) {
    LogInput in{"test.log", text};
    return analyze(ff::test::builtin_catalog(), std::span(&in, 1), {end, std::nullopt});
  };
  // Ranks that disagree on an NCCL setting both ends must share: the rare value leads.
  auto env = failed(std::string(kProtoDisagreement) +
                        "node01:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
                        "node02:2:2 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n",
                    JobEnd::kFailed);
  REQUIRE_FALSE(env.diagnoses.empty());
  CHECK(env.diagnoses.front().category == "config");
  CHECK(env.events[env.diagnoses.front().initiating].line == 1);
  // Horovod's stall warning in a job that hung: the wait it reports is the hang.
  auto stall = failed(kStallWarning, JobEnd::kHung);
  REQUIRE_FALSE(stall.diagnoses.empty());
  CHECK(stall.diagnoses.front().category == "straggler");
  // RCCL's iommu advice in a job that hung with nothing else to show: peer-to-peer DMA under
  // a translating IOMMU is the hypothesis.
  auto iommu = failed(kIommuAdvice, JobEnd::kHung);
  REQUIRE_FALSE(iommu.diagnoses.empty());
  CHECK(iommu.diagnoses.front().category == "p2p");
  // A peer-to-peer failure of its own on the same node leads instead.
  auto ipc = failed(std::string(kIommuAdvice) +
                        "mi300-node07:5521:5590 [0] /opt/rccl/hipify/src/transport/p2p.cc:220 "
                        "NCCL WARN hipIpcGetMemHandle failed : invalid argument\n",
                    JobEnd::kFailed);
  REQUIRE_FALSE(ipc.diagnoses.empty());
  CHECK(ipc.diagnoses.front().category == "p2p");
  CHECK(ipc.events[ipc.diagnoses.front().initiating].line == 2);
}

TEST_CASE("an observation becomes the cause next to a failure it explains", "[false-alarm]") {
  // Channels without GDRDMA, then an IB transport failure on the same job.
  auto a =
      run("gpu-node-3:4100:4188 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/3\n"
          "gpu-node-3:4100:4188 [0] transport/net_ib.cc:1712 NCCL WARN NET/IB : Got completion "
          "from peer 10.1.2.3<40123> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
          "::ffff:10.1.2.4 remoteGids::ffff:10.1.2.3 hca mlx5_3\n");
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "ib");  // the failure itself is stronger
  bool finding_used = a.findings.empty();
  for (const auto& d : a.diagnoses)
    for (std::size_t i : d.evidence) finding_used = finding_used || a.events[i].line == 0;
  for (const auto& d : a.diagnoses) finding_used = finding_used || a.events[d.initiating].line == 0;
  CHECK(finding_used);  // the channel line is part of a hypothesis, not a bare finding
}

// A job stopped from outside: scancel (slurmstepd's cancellation, srun aborting the step) or
// the time limit, with DeepSpeed's launcher killing its ranks on the SIGTERM it got. The
// lines are Slurm's (slurmstepd req.c, srun step_launch.c) and DeepSpeed's (launch.py
// sigkill_handler) own formats.
constexpr const char* kStoppedFromOutside =
    "srun: Job step aborted: Waiting up to 62 seconds for job step to finish.\n"
    "slurmstepd: error: *** STEP 1809577.0 ON r6i5n1 CANCELLED AT 2021-05-23T08:46:02 ***\n"
    "slurmstepd: error: *** JOB 1809578 ON r6i5n2 CANCELLED AT 2021-05-27T21:42:11 DUE TO TIME "
    "LIMIT ***\n"
    "[2021-05-23 08:46:02,120] [INFO] [launch.py:335:sigkill_handler] Killing subprocess 4712\n"
    "[2021-05-23 08:46:02,140] [INFO] [launch.py:343:sigkill_handler] Main process received "
    "SIGTERM, exiting\n";

TEST_CASE("a job the scheduler stopped is no failure unless it is known to have failed",
          "[false-alarm]") {
  auto a = run(kStoppedFromOutside);
  CHECK(a.diagnoses.empty());
  // Told that the job failed, the same lines are the symptoms of its end.
  LogInput in{"test.log", kStoppedFromOutside};
  JobOutcome failed;
  failed.end = JobEnd::kFailed;
  auto f = analyze(ff::test::builtin_catalog(), std::span(&in, 1), failed);
  REQUIRE_FALSE(f.diagnoses.empty());
  // A task that failed is a failure by itself.
  auto task = run(std::string(kStoppedFromOutside) +
                  "slurmstepd: error: *** STEP 1809577.1 ON r6i5n1 CANCELLED AT "
                  "2021-05-23T09:00:00 DUE TO TASK FAILURE ***\n");
  CHECK_FALSE(task.diagnoses.empty());
}

// A traceback inside a program's own message (NeMo's safe_import logs the ImportError it
// recovers from this way) is an exception the program caught; Python prints an uncaught
// one's header on a line of its own.
TEST_CASE("a traceback inside a message is a caught exception, not a crash", "[false-alarm]") {
  const std::string frames =
      "  File \"/workspace/pkg/utils/import_utils.py\", line 319, in safe_import_from\n"
      "    return getattr(imported_module, symbol), True\n"
      "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "AttributeError: module 'pkg.fusions' has no attribute 'quick_gelu'\n"
      "\n"
      "step 1 loss 2.31\n";
  const std::string in_message =
      "Import of quick_gelu from pkg.fusions failed with: Traceback (most recent call last):\n" +
      frames;
  const std::string uncaught = "Traceback (most recent call last):\n" + frames;
  CHECK(run(in_message).diagnoses.empty());
  REQUIRE_FALSE(run(uncaught).diagnoses.empty());
  auto crash = run(uncaught);
  CHECK(crash.events[crash.diagnoses.front().initiating].text.rfind("AttributeError", 0) == 0);
  // Behind a launcher's label the header is still read past the label.
  auto labelled = [](const std::string& text) {
    std::string out;
    std::size_t b = 0;
    while (b < text.size()) {
      std::size_t e = text.find('\n', b);
      out += " 2: " + text.substr(b, e - b) + "\n";
      b = e + 1;
    }
    return out;
  };
  CHECK(run(labelled(in_message)).diagnoses.empty());
  CHECK_FALSE(run(labelled(uncaught)).diagnoses.empty());
  // Under a known failure the caught exception is still a lead when nothing better is.
  std::string text = labelled(in_message);
  LogInput in{"test.log", text};
  JobOutcome failed;
  failed.end = JobEnd::kFailed;
  CHECK_FALSE(analyze(ff::test::builtin_catalog(), std::span(&in, 1), failed).diagnoses.empty());
}
