// Flight Recorder dumps of one job, compared across ranks: which rank left the others
// waiting, and how. Pure: dumps in, findings out, no I/O.
//
// Like PyTorch's fr_trace (tools/flight_recorder/components/builder.py, utils.py, types.py)
// it matches entries per process group and collective sequence number and names the same
// classes (types.py MatchState): a rank that never enqueued a collective the others did,
// COLLECTIVE_TYPE_MISMATCH, SIZE_OR_SYNTAX_MISMATCH, COLLECTIVE_DTYPE_MISMATCH,
// COLLECTIVE_STATE_MISMATCH. Unlike it, the reference is what most ranks did, not the first
// rank's trace (whose own comment warns that a culprit first rank makes healthy ranks look
// guilty); pg_status (last enqueued / completed per group) says whether a rank without an
// entry never enqueued it or only dropped it from its ring; and groups are ordered by where
// most ranks are (the "wavefront", as NVIDIA resiliency-ext's fr_attribution does).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "evidence/flight_recorder_dump.hpp"

namespace ff::evidence {

enum class FrFindingKind : std::uint8_t {
  kMissing,        // the culprits never enqueued a collective most ranks enqueued
  kAhead,          // the culprits enqueued a collective most ranks never did (an extra one)
  kTypeMismatch,   // COLLECTIVE_TYPE_MISMATCH
  kSizeMismatch,   // SIZE_OR_SYNTAX_MISMATCH
  kDtypeMismatch,  // COLLECTIVE_DTYPE_MISMATCH
  kStateMismatch,  // COLLECTIVE_STATE_MISMATCH
  kNoDump,         // every dumped rank waits in the same collective; the culprits wrote no dump
};

// fr_trace's name for the class ("COLLECTIVE_TYPE_MISMATCH"); "MISSING_RANKS",
// "EXTRA_COLLECTIVE" and "NO_DUMP" for the kinds fr_trace has no MatchState for.
std::string_view match_state_name(FrFindingKind k);

struct FrFinding {
  FrFindingKind kind = FrFindingKind::kMissing;
  std::vector<int> culprits;  // global ranks, ascending; the first is named
  std::string culprit_host;   // of the first culprit, when its file name says
  std::string pg_name, pg_desc;
  std::int64_t seq = 0;         // collective_seq_id
  std::string op;               // what the majority ran ("nccl:all_reduce")
  std::string expected, found;  // the majority's and the culprit's value of what differs
  std::size_t majority = 0;     // ranks that agree
  std::size_t members = 0;      // ranks of the group
  std::string frame;            // where the majority's code issued it, when stacks exist
};

struct FrGroupProgress {
  std::string pg_name, pg_desc;
  std::size_t members = 0;
  std::size_t dumped = 0;           // members with a dump
  std::size_t here = 0;             // ranks whose newest work is in this group (wavefront)
  std::int64_t last_enqueued = -1;  // the most common value across dumped members
  std::int64_t last_completed = -1;
};

struct FlightRecorderAnalysis {
  std::size_t dumps = 0;
  std::string version;                  // the most common; mixed versions are a note
  std::vector<FrFinding> findings;      // the lead first: wavefront group first, then by group, seq
  std::vector<FrGroupProgress> groups;  // wavefront first
  std::vector<int> ranks_without_dump;  // group members no dump came from
  std::vector<std::string> notes;       // things the reader should know (mixed versions...)
};

// `dumps` must carry their rank (FlightRecorderDump::rank); those without are ignored.
FlightRecorderAnalysis analyze_flight_recorder(std::span<const FlightRecorderDump> dumps);

// One line per finding, then one summary line: text the rule catalog reads like any log
// (rules/flight-recorder-*.json), so the category decision stays with the rules.
std::vector<std::string> render_flight_recorder(const FlightRecorderAnalysis& a);

// "[0-3, 5, 9]"
std::string format_ranks(const std::vector<int>& ranks);

}  // namespace ff::evidence
