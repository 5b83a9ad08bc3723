// A rule's verification command made runnable for one diagnosis: its placeholders
// (`<gpu>`, `<pid>`, `<job log>`...) filled from what the analysis knows, shell-quoted. A
// command with a placeholder left is not runnable: `<gpu` would be an input redirection to a
// shell, so such a command is shown for the user to complete, never sent to a terminal.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ff::fix {

// What a diagnosis can fill in, each known or not.
struct VerifyFacts {
  std::optional<int> gpu;  // the initiating line's GPU (its device index)
  std::optional<int> pid;  // the initiating process
  std::optional<int> rank;
  std::string host;               // the initiating line's host
  std::string peer;               // the peer the line names (host or address), if any
  std::string log;                // the initiating line's log file
  std::vector<std::string> logs;  // every log of the job
};

struct FilledCommand {
  std::string text;                  // the command, with what was known filled in
  std::vector<std::string> missing;  // placeholders left, as written ("<your launch command>")
  bool runnable() const { return missing.empty(); }
};

// Fills `command`'s placeholders from `facts`. Pure.
FilledCommand fill_verify_command(std::string_view command, const VerifyFacts& facts);

}  // namespace ff::fix
