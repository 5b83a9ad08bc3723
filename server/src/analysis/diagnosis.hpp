// From events to ranked hypotheses: which line initiated the failure, which lines are its
// collateral, and how sure we are.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/event.hpp"
#include "analysis/outcome.hpp"
#include "analysis/scan.hpp"
#include "analysis/verdict.hpp"

namespace ff::analysis {

struct CheckResult {
  std::string text;
  bool satisfied = false;
};

struct Diagnosis {
  std::string category;
  std::size_t rule = 0;        // rule of the initiating event
  double confidence = 0;       // in (0, 1)
  std::size_t initiating = 0;  // index into Analysis::events
  std::vector<std::size_t> evidence;    // further events supporting this hypothesis
  std::vector<std::size_t> collateral;  // consequences it explains (top diagnosis only)
  std::vector<CheckResult> checks;
  std::string reasoning;  // one sentence: why this line was chosen as the initiating one
  // What the initiating line means when the rule's title cannot say it alone (a decoded exit
  // status: "rank 3 crashed with SIGSEGV"); empty otherwise.
  std::string headline;
  // Workload or infrastructure, whether a restart unchanged can succeed, the node action.
  Verdict verdict;
  // A known bug of the release the initiating line states: its index in the initiating rule's
  // `known_bugs`, whose summary and fix the reports show in place of the rule's (rule.hpp).
  std::optional<std::size_t> known_bug;
};

// The confidence from which the reports call a cause likely rather than possible; what
// `firstfault watch` acts on by default (--min-confidence).
inline constexpr double kLikelyConfidence = 0.5;

struct Analysis {
  std::vector<FileSummary> files;
  std::vector<Event> events;
  std::vector<std::size_t> rule_hits;    // total hits per rule (events may be capped)
  // Context events counted, not built, per input and rule (ScanState::counted): the
  // context lines below list the events kept, these are the others.
  std::vector<CountedEvents> counted;
  std::vector<std::size_t> context;      // context and benign events, in log order
  // Observations that are not failures by themselves (role finding) and explain none of
  // the failures in the log, in log order: shown as warnings, never as the root cause.
  std::vector<std::size_t> findings;
  std::vector<Diagnosis> diagnoses;      // most likely first; empty means nothing is wrong
  // True when every piece of failure evidence is a victim's: the initiating rank's own
  // output is not in the log.
  bool only_victims = false;
  // The job's verdict: the top diagnosis's, or "no failure" when there is none.
  Verdict verdict = no_failure_verdict();
  // How the job ended, as given with the logs (--failed, --hung, --exit-code).
  JobOutcome outcome;
  // The job failed or hung (outcome) and no line of the log explains it: no diagnosis, and
  // the report says so and leads with what to capture next time, instead of "no failure".
  bool unexplained = false;
  // With `unexplained`: the rule whose fix captures the evidence (kEvidenceCaptureRule), when
  // the catalog has it.
  std::optional<std::size_t> capture_rule;
};

// The known bug a diagnosis names (Diagnosis::known_bug), or null.
inline const KnownBug* known_bug_of(const std::vector<Rule>& rules, const Diagnosis& d) {
  if (!d.known_bug || d.rule >= rules.size() || *d.known_bug >= rules[d.rule].known_bugs.size())
    return nullptr;
  return &rules[d.rule].known_bugs[*d.known_bug];
}

// "releases 2.19.1 to before 2.20.3", "releases from 2.28.3 (not fixed yet)": a bug's range.
inline std::string known_bug_range(const KnownBug& b) {
  return b.fixed.empty() ? "releases from " + b.from + " (not fixed yet)"
                         : "releases " + b.from + " to before " + b.fixed;
}

// Ranks hypotheses from the scanned events. Pure: same input, same output.
Analysis diagnose(const Catalog& catalog, std::vector<FileSummary> files, ScanState state,
                  const JobOutcome& outcome = {});

}  // namespace ff::analysis
