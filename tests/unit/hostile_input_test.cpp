// Hostile input through the library APIs: bytes that are not clean UTF-8 text lines, files
// that change while they are read, rule files and topology files that are broken on purpose,
// and JSON-RPC framing abuse. Each case has a defined outcome: a result or an error.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>

#include <nlohmann/json.hpp>

#include "builtin_catalog.hpp"
#include "analysis/analyze.hpp"
#include "cli/input_files.hpp"
#include "cli/rule_set.hpp"
#include "cli/scan_inputs.hpp"
#include "lsp/transport.hpp"
#include "rules/rule_loader.hpp"
#include "topology/hwloc_loader.hpp"
#include "topology/nccl_topo_parser.hpp"
#include "topology/nvidia_smi_parser.hpp"
#include "topology/xml_reader.hpp"

using namespace ff;
namespace fs = std::filesystem;

namespace {

const char* kOom =
    "[rank5]:torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 1 "
    "has a total capacity of 79.11 GiB of which 1.02 GiB is free.";

const analysis::Catalog& catalog() { return test::builtin_catalog(); }

analysis::Analysis run(std::string_view text) {
  analysis::LogInput in{"hostile.log", text};
  return analysis::analyze(catalog(), std::span(&in, 1));
}

std::string top_category(const analysis::Analysis& a) {
  return a.diagnoses.empty() ? "" : a.diagnoses.front().category;
}

fs::path temp_dir() {
  auto p = fs::temp_directory_path() / ("ff-hostile-" + std::to_string(::getpid()));
  fs::create_directories(p);
  return p;
}

}  // namespace

TEST_CASE("hostile: empty and whitespace-only logs give no diagnosis", "[hostile]") {
  for (std::string_view s : {"", "\n", "\r", "\r\n\r\n", "   \t  "}) {
    auto a = run(s);
    CHECK(a.diagnoses.empty());
  }
}

TEST_CASE("hostile: invalid UTF-8 and NUL bytes around a failure line", "[hostile]") {
  std::string log = "\xff\xfe\xc3(\xa0\xa1\xe2\x28\xa1 \xf0\x28\x8c\x28\n";
  log += std::string("a\0b\0\0c", 6) + "\n";
  log += std::string(kOom) + "\xc3\n";
  log += std::string(1000, '\0') + "\n";
  auto a = run(log);
  CHECK(top_category(a) == "gpu-oom");
  // Only NULs: nothing, and no crash.
  CHECK(run(std::string(100000, '\0')).diagnoses.empty());
}

TEST_CASE("hostile: CRLF, lone CR and tqdm carriage-return storms", "[hostile]") {
  CHECK(top_category(run(std::string("start\r\n") + kOom + "\r\nend\r\n")) == "gpu-oom");
  CHECK(top_category(run(std::string("start\r") + kOom + "\rend\r")) == "gpu-oom");
  std::string storm;
  for (int i = 0; i < 200000; ++i)
    storm += "\r 42%|####      | " + std::to_string(i) + "/1000 [00:01<00:02, 3.14it/s]";
  storm.append("\n").append(kOom).append("\n");  // not "\n" + ...: GCC 12's false -Wrestrict
  auto t0 = std::chrono::steady_clock::now();
  auto a = run(storm);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
  CHECK(top_category(a) == "gpu-oom");
}

TEST_CASE("hostile: ANSI escapes and terminal control sequences", "[hostile]") {
  std::string log = "\x1b[2J\x1b[H\x1b]0;title\x07\x1b[?25l\x1b[31m";
  log += std::string(kOom).substr(0, 20) + "\x1b[0m\x1b[1m" + std::string(kOom).substr(20) + "\x1b[0m\n";
  log += "\x1b[" + std::string(100000, '9') + "\n";  // a CSI that never ends
  log += "\x1b\x1b\x1b\x9b\x08\x7f\x05\n";
  CHECK(top_category(run(log)) == "gpu-oom");
}

TEST_CASE("hostile: a file truncated mid-line still yields its complete lines", "[hostile]") {
  std::string log = std::string(kOom) + "\n[rank0]:[E ProcessGroupNCCL.cpp:1 Watchdog caught coll";
  CHECK(top_category(run(log)) == "gpu-oom");
  CHECK(top_category(run(std::string(kOom).substr(0, 60))).empty() == false);
}

TEST_CASE("hostile: one very long line is scanned in bounded time", "[hostile]") {
  std::string line(20u << 20, 'x');  // 20 MB; the CLI test does 100 MB through the binary
  line += kOom;
  line += "\n";
  auto t0 = std::chrono::steady_clock::now();
  auto a = run(line);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30));
  for (const auto& e : a.events) CHECK(e.text.size() <= analysis::kMaxEventText);
}

TEST_CASE("hostile: a mapped file truncated while it is read is a warning, not SIGBUS", "[hostile]") {
  auto dir = temp_dir();
  auto path = (dir / "shrinking.log").string();
  {
    std::ofstream f(path, std::ios::binary);
    for (int i = 0; i < 20000; ++i) f << "line " << i << " of a log that will be truncated\n";
    f << kOom << "\n";
  }
  std::vector<cli::InputFile> inputs;
  cli::InputError err;
  REQUIRE(cli::open_inputs({path}, inputs, err));
  REQUIRE(inputs.size() == 1);
  std::size_t size = inputs[0].text().size();
  REQUIRE(size > 100000);
  REQUIRE(::truncate(path.c_str(), 4096) == 0);  // keep the first page, lose the rest
  CHECK_FALSE(inputs[0].truncated());
  // Every byte of the mapping is still readable; what was lost reads as NUL.
  std::size_t nul = 0;
  for (char c : inputs[0].text()) nul += c == '\0';
  CHECK(nul >= size - 8192);
  CHECK(inputs[0].truncated());
  // The full scan path of the CLI, multi-threaded, on a file that is gone entirely.
  std::vector<cli::InputFile> again;
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    for (int i = 0; i < 20000; ++i) f << kOom << "\n";
  }
  REQUIRE(cli::open_inputs({path, path}, again, err));
  REQUIRE(::truncate(path.c_str(), 0) == 0);
  cli::ScanOptions so;
  so.pieces.threads = 2;
  auto a = cli::analyze_inputs(catalog(), again, so);
  CHECK(again[0].truncated());
  CHECK(a.files.size() == 2);
  fs::remove_all(dir);
}

TEST_CASE("hostile: rule files that are not JSON or lack fields are refused with the field", "[hostile]") {
  std::vector<rules::RuleProblem> problems;
  analysis::Rule r;
  for (std::string_view text : {"", "{", "[]", "null", "\"rule\"", "{\"id\": 5}", "{\"id\":\"x\"}",
                                "\xff\xfe{}", "{\"id\":\"x\",\"patterns\":\"notalist\"}"}) {
    problems.clear();
    CHECK_FALSE(rules::parse_rule(text, "hostile.json", r, problems));
    REQUIRE_FALSE(problems.empty());
    CHECK(problems[0].to_string().find("hostile.json") != std::string::npos);
  }
  // Deeply nested JSON: an error, not a stack overflow.
  problems.clear();
  std::string deep(100000, '[');
  CHECK_FALSE(rules::parse_rule(deep, "deep.json", r, problems));
}

namespace {

std::string rule_with_pattern(const std::string& pattern) {
  nlohmann::json j = {{"id", "hostile-rule"}, {"category", "shm"}, {"title", "t"}, {"role", "cause"},
                      {"weight", 0.5}, {"patterns", {pattern}}, {"indicates", "i"},
                      {"fix", {{"summary", "s"}}}, {"verify", {{"command", "c"}, {"expect", "e"}}},
                      {"examples", {{"match", {"aaa"}}, {"no_match", {"b"}}}}};
  return j.dump();
}

}  // namespace

TEST_CASE("hostile: regexes RE2 rejects are reported, not fatal", "[hostile]") {
  for (std::string pattern : {"(a", "a{100000}", "(?=lookahead)", "(a)\\1", "[z-a]", "(?<name>x"}) {
    std::vector<rules::RuleProblem> problems;
    analysis::Rule r;
    bool parsed = rules::parse_rule(rule_with_pattern(pattern), "bad.json", r, problems);
    if (parsed) {
      std::vector<analysis::CompileError> errors;
      std::vector<analysis::Rule> rs{r};
      auto c = analysis::Catalog::compile(rs, &errors);
      CHECK(c.rules().empty());
      CHECK_FALSE(errors.empty());
    } else {
      CHECK_FALSE(problems.empty());
    }
  }
}

TEST_CASE("hostile: catastrophic-backtracking regexes run in linear time", "[hostile]") {
  std::vector<rules::RuleProblem> problems;
  analysis::Rule r;
  std::string pattern = "(a+)+$";
  if (!rules::parse_rule(rule_with_pattern(pattern), "evil.json", r, problems)) {
    for (auto& p : problems) UNSCOPED_INFO(p.to_string());
    FAIL("rule did not parse");
  }
  std::vector<analysis::CompileError> errors;
  auto c = analysis::Catalog::compile({r}, &errors);
  REQUIRE(errors.empty());
  std::string log;
  for (int i = 0; i < 200; ++i) log += std::string(5000, 'a') + "!\n";  // never matches at $
  log += std::string(1u << 20, 'a') + "!";
  analysis::LogInput in{"evil.log", log};
  auto t0 = std::chrono::steady_clock::now();
  auto a = analysis::analyze(c, std::span(&in, 1));
  auto took = std::chrono::steady_clock::now() - t0;
  CHECK(took < std::chrono::seconds(5));  // a backtracking engine would not finish
  CHECK(a.diagnoses.empty());
}

TEST_CASE("hostile: nvidia-smi text with missing or broken columns", "[hostile]") {
  const char* cases[] = {
      "",
      "garbage\n\x01\x02\n",
      "\tGPU0\tGPU1\n",                                // header only
      "\tGPU0\tGPU1\tCPU Affinity\nGPU0\tX\n",        // missing columns in the row
      "\tGPU0\tGPU1\nGPU0\tX\tNV4\tNV4\tNV4\tNV4\n",  // too many columns
      "\tGPU0\nGPU7\tBOGUS\n",
      "\tGPU0\tNIC0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tSYS\t0-9999999999\t-5\n",
  };
  for (const char* text : cases) {
    auto r = topology::parse_nvidia_smi(text, "smi.txt");
    CHECK((r.ok() || r.error.has_value()));
    if (!r.ok()) CHECK(r.error->to_string().find("smi.txt") != std::string::npos);
  }
  std::string huge = "\t";
  for (int i = 0; i < 5000; ++i) huge += "GPU" + std::to_string(i) + "\t";
  huge += "\n";
  auto r = topology::parse_nvidia_smi(huge, "huge.txt");
  CHECK((r.ok() || r.error.has_value()));
}

TEST_CASE("hostile: NCCL topology XML that is broken or deeply nested", "[hostile]") {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  const std::string cases[] = {"", "<", "<system", "<system version=\"1\"><cpu></system>",
                               "<system version='1' x=>", "\xff\xfe<system/>", deep,
                               "<system version=\"1\"><gpu dev=\"999999999999999999999\"/></system>"};
  for (const auto& text : cases) {
    auto r = topology::parse_nccl_topo(text, "topo.xml");
    CHECK((r.ok() || r.error.has_value()));
    if (!r.ok()) CHECK(r.error->to_string().find("topo.xml") != std::string::npos);
  }
  topology::XmlError err;
  CHECK(topology::parse_xml(deep, err) == nullptr);
}

TEST_CASE("hostile: hwloc XML that hwloc rejects is an error naming the file", "[hostile]") {
  auto dir = temp_dir();
  const std::string cases[] = {"", "not xml at all", "<?xml version=\"1.0\"?><topology>",
                               "<?xml version=\"1.0\"?><topology><object type=\"Nonsense\"/></topology>",
                               std::string(100000, '<')};
  int i = 0;
  for (const auto& text : cases) {
    auto path = (dir / ("bad" + std::to_string(i++) + ".xml")).string();
    std::ofstream(path, std::ios::binary) << text;
    auto r = topology::load_hwloc_xml(path);
    CHECK_FALSE(r.ok());
    REQUIRE(r.error.has_value());
    CHECK(r.error->to_string().find(path) != std::string::npos);
  }
  auto r = topology::load_hwloc_xml(dir.string());  // a directory
  CHECK_FALSE(r.ok());
  fs::remove_all(dir);
}

TEST_CASE("hostile: JSON-RPC framing abuse keeps the parser bounded", "[hostile]") {
  using lsp::Frame;
  lsp::FrameParser p(1u << 20);
  std::vector<Frame> out;
  // A gigabyte announced: an error, and the body is skipped as it arrives, never buffered.
  p.feed("Content-Length: 1000000000\r\n\r\n", out);
  std::string chunk(1u << 16, 'x');
  for (int i = 0; i < 200; ++i) {
    p.feed(chunk, out);
    REQUIRE(p.buffered() <= (1u << 20));
  }
  bool refused = false;
  for (const auto& f : out) refused |= f.kind == Frame::Kind::kError;
  CHECK(refused);
  // Garbage headers of every kind, then a valid message: it still gets through.
  lsp::FrameParser q;
  out.clear();
  for (std::string_view bad : {"Content-Length: -5\r\n\r\n", "Content-Length: abc\r\n\r\n",
                               "Content-Length: 99999999999999999999999\r\n\r\n",
                               "Content-Type: x\r\n\r\n{}", "\r\n\r\n", "no header at all\n"}) {
    q.feed(bad, out);
  }
  q.feed(std::string(20000, 'h'), out);  // a header line that never ends
  CHECK(q.buffered() <= lsp::kMaxHeaderBytes + 64);
  q.feed(lsp::frame("{\"jsonrpc\":\"2.0\",\"method\":\"x\"}"), out);
  bool got = false;
  for (const auto& f : out) got |= f.kind == Frame::Kind::kMessage && f.body.find("\"x\"") != std::string::npos;
  CHECK(got);
}
