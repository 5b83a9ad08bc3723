// NCCL's per-call trace (NCCL_DEBUG_SUBSYS=COLL: one INFO line for every collective a rank
// enqueues, NVIDIA/nccl src/enqueue.cc) with the shipped catalog: the lines are the job's
// history and say nothing alone; compared at one opCount of communicators of one size, a rank
// whose call differs is the rank that desynchronised. The lines are composed in NCCL's format.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/analyze.hpp"
#include "builtin_catalog.hpp"
#include "diagnosis_test_util.hpp"

using namespace ff::analysis;

namespace {

// One rank's trace line: host "node", its pid, its device, the call.
std::string call(int pid, int dev, const std::string& op, const std::string& opcount, long count,
                 int datatype, int nranks = 4, int root = 0) {
  return "node:" + std::to_string(pid) + ":" + std::to_string(pid) + " [" + std::to_string(dev) +
         "] NCCL INFO " + op + ": opCount " + opcount + " sendbuff 0x7f597d2b2100 recvbuff " +
         "0x7f597d2b2100 count " + std::to_string(count) + " datatype " + std::to_string(datatype) +
         " op 0 root " + std::to_string(root) + " comm 0x5611f23d0" + std::to_string(pid) +
         " [nranks=" + std::to_string(nranks) + "] stream 0x5611f23da810\n";
}

Analysis run(const std::string& text, JobOutcome outcome) {
  return ff::test::run(ff::test::builtin_catalog(), text, outcome);
}

}  // namespace

TEST_CASE("call trace: one rank's different collective at an opCount is the desync",
          "[call-trace]") {
  std::string log;
  for (const char* opcount : {"28b", "28c"}) {
    log += call(100, 0, "AllReduce", opcount, 9984512, 7);
    log += call(101, 1, "AllReduce", opcount, 9984512, 7);
    // Rank 2 runs the same step's AllReduce first, then an AllGather where the others reduce.
    log += call(102, 2, std::string(opcount) == "28b" ? "AllReduce" : "AllGather", opcount,
                std::string(opcount) == "28b" ? 9984512 : 59205120, 7);
    log += call(103, 3, "AllReduce", opcount, 9984512, 7);
  }
  const Analysis a = run(log, ff::test::hung());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses[0].category == "collective-mismatch");
  CHECK(a.events[a.diagnoses[0].initiating].source.device == 2);
  CHECK(a.events[a.diagnoses[0].initiating].text.find("AllGather") != std::string::npos);
}

TEST_CASE("call trace: a different size or datatype on one rank is a desync too", "[call-trace]") {
  std::string log = call(100, 0, "Broadcast", "0", 25503912, 6, 4);
  for (int r = 1; r < 4; ++r) log += call(100 + r, r, "Broadcast", "0", 53, 4, 4);
  const Analysis a = run(log, ff::test::failed());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses[0].category == "collective-mismatch");
  CHECK(a.events[a.diagnoses[0].initiating].source.device == 0);
}

TEST_CASE("call trace: lines that agree, or a job not known to fail, give no diagnosis",
          "[call-trace]") {
  std::string agree;
  for (int r = 0; r < 4; ++r) agree += call(100 + r, r, "AllReduce", "5", 1024, 7);
  CHECK(run(agree, ff::test::failed()).diagnoses.empty());

  // The calls disagree, but NCCL printed them at INFO level and nothing says the job failed.
  std::string differ = agree + call(104, 0, "AllGather", "6", 64, 7);
  for (int r = 1; r < 4; ++r) differ += call(104 + r, r, "AllReduce", "6", 64, 7);
  CHECK(run(differ, {}).diagnoses.empty());
  CHECK_FALSE(run(differ, ff::test::failed()).diagnoses.empty());
}

TEST_CASE("call trace: two communicators of one size at one opCount are not compared",
          "[call-trace]") {
  // Every rank is in two communicators of four ranks (the world and a copy of it, as a
  // framework makes one process group per purpose); their opCounts run apart, and the ranks'
  // lines of one opCount reach the log in different orders.
  std::string log;
  for (int r = 0; r < 4; ++r) {
    const std::string a = call(100 + r, r, "AllReduce", "3", 4096, 7);
    const std::string b = call(100 + r, r, "AllGather", "3", 512, 0);
    log += (r == 0) ? b + a : a + b;
  }
  CHECK(run(log, ff::test::hung()).diagnoses.empty());
}

TEST_CASE("call trace: point-to-point calls are not collectives", "[call-trace]") {
  // At one opCount rank 0 sends and rank 1 receives: different names, as it must be.
  const std::string log =
      call(100, 0, "Send", "9", 100, 7, 2, 1) + call(101, 1, "Recv", "9", 100, 7, 2, 0) +
      call(100, 0, "AllReduce", "a", 8, 7, 2) + call(101, 1, "AllReduce", "a", 8, 7, 2);
  CHECK(run(log, ff::test::hung()).diagnoses.empty());
}
