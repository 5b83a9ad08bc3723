#include "analysis/diagnosis.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>

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

bool comparable_times(const Event& a, const Event& b) {
  if (a.source.time_kind == TimeKind::kNone || a.source.time_kind != b.source.time_kind)
    return false;
  if (a.source.time_kind == TimeKind::kKernelUptime) return a.source.host == b.source.host;
  return true;
}

// Log order is not time order: a merged log often prints a victim before the cause. Use
// timestamps when both lines have comparable ones, file and line order otherwise.
bool happened_before(const Event& a, const Event& b) {
  if (comparable_times(a, b) && a.source.time != b.source.time) return a.source.time < b.source.time;
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
  std::size_t participants = 0;
};

// Compares one rule's events across ranks on the rule's cross-rank keys. Most ranks are
// healthy; the outlier is the story.
std::optional<CrossRankFinding> compare_across_ranks(const std::vector<Event>& events,
                                                     const std::vector<std::size_t>& of_rule,
                                                     const CrossRank& spec) {
  // First event per participant, in time order.
  std::vector<std::size_t> sorted = of_rule;
  std::sort(sorted.begin(), sorted.end(), [&](std::size_t a, std::size_t b) {
    return happened_before(events[a], events[b]);
  });
  std::map<std::string, std::size_t> first;
  std::vector<std::size_t> members;
  for (std::size_t i : sorted) {
    std::string p = participant(events[i]);
    if (p.empty()) continue;
    if (first.emplace(p, i).second) members.push_back(i);
  }
  if (members.size() < 2) return std::nullopt;
  for (const auto& key : spec.keys) {
    std::map<std::string, std::vector<std::size_t>> by_value;
    for (std::size_t i : members) {
      auto v = events[i].capture(key);
      if (v.empty()) continue;
      by_value[std::string(v)].push_back(i);
    }
    if (by_value.size() < 2) continue;
    // Minority value; ties broken by the smaller number (a lagging sequence number, fewer
    // enqueued collectives), then by time.
    const std::pair<const std::string, std::vector<std::size_t>>* minority = nullptr;
    const std::pair<const std::string, std::vector<std::size_t>>* majority = nullptr;
    for (const auto& entry : by_value) {
      if (!majority || entry.second.size() > majority->second.size()) majority = &entry;
      if (!minority) {
        minority = &entry;
        continue;
      }
      if (entry.second.size() != minority->second.size()) {
        if (entry.second.size() < minority->second.size()) minority = &entry;
        continue;
      }
      auto a = numeric(entry.first), b = numeric(minority->first);
      if (a && b && *a < *b) minority = &entry;
    }
    if (minority == majority) continue;  // all groups the same size and no order: undecided
    return CrossRankFinding{minority->second.front(), key, minority->first, majority->first,
                            members.size()};
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
};

double event_weight(const Rule& r, const Event& e) {
  return r.weight + (e.in_root_cause_record ? kRootCauseRecordBonus : 0);
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

}  // namespace

Analysis diagnose(const Catalog& catalog, std::vector<FileSummary> files, ScanState state) {
  Analysis out;
  out.files = std::move(files);
  out.events = std::move(state.events);
  out.rule_hits = std::move(state.rule_hits);
  const auto& rules = catalog.rules();
  const auto& events = out.events;

  std::vector<std::size_t> causes, symptoms;
  std::map<std::size_t, std::vector<std::size_t>> by_rule;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Rule& r = rules[events[i].rule];
    if (r.benign || r.role == Role::kContext) {
      out.context.push_back(i);
      continue;
    }
    (r.role == Role::kCause ? causes : symptoms).push_back(i);
    by_rule[events[i].rule].push_back(i);
  }

  std::map<std::size_t, CrossRankFinding> findings;
  for (const auto& [rule, idx] : by_rule)
    if (rules[rule].cross_rank)
      if (auto f = compare_across_ranks(events, idx, *rules[rule].cross_rank)) findings[rule] = *f;

  std::map<std::string, Hypothesis> hyps;
  auto add = [&](const std::string& category, std::size_t ev, double score, bool symptom) {
    Hypothesis& h = hyps[category];
    h.category = category;
    h.events.push_back(ev);
    if (h.events.size() == 1 || score > h.score) h.score = score;
    h.from_symptoms = (h.events.size() == 1 ? symptom : h.from_symptoms && symptom);
  };
  for (std::size_t i : causes) add(rules[events[i].rule].category, i, event_weight(rules[events[i].rule], events[i]), false);

  // Symptoms that reveal a desync across ranks become a cause-level hypothesis.
  std::set<std::size_t> promoted;
  for (const auto& [rule, f] : findings) {
    const Rule& r = rules[rule];
    if (r.cross_rank->mismatch_category.empty() || r.role != Role::kSymptom) continue;
    const std::string& cat = r.cross_rank->mismatch_category;
    for (std::size_t i : by_rule[rule]) {
      add(cat, i, std::max(kMismatchScore, r.weight), false);
      promoted.insert(i);
    }
    Hypothesis& h = hyps[cat];
    h.lead = f.lead;
    h.lead_reason = outlier_reason(events, f);
  }
  bool have_causes = !hyps.empty();
  if (!have_causes) {
    for (std::size_t i : symptoms) {
      if (promoted.count(i)) continue;
      const Rule& r = rules[events[i].rule];
      add(r.category, i, event_weight(r, events[i]) * kSymptomDiscount, true);
    }
  }

  // Choose each hypothesis's initiating event.
  std::vector<Hypothesis> ranked;
  for (auto& [cat, h] : hyps) ranked.push_back(std::move(h));
  for (auto& h : ranked) {
    if (h.lead) continue;
    double best = -1;
    for (std::size_t i : h.events) best = std::max(best, event_weight(rules[events[i].rule], events[i]));
    std::vector<std::size_t> top;
    for (std::size_t i : h.events)
      if (event_weight(rules[events[i].rule], events[i]) >= best - kTie) top.push_back(i);
    std::sort(top.begin(), top.end(), [&](std::size_t a, std::size_t b) {
      return happened_before(events[a], events[b]);
    });
    // A cross-rank outlier among the strongest lines leads even without a category change
    // (the rank with fewer enqueued collectives in a heartbeat timeout, say).
    for (std::size_t i : top) {
      auto f = findings.find(events[i].rule);
      if (f != findings.end() &&
          std::find(top.begin(), top.end(), f->second.lead) != top.end()) {
        h.lead = f->second.lead;
        h.lead_reason = outlier_reason(events, f->second);
        break;
      }
    }
    if (h.lead) continue;
    h.lead = top.front();
    const Event& e = events[top.front()];
    if (e.in_root_cause_record)
      h.lead_reason = "torchelastic recorded it as the first observed failure";
    else if (top.size() == 1)
      h.lead_reason = "the strongest " + std::string(h.from_symptoms ? "symptom" : "signature") +
                      " of this kind in the log";
    else if (comparable_times(events[top[0]], events[top[1]]))
      h.lead_reason = "the earliest by timestamp of " + std::to_string(top.size()) + " such lines";
    else
      h.lead_reason = "the first of " + std::to_string(top.size()) + " such lines in the log";
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](const Hypothesis& a, const Hypothesis& b) {
    if (std::abs(a.score - b.score) > kTie) return a.score > b.score;
    return happened_before(events[*a.lead], events[*b.lead]);
  });

  double total = 0;
  for (const auto& h : ranked) total += h.score;
  for (std::size_t k = 0; k < ranked.size(); ++k) {
    const Hypothesis& h = ranked[k];
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
    if (k == 0) {
      std::set<std::size_t> own(h.events.begin(), h.events.end());
      for (std::size_t i : symptoms)
        if (!own.count(i)) d.collateral.push_back(i);
      std::sort(d.collateral.begin(), d.collateral.end(), [&](std::size_t a, std::size_t b) {
        return happened_before(events[a], events[b]);
      });
    }
    const Rule& r = rules[d.rule];
    for (std::size_t c = 0; c < r.checks.size(); ++c)
      d.checks.push_back({r.checks[c].text, c < state.checks_seen[d.rule].size() &&
                                                state.checks_seen[d.rule][c]});
    d.reasoning = h.lead_reason;
    out.diagnoses.push_back(std::move(d));
  }
  out.only_victims = !out.diagnoses.empty() && out.diagnoses.front().category == "remote-peer";
  return out;
}

}  // namespace ff::analysis
