// How the job ended, as the person or tool that ran it knows it: the log alone cannot say
// that a job failed (a healthy run and a hang can print the same lines until the end), but
// the terminal's exit code, the scheduler's state or the user can. The diagnosis reads it as
// input: under a known failure, observations that can explain it become hypotheses, and a
// failure nothing in the log explains is said to be unexplained instead of "no failure".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ff::analysis {

enum class JobEnd {
  kUnknown,  // nothing is known: a log with no failure evidence gets no diagnosis
  kFailed,   // it crashed, exited non-zero or was killed
  kHung,     // it stopped making progress (and was killed for it, or is still stuck)
};

struct JobOutcome {
  JobEnd end = JobEnd::kUnknown;
  // The status the job's command ended with, as the shell reports it (0-255; 128 + N for
  // signal N) or as Python's subprocess does (negative: the signal). A non-zero status is a
  // failure even without kFailed; zero says nothing more than kUnknown.
  std::optional<int> exit_code;

  // Failed or hung, whether said outright or by a non-zero exit code.
  bool known_failure() const { return end != JobEnd::kUnknown || (exit_code && *exit_code != 0); }
  bool hung() const { return end == JobEnd::kHung; }
};

// The rule whose fix captures evidence for the next run (Flight Recorder, NCCL's warnings in
// a file per process, RAS, fault handlers): what a failure nothing in the log explains, and a
// hang, are answered with.
inline constexpr std::string_view kEvidenceCaptureRule = "torch-flight-recorder-disabled";

// "the job failed", "the job hung", "the job exited with status 139 (SIGSEGV: a crash)":
// one clause for reports and reasons. Empty when nothing is known.
std::string describe_outcome(const JobOutcome& outcome);

// Parses the value of --exit-code: a decimal integer from -64 to 255. Nullopt otherwise.
std::optional<int> parse_exit_code(std::string_view text);

}  // namespace ff::analysis
