// The command `firstfault watch --on-fault` runs when a root cause is found: through
// /bin/sh, with the diagnosis as JSON on its standard input and the essentials in its
// environment, so that `scancel "$SLURM_JOB_ID"` or a notification is one line of shell.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ff::cli {

class FaultHook {
 public:
  explicit FaultHook(std::string command) : command_(std::move(command)) {}
  FaultHook(const FaultHook&) = delete;
  FaultHook& operator=(const FaultHook&) = delete;

  // Starts the command; false and `error` when it could not be started. `input` is its
  // standard input (it may read it or not: it never blocks watching), `env` is added to
  // the environment firstfault was given.
  bool start(const std::string& input, const std::vector<std::pair<std::string, std::string>>& env,
             std::string& error);
  // When the command has ended since the last call: how ("exited with status 0", "was
  // killed by signal 9"). Never blocks unless `wait`.
  std::optional<std::string> ended(bool wait = false);
  bool running() const { return pid_ > 0; }

 private:
  std::string command_;
  pid_t pid_ = -1;
};

}  // namespace ff::cli
