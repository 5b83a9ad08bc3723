#include "evidence/ras_report.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace ff::evidence {

namespace {

using nlohmann::json;

// A report names at most this many ranks per communicator; a communicator claiming more
// (a hostile or corrupt size) is treated as of unknown size.
constexpr int kMaxRanks = 1 << 20;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string rank_list(const std::vector<int>& ranks) {
  // Ranges keep a 1000-rank list readable: "0-3,5,7-9".
  std::string s;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!s.empty()) s += ",";
    s += std::to_string(ranks[i]);
    if (j > i) {
      // Appended in two steps: GCC 12 at -O3 misreads `"," + std::string` (-Wrestrict).
      s += j == i + 1 ? ',' : '-';
      s += std::to_string(ranks[j]);
    }
    i = j + 1;
  }
  return s;
}

std::string process_text(const RasProcess& p) {
  std::string s = "process " + std::to_string(p.pid) + " on node " + p.host;
  if (!p.gpu.empty()) s += " (GPU " + p.gpu + ")";
  return s;
}

// The ranks behind on one communicator: for each kind of operation, every rank that launched
// fewer than the most advanced group. A group RAS did not list is recovered by inversion
// when every other group's members are known and the communicator's size is.
void conclude_counts(RasCommunicator& c) {
  std::set<int> behind, ahead;
  bool inferred = false;
  std::map<std::string, std::vector<const RasCountGroup*>> by_op;
  for (const auto& g : c.counts) by_op[g.op].push_back(&g);
  std::set<int> missing;
  for (const auto& m : c.missing) missing.insert(m.rank);
  for (const auto& [op, groups] : by_op) {
    if (groups.size() < 2) continue;
    long long top = 0;
    for (const auto* g : groups) top = std::max(top, g->launched);
    std::set<int> listed_top, listed_low;
    int unlisted_low_groups = 0;
    bool top_complete = true;
    for (const auto* g : groups) {
      bool complete = static_cast<int>(g->members.size()) >= g->ranks;
      if (g->launched == top) {
        if (!complete) top_complete = false;
        for (const auto& m : g->members) listed_top.insert(m.rank);
      } else {
        if (!complete) ++unlisted_low_groups;
        for (const auto& m : g->members) listed_low.insert(m.rank);
      }
    }
    ahead.insert(listed_top.begin(), listed_top.end());
    behind.insert(listed_low.begin(), listed_low.end());
    if (unlisted_low_groups > 0 && top_complete && c.size > 0) {
      for (int r = 0; r < c.size; ++r)
        if (!listed_top.count(r) && !missing.count(r)) behind.insert(r);
      inferred = true;
    }
  }
  for (int r : behind) ahead.erase(r);
  c.behind.assign(behind.begin(), behind.end());
  c.ahead.assign(ahead.begin(), ahead.end());
  c.behind_inferred = inferred;
}

void conclude(RasReport& r) {
  std::set<int> stuck;
  for (auto& c : r.communicators) {
    conclude_counts(c);
    std::string name = "communicator " + (c.id.empty() ? "" : c.id + " ") + "(" + c.hash + ")";
    if (!c.behind.empty()) {
      std::string s = name + ": rank" + (c.behind.size() == 1 ? " " : "s ") + rank_list(c.behind) +
                      (c.behind.size() == 1 ? " is" : " are") + " behind";
      if (!c.ahead.empty())
        s += " (rank" + std::string(c.ahead.size() == 1 ? " " : "s ") + rank_list(c.ahead) +
             " launched further" + (c.behind_inferred ? "; RAS listed only those" : "") + ")";
      using T = RasCommunicator::Trend;
      if (c.trend == T::kFrozen)
        s += "; the counts did not change since the previous report: they are the stuck ranks";
      else if (c.trend == T::kAdvancing)
        s += "; the counts advanced since the previous report: a mismatch sampled in passing, "
             "not a hang";
      else
        s += "; if a later query shows the same counts, they are the stuck ranks";
      r.conclusions.push_back(std::move(s));
      if (c.trend != T::kAdvancing) stuck.insert(c.behind.begin(), c.behind.end());
    }
    if (!c.missing.empty()) {
      std::vector<int> ranks;
      for (const auto& m : c.missing) ranks.push_back(m.rank);
      std::sort(ranks.begin(), ranks.end());
      ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
      r.conclusions.push_back(name + ": no data from rank" + (ranks.size() == 1 ? " " : "s ") +
                              rank_list(ranks) + " (unreachable, hung or dead)");
      stuck.insert(ranks.begin(), ranks.end());
    }
    if (!c.errored.empty()) {
      std::vector<int> ranks;
      for (const auto& m : c.errored) ranks.push_back(m.rank);
      r.conclusions.push_back(name + ": NCCL reported an error on rank" +
                              (ranks.size() == 1 ? " " : "s ") + rank_list(ranks));
    }
  }
  for (const auto& p : r.dead) r.conclusions.push_back("RAS declared " + process_text(p) + " dead");
  for (const auto& p : r.unreachable)
    r.conclusions.push_back("no communicator data from " + process_text(p));
  for (const auto& e : r.events)
    if (e.event == "PEER_DEAD")
      r.conclusions.push_back("RAS monitor at " + e.time + ": " + process_text(e.peer) + " dead");
  r.stuck_ranks.assign(stuck.begin(), stuck.end());
}

// ---- text report and text monitor events ----

struct TextPatterns {
  RE2 comm{R"(#(\d+)-(\d+) \(([0-9a-fA-F]+)\) (MISMATCH|INCOMPLETE|ERROR))"};
  RE2 table_row{R"((\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+))"};
  RE2 diff_counts{R"(Communicator ranks have different (\S+) operation counts)"};
  RE2 diff_status{R"(Communicator ranks have different status)"};
  RE2 group_launched{R"((\d+) ranks have launched up to operation (\d+))"};
  RE2 group_none{R"((\d+) ranks have not launched any operations)"};
  RE2 rank_launched{
      R"(Rank (\d+) has launched up to operation (\d+) -- (?:GPU (\S+) managed by process (\d+) on node (\S+)|\[process information not found\]))"};
  RE2 rank_none{
      R"(Rank (\d+) has not launched any operations -- (?:GPU (\S+) managed by process (\d+) on node (\S+)|\[process information not found\]))"};
  RE2 rank_member{
      R"(Rank (\d+) -- (?:GPU (\S+) managed by process (\d+) on node (\S+)|\[process information not found\]))"};
  RE2 missing_list{R"(The missing ranks?: ([\d, ]+))"};
  RE2 process{R"(Process (\d+) on node (\S+) managing GPUs? (.+))"};
  RE2 version{R"(NCCL version (\S+))"};
  RE2 monitor{R"(\[([^\]]+)\] ([A-Z_]+): (.*))"};
};

const TextPatterns& patterns() {
  static const TextPatterns p;
  return p;
}

int to_int(const std::string& s) {
  long long v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') break;
    v = v * 10 + (ch - '0');
    if (v > kMaxRanks * 16LL) return -1;
  }
  return static_cast<int>(v);
}

long long to_ll(const std::string& s) {
  long long v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') break;
    if (v > (1LL << 58)) return v;
    v = v * 10 + (ch - '0');
  }
  return v;
}

// One pass over a text report: which section a line is in, and which communicator (and which
// part of it) the lines describe. Each kind of line has its handler; `feed` keeps the order in
// which a line is tried against them.
struct TextParser {
  enum class Section { kNone, kTable, kDead, kIncomplete, kComm };
  const TextPatterns& P = patterns();
  RasReport r;
  std::map<int, int> ranks_per_comm;  // summary table: group number -> ranks per comm
  Section section = Section::kNone;
  RasCommunicator* comm = nullptr;
  bool in_counts = false;  // inside "different ... operation counts" of `comm`
  bool in_missing = false;
  bool monitor = false;

  void feed(std::size_t i, std::string_view line);
  bool communicator_header(std::size_t i, std::string_view line);
  bool summary_table_row(std::string_view line);
  void communicator_line(std::size_t i, std::string_view line);
  void missing_ranks(std::size_t i, std::string_view list);
  RasCountGroup& add_group(int n, long long launched);
  bool count_line(std::string_view line);
  void monitor_event(std::size_t i, std::string_view line);
  RasReport finish();
};

void TextParser::feed(std::size_t i, std::string_view line) {
  if (line.empty()) {
    if (section != Section::kTable) section = Section::kNone;
    return;
  }
  std::string a, b, c;
  if (r.nccl_version.empty() && RE2::PartialMatch(line, P.version, &a)) r.nccl_version = a;
  if (communicator_header(i, line)) return;
  if (line.rfind("Group ", 0) == 0) {
    section = Section::kTable;
    return;
  }
  if (section == Section::kTable && summary_table_row(line)) return;
  if (line == "DEAD") {
    section = Section::kDead;
    return;
  }
  if (line == "INCOMPLETE") {
    section = Section::kIncomplete;
    return;
  }
  if (section == Section::kDead || section == Section::kIncomplete) {
    if (RE2::FullMatch(line, P.process, &a, &b, &c))
      (section == Section::kDead ? r.dead : r.unreachable).push_back({b, to_ll(a), c, i});
    return;
  }
  if (section == Section::kComm && comm) {
    communicator_line(i, line);
    return;
  }
  monitor_event(i, line);
}

// "#0-0 (hash) MISMATCH": a communicator, new or named again for another problem; its size
// comes from the summary table read before it.
bool TextParser::communicator_header(std::size_t i, std::string_view line) {
  std::string a, b, c, d;
  if (!RE2::FullMatch(line, P.comm, &a, &b, &c, &d)) return false;
  std::string id = "#" + a + "-" + b;
  comm = nullptr;
  for (auto& x : r.communicators)
    if (x.id == id) comm = &x;
  if (!comm) {
    r.communicators.emplace_back();
    comm = &r.communicators.back();
    comm->id = id;
    comm->hash = c;
    comm->line = i;
    auto it = ranks_per_comm.find(to_int(a));
    if (it != ranks_per_comm.end()) comm->size = it->second;
  }
  comm->problems.push_back(d);
  section = Section::kComm;
  in_counts = in_missing = false;
  return true;
}

// A line of the summary table (or its header's second line); false, leaving the table, for
// any other line.
bool TextParser::summary_table_row(std::string_view line) {
  std::string a, b, c, d, e, f, g, h;
  if (RE2::FullMatch(line, P.table_row, &a, &b, &c, &d, &e, &f, &g, &h)) {
    int per_comm = to_int(e);
    if (per_comm > 0 && per_comm <= kMaxRanks) ranks_per_comm[to_int(a)] = per_comm;
    return true;
  }
  if (line.rfind("#", 0) == 0) {  // the header's second line
    return true;
  }
  section = Section::kNone;
  return false;
}

// A line inside a communicator's section: which of its parts starts, or a line of one.
void TextParser::communicator_line(std::size_t i, std::string_view line) {
  std::string a, c, d, e;
  if (RE2::FullMatch(line, P.diff_counts, &a)) {
    in_counts = true;
    in_missing = false;
    // A sentinel holds the kind of operation until the first group line replaces it.
    comm->counts.push_back({a, -1, -1, {}});
    return;
  }
  if (RE2::FullMatch(line, P.diff_status)) {
    in_counts = in_missing = false;
    return;
  }
  if (line.rfind("Missing communicator data from", 0) == 0) {
    comm->missing_line = i;
    in_missing = true;
    in_counts = false;
    return;
  }
  if (RE2::FullMatch(line, P.missing_list, &a)) {
    missing_ranks(i, a);
    return;
  }
  if (in_counts && !comm->counts.empty() && count_line(line)) return;
  if (in_missing && RE2::FullMatch(line, P.rank_member, &a, &c, &d, &e))
    comm->missing.push_back({to_int(a), {e, d.empty() ? -1 : to_ll(d), c}});
}

// "The missing ranks: 3, 5": ranks without process information.
void TextParser::missing_ranks(std::size_t i, std::string_view list) {
  comm->missing_line = i;
  std::string_view rest = list;
  while (!rest.empty()) {
    std::size_t k = rest.find_first_of(", ");
    std::string tok(rest.substr(0, k));
    if (!tok.empty()) {
      int rank = to_int(tok);
      if (rank >= 0) comm->missing.push_back({rank, {}});
    }
    if (k == std::string_view::npos) break;
    rest.remove_prefix(k + 1);
  }
}

RasCountGroup& TextParser::add_group(int n, long long launched) {
  std::string op = comm->counts.back().op;
  auto& last = comm->counts.back();
  if (last.ranks == -1) {  // the sentinel becomes the first group
    last.ranks = n;
    last.launched = launched;
    return last;
  }
  comm->counts.push_back({op, n, launched, {}});
  return comm->counts.back();
}

// A group of an operation-counts part ("3 ranks have launched up to operation 7"), a rank
// standing for its own group, or a member of the last group; false for any other line.
bool TextParser::count_line(std::string_view line) {
  std::string a, b, c, d, e;
  if (RE2::FullMatch(line, P.group_launched, &a, &b)) {
    add_group(to_int(a), to_ll(b));
    return true;
  }
  if (RE2::FullMatch(line, P.group_none, &a)) {
    add_group(to_int(a), 0);
    return true;
  }
  if (RE2::FullMatch(line, P.rank_launched, &a, &b, &c, &d, &e)) {
    add_group(1, to_ll(b)).members.push_back({to_int(a), {e, d.empty() ? -1 : to_ll(d), c}});
    return true;
  }
  if (RE2::FullMatch(line, P.rank_none, &a, &c, &d, &e)) {
    add_group(1, 0).members.push_back({to_int(a), {e, d.empty() ? -1 : to_ll(d), c}});
    return true;
  }
  if (RE2::FullMatch(line, P.rank_member, &a, &c, &d, &e) && comm->counts.back().ranks > 0) {
    comm->counts.back().members.push_back({to_int(a), {e, d.empty() ? -1 : to_ll(d), c}});
    return true;
  }
  return false;
}

// "[time] PEER_DEAD: ...": a line of the RAS monitor's event stream.
void TextParser::monitor_event(std::size_t i, std::string_view line) {
  std::string a, b, c;
  if (!RE2::FullMatch(line, P.monitor, &a, &b, &c)) return;
  monitor = true;
  RasEvent ev{a, b, {}, i};
  std::string pid, host, gpu;
  if (RE2::PartialMatch(c, P.process, &pid, &host, &gpu))
    ev.peer = {host, to_ll(pid), std::string(trim(gpu))};
  r.events.push_back(std::move(ev));
}

RasReport TextParser::finish() {
  // Drop sentinels of count sections that listed no group.
  for (auto& x : r.communicators)
    x.counts.erase(std::remove_if(x.counts.begin(), x.counts.end(),
                                  [](const RasCountGroup& g) { return g.ranks < 0; }),
                   x.counts.end());
  if (monitor && r.communicators.empty()) r.format = RasFormat::kMonitorText;
  return std::move(r);
}

RasReport parse_text(const std::vector<std::string_view>& lines) {
  TextParser p;
  for (std::size_t i = 0; i < lines.size(); ++i) p.feed(i, trim(lines[i]));
  return p.finish();
}

// A file that appends the output of repeated queries holds several reports, each starting
// with its summary table. The communicators are the last report's; each is compared with the
// same communicator (by hash) of the report before: counts that did not move mean a hang,
// counts that moved a mismatch RAS sampled in passing (NCCL's RAS documentation).
RasReport parse_text_reports(const std::vector<std::string_view>& lines) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (trim(lines[i]).rfind("Group ", 0) == 0) starts.push_back(i);
  if (starts.size() < 2) return parse_text(lines);
  auto slice = [&](std::size_t k) {
    std::size_t from = k == 0 ? 0 : starts[k];
    std::size_t to = k + 1 < starts.size() ? starts[k + 1] : lines.size();
    return std::vector<std::string_view>(lines.begin() + static_cast<long>(from),
                                         lines.begin() + static_cast<long>(to));
  };
  RasReport prev = parse_text(slice(starts.size() - 2));
  RasReport last = parse_text(slice(starts.size() - 1));
  std::size_t offset = starts.back();
  for (auto& c : last.communicators) {
    c.line += offset;
    c.missing_line += offset;
    for (const auto& p : prev.communicators) {
      if (p.hash != c.hash) continue;
      bool same = p.counts.size() == c.counts.size();
      for (std::size_t g = 0; same && g < c.counts.size(); ++g)
        same = p.counts[g].op == c.counts[g].op && p.counts[g].ranks == c.counts[g].ranks &&
               p.counts[g].launched == c.counts[g].launched;
      c.trend = same ? RasCommunicator::Trend::kFrozen : RasCommunicator::Trend::kAdvancing;
    }
  }
  for (auto& e : last.events) e.line += offset;
  for (auto& p : last.dead) p.line += offset;
  for (auto& p : last.unreachable) p.line += offset;
  // Dead processes and monitor events stay true once seen.
  const std::size_t prev_offset = starts.size() == 2 ? 0 : starts[starts.size() - 2];
  for (auto& p : prev.dead) {
    p.line += prev_offset;
    bool known = false;
    for (const auto& q : last.dead) known = known || (q.pid == p.pid && q.host == p.host);
    if (!known) last.dead.push_back(std::move(p));
  }
  if (last.nccl_version.empty()) last.nccl_version = prev.nccl_version;
  if (last.nccl_version.empty()) last.nccl_version = parse_text(slice(0)).nccl_version;
  last.reports = starts.size();
  return last;
}

// ---- JSON report and JSON monitor events ----

// The 1-based line of byte `offset`.
std::size_t line_of(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<std::size_t>(
                 std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

std::string json_str(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  return {};
}

// The integer value of a JSON number; none for anything else and for a float outside long
// long's range (or NaN), which has no integer value: converting it is undefined.
std::optional<long long> number_int(const json& v) {
  if (!v.is_number()) return std::nullopt;
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!(d > -9.2e18 && d < 9.2e18)) return std::nullopt;
    return static_cast<long long>(d);
  }
  return v.get<long long>();
}

long long json_int(const json& o, const char* key, long long fallback) {
  auto it = o.find(key);
  if (it == o.end()) return fallback;
  return number_int(*it).value_or(fallback);
}

RasRank json_rank(const json& j) {
  RasRank r;
  r.rank = static_cast<int>(std::clamp<long long>(json_int(j, "rank", -1), -1, kMaxRanks));
  r.process.host = json_str(j, "host");
  r.process.pid = json_int(j, "pid", -1);
  long long dev = json_int(j, "nvml_dev", json_int(j, "cuda_dev", -1));
  if (dev >= 0) r.process.gpu = std::to_string(dev);
  return r;
}

std::variant<RasReport, RasParseError> parse_json_report(const json& j) {
  RasReport r;
  r.format = RasFormat::kJson;
  r.nccl_version = json_str(j, "nccl_version");
  auto comms = j.find("communicators");
  if (comms == j.end() || !comms->is_array())
    return RasParseError{1, "RAS JSON without a 'communicators' list"};
  for (const auto& cj : *comms) {
    if (!cj.is_object()) return RasParseError{1, "a communicator that is not a JSON object"};
    RasCommunicator c;
    c.hash = json_str(cj, "hash");
    long long size = json_int(cj, "size", 0);
    c.size = size > 0 && size <= kMaxRanks ? static_cast<int>(size) : 0;
    // Group ranks by count per operation kind, as the text report does, listing every member.
    std::map<std::string, std::map<long long, RasCountGroup>> groups;
    if (auto ranks = cj.find("ranks"); ranks != cj.end() && ranks->is_array()) {
      for (const auto& rj : *ranks) {
        if (!rj.is_object()) continue;
        RasRank rank = json_rank(rj);
        if (auto st = rj.find("status"); st != rj.end() && st->is_object()) {
          long long init = json_int(*st, "init_state", 0), async = json_int(*st, "async_error", 0);
          // init_state 0 is ncclSuccess, 7 ncclInProgress; anything else is an error.
          if ((init != 0 && init != 7) || async != 0) c.errored.push_back(rank);
        }
        if (auto cc = rj.find("collective_counts"); cc != rj.end() && cc->is_object()) {
          for (auto it = cc->begin(); it != cc->end(); ++it) {
            std::optional<long long> count = number_int(*it);
            if (!count) continue;
            long long n = *count;
            auto& g = groups[it.key()][n];
            g.op = it.key();
            g.launched = n;
            ++g.ranks;
            g.members.push_back(rank);
          }
        }
      }
    }
    for (auto& [op, by_count] : groups)
      for (auto& [n, g] : by_count) c.counts.push_back(std::move(g));
    if (auto miss = cj.find("missing_ranks"); miss != cj.end() && miss->is_array())
      for (const auto& mj : *miss)
        if (mj.is_object()) c.missing.push_back(json_rank(mj));
    bool mismatch = false;
    for (const auto& [op, by_count] : groups) mismatch = mismatch || by_count.size() > 1;
    if (mismatch) c.problems.push_back("MISMATCH");
    if (!c.missing.empty()) c.problems.push_back("INCOMPLETE");
    if (!c.errored.empty()) c.problems.push_back("ERROR");
    r.communicators.push_back(std::move(c));
  }
  return r;
}

void add_json_event(const json& j, std::size_t line, RasReport& r) {
  RasEvent ev;
  ev.time = json_str(j, "timestamp");
  ev.event = json_str(j, "event");
  ev.line = line;
  if (auto p = j.find("peer"); p != j.end() && p->is_object()) {
    ev.peer.host = json_str(*p, "host");
    ev.peer.pid = json_int(*p, "pid", -1);
    auto devs = p->find("nvml_devs");
    if (devs == p->end()) devs = p->find("cuda_devs");
    if (devs != p->end() && devs->is_array())
      for (const auto& d : *devs)
        if (d.is_number_integer()) {
          if (!ev.peer.gpu.empty()) ev.peer.gpu += ',';
          ev.peer.gpu += std::to_string(d.get<long long>());
        }
  }
  r.events.push_back(std::move(ev));
}

// Monitor mode writes one JSON object after another. Objects are cut at depth zero (strings
// skipped), so a broken one is reported with its line.
std::variant<RasReport, RasParseError> parse_json_stream(std::string_view text) {
  RasReport r;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
      ++i;
    if (i >= text.size()) break;
    if (text[i] != '{') return RasParseError{line_of(text, i), "expected a JSON object"};
    std::size_t start = i;
    int depth = 0;
    bool in_string = false;
    for (; i < text.size(); ++i) {
      char ch = text[i];
      if (in_string) {
        if (ch == '\\')
          ++i;
        else if (ch == '"')
          in_string = false;
        continue;
      }
      if (ch == '"')
        in_string = true;
      else if (ch == '{' || ch == '[')
        ++depth;
      else if ((ch == '}' || ch == ']') && --depth == 0)
        break;
    }
    if (i >= text.size()) return RasParseError{line_of(text, start), "truncated JSON object"};
    ++i;
    json j = json::parse(text.substr(start, i - start), nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return RasParseError{line_of(text, start), "not valid JSON"};
    if (j.contains("communicators")) {
      auto one = parse_json_report(j);
      if (auto* err = std::get_if<RasParseError>(&one)) {
        err->line = line_of(text, start);
        return *err;
      }
      auto& rep = std::get<RasReport>(one);
      for (auto& c : rep.communicators) c.line = c.missing_line = line_of(text, start) - 1;
      if (r.nccl_version.empty()) r.nccl_version = rep.nccl_version;
      r.format = RasFormat::kJson;
      for (auto& c : rep.communicators) r.communicators.push_back(std::move(c));
    } else if (j.contains("event")) {
      if (r.communicators.empty()) r.format = RasFormat::kMonitorJson;
      add_json_event(j, line_of(text, start) - 1, r);
    } else {
      return RasParseError{line_of(text, start),
                           "a JSON object that is neither a RAS report nor a RAS event"};
    }
  }
  return r;
}

}  // namespace

const char* ras_format_name(RasFormat f) {
  switch (f) {
    case RasFormat::kText:
      return "text";
    case RasFormat::kJson:
      return "json";
    case RasFormat::kMonitorText:
      return "monitor-text";
    case RasFormat::kMonitorJson:
      return "monitor-json";
  }
  return "text";
}

bool looks_like_ras(std::string_view text) {
  std::string_view head = text.substr(0, 4096);
  std::size_t p = head.find_first_not_of(" \t\r\n");
  if (p == std::string_view::npos) return false;
  if (head[p] == '{')
    return head.find("\"communicators\"") != std::string_view::npos ||
           (head.find("\"event\"") != std::string_view::npos &&
            head.find("\"group\"") != std::string_view::npos);
  return head.find("Job summary\n") != std::string_view::npos ||
         head.find("Communicators...") != std::string_view::npos ||
         head.find("RAS Monitor Mode") != std::string_view::npos ||
         head.rfind("Errors\n======", 0) == 0 || head.rfind("Warnings\n========", 0) == 0 ||
         head.find("\nGroup     Comms") != std::string_view::npos ||
         head.rfind("Group     Comms", 0) == 0;
}

std::variant<RasReport, RasParseError> parse_ras(std::string_view text) {
  std::size_t p = text.find_first_not_of(" \t\r\n");
  if (p == std::string_view::npos) return RasParseError{1, "empty input, not RAS output"};
  std::variant<RasReport, RasParseError> out;
  if (text[p] == '{') {
    out = parse_json_stream(text);
  } else {
    if (text.find('\0') != std::string_view::npos)
      return RasParseError{line_of(text, text.find('\0')), "binary data, not RAS output"};
    RasReport r = parse_text_reports(split_lines(text));
    if (r.communicators.empty() && r.events.empty() && r.dead.empty() && r.unreachable.empty() &&
        !looks_like_ras(text))
      return RasParseError{1, "not RAS client output (no job summary, communicator or event)"};
    out = std::move(r);
  }
  if (auto* r = std::get_if<RasReport>(&out)) conclude(*r);
  return out;
}

}  // namespace ff::evidence
