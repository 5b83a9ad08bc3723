// A log read as it is written (analysis::StreamScan, `firstfault watch`) must give the scan
// one read of the finished file gives, however the writer's bytes were cut: same events
// (rule, line, offset, text), same hits; and the live job's diagnosis is analyze's.
#include "analysis/stream_scan.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "../corpus_case.hpp"
#include "analysis/analyze.hpp"
#include "builtin_catalog.hpp"
#include "cli/live_job.hpp"

using namespace ff;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> corpus_logs() {
  std::vector<fs::path> logs;
  for (const auto& e : fs::directory_iterator(fs::path(FF_TEST_DATA) / ".." / "corpus"))
    if (fs::exists(e.path() / "log.txt")) logs.push_back(e.path() / "log.txt");
  std::sort(logs.begin(), logs.end());
  return logs;
}

analysis::ScanState whole_scan(std::string_view text) {
  analysis::ScanState s;
  s.reset(test::builtin_catalog());
  analysis::scan_text(test::builtin_catalog(), 0, text, 0, 0, s);
  return s;
}

void require_same(const analysis::ScanState& a, const analysis::ScanState& b,
                  const std::string& what) {
  INFO(what);
  REQUIRE(a.events.size() == b.events.size());
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    INFO("event " << i << ": " << a.events[i].text);
    CHECK(a.events[i].rule == b.events[i].rule);
    CHECK(a.events[i].line == b.events[i].line);
    CHECK(a.events[i].offset == b.events[i].offset);
    CHECK(a.events[i].text == b.events[i].text);
    CHECK(a.events[i].source.rank == b.events[i].source.rank);
  }
  CHECK(a.rule_hits == b.rule_hits);
  CHECK(a.checks_seen == b.checks_seen);
}

}  // namespace

TEST_CASE("a log fed in pieces scans as the whole log does", "[stream]") {
  const auto logs = corpus_logs();
  REQUIRE(logs.size() >= 100);
  std::mt19937 rng(20261205);
  for (const auto& p : logs) {
    const std::string text = test::read_file(p);
    const analysis::ScanState want = whole_scan(text);
    for (std::size_t most : {1, 7, 333, 4096, 1 << 20}) {
      analysis::StreamScan s(test::builtin_catalog(), 0);
      std::uniform_int_distribution<std::size_t> cut(1, most);
      for (std::size_t at = 0; at < text.size();) {
        std::size_t n = std::min(cut(rng), text.size() - at);
        s.feed(std::string_view(text).substr(at, n));
        at += n;
      }
      s.finish();
      require_same(s.state(), want, p.string() + " in pieces of at most " + std::to_string(most));
      CHECK(s.bytes() == text.size());
    }
  }
}

TEST_CASE("a line being written is scanned once it ends", "[stream]") {
  analysis::StreamScan s(test::builtin_catalog(), 0);
  const std::string line =
      "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has "
      "a total capacity of 79.10 GiB of which 1.05 GiB is free.";
  CHECK(s.feed(line.substr(0, 40)) == 0);
  CHECK(s.pending() == 40);
  CHECK(s.feed(line.substr(40)) == 0);  // no line end yet: it may still grow
  CHECK(s.feed("\n") == 1);
  CHECK(s.pending() == 0);
  CHECK(s.state().events.front().line == 0);
  CHECK(s.state().events.front().source.rank == 3);
  CHECK(s.lines() == 1);
}

TEST_CASE("a restarted log keeps what it showed and numbers its lines again", "[stream]") {
  analysis::StreamScan s(test::builtin_catalog(), 0);
  const std::string oom =
      "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n";
  s.feed("starting\nepoch 1\n" + oom);
  REQUIRE(s.state().events.size() == 1);
  CHECK(s.state().events[0].line == 2);
  s.feed("half a li");
  s.restart();  // truncated under us: the half line is gone with the old text
  CHECK(s.pending() == 0);
  s.feed(oom);
  REQUIRE(s.state().events.size() == 2);
  CHECK(s.state().events[1].line == 0);
  CHECK(s.lines() == 1);
}

TEST_CASE("a line that never ends is scanned at the bound, so memory stays bounded", "[stream]") {
  analysis::StreamScan s(test::builtin_catalog(), 0);
  std::string blob(analysis::StreamScan::kMaxPendingBytes / 4, 'x');
  for (int i = 0; i < 8; ++i) s.feed(blob);
  CHECK(s.pending() < analysis::StreamScan::kMaxPendingBytes);
  for (int i = 0; i < 200; ++i)
    s.feed("NCCL INFO nothing to see here, line " + std::to_string(i) + "\n");
  // What is kept for block context is bounded too.
  CHECK(s.pending() == 0);
}

TEST_CASE("the live job's diagnosis is the one of the finished logs", "[stream]") {
  const auto logs = corpus_logs();
  std::mt19937 rng(7);
  std::size_t with_cause = 0;
  for (std::size_t k = 0; k + 1 < logs.size(); k += 5) {
    const std::string a = test::read_file(logs[k]), b = test::read_file(logs[k + 1]);
    // The finished logs, each scanned whole, as one job (analyze without the paste repair:
    // a live log is written by a program, not pasted).
    analysis::ScanState whole;
    whole.reset(test::builtin_catalog());
    analysis::append_scan(whole, whole_scan(a), 0, 0);
    analysis::append_scan(whole, whole_scan(b), 0, 1);
    const std::string na = logs[k].string(), nb = logs[k + 1].string();
    std::vector<analysis::FileSummary> files{{na, 0, a.size()}, {nb, 0, b.size()}};
    const analysis::Analysis want =
        analysis::diagnose(test::builtin_catalog(), files, std::move(whole));
    cli::LiveJob job(test::builtin_catalog());
    job.add_input(na);
    job.add_input(nb);
    // The two writers interleave.
    std::size_t at[2] = {0, 0};
    const std::string* t[2] = {&a, &b};
    while (at[0] < a.size() || at[1] < b.size()) {
      int w = at[0] >= a.size() ? 1 : at[1] >= b.size() ? 0 : static_cast<int>(rng() % 2);
      std::size_t n = std::min<std::size_t>(1 + rng() % 500, t[w]->size() - at[w]);
      job.append(static_cast<std::size_t>(w), std::string_view(*t[w]).substr(at[w], n));
      at[w] += n;
    }
    job.finish(0);
    job.finish(1);
    const analysis::Analysis got = job.diagnose();
    INFO(na << " + " << nb);
    REQUIRE(got.diagnoses.size() == want.diagnoses.size());
    CHECK(got.findings.size() == want.findings.size());
    if (want.diagnoses.empty()) continue;
    ++with_cause;
    const auto& gd = got.diagnoses.front();
    const auto& wd = want.diagnoses.front();
    CHECK(gd.category == wd.category);
    CHECK(gd.rule == wd.rule);
    CHECK(gd.confidence == Approx(wd.confidence));
    CHECK(got.events[gd.initiating].line == want.events[wd.initiating].line);
    CHECK(got.events[gd.initiating].file == want.events[wd.initiating].file);
    const std::size_t f = got.events[gd.initiating].file;
    CHECK(got.files[f].name == (f == 0 ? na : nb));
  }
  CHECK(with_cause >= 15);
}

TEST_CASE("a live job past a rule's event bound keeps the events analyze keeps", "[stream]") {
  // Logs of NCCL progress lines: the first past the bound on its own, the second and third
  // written after it, interleaved, an OOM in the third. The later logs' scans stop building
  // what the job can no longer keep, and the job's events and diagnosis stay those of the
  // finished logs as one job.
  auto progress = [](int rank, std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i)
      s += "node0" + std::to_string(rank) + ":1234:1290 [" + std::to_string(rank) +
           "] NCCL INFO comm 0x55d0c8a0 rank " + std::to_string(rank) +
           " nranks 8 cudaDev 3 busId 1b000 - Init COMPLETE\n";
    return s;
  };
  const std::size_t bound = analysis::kMaxEventsPerRule;
  const std::string logs[3] = {progress(0, bound + 100) + progress(0, 300), progress(1, bound + 50),
                               progress(2, 2000) +
                                   "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to "
                                   "allocate 2.00 GiB.\n"};
  analysis::ScanState whole;
  whole.reset(test::builtin_catalog());
  std::vector<analysis::FileSummary> files;
  cli::LiveJob job(test::builtin_catalog());
  for (std::size_t f = 0; f < 3; ++f) {
    analysis::append_scan(whole, whole_scan(logs[f]), 0, f);
    files.push_back({"rank" + std::to_string(f) + ".log", 0, logs[f].size()});
    job.add_input(files.back().name);
  }
  const analysis::Analysis want =
      analysis::diagnose(test::builtin_catalog(), files, std::move(whole));
  // The first log's first part (past the bound), then everything interleaved in pieces of
  // about 50 lines.
  std::size_t at[3] = {progress(0, bound + 100).size(), 0, 0};
  job.append(0, std::string_view(logs[0]).substr(0, at[0]));
  for (bool more = true; more;) {
    more = false;
    for (std::size_t f = 0; f < 3; ++f) {
      std::size_t k = std::min<std::size_t>(5000, logs[f].size() - at[f]);
      if (!k) continue;
      job.append(f, std::string_view(logs[f]).substr(at[f], k));
      at[f] += k;
      more = true;
    }
  }
  for (std::size_t f = 0; f < 3; ++f) job.finish(f);
  const analysis::Analysis got = job.diagnose();
  REQUIRE(got.events.size() == want.events.size());
  for (std::size_t i = 0; i < got.events.size(); ++i) {
    INFO("event " << i);
    CHECK(got.events[i].rule == want.events[i].rule);
    CHECK(got.events[i].file == want.events[i].file);
    CHECK(got.events[i].line == want.events[i].line);
  }
  REQUIRE(!got.diagnoses.empty());
  CHECK(got.diagnoses.front().category == "gpu-oom");
  CHECK(got.events[got.diagnoses.front().initiating].file == 2);
  // Built in all: the first log's bound and the OOM; the others' progress lines only counted.
  CHECK(job.events_held() < bound + 10);
}
