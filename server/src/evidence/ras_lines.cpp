#include "evidence/ras_lines.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "evidence/flight_recorder_analysis.hpp"  // format_ranks

namespace ff::evidence {

namespace {

std::string process_words(const RasProcess& p) {
  std::string s = "process " + std::to_string(p.pid) + " on node " + p.host;
  if (!p.gpu.empty()) s += " (GPU " + p.gpu + ")";
  return s;
}

std::string comm_name(const RasCommunicator& c) {
  return "communicator " + (c.id.empty() ? "" : c.id + " ") + "(" + c.hash + ")";
}

// The host of a rank when RAS listed its process.
std::string host_of(const RasCommunicator& c, int rank) {
  for (const auto& g : c.counts)
    for (const auto& m : g.members)
      if (m.rank == rank && !m.process.host.empty()) return m.process.host;
  for (const auto& m : c.missing)
    if (m.rank == rank && !m.process.host.empty()) return m.process.host;
  for (const auto& m : c.errored)
    if (m.rank == rank && !m.process.host.empty()) return m.process.host;
  return {};
}

std::string who(const RasCommunicator& c, int rank) {
  std::string s = "rank " + std::to_string(rank);
  if (auto h = host_of(c, rank); !h.empty()) s += " (host " + h + ")";
  return s;
}

std::vector<int> sorted_ranks(const std::vector<RasRank>& list) {
  std::set<int> s;
  for (const auto& m : list)
    if (m.rank >= 0) s.insert(m.rank);
  return {s.begin(), s.end()};
}

// "launched up to operation 6649 where 26 ranks launched up to 6650" for the first kind of
// operation whose counts differ.
std::string counts_words(const RasCommunicator& c) {
  std::map<std::string, std::vector<const RasCountGroup*>> by_op;
  for (const auto& g : c.counts) by_op[g.op].push_back(&g);
  for (const auto& [op, groups] : by_op) {
    if (groups.size() < 2) continue;
    const RasCountGroup* top = groups.front();
    const RasCountGroup* low = groups.front();
    for (const auto* g : groups) {
      if (g->launched > top->launched) top = g;
      if (g->launched < low->launched) low = g;
    }
    std::string kind = op == "collective" ? "" : op + " ";
    return "launched up to " + kind + "operation " + std::to_string(low->launched) + " where " +
           std::to_string(top->ranks) + " rank" + (top->ranks == 1 ? "" : "s") +
           " launched up to " + std::to_string(top->launched);
  }
  return "launched fewer operations than the others";
}

}  // namespace

std::vector<RasLine> render_ras(const RasReport& r) {
  std::vector<RasLine> out;
  for (const auto& c : r.communicators) {
    if (!c.behind.empty()) {
      using T = RasCommunicator::Trend;
      const char* trend = c.trend == T::kFrozen      ? "frozen"
                          : c.trend == T::kAdvancing ? "advancing"
                                                     : "one report";
      std::string of = c.size > 0 ? " of " + std::to_string(c.size) : "";
      std::string line = "NCCL RAS: " + who(c, c.behind.front()) + " is behind in " + comm_name(c) +
                         ": " + std::to_string(c.behind.size()) + of + " ranks " + counts_words(c);
      if (c.behind_inferred) line += " (RAS listed only the ranks ahead)";
      line += "; counts: " + std::string(trend) + "; ranks: " + format_ranks(c.behind);
      out.push_back({c.line, std::move(line)});
    }
    if (auto missing = sorted_ranks(c.missing); !missing.empty())
      out.push_back({c.missing_line,
                     "NCCL RAS: " + who(c, missing.front()) + " sent no data for " + comm_name(c) +
                         " (unreachable, hung or dead); ranks: " + format_ranks(missing)});
    if (auto errored = sorted_ranks(c.errored); !errored.empty())
      out.push_back({c.line, "NCCL RAS: " + who(c, errored.front()) +
                                 " reported an NCCL error in " + comm_name(c) +
                                 "; ranks: " + format_ranks(errored)});
  }
  for (const auto& p : r.dead)
    out.push_back(
        {p.line, "NCCL RAS: " + process_words(p) + " is dead (unreachable via the RAS network)"});
  for (const auto& p : r.unreachable)
    out.push_back({p.line, "NCCL RAS: " + process_words(p) + " sent no communicator data"});
  for (const auto& e : r.events)
    if (e.event == "PEER_DEAD")
      out.push_back({e.line, "NCCL RAS: " + process_words(e.peer) + " is dead (monitor event at " +
                                 e.time + ")"});
  std::stable_sort(out.begin(), out.end(),
                   [](const RasLine& a, const RasLine& b) { return a.line < b.line; });
  return out;
}

std::string ras_analysis_text(std::string_view original, const std::vector<RasLine>& lines) {
  std::vector<std::string_view> kept;
  for (std::size_t start = 0; start < original.size();) {
    std::size_t nl = original.find('\n', start);
    if (nl == std::string_view::npos) nl = original.size();
    kept.push_back(original.substr(start, nl - start));
    start = nl + 1;
  }
  std::vector<const RasLine*> order;
  for (const auto& l : lines) order.push_back(&l);
  std::stable_sort(order.begin(), order.end(),
                   [](const RasLine* a, const RasLine* b) { return a->line < b->line; });
  std::map<std::size_t, const std::string*> at;
  for (const auto* l : order) {
    // Sorted, so the next free line is after the last one taken.
    std::size_t k = at.empty() ? l->line : std::max(l->line, at.rbegin()->first + 1);
    at[k] = &l->text;
  }
  std::size_t n = kept.size();
  if (!at.empty()) n = std::max(n, at.rbegin()->first + 1);
  std::string text;
  text.reserve(original.size() + 256 * lines.size());
  for (std::size_t i = 0; i < n; ++i) {
    auto it = at.find(i);
    if (it != at.end()) {
      text += *it->second;
    } else if (i < kept.size()) {
      std::string_view l = kept[i];
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      text += l;
    }
    text += '\n';
  }
  return text;
}

}  // namespace ff::evidence
