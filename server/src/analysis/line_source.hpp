// Who wrote a line and when, read from the prefixes launchers and libraries put in front of
// it. Every field is optional: a pasted five-line excerpt usually carries none of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ff::analysis {

// NCCL's levels; DIAG (2.31: RAS and active diagnostics) and ATTN (2.32: important
// non-fatal conditions, between WARN and INFO) are the newest.
enum class NcclLevel { kNone, kInfo, kWarn, kTrace, kError, kAbort, kDiag, kAttn };

// The severity the line's own prefix states (glog/c10 "[E...]", NCCL's level), when it has one.
enum class Severity { kUnknown, kInfo, kWarning, kError, kFatal };

enum class TimeKind {
  kNone,
  kWallClock,      // a calendar date and time (ISO 8601, Python logging, NCCL's own stamp)
  kWallClockNoYear,  // month, day and time without a year (glog, syslog)
  kKernelUptime,   // dmesg "[12345.678901]": seconds since boot, comparable within one host
};

struct LineSource {
  std::optional<int> rank;        // global rank, from a launcher prefix or the message
  std::optional<int> local_rank;  // torchelastic local_rank / Slurm local id when stated
  std::string host;               // from NCCL's header, pdsh/DeepSpeed prefix or UCX
  std::optional<std::int64_t> pid;
  std::optional<std::int64_t> tid;
  std::optional<int> device;      // NCCL's "[dev]" (the CUDA device index of the rank)
  NcclLevel level = NcclLevel::kNone;
  Severity severity = Severity::kUnknown;
  std::string nccl_file;          // "transport/net_ib.cc:1295" in an NCCL WARN header
  TimeKind time_kind = TimeKind::kNone;
  double time = 0;                // seconds (epoch-less for glog: seconds since midnight)
  std::size_t body = 0;           // offset where the message proper starts
};

// Peels known prefixes off the (escape-stripped) line in any order they nest:
//   Ray "(Worker pid=12) ", torchrun "[rank3]:" / "[default3]:", Open MPI "[1,3]<stderr>:",
//   Slurm "3: ", pdsh/DeepSpeed "host: ", timestamps, glog / c10d "[E1203 10:11:12.12 1 f.cc:1]",
//   NCCL "host:pid:tid [dev] [file.cc:line] NCCL INFO|WARN", UCX "[host:pid:tid:dev]".
LineSource parse_line_source(std::string_view line);

// The bytes in front of a producer's own line that something carrying the line put there:
// Markdown quoting, srun --label ("3: "), mpirun --tag-output ("[1,3]<stderr>:"), torchrun
// ("[rank3]:"), Ray ("(pid=12) "), a collector's timestamp (kubectl --timestamps, ISO 8601),
// docker compose ("trainer-1  | "), journald and syslog ("Dec  5 10:11:12 node1 python[42]: "),
// in any nesting. The scan also matches the rules against the line without them, so a
// pattern that starts where its producer's line starts still matches a carried line.
// 0 when the line starts with none of them.
std::size_t carrier_prefix_length(std::string_view line);
// The producer's own line: `line` past what carried it (carrier_prefix_length).
inline std::string_view past_carrier(std::string_view line) {
  return line.substr(carrier_prefix_length(line));
}

// Parses a timestamp at the start of `s`; returns the number of bytes consumed (0 if none).
std::size_t parse_timestamp(std::string_view s, TimeKind& kind, double& seconds);

}  // namespace ff::analysis
