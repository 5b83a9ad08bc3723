// Summaries (report/summary.hpp): a job's files summarised in groups and merged give the
// diagnosis one run over all the files gives (the whole JSON report, line numbers and file
// names included); the bound keeps a summary small whatever the log size; a broken summary is
// an error naming the place.
#include "report/summary.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "analysis/scan.hpp"
#include "builtin_catalog.hpp"
#include "cli/file_span.hpp"
#include "cli/input_files.hpp"
#include "cli/scan_inputs.hpp"
#include "report/report.hpp"

using namespace ff;
namespace fs = std::filesystem;

namespace {

const analysis::Catalog& catalog() {
  return test::builtin_catalog();
}

std::vector<cli::InputFile> open(const std::vector<std::string>& paths) {
  std::vector<cli::InputFile> inputs;
  cli::InputError err;
  INFO(err.path << ": " << err.message);
  REQUIRE(cli::open_inputs(paths, inputs, err));
  return inputs;
}

cli::ScanOptions options() {
  cli::ScanOptions so;
  so.pieces.threads = 2;
  return so;
}

// One run over all the files, as `firstfault analyze --format json` renders it.
nlohmann::json one_run(const std::vector<std::string>& paths) {
  auto inputs = open(paths);
  return report::to_json(catalog(), cli::analyze_inputs(catalog(), inputs, options()));
}

report::Summary summarise(const std::vector<std::string>& paths) {
  auto inputs = open(paths);
  cli::ScannedJob job = cli::scan_job(catalog(), inputs, {}, options());
  std::string text = report::write_summary(catalog(), job.files, job.state, "node-x");
  REQUIRE(report::looks_like_summary(text));
  auto read = report::read_summary(catalog(), text);
  if (auto* e = std::get_if<report::SummaryError>(&read)) FAIL(e->place << ": " << e->message);
  return std::move(std::get<report::Summary>(read));
}

// The paths cut into `groups` consecutive groups, each summarised, the summaries merged.
nlohmann::json merged(const std::vector<std::string>& paths, std::size_t groups) {
  std::vector<cli::SummaryInput> summaries;
  std::size_t per = (paths.size() + groups - 1) / groups;
  for (std::size_t g = 0; g * per < paths.size(); ++g) {
    std::vector<std::string> part(
        paths.begin() + static_cast<std::ptrdiff_t>(g * per),
        paths.begin() + static_cast<std::ptrdiff_t>(std::min(paths.size(), (g + 1) * per)));
    summaries.push_back({0, summarise(part)});
  }
  cli::ScannedJob job = cli::scan_job(catalog(), {}, std::move(summaries), options());
  return report::to_json(catalog(),
                         analysis::diagnose(catalog(), std::move(job.files), std::move(job.state)));
}

void require_same(const nlohmann::json& one, const nlohmann::json& many) {
  CHECK(one["files"] == many["files"]);
  REQUIRE(one["diagnoses"].size() == many["diagnoses"].size());
  for (std::size_t i = 0; i < one["diagnoses"].size(); ++i) {
    const auto& a = one["diagnoses"][i];
    const auto& b = many["diagnoses"][i];
    INFO("diagnosis " << i << ": " << a["category"] << " at " << a["initiating"].dump());
    CHECK(a["category"] == b["category"]);
    CHECK(a["initiating"] == b["initiating"]);
    CHECK(a["confidence"] == b["confidence"]);
    CHECK(a["collateral"] == b["collateral"]);
    CHECK(a["checks"] == b["checks"]);
    CHECK(a == b);  // everything else: evidence, reasoning, verdict
  }
  CHECK(one["verdict"] == many["verdict"]);
  CHECK(one["findings"] == many["findings"]);
  CHECK(one["only_victims"] == many["only_victims"]);
  CHECK(one["context"] == many["context"]);
}

std::vector<fs::path> corpus_logs(const char* set = "corpus") {
  std::vector<fs::path> logs;
  for (const auto& e : fs::directory_iterator(fs::path(FF_TEST_DATA) / ".." / set))
    if (fs::exists(e.path() / "log.txt")) logs.push_back(e.path() / "log.txt");
  std::sort(logs.begin(), logs.end());
  REQUIRE(logs.size() >= 10);
  return logs;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("ff-summary-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("summary: every corpus and validation log's summary gives its diagnosis", "[summary]") {
  for (const char* set : {"corpus", "validation"})
    for (const auto& log : corpus_logs(set)) {
      INFO(log.string());
      std::vector<std::string> paths{log.string()};
      require_same(one_run(paths), merged(paths, 1));
    }
}

TEST_CASE("summary: a job's files summarised in groups and merged give one run's diagnosis",
          "[summary]") {
  // The corpus's logs as the files of one job, and a big file in which a context rule and a
  // symptom rule fire more often than the scan keeps events (the caps fall inside a group).
  TempDir dir;
  std::vector<std::string> paths;
  for (const auto& log : corpus_logs()) paths.push_back(log.string());
  std::string big;
  for (std::size_t k = 0; k < analysis::kMaxEventsPerRule + 500; ++k) {
    big += "gpu-node-" + std::to_string(k % 8) + ":1234:1250 [" + std::to_string(k % 8) +
           "] NCCL INFO NVLS multicast support is not available on dev " + std::to_string(k % 8) +
           "\n";
    if (k % 2 == 0)
      big += "[rank" + std::to_string(k % 64) +
             "]:[E1126 02:14:31.000001 ProcessGroupNCCL.cpp:632] [Rank " + std::to_string(k % 64) +
             "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9000, "
             "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600001 "
             "milliseconds before timing out.\n";
  }
  const auto middle = static_cast<std::ptrdiff_t>(paths.size() / 2);
  for (const char* name : {"big2.log", "big.log"}) {
    paths.insert(paths.begin() + middle, (dir.path / name).string());
    std::ofstream(paths[static_cast<std::size_t>(middle)], std::ios::binary) << big;
  }

  const nlohmann::json one = one_run(paths);
  REQUIRE_FALSE(one["diagnoses"].empty());
  SECTION("two groups") {
    require_same(one, merged(paths, 2));
  }
  SECTION("seven groups") {
    require_same(one, merged(paths, 7));
  }
  SECTION("one file per group") {
    require_same(one, merged(paths, paths.size()));
  }
}

TEST_CASE("summary: bounded whatever the log size", "[summary]") {
  TempDir dir;
  // 50,000 context lines (an NCCL_DEBUG=INFO job's transport listings) around one failure.
  std::string log;
  for (std::size_t k = 0; k < 50000; ++k) {
    log += "gpu-node-001:1234:1250 [" + std::to_string(k % 8) +
           "] NCCL INFO NET/IB : Using [0]mlx5_" + std::to_string(k % 8) +
           ":1/IB ; OOB eth0:10.1.0." + std::to_string(k % 200) + "<0>\n";
    if (k == 37000)
      log +=
          "[rank3]:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
          "GPU 3 has a total capacity of 79.11 GiB of which 1.20 GiB is free.\n";
  }
  std::string path = (dir.path / "node.log").string();
  std::ofstream(path, std::ios::binary) << log;
  auto inputs = open({path});
  cli::ScannedJob job = cli::scan_job(catalog(), inputs, {}, options());
  std::string text = report::write_summary(catalog(), job.files, job.state, "node-x");
  INFO("log " << log.size() << " bytes, summary " << text.size() << " bytes");
  CHECK(text.size() < 64 * 1024);
  auto s = std::get<report::Summary>(report::read_summary(catalog(), text));
  std::size_t hits = 0;
  for (std::size_t h : s.state.rule_hits) hits += h;
  CHECK(hits > 50000);  // every hit still counted
  CHECK(s.state.events.size() < 200);
  require_same(one_run({path}), merged({path}, 1));
}

TEST_CASE("summary: broken summaries are errors naming the place", "[summary]") {
  auto error = [](const std::string& text) {
    auto r = report::read_summary(catalog(), text);
    REQUIRE(std::holds_alternative<report::SummaryError>(r));
    return std::get<report::SummaryError>(r);
  };
  const std::string head =
      "{\"firstfault_summary\": 1, \"files\": [{\"path\": \"a.log\", \"lines\": 9, \"bytes\": "
      "90}], ";
  auto e = error("{\"firstfault_summary\": 2, \"files\": [], \"events\": []}");
  CHECK(e.place == "/firstfault_summary");
  CHECK(e.message.find("version 2") != std::string::npos);
  e = error("{\"firstfault_summary\": 1,\n \"files\": [}");
  CHECK(e.place == "2:12");
  e = error(
      head +
      "\"events\": [{\"file\": 0, \"line\": 3, \"rule\": \"no-such-rule\", \"text\": \"x\"}]}");
  CHECK(e.place == "/events/0/rule");
  CHECK(e.message.find("no-such-rule") != std::string::npos);
  e = error(head +
            "\"events\": [{\"file\": 1, \"line\": 3, \"rule\": \"cuda-out-of-memory\", \"text\": "
            "\"x\"}]}");
  CHECK(e.place == "/events/0/file");
  e = error(head +
            "\"events\": [{\"file\": 0, \"line\": -3, \"rule\": \"cuda-out-of-memory\", \"text\": "
            "\"x\"}]}");
  CHECK(e.place == "/events/0/line");
  e = error(
      head +
      "\"events\": [{\"file\": 0, \"line\": 3, \"rule\": \"cuda-out-of-memory\", \"text\": \"x\", "
      "\"source\": {\"time_kind\": \"sundial\", \"time\": 1}}]}");
  CHECK(e.place == "/events/0/source/time_kind");
  e = error(head + "\"rule_hits\": {\"cuda-out-of-memory\": \"many\"}, \"events\": []}");
  CHECK(e.place == "/rule_hits/cuda-out-of-memory");
  e = error(head +
            "\"checks_seen\": {\"cuda-out-of-memory\": [true, true, true, true, true, true, "
            "true]}, \"events\": []}");
  CHECK(e.place == "/checks_seen/cuda-out-of-memory");
  e = error(head + "\"events\": {}}");
  CHECK(e.place == "/events");
  e = error("{\"firstfault_summary\": 1, \"events\": []}");
  CHECK(e.place == "/");
  CHECK(e.message.find("files") != std::string::npos);

  // A well-formed one reads, and its events point at the file and line it names.
  auto ok = report::read_summary(
      catalog(), head +
                     "\"events\": [{\"file\": 0, \"line\": 3, \"rule\": \"cuda-out-of-memory\", "
                     "\"text\": \"CUDA out of memory\", \"source\": {\"rank\": 5}}]}");
  REQUIRE(std::holds_alternative<report::Summary>(ok));
  const auto& s = std::get<report::Summary>(ok);
  REQUIRE(s.state.events.size() == 1);
  CHECK(s.state.events[0].line == 2);
  CHECK(s.files[0].name == "a.log");
  CHECK(s.state.events[0].source.rank == 5);
}

TEST_CASE("summary: recognised by content, not mistaken for logs", "[summary]") {
  CHECK(report::looks_like_summary("\xEF\xBB\xBF  {\n\"firstfault_summary\": 1}"));
  CHECK_FALSE(
      report::looks_like_summary("2024-01-01 firstfault_summary {\"firstfault_summary\": 1}"));
  CHECK_FALSE(report::looks_like_summary("{\"communicators\": []}"));
  CHECK_FALSE(report::looks_like_summary(""));
  // The fuzz seeds (tests/data/summary, written by --summary) are summaries of this version.
  int seeds = 0;
  for (const auto& e : fs::directory_iterator(fs::path(FF_TEST_DATA) / "summary")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(e.path().string());
    CHECK(report::looks_like_summary(text));
    auto r = report::read_summary(catalog(), text);
    CHECK(std::holds_alternative<report::Summary>(r));
    ++seeds;
  }
  CHECK(seeds >= 2);
}

namespace {

// `firstfault analyze --summary` over `paths`, read back: the file spans included.
report::Summary summarise_with_spans(const std::vector<std::string>& paths,
                                     std::vector<cli::SummaryInput> summaries = {}) {
  auto inputs = open(paths);
  cli::ScanOptions so = options();
  so.file_spans = true;
  cli::ScannedJob job = cli::scan_job(catalog(), inputs, std::move(summaries), so);
  std::string text = report::write_summary(catalog(), job.files, job.state, "node-x");
  auto read = report::read_summary(catalog(), text);
  if (auto* e = std::get_if<report::SummaryError>(&read)) FAIL(e->place << ": " << e->message);
  return std::move(std::get<report::Summary>(read));
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::string untimed_lines(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += "step " + std::to_string(i) + " loss 2.5\n";
  return s;
}

}  // namespace

TEST_CASE("summary: each file's first and last timestamps, rank and host", "[summary]") {
  TempDir dir;
  // Untimed lines before the first timestamp and after the last, a timed line in the middle
  // that neither end reaches, colour codes and a '\r' on the timed lines, and the events of
  // one rank on one host.
  const std::string timed =
      untimed_lines(5) + "\x1b[32m2024-05-01T12:00:01.250Z [rank3]: starting\x1b[0m\r\n" +
      untimed_lines(200) + "2024-05-01T12:30:00.000Z [rank3]: in the middle\n" +
      untimed_lines(200) +
      "[rank3]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 "
      "has a total capacity of 79.11 GiB of which 1.20 GiB is free.\n"
      "gpu-node-07:4411:4490 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.7<0>\n"
      "[1118468.873266] nvidia 0000:0a:00.0: AMD-Vi: Event logged\n" +
      untimed_lines(3);
  write_file(dir.path / "timed.log", timed);
  write_file(dir.path / "untimed.log", untimed_lines(20));
  // A file whose only timestamp lies past the first kSpanLines lines and before the last.
  write_file(dir.path / "middle.log", untimed_lines(cli::kSpanLines + 10) +
                                          "2024-05-01 12:00:01,250 INFO hello\n" +
                                          untimed_lines(cli::kSpanLines + 10));

  report::Summary s =
      summarise_with_spans({(dir.path / "timed.log").string(), (dir.path / "untimed.log").string(),
                            (dir.path / "middle.log").string()});
  REQUIRE(s.files.size() == 3);
  const auto& t = s.files[0];
  CHECK(t.first_time.kind == analysis::TimeKind::kWallClock);
  CHECK(t.first_time.time == Approx(1714564801.25).margin(1e-3));
  CHECK(t.last_time.kind == analysis::TimeKind::kKernelUptime);
  CHECK(t.last_time.time == Approx(1118468.873266).margin(1e-6));
  REQUIRE(t.rank);
  CHECK(*t.rank == 3);
  CHECK(t.host == "gpu-node-07");
  for (std::size_t i : {1, 2}) {
    INFO(s.files[i].name);
    CHECK(s.files[i].first_time.kind == analysis::TimeKind::kNone);
    CHECK(s.files[i].last_time.kind == analysis::TimeKind::kNone);
    CHECK(!s.files[i].rank);
    CHECK(s.files[i].host.empty());
  }

  // Events of two ranks: no rank named.
  write_file(dir.path / "two.log",
             "[rank0]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
             "[rank1]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n");
  report::Summary two = summarise_with_spans({(dir.path / "two.log").string()});
  REQUIRE(two.files.size() == 1);
  CHECK(!two.files[0].rank);

  // A merge (a summary of summaries, with a log between them) keeps each file's span.
  std::vector<cli::SummaryInput> inputs;
  inputs.push_back({0, s});
  report::Summary merged_s =
      summarise_with_spans({(dir.path / "two.log").string()}, {{0, std::move(inputs[0].summary)}});
  REQUIRE(merged_s.files.size() == 4);
  const auto& m = merged_s.files[0];
  CHECK(m.first_time.kind == t.first_time.kind);
  CHECK(m.first_time.time == t.first_time.time);
  CHECK(m.last_time.kind == t.last_time.kind);
  CHECK(m.last_time.time == t.last_time.time);
  REQUIRE(m.rank);
  CHECK(*m.rank == 3);
  CHECK(m.host == "gpu-node-07");
  CHECK(merged_s.files[1].first_time.kind == analysis::TimeKind::kNone);
  CHECK(!merged_s.files[3].rank);  // the log scanned at the merge: its own events
}

TEST_CASE("summary: a file's time span is refused when malformed", "[summary]") {
  auto bad = [](const std::string& file) {
    std::string text = "{\"firstfault_summary\": 1, \"files\": [" + file + "], \"events\": []}";
    auto read = report::read_summary(catalog(), text);
    auto* e = std::get_if<report::SummaryError>(&read);
    REQUIRE(e);
    return e->place;
  };
  CHECK(bad(R"({"path":"a","lines":1,"bytes":1,"first_time":{"kind":"lunar","time":1}})") ==
        "/files/0/first_time/kind");
  CHECK(bad(R"({"path":"a","lines":1,"bytes":1,"last_time":{"kind":"wall-clock"}})") ==
        "/files/0/last_time");
  CHECK(bad(R"({"path":"a","lines":1,"bytes":1,"last_time":{"kind":"wall-clock","time":"x"}})") ==
        "/files/0/last_time/time");
  CHECK(bad(R"({"path":"a","lines":1,"bytes":1,"rank":"3"})") == "/files/0/rank");
  CHECK(bad(R"({"path":"a","lines":1,"bytes":1,"host":4})") == "/files/0/host");
}
