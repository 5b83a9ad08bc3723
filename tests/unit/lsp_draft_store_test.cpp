// The language server's documents alone (lsp/draft_store.hpp): edits in both encodings,
// appends, lines and snapshots.
#include <catch2/catch.hpp>

#include "lsp/draft_store.hpp"

using namespace ff::lsp;

TEST_CASE("draft store: edits, versions and lines", "[lsp]") {
  DraftStore drafts;
  drafts.open("file:///j/a.log", "log", 1, "x\xf0\x9f\x98\x80y\nsecond\n");
  REQUIRE(drafts.change("file:///j/a.log", 2, {{Range{{0, 3}, {0, 4}}, "Z"}}, Encoding::kUtf16));
  CHECK(*drafts.text("file:///j/a.log") == "x\xf0\x9f\x98\x80Z\nsecond\n");
  REQUIRE(drafts.change("file:///j/a.log", 3, {{Range{{0, 1}, {0, 5}}, ""}}, Encoding::kUtf8));
  CHECK(*drafts.text("file:///j/a.log") == "xZ\nsecond\n");
  CHECK_FALSE(drafts.change("file:///j/a.log", 2, {{std::nullopt, "stale"}}, Encoding::kUtf8));
  CHECK_FALSE(drafts.change("file:///j/none.log", 9, {{std::nullopt, "x"}}, Encoding::kUtf8));
  CHECK(*drafts.version("file:///j/a.log") == 3);
  CHECK(*drafts.line("file:///j/a.log", 1) == "second");
  CHECK_FALSE(drafts.line("file:///j/a.log", 9));
  REQUIRE(drafts.append("file:///j/a.log", 4, "third"));
  CHECK(*drafts.line("file:///j/a.log", 2) == "third");
  CHECK_FALSE(drafts.append("file:///j/none.log", 1, "x"));
}

TEST_CASE("draft store: a snapshot keeps its text while the document grows", "[lsp]") {
  DraftStore drafts;
  std::string text = "first\n";
  text.reserve(1024);
  drafts.open("file:///j/a.log", "log", 1, std::move(text));
  auto before = drafts.snapshot("file:///j/a.log");
  REQUIRE(drafts.append("file:///j/a.log", 2, "second\n"));
  CHECK(before->text.view() == "first\n");
  CHECK(drafts.snapshot("file:///j/a.log")->text.view() == "first\nsecond\n");
  CHECK(drafts.snapshot("file:///j/a.log")->text.extends(before->text));
}

TEST_CASE("draft store: logs and the other documents", "[lsp]") {
  DraftStore drafts;
  drafts.open("file:///j/b.log", "log", 1, "b");
  drafts.open("file:///j/run.sh", "shellscript", 4, "export NCCL_DEBUG=INFO\n");
  drafts.open("file:///j/a.out", "", 1, "a");
  CHECK(drafts.is_log("file:///j/a.out"));
  CHECK_FALSE(drafts.is_log("file:///j/run.sh"));
  CHECK_FALSE(drafts.is_log("file:///j/none.log"));
  CHECK(drafts.log_uris() == std::set<std::string>{"file:///j/a.out", "file:///j/b.log"});
  auto logs = drafts.log_snapshots();
  REQUIRE(logs.size() == 2);
  CHECK(logs[0].uri == "file:///j/a.out");
  auto sources = drafts.source_snapshots();
  REQUIRE(sources.size() == 1);
  CHECK(sources[0].version == 4);
  CHECK(drafts.close("file:///j/run.sh"));
  CHECK_FALSE(drafts.close("file:///j/run.sh"));
  CHECK(drafts.source_snapshots().empty());
}
