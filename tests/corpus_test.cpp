// Scores the analysis against real failure logs from public issue trackers (tests/corpus,
// copied from shared/corpus with each case's source in its expected.json). Each case counts
// for the category when the top diagnosis names one of `accept`, and for the initiating
// line when the top diagnosis's initiating line is one of `decisive_lines`. Cases whose
// expected category is `none` count for the line when no diagnosis is made.
// Fails below 90% on either score.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/analyze.hpp"
#include "cli/rule_set.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  auto issp = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!s.empty() && issp(s.back())) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && issp(s[i])) ++i;
  return s.substr(i);
}

// The corpus sometimes shortens a decisive line (a "< truncated >" marker in the log);
// accept either containing the other once both are trimmed.
bool same_line(const std::string& ours, const std::string& expected) {
  std::string a = trim(ours), b = trim(expected);
  if (a.empty() || b.empty()) return false;
  return a == b || a.find(b) != std::string::npos || b.find(a) != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ff_corpus_test CORPUS_DIR\n";
    return 2;
  }
  auto loaded = ff::cli::load_catalog({});
  for (const auto& p : loaded.problems) std::cerr << "rule problem: " << p.to_string() << "\n";
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(argv[1]))
    if (e.is_directory() && fs::exists(e.path() / "expected.json")) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  int cat_ok = 0, line_ok = 0, line_total = 0;
  for (const auto& c : cases) {
    json expected = json::parse(read_file(c / "expected.json"));
    std::string log = read_file(c / "log.txt");
    ff::analysis::LogInput in{(c / "log.txt").string(), log};
    auto a = ff::analysis::analyze(loaded.catalog, std::span(&in, 1));
    std::vector<std::string> accept = expected.value("accept", std::vector<std::string>{});
    std::string want = expected["category"];
    if (accept.empty()) accept.push_back(want);
    std::string got = a.diagnoses.empty() ? "none" : a.diagnoses.front().category;
    bool cok = std::find(accept.begin(), accept.end(), got) != accept.end();
    cat_ok += cok;
    std::vector<std::string> decisive = expected.value("decisive_lines", std::vector<std::string>{});
    bool lok = false;
    std::string got_line;
    if (!a.diagnoses.empty()) got_line = a.events[a.diagnoses.front().initiating].text;
    if (decisive.empty()) {
      lok = a.diagnoses.empty();
    } else {
      for (const auto& d : decisive) lok = lok || same_line(got_line, d);
    }
    ++line_total;
    line_ok += lok;
    std::cout << (cok ? "ok  " : "BAD ") << (lok ? "ok  " : "BAD ") << c.filename().string()
              << ": want " << want << ", got " << got;
    if (!lok) std::cout << "\n      line: " << got_line.substr(0, 160);
    std::cout << "\n";
  }
  int n = static_cast<int>(cases.size());
  std::cout << "top-1 category " << cat_ok << "/" << n << ", initiating line " << line_ok << "/"
            << line_total << "\n";
  bool pass = n > 0 && cat_ok * 10 >= n * 9 && line_ok * 10 >= line_total * 9;
  std::cout << (pass ? "corpus: PASS" : "corpus: FAIL (below 90%)") << "\n";
  return pass ? 0 : 1;
}
