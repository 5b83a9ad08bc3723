// Replays every input the fuzzers ever crashed on (tests/hostile/regressions/<target>/)
// through the fuzz target itself, compiled into the unit tests under another name. A file
// added there by fuzz/run.sh's user becomes a test without further code.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#define LLVMFuzzerTestOneInput ff_fuzz_analyze
#include "../../fuzz/fuzz_analyze.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput ff_fuzz_rule
#include "../../fuzz/fuzz_rule.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput ff_fuzz_topology
#include "../../fuzz/fuzz_topology.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput ff_fuzz_lsp_frames
#include "../../fuzz/fuzz_lsp_frames.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput ff_fuzz_mask
#include "../../fuzz/fuzz_mask.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput ff_fuzz_fix
#include "../../fuzz/fuzz_fix.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput ff_fuzz_lsp_server
#include "../../fuzz/fuzz_lsp_server.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput ff_fuzz_summary
#include "../../fuzz/fuzz_summary.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput ff_fuzz_ras
#include "../../fuzz/fuzz_ras.cpp"
#undef LLVMFuzzerTestOneInput

namespace {

int replay(const std::string& target, int (*fn)(const std::uint8_t*, std::size_t)) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(FF_TEST_DATA) / ".." / "hostile" / "regressions" / target;
  int n = 0;
  if (!fs::is_directory(dir)) return 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(e.path().string());
    CHECK(fn(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()) == 0);
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("hostile: fuzz regressions replay without a crash", "[hostile]") {
  CHECK(replay("rule", ff_fuzz_rule) >= 1);  // the number-overflow crash (json 406)
  replay("analyze", ff_fuzz_analyze);
  replay("topology", ff_fuzz_topology);
  replay("lsp_frames", ff_fuzz_lsp_frames);
  replay("mask", ff_fuzz_mask);
  // An export block lost to a word at line start; a block written between two markers of
  // different ids, which had been paired.
  CHECK(replay("fix", ff_fuzz_fix) >= 3);
  // A server destroyed while its analysis ran posted the result through a null scheduler.
  CHECK(replay("lsp_server", ff_fuzz_lsp_server) >= 3);
  replay("summary", ff_fuzz_summary);
  // A RAS JSON pid of 1.5e39 was converted to long long (undefined; UBSan); a version line
  // with bytes that are not UTF-8 was serialised by nlohmann's throwing default.
  CHECK(replay("ras", ff_fuzz_ras) >= 2);
  // The summary seeds run through the whole target: read, merged twice, written and read
  // again (a summary the writer wrote that the reader refuses traps).
  {
    namespace fs = std::filesystem;
    int seeds = 0;
    for (const auto& e : fs::directory_iterator(fs::path(FF_TEST_DATA) / "summary")) {
      if (e.path().extension() != ".json") continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      CHECK(ff_fuzz_summary(reinterpret_cast<const std::uint8_t*>(data.data()), data.size()) == 0);
      ++seeds;
    }
    CHECK(seeds >= 2);
  }
  // The seeds of each target are valid inputs too: one of each, quickly.
  std::string smi = "\x00\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU1\tNV4\t X \n";
  CHECK(ff_fuzz_topology(reinterpret_cast<const std::uint8_t*>(smi.data()), smi.size()) == 0);
}

TEST_CASE("hostile: a rule file with an out-of-range number is a problem, not a crash",
          "[hostile]") {
  std::vector<ff::rules::RuleProblem> problems;
  ff::analysis::Rule r;
  CHECK_FALSE(
      ff::rules::parse_rule("{\"id\": \"x\", \"weight\": 1e5555555555}", "big.json", r, problems));
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].to_string().find("big.json") != std::string::npos);
}
