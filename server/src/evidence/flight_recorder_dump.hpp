// One rank's PyTorch Flight Recorder dump, typed: what the dump code writes
// (pytorch/pytorch torch/csrc/distributed/c10d/FlightRecorderDetail.hpp, dump_dict and
// dump_json; NCCLUtils.hpp's NCCLTraceBuffer before v2.6), read from its pickle or JSON form.
//
// Layouts by the dump's own "version" field:
//   2.3, 2.4  (PyTorch 2.4, 2.5: NCCLTraceBuffer in NCCLUtils.hpp) version, pg_config,
//             pg_status, entries, nccl_comm_state
//   2.7       (FlightRecorder.hpp) adds nccl_version and each entry's thread_id/thread_name
//   2.10      (FlightRecorder.hpp) nccl_version becomes comm_lib_version
// Readers accept every 2.x; fields a layout lacks stay empty.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ff::evidence {

enum class FrState : std::uint8_t { kScheduled, kStarted, kCompleted, kUnknown };

std::string_view to_string(FrState s);

struct FrEntry {
  std::int64_t record_id = 0;
  std::int64_t pg_id = 0;
  std::string pg_name;  // process_group[0]: keys pg_config
  std::string pg_desc;  // process_group[1]: the user's label ("default_pg", "tp"...)
  std::int64_t collective_seq_id = 0;
  std::int64_t p2p_seq_id = 0;
  std::int64_t op_id = 0;
  std::string profiling_name;  // "nccl:all_reduce", "nccl:send 1->2"
  std::int64_t time_created_ns = 0;
  std::vector<std::vector<std::int64_t>> input_sizes, output_sizes;
  std::vector<std::string> input_dtypes, output_dtypes;
  FrState state = FrState::kUnknown;
  std::optional<std::int64_t> time_discovered_started_ns, time_discovered_completed_ns;
  bool retired = false;
  std::int64_t timeout_ms = 0;
  bool is_p2p = false;
  std::string thread_name;  // 2.10
  std::string frame;        // the innermost frame "name file:line" when the dump has stacks

  // The operation without its "nccl:" (or other backend) prefix and P2P peers: "all_reduce".
  std::string_view op_type() const;
};

struct FrProcessGroup {
  std::string name;
  std::string desc;
  std::vector<int> ranks;  // global ranks, from the "[0, 1, ...]" string
};

struct FrPgStatus {
  std::int64_t last_enqueued = -1;
  std::int64_t last_started = -1;
  std::int64_t last_completed = -1;
};

struct FlightRecorderDump {
  std::string file;         // as given by the caller
  std::string host;         // from the file name when it carries one
  std::optional<int> rank;  // from the file name (the dump holds no rank of its own)
  std::string version;      // "2.10"
  std::string comm_lib_version;
  std::map<std::string, FrProcessGroup> pg_config;  // by pg_name
  std::map<std::string, FrPgStatus> pg_status;      // by str(pg_id)
  std::vector<FrEntry> entries;                     // oldest first
  bool from_json = false;
};

struct DumpError {
  // Byte offset in the file where reading stopped; kNoOffset for a JSON dump's content
  // errors (the JSON parser's values keep no position).
  static constexpr std::size_t kNoOffset = static_cast<std::size_t>(-1);
  std::size_t offset = 0;
  std::string message;
};

// True when `head` (the first bytes of a file) looks like a Flight Recorder dump: a pickle
// (0x80 and a protocol byte 2 to 5) or a JSON object naming the dump's keys.
bool looks_like_flight_recorder_dump(std::string_view head);

// Reads one dump. `file` names it in the result. Returns false with `error` filled when the
// bytes are not a readable dump of a supported version; never throws.
bool read_flight_recorder_dump(std::string_view file, std::string_view bytes,
                               FlightRecorderDump& out, DumpError& error);

// The rank and host a dump's file name carries: "<prefix><rank>" as PyTorch's
// DebugInfoWriter writes (nccl_trace_rank_12), or host and rank ("nccl_trace_node7_12",
// "node7-rank12.pkl"). False when no rank is in the name.
bool rank_from_dump_name(std::string_view filename, int& rank, std::string& host);

}  // namespace ff::evidence
