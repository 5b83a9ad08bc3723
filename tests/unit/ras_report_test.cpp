// NCCL RAS client output (evidence/ras_report.hpp): the samples of NCCL's documentation and
// of NVIDIA/nccl#1911 (tests/data/ras/README.md) name the ranks that are behind or missing,
// in all four forms; hostile input gives an error with a line, never a crash.
#include "evidence/ras_report.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include "test_data.hpp"

using namespace ff::evidence;

namespace {

std::string data(const std::string& name) { return ff::test::test_data("ras/" + name); }

RasReport parse_ok(const std::string& text) {
  auto r = parse_ras(text);
  if (auto* e = std::get_if<RasParseError>(&r)) FAIL("line " << e->line << ": " << e->message);
  return std::get<RasReport>(r);
}

std::vector<int> range(int from, int to, std::vector<int> except = {}) {
  std::vector<int> v;
  for (int i = from; i < to; ++i)
    if (std::find(except.begin(), except.end(), i) == except.end()) v.push_back(i);
  return v;
}

}  // namespace

TEST_CASE("RAS text: the lagging ranks RAS lists are the ones behind", "[ras]") {
  std::string text = data("doc-mismatch-lagging.txt");
  CHECK(looks_like_ras(text));
  auto r = parse_ok(text);
  CHECK(r.format == RasFormat::kText);
  REQUIRE(r.communicators.size() == 1);
  const auto& c = r.communicators[0];
  CHECK(c.id == "#0-0");
  CHECK(c.hash == "27a079b828ff1a75");
  CHECK(c.size == 32);
  CHECK(c.behind == std::vector<int>{0, 2, 3, 4, 5, 7});
  CHECK_FALSE(c.behind_inferred);
  CHECK(r.stuck_ranks == std::vector<int>{0, 2, 3, 4, 5, 7});
  REQUIRE_FALSE(r.conclusions.empty());
  CHECK_THAT(r.conclusions[0], Catch::Contains("ranks 0,2-5,7 are behind"));
}

TEST_CASE("RAS text: when RAS lists the ranks ahead, the rest are named (nccl#1911)", "[ras]") {
  auto r = parse_ok(data("issue1911-mismatch-ahead.txt"));
  CHECK(r.nccl_version == "2.26.2");
  REQUIRE(r.communicators.size() == 1);
  const auto& c = r.communicators[0];
  CHECK(c.ahead == std::vector<int>{12, 13});
  CHECK(c.behind_inferred);
  CHECK(c.behind == range(0, 32, {12, 13}));
  CHECK(r.stuck_ranks.size() == 30);
  CHECK_THAT(r.conclusions[0], Catch::Contains("ranks 0-11,14-31 are behind"));
  CHECK_THAT(r.conclusions[0], Catch::Contains("RAS listed only those"));
}

TEST_CASE("RAS text: a missing rank and a dead process are named", "[ras]") {
  auto inc = parse_ok(data("doc-incomplete.txt"));
  REQUIRE(inc.communicators.size() == 1);
  REQUIRE(inc.communicators[0].missing.size() == 1);
  CHECK(inc.communicators[0].missing[0].rank == 21);
  CHECK(inc.stuck_ranks == std::vector<int>{21});
  REQUIRE(inc.unreachable.size() == 1);
  CHECK(inc.unreachable[0].pid == 3487984);
  CHECK(inc.unreachable[0].host == "172.16.64.213");
  CHECK(inc.unreachable[0].gpu == "5");

  auto dead = parse_ok(data("doc-dead.txt"));
  REQUIRE(dead.dead.size() == 1);
  CHECK(dead.dead[0].pid == 3487984);
  CHECK(dead.stuck_ranks == std::vector<int>{21});
  bool said_dead = false;
  for (const auto& s : dead.conclusions) said_dead |= s.find("dead") != std::string::npos;
  CHECK(said_dead);
}

TEST_CASE("RAS JSON: the missing rank of the documentation's sample is named", "[ras]") {
  std::string text = data("doc-report.json");
  CHECK(looks_like_ras(text));
  auto r = parse_ok(text);
  CHECK(r.format == RasFormat::kJson);
  CHECK(r.nccl_version == "2.29.1");
  REQUIRE(r.communicators.size() == 1);
  CHECK(r.communicators[0].size == 2);
  CHECK(r.stuck_ranks == std::vector<int>{1});
}

TEST_CASE("RAS JSON: ranks with fewer operations of any kind are behind", "[ras]") {
  // Written after the JSON writer of NCCL v2.30.7 src/ras/client_support.cc: four ranks,
  // rank 2 one AllReduce behind, rank 3 with an asynchronous error.
  std::string text = R"({"nccl_version": "2.30.7", "communicators_count": 1, "communicators": [
    {"hash": "0xabc", "size": 4, "ranks_count": 4, "missing_ranks_count": 0, "ranks": [
      {"rank": 0, "host": "n1", "pid": 10, "cuda_dev": 0, "nvml_dev": 0,
       "status": {"init_state": 0, "async_error": 0}, "collective_counts": {"AllReduce": 101, "Broadcast": 3}},
      {"rank": 1, "host": "n1", "pid": 11, "cuda_dev": 1, "nvml_dev": 1,
       "status": {"init_state": 0, "async_error": 0}, "collective_counts": {"AllReduce": 101, "Broadcast": 3}},
      {"rank": 2, "host": "n2", "pid": 12, "cuda_dev": 0, "nvml_dev": 0,
       "status": {"init_state": 0, "async_error": 0}, "collective_counts": {"AllReduce": 100, "Broadcast": 3}},
      {"rank": 3, "host": "n2", "pid": 13, "cuda_dev": 1, "nvml_dev": 1,
       "status": {"init_state": 0, "async_error": 6}, "collective_counts": {"AllReduce": 101, "Broadcast": 3}}],
     "missing_ranks": []}], "ras": {"collection_time_sec": 0.0, "timeouts_count": 0}})";
  auto r = parse_ok(text);
  REQUIRE(r.communicators.size() == 1);
  CHECK(r.communicators[0].behind == std::vector<int>{2});
  CHECK(r.communicators[0].ahead == std::vector<int>{0, 1, 3});
  REQUIRE(r.communicators[0].errored.size() == 1);
  CHECK(r.communicators[0].errored[0].rank == 3);
  CHECK(r.stuck_ranks == std::vector<int>{2});
}

TEST_CASE("RAS JSON: a count no integer can hold is no count", "[ras]") {
  // A float out of range converted to an integer is undefined behaviour; such a count (and
  // a rank or a status given so) is read as absent, and the other counts still compare.
  std::string text = R"({"communicators": [{"hash": "0xabc", "size": 3, "ranks": [
      {"rank": 0, "status": {"init_state": 1e300}, "collective_counts": {"AllReduce": 1e39, "Broadcast": 3}},
      {"rank": 1e40, "collective_counts": {"AllReduce": 5, "Broadcast": 3}},
      {"rank": 2, "collective_counts": {"AllReduce": -1e39, "Broadcast": 2.0}}]}]})";
  auto r = parse_ok(text);
  REQUIRE(r.communicators.size() == 1);
  CHECK(r.communicators[0].errored.empty());
  CHECK(r.communicators[0].behind == std::vector<int>{2});
}

TEST_CASE("RAS monitor: PEER_DEAD events in text and JSON", "[ras]") {
  for (const char* name : {"doc-monitor.txt", "doc-monitor.json"}) {
    INFO(name);
    std::string text = data(name);
    CHECK(looks_like_ras(text));
    auto r = parse_ok(text);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].event == "PEER_DEAD");
    CHECK(r.events[0].time == "2025-12-19 13:07:07");
    CHECK(r.events[0].peer.pid == 1524345);
    CHECK(r.events[0].peer.host == "172.16.64.245");
    CHECK(r.events[0].peer.gpu == "1");
    REQUIRE_FALSE(r.conclusions.empty());
    CHECK_THAT(r.conclusions[0], Catch::Contains("process 1524345 on node 172.16.64.245"));
  }
}

TEST_CASE("RAS: hostile input is an error with a line, never a crash", "[ras]") {
  const std::string cases[] = {
      "",
      "just a log line\n",
      "{\"communicators\": [",
      "{\"communicators\": 5}",
      "{\"event\": \"PEER_DEAD\"}\n{ broken",
      std::string("Job summary\n\0\x01", 15),
      "[1, 2, 3]",
  };
  for (const auto& t : cases) {
    INFO(t);
    auto r = parse_ras(t);
    REQUIRE(std::holds_alternative<RasParseError>(r));
    CHECK(std::get<RasParseError>(r).line >= 1);
    CHECK_FALSE(std::get<RasParseError>(r).message.empty());
  }
  // A second object breaks on its own line.
  auto r = parse_ras("{\"event\": \"PEER_NEW\", \"group\": \"LIFECYCLE\"}\n\n{ broken }\n");
  REQUIRE(std::holds_alternative<RasParseError>(r));
  CHECK(std::get<RasParseError>(r).line == 3);
  // A communicator of absurd size is taken as of unknown size: no inversion over 2^31 ranks.
  auto big = parse_ok(
      "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
      "    0         1         4         8  99999999999        32   RUNNING  MISMATCH\n\n"
      "#0-0 (fa93daea854b060b) MISMATCH\n"
      "  Communicator ranks have different AllGather operation counts\n"
      "  30 ranks have launched up to operation 640\n"
      "  Rank 12 has launched up to operation 641 -- GPU 4 managed by process 1 on node h\n");
  REQUIRE(big.communicators.size() == 1);
  CHECK(big.communicators[0].size == 0);
  CHECK(big.communicators[0].behind.empty());
  CHECK(big.communicators[0].ahead == std::vector<int>{12});
}

TEST_CASE("RAS text: repeated reports tell a hang from a mismatch sampled in passing", "[ras]") {
  std::string one = data("doc-mismatch-lagging.txt");
  // The same counts twice: the ranks behind are stuck.
  auto frozen = parse_ok(one + "\n" + one);
  CHECK(frozen.reports == 2);
  REQUIRE(frozen.communicators.size() == 1);
  CHECK(frozen.communicators[0].trend == RasCommunicator::Trend::kFrozen);
  CHECK(frozen.communicators[0].behind == std::vector<int>{0, 2, 3, 4, 5, 7});
  CHECK(frozen.stuck_ranks == std::vector<int>{0, 2, 3, 4, 5, 7});
  CHECK_THAT(frozen.conclusions[0], Catch::Contains("did not change"));
  // The counts moved on between the queries: nobody is stuck.
  std::string later = one;
  for (auto [from, to] : {std::pair<std::string, std::string>{"operation 6650", "operation 6702"},
                          {"operation 6649", "operation 6701"}})
    later.replace(later.find(from), from.size(), to);
  auto moving = parse_ok(one + "\n" + later);
  REQUIRE(moving.communicators.size() == 1);
  CHECK(moving.communicators[0].trend == RasCommunicator::Trend::kAdvancing);
  CHECK(moving.stuck_ranks.empty());
  CHECK_THAT(moving.conclusions[0], Catch::Contains("not a hang"));
  CHECK(moving.communicators[0].line > 9);  // the last report's line
}
