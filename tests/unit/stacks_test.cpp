// Stack dumps of a hung job (analysis/stacks.hpp) with the shipped catalog: py-spy's format
// (benfred/py-spy src/dump.rs), composed here with frames as PyTorch and its DataLoader name
// their functions.
#include "analysis/stacks.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "analysis/analyze.hpp"
#include "builtin_catalog.hpp"
#include "diagnosis_test_util.hpp"

using namespace ff::analysis;

namespace {

std::string header(int tid, const std::string& name = "MainThread",
                   const std::string& status = " (active)") {
  return "Thread " + std::to_string(tid) + status + ": \"" + name + "\"\n";
}

// A main thread waiting in a collective, and one waiting for its DataLoader.
std::string in_broadcast(int tid) {
  return header(tid) +
         "    broadcast (torch/distributed/distributed_c10d.py:1191)\n"
         "    _bcast_pipe_scalar (deepspeed/runtime/pipe/engine.py:542)\n"
         "    eval_batch (deepspeed/runtime/pipe/engine.py:455)\n";
}
std::string in_dataloader(int tid, const std::string& name = "MainThread") {
  return header(tid, name, " (idle)") +
         "    wait (threading.py:306)\n"
         "    get (queue.py:179)\n"
         "    _try_get_data (torch/utils/data/dataloader.py:1011)\n"
         "    _next_batch (deepspeed/runtime/pipe/engine.py:627)\n";
}

Analysis run(const std::string& text, JobOutcome outcome) {
  return ff::test::run(ff::test::builtin_catalog(), text, outcome);
}

std::size_t line_of(const std::string& text, const std::string& needle) {
  std::size_t at = text.find(needle), n = 0;
  for (std::size_t i = 0; i < at; ++i) n += text[i] == '\n';
  return n;
}

}  // namespace

TEST_CASE("stacks: the process outside every collective is the one the others wait for",
          "[stacks]") {
  const std::string dump =
      in_broadcast(101) + in_broadcast(102) + in_dataloader(103) + in_broadcast(104);
  const Analysis a = run(dump, ff::test::hung());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses[0].category == "straggler");
  CHECK(a.events[a.diagnoses[0].initiating].line == line_of(dump, "Thread 103"));
  CHECK_THAT(a.diagnoses[0].headline, Catch::Contains("3 dumped processes wait in one"));
  CHECK_THAT(a.diagnoses[0].headline, Catch::Contains("wait (threading.py:306)"));
  // Nothing says the job hung: the dump alone is no failure.
  CHECK(run(dump, {}).diagnoses.empty());
}

TEST_CASE("stacks: no lone process outside, no diagnosis", "[stacks]") {
  // Everyone in a collective.
  CHECK(
      run(in_broadcast(1) + in_broadcast(2) + in_broadcast(3), ff::test::hung()).diagnoses.empty());
  // As many outside as inside: no majority to wait for anyone.
  CHECK(
      run(in_broadcast(1) + in_dataloader(2) + in_broadcast(3) + in_dataloader(4), ff::test::hung())
          .diagnoses.empty());
  // One process in a collective is not "the others".
  CHECK(run(in_broadcast(1) + in_dataloader(2), ff::test::hung()).diagnoses.empty());
  // A background thread in the DataLoader (its pin-memory thread) is not the main thread.
  CHECK(run(in_broadcast(1) + in_dataloader(2, "Thread-3 (_pin_memory_loop)") + in_broadcast(3),
            ff::test::hung())
            .diagnoses.empty());
}

TEST_CASE("stacks: py-spy's other forms are read", "[stacks]") {
  // No status, a hex id, --locals lines under a frame.
  const std::string dump =
      "Thread 0x7F3A2B1C0740: \"MainThread\"\n"
      "    all_reduce (/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py:2501)\n"
      "        Arguments:\n"
      "            tensor: <Tensor at 0x7f3a>\n"
      "    step (train.py:88)\n" +
      in_broadcast(7) + in_dataloader(8);
  const Analysis a = run(dump, ff::test::hung());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.events[a.diagnoses[0].initiating].line == line_of(dump, "Thread 8"));
  // Stacks pasted without their headers: a frame less indented than the one before starts
  // the next process's stack.
  const std::string bare =
      "all_reduce (torch/distributed/distributed_c10d.py:3075)\n"
      "  train_step (train.py:12)\n"
      "all_reduce (torch/distributed/distributed_c10d.py:3075)\n"
      "  train_step (train.py:12)\n"
      "_try_get_data (torch/utils/data/dataloader.py:1011)\n"
      "  train_step (train.py:10)\n";
  const Analysis b = run(bare, ff::test::hung());
  REQUIRE_FALSE(b.diagnoses.empty());
  CHECK(b.events[b.diagnoses[0].initiating].line == 4);
}
