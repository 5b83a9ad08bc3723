// NCCL RAS conclusions as evidence the diagnosis uses (evidence/ras_lines.hpp,
// cli/evidence_inputs.hpp): a RAS report alone names the stuck, missing or dead ranks as
// initiating, and beside the text logs of the same job the watchdog timeouts are its
// collateral. Samples: tests/data/ras (NCCL's RAS documentation, NVIDIA/nccl#1911).
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <span>
#include <sstream>
#include <string>

#include "analysis/analyze.hpp"
#include "builtin_catalog.hpp"
#include "cli/evidence_inputs.hpp"
#include "evidence/ras_lines.hpp"
#include "test_data.hpp"

using namespace ff;

namespace {

std::string data(const std::string& name) { return ff::test::test_data("ras/" + name); }

evidence::RasReport parse_ok(const std::string& text) {
  auto r = evidence::parse_ras(text);
  if (auto* e = std::get_if<evidence::RasParseError>(&r))
    FAIL("line " << e->line << ": " << e->message);
  return std::get<evidence::RasReport>(r);
}

// PyTorch's watchdog timeout (ProcessGroupNCCL.cpp, v2.4+) on every rank but `except`.
std::string watchdog_log(int ranks, int except) {
  std::string log;
  for (int r = 0; r < ranks; ++r) {
    if (r == except) continue;
    log += "[rank" + std::to_string(r) + "]:[E1203 12:00:" + (r < 10 ? "0" : "") +
           std::to_string(r) + ".000000001 ProcessGroupNCCL.cpp:632] [Rank " + std::to_string(r) +
           "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, "
           "OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for "
           "600021 milliseconds before timing out.\n";
  }
  return log;
}

// The inputs as `firstfault analyze` reads them: evidence converted, then one job.
struct Job {
  std::vector<std::string> names, texts;
  cli::EvidenceTexts evidence;
  analysis::Analysis result;
};
Job analyze_job(std::vector<std::pair<std::string, std::string>> files) {
  Job j;
  for (auto& [n, t] : files) j.names.push_back(n), j.texts.push_back(std::move(t));
  std::vector<cli::EvidenceInput> views;
  for (std::size_t i = 0; i < j.names.size(); ++i) views.push_back({j.names[i], j.texts[i]});
  j.evidence = cli::convert_evidence(views);
  for (auto& [i, t] : j.evidence.texts) j.texts[i] = t;
  std::vector<analysis::LogInput> in;
  for (std::size_t i = 0; i < j.names.size(); ++i) in.push_back({j.names[i], j.texts[i]});
  j.result = analysis::analyze(test::builtin_catalog(), std::span(in));
  return j;
}

const std::string& top_rule(const Job& j) {
  REQUIRE_FALSE(j.result.diagnoses.empty());
  return test::builtin_catalog().rules()[j.result.diagnoses.front().rule].id;
}

const analysis::Event& initiating(const Job& j) {
  return j.result.events[j.result.diagnoses.front().initiating];
}

}  // namespace

TEST_CASE("RAS lines: the ranks behind, named by the first, at the communicator's line", "[ras]") {
  auto lines = evidence::render_ras(parse_ok(data("doc-mismatch-lagging.txt")));
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].line == 7);  // "#0-0 (27a079b828ff1a75) MISMATCH"
  CHECK(lines[0].text ==
        "NCCL RAS: rank 0 (host 172.16.64.210) is behind in communicator #0-0 "
        "(27a079b828ff1a75): 6 of 32 ranks launched up to operation 6649 where 26 ranks "
        "launched up to 6650; counts: one report; ranks: [0, 2-5, 7]");
  // nccl#1911: RAS listed the two ranks ahead; the 30 behind are named.
  auto inverted = evidence::render_ras(parse_ok(data("issue1911-mismatch-ahead.txt")));
  REQUIRE(inverted.size() == 1);
  CHECK_THAT(inverted[0].text, Catch::Contains("rank 0 is behind") &&
                                   Catch::Contains("(RAS listed only the ranks ahead)") &&
                                   Catch::EndsWith("ranks: [0-11, 14-31]"));
}

TEST_CASE("RAS lines: missing ranks, dead processes and monitor events", "[ras]") {
  auto dead = evidence::render_ras(parse_ok(data("doc-dead.txt")));
  REQUIRE(dead.size() == 2);
  CHECK(dead[0].line == 5);  // the DEAD section's process line comes first in the file
  CHECK(dead[0].text ==
        "NCCL RAS: process 3487984 on node 172.16.64.213 (GPU 5) is dead (unreachable via the "
        "RAS network)");
  CHECK(dead[1].line == 9);  // "The missing rank: 21"
  CHECK_THAT(dead[1].text, Catch::StartsWith("NCCL RAS: rank 21 sent no data for communicator "
                                             "#0-0 (cf264af53edbe986)"));
  auto monitor = evidence::render_ras(parse_ok(data("doc-monitor.json")));
  REQUIRE(monitor.size() == 1);
  CHECK_THAT(monitor[0].text, Catch::Contains("process 1524345 on node 172.16.64.245 (GPU 1) is "
                                              "dead (monitor event at 2025-12-19 13:07:07)"));
}

TEST_CASE("RAS lines: written over their report lines, the rest kept", "[ras]") {
  std::string text = "a\nb\r\nc\n";
  std::string out = evidence::ras_analysis_text(text, {{1, "X"}, {1, "Y"}, {5, "Z"}});
  // Two conclusions for line 1: the second takes the next line; line 5 is past the end.
  CHECK(out == "a\nX\nY\n\n\nZ\n");
  CHECK(evidence::ras_analysis_text("", {{0, "only"}}) == "only\n");
  CHECK(evidence::ras_analysis_text("keep\n", {}) == "keep\n");
}

TEST_CASE("RAS report alone: the ranks behind initiate a hang", "[ras]") {
  auto j = analyze_job({{"ras.txt", data("doc-mismatch-lagging.txt")}});
  CHECK(j.result.diagnoses.front().category == "straggler");
  CHECK(top_rule(j) == "nccl-ras-ranks-behind");
  CHECK(initiating(j).source.rank == 0);
  CHECK(initiating(j).source.host == "172.16.64.210");
  CHECK(initiating(j).line == 7);
  REQUIRE(j.evidence.ras.size() == 1);
  // The report's own line is context now; the conclusion speaks.
  CHECK(j.result.diagnoses.size() == 1);
}

TEST_CASE("RAS: the same counts in two reports are stuck ranks; counts that moved are not",
          "[ras]") {
  std::string one = data("doc-mismatch-lagging.txt");
  auto frozen = analyze_job({{"ras.txt", one + "\n" + one}});
  CHECK(top_rule(frozen) == "nccl-ras-stuck-ranks");
  CHECK(initiating(frozen).source.rank == 0);
  std::string later = one;
  for (auto [from, to] : {std::pair{"6650", "6702"}, std::pair{"6649", "6701"}}) {
    for (std::size_t at; (at = later.find(from)) != std::string::npos;) later.replace(at, 4, to);
  }
  auto moving = analyze_job({{"ras.txt", one + "\n" + later}});
  CHECK(moving.result.diagnoses.empty());  // a mismatch sampled in passing: context only
}

TEST_CASE("RAS beside the logs: the watchdog timeouts are collateral of the ranks behind",
          "[ras]") {
  auto j = analyze_job(
      {{"ras.txt", data("doc-mismatch-lagging.txt")}, {"train.log", watchdog_log(32, 0)}});
  REQUIRE_FALSE(j.result.diagnoses.empty());
  const auto& d = j.result.diagnoses.front();
  CHECK(top_rule(j) == "nccl-ras-ranks-behind");
  CHECK(initiating(j).source.rank == 0);
  CHECK(initiating(j).file == 0);
  CHECK(d.collateral.size() == 31);
  for (std::size_t i : d.collateral) CHECK(j.result.events[i].file == 1);
  CHECK(j.result.diagnoses.size() == 1);
}

TEST_CASE("RAS beside the logs: a missing rank initiates, the others' timeouts are collateral",
          "[ras]") {
  auto j =
      analyze_job({{"ras.txt", data("doc-incomplete.txt")}, {"train.log", watchdog_log(32, 21)}});
  const auto& d = j.result.diagnoses.front();
  CHECK(d.category == "remote-peer");
  CHECK(top_rule(j) == "nccl-ras-missing-rank");
  CHECK(initiating(j).source.rank == 21);
  CHECK(d.collateral.size() == 31);
  // RAS alone, the dead process's report: the missing rank is named, the process is evidence.
  auto dead = analyze_job({{"ras.txt", data("doc-dead.txt")}});
  CHECK(top_rule(dead) == "nccl-ras-missing-rank");
  CHECK(initiating(dead).source.rank == 21);
  CHECK(dead.result.diagnoses.front().evidence.size() == 1);
}

TEST_CASE("RAS JSON and monitor events: a missing rank and a dead process", "[ras]") {
  auto report = analyze_job({{"ncclras.json", data("doc-report.json")}});
  CHECK(top_rule(report) == "nccl-ras-missing-rank");
  CHECK(initiating(report).source.rank == 1);
  CHECK(initiating(report).source.host == "172.16.64.245");
  auto monitor = analyze_job({{"monitor.txt", data("doc-monitor.txt")}});
  CHECK(top_rule(monitor) == "nccl-ras-dead-process");
  CHECK(initiating(monitor).source.host == "172.16.64.245");
  CHECK(initiating(monitor).line == 3);  // the event's own line
  // Unreadable RAS-looking input stays a log, with a problem naming its line.
  auto broken = analyze_job({{"ras.json", "{\"communicators\": [\n"}});
  REQUIRE(broken.evidence.ras_problems.size() == 1);
  CHECK(broken.evidence.texts.empty());
}
