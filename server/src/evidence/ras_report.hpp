// NCCL's RAS client output (`ncclras`, NCCL 2.24+) read as evidence: the text report, its
// JSON form (`ncclras -f json`, 2.28.7+) and monitor-mode events (`ncclras -m`, 2.29+, text
// or JSON). RAS lists the ranks of a communicator grouped by how many operations they have
// launched, and prints the members of small groups only; when the few ranks it names are
// the ones that got ahead, the stuck ranks are everyone else (NVIDIA/nccl#1911). This reader
// names the ranks that are behind either way.
//
// Pure: text in, a report or an error naming the place out; no I/O. Formats follow
// NVIDIA/nccl v2.30.7 src/ras/client_support.cc and
// docs/userguide/source/troubleshooting/ras.rst.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ff::evidence {

enum class RasFormat { kText, kJson, kMonitorText, kMonitorJson };
const char* ras_format_name(RasFormat f);

struct RasProcess {
  std::string host;
  long long pid = -1;
  std::string gpu;  // as RAS prints it ("5", "0,1"), empty when not known
  std::size_t line = 0;  // 0-based line where a dead or unreachable process is listed
};

struct RasRank {
  int rank = -1;
  RasProcess process;
};

// Ranks of one communicator that launched the same number of operations of one kind.
struct RasCountGroup {
  std::string op;                // "collective" (before 2.26) or the type: "AllReduce", ...
  int ranks = 0;                 // how many ranks RAS counted in the group
  long long launched = 0;        // up to which operation they launched (0: none)
  std::vector<RasRank> members;  // the members RAS listed (small groups only)
};

struct RasCommunicator {
  std::string id;                     // "#0-0" in the text report, "" in JSON
  std::string hash;                   // communicator hash as printed
  int size = 0;                       // ranks in the communicator, 0 when the report does not say
  std::vector<std::string> problems;  // "MISMATCH", "INCOMPLETE", "ERROR"
  std::vector<RasCountGroup> counts;
  std::vector<RasRank> missing;  // ranks RAS could not get data from
  std::size_t missing_line = 0;  // 0-based line listing them (the communicator's in JSON)
  std::vector<RasRank> errored;  // ranks with an initialisation or asynchronous error (JSON)
  // The conclusion: ranks that launched fewer operations than the most advanced ones. When
  // RAS listed only the ranks ahead, these are derived by inversion (`behind_inferred`).
  std::vector<int> behind;
  std::vector<int> ahead;
  bool behind_inferred = false;
  // When the input holds several reports (repeated queries), whether this communicator's
  // counts were the same in the previous report (`kFrozen`: the ranks behind are stuck) or
  // moved on (`kAdvancing`: a mismatch RAS sampled in passing).
  enum class Trend { kSingle, kFrozen, kAdvancing } trend = Trend::kSingle;
  std::size_t line = 0;  // 0-based line where the communicator is reported
};

struct RasEvent {
  std::string time;
  std::string event;  // "PEER_DEAD", "PEER_NEW", ...
  RasProcess peer;
  std::size_t line = 0;
};

struct RasReport {
  RasFormat format = RasFormat::kText;
  std::string nccl_version;
  std::vector<RasCommunicator> communicators;
  std::vector<RasProcess> dead;         // processes RAS declared dead
  std::vector<RasProcess> unreachable;  // processes that sent no communicator data
  std::vector<RasEvent> events;         // monitor mode
  // What the report says, one sentence each, most important first.
  std::vector<std::string> conclusions;
  // Ranks to look at first: the ranks behind on communicators with a count mismatch, then
  // the missing ranks; without rank numbers, the dead processes are named in `conclusions`.
  std::vector<int> stuck_ranks;
  // Reports in the input (a file that appends the output of repeated queries); the
  // communicators are those of the last one, compared with the one before.
  std::size_t reports = 1;
};

struct RasParseError {
  std::size_t line = 0;  // 1-based
  std::string message;
};

// Whether `text` is RAS client output in one of the four forms (a cheap look at its start).
bool looks_like_ras(std::string_view text);

// Reads RAS client output. Text that is none of the forms, or JSON that is broken or of
// another shape, gives an error naming the line.
std::variant<RasReport, RasParseError> parse_ras(std::string_view text);

}  // namespace ff::evidence
