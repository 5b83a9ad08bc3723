#include "evidence/flight_recorder_analysis.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace ff::evidence {

std::string_view match_state_name(FrFindingKind k) {
  switch (k) {
    case FrFindingKind::kMissing:
      return "MISSING_RANKS";
    case FrFindingKind::kAhead:
      return "EXTRA_COLLECTIVE";
    case FrFindingKind::kTypeMismatch:
      return "COLLECTIVE_TYPE_MISMATCH";
    case FrFindingKind::kSizeMismatch:
      return "SIZE_OR_SYNTAX_MISMATCH";
    case FrFindingKind::kDtypeMismatch:
      return "COLLECTIVE_DTYPE_MISMATCH";
    case FrFindingKind::kStateMismatch:
      return "COLLECTIVE_STATE_MISMATCH";
    case FrFindingKind::kNoDump:
      return "NO_DUMP";
  }
  return "";
}

std::string format_ranks(const std::vector<int>& ranks) {
  std::string out = "[";
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (i) out += ", ";
    out += std::to_string(ranks[i]);
    if (j > i) {
      out += '-';
      out += std::to_string(ranks[j]);
    }
    i = j + 1;
  }
  return out + "]";
}

namespace {

std::string shapes_text(const std::vector<std::vector<std::int64_t>>& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += "[";
    for (std::size_t j = 0; j < s[i].size(); ++j) {
      if (j) out += ", ";
      out += std::to_string(s[i][j]);
    }
    out += "]";
  }
  return out + "]";
}

std::string strings_text(const std::vector<std::string>& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + s[i];
  return out + "]";
}

// One rank's view of one process group.
struct RankGroup {
  std::map<std::int64_t, const FrEntry*> by_seq;  // collectives, first entry of each seq
  std::int64_t last_enqueued = -1;                // newest seq it enqueued (entries or pg_status)
  std::int64_t last_completed = -1;
};

// The value most ranks hold; a tie goes to the value of the lowest rank (fr_trace's choice).
template <class Key>
std::pair<Key, std::vector<int>> majority(const std::vector<std::pair<int, Key>>& votes,
                                          std::vector<int>& minority) {
  std::map<Key, std::vector<int>> by;
  for (const auto& [r, k] : votes) by[k].push_back(r);
  const std::pair<const Key, std::vector<int>>* best = nullptr;
  for (const auto& kv : by)
    if (!best || kv.second.size() > best->second.size() ||
        (kv.second.size() == best->second.size() && kv.second.front() < best->second.front()))
      best = &kv;
  minority.clear();
  for (const auto& [r, k] : votes)
    if (k != best->first) minority.push_back(r);
  std::sort(minority.begin(), minority.end());
  return {best->first, best->second};
}

template <class T>
T mode(const std::vector<T>& v, T none) {
  std::map<T, std::size_t> c;
  for (const auto& x : v) ++c[x];
  T best = none;
  std::size_t n = 0;
  for (const auto& [x, k] : c)
    if (k > n) best = x, n = k;
  return best;
}

using ByRank = std::map<int, const FlightRecorderDump*>;

// The first dump of each rank: a rank dumped twice (a restart, a copy) counts once.
ByRank first_dump_per_rank(std::span<const FlightRecorderDump> all) {
  ByRank by_rank;
  for (const auto& d : all)
    if (d.rank && !by_rank.count(*d.rank)) by_rank[*d.rank] = &d;
  return by_rank;
}

// The version most ranks wrote; a rank that wrote another, or a layout newer than the one
// firstfault knows, is a note the reader should see before trusting the findings.
void note_versions(const ByRank& by_rank, FlightRecorderAnalysis& a) {
  std::vector<std::string> versions;
  for (const auto& [r, d] : by_rank) versions.push_back(d->version);
  a.version = mode(versions, std::string());
  for (const auto& [r, d] : by_rank)
    if (d->version != a.version) {
      a.notes.push_back("rank " + std::to_string(r) + " wrote dump version " + d->version +
                        ", most ranks " + a.version);
      break;
    }
  // A newer minor version only adds fields (FlightRecorder.hpp: "minor when adding fields"),
  // so it reads as the newest layout known; say so.
  if (auto dot = a.version.find('.'); dot != std::string::npos) {
    std::string minor = a.version.substr(dot + 1);
    if (minor.size() > 2 || (minor.size() == 2 && minor > "10"))
      a.notes.push_back("dump version " + a.version +
                        " is newer than the 2.10 layout firstfault knows");
  }
}

// Groups: the members most dumps agree on, their descriptions, each rank's view.
struct GroupViews {
  std::map<std::string, std::vector<std::vector<int>>> member_votes;
  std::map<std::string, std::string> descs;
  std::map<std::string, std::map<int, RankGroup>> views;
  std::map<int, std::string> newest_group;  // wavefront: the group of each rank's newest entry
};

// Everything the dumps say per group, gathered once so each group is compared on its own.
GroupViews collect_group_views(const ByRank& by_rank) {
  GroupViews gv;
  for (const auto& [r, d] : by_rank) {
    for (const auto& [name, g] : d->pg_config) {
      if (!g.ranks.empty()) gv.member_votes[name].push_back(g.ranks);
      if (!g.desc.empty()) gv.descs.emplace(name, g.desc);
    }
    std::map<std::string, std::string> pg_id_to_name;
    const FrEntry* newest = nullptr;
    for (const auto& e : d->entries) {
      pg_id_to_name[std::to_string(e.pg_id)] = e.pg_name;
      if (!e.pg_desc.empty()) gv.descs.emplace(e.pg_name, e.pg_desc);
      if (!newest || e.record_id > newest->record_id) newest = &e;
      if (e.is_p2p) continue;
      RankGroup& v = gv.views[e.pg_name][r];
      v.by_seq.emplace(e.collective_seq_id, &e);
      v.last_enqueued = std::max(v.last_enqueued, e.collective_seq_id);
      if (e.state == FrState::kCompleted)
        v.last_completed = std::max(v.last_completed, e.collective_seq_id);
    }
    if (newest) gv.newest_group[r] = newest->pg_name;
    for (const auto& [id, st] : d->pg_status) {
      auto it = pg_id_to_name.find(id);
      if (it == pg_id_to_name.end()) continue;  // a group this rank recorded no entry for
      RankGroup& v = gv.views[it->second][r];
      v.last_enqueued = std::max(v.last_enqueued, st.last_enqueued);
      v.last_completed = std::max(v.last_completed, st.last_completed);
    }
  }
  return gv;
}

// One process group under comparison: who belongs, who dumped, and which collectives every
// dumped member can still be compared on.
struct GroupCheck {
  const std::string& name;
  const std::map<int, RankGroup>& ranks_view;
  const ByRank& by_rank;
  std::string pg_desc;
  std::vector<int> members, dumped, undumped;
  std::int64_t start = 0;       // the oldest seq every dumped member still holds
  std::set<std::int64_t> seqs;  // every seq some dumped member holds

  const RankGroup* view(int r) const {
    auto it = ranks_view.find(r);
    return it == ranks_view.end() ? nullptr : &it->second;
  }

  FrFinding make(FrFindingKind kind, std::int64_t seq, std::vector<int> culprits,
                 std::size_t agree) const {
    FrFinding f;
    f.kind = kind;
    f.culprits = std::move(culprits);
    f.pg_name = name;
    f.pg_desc = pg_desc;
    f.seq = seq;
    f.majority = agree;
    f.members = members.size();
    if (auto it = by_rank.find(f.culprits.front()); it != by_rank.end())
      f.culprit_host = it->second->host;
    return f;
  }
};

// The members most dumps agree on, plus any rank that dumped entries for the group.
std::vector<int> group_members(const GroupViews& gv, const std::string& name,
                               const std::map<int, RankGroup>& ranks_view) {
  std::vector<int> members;
  if (auto it = gv.member_votes.find(name); it != gv.member_votes.end())
    members = mode(it->second, std::vector<int>());
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  // A member this dump set lacks; a rank that dumped but is no member still counts.
  for (const auto& [r, v] : ranks_view)
    if (!std::binary_search(members.begin(), members.end(), r))
      members.insert(std::upper_bound(members.begin(), members.end(), r), r);
  return members;
}

GroupCheck open_group(const GroupViews& gv, const std::string& name,
                      const std::map<int, RankGroup>& ranks_view, const ByRank& by_rank) {
  GroupCheck g{name, ranks_view, by_rank, {}, {}, {}, {}, 0, {}};
  if (auto it = gv.descs.find(name); it != gv.descs.end()) g.pg_desc = it->second;
  g.members = group_members(gv, name, ranks_view);
  for (int r : g.members) (by_rank.count(r) ? g.dumped : g.undumped).push_back(r);
  // Compare only where every rank still holds its entries: older ones left the ring.
  for (int r : g.dumped)
    if (const RankGroup* v = g.view(r); v && !v->by_seq.empty()) {
      g.start = std::max(g.start, v->by_seq.begin()->first);
      for (const auto& [s, e] : v->by_seq) g.seqs.insert(s);
    }
  return g;
}

// How far the group got: the last collective most dumped members enqueued and completed.
FrGroupProgress group_progress(const GroupCheck& g,
                               const std::map<std::string, std::size_t>& here) {
  FrGroupProgress prog;
  prog.pg_name = g.name;
  prog.pg_desc = g.pg_desc;
  prog.members = g.members.size();
  prog.dumped = g.dumped.size();
  auto h = here.find(g.name);
  prog.here = h != here.end() ? h->second : 0;
  std::vector<std::int64_t> enq, comp;
  for (int r : g.dumped)
    if (const RankGroup* v = g.view(r))
      enq.push_back(v->last_enqueued), comp.push_back(v->last_completed);
  prog.last_enqueued = mode(enq, std::int64_t{-1});
  prog.last_completed = mode(comp, std::int64_t{-1});
  return prog;
}

// What differs, in fr_trace's order (utils.py match_one_event / types.py Op.match).
using Key = std::string;

Key type_key(const FrEntry& e) {
  return e.profiling_name;
}

Key size_key(const FrEntry& e) {
  auto t = e.op_type();
  // all_to_all splits may differ by rank; scatter's input and gather's output
  // exist on the root only.
  if (t.find("all_to_all") != std::string_view::npos ||
      t.find("alltoall") != std::string_view::npos)
    return Key();
  std::string in = t == "scatter" ? "" : shapes_text(e.input_sizes);
  std::string out = t == "gather" ? "" : shapes_text(e.output_sizes);
  return "input sizes " + in + ", output sizes " + out;
}

Key dtype_key(const FrEntry& e) {
  return strings_text(e.input_dtypes) + "/" + strings_text(e.output_dtypes);
}

Key state_key(const FrEntry& e) {
  return std::string(to_string(e.state));
}

struct Check {
  FrFindingKind kind;
  Key (*key)(const FrEntry&);
};

const Check kChecks[] = {
    {FrFindingKind::kTypeMismatch, type_key},
    {FrFindingKind::kSizeMismatch, size_key},
    {FrFindingKind::kDtypeMismatch, dtype_key},
    {FrFindingKind::kStateMismatch, state_key},
};

using Present = std::vector<std::pair<int, const FrEntry*>>;

// The first of kChecks on which some ranks differ from the majority, as a finding about them.
std::optional<FrFinding> first_mismatch(const GroupCheck& g, std::int64_t s,
                                        const Present& agreeing) {
  for (const auto& c : kChecks) {
    std::vector<std::pair<int, Key>> votes;
    for (const auto& [r, e] : agreeing) votes.emplace_back(r, c.key(*e));
    std::vector<int> minority;
    auto [value, who] = majority(votes, minority);
    if (minority.empty()) continue;
    FrFinding f = g.make(c.kind, s, minority, who.size());
    const FrEntry* maj = nullptr;
    const FrEntry* odd = nullptr;
    for (const auto& [r, e] : agreeing) {
      if (r == who.front()) maj = e;
      if (r == minority.front()) odd = e;
    }
    f.op = maj->profiling_name;
    f.frame = maj->frame;
    f.expected = value;
    f.found = c.key(*odd);
    return f;
  }
  return std::nullopt;
}

// One collective across the dumped members: ranks that never enqueued it (or alone did), else
// the first property on which they disagree.
std::optional<FrFinding> compare_collective(const GroupCheck& g, std::int64_t s) {
  Present present;
  std::vector<int> never;
  for (int r : g.dumped) {
    const RankGroup* v = g.view(r);
    auto it = v ? v->by_seq.find(s) : decltype(v->by_seq.end()){};
    if (v && it != v->by_seq.end())
      present.emplace_back(r, it->second);
    else if (!v || v->last_enqueued < s)
      never.push_back(r);
    // else: enqueued, but its entry is not in the dump (only active entries were dumped)
  }
  if (present.empty()) return std::nullopt;
  if (never.empty()) return first_mismatch(g, s, present);
  const FrEntry* ref = present.front().second;
  std::vector<int> have;
  for (const auto& [r, e] : present) have.push_back(r);
  FrFinding f = never.size() <= present.size()
                    ? g.make(FrFindingKind::kMissing, s, never, present.size())
                    : g.make(FrFindingKind::kAhead, s, have, never.size());
  f.op = ref->profiling_name;
  f.frame = ref->frame;
  return f;
}

// The oldest comparable collective on which the dumped members disagree.
std::optional<FrFinding> first_disagreement(const GroupCheck& g) {
  for (std::int64_t s : g.seqs) {
    if (s < g.start) continue;
    if (auto f = compare_collective(g, s)) return f;
  }
  return std::nullopt;
}

// Every dumped member waits in the same newest collective and some members wrote no
// dump: those are the ones the others wait for (the rank that failed first often dies
// before it can dump, pytorch/pytorch#196968).
// Only when most members dumped: one dump alone cannot say who the others wait for.
std::optional<FrFinding> waiting_on_undumped(const GroupCheck& g) {
  if (g.undumped.empty() || g.dumped.size() <= g.undumped.size() || g.seqs.empty())
    return std::nullopt;
  std::int64_t s = *g.seqs.rbegin();
  std::size_t waiting = 0;
  const FrEntry* ref = nullptr;
  for (int r : g.dumped)
    if (const RankGroup* v = g.view(r)) {
      auto it = v->by_seq.find(s);
      if (it != v->by_seq.end() && it->second->state != FrState::kCompleted)
        ++waiting, ref = it->second;
    }
  if (!ref || waiting != g.dumped.size()) return std::nullopt;
  FrFinding f = g.make(FrFindingKind::kNoDump, s, g.undumped, waiting);
  f.op = ref->profiling_name;
  f.frame = ref->frame;
  return f;
}

// Wavefront: the group most ranks are in first; its findings lead.
void order_by_wavefront(FlightRecorderAnalysis& a) {
  std::stable_sort(
      a.groups.begin(), a.groups.end(),
      [](const FrGroupProgress& x, const FrGroupProgress& y) { return x.here > y.here; });
  auto order = [&](const std::string& pg) {
    for (std::size_t i = 0; i < a.groups.size(); ++i)
      if (a.groups[i].pg_name == pg) return i;
    return a.groups.size();
  };
  std::stable_sort(
      a.findings.begin(), a.findings.end(), [&](const FrFinding& x, const FrFinding& y) {
        // A finding from the dumps themselves before one about ranks that left none.
        bool xn = x.kind == FrFindingKind::kNoDump, yn = y.kind == FrFindingKind::kNoDump;
        if (xn != yn) return yn;
        return order(x.pg_name) < order(y.pg_name);
      });
}

}  // namespace

FlightRecorderAnalysis analyze_flight_recorder(std::span<const FlightRecorderDump> all) {
  FlightRecorderAnalysis a;
  const ByRank by_rank = first_dump_per_rank(all);
  a.dumps = by_rank.size();
  if (by_rank.empty()) return a;
  note_versions(by_rank, a);
  const GroupViews gv = collect_group_views(by_rank);

  std::set<int> missing_dumps;
  std::map<std::string, std::size_t> here;
  for (const auto& [r, g] : gv.newest_group) ++here[g];

  for (const auto& [name, ranks_view] : gv.views) {
    const GroupCheck g = open_group(gv, name, ranks_view, by_rank);
    for (int r : g.undumped) missing_dumps.insert(r);
    a.groups.push_back(group_progress(g, here));
    if (auto f = first_disagreement(g))
      a.findings.push_back(std::move(*f));
    else if (auto w = waiting_on_undumped(g))
      a.findings.push_back(std::move(*w));
  }
  a.ranks_without_dump.assign(missing_dumps.begin(), missing_dumps.end());
  order_by_wavefront(a);
  return a;
}

std::vector<std::string> render_flight_recorder(const FlightRecorderAnalysis& a) {
  std::vector<std::string> lines;
  for (const auto& f : a.findings) {
    std::string who = "rank " + std::to_string(f.culprits.front());
    if (!f.culprit_host.empty()) who += " (host " + f.culprit_host + ")";
    std::string group =
        "process group " + f.pg_name + (f.pg_desc.empty() ? "" : " (" + f.pg_desc + ")");
    std::string coll = "collective " + std::to_string(f.seq) + " (" + f.op + ") of " + group;
    std::string of = std::to_string(f.majority) + " of " + std::to_string(f.members) + " ranks";
    std::string line = "Flight Recorder: " + who + " ";
    switch (f.kind) {
      case FrFindingKind::kMissing:
        line += "never enqueued " + coll + " that " + of + " enqueued";
        break;
      case FrFindingKind::kAhead:
        line += "enqueued " + coll + " that " + of + " never enqueued";
        break;
      case FrFindingKind::kNoDump:
        line += "left no Flight Recorder dump while " + of + " wait in " + coll;
        break;
      case FrFindingKind::kTypeMismatch:
        line += "ran " + f.found + " as collective " + std::to_string(f.seq) + " of " + group +
                " where " + of + " ran " + f.expected;
        break;
      case FrFindingKind::kSizeMismatch:
      case FrFindingKind::kDtypeMismatch:
      case FrFindingKind::kStateMismatch: {
        const char* what = f.kind == FrFindingKind::kSizeMismatch    ? "has "
                           : f.kind == FrFindingKind::kDtypeMismatch ? "has dtypes "
                                                                     : "has state ";
        line += what + f.found + " in " + coll + " where " + of + " have " + f.expected;
        break;
      }
    }
    line += "; mismatch: " + std::string(match_state_name(f.kind)) +
            "; ranks: " + format_ranks(f.culprits);
    if (!f.frame.empty()) line += "; issued from " + f.frame;
    lines.push_back(std::move(line));
  }
  std::string summary = "Flight Recorder: " + std::to_string(a.dumps) + " dumps (version " +
                        a.version + "), " + std::to_string(a.groups.size()) + " process groups";
  if (!a.groups.empty()) {
    const auto& g = a.groups.front();
    summary += "; wavefront: process group " + g.pg_name +
               (g.pg_desc.empty() ? "" : " (" + g.pg_desc + ")") + " with " +
               std::to_string(g.here) + " of " + std::to_string(a.dumps) +
               " ranks, last enqueued collective " + std::to_string(g.last_enqueued) +
               ", last completed " + std::to_string(g.last_completed);
  }
  if (!a.ranks_without_dump.empty())
    summary += "; no dump from ranks " + format_ranks(a.ranks_without_dump);
  for (const auto& n : a.notes) summary += "; " + n;
  lines.push_back(std::move(summary));
  return lines;
}

}  // namespace ff::evidence
