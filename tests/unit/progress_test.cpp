// Progress counters compared across ranks (analysis/progress.hpp): where each rank's own
// step counter stopped says who the others wait for, or that they drifted apart.
#include "analysis/progress.hpp"

#include <string>

#include "diagnosis_test_util.hpp"

using namespace ff::analysis;
using ff::test::catalog;
using ff::test::check_silent;
using ff::test::failed;
using ff::test::hung;
using ff::test::initiating;
using ff::test::make;
using ff::test::run;

namespace {

Rule counter_rule() {
  Rule r = make("progress", "straggler", Role::kFinding, 0.35, "(?i)\\bstep\\s*\\d+");
  r.only_under_failure = true;
  r.decode = Decode::kProgress;
  return r;
}

// Two ranks that each print "step N" for consecutive steps, rank 1 stopping at `last1`.
std::string two_ranks(int last0, int last1) {
  std::string log;
  for (int s = last0 - 2; s <= last0; ++s)
    log += "[rank0]: step " + std::to_string(s) + " loss 2.5\n";
  for (int s = last1 - 2; s <= last1; ++s)
    log += "[rank1]: step " + std::to_string(s) + " loss 2.5\n";
  return log;
}

}  // namespace

TEST_CASE("progress: the rank one step behind leads a hang; two apart is a mismatch",
          "[progress]") {
  auto c = catalog({counter_rule()});
  // One step behind: rank 1 (last line 5) is the one rank 0 waits for.
  const std::string behind = two_ranks(41, 40);
  auto a = run(c, behind, hung());
  REQUIRE(a.diagnoses.size() == 1);
  CHECK(a.diagnoses.front().category == "straggler");
  CHECK(initiating(a).line == 5);
  CHECK(initiating(a).source.rank == 1);
  CHECK_THAT(a.diagnoses.front().headline, Catch::Contains("one step behind"));
  // Three steps apart: the ranks cannot have issued the same collectives.
  auto b = run(c, two_ranks(41, 38), failed());
  REQUIRE(b.diagnoses.size() == 1);
  CHECK(b.diagnoses.front().category == "collective-mismatch");
  CHECK(initiating(b).line == 5);
  CHECK_THAT(b.diagnoses.front().headline, Catch::Contains("3 steps apart"));
  // A working job's ranks print different counters between two synchronisations: without a
  // known failure the lines are not read at all.
  check_silent(c, behind);
  // Every rank at the same step: nothing to say.
  auto same = run(c, two_ranks(41, 41), hung());
  CHECK(same.diagnoses.empty());
  CHECK(same.unexplained);
}

TEST_CASE("progress: only a counter every rank advanced by one is compared", "[progress]") {
  auto c = catalog({counter_rule()});
  // Printed every 10 steps: the last value says where a rank was only to within 10.
  std::string sparse =
      "[rank0]: step 10 loss 2\n[rank0]: step 20 loss 2\n"
      "[rank1]: step 10 loss 2\n[rank1]: step 30 loss 2\n";
  CHECK(run(c, sparse, hung()).diagnoses.empty());
  // One rank printed it once: its last value has no previous one to vouch for it.
  std::string once = "[rank0]: step 4\n[rank0]: step 5\n[rank1]: step 2\n";
  CHECK(run(c, once, hung()).diagnoses.empty());
  // A progress bar's redraws (tqdm) jump as the bar likes.
  std::string bars =
      "[rank0]: step 4: 40%|####      | 4/10 [00:04<00:06,  1.00it/s]\n"
      "[rank0]: step 5: 50%|#####     | 5/10 [00:05<00:05,  1.00it/s]\n"
      "[rank1]: step 1: 10%|#         | 1/10 [00:01<00:09,  1.00it/s]\n"
      "[rank1]: step 2: 20%|##        | 2/10 [00:02<00:08,  1.00it/s]\n";
  CHECK(run(c, bars, hung()).diagnoses.empty());
  // Decimals (a loss, a learning rate) are no counters: only "step" advances by one here.
  auto a = run(c,
               "[rank0]: step 7 lr 0.5\n[rank0]: step 8 lr 1.5\n"
               "[rank1]: step 6 lr 0.5\n[rank1]: step 7 lr 1.5\n",
               hung());
  REQUIRE(a.diagnoses.size() == 1);
  CHECK(initiating(a).line == 3);
}

TEST_CASE("progress: a failure the log shows leads; the counter is an observation", "[progress]") {
  auto c =
      catalog({counter_rule(), make("oom", "gpu-oom", Role::kCause, 0.8, "CUDA out of memory")});
  auto a = run(c, two_ranks(41, 40) + "[rank1]: RuntimeError: CUDA out of memory.\n", failed());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "gpu-oom");
}

TEST_CASE("progress: line numbers hold through colour, CRLF and lone CR", "[progress]") {
  auto c = catalog({counter_rule()});
  // Colour codes inside a counter line (read cleaned), a CRLF line, a lone-CR redraw and lines
  // no counter is on: the rank behind is still found, on the line an editor shows.
  const std::string log =
      "\x1b[32m[rank0]: \x1b[0mstep 7 loss 2\r\n"  // 0
      "[rank1]: data loaded\n"                     // 1
      "[rank1]: step 6 loss 2\rredraw\n"           // 2, 3
      "\x1b[32m[rank0]: \x1b[0mstep 8 loss 2\n"    // 4
      "[rank1]: step 7 loss 2\n"                   // 5
      "[rank1]: waiting\n";                        // 6
  auto a = run(c, log, hung());
  REQUIRE(a.diagnoses.size() == 1);
  CHECK(a.diagnoses.front().category == "straggler");
  CHECK(initiating(a).line == 5);
  CHECK(initiating(a).source.rank == 1);
}

TEST_CASE("progress: inputs without a writer prefix are writers of their own", "[progress]") {
  auto c = catalog({counter_rule()});
  LogInput in[2] = {{"rank0.log", "step 11\nstep 12\n"}, {"rank1.log", "step 10\nstep 11\n"}};
  auto a = analyze(c, std::span(in, 2), hung());
  REQUIRE(a.diagnoses.size() == 1);
  CHECK(initiating(a).file == 1);
  CHECK(initiating(a).line == 1);
}

TEST_CASE("progress: hostile input stays bounded and finds nothing", "[progress][hostile]") {
  auto c = catalog({counter_rule()});
  // Thousands of distinct shapes and writers: the comparison keeps at most
  // kMaxProgressTemplates shapes and kMaxProgressWriters writers per shape.
  std::string log;
  for (int i = 0; i < 3000; ++i)
    log += "[rank" + std::to_string(i) + "]: step " + std::to_string(i) +
           std::string(i % 300, 'x') + "\n";
  log += std::string(1, '\0') + "step \xff\xfe 99999999999999999999999 step 1\n";
  auto a = run(c, log, hung());
  CHECK(a.diagnoses.empty());
  ScanState empty;
  empty.reset(c);
  std::string_view none[1] = {""};
  compare_progress(c, none, empty);
  CHECK(empty.events.empty());
}
