// How a rank ended, decoded from what a launcher printed about it. Launchers word it in
// many ways (torchrun's "exitcode: -9", Slurm's "Exited with exit code 137", mpirun's
// "exited on signal 11 (Segmentation fault)", the shell's "Killed"), but all of them carry
// one of three values: a signal, a Python-style return code (negative: the signal) or a
// shell-style exit code (above 128: 128 + the signal). Rules capture the value; this file
// alone knows what each ending implies.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/rule.hpp"

namespace ff::analysis {

struct ExitStatus {
  std::optional<int> signal;     // the signal that ended the process, when it was one
  std::optional<int> exit_code;  // the plain exit code otherwise
};

// Decodes the captures of an exit-status rule; nullopt when none of them parses.
//   signal:     a number ("9") or a name ("SIGKILL", "KILL", "Killed", "Segmentation fault")
//   returncode: Python's subprocess convention, negative for a signal
//   exitcode:   the shell's convention, 129..159 for a signal
std::optional<ExitStatus> decode_exit_status(std::string_view signal, std::string_view returncode,
                                             std::string_view exitcode);

// The signal's name ("SIGSEGV"), or "signal N".
std::string signal_name(int signal);

// What an ending says about the failure. `oom_evidence` / `shm_evidence`: the log shows the
// OOM killer / a shared-memory failure through some other rule.
struct ExitReading {
  std::string category;  // empty: not a failure (exit 0)
  Role role = Role::kCause;
  std::string meaning;  // one clause for the report: "crashed with SIGSEGV"
};
// `*_evidence`: the job's own lines name a cause of that category (the OOM killer, a
// shared-memory failure, a hardware error), which decides what a SIGKILL or SIGBUS means.
ExitReading read_exit_status(const ExitStatus& status, bool oom_evidence, bool shm_evidence,
                             bool hardware_evidence = false);
// What a SIGBUS means in a distributed training job when nothing else says: see
// exit_status.cpp.
ExitReading read_sigbus(bool shm_evidence, bool hardware_evidence);
// What a SIGILL means: code built for another CPU (a version problem).
ExitReading read_sigill();

}  // namespace ff::analysis
