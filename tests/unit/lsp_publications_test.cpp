// Jobs and publication state alone (lsp/publications.hpp): which jobs are analysed again,
// which runs are published, and when a version's diagnostics are sent again.
#include <catch2/catch.hpp>
#include <memory>

#include "builtin_catalog.hpp"
#include "lsp/analyzer.hpp"
#include "lsp/publications.hpp"

using namespace ff;
using namespace ff::lsp;

namespace {

std::shared_ptr<const AnalysisRun> analysed(Analyzer& an, std::vector<DocumentSnapshot> job) {
  return std::make_shared<AnalysisRun>(an.run(std::move(job), {}));
}

const std::string kOom = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n";

}  // namespace

TEST_CASE("publications: a job is a folder", "[lsp]") {
  CHECK(job_of("file:///j/rank0.log") == "file:///j/");
  CHECK(job_of("file:///j/rank1.log") == job_of("file:///j/rank0.log"));
  CHECK(job_of("file:///other/rank0.log") != job_of("file:///j/rank0.log"));
  CHECK(job_of("untitled:Untitled-1") == "untitled:Untitled-1");
}

TEST_CASE("publications: only changed jobs are analysed, only current runs published", "[lsp]") {
  Analyzer an(test::builtin_catalog());
  DraftStore drafts;
  Publications pubs;
  drafts.open("file:///j/rank0.log", "log", 1, kOom);
  drafts.open("file:///j/rank1.log", "log", 1, "nothing here\n");
  drafts.open("file:///k/other.log", "log", 1, "nothing\n");
  drafts.open("file:///j/run.sh", "shellscript", 1, "torchrun train.py\n");
  CHECK_FALSE(pubs.up_to_date("file:///j/rank0.log", drafts));
  CHECK(pubs.up_to_date("file:///j/run.sh", drafts));  // not a log: nothing to wait for
  auto jobs = pubs.changed_jobs(drafts);
  REQUIRE(jobs.size() == 2);
  REQUIRE(jobs[0].size() == 2);  // file:///j/: the two ranks, not run.sh
  CHECK(jobs[1][0].uri == "file:///k/other.log");

  auto run = analysed(an, jobs[0]);
  auto sent = pubs.accept(run, drafts);
  REQUIRE(sent.size() == 2);
  CHECK(pubs.up_to_date("file:///j/rank1.log", drafts));
  CHECK(pubs.run("file:///j/rank0.log") == run);
  CHECK_FALSE(pubs.items("file:///j/rank0.log").empty());
  REQUIRE(pubs.changed_jobs(drafts).size() == 1);  // k's job only
  // The same version analysed again with the same result is not sent again (the features
  // read the newer run).
  auto again = analysed(an, jobs[0]);
  CHECK(pubs.accept(again, drafts).empty());
  CHECK(pubs.run("file:///j/rank0.log") == again);

  // A run of a version that moved on is stale: nothing is sent, the old run stays.
  REQUIRE(drafts.change("file:///j/rank1.log", 2, {{std::nullopt, "edited\n"}}, Encoding::kUtf16));
  auto stale = analysed(an, jobs[0]);
  auto partial = pubs.accept(stale, drafts);
  REQUIRE(partial.size() <= 1);  // rank0's text is current: it may be republished
  CHECK_FALSE(pubs.up_to_date("file:///j/rank1.log", drafts));
  CHECK(pubs.run("file:///j/rank1.log") == again);
  CHECK(pubs.changed_jobs(drafts).size() == 2);
  pubs.forget("file:///j/rank0.log");
  CHECK(pubs.run("file:///j/rank0.log") == nullptr);
  CHECK(pubs.items("file:///j/rank0.log").empty());
}
