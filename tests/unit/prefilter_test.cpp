// The prefilter must never change an answer: scanning through it and scanning every line
// give the same events, whatever the line endings, escapes and anchors.
#include "analysis/prefilter.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <set>

#include "analysis/scan.hpp"
#include "cli/rule_set.hpp"

using namespace ff::analysis;

namespace {

std::vector<std::tuple<std::size_t, std::size_t, std::string>> events_of(const ScanState& s) {
  std::vector<std::tuple<std::size_t, std::size_t, std::string>> out;
  for (const auto& e : s.events) out.emplace_back(e.line, e.rule, e.text);
  return out;
}

ScanState scan(const Catalog& c, std::string_view text, ScanStrategy how) {
  ScanState s;
  s.reset(c);
  scan_text(c, 0, text, 0, 0, s, std::string_view::npos, how);
  return s;
}

}  // namespace

TEST_CASE("anchors also accept a carriage return", "[prefilter]") {
  CHECK(prefilter_pattern("^Segmentation fault$") == "(?:^|\\r)Segmentation fault(?:$|\\r)");
  CHECK(prefilter_pattern("price \\$") == "price \\$");
  CHECK(prefilter_pattern("a\\\\$") == "a\\\\(?:$|\\r)");
  CHECK(prefilter_pattern("[^x]") == "[^x]");
}

TEST_CASE("patterns Vectorscan rejects are approximated, not refused", "[prefilter]") {
  // Vectorscan takes a lookahead only in prefilter mode (RE2 rejects it, but build() is
  // given any pattern). Two are settled by compiling the set again; seven go past the
  // retries to probing every pattern alone. Either way each approximated pattern still
  // reports its lines, and the exact ones keep their anchors.
  for (int n : {2, 7}) {
    std::vector<std::string> pats = {"foo"};
    // Appended: GCC 12 at -O3 reports a false -Wrestrict (PR 105329) in "x" + std::string&&.
    for (int i = 0; i < n; ++i) pats.push_back(std::string("x").append(std::to_string(i)).append("(?=y)"));
    pats.push_back("^bar$");
    std::string why;
    auto pf = Prefilter::build(pats, &why);
    INFO(n << " rejected: " << why);
    REQUIRE(pf);
    Prefilter::Session session(*pf);
    std::set<unsigned> ids;
    REQUIRE(session.scan("foo x1y\nbar\n", [&](unsigned id, std::size_t) { ids.insert(id); }));
    CHECK(ids == std::set<unsigned>{0, 2, static_cast<unsigned>(n) + 1});
    ids.clear();
    REQUIRE(session.scan("a bar b\n", [&](unsigned id, std::size_t) { ids.insert(id); }));
    CHECK(ids.empty());
  }
}

TEST_CASE("prefilter and line-by-line scans agree on the shipped catalog", "[prefilter]") {
  auto loaded = ff::cli::load_catalog({});
  REQUIRE(loaded.catalog.prefilter() != nullptr);
  // Every example line of every rule, joined with every kind of line ending and wrapped in
  // colour codes, prefixes and noise.
  std::vector<std::string> lines;
  for (const auto& r : loaded.catalog.rules())
    for (const auto& e : r.examples_match) lines.push_back(e);
  std::mt19937 rng(42);
  const char* endings[] = {"\n", "\r\n", "\r"};
  const char* noise[] = {"gpu1:12:13 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
                         "[rank3]:{'loss': 1.2345}", "", "\x1b[32mINFO\x1b[0m step 10",
                         "Training:  12%|#   | 118/1000"};
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      text += noise[rng() % 5];
      text += endings[rng() % 3];
    }
    std::string line = lines[i];
    switch (rng() % 4) {
      case 0: line = "\x1b[1;31m" + line + "\x1b[0m"; break;
      case 1: line = "[rank" + std::to_string(rng() % 8) + "]:" + line; break;
      case 2: line = "node7: " + line; break;
      default: break;
    }
    text += line;
    text += endings[rng() % 3];
  }
  auto every = scan(loaded.catalog, text, ScanStrategy::kEveryLine);
  auto pre = scan(loaded.catalog, text, ScanStrategy::kPrefilter);
  CHECK(every.lines == pre.lines);
  CHECK(events_of(every) == events_of(pre));
  CHECK(every.events.size() >= lines.size() / 2);
  CHECK(every.checks_seen == pre.checks_seen);
  // A scan that starts mid-text (the LSP's incremental path) agrees as well.
  std::size_t cut = text.find('\n', text.size() / 2) + 1;
  std::size_t cut_line = 0;
  {
    ScanState head;
    head.reset(loaded.catalog);
    scan_text(loaded.catalog, 0, text, 0, 0, head, cut, ScanStrategy::kEveryLine);
    cut_line = head.lines;
    scan_text(loaded.catalog, 0, text, cut, cut_line, head, std::string_view::npos,
              ScanStrategy::kPrefilter);
    CHECK(events_of(head) == events_of(every));
    CHECK(head.lines == every.lines);
  }
}
