// The CLI cuts inputs into windows and scans them on several threads; the answer must be
// the one a single sequential scan of each whole file gives, whatever the window size and
// the number of threads: same events (line numbers, offsets, captures), same per-rule
// counts and caps, same checks, same diagnoses.
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "builtin_catalog.hpp"
#include "analysis/analyze.hpp"
#include "analysis/blocks.hpp"
#include "analysis/line_source.hpp"
#include "analysis/scan.hpp"
#include "cli/input_files.hpp"
#include "cli/rule_set.hpp"
#include "cli/scan_inputs.hpp"
#include "parallel/parallel_scan.hpp"

using namespace ff;
namespace fs = std::filesystem;

namespace {

const analysis::Catalog& catalog() { return test::builtin_catalog(); }

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Every corpus log (real failures) as one input each, and one big input made of all of
// them, with coloured lines, CRLF line ends and one rule firing more often than it keeps
// events, so the cap falls inside a later window.
std::vector<std::string> job_inputs(const fs::path& dir) {
  std::vector<fs::path> logs;
  for (const auto& e : fs::directory_iterator(fs::path(FF_TEST_DATA) / ".." / "corpus"))
    if (fs::exists(e.path() / "log.txt")) logs.push_back(e.path() / "log.txt");
  std::sort(logs.begin(), logs.end());
  REQUIRE(logs.size() >= 10);
  std::vector<std::string> paths;
  std::string big;
  for (std::size_t i = 0; i < logs.size(); ++i) {
    std::string text = read(logs[i]);
    paths.push_back((dir / ("rank-" + std::to_string(i) + ".log")).string());
    std::ofstream(paths.back(), std::ios::binary) << text;
    big += text;
    if (!big.empty() && big.back() != '\n') big += '\n';
    for (std::size_t k = 0; k < analysis::kMaxEventsPerRule / 4; ++k) {
      big += "node-" + std::to_string(k % 8) + ":1234:1250 [" + std::to_string(k % 8) +
             "] NCCL INFO NVLS multicast support is not available on dev " + std::to_string(k % 8) +
             (k % 3 ? "\n" : "\r\n");
      if (k % 5 == 0) big += "[rank" + std::to_string(k % 64) + "]:\x1b[32m{'loss': 2.5}\x1b[0m\n";
    }
  }
  paths.push_back((dir / "all.log").string());
  std::ofstream(paths.back(), std::ios::binary) << big;
  return paths;
}

analysis::Analysis analyze(const std::vector<std::string>& paths, unsigned threads,
                           std::size_t window) {
  std::vector<cli::InputFile> inputs;
  cli::InputError err;
  REQUIRE(cli::open_inputs(paths, inputs, err));
  cli::ScanOptions so;
  so.pieces.threads = threads;
  so.pieces.max_piece = window;
  so.strategy = analysis::ScanStrategy::kPrefilter;
  return cli::analyze_inputs(catalog(), inputs, so);
}

void require_same_events(const std::vector<analysis::Event>& a,
                         const std::vector<analysis::Event>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto& x = a[i];
    const auto& y = b[i];
    INFO("event " << i << ": " << x.text);
    CHECK(x.file == y.file);
    CHECK(x.line == y.line);
    CHECK(x.offset == y.offset);
    CHECK(x.rule == y.rule);
    CHECK(x.text == y.text);
    CHECK(x.source.rank == y.source.rank);
    CHECK(x.captures.size() == y.captures.size());
    CHECK(x.match_begin == y.match_begin);
  }
}

void require_same(const analysis::Analysis& a, const analysis::Analysis& b) {
  REQUIRE(a.files.size() == b.files.size());
  for (std::size_t i = 0; i < a.files.size(); ++i) CHECK(a.files[i].lines == b.files[i].lines);
  CHECK(a.rule_hits == b.rule_hits);
  REQUIRE(a.counted.size() == b.counted.size());
  for (std::size_t i = 0; i < a.counted.size(); ++i) {
    CHECK(a.counted[i].file == b.counted[i].file);
    CHECK(a.counted[i].rule == b.counted[i].rule);
    CHECK(a.counted[i].count == b.counted[i].count);
  }
  require_same_events(a.events, b.events);
  REQUIRE(a.diagnoses.size() == b.diagnoses.size());
  for (std::size_t i = 0; i < a.diagnoses.size(); ++i) {
    CHECK(a.diagnoses[i].category == b.diagnoses[i].category);
    CHECK(a.diagnoses[i].initiating == b.diagnoses[i].initiating);
    CHECK(a.diagnoses[i].checks.size() == b.diagnoses[i].checks.size());
  }
}

}  // namespace

TEST_CASE("scan pieces: windows and threads do not change the answer", "[scan]") {
  fs::path dir = fs::temp_directory_path() / ("ff-pieces-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto paths = job_inputs(dir);
  auto whole = analyze(paths, 1, std::size_t{1} << 30);
  // The job is not trivial: the big input reaches the cap, real failures are diagnosed.
  const auto* nvls = catalog().find("nccl-nvls-unavailable");
  REQUIRE(nvls);
  std::size_t nvls_index = static_cast<std::size_t>(nvls - catalog().rules().data());
  CHECK(whole.rule_hits[nvls_index] > analysis::kMaxEventsPerRule);
  // A context rule: past its first events in each input, only counted (the cap of the job
  // falls inside the big input, so its count stops there).
  REQUIRE(analysis::is_context_rule(*nvls));
  CHECK_FALSE(whole.counted.empty());
  CHECK_FALSE(whole.diagnoses.empty());
  std::size_t total_lines = 0;
  for (const auto& f : whole.files) total_lines += f.lines;
  CHECK(total_lines > 20000);

  SECTION("two threads, 64 KiB windows") {
    require_same(whole, analyze(paths, 2, 64 << 10));
  }
  SECTION("three threads, windows shorter than many lines") {
    require_same(whole, analyze(paths, 3, 333));
  }
  SECTION("one thread, 4 KiB windows") {
    require_same(whole, analyze(paths, 1, 4096));
  }
  fs::remove_all(dir);
}

TEST_CASE("scan pieces: context rules keep their first events per input and count the rest",
          "[scan]") {
  // Two inputs: the first has more NVLS context lines than an input keeps, the second fewer
  // than that but enough to reach the job's cap of the rule.
  const auto* nvls = catalog().find("nccl-nvls-unavailable");
  REQUIRE(nvls);
  REQUIRE(analysis::is_context_rule(*nvls));
  const std::size_t rule = static_cast<std::size_t>(nvls - catalog().rules().data());
  std::string line =
      "node1:2231:2231 [0] NCCL INFO NVLS multicast support is not available on dev 0\n";
  const std::size_t first_hits = analysis::kMaxEventsPerRule - 30;
  std::string a, b;
  for (std::size_t i = 0; i < first_hits; ++i) a += line;
  for (std::size_t i = 0; i < 80; ++i) b += line;
  std::vector<analysis::LogInput> in{{"a.log", a}, {"b.log", b}};
  auto job = analysis::analyze(catalog(), in);
  CHECK(job.rule_hits[rule] == first_hits + 80);
  std::size_t in_a = 0, in_b = 0;
  for (const auto& e : job.events)
    if (e.rule == rule) (e.file == 0 ? in_a : in_b) += 1;
  CHECK(in_a == analysis::kContextEventsKept);
  CHECK(in_b == 30);  // the job keeps (and counts) no more than kMaxEventsPerRule of a rule
  REQUIRE(job.counted.size() == 1);
  CHECK(job.counted[0].file == 0);
  CHECK(job.counted[0].rule == rule);
  CHECK(job.counted[0].count == first_hits - analysis::kContextEventsKept);
  // The first context lines of the job are the ones a report lists.
  REQUIRE(job.context.size() == in_a + in_b);
  CHECK(job.events[job.context.front()].line == 0);
}

TEST_CASE("scan pieces: appending keeps each rule's first events", "[scan]") {
  analysis::ScanState job, a, b;
  job.reset(catalog());
  a.reset(catalog());
  b.reset(catalog());
  // A rule that keeps kMaxEventsPerRule events (not a context rule, which keeps fewer).
  const auto& rules = catalog().rules();
  std::size_t rule = 0;
  while (rule < rules.size() && analysis::is_context_rule(rules[rule])) ++rule;
  REQUIRE(rule < rules.size());
  auto event = [&](std::size_t line) {
    analysis::Event e;
    e.rule = rule;
    e.line = line;
    return e;
  };
  for (std::size_t i = 0; i + 1 < analysis::kMaxEventsPerRule; ++i) a.events.push_back(event(i));
  // a counted hits beyond the cap (its events were capped): b's come after them, so none fit.
  a.rule_hits[rule] = analysis::kMaxEventsPerRule + 10;
  a.lines = 100000;
  b.events = {event(0), event(1)};
  b.rule_hits[rule] = 2;
  b.lines = 5;
  analysis::append_scan(job, std::move(a), 0);
  REQUIRE(job.events.size() == analysis::kMaxEventsPerRule - 1);
  analysis::append_scan(job, std::move(b), 100000);
  CHECK(job.events.size() == analysis::kMaxEventsPerRule - 1);
  CHECK(job.rule_hits[rule] == analysis::kMaxEventsPerRule + 12);
  CHECK(job.lines == 100005);

  analysis::ScanState fresh, c;
  fresh.reset(catalog());
  c.reset(catalog());
  c.events = {event(3), event(9)};
  c.rule_hits[rule] = 2;
  analysis::append_scan(fresh, std::move(c), 40);
  REQUIRE(fresh.events.size() == 2);
  CHECK(fresh.events[0].line == 43);
  CHECK(fresh.events[1].line == 49);
}

TEST_CASE("scan pieces: a source read into a buffer scans as its mapping does", "[scan]") {
  // The CLI reads big files with pread() into a small buffer, scanned a chunk at a time
  // (cut after the last line end), and reads block context from the mapping. The answer must
  // be the one the mapping gives: a line longer than the buffer, CRLF pairs and colour codes
  // at every position, events near chunk ends that look back across them. A read that comes
  // up short (the file shrank) makes the piece be scanned from the mapping again.
  std::string text;
  std::size_t i = 0;
  for (const auto& e : fs::directory_iterator(fs::path(FF_TEST_DATA) / ".." / "corpus")) {
    if (!fs::exists(e.path() / "log.txt")) continue;
    std::string log = read(e.path() / "log.txt");
    if (!log.empty() && log.back() != '\n') log += '\n';
    for (int copy = 0; copy < 20; ++copy) {
      text += log;
      text += "node-" + std::to_string(i % 8) +
              ":1:1 [0] NCCL INFO NVLS multicast support is not available on dev 0" +
              (i % 3 ? "\n" : "\r\n");
      if (i % 7 == 0) text += "[rank" + std::to_string(i % 64) + "]:\x1b[32m{'loss': 2.5}\x1b[0m\n";
      ++i;
    }
    if (i == 20 * 5) text += "x" + std::string(700 << 10, 'y') + " Segmentation fault\n";
  }
  REQUIRE(text.size() > (std::size_t{2} << 20));  // several pieces, many chunks

  auto scan = [&](bool with_read, std::size_t short_after, unsigned threads) {
    parallel::ScanSource src;
    src.text = text;
    src.strategy = analysis::ScanStrategy::kPrefilter;
    std::atomic<std::size_t> reads{0};
    if (with_read)
      src.read = [&](std::size_t at, char* buffer, std::size_t len) -> std::size_t {
        if (reads++ == short_after) len /= 2;
        std::memcpy(buffer, text.data() + at, len);
        return len;
      };
    parallel::ScanOptions options;
    options.threads = threads;
    options.max_piece = std::size_t{1} << 20;
    analysis::ScanState state;
    state.reset(catalog());
    auto lines = parallel::scan(catalog(), {src}, state, options);
    if (with_read) CHECK(reads > 4);  // the buffer was used
    return std::make_pair(lines, std::move(state));
  };
  auto [lines, mapped] = scan(false, 0, 1);
  CHECK(mapped.events.size() > 100);
  for (auto [short_after, threads] : {std::pair<std::size_t, unsigned>{std::size_t(-1), 1},
                                      {std::size_t(-1), 2}, {3, 2}, {0, 1}}) {
    INFO("short read after " << short_after << " reads, " << threads << " threads");
    auto [read_lines, from_buffer] = scan(true, short_after, threads);
    CHECK(read_lines == lines);
    CHECK(from_buffer.lines == mapped.lines);
    CHECK(from_buffer.rule_hits == mapped.rule_hits);
    CHECK(from_buffer.checks_seen == mapped.checks_seen);
    require_same_events(mapped.events, from_buffer.events);
  }
}

TEST_CASE(
    "block context: the lines above an event are read from the copy only where they lie in it",
    "[scan]") {
  // An exception line without the "[rankN]:" prefix takes its rank from the traceback above
  // it; here the prefixed line is three lines up. A scan from copies passes the copy as
  // `near`: where the copy starts below that line, the lines above must come from the
  // whole text, or the rank is lost.
  const std::string text =
      "NCCL INFO Bootstrap : Using eth0\n"
      "[rank3]:Traceback (most recent call last):\n"
      "  File \"/workspace/train.py\", line 12, in <module>\n"
      "    step()\n"
      "RuntimeError: CUDA error: an illegal memory access was encountered\n";
  const std::size_t at = text.find("RuntimeError");
  auto event = [&] {
    analysis::Event ev;
    ev.offset = at;
    ev.text = text.substr(at, text.size() - 1 - at);
    ev.source = analysis::parse_line_source(ev.text);
    return ev;
  };
  analysis::Event whole = event();
  analysis::attribute_from_block(text, whole);
  REQUIRE(whole.source.rank == 3);
  // Copies that start at each line start: below the traceback's head, at it, above it.
  for (std::size_t from = 0; from <= at; from = text.find('\n', from) + 1) {
    INFO("the copy starts at offset " << from);
    const std::string copy = text.substr(from);
    analysis::Event ev = event();
    analysis::attribute_from_block(text, ev, copy, from);
    CHECK(ev.source.rank == whole.source.rank);
    if (from == at) break;
  }
}
