#include "cli/live_job.hpp"

#include <map>

namespace ff::cli {

void LiveJob::add_input(std::string name) {
  inputs_.emplace_back().name = std::move(name);
}

bool LiveJob::append(std::size_t i, std::string_view bytes, bool restart) {
  Input& in = inputs_[i];
  if (!in.log) in.log.emplace(catalog_, i);
  if (restart) in.log->restart();
  note_full(i);
  const std::size_t before = in.log->state().events.size();
  in.log->feed(bytes);
  note_hits(i);
  return count_new(in.log->state(), before);
}

void LiveJob::note_full(std::size_t i) {
  // merge() keeps each rule's first kMaxEventsPerRule hits in input order, and a log's hits
  // only grow (a restart keeps what was found): once the logs up to input k hold that many,
  // no later input's can be kept again. Without this, each of 64 followed files built up to
  // kMaxEventsPerRule events of NCCL's progress lines that the job then dropped.
  // Summaries are left out: one can be replaced by a shorter one.
  const std::size_t rules = catalog_.rules().size();
  full_from_.resize(rules, kNever);
  for (std::size_t r = 0; r < rules; ++r)
    if (full_from_[r] < i) inputs_[i].log->only_count(r);
}

void LiveJob::note_hits(std::size_t i) {
  const analysis::ScanState& own = inputs_[i].log->state();
  full_from_.resize(catalog_.rules().size(), kNever);
  for (std::size_t r = 0; r < own.rule_hits.size() && r < full_from_.size(); ++r) {
    if (own.rule_hits[r] == 0 || full_from_[r] <= i) continue;
    std::size_t upto = 0;
    for (std::size_t j = 0; j <= i; ++j) {
      if (inputs_[j].log && r < inputs_[j].log->state().rule_hits.size())
        upto += inputs_[j].log->state().rule_hits[r];
      if (upto >= analysis::kMaxEventsPerRule) {
        full_from_[r] = j;
        break;
      }
    }
  }
}

std::size_t LiveJob::events_held() const {
  std::size_t n = 0;
  for (const auto& in : inputs_)
    if (in.log) n += in.log->state().events.size();
  return n;
}

bool LiveJob::finish(std::size_t i) {
  Input& in = inputs_[i];
  if (!in.log) return false;
  const std::size_t before = in.log->state().events.size();
  in.log->finish();
  return count_new(in.log->state(), before);
}

bool LiveJob::count_new(const analysis::ScanState& state, std::size_t from) {
  if (state.events.size() == from) return false;
  ++context_version_;
  for (std::size_t k = from; k < state.events.size(); ++k) {
    // A progress line (NCCL's Init COMPLETE, printed at every communicator's start) only
    // withdraws an earlier error line of its process; like context it may wait a second.
    const std::size_t r = state.events[k].rule;
    const bool context = r < state.context_rule.size() && state.context_rule[r];
    if (!context && !catalog_.rules()[r].progress) {
      ++version_;
      return true;
    }
  }
  return false;
}

bool LiveJob::replace_summary(std::size_t i, std::string_view text, std::string& error) {
  auto parsed = report::read_summary(catalog_, text);
  if (auto* e = std::get_if<report::SummaryError>(&parsed)) {
    error = (e->place.empty() ? "" : e->place + ": ") + e->message;
    return false;
  }
  inputs_[i].summary = std::move(std::get<report::Summary>(parsed));
  ++version_;
  ++context_version_;
  return true;
}

void LiveJob::merge(analysis::ScanState& state, std::vector<analysis::FileSummary>& files,
                    bool logs_only) const {
  state.reset(catalog_);
  // Node-local logs often have the same path on every node: a summary's file whose name
  // another input has is named after the machine that wrote it (as analyze does).
  std::map<std::string, std::size_t> uses;
  for (const auto& in : inputs_) {
    if (in.log) ++uses[in.name];
    if (in.summary)
      for (const auto& f : in.summary->files) ++uses[f.name];
  }
  for (const auto& in : inputs_) {
    if (in.log) {
      // The input's own events, as events of its place in the job.
      analysis::append_scan(state, in.log->state(), 0, files.size());
      files.push_back({in.name, in.log->lines(), in.log->bytes()});
      continue;
    }
    if (!in.summary || logs_only) continue;
    analysis::ScanState copy = in.summary->state;
    for (auto& e : copy.events) e.file += files.size();
    analysis::append_scan(state, std::move(copy), 0);
    for (auto f : in.summary->files) {
      if (uses[f.name] > 1 && !in.summary->machine.empty())
        f.name = in.summary->machine + ":" + f.name;
      files.push_back(std::move(f));
    }
  }
}

analysis::Analysis LiveJob::diagnose(const analysis::JobOutcome& outcome) const {
  analysis::ScanState state;
  std::vector<analysis::FileSummary> files;
  merge(state, files, false);
  return analysis::diagnose(catalog_, std::move(files), std::move(state), outcome);
}

std::string LiveJob::summary(const std::string& machine) const {
  analysis::ScanState state;
  std::vector<analysis::FileSummary> files;
  merge(state, files, true);
  return report::write_summary(catalog_, files, state, machine);
}

}  // namespace ff::cli
