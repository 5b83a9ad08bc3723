// A Python traceback cut before its exception line (analysis/cut_traceback.hpp), with the
// shipped catalog: frames in the format of CPython's Lib/traceback.py, as a paste that stops
// short leaves them.
#include "analysis/cut_traceback.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "analysis/analyze.hpp"
#include "builtin_catalog.hpp"
#include "diagnosis_test_util.hpp"

using namespace ff::analysis;
using ff::test::failed;

namespace {

const std::string kFrames =
    "  File \"/work/train.py\", line 27, in <module>\n"
    "    main(args.rank, args.world_size)\n"
    "  File \"/work/comm.py\", line 105, in init\n"
    "    shifted = bytes([b + 128 for b in unique_id])\n"
    "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n";

Analysis run(const std::string& text, JobOutcome outcome) {
  return ff::test::run(ff::test::builtin_catalog(), text, outcome);
}

std::string lead_text(const Analysis& a) {
  return a.events[a.diagnoses.front().initiating].text;
}

}  // namespace

TEST_CASE("a traceback cut before its exception leads with its innermost code line",
          "[cut-traceback]") {
  auto a = run("Traceback (most recent call last):\n" + kFrames, failed());
  REQUIRE_FALSE(a.diagnoses.empty());
  CHECK(a.diagnoses.front().category == "process-crash");
  CHECK(lead_text(a) == "    shifted = bytes([b + 128 for b in unique_id])");
  // A paste that begins below the header is read from its first frame (the paste repair
  // takes off the indentation every line shares).
  auto no_header = run(kFrames, failed());
  REQUIRE_FALSE(no_header.diagnoses.empty());
  CHECK(lead_text(no_header).ends_with("shifted = bytes([b + 128 for b in unique_id])"));
  // Behind a launcher's tag, and followed by blank lines.
  std::string tagged;
  for (std::size_t b = 0, e; b < kFrames.size(); b = e + 1) {
    e = kFrames.find('\n', b);
    tagged += "[rank3]: " + kFrames.substr(b, e - b) + "\n";
  }
  auto t = run("[rank3]: Traceback (most recent call last):\n" + tagged + "\n\n", failed());
  REQUIRE_FALSE(t.diagnoses.empty());
  CHECK(lead_text(t) == "[rank3]:     shifted = bytes([b + 128 for b in unique_id])");
}

TEST_CASE("a whole traceback, or one not known to have failed, is not a cut one",
          "[cut-traceback]") {
  // The exception line closes it: that line's own rule reads it.
  auto whole = run("Traceback (most recent call last):\n" + kFrames +
                       "ValueError: bytes must be in range(0, 256)\n",
                   failed());
  REQUIRE_FALSE(whole.diagnoses.empty());
  CHECK(lead_text(whole) == "ValueError: bytes must be in range(0, 256)");
  // Output after the frames (the process went on, or another one wrote): not cut.
  auto later =
      run("Traceback (most recent call last):\n" + kFrames + "step 12 loss 0.5\n", failed());
  for (const auto& d : later.diagnoses)
    CHECK(later.events[d.initiating].text.find("shifted") == std::string::npos);
  // Without a known failure the frames say nothing.
  CHECK(run("Traceback (most recent call last):\n" + kFrames, JobOutcome{}).diagnoses.empty());
}
