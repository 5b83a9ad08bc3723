#include "analysis/diagnosis.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "analysis/exit_status.hpp"
#include "analysis/known_bugs.hpp"
#include "analysis/line_source.hpp"
#include "analysis/nccl_source.hpp"

namespace ff::analysis {

namespace {

// A symptom explains a failure less well than a cause does; when a log has nothing but
// symptoms, the best of them still yields a diagnosis, at a discount.
constexpr double kSymptomDiscount = 0.6;
// Ranks disagreeing on what collective they are in is itself a root cause (a desync).
constexpr double kMismatchScore = 0.7;
// torchelastic's own "Root Cause (first observed failure)" record is strong evidence.
constexpr double kRootCauseRecordBonus = 0.1;
constexpr double kTie = 1e-9;
// An error line whose rank the launcher then reports as failed is surer to be the fault.
constexpr double kEndedItBonus = 0.15;
// A failed exit without a signal is an error line, and the least specific one.
constexpr double kFailedExitWeight = 0.15;
// An observation is a weaker explanation than a line that shows the failure itself: under a
// known failure that no line shows, a finding becomes a hypothesis at this share of its weight.
constexpr double kFindingUnderFailure = 0.7;
// Rules below this weight match a generic word (a syscall, "internal error"), not one
// component's message (docs/RULES.md: generic signatures weigh 0.2-0.4).
constexpr double kGenericWeight = 0.5;
// A known bug of the job's release that produces the failure the log shows only through generic
// evidence leads it: at least at this score, and above every such hypothesis by the margin.
constexpr double kKnownBugLead = 0.6;
constexpr double kKnownBugMargin = 0.05;
// Beside a specific cause it produces too, it is listed below it, at this share of its score.
constexpr double kKnownBugBeside = 0.5;

bool comparable_times(const Event& a, const Event& b) {
  if (a.source.time_kind == TimeKind::kNone || a.source.time_kind != b.source.time_kind)
    return false;
  if (a.source.time_kind == TimeKind::kKernelUptime) return a.source.host == b.source.host;
  return true;
}

// Log order is not time order: a merged log often prints a victim before the cause. Use
// timestamps when both lines have comparable ones, file and line order otherwise.
bool happened_before(const Event& a, const Event& b) {
  if (comparable_times(a, b) && a.source.time != b.source.time)
    return a.source.time < b.source.time;
  if (a.file != b.file) return a.file < b.file;
  return a.line < b.line;
}

std::string participant(const Event& e) {
  if (e.source.rank) return "rank " + std::to_string(*e.source.rank);
  std::string key = e.source.host;
  if (e.source.pid) key += ":" + std::to_string(*e.source.pid);
  if (e.source.device) key += " [" + std::to_string(*e.source.device) + "]";
  return key;
}

std::optional<double> numeric(std::string_view s) {
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc()) return std::nullopt;
  return v;
}

struct CrossRankFinding {
  std::size_t lead;  // event index
  std::string key;
  std::string lead_value;
  std::string majority_value;
  std::vector<std::size_t> members;  // the first line of each participant compared
  std::size_t participants = 0;
};

// Timed-out ranks of one process group wait at one position of its sequence of collectives,
// or a step or two apart when one issued a collective the others did not (its later ones
// then pair with the others' earlier ones). Positions further apart are different groups'
// (PyTorch before 2.2 names no group): 20518 and 369526 are two groups' counters.
constexpr double kSameSequenceSpread = 8;
bool one_sequence(const std::vector<Event>& events, const std::vector<std::size_t>& members,
                  const std::string& position) {
  std::optional<double> lo, hi;
  for (std::size_t i : members) {
    auto v = numeric(events[i].capture(position));
    if (!v) continue;
    lo = lo ? std::min(*lo, *v) : *v;
    hi = hi ? std::max(*hi, *v) : *v;
  }
  return !lo || *hi - *lo <= kSameSequenceSpread;
}

// Compares one rule's events across ranks on the rule's cross-rank keys, within one group
// of lines (one process group). Most ranks are healthy; the outlier is the story.
std::optional<CrossRankFinding> compare_group(const std::vector<Event>& events,
                                              const std::vector<std::size_t>& of_group,
                                              const CrossRank& spec, bool group_known) {
  // First event per participant, in time order.
  std::vector<std::size_t> sorted = of_group;
  std::sort(sorted.begin(), sorted.end(),
            [&](std::size_t a, std::size_t b) { return happened_before(events[a], events[b]); });
  std::map<std::string, std::size_t> first;
  std::vector<std::size_t> members;
  for (std::size_t i : sorted) {
    std::string p = participant(events[i]);
    if (p.empty()) continue;
    if (first.emplace(p, i).second) members.push_back(i);
  }
  if (members.size() < 2) return std::nullopt;
  if (!group_known && !spec.position.empty() && !one_sequence(events, members, spec.position))
    return std::nullopt;
  // One participant with two values in one group: its lines may come from several process
  // groups, whose sequence numbers are unrelated (old PyTorch prints no group), or from two
  // communicators at the same position (NCCL's opCount counts per communicator, and a
  // group launch gives several calls one opCount), so which is its value is unknown.
  auto self_disagrees = [&](const std::string& key) {
    for (std::size_t i : sorted) {
      auto v = events[i].capture(key);
      if (!v.empty() && events[first[participant(events[i])]].capture(key) != v) return true;
    }
    return false;
  };
  for (const auto& key : spec.keys) {
    if (self_disagrees(key)) continue;
    std::map<std::string, std::vector<std::size_t>> by_value;
    for (std::size_t i : members) {
      auto v = events[i].capture(key);
      if (v.empty()) continue;
      by_value[std::string(v)].push_back(i);
    }
    if (by_value.size() < 2) continue;
    // Minority value: the smallest group; among groups of that size, the smaller number (a
    // lagging sequence number, fewer enqueued collectives). Undecided when the smallest
    // groups tie and their values have no order. The majority is the largest other group.
    using Group = std::pair<const std::string, std::vector<std::size_t>>;
    std::size_t smallest = members.size();
    for (const auto& entry : by_value) smallest = std::min(smallest, entry.second.size());
    const Group* minority = nullptr;
    bool undecided = false;
    for (const auto& entry : by_value) {
      if (entry.second.size() != smallest) continue;
      if (!minority) {
        minority = &entry;
        continue;
      }
      auto a = numeric(entry.first), b = numeric(minority->first);
      if (!a || !b) {
        // Values without an order (two operations): who lags is unknown, but ranks that
        // disagree on a mismatch rule's key issued different collectives whoever lags; the
        // one that said so first leads.
        if (spec.mismatch_category.empty()) {
          undecided = true;
          break;
        }
        if (happened_before(events[entry.second.front()], events[minority->second.front()]))
          minority = &entry;
        continue;
      }
      if (*a < *b) minority = &entry;
    }
    // When every group is the same size, only an order says who lags, and only a desync
    // rule (its values are positions in one sequence of collectives) has one.
    std::size_t largest = 0;
    for (const auto& entry : by_value) largest = std::max(largest, entry.second.size());
    if (largest == smallest && spec.mismatch_category.empty()) undecided = true;
    if (undecided || !minority) continue;
    const Group* majority = nullptr;
    for (const auto& entry : by_value)
      if (&entry != minority && (!majority || entry.second.size() > majority->second.size()))
        majority = &entry;
    return CrossRankFinding{minority->second.front(), key,     minority->first,
                            majority->first,          members, members.size()};
  }
  return std::nullopt;
}

// A rule's events compared across ranks, separately for each value of the `within` captures
// (a process group's id: sequence numbers count per group; NCCL's opCount and the
// communicator's size: its calls count per communicator). The largest group that shows an
// outlier speaks.
std::optional<CrossRankFinding> compare_across_ranks(const std::vector<Event>& events,
                                                     const std::vector<std::size_t>& of_rule,
                                                     const CrossRank& spec) {
  std::map<std::vector<std::string_view>, std::vector<std::size_t>> groups;
  for (std::size_t i : of_rule) {
    std::vector<std::string_view> group;
    for (const auto& capture : spec.within) group.push_back(events[i].capture(capture));
    groups[group].push_back(i);
  }
  std::optional<CrossRankFinding> best;
  for (const auto& [group, lines] : groups) {
    const bool named =
        std::any_of(group.begin(), group.end(), [](std::string_view v) { return !v.empty(); });
    auto f = compare_group(events, lines, spec, named);
    if (f && (!best || f->participants > best->participants)) best = f;
  }
  return best;
}

// A rule's `agree` value across the job (rule.hpp, Agreement): the lead of a disagreement
// and why, or nothing when every line agrees.
struct Disagreement {
  std::size_t lead;
  std::vector<std::size_t> lines;  // every line of the disagreeing group, lead included
  std::string reason;
};

// A `unique` value (Agreement::distinct) claimed twice in one round of claims: the lead is
// the repeated claim, the lines every claim of the group.
std::optional<Disagreement> find_duplicate_claim(const std::vector<Event>& events,
                                                 const std::vector<std::size_t>& of_rule,
                                                 const Agreement& spec) {
  // Per group (the `within` capture and the member count), the claims in the order written.
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> groups;
  for (std::size_t i : of_rule) {
    if (events[i].capture(spec.value).empty() || events[i].capture(spec.of).empty()) continue;
    groups[{std::string(events[i].capture(spec.within)), std::string(events[i].capture(spec.of))}]
        .push_back(i);
  }
  for (auto& [key, claims] : groups) {
    std::sort(claims.begin(), claims.end(),
              [&](std::size_t a, std::size_t b) { return happened_before(events[a], events[b]); });
    auto stated = numeric(key.second);
    if (!stated || *stated < 1 || *stated > 1e9) continue;
    const auto members = static_cast<std::size_t>(*stated);
    std::set<std::string_view> values;
    for (std::size_t i : claims) values.insert(events[i].capture(spec.value));
    if (values.size() >= members || claims.size() < members) continue;
    // The earliest repeated claim that comes before some value's first claim: one round.
    std::map<std::string, std::size_t> seen;
    for (std::size_t k = 0; k < claims.size(); ++k) {
      std::string v(events[claims[k]].capture(spec.value));
      auto [it, fresh] = seen.emplace(v, claims[k]);
      if (fresh || seen.size() == values.size()) continue;
      Disagreement d{claims[k], claims, ""};
      d.reason = spec.value + " " + v + " is claimed twice (lines " +
                 std::to_string(events[it->second].line + 1) + " and " +
                 std::to_string(events[claims[k]].line + 1) + ") while only " +
                 std::to_string(values.size()) + " of " + std::to_string(members) +
                 " values were claimed: two launches computed the same " + spec.value + "s";
      return d;
    }
  }
  return std::nullopt;
}

std::optional<Disagreement> find_disagreement(const std::vector<Event>& events,
                                              const std::vector<std::size_t>& of_rule,
                                              const Agreement& spec) {
  if (spec.distinct) return find_duplicate_claim(events, of_rule, spec);
  // Per group (the `within` capture), each value's lines, values in order of first sight.
  std::map<std::string, std::vector<std::pair<std::string, std::vector<std::size_t>>>> groups;
  for (std::size_t i : of_rule) {
    auto v = events[i].capture(spec.value);
    if (v.empty()) continue;
    auto& values = groups[std::string(events[i].capture(spec.within))];
    auto it =
        std::find_if(values.begin(), values.end(), [&](const auto& e) { return e.first == v; });
    if (it == values.end())
      values.push_back({std::string(v), {i}});
    else
      it->second.push_back(i);
  }
  for (const auto& [within, values] : groups) {
    if (values.size() < 2) continue;
    const auto* rare = &values.front();
    for (const auto& v : values)
      if (v.second.size() < rare->second.size()) rare = &v;
    std::string others;
    for (const auto& v : values)
      if (&v != rare) others += (others.empty() ? "" : ", ") + v.first;
    Disagreement d{rare->second.front(), {}, ""};
    for (const auto& v : values) d.lines.insert(d.lines.end(), v.second.begin(), v.second.end());
    d.reason = (within.empty() ? std::string() : within + ": ") + rare->first + " here, " + others +
               " elsewhere in the job; they must be the same everywhere";
    return d;
  }
  return std::nullopt;
}

struct Hypothesis {
  std::string category;
  double score = 0;
  std::vector<std::size_t> events;
  std::optional<std::size_t> lead;  // forced initiating event (cross-rank outlier)
  std::string lead_reason;
  bool from_symptoms = false;
  std::optional<std::size_t> known_bug;  // index in the lead's rule's known_bugs
};

// What one event says, once its rule and captures are read: most events say what their
// rule says; an exit-status event says what its decoded ending implies.
struct Reading {
  std::string category;
  Role role = Role::kContext;
  bool summary = false;  // a launcher's account of how a rank ended, not the fault itself
  std::string meaning;   // for summaries: "crashed with SIGSEGV"
  std::optional<int> signal;  // for summaries: the signal that ended the process, if one did
  // A crash report's innermost recognised frame, which gave it its category: the frame's
  // event, or the crash line itself when the line names the library (kernel segfault lines).
  std::optional<std::size_t> frame_event;
  std::optional<std::size_t> frame_rule;  // set when a frame gave the category
};

// How far below a crash report's header its frames may stand: Open MPI's handler prints a
// few lines of signal details, then up to a few dozen frames; gdb prints the frames right
// after "received signal".
constexpr std::size_t kFrameWindow = 64;

// How far below an exception's first line it quotes the message that began it (NCCL's
// "Last error:" block: the error, its code's name, "Last error:", the message), and how long a
// quoted message must be to name one failure and not a common word.
constexpr std::size_t kQuoteDistance = 6;
constexpr std::size_t kMinQuoted = 24;

// How far above a cause its producer's observation may stand to be the reason for it (the
// lines of one failed set-up step: the observation, the step's error, its caller's).
constexpr std::size_t kReasonDistance = 8;

// How far above a WARN NCCL's error trace may have begun (one trace line per frame the error
// returned through, and the WARNs of callers that add what they were doing).
constexpr std::size_t kChainDistance = 16;

constexpr int kSigabrt = 6;

// Categories whose symptoms say a process ended or its device failed (lead_timeouts_with_...).
const std::set<std::string> kEnds = {"process-crash", "host-oom", "gpu-oom", "cuda", "hardware"};
// Below this weight a symptom is a teardown line (std::terminate after the watchdog's own
// exception, 0.15) that reports no end of its own.
constexpr double kEndWeight = 0.3;

// How far above an uncaught exception's last line the frames of its traceback may stand.
constexpr std::size_t kTracebackWindow = 48;

// The kind of failure the outcome alone says: a hang is `straggler`; an exit status that
// decodes to a failure (139: SIGSEGV, a crash) its category; anything else, none.
std::optional<std::string> outcome_category(const JobOutcome& outcome) {
  if (outcome.hung()) return "straggler";
  if (!outcome.exit_code || *outcome.exit_code == 0) return std::nullopt;
  const std::string code = std::to_string(*outcome.exit_code);
  auto status =
      *outcome.exit_code < 0 ? decode_exit_status({}, code, {}) : decode_exit_status({}, {}, code);
  if (!status) return std::nullopt;
  ExitReading x = read_exit_status(*status, false, false);
  if (x.category.empty() || x.role != Role::kCause) return std::nullopt;
  return x.category;
}

// Both lines name their writer, and it is the same one (rank, or host and pid).
bool same_writer(const Event& a, const Event& b) {
  if (a.source.rank && b.source.rank) return *a.source.rank == *b.source.rank;
  return a.source.pid && b.source.pid && *a.source.pid == *b.source.pid &&
         a.source.host == b.source.host;
}

// A line that names no rank, pid or host.
bool no_writer(const Event& e) {
  return !e.source.rank && !e.source.pid && e.source.host.empty();
}

bool same_process(const Event& a, const Event& b) {
  if (a.source.rank && b.source.rank && *a.source.rank != *b.source.rank) return false;
  if (a.source.pid && b.source.pid && *a.source.pid != *b.source.pid) return false;
  return a.source.host.empty() || b.source.host.empty() || a.source.host == b.source.host;
}

// The first of `frames` (in (file, line) order) below the line of event `c`.
std::vector<std::size_t>::const_iterator frames_after(const std::vector<Event>& events,
                                                      const std::vector<std::size_t>& frames,
                                                      const Event& c) {
  return std::lower_bound(frames.begin(), frames.end(), 0, [&](std::size_t f, int) {
    const Event& e = events[f];
    return e.file < c.file || (e.file == c.file && e.line <= c.line);
  });
}

// Whether the frame event `frame`, of the same process as `c`, places `c` in a subsystem more
// specific than "a crash"; if so, `reading` takes its category and remembers the frame.
bool placed_by_frame(const std::vector<Rule>& rules, const std::vector<Event>& events,
                     const Event& c, std::size_t frame, Reading& reading) {
  const Event& f = events[frame];
  if (!same_process(c, f) || rules[f.rule].category == "process-crash") return false;
  reading.category = rules[f.rule].category;
  reading.frame_event = frame;
  reading.frame_rule = f.rule;
  return true;
}

// The subsystem a crash happened in, from the frames of its report (rules with decode
// "frame"): a frame rule matching the crash line itself (the kernel names the library on
// it), else the first frame below the line, in the same file and process, that names a
// subsystem more specific than "a crash" (innermost first, as the producers print them;
// frames of libc, the signal trampoline or Python match no frame rule).
void find_frame(const Catalog& catalog, const std::vector<Event>& events,
                const std::vector<std::size_t>& frames, std::size_t crash, Reading& reading) {
  const auto& rules = catalog.rules();
  const Event& c = events[crash];
  std::vector<PatternHit> hits;
  std::vector<std::pair<std::size_t, std::size_t>> checks;
  std::vector<int> scratch;
  catalog.match(c.text, hits, checks, scratch);
  const PatternHit* best = nullptr;
  for (const auto& h : hits)
    if (rules[h.rule].decode == Decode::kFrame &&
        (!best || rules[h.rule].weight > rules[best->rule].weight))
      best = &h;
  if (best && rules[best->rule].category != "process-crash") {
    reading.category = rules[best->rule].category;
    reading.frame_rule = best->rule;
    return;
  }
  for (auto it = frames_after(events, frames, c); it != frames.end(); ++it) {
    const Event& f = events[*it];
    if (f.file != c.file || f.line > c.line + kFrameWindow) break;
    if (placed_by_frame(rules, events, c, *it, reading)) return;
  }
}

// The subsystem an uncaught exception was raised in: Python prints a traceback's frames
// above the exception's last line, innermost last, so the nearest frame above it, in the same
// file and process, that a frame rule places in a subsystem gives the category. Only frame
// rules whose code raises nothing but that subsystem's failures (a rendezvous handler) are
// written for Python, since a frame nothing places is passed over.
void find_traceback_frame(const std::vector<Rule>& rules, const std::vector<Event>& events,
                          const std::vector<std::size_t>& frames, std::size_t exception,
                          Reading& reading) {
  const Event& c = events[exception];
  for (auto it = frames_after(events, frames, c); it != frames.begin();) {
    --it;
    const Event& f = events[*it];
    if (f.file != c.file || f.line + kTracebackWindow < c.line) break;
    if (placed_by_frame(rules, events, c, *it, reading)) return;
  }
}

bool retries_exhausted(const Event& e) {
  auto attempt = numeric(e.capture("attempt")), attempts = numeric(e.capture("attempts"));
  return attempt && attempts && *attempts > 0 && *attempt >= *attempts;
}

// Whether the whole job runs on one host, from the lines of `members` rules, every one of
// them kept: each row of the job's member listing (nccl-tests' device table) names the same
// host, and every communicator's stated node count is 1. Unknown is not one host.
bool job_on_one_host(const std::vector<Rule>& rules, const std::vector<Event>& events,
                     const std::vector<std::size_t>& rule_hits) {
  std::string host;
  std::map<std::size_t, std::size_t> rows;  // members rule -> its lines kept
  for (const auto& e : events) {
    if (!rules[e.rule].members) continue;
    ++rows[e.rule];
    if (auto n = numeric(e.capture("nodes")); n && *n != 1) return false;
    std::string_view h = e.capture("host");
    if (h.empty()) continue;
    if (!host.empty() && h != host) return false;
    host = std::string(h);
  }
  for (const auto& [rule, kept] : rows)
    if (rule >= rule_hits.size() || rule_hits[rule] != kept) return false;  // some not kept
  return !rows.empty();
}

// The signal a crash report names, in one of the ways they write it: its name, its number,
// strsignal's words ("Bus error"). Zero: none.
int named_signal(const Event& e) {
  for (std::string_view name : {"signal", "signal_name", "signo"}) {
    std::string_view v = e.capture(name);
    if (v.empty()) continue;
    auto status = decode_exit_status(v, {}, {});
    if (status && status->signal) return *status->signal;
  }
  return 0;
}

std::vector<Reading> read_events(const Catalog& catalog, const std::vector<Event>& events,
                                 const std::vector<std::size_t>& rule_hits) {
  const auto& rules = catalog.rules();
  const bool one_host = job_on_one_host(rules, events, rule_hits);
  std::vector<std::size_t> frames;  // in (file, line) order
  for (std::size_t i = 0; i < events.size(); ++i)
    if (rules[events[i].rule].decode == Decode::kFrame) frames.push_back(i);
  std::sort(frames.begin(), frames.end(), [&](std::size_t a, std::size_t b) {
    return events[a].file != events[b].file ? events[a].file < events[b].file
                                            : events[a].line < events[b].line;
  });
  // The OOM killer's and shared memory's own lines decide what a SIGKILL or SIGBUS means.
  bool oom = false, shm = false, hardware = false;
  for (const auto& e : events) {
    const Rule& r = rules[e.rule];
    if (r.decode != Decode::kNone || r.role != Role::kCause) continue;
    oom = oom || r.category == "host-oom";
    shm = shm || r.category == "shm";
    hardware = hardware || r.category == "hardware";
  }
  std::vector<Reading> out;
  out.reserve(events.size());
  for (const auto& e : events) {
    const Rule& r = rules[e.rule];
    Reading reading{r.category, r.benign ? Role::kContext : r.role, false, {}};
    if (one_host && !r.on_one_host.empty()) {
      reading.category = r.on_one_host;
      // "none": what the line observes concerns traffic between hosts (no IB device, a
      // virtual interface for sockets); on one host it explains nothing.
      if (r.on_one_host == "none") reading.role = Role::kContext;
    }
    if (r.decode == Decode::kExitStatus && !r.benign) {
      auto status =
          decode_exit_status(e.capture("signal"), e.capture("returncode"), e.capture("exitcode"));
      if (!status) {
        reading.role = Role::kFallback;  // a failed end we cannot decode is still an error line
      } else {
        reading.signal = status->signal;
        ExitReading x = read_exit_status(*status, oom, shm, hardware);
        if (x.category.empty()) {
          reading.role = Role::kContext;  // exit 0: a clean end
        } else {
          reading.category = x.category;
          reading.role = x.role;
          reading.meaning = x.meaning;
        }
      }
      reading.summary = true;
    }
    // Ranks two or more steps apart issued different collectives (progress.hpp).
    if (r.decode == Decode::kProgress && !e.capture("gap").empty()) {
      const std::string at(e.capture("value")), ahead(e.capture("ahead")), gap(e.capture("gap"));
      if (gap == "1") {
        reading.meaning = "stopped one step behind the others (at " + at + ", the others at " +
                          ahead + "): they wait for it";
      } else {
        reading.category = "collective-mismatch";
        reading.meaning = "stopped at " + at + " while another rank reached " + ahead + ": " + gap +
                          " steps apart, the ranks did not issue the same collectives";
      }
    }
    if (r.decode == Decode::kTraceback)
      reading.meaning =
          "is the innermost frame of a traceback the log ends in, cut before its exception line";
    // A dumped stack outside every collective while others wait in one (stacks.hpp).
    if (r.decode == Decode::kStack && !e.capture("waiting").empty())
      reading.meaning =
          "is outside every collective (innermost frame: " + std::string(e.capture("innermost")) +
          ") while " + std::string(e.capture("waiting")) +
          " dumped processes wait in one: they wait for it";
    // The NCCL source file the line names gives the category of a `nccl-source` rule, and of
    // a cause whose rule knows only a generic word: an NCCL WARN from include/shm.h that a
    // posix_fallocate failed is a shared-memory failure, whatever category the rule that
    // knows the syscall has. The component a line names outranks a generic rule.
    const bool generic_cause =
        r.decode == Decode::kNone && reading.role == Role::kCause && r.weight < kGenericWeight;
    if (r.decode == Decode::kNcclSource || generic_cause) {
      std::string_view file = e.capture("nccl_file");
      if (file.empty()) file = e.source.nccl_file;
      if (auto category = category_of_nccl_file(file)) reading.category = std::string(*category);
    }
    // A line only a fallback rule knows is named by the subsystem its own words name (an
    // unknown message about /dev/shm is a shared-memory failure), when its NCCL source file
    // did not already say.
    // An uncaught exception (the line names its type) that its words did not place is placed
    // by its traceback's frames.
    if (reading.role == Role::kFallback && reading.category == r.category) {
      std::string_view body =
          std::string_view(e.text).substr(std::min(e.source.body, e.text.size()));
      if (auto category = catalog.category_from_words(e.rule, body))
        reading.category = std::string(*category);
      if (reading.category == r.category && !e.capture("exception").empty())
        find_traceback_frame(rules, events, frames, out.size(), reading);
    }
    // "retrying (34/34)": the last try of a retry loop failing is the failure itself; the
    // tries before it are only its symptoms.
    if (reading.role == Role::kSymptom && retries_exhausted(e)) reading.role = Role::kCause;
    // A crash report (not a launcher's summary of one) is placed by its frames.
    if (reading.role == Role::kCause && !reading.summary && reading.category == "process-crash" &&
        r.decode != Decode::kFrame)
      find_frame(catalog, events, frames, out.size(), reading);
    // A crash report that names SIGBUS or SIGILL (a signal handler's, faulthandler's, a
    // debugger's) reads as an exit status with that signal would, unless its frames placed it.
    if (reading.role == Role::kCause && reading.category == "process-crash") {
      const int signal = named_signal(e);
      if (signal == 7 || signal == 4) {
        ExitReading x = signal == 7 ? read_sigbus(shm, hardware) : read_sigill();
        reading.category = x.category;
        if (reading.meaning.empty()) reading.meaning = x.meaning;
      }
    }
    out.push_back(std::move(reading));
  }
  return out;
}

// A line with its variable parts masked (numbers, hex values, addresses), so that the same
// message from two ranks compares equal.
std::string line_template(const Event& e) {
  std::string_view body = std::string_view(e.text).substr(std::min(e.source.body, e.text.size()));
  std::string t;
  t.reserve(body.size());
  for (std::size_t i = 0; i < body.size();) {
    unsigned char c = static_cast<unsigned char>(body[i]);
    if (std::isdigit(c)) {
      // 0x1f, 17, 10.0.0.3, 3.5e-4: one token of digits, hex letters and dots
      while (i < body.size() && (std::isxdigit(static_cast<unsigned char>(body[i])) ||
                                 body[i] == '.' || body[i] == 'x' || body[i] == ':'))
        ++i;
      t += '#';
      continue;
    }
    t += static_cast<char>(c);
    ++i;
  }
  return t;
}

// Error-level lines that one participant printed and no other did, when at least three
// participants printed error-level lines: most ranks are healthy, so the line only one of
// them printed is likely where the failure began. The earliest such line, or nothing.
std::optional<std::size_t> lone_template(const std::vector<Event>& events,
                                         const std::vector<std::size_t>& lines) {
  struct Line {
    std::size_t event;
    std::string who;
    std::string shape;
  };
  std::vector<Line> known;                                // lines whose participant is known
  std::map<std::string, std::set<std::string>> printers;  // template -> participants
  std::set<std::string> everyone;
  for (std::size_t i : lines) {
    std::string who = participant(events[i]);
    if (who.empty()) continue;
    Line l{i, std::move(who), line_template(events[i])};
    everyone.insert(l.who);
    printers[l.shape].insert(l.who);
    known.push_back(std::move(l));
  }
  if (everyone.size() < 3) return std::nullopt;
  std::optional<std::size_t> best;
  for (const auto& l : known)
    if (printers[l.shape].size() == 1 && (!best || happened_before(events[l.event], events[*best])))
      best = l.event;
  return best;
}

// torchelastic's "Root Cause" record is strong evidence for a direct line inside it, but a
// summary (the record's own exit code) earns nothing from it. A plain non-zero exit says
// less than any error text: it weighs as the least of them.
double event_weight(const Rule& r, const Event& e, const Reading& reading) {
  if (reading.summary && reading.role == Role::kFallback)
    return std::min(r.weight, kFailedExitWeight);
  return r.weight + (e.in_root_cause_record && !reading.summary ? kRootCauseRecordBonus : 0);
}

std::string describe(const Event& e) {
  std::string who = participant(e);
  return who.empty() ? "line " + std::to_string(e.line + 1) : who;
}

std::string outlier_reason(const std::vector<Event>& events, const CrossRankFinding& f) {
  return describe(events[f.lead]) + " is the outlier among " + std::to_string(f.participants) +
         " ranks: " + f.key + "=" + f.lead_value + " where the others report " + f.key + "=" +
         f.majority_value;
}

// The state diagnose's phases share: every event read and sorted by what it says, the
// hypotheses built from them, and the lines set aside as findings. The phases run in the
// order diagnose calls them; each depends on what the ones before it left here.
struct Diagnoser {
  const std::vector<Rule>& rules;
  const std::vector<Event>& events;
  const JobOutcome& outcome;
  const std::vector<Reading> readings;
  std::vector<std::size_t> causes, summaries, symptoms, fallbacks, findings;
  // Lines that report a failure only in words (no level, no rule), placed in a subsystem by
  // the catalog's vocabulary: a lead only when the job is known to have failed and no
  // error-level line no rule knows came first (add_symptoms_and_first_error).
  std::vector<std::size_t> worded;
  std::map<std::size_t, std::vector<std::size_t>> by_rule;
  std::map<std::size_t, CrossRankFinding> crossrank;
  std::map<std::string, Hypothesis> hyps;
  std::set<std::size_t> promoted;             // desync symptoms made a cause
  std::vector<std::size_t> unused_summaries;  // collateral of a more direct hypothesis
  std::vector<std::size_t> unexplaining;      // findings no failure evidence in the log needs
  std::vector<std::size_t> under_failure;     // findings of rules that wait for a known failure
  std::vector<std::size_t> quiet;             // failure evidence demoted to findings
  std::vector<std::size_t> progress;          // lines of `progress` rules (Init COMPLETE)
  std::vector<std::size_t> retries;           // "retrying (1/34)": an attempt, not the last
  bool only_info = false;

  Diagnoser(const Catalog& c, const Analysis& a, const JobOutcome& o)
      : rules(c.rules()),
        events(a.events),
        outcome(o),
        readings(read_events(c, a.events, a.rule_hits)) {
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (rules[events[i].rule].progress) progress.push_back(i);
      if (!events[i].capture("attempt").empty() && !retries_exhausted(events[i]))
        retries.push_back(i);
    }
    std::sort(retries.begin(), retries.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(events[a].file, events[a].line) < std::tie(events[b].file, events[b].line);
    });
  }

  double weight(std::size_t i) const {
    return event_weight(rules[events[i].rule], events[i], readings[i]);
  }
  // Whether line i alone says nothing of a failure: its producer printed it at INFO level;
  // or, in a job not known to have failed, at its own warning level (glog's and c10's W:
  // TCPStore warns of a lost connection and rethrows, and a caller that does not retry fails
  // with an error of its own; NCCL's WARN is its error level and is not such a line), or
  // from a thread that returns its errors to no caller (rule `background`: NCCL's proxy
  // service thread, which closes the one peer connection that failed and goes on; a rank
  // that exits without destroying its communicator leaves such lines in a run that
  // completed).
  bool quiet_alone(std::size_t i) const {
    const LineSource& src = events[i].source;
    return src.severity == Severity::kInfo ||
           (!outcome.known_failure() &&
            (rules[events[i].rule].background ||
             (src.severity == Severity::kWarning && src.level == NcclLevel::kNone)));
  }

  void add(const std::string& category, std::size_t ev, double score, bool symptom) {
    Hypothesis& h = hyps[category];
    h.category = category;
    h.events.push_back(ev);
    if (h.events.size() == 1 || score > h.score) h.score = score;
    h.from_symptoms = (h.events.size() == 1 ? symptom : h.from_symptoms && symptom);
  }

  // Sort every event by what it says.
  void sort_by_role(std::vector<std::size_t>& context) {
    for (std::size_t i = 0; i < events.size(); ++i) {
      const Reading& rd = readings[i];
      switch (rd.role) {
        case Role::kContext:
          // A frame is read beside its crash (read_events), not listed as the job's setting.
          if (rules[events[i].rule].decode != Decode::kFrame) context.push_back(i);
          // A call trace compared across ranks (NCCL's collective calls) speaks only
          // through a mismatch (promote_desyncs).
          if (rules[events[i].rule].cross_rank) by_rule[events[i].rule].push_back(i);
          continue;
        case Role::kFinding:
          findings.push_back(i);
          continue;
        case Role::kFallback:
          if (!rules[events[i].rule].only_under_failure)
            fallbacks.push_back(i);
          else if (rd.category != rules[events[i].rule].category)
            worded.push_back(i);  // unplaced: words of failure that name no subsystem
          continue;
        case Role::kCause:
          (rd.summary ? summaries : causes).push_back(i);
          break;
        case Role::kSymptom:
          symptoms.push_back(i);
          break;
      }
      by_rule[events[i].rule].push_back(i);
    }
  }

  // Lines that must agree across the job are compared whatever their role (a benign
  // version banner included).
  std::map<std::size_t, std::vector<std::size_t>> lines_that_must_agree() const {
    std::map<std::size_t, std::vector<std::size_t>> must_agree;
    for (std::size_t i = 0; i < events.size(); ++i)
      if (rules[events[i].rule].agree) must_agree[events[i].rule].push_back(i);
    return must_agree;
  }

  void compare_ranks() {
    for (const auto& [rule, idx] : by_rule)
      if (rules[rule].cross_rank)
        if (auto f = compare_across_ranks(events, idx, *rules[rule].cross_rank))
          crossrank[rule] = *f;
  }

  // Symptoms that reveal a desync across ranks become a cause-level hypothesis. Of a call
  // trace (a context rule), only the calls compared are: the rest are the job's history.
  void promote_desyncs(std::vector<std::size_t>& context) {
    for (const auto& [rule, f] : crossrank) {
      const Rule& r = rules[rule];
      if (r.cross_rank->mismatch_category.empty()) continue;
      if (r.role != Role::kSymptom && r.role != Role::kContext) continue;
      const std::string& cat = r.cross_rank->mismatch_category;
      const bool trace = r.role == Role::kContext;
      for (std::size_t i : trace ? f.members : by_rule[rule]) {
        if (readings[i].role != r.role) continue;
        add(cat, i, std::max(kMismatchScore, r.weight), false);
        promoted.insert(i);
      }
      if (trace) std::erase_if(context, [&](std::size_t i) { return promoted.count(i) > 0; });
      Hypothesis& h = hyps[cat];
      h.lead = f.lead;
      h.lead_reason = outlier_reason(events, f);
    }
  }

  // Values that must agree across the job and do not: a root cause (two NCCL releases in
  // one job cannot talk to each other).
  void add_disagreements(const std::map<std::size_t, std::vector<std::size_t>>& must_agree) {
    for (const auto& [rule, idx] : must_agree) {
      const Agreement& ag = *rules[rule].agree;
      auto d = find_disagreement(events, idx, ag);
      if (!d) continue;
      for (std::size_t i : d->lines) add(ag.category, i, ag.weight, false);
      Hypothesis& h = hyps[ag.category];
      h.lead = d->lead;
      h.lead_reason = d->reason;
    }
  }

  // abort() is how a process that already reported its own failure ends: PyTorch's watchdog
  // takes the process down after an NCCL error, std::terminate follows an uncaught exception.
  // A launcher's report that such a rank died of SIGABRT is the consequence of the error that
  // rank printed, not a crash of its own: it is collateral.
  void set_aside_reported_aborts() {
    std::vector<std::size_t> kept;
    for (std::size_t i : summaries) {
      const std::string who = participant(events[i]);
      bool reported = false;
      if (readings[i].signal == kSigabrt && !who.empty())
        for (const auto* list : {&causes, &symptoms, &fallbacks})
          for (std::size_t j : *list)
            reported = reported ||
                       (!readings[j].summary && !quiet_alone(j) && participant(events[j]) == who);
      (reported ? unused_summaries : kept).push_back(i);
    }
    summaries = std::move(kept);
  }

  // A launcher's account of how a rank ended explains the failure only when nothing more
  // direct does; otherwise it is collateral of what does.
  void add_summaries() {
    if (hyps.empty())
      for (std::size_t i : summaries) add(readings[i].category, i, weight(i), false);
    else
      unused_summaries.insert(unused_summaries.end(), summaries.begin(), summaries.end());
  }

  // Observations become causes only next to a failure they can explain. A symptom its
  // producer printed at INFO level (NCCL's teardown lines: a local rank's connection closed)
  // is such a failure only when the job is known to have failed: a working job prints them
  // too, and INFO lines never lead alone.
  void add_explaining_findings() {
    std::set<std::string> failing;
    for (const auto* list : {&causes, &summaries, &fallbacks})
      for (std::size_t i : *list) failing.insert(readings[i].category);
    for (std::size_t i : symptoms)
      if (!quiet_alone(i) || outcome.known_failure()) failing.insert(readings[i].category);
    for (const auto& [cat, h] : hyps) failing.insert(cat);
    for (std::size_t i : findings) {
      const Rule& r = rules[events[i].rule];
      if (r.only_under_failure) {
        under_failure.push_back(i);
        continue;
      }
      bool explains = !failing.empty() && r.explains.empty();
      for (const auto& c : r.explains) explains = explains || failing.count(c) > 0;
      if (explains)
        add(readings[i].category, i, weight(i), false);
      else
        unexplaining.push_back(i);
    }
  }

  // Without a known failure, lines their producers printed at INFO level never lead alone:
  // when every piece of failure evidence is such a line (NCCL's teardown notes, a probe that
  // found nothing, a return-code trace), the hypotheses they made are listed as observations.
  // Under a known failure such lines may be all the evidence there is.
  void note_only_info() {
    auto silent = [&](std::size_t i) { return quiet_alone(i); };
    only_info = !outcome.known_failure() && std::all_of(symptoms.begin(), symptoms.end(), silent) &&
                std::all_of(fallbacks.begin(), fallbacks.end(), silent);
  }
  void drop_quiet() {
    if (!only_info) return;
    auto silent = [&](std::size_t i) { return quiet_alone(i); };
    for (const auto& [cat, h] : hyps)
      if (!std::all_of(h.events.begin(), h.events.end(), silent)) return;
    for (const auto& [cat, h] : hyps) quiet.insert(quiet.end(), h.events.begin(), h.events.end());
    hyps.clear();
  }

  // Error-level lines no rule knows that were no failure of the job, listed as findings
  // (diagnose says when). A warning is, by its producer's own level, not an error: NCCL
  // warns of conditions it goes on from (a plugin that declined, a teardown with requests
  // outstanding). When such lines, no rule knowing them, and INFO-level lines are all the
  // log shows of a failure, they are listed like the INFO lines are.
  void set_aside_harmless_errors(bool succeeded) {
    auto silent = [&](std::size_t i) { return quiet_alone(i); };
    auto warning = [&](std::size_t i) { return events[i].source.severity == Severity::kWarning; };
    if (!fallbacks.empty() && std::all_of(symptoms.begin(), symptoms.end(), silent) &&
        std::all_of(fallbacks.begin(), fallbacks.end(), warning)) {
      quiet.insert(quiet.end(), fallbacks.begin(), fallbacks.end());
      fallbacks.clear();
      only_info = true;
    }
    if (succeeded) {
      quiet.insert(quiet.end(), fallbacks.begin(), fallbacks.end());
      fallbacks.clear();
    }
    std::erase_if(fallbacks, [&](std::size_t f) {
      const bool passed = went_on(f) || retried(f);
      if (passed) quiet.push_back(f);
      return passed;
    });
    // What is left may be INFO-level lines only, which never lead alone.
    note_only_info();
  }

  // Whether the process that printed line `f` printed a progress line after it (NCCL
  // finished setting up a communicator): whatever `f` reported did not stop it there. A
  // progress line that names no writer is the whole file's: the framework lines of this
  // kind say that a collective step was passed, which every process passes together
  // (Lightning's rank 0 prints "All distributed processes registered" only once
  // init_process_group returned on every rank).
  bool went_on(std::size_t f) const {
    return std::any_of(progress.begin(), progress.end(), [&](std::size_t p) {
      return events[p].file == events[f].file && events[p].line > events[f].line &&
             (same_writer(events[f], events[p]) || no_writer(events[p]));
    });
  }

  // Whether the process that printed line `f` said on one of the next lines that it is
  // trying again (a line with an `attempt` capture that is not the last attempt: NCCL's
  // "connect returned ..., retrying (1/34)"): what `f` reported was one failed attempt, and
  // the process went on. A retry that ran out ("exceeded retries", 34/34) is a failure of
  // its own, not a retry.
  // `retries` is in (file, line) order: only the few lines after `f` are looked at, so a log
  // of many errors and many retries costs a binary search per error line.
  static constexpr int kRetryWindow = 3;
  bool retried(std::size_t f) const {
    const Event& e = events[f];
    auto it = std::upper_bound(retries.begin(), retries.end(), f, [&](std::size_t, std::size_t r) {
      return events[r].file > e.file || (events[r].file == e.file && events[r].line > e.line);
    });
    for (; it != retries.end() && events[*it].file == e.file &&
           events[*it].line <= e.line + kRetryWindow;
         ++it)
      if (same_process(e, events[*it])) return true;
    return false;
  }

  // With no direct evidence, the symptoms (at a discount) and the first error-level line no
  // rule names are the hypotheses.
  void add_symptoms_and_first_error() {
    std::optional<std::size_t> first_fallback = lone_template(events, fallbacks);
    bool lone = first_fallback.has_value();
    if (!lone)
      for (std::size_t i : fallbacks)
        if (!first_fallback || happened_before(events[i], events[*first_fallback]))
          first_fallback = i;
    // The job failed (its user says so, or a timeout shows it) and no error-level line names
    // a fault: the earliest line that says in words that something of a subsystem failed
    // ("could not open /dev/infiniband/uverbs0") is the lead there is.
    const bool failure_shown =
        outcome.known_failure() || std::any_of(symptoms.begin(), symptoms.end(),
                                               [&](std::size_t i) { return !quiet_alone(i); });
    bool by_words = false;
    if (!first_fallback && failure_shown)
      for (std::size_t i : worded)
        if (!first_fallback || happened_before(events[i], events[*first_fallback])) {
          first_fallback = i;
          by_words = true;
        }
    double best_symptom = 0;
    std::optional<std::size_t> first_symptom;
    for (std::size_t i : symptoms) {
      if (promoted.count(i)) continue;
      add(readings[i].category, i, weight(i) * kSymptomDiscount, true);
      best_symptom = std::max(best_symptom, weight(i) * kSymptomDiscount);
      if (!first_symptom || happened_before(events[i], events[*first_symptom])) first_symptom = i;
    }
    lead_timeouts_with_earlier_ends();
    if (!first_fallback) return;
    add_first_error(*first_fallback, lone, first_symptom, best_symptom);
    Hypothesis& h = hyps[readings[*first_fallback].category];
    if (by_words && h.lead == first_fallback)
      h.lead_reason =
          "no rule and no error-level line names this failure; the earliest line that reports "
          "a failure in words, placed by the subsystem it names";
  }

  // A timeout is the consequence of what ended before it: among symptoms, one that says a
  // process ended or its device failed (a worker that died, a kill, a CUDA error) earlier than
  // the first timeout leads the timeouts, as the watchdog's own message advises.
  void lead_timeouts_with_earlier_ends() {
    auto timeouts = hyps.find("straggler");
    if (timeouts == hyps.end() || !timeouts->second.from_symptoms) return;
    std::optional<std::size_t> first_timeout;
    for (std::size_t i : timeouts->second.events)
      if (!first_timeout || happened_before(events[i], events[*first_timeout])) first_timeout = i;
    for (auto& [cat, h] : hyps) {
      if (!h.from_symptoms || !kEnds.count(cat)) continue;
      // A generic or teardown line (std::terminate after the watchdog's own exception) says
      // nothing of its own: only a specific report of an end counts.
      for (std::size_t i : h.events)
        if (!quiet_alone(i) && rules[events[i].rule].weight >= kEndWeight &&
            happened_before(events[i], events[*first_timeout])) {
          h.score = std::max(h.score, timeouts->second.score + 0.01);
          break;
        }
    }
  }

  // Nothing specific: the first error-level line is the best lead there is, ahead of the
  // symptoms when it came before all of them (they are likely its consequences).
  void add_first_error(std::size_t first_fallback, bool lone,
                       std::optional<std::size_t> first_symptom, double best_symptom) {
    double score = weight(first_fallback);
    // The same rank's failed exit, reported by its launcher, says this error ended it.
    std::string who = participant(events[first_fallback]);
    bool ended_it = false;
    for (std::size_t i : fallbacks)
      ended_it = ended_it || (i != first_fallback && readings[i].summary && !who.empty() &&
                              participant(events[i]) == who);
    if (ended_it) score += kEndedItBonus;
    if (first_symptom && happened_before(events[first_fallback], events[*first_symptom]))
      score = std::max(score, best_symptom + 0.01);
    Hypothesis& h = hyps[readings[first_fallback].category];
    bool fresh = h.events.empty();
    add(readings[first_fallback].category, first_fallback, score, !fresh && h.from_symptoms);
    if (fresh || score > h.score - kTie) {
      h.lead = first_fallback;
      h.lead_reason =
          lone ? "no rule names this failure; of the participants that printed errors, only " +
                     describe(events[first_fallback]) + " printed this line"
               : "no rule names this failure; the earliest error-level line in the log";
      if (ended_it)
        h.lead_reason += ", and the launcher reports that this rank then exited with an error";
    }
  }

  // The job is known to have failed, and nothing in it shows a failure directly: every
  // observation that can explain a failure is a hypothesis, beside (and, when stronger,
  // ahead of) the symptoms and the first error line. A step of setting up NCCL (rule
  // setup_step) explains it only where its process stopped there: of the steps its process
  // printed, the last, with no Init COMPLETE after it.
  void add_findings_under_failure() {
    std::erase_if(under_failure,
                  [&](std::size_t i) { return rules[events[i].rule].setup_step && went_on(i); });
    unexplaining.insert(unexplaining.end(), under_failure.begin(), under_failure.end());
    std::sort(unexplaining.begin(), unexplaining.end());
    for (std::size_t i : unexplaining) {
      Hypothesis& h = hyps[readings[i].category];
      bool fresh = h.events.empty();
      double before = h.score;
      double score = weight(i) * kFindingUnderFailure;
      const bool step = rules[events[i].rule].setup_step;
      add(readings[i].category, i, score, false);
      // Of equally strong observations the earliest leads; of setup steps the latest, the
      // one the process had reached when it stopped.
      if (fresh || score > before + kTie) {
        h.lead = i;
        h.lead_reason = describe_outcome(outcome) +
                        " and no line shows a failure of its own; "
                        "this observation can explain it";
      }
      if (step && !fresh && score > before - kTie && h.lead &&
          rules[events[*h.lead].rule].setup_step)
        h.lead = i;
      if (step && h.lead == i)
        h.lead_reason = describe_outcome(outcome) +
                        " and no line shows a failure of its own; this is the last setup "
                        "step its process printed, with no line after it that shows the step "
                        "was passed (NCCL's Init COMPLETE, the framework's own)";
    }
    unexplaining.clear();
  }

  // Whether a hypothesis rests on generic evidence only: symptoms (a hang, a watchdog
  // timeout), error lines no rule names, launchers' summaries, observations, or a crash that
  // no frame placed. A known bug of the job's release may explain such a failure better than
  // its own lines do; never a line a specific rule names.
  bool generic_evidence(const Hypothesis& h) const {
    if (h.from_symptoms || h.category == "process-crash" || h.category == "straggler" ||
        h.category == "remote-peer")
      return true;
    return std::all_of(h.events.begin(), h.events.end(), [&](std::size_t i) {
      const Reading& rd = readings[i];
      return rd.role == Role::kFallback || rd.role == Role::kFinding || rd.summary;
    });
  }

  // The lines stating a release with known bugs, per bug (rule, index), in log order.
  std::map<std::pair<std::size_t, std::size_t>, std::vector<std::size_t>> known_bug_lines() const {
    std::map<std::pair<std::size_t, std::size_t>, std::vector<std::size_t>> lines;
    for (std::size_t i = 0; i < events.size(); ++i) {
      const Rule& r = rules[events[i].rule];
      if (r.known_bugs.empty()) continue;
      for (std::size_t b : bugs_of_release(r, events[i].capture("version")))
        lines[{events[i].rule, b}].push_back(i);
    }
    return lines;
  }

  // A known bug of the release the log states (rule.hpp, KnownBug) becomes a hypothesis when
  // the job failed in a way it produces: ahead of the failure's own lines when they are all
  // generic, below them when a specific cause it can produce is there. A log showing no
  // failure, or one the bug cannot produce, says nothing of it. Runs last: it weighs the
  // hypotheses every other phase made.
  void add_known_bugs() {
    const auto lines = known_bug_lines();
    if (lines.empty() || (hyps.empty() && !outcome.known_failure())) return;
    std::set<std::string> generic_cats, all_cats;
    double generic_best = 0, specific_best = 0;
    for (const auto& [cat, h] : hyps) {
      all_cats.insert(cat);
      if (generic_evidence(h)) {
        generic_cats.insert(cat);
        generic_best = std::max(generic_best, h.score);
      } else {
        specific_best = std::max(specific_best, h.score);
      }
    }
    // A failure known from the outcome alone: a hang, or what its exit status says (a crash
    // signal); a plain "failed" names no kind of failure, so no bug explains it.
    if (hyps.empty()) {
      if (auto cat = outcome_category(outcome)) generic_cats.insert(*cat);
    }
    const bool specific = specific_best > 0;
    for (const auto& [key, idx] : lines) {
      const KnownBug& bug = rules[key.first].known_bugs[key.second];
      const auto& failing = specific ? all_cats : generic_cats;
      if (std::none_of(bug.explains.begin(), bug.explains.end(),
                       [&](const std::string& c) { return failing.count(c) > 0; }))
        continue;
      auto existing = hyps.find(bug.category);
      if (existing != hyps.end() &&
          (existing->second.known_bug || !generic_evidence(existing->second)))
        continue;  // one bug per category, and never in place of a specific cause
      const double score =
          specific ? kKnownBugBeside * specific_best
                   : std::min(0.95, std::max(kKnownBugLead, generic_best + kKnownBugMargin));
      Hypothesis& h = hyps[bug.category];
      h.category = bug.category;
      h.events.insert(h.events.end(), idx.begin(), idx.end());
      h.score = std::max(h.score, score);
      h.from_symptoms = false;
      h.known_bug = key.second;
      h.lead = *std::min_element(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return happened_before(events[a], events[b]);
      });
      h.lead_reason = known_bug_reason(bug, events[*h.lead], specific);
    }
  }

  static std::string known_bug_reason(const KnownBug& bug, const Event& e, bool specific) {
    std::string range =
        "from " + bug.from + (bug.fixed.empty() ? ", not fixed yet" : ", fixed in " + bug.fixed);
    std::string shows;
    for (const auto& c : bug.explains) shows += (shows.empty() ? "" : ", ") + c;
    return "release " + std::string(e.capture("version")) + " has known bug " + bug.id + " (" +
           range + "), which shows up as " + shows +
           (specific ? "; a specific cause in the log leads, this is the other explanation"
                     : "; the failure's own evidence is generic (an error line no rule names, a "
                       "crash no frame places, a hang or a timeout)");
  }

  // A hypothesis's strongest lines, the one to lead first; `by_severity` says whether a
  // log level reordered them.
  std::vector<std::size_t> strongest_lines(const Hypothesis& h, bool& by_severity) const {
    double best = -1;
    for (std::size_t i : h.events) best = std::max(best, weight(i));
    std::vector<std::size_t> top;
    for (std::size_t i : h.events)
      if (weight(i) >= best - kTie) top.push_back(i);
    std::sort(top.begin(), top.end(),
              [&](std::size_t a, std::size_t b) { return happened_before(events[a], events[b]); });
    // torchelastic's own "first observed failure" record leads its equals (for a summary the
    // record earns no score, but it still says which rank ended first).
    std::stable_partition(top.begin(), top.end(),
                          [&](std::size_t i) { return events[i].in_root_cause_record; });
    // Of equally strong lines, the one its producer marked more severe leads: an E line
    // concludes the W lines of the same failure ("failed to bind" warnings, then "failed to
    // listen" as the error). Lines without a stated level keep their order.
    // NCCL's WARN is NCCL's error level (it has no other for a failed call), so it ranks
    // with other producers' errors here, not below them.
    const auto rank = [](const Event& e) {
      return e.source.level == NcclLevel::kWarn ? Severity::kError : e.source.severity;
    };
    by_severity = false;
    for (std::size_t k = 1; k < top.size(); ++k) {
      const auto& lead = events[top.front()];
      const auto& e = events[top[k]];
      if (lead.source.severity != Severity::kUnknown && rank(e) > rank(lead)) {
        std::rotate(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(k),
                    top.begin() + static_cast<std::ptrdiff_t>(k) + 1);
        by_severity = true;
      }
    }
    return top;
  }

  // A hang seen only through symptoms: every waiting rank prints the same timeout, so the
  // strongest lines cannot say who is late. A rule that compares progress counters across
  // ranks (a cross_rank without a mismatch category: last enqueued work, pending work)
  // can: the rank whose counter lags never entered the collective the others wait in, and
  // it leads. The strongest such rule speaks.
  const CrossRankFinding* lagging_counter(const Hypothesis& h) const {
    const CrossRankFinding* lag = nullptr;
    double lag_weight = -1;
    for (std::size_t i : h.events) {
      auto f = crossrank.find(events[i].rule);
      if (f == crossrank.end() || !rules[events[i].rule].cross_rank->mismatch_category.empty())
        continue;
      if (weight(i) > lag_weight) {
        lag = &f->second;
        lag_weight = weight(i);
      }
    }
    return lag;
  }

  // A line's text without what a launcher or a paste put before it, and its indentation.
  static std::string_view own_text(const Event& e) {
    std::string_view t = past_carrier(e.text);
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
    return t;
  }

  // NCCL's errors reach PyTorch's exception text with the message of the warning that began
  // them quoted below it ("Last error:", then the message): when a line a few lines below the
  // lead repeats the end of a line printed earlier in the same file, that earlier line is
  // where the failure was first reported, and it is the initiating line. The category stays
  // the one the exception's reading gives (it knows what the error code means).
  std::optional<std::size_t> first_report(std::size_t lead) const {
    const Event& l = events[lead];
    for (std::size_t j = lead + 1; j < events.size(); ++j) {
      const Event& m = events[j];
      if (m.file != l.file || m.line <= l.line) continue;
      if (m.line > l.line + kQuoteDistance) break;
      const std::string_view quoted = own_text(m);
      if (quoted.size() < kMinQuoted) continue;
      // The earlier line says more than the quote (its producer's prefix): the same line
      // printed again is a repetition, not a quote.
      for (std::size_t k = lead; k-- > 0;) {
        const Event& e = events[k];
        if (e.file != l.file) break;
        const std::string_view said = own_text(e);
        if (e.line >= l.line || said.size() <= quoted.size()) continue;
        if (said.substr(said.size() - quoted.size()) == quoted) return k;
      }
    }
    return std::nullopt;
  }

  // A cause is often a conclusion its producer draws ("no usable RDMA device", "cannot
  // initialise the transport") a few lines after the observation that made it ("device
  // mlx5_3 port not active"). When the hypothesis also holds such an observation (a finding
  // of its category, which explains it) printed just before the lead by the same process, that
  // observation is the first fault, and it leads. An observation its process prints again
  // after the cause is an attempt that keeps being made (a connection retried), not the
  // reason for a conclusion: the cause leads then.
  std::optional<std::size_t> reason_before(const Hypothesis& h, std::size_t lead) const {
    const Event& l = events[lead];
    if (readings[lead].role != Role::kCause) return std::nullopt;
    const std::string who = participant(l);
    std::optional<std::size_t> best;
    std::set<std::size_t> repeated;  // rules of findings printed again after the cause
    for (std::size_t i : h.events) {
      const Event& f = events[i];
      if (readings[i].role != Role::kFinding || f.file != l.file || participant(f) != who) continue;
      if (f.line > l.line) {
        repeated.insert(f.rule);
        continue;
      }
      if (f.line == l.line || f.line + kReasonDistance < l.line) continue;
      if (!best || f.line < events[*best].line) best = i;
    }
    if (best && repeated.count(events[*best].rule)) return std::nullopt;
    return best;
  }

  // NCCL reports an error where it happens, with a WARN; each caller on the way back up the
  // stack prints NCCLCHECK's "file:line -> code" trace at INFO, and a caller that adds what
  // it was doing prints a WARN of its own after those ("Call to shm_open failed", then
  // "Error while creating shared memory segment"). A WARN of the lead's thread above it,
  // joined to it by nothing but that thread's trace lines and WARNs, is the same error where
  // it happened, and it leads. The chain is the thread's (NCCL's header names it): another
  // thread's lines, or any line no rule read, end it.
  std::optional<std::size_t> chain_origin(const Hypothesis& h, std::size_t lead) const {
    const Event& l = events[lead];
    auto of_thread = [&](const Event& e) {
      return e.file == l.file && e.source.tid && e.source.tid == l.source.tid &&
             e.source.pid == l.source.pid && e.source.host == l.source.host;
    };
    if (l.source.level != NcclLevel::kWarn || !l.source.tid) return std::nullopt;
    const std::set<std::size_t> mine(h.events.begin(), h.events.end());
    std::map<std::size_t, std::vector<std::size_t>> at_line;  // the lines just above the lead
    for (std::size_t i = 0; i < events.size(); ++i) {
      const Event& e = events[i];
      if (e.file == l.file && e.line < l.line && e.line + kChainDistance >= l.line)
        at_line[e.line].push_back(i);
    }
    std::optional<std::size_t> origin;
    for (std::size_t line = l.line; line-- > 0 && line + kChainDistance >= l.line;) {
      auto found = at_line.find(line);
      if (found == at_line.end()) break;
      bool linked = false;
      for (std::size_t i : found->second) {
        const Event& e = events[i];
        if (!of_thread(e)) continue;
        if (e.source.level == NcclLevel::kWarn) {
          linked = true;
          if (mine.count(i)) origin = i;
        } else if (e.source.level == NcclLevel::kInfo &&
                   own_text(e).find(" -> ") != std::string_view::npos) {
          linked = true;
        }
      }
      if (!linked) break;
    }
    return origin;
  }

  // Choose a hypothesis's initiating event, unless a phase before already did.
  void choose_lead(Hypothesis& h) const {
    if (h.lead) return;
    bool by_severity = false;
    const std::vector<std::size_t> top = strongest_lines(h, by_severity);
    // A cross-rank outlier among the strongest lines leads even without a category change
    // (the rank with fewer enqueued collectives in a heartbeat timeout, say).
    for (std::size_t i : top) {
      auto f = crossrank.find(events[i].rule);
      if (f != crossrank.end() && std::find(top.begin(), top.end(), f->second.lead) != top.end()) {
        h.lead = f->second.lead;
        h.lead_reason = outlier_reason(events, f->second);
        return;
      }
    }
    if (h.from_symptoms) {
      if (const CrossRankFinding* lag = lagging_counter(h)) {
        h.lead = lag->lead;
        h.lead_reason = outlier_reason(events, *lag) +
                        " (its counter lags: it never entered the "
                        "collective the other ranks wait in)";
        return;
      }
    }
    h.lead = top.front();
    const Event& e = events[top.front()];
    if (auto why = reason_before(h, top.front())) {
      h.lead = *why;
      h.lead_reason = "the line just before " + describe(e) + " (line " +
                      std::to_string(e.line + 1) +
                      ") in the same process says why: the first fault of the two";
      return;
    }
    if (auto origin = chain_origin(h, top.front())) {
      h.lead = *origin;
      h.lead_reason = "where the error " + describe(e) + " (line " + std::to_string(e.line + 1) +
                      ") reports happened: the same thread's first warning, joined to it by "
                      "NCCL's error trace";
      return;
    }
    if (auto first = first_report(top.front())) {
      h.lead = *first;
      h.lead_reason = "the line that first reported the error " + describe(e) +
                      " quotes below it (line " + std::to_string(e.line + 1) + ")";
      return;
    }
    if (e.in_root_cause_record)
      h.lead_reason = "torchelastic recorded it as the first observed failure";
    else if (top.size() == 1)
      h.lead_reason = "the strongest " + std::string(h.from_symptoms ? "symptom" : "signature") +
                      " of this kind in the log";
    else if (by_severity)
      h.lead_reason =
          "the most severe of " + std::to_string(top.size()) + " such lines (by its log level)";
    else if (comparable_times(events[top[0]], events[top[1]]))
      h.lead_reason = "the earliest by timestamp of " + std::to_string(top.size()) + " such lines";
    else
      h.lead_reason = "the first of " + std::to_string(top.size()) + " such lines in the log";
  }

  // The hypotheses, each with its lead, strongest first; equals in the order they began.
  std::vector<Hypothesis> ranked() {
    std::vector<Hypothesis> out;
    for (auto& [cat, h] : hyps) out.push_back(std::move(h));
    for (auto& h : out) choose_lead(h);
    std::stable_sort(out.begin(), out.end(), [&](const Hypothesis& a, const Hypothesis& b) {
      if (std::abs(a.score - b.score) > kTie) return a.score > b.score;
      return happened_before(events[*a.lead], events[*b.lead]);
    });
    return out;
  }

  // One ranked hypothesis as the diagnosis the report shows. The first (`leading`) also
  // lists the symptoms and summaries no hypothesis of its own claimed as collateral.
  Diagnosis to_diagnosis(const Hypothesis& h, bool leading, double total,
                         const ScanState& state) const {
    Diagnosis d;
    d.category = h.category;
    d.initiating = *h.lead;
    d.rule = events[d.initiating].rule;
    double share = total > 0 ? h.score / total : 1;
    d.confidence = std::clamp(std::min(h.score, 1.0) * std::sqrt(share), 0.01, 0.99);
    d.confidence = std::round(d.confidence * 100) / 100;
    for (std::size_t i : h.events)
      if (i != d.initiating) d.evidence.push_back(i);
    std::sort(d.evidence.begin(), d.evidence.end());
    if (leading) {
      std::set<std::size_t> own(h.events.begin(), h.events.end());
      for (const auto* list : {&symptoms, &unused_summaries})
        for (std::size_t i : *list)
          if (!own.count(i)) d.collateral.push_back(i);
      std::sort(d.collateral.begin(), d.collateral.end(), [&](std::size_t a, std::size_t b) {
        return happened_before(events[a], events[b]);
      });
    }
    const Rule& r = rules[d.rule];
    for (std::size_t c = 0; c < r.checks.size(); ++c)
      d.checks.push_back(
          {r.checks[c].text, c < state.checks_seen[d.rule].size() && state.checks_seen[d.rule][c]});
    d.reasoning = h.lead_reason;
    if (const auto& fr = readings[d.initiating]; fr.frame_rule) {
      const bool raised = fr.role == Role::kFallback;
      // A frame rule's title names the code ("Stack frame in the CUDA driver ..."); the
      // category is where that code's failures usually come from, not always its subsystem.
      const Rule& frame = rules[*fr.frame_rule];
      std::string_view code = frame.title;
      if (auto in = code.find(" in "); in != std::string_view::npos) code.remove_prefix(in + 4);
      d.reasoning += std::string(d.reasoning.empty() ? "" : "; ") +
                     (raised ? "the exception was raised in " : "the crash happened in ") +
                     std::string(code) + ", which places it in " + d.category + ": " +
                     (fr.frame_event ? "its innermost recognised frame is line " +
                                           std::to_string(events[*fr.frame_event].line + 1)
                                     : std::string("the line names the library")) +
                     " (" + frame.id + ")";
    }
    if (!readings[d.initiating].meaning.empty()) {
      std::string who = describe(events[d.initiating]);
      if (who.rfind("line ", 0) == 0) who = "a process";
      d.headline = who + " " + readings[d.initiating].meaning;
    }
    d.verdict = verdict_for(d.category, r, events[d.initiating]);
    if (h.known_bug) {
      d.known_bug = h.known_bug;
      d.headline = r.title + " " + std::string(events[d.initiating].capture("version")) +
                   " has a known bug: " + r.known_bugs[*h.known_bug].summary;
    }
    return d;
  }
};

// A log that shows its job completing (nccl-tests' closing summary, a launcher's
// "succeeded").
bool job_succeeded(const std::vector<Rule>& rules, const std::vector<std::size_t>& rule_hits) {
  bool succeeded = false;
  for (std::size_t r = 0; r < rules.size() && r < rule_hits.size(); ++r)
    succeeded = succeeded || (rules[r].success && rule_hits[r] > 0);
  return succeeded;
}

}  // namespace

Analysis diagnose(const Catalog& catalog, std::vector<FileSummary> files, ScanState state,
                  const JobOutcome& outcome) {
  Analysis out;
  out.outcome = outcome;
  out.files = std::move(files);
  out.events = std::move(state.events);
  out.rule_hits = std::move(state.rule_hits);
  out.counted = std::move(state.counted);
  const auto& rules = catalog.rules();
  Diagnoser d(catalog, out, outcome);

  d.sort_by_role(out.context);
  const auto must_agree = d.lines_that_must_agree();
  d.compare_ranks();
  for (std::size_t i : d.causes) d.add(d.readings[i].category, i, d.weight(i), false);
  d.promote_desyncs(out.context);
  d.add_disagreements(must_agree);
  d.set_aside_reported_aborts();
  d.add_summaries();
  d.add_explaining_findings();

  d.note_only_info();
  d.drop_quiet();
  const bool direct_evidence = !d.hyps.empty();

  // A log that shows its job completing and says nothing more specific than error-level
  // lines no rule knows: without a known failure, those lines are no failure of the job.
  // They are listed as findings. Likewise a generic error line after which its own process
  // went on working (finished setting up a communicator): a plugin's or a probe's
  // complaint, not what stopped the job.
  const bool succeeded = job_succeeded(rules, out.rule_hits);
  if (d.hyps.empty() && !outcome.known_failure()) d.set_aside_harmless_errors(succeeded);

  if (d.hyps.empty()) d.add_symptoms_and_first_error();
  d.drop_quiet();
  if (outcome.known_failure() && !direct_evidence) d.add_findings_under_failure();
  d.add_known_bugs();
  out.findings = std::move(d.unexplaining);
  out.findings.insert(out.findings.end(), d.quiet.begin(), d.quiet.end());
  std::sort(out.findings.begin(), out.findings.end());
  out.unexplained = d.hyps.empty() && outcome.known_failure();
  if (out.unexplained) {
    out.verdict.reason = describe_outcome(outcome) + ", but no line of the log says why";
    if (const Rule* r = catalog.find(kEvidenceCaptureRule))
      out.capture_rule = static_cast<std::size_t>(r - rules.data());
  }

  const std::vector<Hypothesis> ranked = d.ranked();
  double total = 0;
  for (const auto& h : ranked) total += h.score;
  for (std::size_t k = 0; k < ranked.size(); ++k)
    out.diagnoses.push_back(d.to_diagnosis(ranked[k], k == 0, total, state));
  out.only_victims = !out.diagnoses.empty() && out.diagnoses.front().category == "remote-peer";
  if (!out.diagnoses.empty()) out.verdict = out.diagnoses.front().verdict;
  return out;
}

}  // namespace ff::analysis
