#include "analysis/exit_status.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <utility>

namespace ff::analysis {

namespace {

// Linux signal numbers (x86-64 and aarch64 agree on all of these), with the names the
// signal carries and the words strsignal() and the shell print for it.
struct SignalName {
  int number;
  std::string_view name;
  std::string_view words;  // strsignal(3) / bash's wording, lower-case
};
constexpr std::array<SignalName, 17> kSignals = {{
    {1, "SIGHUP", "hangup"},
    {2, "SIGINT", "interrupt"},
    {3, "SIGQUIT", "quit"},
    {4, "SIGILL", "illegal instruction"},
    {5, "SIGTRAP", "trace/breakpoint trap"},
    {6, "SIGABRT", "aborted"},
    {7, "SIGBUS", "bus error"},
    {8, "SIGFPE", "floating point exception"},
    {9, "SIGKILL", "killed"},
    {10, "SIGUSR1", "user defined signal 1"},
    {11, "SIGSEGV", "segmentation fault"},
    {12, "SIGUSR2", "user defined signal 2"},
    {13, "SIGPIPE", "broken pipe"},
    {14, "SIGALRM", "alarm clock"},
    {15, "SIGTERM", "terminated"},
    {24, "SIGXCPU", "cpu time limit exceeded"},
    {31, "SIGSYS", "bad system call"},
}};

std::string lower_trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<int> integer(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  int v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr == s.data()) return std::nullopt;
  return v;
}

std::optional<int> signal_from_text(std::string_view text) {
  if (auto n = integer(text)) return *n > 0 && *n < 65 ? n : std::nullopt;
  std::string s = lower_trimmed(text);
  if (s.rfind("sig", 0) == 0 && s.size() > 3 && s != "signal") s = s.substr(3);
  for (const auto& sig : kSignals) {
    std::string name = lower_trimmed(sig.name.substr(3));
    if (s == name || s == sig.words) return sig.number;
    // "Segmentation fault (core dumped)", "Aborted (core dumped)"
    if (s.rfind(sig.words, 0) == 0) return sig.number;
  }
  // Spellings that are neither a name nor strsignal's words ("SEGV", "KILL" match above).
  if (s == "segfault") return 11;
  if (s == "abort") return 6;
  return std::nullopt;
}

}  // namespace

std::optional<ExitStatus> decode_exit_status(std::string_view signal, std::string_view returncode,
                                             std::string_view exitcode) {
  if (!signal.empty())
    if (auto s = signal_from_text(signal)) return ExitStatus{s, std::nullopt};
  if (!returncode.empty())
    if (auto r = integer(returncode)) {
      if (*r < 0 && *r > -65) return ExitStatus{-*r, std::nullopt};
      if (*r >= 0) return ExitStatus{std::nullopt, *r};
    }
  if (!exitcode.empty())
    if (auto c = integer(exitcode)) {
      if (*c > 128 && *c < 160) return ExitStatus{*c - 128, std::nullopt};
      if (*c >= 0) return ExitStatus{std::nullopt, *c};
      if (*c < 0 && *c > -65)
        return ExitStatus{-*c, std::nullopt};  // some launchers print -N here too
    }
  return std::nullopt;
}

std::string signal_name(int signal) {
  for (const auto& sig : kSignals)
    if (sig.number == signal) return std::string(sig.name);
  return "signal " + std::to_string(signal);
}

ExitReading read_sigbus(bool shm_evidence, bool hardware_evidence) {
  if (shm_evidence) return {"shm", Role::kCause, "died of SIGBUS on shared memory"};
  // A bus error with a machine-check or GPU error beside it is that hardware's.
  if (hardware_evidence) return {"process-crash", Role::kCause, "crashed with SIGBUS"};
  // Otherwise, in these jobs, it is shared memory: a SIGBUS is what touching a page of a
  // tmpfs mapping that has no room left gives, and NCCL's shm transport, the DataLoader's
  // workers and Ray's object store all map /dev/shm, which a container gets 64 MB of by
  // default. PyTorch's DataLoader says so in its own message, and NCCL's documentation
  // names SIGBUS as the symptom of a small /dev/shm. A file mapped and truncated under the
  // process is the rarer other cause; the fix says how to tell.
  return {"shm", Role::kCause,
          "died of SIGBUS, which, with no hardware error beside it, is most often /dev/shm "
          "running out"};
}

ExitReading read_sigill() {
  // The CPU met an instruction it does not implement: code built for another CPU (a wheel
  // or library compiled for AVX-512 or AVX2 run on an older x86, for a newer Arm level, or
  // with -march=native on another machine). Nothing in the job's logic does that, so the
  // build, not the program, is at fault: a version problem.
  return {"version", Role::kCause,
          "died of SIGILL: the CPU met an instruction it does not have, so a binary or wheel "
          "was built for another CPU"};
}

ExitReading read_exit_status(const ExitStatus& status, bool oom_evidence, bool shm_evidence,
                             bool hardware_evidence) {
  if (!status.signal) {
    if (status.exit_code && *status.exit_code == 0) return {};
    return {"process-crash", Role::kFallback,
            "exited with status " + std::to_string(status.exit_code.value_or(1))};
  }
  int s = *status.signal;
  std::string name = signal_name(s);
  switch (s) {
    case 9:
      // SIGKILL comes from outside the process: the OOM killer, or the launcher or scheduler
      // tearing the job down once another rank failed. Only the OOM killer's own lines make
      // it the first fault.
      if (oom_evidence) return {"host-oom", Role::kCause, "was killed by the OOM killer (SIGKILL)"};
      return {
          "host-oom", Role::kSymptom,
          "was killed with SIGKILL (by the OOM killer, the scheduler or the launcher's teardown)"};
    case 7:
      return read_sigbus(shm_evidence, hardware_evidence);
    case 4:
      return read_sigill();
    case 5:
    case 6:
    case 8:
    case 11:
    case 31:
      return {"process-crash", Role::kCause, "crashed with " + name};
    default:
      // SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGUSR*: someone ended the process, usually the
      // launcher stopping the other ranks after the first failure.
      return {"process-crash", Role::kSymptom, "was stopped with " + name};
  }
}

}  // namespace ff::analysis
