// Diagnosis: block attribution, roles, cross-rank comparison, time order, "none".
// Rules here are small, written for each case, so every behaviour is tested on its own and
// independently of the shipped catalog.
#include <catch2/catch.hpp>

#include "analysis/analyze.hpp"
#include "diagnosis_test_util.hpp"

using namespace ff::analysis;
using namespace ff::test;

namespace {}  // namespace

TEST_CASE("a cause beats symptoms printed before it", "[diagnosis]") {
  auto c = catalog({make("oom", "gpu-oom", Role::kCause, 0.9, "CUDA out of memory"),
                    make("wd", "straggler", Role::kSymptom, 0.5, "Watchdog caught")});
  auto a = run(c,
               "[rank1]: Watchdog caught collective operation timeout\n"
               "[rank0]: Watchdog caught collective operation timeout\n"
               "[rank2]: torch.cuda.OutOfMemoryError: CUDA out of memory.\n");
  REQUIRE(a.diagnoses.size() == 1);  // symptoms are collateral, not hypotheses, next to a cause
  CHECK(a.diagnoses[0].category == "gpu-oom");
  CHECK(initiating(a).line == 2);
  CHECK(initiating(a).source.rank == 2);
  CHECK(a.diagnoses[0].collateral.size() == 2);
}

TEST_CASE("only symptoms: the best symptom names the category, discounted", "[diagnosis]") {
  auto c =
      catalog({make("peer", "remote-peer", Role::kSymptom, 0.45,
                    "Connection closed by remote peer (?P<peer>\\S+)"),
               make("ops", "straggler", Role::kSymptom, 0.1, "Some NCCL operations have failed")});
  auto a = run(c,
               "Some NCCL operations have failed or timed out.\n"
               "h:1:2 [0] NCCL WARN socketProgress: Connection closed by remote peer gpu9<4567>\n");
  REQUIRE(a.diagnoses.size() == 2);
  CHECK(a.diagnoses[0].category == "remote-peer");
  CHECK(a.only_victims);
  CHECK(initiating(a).capture("peer") == "gpu9<4567>");
  CHECK(a.diagnoses[0].confidence < 0.45);
}

TEST_CASE("nothing wrong: benign lines give no diagnosis", "[diagnosis]") {
  Rule probe = make("probe", "none", Role::kContext, 0.1, "No plugin found");
  probe.benign = true;
  auto c = catalog({probe});
  auto a = run(c, "x:1:1 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so)\n");
  CHECK(a.diagnoses.empty());
  CHECK(a.context.size() == 1);
}

TEST_CASE("ranks that disagree on OpType: the minority rank is the lead", "[diagnosis]") {
  Rule wd = make("wd", "straggler", Role::kSymptom, 0.5,
                 "\\[Rank (?P<rank>\\d+)\\] Watchdog caught collective operation timeout: "
                 "WorkNCCL\\(SeqNum=(?P<seq>\\d+), OpType=(?P<op>\\w+)");
  wd.cross_rank = CrossRank{{"op", "seq"}, "collective-mismatch"};
  auto c = catalog({wd});
  auto a = run(c,
               "[Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
               "OpType=ALLREDUCE)\n"
               "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
               "OpType=ALLREDUCE)\n"
               "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, "
               "OpType=BROADCAST)\n");
  CHECK(a.diagnoses[0].category == "collective-mismatch");
  CHECK(initiating(a).source.rank == 3);
  CHECK_THAT(a.diagnoses[0].reasoning, Catch::Contains("op=BROADCAST"));

  // Same op everywhere, one rank lagging on SeqNum: still a mismatch, the laggard leads.
  auto b = run(c,
               "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, "
               "OpType=ALLREDUCE)\n"
               "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=11, "
               "OpType=ALLREDUCE)\n"
               "[Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, "
               "OpType=ALLREDUCE)\n");
  CHECK(b.diagnoses[0].category == "collective-mismatch");
  CHECK(initiating(b).source.rank == 1);

  // All ranks agree: a plain timeout, the first line leads and the category stays.
  auto d = run(c,
               "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, "
               "OpType=ALLREDUCE)\n"
               "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, "
               "OpType=ALLREDUCE)\n");
  CHECK(d.diagnoses[0].category == "straggler");
  CHECK(initiating(d).source.rank == 0);
}

TEST_CASE("sequence numbers are compared within one process group", "[diagnosis]") {
  Rule wd = make("wd", "straggler", Role::kSymptom, 0.5,
                 "\\[(?:PG (?P<pg>[^\\]]*?) )?Rank (?P<rank>\\d+)\\] Watchdog caught collective "
                 "operation timeout: WorkNCCL\\(SeqNum=(?P<seq>\\d+), OpType=(?P<op>\\w+)");
  wd.cross_rank = CrossRank{{"op", "seq"}, "collective-mismatch", {"pg"}, "seq"};
  auto c = catalog({wd});
  auto line = [](std::string pg, int rank, int seq) {
    return "[" + (pg.empty() ? "" : "PG " + pg + " ") + "Rank " + std::to_string(rank) +
           "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" +
           std::to_string(seq) + ", OpType=ALLREDUCE)\n";
  };
  // Two groups count apart: group 3 agrees on 40 however far group 0 has gone, and in group
  // 0 rank 1 lags.
  auto a = run(c, line("0", 0, 900) + line("3", 0, 40) + line("0", 1, 899) + line("3", 1, 40) +
                      line("0", 2, 900) + line("3", 2, 40));
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses[0].category == "collective-mismatch");
  CHECK(initiating(a).source.rank == 1);
  CHECK_THAT(a.diagnoses[0].reasoning, Catch::Contains("seq=899"));
  // Every group agrees within itself: no desync, whatever the numbers across groups.
  auto b = run(c, line("0", 0, 900) + line("3", 0, 40) + line("0", 1, 900) + line("3", 1, 40));
  REQUIRE_FALSE(b.diagnoses.empty());
  CHECK(b.diagnoses[0].category == "straggler");
  // No group printed, and a rank at two positions (old PyTorch, several groups timing out):
  // its numbers cannot be compared with another rank's.
  auto d = run(c, line("", 0, 96117) + line("", 0, 96125) + line("", 7, 64088));
  REQUIRE_FALSE(d.diagnoses.empty());
  CHECK(d.diagnoses[0].category == "straggler");
  // One position per rank without a group: compared as before.
  auto e = run(c, line("", 0, 12) + line("", 1, 11) + line("", 2, 12));
  REQUIRE_FALSE(e.diagnoses.empty());
  CHECK(e.diagnoses[0].category == "collective-mismatch");
  // One position per rank without a group, but thousands apart: two groups' counters, which
  // no rank of one group can be (its timed-out ranks wait at one position).
  auto f = run(c, line("", 4, 20518) + line("", 1, 369526));
  REQUIRE_FALSE(f.diagnoses.empty());
  CHECK(f.diagnoses[0].category == "straggler");
  // The same numbers under a named group are one group's: compared.
  auto g = run(c, line("0", 4, 20518) + line("0", 1, 369526) + line("0", 2, 369526));
  REQUIRE_FALSE(g.diagnoses.empty());
  CHECK(g.diagnoses[0].category == "collective-mismatch");
}

TEST_CASE("an outlier without a category change still leads (fewest enqueued)", "[diagnosis]") {
  Rule hb = make("hb", "straggler", Role::kSymptom, 0.45,
                 "Heartbeat monitor timed out!.*workMetaList_\\.size\\(\\)=(?P<pending>\\d+)");
  hb.cross_rank = CrossRank{{"pending"}, ""};
  auto c = catalog({hb});
  auto a = run(c,
               "[rank1]:[E x.cpp:1] Heartbeat monitor timed out! workMetaList_.size()=103\n"
               "[rank0]:[E x.cpp:1] Heartbeat monitor timed out! workMetaList_.size()=84\n"
               "[rank2]:[E x.cpp:1] Heartbeat monitor timed out! workMetaList_.size()=103\n");
  CHECK(a.diagnoses[0].category == "straggler");
  CHECK(initiating(a).source.rank == 0);
}

TEST_CASE("in a hang, the rank whose counter lags leads over stronger timeout lines",
          "[diagnosis]") {
  // Every waiting rank prints the (stronger) timeout; the rank that never entered the
  // collective prints none, only its counters when it is told to dump.
  Rule wd =
      make("wd", "straggler", Role::kSymptom, 0.5, "Watchdog caught collective operation timeout");
  Rule dump =
      make("dump", "straggler", Role::kSymptom, 0.35,
           "dump signal.* Last enqueued NCCL work: (?P<enqueued>\\d+), last completed NCCL "
           "work: (?P<completed>\\d+)");
  dump.cross_rank = CrossRank{{"enqueued"}, ""};
  auto c = catalog({wd, dump});
  std::string timeouts =
      "[rank0]:[E x.cpp:1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=57)\n"
      "[rank1]:[E x.cpp:1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=57)\n"
      "[rank2]:[E x.cpp:1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=57)\n";
  auto a = run(c, timeouts +
                      "[rank0]:[E x.cpp:2] dump signal from this local rank. Last enqueued NCCL "
                      "work: 57, last completed NCCL work: 56.\n"
                      "[rank1]:[E x.cpp:2] dump signal from rank 0. Last enqueued NCCL work: 57, "
                      "last completed NCCL work: 56.\n"
                      "[rank3]:[E x.cpp:2] dump signal from rank 0. Last enqueued NCCL work: 56, "
                      "last completed NCCL work: 56.\n"
                      "[rank2]:[E x.cpp:2] dump signal from rank 0. Last enqueued NCCL work: 57, "
                      "last completed NCCL work: 56.\n");
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses[0].category == "straggler");
  CHECK(initiating(a).source.rank == 3);
  CHECK_THAT(a.diagnoses[0].reasoning, Catch::Contains("enqueued=56"));
  // Counters that agree name nobody: the strongest, earliest timeout leads as before.
  auto b = run(c, timeouts +
                      "[rank0]:[E x.cpp:2] dump signal. Last enqueued NCCL work: 57, last "
                      "completed NCCL work: 56.\n"
                      "[rank1]:[E x.cpp:2] dump signal. Last enqueued NCCL work: 57, last "
                      "completed NCCL work: 56.\n");
  REQUIRE_FALSE(b.diagnoses.empty());
  CHECK(b.events[b.diagnoses[0].initiating].rule == 0);
  CHECK(initiating(b).source.rank == 0);
}

TEST_CASE("timestamps, not line order, decide between equal causes", "[diagnosis]") {
  auto c = catalog({make("seg", "process-crash", Role::kCause, 0.6, "Segmentation fault")});
  auto a = run(c,
               "2024-01-01 10:00:05,000 [rank1]: Segmentation fault\n"
               "2024-01-01 10:00:01,000 [rank4]: Segmentation fault\n");
  CHECK(initiating(a).source.rank == 4);
  CHECK_THAT(a.diagnoses[0].reasoning, Catch::Contains("timestamp"));
  // Without timestamps the first line leads.
  auto b = run(c, "[rank1]: Segmentation fault\n[rank4]: Segmentation fault\n");
  CHECK(initiating(b).source.rank == 1);
}

TEST_CASE("across files, the outlier can be in another file", "[diagnosis]") {
  Rule wd = make("wd", "straggler", Role::kSymptom, 0.5,
                 "\\[Rank (?P<rank>\\d+)\\] Watchdog .*SeqNum=(?P<seq>\\d+), OpType=(?P<op>\\w+)");
  wd.cross_rank = CrossRank{{"op"}, "collective-mismatch"};
  auto c = catalog({wd});
  std::string n1 =
      "[Rank 0] Watchdog WorkNCCL(SeqNum=3, OpType=ALLREDUCE)\n[Rank 1] Watchdog "
      "WorkNCCL(SeqNum=3, OpType=ALLREDUCE)\n";
  std::string n2 =
      "[Rank 2] Watchdog WorkNCCL(SeqNum=3, OpType=ALLREDUCE)\n[Rank 3] Watchdog "
      "WorkNCCL(SeqNum=3, OpType=SEND)\n";
  LogInput in[] = {{"node1.log", n1}, {"node2.log", n2}};
  auto a = analyze(c, in);
  CHECK(initiating(a).file == 1);
  CHECK(initiating(a).source.rank == 3);
  CHECK(a.files.size() == 2);
  CHECK(a.files[1].lines == 2);
}

TEST_CASE("two ranks on different operations are a mismatch, whoever lags", "[diagnosis]") {
  Rule wd = make("wd", "straggler", Role::kSymptom, 0.5, "^(?P<rank>\\d+): \\[(?P<op>[a-z]+)\\.");
  wd.cross_rank = CrossRank{{"op"}, "collective-mismatch"};
  auto c = catalog({wd});
  // One rank waits to broadcast, the other has not reached the allreduce: no order says who
  // lags, but they cannot meet. The first to say so leads.
  auto a = run(c, "1: [allreduce.w]\n0: [broadcast.flag]\n");
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "collective-mismatch");
  CHECK(initiating(a).source.rank == 1);
  // A rule without a mismatch category cannot tell who lags: no outlier.
  Rule plain = wd;
  plain.cross_rank = CrossRank{{"op"}, ""};
  auto b = run(catalog({plain}), "1: [allreduce.w]\n0: [broadcast.flag]\n");
  REQUIRE_FALSE(b.diagnoses.empty());
  CHECK(b.diagnoses.front().category == "straggler");
}

TEST_CASE("torchelastic's Root Cause record names the rank and is preferred", "[diagnosis]") {
  auto c = catalog({make("kill", "host-oom", Role::kCause, 0.6, "exitcode\\s*:\\s*-9\\b")});
  auto a = run(c,
               "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
               "============================================================\n"
               "train.py FAILED\n"
               "------------------------------------------------------------\n"
               "Failures:\n"
               "[1]:\n"
               "  time      : 2024-06-08_19:04:45\n"
               "  host      : node-b.cluster\n"
               "  rank      : 9 (local_rank: 1)\n"
               "  exitcode  : -9 (pid: 102933)\n"
               "------------------------------------------------------------\n"
               "Root Cause (first observed failure):\n"
               "[0]:\n"
               "  time      : 2024-06-08_19:04:40\n"
               "  host      : node-a.cluster\n"
               "  rank      : 3 (local_rank: 3)\n"
               "  exitcode  : -9 (pid: 102932)\n"
               "  error_file: <N/A>\n"
               "============================================================\n");
  const Event& e = initiating(a);
  CHECK(e.in_root_cause_record);
  CHECK(e.source.rank == 3);
  CHECK(e.source.local_rank == 3);
  CHECK(e.source.host == "node-a.cluster");
  CHECK_THAT(a.diagnoses[0].reasoning, Catch::Contains("first observed failure"));
  // The other record is attributed too.
  REQUIRE(a.diagnoses[0].evidence.size() == 1);
  CHECK(a.events[a.diagnoses[0].evidence[0]].source.rank == 9);
}

TEST_CASE("Last error: chains and traceback frames give the rank", "[diagnosis]") {
  auto c =
      catalog({make("shm", "shm", Role::kCause, 0.85, "Error while creating shared memory segment"),
               make("key", "process-crash", Role::kCause, 0.3, "^KeyError: ")});
  auto a = run(c,
               "[rank6]: torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:268, "
               "unhandled system error, NCCL version 2.21.5\n"
               "ncclSystemError: System call (e.g. socket, malloc) or external library call failed "
               "or device error.\n"
               "Last error:\n"
               "Error while creating shared memory segment /dev/shm/nccl-1YsMbG (size 7340384)\n");
  CHECK(initiating(a).source.rank == 6);
  auto b = run(c,
               "[rank4]:Traceback (most recent call last):\n"
               "[rank4]:  File \"train.py\", line 10, in <module>\n"
               "[rank4]:    batch['labels']\n"
               "KeyError: 'labels'\n");
  CHECK(initiating(b).source.rank == 4);
  // The frame directly above is enough.
  auto d = run(c, "[rank4]:  File \"x.py\", line 1\nKeyError: 'x'\n");
  CHECK(initiating(d).source.rank == 4);
}

TEST_CASE("one line is one piece of evidence: the strongest rule speaks", "[diagnosis]") {
  auto c = catalog({make("generic", "process-crash", Role::kCause, 0.25, "Error: "),
                    make("specific", "rendezvous", Role::kCause, 0.7, "Address already in use")});
  auto a = run(c, "RuntimeError: Address already in use\n");
  REQUIRE(a.diagnoses.size() == 1);
  CHECK(a.diagnoses[0].category == "rendezvous");
  CHECK(a.events.size() == 1);
}

TEST_CASE("checks are ticked when the log shows their evidence", "[diagnosis]") {
  Rule r = make("oom", "gpu-oom", Role::kCause, 0.9, "CUDA out of memory");
  r.checks = {{"fragmentation", {"reserved by PyTorch but unallocated"}}, {"manual check", {}}};
  auto c = catalog({r});
  auto a = run(c, "CUDA out of memory. 2.71 GiB is reserved by PyTorch but unallocated.\n");
  REQUIRE(a.diagnoses[0].checks.size() == 2);
  CHECK(a.diagnoses[0].checks[0].satisfied);
  CHECK_FALSE(a.diagnoses[0].checks[1].satisfied);
}

TEST_CASE("hostile text: binary, NUL, huge lines, no terminator", "[diagnosis]") {
  auto c = catalog({make("oom", "gpu-oom", Role::kCause, 0.9, "CUDA out of memory")});
  std::string bin;
  for (int i = 0; i < 100000; ++i) bin.push_back(static_cast<char>((i * 131) & 0xff));
  CHECK_NOTHROW(run(c, bin));
  std::string nul = std::string("a\0b\n", 4) + std::string(3 << 20, 'y') + "CUDA out of memory";
  auto a = run(c, nul);
  REQUIRE(a.diagnoses.size() == 1);
  CHECK(initiating(a).line == 1);
  CHECK(initiating(a).text.size() <= kMaxEventText);
  CHECK(run(c, "").diagnoses.empty());
  CHECK(run(c, "\r\r\r\n\n").files[0].lines == 4);
}
