// The prefilter must never change an answer: scanning through it and scanning every line
// give the same events, whatever the line endings, escapes and anchors.
#include "analysis/prefilter.hpp"

#include <catch2/catch.hpp>
#include <cstring>
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

TEST_CASE("Vectorscan is given the part after a pattern's last gap when it starts on a long literal",
          "[prefilter]") {
  // The part after the last top-level gap, leading \\b kept (it reads the same text).
  CHECK(prefilter_factor("(?i:nccl)\\w*\\b[^']*?(?:[Ff]ailure|failed)\\b.*?\\bunhandled cuda error") ==
        "\\bunhandled cuda error");
  CHECK(prefilter_factor("NCCL_NET_PLUGIN.*could not be loaded") == "could not be loaded");
  CHECK(prefilter_factor("a .+ b .* returned non-zero exit status (?P<c>\\d+)") ==
        " returned non-zero exit status (?P<c>\\d+)");
  // Left whole: a short literal after the gap, a top-level alternative, an inline flag that
  // would not reach the part, a gap inside a group, no gap at all.
  CHECK(prefilter_factor("NET/IB ?: Using .*; OOB (?P<iface>ib[\\w.@-]*):") ==
        "NET/IB ?: Using .*; OOB (?P<iface>ib[\\w.@-]*):");
  CHECK(prefilter_factor("x.*could not be loaded|other") == "x.*could not be loaded|other");
  CHECK(prefilter_factor("(?i)x.*could not be loaded") == "(?i)x.*could not be loaded");
  CHECK(prefilter_factor("x(?:a.*could not be loaded)") == "x(?:a.*could not be loaded)");
  CHECK(prefilter_factor("Segmentation fault") == "Segmentation fault");
  // A quantified last character is not part of the literal: "could not" + "s*", 9 characters.
  CHECK(prefilter_factor("x.*could nots*") == "x.*could nots*");
  // Whatever the part, the prefilter still reports the lines the whole pattern matches.
  std::vector<std::string> pats = {"(?i:nccl)\\w*\\b[^']*?(?:failed)\\b.*?\\bunhandled cuda error"};
  auto pf = Prefilter::build(pats, nullptr);
  REQUIRE(pf);
  Prefilter::Session session(*pf);
  std::vector<std::size_t> ends;
  REQUIRE(session.scan("ok\nNCCL x failed: unhandled cuda error\nunhandled cuda errors\n",
                       [&](unsigned, std::size_t end) { ends.push_back(end); }));
  CHECK(ends == std::vector<std::size_t>{38, 59});
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

TEST_CASE("a serialised prefilter loads copied or in place, for its own patterns only", "[prefilter]") {
  std::vector<std::string> pats = {"NCCL WARN (?P<what>.*)", "^Segmentation fault$", "x(?=y)"};
  auto pf = Prefilter::build(pats, nullptr);
  REQUIRE(pf);
  const std::string blob = pf->serialize(pats);
  REQUIRE(!blob.empty());
  // In place needs 64-byte alignment; an unaligned copy of the bytes is copied instead.
  alignas(64) static char aligned[1 << 16];
  REQUIRE(blob.size() <= sizeof aligned);
  std::memcpy(aligned, blob.data(), blob.size());
  std::string unaligned = " " + blob;
  const std::string text = "a NCCL WARN b\nSegmentation fault\r\nxy\nnothing\n";
  auto ids_of = [&](Prefilter& p) {
    Prefilter::Session s(p);
    std::set<std::pair<unsigned, std::size_t>> ids;
    REQUIRE(s.scan(text, [&](unsigned id, std::size_t end) { ids.insert({id, end}); }));
    std::vector<int> line;
    REQUIRE(s.candidates("Segmentation fault", line));
    CHECK(line == std::vector<int>{1});
    return ids;
  };
  const auto expected = ids_of(*pf);
  CHECK(!expected.empty());
  for (auto storage : {Prefilter::Storage::kCopy, Prefilter::Storage::kStatic}) {
    auto loaded = Prefilter::load(std::string_view(aligned, blob.size()), pats, storage);
    REQUIRE(loaded);
    CHECK(ids_of(*loaded) == expected);
    auto moved = Prefilter::load(std::string_view(unaligned).substr(1), pats, storage);
    REQUIRE(moved);
    CHECK(ids_of(*moved) == expected);
  }
  // Other patterns, a truncated blob, a broken magic: refused.
  CHECK(!Prefilter::load(blob, {"NCCL WARN", "^Segmentation fault$", "x(?=y)"}));
  CHECK(!Prefilter::load(std::string_view(blob).substr(0, 40), pats));
  CHECK(!Prefilter::load(std::string_view(blob).substr(0, blob.size() - 1), pats));
  std::string broken = blob;
  broken[0] = 'X';
  CHECK(!Prefilter::load(broken, pats));
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
