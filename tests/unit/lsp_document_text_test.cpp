// Document storage: appends written in place past every snapshot, the line index extended
// from the changed line, and the analyzer resuming from the old last line.
#include <catch2/catch.hpp>
#include <span>
#include <string>
#include <vector>

#include "builtin_catalog.hpp"
#include "analysis/analyze.hpp"
#include "cli/rule_set.hpp"
#include "lsp/document_text.hpp"
#include "lsp/features.hpp"
#include "lsp/text.hpp"
#include "parallel/parallel_scan.hpp"
#include "report/report.hpp"

using namespace ff;
using namespace ff::lsp;

namespace {

const analysis::Catalog& catalog() { return test::builtin_catalog(); }

std::vector<std::size_t> starts(const LineIndex& li) {
  std::vector<std::size_t> out;
  for (std::size_t n = 0; n < li.lines(); ++n) out.push_back(li.line_start(n));
  return out;
}

Text snapshot(const FeatureServer& fs) {
  auto docs = fs.drafts().log_snapshots();
  REQUIRE(docs.size() == 1);
  return docs[0].text;
}

Range at_end() {  // a position past the end: clamped to the end of the document
  return {{1u << 30, 0}, {1u << 30, 0}};
}

std::string report_of(const analysis::Analysis& a) {
  return report::to_json(catalog(), a).dump();
}

}  // namespace

TEST_CASE("document text: an append is written in place, older snapshots keep their length",
          "[lsp]") {
  std::string s = "first\nsec";
  s.reserve(64);
  auto buffer = std::make_shared<TextBuffer>(std::move(s));
  const char* data = buffer->data();
  Text before(buffer, buffer->size());
  REQUIRE(buffer->append("ond\nthird"));
  Text after(buffer, buffer->size());
  CHECK(buffer->data() == data);  // not moved: readers of `before` are unaffected
  CHECK(before.view() == "first\nsec");
  CHECK(after.view() == "first\nsecond\nthird");
  CHECK(after.extends(before));
  CHECK_FALSE(before.extends(after));
  CHECK_FALSE(before == after);
  CHECK(Text(buffer, before.size()) == before);
  // Beyond the capacity nothing is written.
  CHECK_FALSE(buffer->append(std::string(100, 'x')));
  CHECK(buffer->size() == after.size());
  // A text with the same bytes in another buffer is not known to extend it.
  CHECK_FALSE(Text::of("first\nsecond\nthird!").extends(after));
}

TEST_CASE("document text: storage prepared for a message has the room a document gets", "[lsp]") {
  for (std::size_t size : {std::size_t{1} << 20, std::size_t{3} << 20}) {
    std::string s = prepared_text_storage(size);
    CHECK(s.empty());
    CHECK(s.capacity() >= text_capacity_for(size));
    s.append(size, 'x');  // writable, and within the capacity: no reallocation
    CHECK(s.capacity() >= text_capacity_for(size));
  }
}

TEST_CASE("document text: appends through FeatureServer share one buffer; other edits copy",
          "[lsp]") {
  FeatureServer fs(catalog());
  std::string text = "line one\nline t";
  text.reserve(1024);
  fs.open("file:///a.log", "log", 1, std::move(text));
  Text v1 = snapshot(fs);
  // Ends mid-line: the append continues line 1.
  REQUIRE(fs.change("file:///a.log", 2, {{at_end(), "wo\r"}}));
  Text v2 = snapshot(fs);
  CHECK(v2.buffer() == v1.buffer());
  CHECK(v2.extends(v1));
  CHECK(v1.view() == "line one\nline t");  // the snapshot taken before still sees its length
  // The "\r" that ended the text becomes "\r\n": still one line break.
  REQUIRE(fs.change("file:///a.log", 3, {{at_end(), "\nline three"}}));
  Text v3 = snapshot(fs);
  CHECK(v3.extends(v2));
  CHECK(*fs.drafts().text("file:///a.log") == "line one\nline two\r\nline three");
  // Positions after the appends come from the extended line index: line 2 is "line three".
  REQUIRE(fs.change("file:///a.log", 4, {{Range{{2, 5}, {2, 10}}, "3"}}));
  Text v4 = snapshot(fs);
  CHECK(*fs.drafts().text("file:///a.log") == "line one\nline two\r\nline 3");
  CHECK(v4.buffer() != v3.buffer());  // an edit elsewhere: a new buffer
  CHECK_FALSE(v4.extends(v3));
  CHECK(v3.view() == "line one\nline two\r\nline three");  // untouched
  // After that edit, appends are in place again (the copy reserved room).
  REQUIRE(fs.change("file:///a.log", 5, {{at_end(), "\nline 4\n"}}));
  Text v5 = snapshot(fs);
  CHECK(v5.buffer() == v4.buffer());
  CHECK(v5.extends(v4));
  REQUIRE(fs.change("file:///a.log", 6, {{Range{{3, 5}, {3, 6}}, "four"}}));
  CHECK(*fs.drafts().text("file:///a.log") == "line one\nline two\r\nline 3\nline four\n");
  // A whole-text replacement and an append past a full buffer both keep the text right.
  REQUIRE(fs.change("file:///a.log", 7, {{std::nullopt, "x"}}));
  REQUIRE(fs.change("file:///a.log", 8, {{at_end(), std::string(5000, 'y')}}));
  // Not "x" + std::string(...): GCC 12 at -O3 reports a false -Wrestrict (PR 105329).
  CHECK(*fs.drafts().text("file:///a.log") == std::string("x").append(5000, 'y'));
  REQUIRE(fs.change("file:///a.log", 9, {{Range{{0, 1}, {0, 5001}}, "\nz"}}));
  CHECK(*fs.drafts().text("file:///a.log") == "x\nz");
}

TEST_CASE("document text: the line index extended from any split equals one built anew", "[lsp]") {
  const std::vector<std::string> texts = {
      "a\nbb\r\nccc\rdddd\n\n\r\r\n\r\nend",
      "\r\n\r\n\r",
      "no terminator at all",
      std::string(40, 'x') + "\r\n" + std::string(70, 'y') + "\r" + std::string(33, 'z') + "\n",
  };
  for (const auto& full : texts) {
    LineIndex fresh(full);
    for (std::size_t split = 0; split <= full.size(); ++split) {
      INFO("text " << full.size() << " bytes, split at " << split);
      LineIndex li(std::string_view(full).substr(0, split));
      li.extend(full);
      CHECK(li.size() == full.size());
      CHECK(starts(li) == starts(fresh));
      // Twice: a second extension from the middle of the rest.
      std::size_t mid = split + (full.size() - split) / 2;
      LineIndex twice(std::string_view(full).substr(0, split));
      twice.extend(std::string_view(full).substr(0, mid));
      twice.extend(full);
      CHECK(starts(twice) == starts(fresh));
    }
  }
  // Long texts take the block path: CR/LF pairs straddling 64-byte blocks.
  std::string big;
  for (int i = 0; i < 500; ++i)
    big += std::string(static_cast<std::size_t>(i % 67), 'q') + (i % 3   ? "\r\n"
                                                                 : i % 2 ? "\r"
                                                                         : "\n");
  LineIndex fresh(big);
  std::size_t breaks = 0;
  for (std::size_t i = 0; i < big.size(); ++i)
    if (big[i] == '\n' || (big[i] == '\r' && (i + 1 == big.size() || big[i + 1] != '\n'))) ++breaks;
  CHECK(fresh.lines() == breaks + 1);
  for (std::size_t split :
       {std::size_t{0}, std::size_t{63}, std::size_t{64}, big.size() / 2, big.size()}) {
    LineIndex li(std::string_view(big).substr(0, split));
    li.extend(big);
    CHECK(starts(li) == starts(fresh));
  }
}

TEST_CASE("document text: an in-place append is re-scanned from its last line only", "[lsp]") {
  FeatureServer fs(catalog());
  std::string oom = "[rank3]: RuntimeError: CUDA error: out of memory\n";
  std::string head = "NCCL INFO Bootstrap : Using eth0\n" + oom + "[rank1]: partial";
  std::string text = head;
  text.reserve(1 << 20);
  fs.open("file:///g.log", "log", 1, std::move(text));
  Analyzer an(catalog());
  auto r1 = an.run(fs.drafts().log_snapshots(), {});
  CHECK(r1.bytes_scanned == head.size());
  Text before = snapshot(fs);
  std::string more = " line\n" + oom + oom;
  REQUIRE(fs.change("file:///g.log", 2, {{at_end(), more}}));
  auto r2 = an.run(fs.drafts().log_snapshots(), {});
  std::size_t last_line = head.rfind('\n') + 1;
  CHECK(r2.bytes_scanned == head.size() + more.size() - last_line);
  CHECK(before.view() == head);
  std::string all = head + more;
  analysis::LogInput in{"/g.log", all};
  CHECK(report_of(r2.analysis) ==
        report_of(analysis::analyze(catalog(), std::span<const analysis::LogInput>(&in, 1))));
  // Nothing changed: nothing scanned.
  CHECK(an.run(fs.drafts().log_snapshots(), {}).bytes_scanned == 0);
}

TEST_CASE("document text: events lent to a run and given back keep appends incremental", "[lsp]") {
  std::string oom = "[rank3]: RuntimeError: CUDA error: out of memory\n";
  std::string head = "NCCL INFO Bootstrap : Using eth0\n" + oom + oom + "[rank1]: partial";
  std::string text = head;
  text.reserve(1 << 20);
  FeatureServer fs(catalog());
  fs.open("file:///l.log", "log", 1, std::move(text));
  Analyzer lending(catalog()), copying(catalog());
  auto a1 = lending.run_lending(fs.drafts().log_snapshots(), {});
  auto b1 = copying.run(fs.drafts().log_snapshots(), {});
  CHECK(report_of(a1.analysis) == report_of(b1.analysis));
  lending.settle(a1);
  // Unchanged: nothing scanned, the same answer from the events given back.
  auto a2 = lending.run_lending(fs.drafts().log_snapshots(), {});
  CHECK(a2.bytes_scanned == 0);
  CHECK(report_of(a2.analysis) == report_of(b1.analysis));
  lending.settle(a2);
  std::string more = " line\n" + oom;
  REQUIRE(fs.change("file:///l.log", 2, {{at_end(), more}}));
  auto a3 = lending.run_lending(fs.drafts().log_snapshots(), {});
  auto b3 = copying.run(fs.drafts().log_snapshots(), {});
  std::size_t last_line = head.rfind('\n') + 1;
  CHECK(a3.bytes_scanned == head.size() + more.size() - last_line);
  CHECK(report_of(a3.analysis) == report_of(b3.analysis));
  // Not given back: the next run scans the document again, and is still right.
  REQUIRE(fs.change("file:///l.log", 3, {{at_end(), oom}}));
  auto a4 = lending.run_lending(fs.drafts().log_snapshots(), {});
  auto b4 = copying.run(fs.drafts().log_snapshots(), {});
  CHECK(a4.bytes_scanned == head.size() + more.size() + oom.size());
  CHECK(report_of(a4.analysis) == report_of(b4.analysis));
  CHECK(a4.analysis.events.size() == b4.analysis.events.size());
}

TEST_CASE("document text: appends stay incremental and exact when a rule is capped", "[lsp]") {
  // More hits than kMaxEventsPerRule: the hit counts must come out as a full scan's.
  std::string oom = "[rank3]: RuntimeError: CUDA error: out of memory\n";
  std::string text;
  for (std::size_t i = 0; i < analysis::kMaxEventsPerRule + 50; ++i) text += oom;
  text += "[rank3]: RuntimeError: CUDA error: out of";  // ends mid-line
  std::string start = text;
  FeatureServer fs(catalog());
  text.reserve(text.size() * 2);
  fs.open("file:///c.log", "log", 1, std::move(text));
  Analyzer an(catalog());
  an.run(fs.drafts().log_snapshots(), {});
  std::string more = " memory\n" + oom + "tail";
  REQUIRE(fs.change("file:///c.log", 2, {{at_end(), more}}));
  auto r2 = an.run(fs.drafts().log_snapshots(), {});
  CHECK(r2.bytes_scanned < 200);
  std::string all = start + more;
  analysis::LogInput in{"/c.log", all};
  auto full = analysis::analyze(catalog(), std::span<const analysis::LogInput>(&in, 1));
  CHECK(report_of(r2.analysis) == report_of(full));
  CHECK(r2.analysis.events.size() == full.events.size());
}

TEST_CASE("document text: appends stay exact when a context rule's lines are only counted",
          "[lsp]") {
  // More context lines than a log keeps events of: an append past them must give the
  // events and counts of a full scan, whether the analyzer scans on its own thread or in
  // pieces on several (as the server does, here with pieces of a few lines).
  std::string nvls =
      "node1:2231:2231 [0] NCCL INFO NVLS multicast support is not available on dev 0\n";
  std::string start = "[rank3]: RuntimeError: CUDA error: out of memory\n";
  for (std::size_t i = 0; i < analysis::kContextEventsKept + 50; ++i) start += nvls;
  start += "node1:2231:2231 [0] NCCL INFO NVLS multicast";  // ends mid-line
  std::string more = " support is not available on dev 0\n" + nvls + "tail";
  std::string all = start + more;
  analysis::LogInput in{"/n.log", all};
  auto full = analysis::analyze(catalog(), std::span<const analysis::LogInput>(&in, 1));
  REQUIRE(full.counted.size() == 1);
  CHECK(full.counted[0].count == 52);
  auto in_pieces = [](const analysis::Catalog& c, std::string_view whole, std::size_t base,
                      std::size_t first_line, analysis::ScanState& state, std::size_t end) {
    parallel::scan_range(c, whole, base, first_line, state, end, {2, 300});
  };
  for (bool pieces : {false, true}) {
    INFO("in pieces: " << pieces);
    FeatureServer fs(catalog());
    std::string text = start;
    text.reserve(text.size() * 2);
    fs.open("file:///n.log", "log", 1, std::move(text));
    Analyzer an(catalog(), pieces ? Analyzer::RangeScan(in_pieces) : Analyzer::RangeScan());
    an.run(fs.drafts().log_snapshots(), {});
    REQUIRE(fs.change("file:///n.log", 2, {{at_end(), more}}));
    auto r2 = an.run(fs.drafts().log_snapshots(), {});
    CHECK(r2.bytes_scanned < 200);
    CHECK(report_of(r2.analysis) == report_of(full));
    CHECK(r2.analysis.events.size() == full.events.size());
    REQUIRE(r2.analysis.counted.size() == 1);
    CHECK(r2.analysis.counted[0].count == full.counted[0].count);
  }
}

TEST_CASE("document text: a rule firing on many lines marks a bounded number of them", "[lsp]") {
  std::string text = "[rank3]: RuntimeError: CUDA error: out of memory\n";
  std::size_t n = kMaxMarkedLinesPerRule + 40;
  for (std::size_t i = 0; i < n; ++i)
    text += "node1:2231:2231 [0] NCCL INFO NVLS multicast support is not available on dev 0\n";
  Analyzer an(catalog());
  auto run = an.run({{"file:///m.log", 1, Text::of(text)}}, {});
  const auto& items = run.items.at("file:///m.log");
  std::size_t nvls = 0, noted = 0;
  for (const auto& d : items) {
    if (d.rule_id != "nccl-nvls-unavailable") continue;
    ++nvls;
    if (d.message.find("and 40 more lines like this") != std::string::npos) ++noted;
  }
  CHECK(nvls == kMaxMarkedLinesPerRule);
  CHECK(noted == 1);
  // A context rule: the analysis builds its first events in the log and counts the rest.
  std::size_t events = 0;
  for (const auto& e : run.analysis.events)
    events += catalog().rules()[e.rule].id == "nccl-nvls-unavailable";
  CHECK(events == analysis::kContextEventsKept);
  REQUIRE(run.analysis.counted.size() == 1);
  CHECK(run.analysis.counted[0].count == n - analysis::kContextEventsKept);
}
