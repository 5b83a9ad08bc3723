// A job whose logs are still being written: one stream scan per followed log, the summaries
// other nodes' watches write, and the diagnosis of all of it on demand. `firstfault watch`
// feeds it what the follower read; nothing here reads files.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/diagnosis.hpp"
#include "analysis/stream_scan.hpp"
#include "report/summary.hpp"

namespace ff::cli {

class LiveJob {
 public:
  explicit LiveJob(const analysis::Catalog& catalog) : catalog_(catalog) {}

  // Input `i` (as the follower numbers them) is named `name`; inputs are added in order.
  void add_input(std::string name);
  std::size_t inputs() const { return inputs_.size(); }

  // Bytes appended to a log; `restart`: the log starts again with them (truncated,
  // replaced). Returns true when the evidence changed.
  bool append(std::size_t i, std::string_view bytes, bool restart = false);
  // The log ended: its last line counts even without a line end.
  bool finish(std::size_t i);
  // The whole text of a summary input (docs/SCALE.md), which replaces what it said before.
  // False and `error` (its place and message) when it is not readable as one; what it said
  // before stands.
  bool replace_summary(std::size_t i, std::string_view text, std::string& error);
  bool is_summary(std::size_t i) const { return inputs_[i].summary.has_value(); }

  // Changes whenever evidence that can name a cause does (an event of a rule that is neither
  // a context rule nor a progress rule, a summary): the diagnosis is worth making again at
  // once.
  std::size_t version() const { return version_; }
  // Changes whenever any event is added, context and progress lines included.
  std::size_t context_version() const { return context_version_; }

  // Events the logs' scans hold (bounded: see note_full).
  std::size_t events_held() const;

  // The diagnosis of everything read so far, as one job.
  analysis::Analysis diagnose(const analysis::JobOutcome& outcome = {}) const;
  // This node's logs as a summary (report/summary.hpp), for a head node's watch or analyze.
  std::string summary(const std::string& machine) const;

 private:
  struct Input {
    std::string name;
    std::optional<analysis::StreamScan> log;  // made at the first bytes of a log
    std::optional<report::Summary> summary;
  };
  // The merged scan and files of the job; `logs_only` leaves summaries out.
  void merge(analysis::ScanState& state, std::vector<analysis::FileSummary>& files,
             bool logs_only) const;

  const analysis::Catalog& catalog_;
  std::deque<Input> inputs_;  // StreamScan is neither movable nor copyable
  std::size_t version_ = 0, context_version_ = 0;
  // Input `i`'s scan stops building events of the rules whose events merge() can no longer
  // keep from it: the log inputs before it hold kMaxEventsPerRule hits of them already.
  void note_full(std::size_t i);
  // After input `i` read more: the rules whose bound the logs up to `i` now reach.
  void note_hits(std::size_t i);
  // [rule]: the first input at which the logs up to it hold kMaxEventsPerRule hits of the
  // rule (only ever lowered: hits only grow), or kNever.
  static constexpr std::size_t kNever = static_cast<std::size_t>(-1);
  std::vector<std::size_t> full_from_;
  // Counts the events added to `state` from index `from` into the versions.
  bool count_new(const analysis::ScanState& state, std::size_t from);
};

}  // namespace ff::cli
