// Which documents the language server analyses as logs (lsp/log_files.hpp), and the URI
// helpers: the rules the server advertises to its clients.
#include <catch2/catch.hpp>

#include "lsp/log_files.hpp"
#include "lsp/uri.hpp"

using namespace ff::lsp;

TEST_CASE("log files: names match the advertised patterns, in either case", "[lsp]") {
  CHECK(matches_file_pattern("*.log", "train.log"));
  CHECK(matches_file_pattern("*.log", "TRAIN.LOG"));
  CHECK(matches_file_pattern("slurm-*.out", "slurm-1234.out"));
  CHECK(matches_file_pattern("*", ""));
  CHECK(matches_file_pattern("a*b*c", "aXbYbZc"));
  CHECK_FALSE(matches_file_pattern("*.log", "train.log.gz"));
  CHECK_FALSE(matches_file_pattern("slurm-*.out", "slurm.out"));
  CHECK_FALSE(matches_file_pattern("*.log", "log"));
  for (const char* name : {"train.log", "slurm-77.out", "rank3.err", "NIGHT.LOG"})
    CHECK(is_log_file_name(name));
  for (const char* name : {"train.py", "run.sh", "log", "x.log.gz", "notes.md", "notes.txt"})
    CHECK_FALSE(is_log_file_name(name));
}

TEST_CASE("log files: a document is a log by its language or its file's name", "[lsp]") {
  CHECK(looks_like_log("file:///x/train.log", ""));
  CHECK(looks_like_log("file:///x/slurm-1234.out", "shellscript"));
  CHECK(looks_like_log("file:///x/job.err", ""));
  CHECK(looks_like_log("file:///x/notes.txt", "plaintext"));
  CHECK(looks_like_log("untitled:Untitled-1", "log"));
  CHECK_FALSE(looks_like_log("file:///x/run.sh", "shellscript"));
  CHECK_FALSE(looks_like_log("file:///x.log/run.sh", "shellscript"));  // the name, not the folder
}

TEST_CASE("uri: file URIs and paths", "[lsp]") {
  CHECK(uri_to_path("file:///a%20b/c.log") == "/a b/c.log");
  CHECK(path_to_uri("/a b/c.log") == "file:///a%20b/c.log");
  CHECK(uri_to_path("untitled:Untitled-1") == "untitled:Untitled-1");
  CHECK(uri_file_name("file:///job/rank2.err") == "rank2.err");
  CHECK(uri_file_name("untitled:x") == "untitled:x");
}
