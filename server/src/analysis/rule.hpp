// A rule is one failure signature: patterns that recognise its lines plus everything a
// person needs once it matched. Rules are plain data; the JSON loader in server/src/rules
// builds them, the analysis core only reads them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ff::analysis {

// What a matching line says about the failure.
//   cause:   the line can be the first fault (it becomes a hypothesis of its own)
//   symptom: the line is a consequence (watchdog timeouts, re-raised errors); it explains the
//            failure only when no cause is in the log, and is collateral otherwise
//   context: the line explains the setting (versions, chosen transports); never a diagnosis
//   finding: an observation that is not a failure by itself (a channel without GDRDMA, a
//            bootstrap socket on a virtual interface); reported as a finding, and a cause
//            only when the log also shows a failure of a category it `explains`
//   fallback: a generic error-level line (an uncaught exception, a glog E line, a failed
//            exit); the earliest one is the initiating line only when nothing specific is
//            in the log
enum class Role { kCause, kSymptom, kContext, kFinding, kFallback };

// The role's name in rule files and reports.
inline const char* role_name(Role r) {
  switch (r) {
    case Role::kCause: return "cause";
    case Role::kSymptom: return "symptom";
    case Role::kContext: return "context";
    case Role::kFinding: return "finding";
    case Role::kFallback: return "fallback";
  }
  return "cause";
}

// How the core reads a rule's captures beyond who the line is about.
//   kExitStatus: the `signal`, `returncode` or `exitcode` capture says how a rank ended;
//                the core decodes it into a category and a role (exit_status.hpp).
//   kNcclSource: the NCCL source file the line names (its `nccl_file` capture, or NCCL's
//                own prefix) gives the category when it belongs to one subsystem
//                (nccl_source.hpp); otherwise the rule's category stands.
//   kFrame:      the line is a stack frame (or names the library a crash happened in) of
//                code that belongs to one subsystem, the rule's category; a crash report
//                takes its category from its innermost such frame (diagnosis.cpp). With
//                role context only: a frame is never evidence on its own.
//   kProgress:   the line counts a rank's progress (a step, a batch); the scan makes no
//                events of it. When the job is known to have failed, the last such lines
//                of each rank are compared (progress.hpp) and the one rank whose counter
//                stopped behind is the rule's one event; ranks two or more steps apart
//                issued different collectives: category collective-mismatch. Role finding
//                with only_under_failure only.
//   kStack:      the line is a frame of a stack dump that waits in a collective (py-spy's
//                "    all_reduce (torch/distributed/distributed_c10d.py:2501)"); the scan
//                makes no events of it. When the job is known to have failed, the dumped
//                main-thread stacks are compared (stacks.hpp): the first one outside every
//                collective, while more wait in one, is the rule's one event. Role finding
//                with only_under_failure only.
//   kTraceback:  the line opens a Python traceback ("Traceback (most recent call last):");
//                the scan makes no events of it. When the job is known to have failed, an
//                input that ends inside a traceback (cut before its exception line: a paste
//                that stopped short) gives the rule one event, the innermost frame's code
//                line (cut_traceback.hpp). Role finding with only_under_failure only.
enum class Decode { kNone, kExitStatus, kNcclSource, kFrame, kProgress, kStack, kTraceback };

// Whether the rule's lines are read after the scan, by their own module (progress.hpp,
// stacks.hpp), never by the scan: a training loop prints a counter on every step, a dump
// a frame per line.
inline bool read_after_scan(Decode d) {
  return d == Decode::kProgress || d == Decode::kStack || d == Decode::kTraceback;
}

struct Check {
  std::string text;
  // RE2 patterns; when any line of the log matches one, the check is shown as satisfied.
  std::vector<std::string> evidence;
};

struct Fix {
  // Fixes the fix engine makes beyond the environment (docs/RULES.md): "nccl-ib-hca-binding"
  // (each rank bound to its PCIe-local HCA, from the topology), "shm-size" (the
  // container's /dev/shm).
  std::vector<std::string> actions;
  std::string summary;
  std::vector<std::pair<std::string, std::string>> env;  // variable -> value, in order
  std::vector<std::string> steps;
};

struct Verify {
  std::string command;
  std::string expect;  // the line that proves the fix worked
};

struct Related {
  std::string rule;
  std::string distinguish;  // the variable or observation that tells the two apart
};

// Cross-rank comparison: the same rule firing on many ranks is compared on these captures.
// The rank whose value is in the minority (ties: the smallest number, i.e. the one lagging)
// is the lead. When `mismatch_category` is set and values differ, the diagnosis becomes that
// category (ranks disagreeing on SeqNum/OpType is a desync, not a slow rank).
// `within` names the captures that separate lines into groups compared apart (the process
// group a line speaks for: its sequence numbers count within that group only; NCCL's opCount
// and communicator size: one call of one communicator). A participant showing two values
// of a key in one group makes that key unreadable there. A rule of role `context` with
// `mismatch_category` says nothing alone: only a mismatch makes its compared lines evidence.
// `position` names the key that is a line's place in its group's sequence of collectives
// (PyTorch's SeqNum). Timed-out ranks of one group wait at one position, or one apart when a
// rank issued a collective the others did not; with no group named, positions further
// apart than a few are of different groups, and the lines are not compared.
struct CrossRank {
  std::vector<std::string> keys;
  std::string mismatch_category;
  std::vector<std::string> within;
  std::string position;
};

// A value every line of this rule must agree on across the whole job (the NCCL release each
// rank runs, the NCCL wheel each node installed): two different values, whoever printed
// them, are a cause of `category` at `weight`, led by the rarer value (ties: the one seen
// first). `within` names a capture that keeps unrelated lines apart (a package's name:
// nvidia-nccl-cu11 and nvidia-nccl-cu12 may differ).
//
// With `distinct` (rule files: `unique`), the opposite: a value only one member of the job
// may hold (a global rank), out of as many as the `of` capture says (the world size). Two
// members claiming one value is the cause, but only when it cannot be a second round of the
// same claims (a restarted job announces every rank again): the repeated claim comes before
// some other value's first, and fewer values than members were claimed in all.
struct Agreement {
  std::string value;
  std::string within;
  std::string category;
  double weight = 0.8;
  bool distinct = false;
  std::string of;  // distinct: the capture holding how many members claim values
};

// What a failure of this signature means for the job and the node, where the category's
// default (verdict.cpp) is not right for it. Empty strings keep the category's value.
struct RuleVerdict {
  std::string fault;    // "workload", "infrastructure", "undetermined"
  std::string restart;  // "may-succeed", "will-fail", "after-node-action"
  std::string node;     // "none", "reset-gpu", "drain-and-service"
  // Xid code (as the `xid` capture prints it; "*" for any) -> the immediate resolution
  // bucket of NVIDIA's Xid catalog (RESTART_APP, RESET_GPU, RESTART_BM ...), which the core
  // turns into the three values above (verdict.cpp).
  std::vector<std::pair<std::string, std::string>> xid_resolution;
  bool empty() const {
    return fault.empty() && restart.empty() && node.empty() && xid_resolution.empty();
  }
};

// A bug of one library's releases, known from its release notes or issue tracker: data on the
// rule whose `version` capture states the release (NCCL's version banner), not a rule of its
// own, so the banner's lines stay one rule's and its `agree` comparison keeps working. A line
// whose release is in [from, fixed) makes the bug a hypothesis only when the job failed in a way
// the bug produces (`explains`), and leads only when the failure evidence is itself generic
// (known_bugs.hpp, diagnosis.cpp). A healthy log is never alarmed by it.
struct KnownBug {
  std::string id;
  std::string from;                   // first affected release, inclusive ("2.19.1")
  std::string fixed;                  // first release with the fix, exclusive; empty: not fixed yet
  std::string category;               // the cause category the bug is, usually "version"
  std::vector<std::string> explains;  // the failure categories it can show up as
  std::string summary;                // what goes wrong, one sentence
  std::string fix;                    // the upgrade, or a documented workaround
  std::vector<std::string> sources;   // release notes, issues, commits
};

struct Rule {
  std::string id;
  std::string category;
  std::string title;
  Role role = Role::kCause;
  // Prior belief, in (0, 1], that a line of this rule is the root cause (cause) or the best
  // available explanation (symptom). Specific signatures score high, generic ones low.
  double weight = 0.5;
  // Lines that mean nothing is wrong (a plugin probe, a missing optional library). They are
  // reported as context and keep a log that has nothing else in category `none`.
  bool benign = false;
  // The line is printed only when the job, or the test it runs, completed normally
  // (nccl-tests' closing summary, a launcher's "succeeded"): without a known failure, the log's
  // generic error lines are then no failure of the job (diagnosis.cpp). Role context only.
  bool success = false;
  // The line shows that the process that printed it went on working (NCCL finished setting
  // up a communicator): without a known failure, a generic error line that process printed
  // before it did not stop it (diagnosis.cpp). Role context only.
  bool progress = false;
  // The observation is what a working job shows too (NCCL's usual choice of transport), so
  // it is not listed as a finding; only when the job is known to have failed and no line
  // shows a failure does it become a hypothesis (diagnosis.cpp). Role finding only.
  bool only_under_failure = false;
  // With only_under_failure: the line is a step of setting up a communicator (NCCL binding
  // NVLS multicast memory). A working job passes it; a failed one may have stopped there.
  // It becomes a hypothesis only where it is its process's last step: a progress line of the
  // same process after it (Init COMPLETE) shows the step was passed. Of such steps the
  // latest leads (diagnosis.cpp, add_findings_under_failure). Role finding only.
  bool setup_step = false;
  // The line is printed by a thread of its producer that returns its errors to no caller
  // (NCCL's proxy service thread, which closes the one peer connection that failed and goes
  // on): the line alone never ended a job. Without a known failure it counts as an INFO-level
  // line (diagnosis.cpp, quiet_alone); under one it is the symptom its role says. Role
  // symptom only.
  bool background = false;
  // Each line says where members of the job run: one member and its host (a `host`
  // capture: nccl-tests' device table, a row per rank of the whole job), or how many nodes a
  // communicator spans (a `nodes` capture). Together they tell whether the job runs on one
  // host (diagnosis.cpp, job_on_one_host); every line is kept. Role context only.
  bool members = false;
  // The category of this rule's lines when the job runs on one host, where it differs: a
  // result code whose usual cause across nodes is the network is, on one node, most often
  // its shared memory. "none": the line concerns traffic between hosts and, on one host,
  // is only context. Empty: the category stands.
  std::string on_one_host;
  std::vector<std::string> patterns;  // RE2, unanchored, run on the ANSI-stripped line
  std::vector<std::string> exclude;   // RE2; a line matching one of these is not a hit
  std::string indicates;
  std::vector<std::string> mechanisms;
  std::vector<Check> checks;
  Fix fix;
  Verify verify;
  std::vector<Related> related;
  std::string nccl_versions;
  std::string pytorch_versions;
  std::vector<std::string> examples_match;
  std::vector<std::string> examples_no_match;
  std::optional<CrossRank> cross_rank;
  std::optional<Agreement> agree;
  std::vector<std::string> explains;  // finding: the failure categories it can explain
  // Bugs of the release this rule's `version` capture states (KnownBug); any role.
  std::vector<KnownBug> known_bugs;
  // A fallback rule's (role fallback: any error-level line) reading of a line it speaks for:
  // the first entry whose pattern (RE2, case-insensitive) matches the line's text after its
  // prefixes gives the category, so a message no specific rule knows is still named by the
  // subsystem its own words name (`/dev/shm`, `ibv_`, `NVLink`). None matching: `category`.
  struct WordCategory {
    std::string pattern;
    std::string category;
  };
  std::vector<WordCategory> words;
  Decode decode = Decode::kNone;
  std::vector<std::string> sources;  // where the message comes from: "owner/repo release path"
  RuleVerdict verdict;
  std::string origin;  // where the rule came from (a file path, or "builtin:<name>")
};

// Which rule speaks for a line several rules match: a cause, symptom or finding before a
// context rule (a benign listing included), a context rule before a fallback (a generic
// error pattern never claims a line a specific rule knows), then the higher weight. The
// scan and the linter's shadowing check agree.
inline double line_precedence(const Rule& r) {
  double tier = r.role == Role::kFallback ? 0.0 : r.role == Role::kContext ? 10.0 : 20.0;
  return tier + r.weight;
}

}  // namespace ff::analysis
