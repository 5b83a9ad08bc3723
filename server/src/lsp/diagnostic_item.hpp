// A marked line as the language server publishes it: a plain struct, rendered to an LSP
// Diagnostic by lsp_json (its typed part goes to the diagnostic's `data`).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lsp/text.hpp"

namespace ff::lsp {

enum class Severity { kError = 1, kWarning = 2, kInformation = 3, kHint = 4 };

// What a marked line is to the analysis: the root cause's initiating line, another
// hypothesis's, a consequence of the root cause, evidence for it, a finding that explains
// no failure here, or context. Sent to the client as role_name() in the diagnostic's data.
enum class Role { kInitiating, kAlternative, kCollateral, kEvidence, kFinding, kContext };

constexpr std::string_view role_name(Role r) {
  switch (r) {
    case Role::kInitiating:
      return "initiating";
    case Role::kAlternative:
      return "alternative";
    case Role::kCollateral:
      return "collateral";
    case Role::kEvidence:
      return "evidence";
    case Role::kFinding:
      return "finding";
    case Role::kContext:
      break;
  }
  return "context";
}

struct RelatedInfo {
  std::string uri;
  Range range;
  std::string message;
  friend bool operator==(const RelatedInfo&, const RelatedInfo&) = default;
};

// A diagnosis's verdict (analysis::Verdict) as the editor shows it: on the initiating and
// alternative lines only.
struct VerdictItem {
  std::string fault, restart, node_action, host, gpu, xid_resolution, summary;
  friend bool operator==(const VerdictItem&, const VerdictItem&) = default;
};

struct DiagnosticItem {
  Range range;
  Severity severity = Severity::kHint;
  std::string rule_id;
  std::string title;  // the rule's title (the hypothesis's headline on its initiating line)
  std::string category;
  std::string message;
  std::string href;  // the rule's entry in docs/catalog.md
  std::vector<RelatedInfo> related;
  std::vector<std::pair<std::string, std::string>> env;  // the rule's fix, known values
  std::vector<std::string> env_missing;  // its variables whose value is a placeholder
  Role role = Role::kContext;
  int diagnosis = -1;  // index into Analysis::diagnoses, -1 for findings and context lines
  // Who printed the line (from its prefixes), and how sure the analysis is of the
  // hypothesis the line belongs to (none for findings and context).
  std::optional<int> rank;
  std::string host;
  std::optional<double> confidence;
  std::size_t event = 0;
  std::optional<VerdictItem> verdict;
  friend bool operator==(const DiagnosticItem&, const DiagnosticItem&) = default;
};

// A rule that fires on thousands of lines (a hint on every "NVLS unavailable", a watchdog
// timeout on every rank) marks the first this many of them per document and role, and says
// on the last one how many more there are: the Problems panel stays readable, and an
// analysis publishes in time bounded by this, not by the log (the hover, lens and report
// still count every event).
inline constexpr std::size_t kMaxMarkedLinesPerRule = 100;

}  // namespace ff::lsp
