#include "analysis/line_source.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <charconv>
#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/latin1_options.hpp"
#include "analysis/lazy_regex.hpp"

namespace ff::analysis {

namespace {

// Prefix patterns are compiled once and only ever run on lines that matched a rule, so
// clarity wins over hand-written scanning here. Latin-1 (latin1_options), so that invalid
// UTF-8 in a log still matches byte-wise instead of failing the whole prefix.

// Every prefix pattern, anchored at the start of what is left of the line.
enum Kind : unsigned {
  kRay,
  kTorchrun,
  kMpi,
  kSlurm,
  kGlog,
  kC10d,
  kNcclHeader,
  kNcclDevOnly,
  kNcclLevel,
  kNcclOldLevel,
  kUcx,
  kHost,
  kSyslog,
  kIso,
  kUptime,
  kRelativeUptime,
  kOmpiProcess,
  kCompose,
  kProgressBar,
  kTorchX,
  kKinds
};

// A tqdm progress bar the next line was written after without a newline (tqdm redraws its
// bar with "\r" and ends it only when it closes): "{desc}: {percentage}%|{bar}| {n}/{total}
// [{elapsed}<{remaining}, {rate}{postfix}]" (tqdm/std.py format_meter). A prefix read for the
// line's source (kProgressBar) and a carrier prefix (carrier_prefix_length) alike.
constexpr const char kProgressBarPattern[] =
    R"((?:[^|\r\n]{0,120}: ?)? *\d{1,3}%\|[^|\r\n]{0,120}\| *[\d.]+[kMGTP]?/[\d.?]+[kMGTP]? )"
    R"(\[[^\]\r\n]{0,120}\])";

// TorchX's "{role}/{replica} " (torchx log, and NeMo-Run, which launches through it): a
// prefix only where another prefix follows it, which peel_launcher checks for the line's
// source and the carrier prefix writes out (torchrun's tag).
constexpr const char kTorchXPattern[] = R"([\w.-]*[A-Za-z][\w.-]*/\d{1,5} )";

constexpr const char* kPatterns[kKinds] = {
    R"(^\(([\w.]+) pid=(\d+)(?:, ip=([\d.]+))?\) ?)",
    R"(^\[(?:rank|default)(\d+)\]: ?)",
    // mpirun --tag-output "[1,3]<stderr>:"; horovodrun's "[3]<stderr>:", after time.asctime()
    // with --prefix-output-with-timestamp ("Tue Jun 15 12:25:59 2021[3]<stderr>:").
    R"(^(?:[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})?\[(?:\d+,)?(\d+)\]<(?:stdout|stderr|stddiag)>: ?)",
    R"(^ *(\d{1,6}): )",
    // glog and c10 C++ LOG lines: "E1203 10:11:12.123456 1234 file.cc:12]" or, without the
    // thread id, "[E1003 18:37:01.832146912 ProcessGroupNCCL.cpp:607]". The month-day
    // number is not zero-padded in c10 ("E219" is 19 February).
    R"(^\[?([IWEF])(\d{3,4}) (\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?: +(\d+))? ([\w./-]+:\d+)\] ?)",
    R"(^\[([IWEF]) ([\w./-]+:\d+)\] ?)",
    // The host may be empty: pastes with the host name removed keep ":pid:tid [dev]".
    R"(^([^\s:\[\]]*):(\d+):(\d+) \[(\d+)\] )",
    R"(^\[(\d+)\] )",
    // 2.32 may put the function between the source location and the level: "(func) ".
    R"(^\s*(?:([\w./+-]+:\d+) )?(?:\([\w:~<>]+\) )?NCCL (INFO|WARN|TRACE|ERROR|ABORT|DIAG|ATTN)\b ?)",
    R"(^([\w./+-]+:\d+) (WARN|INFO) )",
    // UCX's "[host:pid:thread:tid] ": the thread is a number, or a letter for its own threads
    // ("a", the async thread; ucs/debug/log.c).
    R"(^\[([^\s:\[\]]+):(\d+) *:(\w+):(\d+)\] +)",
    R"(^([A-Za-z0-9][\w.-]{0,127}): ?)",
    R"(^([A-Z][a-z]{2}) +(\d{1,2}) (\d\d):(\d\d):(\d\d) (\S+) [\w./-]+(?:\[\d+\])?: )",
    R"(^\[?(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(?:Z|[+-]\d\d:?\d\d)?\]? )",
    R"(^\[ *(\d+)\.(\d+)\] )",
    R"(^\[ *\+\d+\.\d+\] )",
    // Open MPI's and PRRTE's own messages, its signal handler's among them: "[node1:4242] ".
    R"(^\[([^\s:\[\],]+):(\d+)\] )",
    // docker compose's service prefix: "trainer-1  | " (v2), "trainer_1  | " (v1).
    R"(^[\w.-]+[-_]\d+ +\| )",
    kProgressBarPattern,  // anchored where used: RE2::Consume and the ANCHOR_START set
    kTorchXPattern,       // likewise
};

Severity glog_severity(std::string_view letter) {
  switch (letter.empty() ? ' ' : letter.front()) {
    case 'I': return Severity::kInfo;
    case 'W': return Severity::kWarning;
    case 'E': return Severity::kError;
    case 'F': return Severity::kFatal;
    default: return Severity::kUnknown;
  }
}

Severity nccl_severity(NcclLevel level) {
  switch (level) {
    case NcclLevel::kInfo:
    case NcclLevel::kTrace:
    case NcclLevel::kDiag: return Severity::kInfo;
    case NcclLevel::kAttn:
    case NcclLevel::kWarn: return Severity::kWarning;
    case NcclLevel::kError: return Severity::kError;
    case NcclLevel::kAbort: return Severity::kFatal;
    case NcclLevel::kNone: break;
  }
  return Severity::kUnknown;
}

struct Prefixes {
  // Compiled on first use: the set below says which can match a line at all, and a log
  // needs few of them (start-up and the first events paid about a millisecond for
  // compiling all of them).
  std::unique_ptr<LazyRegex> by_kind[kKinds];
  const RE2& re(Kind k) const { return by_kind[k]->get(); }
  RE2 ipv4{R"(^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$)", latin1_options()};
  RE2 nccl_test_msg{R"(^(?:Test (?:NCCL |CUDA )?failure|\.\. ))", latin1_options()};
  // NCCL's level behind a prefix no pattern above knows, closed by a bracket (a site's
  // own collector: "[03/16][2025-02-25 15:46:48,389] [misc/socket.cc:602] [host:pid=7] NCCL
  // WARN ..."): the level is still NCCL's.
  RE2 nccl_level_inside{R"(\] NCCL (INFO|WARN|TRACE|ERROR|ABORT|DIAG|ATTN) )", latin1_options()};
  // Which prefixes can start the rest of a line, in one DFA pass: the peeling loop below
  // tries each pattern with captures per round, and most fail; only those the
  // set names are tried.
  RE2::Set starts{latin1_options(), RE2::ANCHOR_START};
  bool starts_ok = false;

  Prefixes() {
    for (unsigned k = 0; k < kKinds; ++k)
      by_kind[k] = std::make_unique<LazyRegex>(kPatterns[k], latin1_options(), nullptr);
    bool ok = true;
    for (unsigned k = 0; k < kKinds; ++k) ok = ok && starts.Add(kPatterns[k], nullptr) == static_cast<int>(k);
    starts_ok = ok && starts.Compile();
  }

  // Bit k set: prefix k may match at the start of `rest` (every bit when unsure).
  std::uint32_t candidates(std::string_view rest) const {
    constexpr std::uint32_t kAll = (1u << kKinds) - 1;
    if (!starts_ok) return kAll;
    std::vector<int> hit;
    RE2::Set::ErrorInfo info;
    if (!starts.Match(re2::StringPiece(rest.data(), rest.size()), &hit, &info))
      return info.kind == RE2::Set::kNoError ? 0 : kAll;
    std::uint32_t mask = 0;
    for (int k : hit) mask |= 1u << static_cast<unsigned>(k);
    return mask;
  }
};

const Prefixes& prefixes() {
  static const Prefixes p;
  return p;
}

// One carrier prefix (carrier_prefix_length), anchored; the alternatives are the launchers'
// and collectors' formats.
const RE2& carrier_prefix() {
  static const RE2 re(
      std::string(
          R"(^(?:)"
          R"( {0,3}>+ ?)"                                                      // Markdown quote
          R"(| *\d{1,6}: )"                                                    // srun --label
          R"(|(?:[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})?)"  // horovodrun time
          R"(\[\d+(?:,\d+)?\]<(?:stdout|stderr|stddiag)>: ?)"  // mpirun --tag-output, horovodrun
          R"(|\[(?:rank|default)\d+\]: ?)"                     // torchrun --tee / log prefix
          R"(|\((?:[\w.]+ )?pid=\d+(?:, ip=[\d.]+)?\) ?)"      // Ray
          R"(|\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]? )"  // ISO
          R"(|)") +
          kProgressBarPattern +      // a tqdm bar
          R"(|[\w.-]+[-_]\d+ +\| )"  // docker compose
          R"(|)" +
          kTorchXPattern +
          R"(\[(?:rank|default)\d+\]: ?)"  // TorchX, then torchrun's tag
          R"(|[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d \S+ [\w./@-]+(?:\[\d+\])?: ))",  // journald
      latin1_options());
  return re;
}

template <typename T>
bool to_num(std::string_view s, T& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

double frac(std::string_view digits) {
  double f = 0, scale = 0.1;
  for (char c : digits) {
    if (c < '0' || c > '9') break;
    f += (c - '0') * scale;
    scale /= 10;
  }
  return f;
}

// Days since 1970-01-01 for a civil date (Howard Hinnant's algorithm).
long days_from_civil(long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long>(doe) - 719468;
}

int month_index(std::string_view mon) {
  static constexpr std::string_view names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int i = 0; i < 12; ++i)
    if (names[i] == mon) return i + 1;
  return 0;
}

double no_year_seconds(int month, int day, int h, int m, int s) {
  return ((month * 31.0 + day) * 24 + h) * 3600.0 + m * 60 + s;
}

}  // namespace

std::size_t parse_timestamp(std::string_view s, TimeKind& kind, double& seconds) {
  const auto& p = prefixes();
  re2::StringPiece in(s.data(), s.size());
  re2::StringPiece a[7];
  if (RE2::Consume(&in, p.re(kIso), &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6])) {
    long yy = 0;
    unsigned mm = 0, dd = 0;
    int hh = 0, mn = 0, ss = 0;
    to_num(std::string_view(a[0].data(), a[0].size()), yy);
    to_num(std::string_view(a[1].data(), a[1].size()), mm);
    to_num(std::string_view(a[2].data(), a[2].size()), dd);
    to_num(std::string_view(a[3].data(), a[3].size()), hh);
    to_num(std::string_view(a[4].data(), a[4].size()), mn);
    to_num(std::string_view(a[5].data(), a[5].size()), ss);
    kind = TimeKind::kWallClock;
    seconds = static_cast<double>(days_from_civil(yy, mm, dd)) * 86400.0 + hh * 3600 + mn * 60 +
              ss + frac(std::string_view(a[6].data(), a[6].size()));
    return static_cast<std::size_t>(in.data() - s.data());
  }
  in = re2::StringPiece(s.data(), s.size());
  if (RE2::Consume(&in, p.re(kUptime), &a[0], &a[1])) {
    double whole = 0;
    long w = 0;
    to_num(std::string_view(a[0].data(), a[0].size()), w);
    whole = static_cast<double>(w);
    kind = TimeKind::kKernelUptime;
    seconds = whole + frac(std::string_view(a[1].data(), a[1].size()));
    return static_cast<std::size_t>(in.data() - s.data());
  }
  in = re2::StringPiece(s.data(), s.size());
  if (RE2::Consume(&in, p.re(kRelativeUptime))) {
    // dmesg -H / -d deltas: a time, but not one that orders lines across hosts.
    kind = TimeKind::kNone;
    return static_cast<std::size_t>(in.data() - s.data());
  }
  return 0;
}

std::size_t carrier_prefix_length(std::string_view line) {
  // Only lines that start like one of them pay for the regex: most lines of a log start
  // with a letter that begins none of them.
  if (line.empty()) return 0;
  unsigned char c = static_cast<unsigned char>(line[0]);
  if (!(c == ' ' || c == '>' || c == '[' || c == '(' || (c >= '0' && c <= '9') ||
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'))
    return 0;
  const RE2& re = carrier_prefix();
  std::size_t pos = 0;
  for (int round = 0; round < 6 && pos < line.size(); ++round) {
    re2::StringPiece in(line.data() + pos, line.size() - pos);
    if (!RE2::Consume(&in, re)) break;
    std::size_t n = static_cast<std::size_t>(in.data() - (line.data() + pos));
    if (n == 0) break;
    pos += n;
  }
  return pos;
}

namespace {

// What one prefix took off the front of what is left of a line. The peel_* helpers below
// each try, in order, the prefixes of one family; a helper that matches none leaves the
// line to the next family.
struct Peeled {
  bool matched = false;
  std::size_t length = 0;  // of the prefix, from the start of what was left
  bool last = false;       // the message proper follows: stop peeling
};

inline std::string_view sv(const re2::StringPiece& x) {
  return std::string_view(x.data(), x.size());
}

inline bool can(std::uint32_t may, Kind k) {
  return (may >> k) & 1u;
}

// A prefix that `in` (started at `rest`) consumed.
inline Peeled took(const re2::StringPiece& in, std::string_view rest, bool last = false) {
  return {true, static_cast<std::size_t>(in.data() - rest.data()), last};
}

// The launchers' and containers' prefixes: Ray's, torchrun's and mpirun's rank tags, docker
// compose's service, Open MPI's own process tag, UCX's.
inline Peeled peel_launcher(const Prefixes& p, std::string_view rest, std::uint32_t may,
                            LineSource& src) {
  re2::StringPiece in(rest.data(), rest.size());
  re2::StringPiece a[4];
  if (can(may, kRay) && RE2::Consume(&in, p.re(kRay), &a[0], &a[1], &a[2])) {
    std::int64_t pid;
    if (to_num(sv(a[1]), pid)) src.pid = pid;
    if (!a[2].empty() && src.host.empty()) src.host = std::string(sv(a[2]));
    return took(in, rest);
  }
  if ((can(may, kTorchrun) && RE2::Consume(&in, p.re(kTorchrun), &a[0])) ||
      (can(may, kMpi) && RE2::Consume(&in, p.re(kMpi), &a[0]))) {
    int r;
    if (to_num(sv(a[0]), r)) src.rank = r;
    return took(in, rest);
  }
  if (can(may, kCompose) && RE2::Consume(&in, p.re(kCompose))) return took(in, rest);
  if (can(may, kTorchX) && RE2::Consume(&in, p.re(kTorchX))) {
    // A word, a slash and a number start many lines ("layers/0 ..."): it is TorchX's
    // prefix only when a launcher's or a logger's own prefix follows it.
    constexpr std::uint32_t kLoose = (1u << kHost) | (1u << kTorchX) | (1u << kProgressBar) |
                                     (1u << kSlurm) | (1u << kNcclDevOnly);
    const std::string_view after = rest.substr(static_cast<std::size_t>(in.data() - rest.data()));
    if (p.candidates(after) & ~kLoose) return took(in, rest);
    in = re2::StringPiece(rest.data(), rest.size());
  }
  if (can(may, kProgressBar) && RE2::Consume(&in, p.re(kProgressBar))) return took(in, rest);
  if (can(may, kOmpiProcess) && RE2::Consume(&in, p.re(kOmpiProcess), &a[0], &a[1])) {
    if (src.host.empty()) src.host = std::string(sv(a[0]));
    std::int64_t v;
    if (!src.pid && to_num(sv(a[1]), v)) src.pid = v;
    return took(in, rest);
  }
  if (can(may, kUcx) && RE2::Consume(&in, p.re(kUcx), &a[0], &a[1], &a[2], &a[3])) {
    src.host = std::string(sv(a[0]));
    std::int64_t v;
    if (to_num(sv(a[1]), v)) src.pid = v;
    if (to_num(sv(a[3]), v)) src.tid = v;
    return took(in, rest);
  }
  return {};
}

// An ISO or kernel-uptime timestamp; the first one with a time that orders lines is the
// line's time.
inline Peeled peel_timestamp(std::string_view rest, std::uint32_t may, LineSource& src) {
  if (!(can(may, kIso) || can(may, kUptime) || can(may, kRelativeUptime))) return {};
  TimeKind kind = TimeKind::kNone;
  double secs = 0;
  std::size_t n = parse_timestamp(rest, kind, secs);
  if (n == 0) return {};
  if (kind != TimeKind::kNone && src.time_kind == TimeKind::kNone) {
    src.time_kind = kind;
    src.time = secs;
  }
  return {true, n, false};
}

// A logging library's header: syslog's (time and host), glog's and c10's (level, time,
// thread).
inline Peeled peel_log_header(const Prefixes& p, std::string_view rest, std::uint32_t may,
                              LineSource& src) {
  re2::StringPiece in(rest.data(), rest.size());
  re2::StringPiece a[8];
  if (can(may, kSyslog) &&
      RE2::Consume(&in, p.re(kSyslog), &a[0], &a[1], &a[2], &a[3], &a[4], &a[5])) {
    int mon = month_index(sv(a[0]));
    int d = 0, h = 0, m = 0, s = 0;
    to_num(sv(a[1]), d);
    to_num(sv(a[2]), h);
    to_num(sv(a[3]), m);
    to_num(sv(a[4]), s);
    if (src.time_kind == TimeKind::kNone && mon) {
      src.time_kind = TimeKind::kWallClockNoYear;
      src.time = no_year_seconds(mon, d, h, m, s);
    }
    if (src.host.empty()) src.host = std::string(sv(a[5]));
    return took(in, rest);
  }
  if (can(may, kGlog) &&
      RE2::Consume(&in, p.re(kGlog), &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7])) {
    int md = 0, h = 0, m = 0, s = 0;
    to_num(sv(a[1]), md);
    to_num(sv(a[2]), h);
    to_num(sv(a[3]), m);
    to_num(sv(a[4]), s);
    if (src.time_kind == TimeKind::kNone) {
      src.time_kind = TimeKind::kWallClockNoYear;
      src.time = no_year_seconds(md / 100, md % 100, h, m, s) + frac(sv(a[5]));
    }
    std::int64_t tid;
    if (!src.tid && !a[6].empty() && to_num(sv(a[6]), tid)) src.tid = tid;
    src.severity = glog_severity(sv(a[0]));
    return took(in, rest);
  }
  if (can(may, kC10d) && RE2::Consume(&in, p.re(kC10d), &a[0], &a[1])) {
    src.severity = glog_severity(sv(a[0]));
    return took(in, rest);
  }
  return {};
}

inline NcclLevel nccl_level(std::string_view lvl) {
  return lvl == "INFO"    ? NcclLevel::kInfo
         : lvl == "WARN"  ? NcclLevel::kWarn
         : lvl == "TRACE" ? NcclLevel::kTrace
         : lvl == "ERROR" ? NcclLevel::kError
         : lvl == "DIAG"  ? NcclLevel::kDiag
         : lvl == "ATTN"  ? NcclLevel::kAttn
                          : NcclLevel::kAbort;
}

// NCCL's own prefixes: the "host:pid:tid [dev]" header, then its level, after which the
// message proper follows.
inline Peeled peel_nccl(const Prefixes& p, std::string_view rest, std::uint32_t may,
                        LineSource& src) {
  re2::StringPiece in(rest.data(), rest.size());
  re2::StringPiece a[4];
  if (can(may, kNcclHeader) && RE2::Consume(&in, p.re(kNcclHeader), &a[0], &a[1], &a[2], &a[3])) {
    src.host = std::string(sv(a[0]));
    std::int64_t v;
    int dev;
    if (to_num(sv(a[1]), v)) src.pid = v;
    if (to_num(sv(a[2]), v)) src.tid = v;
    if (to_num(sv(a[3]), dev)) src.device = dev;
    return took(in, rest);
  }
  if (can(may, kNcclLevel) && RE2::Consume(&in, p.re(kNcclLevel), &a[0], &a[1])) {
    if (!a[0].empty()) src.nccl_file = std::string(sv(a[0]));
    src.level = nccl_level(sv(a[1]));
    src.severity = nccl_severity(src.level);
    return took(in, rest, true);  // the message proper follows NCCL's level
  }
  if (can(may, kNcclOldLevel) && RE2::Consume(&in, p.re(kNcclOldLevel), &a[0], &a[1])) {
    src.nccl_file = std::string(sv(a[0]));
    src.level = sv(a[1]) == "WARN" ? NcclLevel::kWarn : NcclLevel::kInfo;
    src.severity = nccl_severity(src.level);
    return took(in, rest, true);
  }
  if (!src.device && can(may, kNcclDevOnly) && RE2::Consume(&in, p.re(kNcclDevOnly), &a[0])) {
    // "[0] misc/ibvwrap.cc:284 NCCL WARN ..." with the host part cut off; only accept it
    // when an NCCL level follows, otherwise "[0]" is ordinary text.
    re2::StringPiece after = in;
    if (RE2::Consume(&after, p.re(kNcclLevel))) {
      int dev;
      if (to_num(sv(a[0]), dev)) src.device = dev;
      return took(in, rest);
    }
  }
  return {};
}

// srun's rank label, and a bare host name before what a host prefix introduces.
inline Peeled peel_rank_or_host(const Prefixes& p, std::string_view rest, std::uint32_t may,
                                LineSource& src) {
  re2::StringPiece in(rest.data(), rest.size());
  re2::StringPiece a[1];
  if (can(may, kSlurm) && RE2::Consume(&in, p.re(kSlurm), &a[0])) {
    int r;
    if (!src.rank && to_num(sv(a[0]), r)) src.rank = r;
    return took(in, rest);
  }
  if (can(may, kHost) && RE2::Consume(&in, p.re(kHost), &a[0])) {
    // "node01: <NCCL line>" (pdsh, DeepSpeed) or "host: Test NCCL failure" (nccl-tests).
    // A word followed by a colon is also how Python prints "ValueError: ...", so accept it
    // as a host only when something that a host prefix introduces follows. With nothing
    // after it, a host name has a digit (node01, gpu-17): "ChildFailedError:" and
    // "Failures:" end lines of their own.
    std::string_view host = sv(a[0]);
    std::string_view after(in.data(), in.size());
    re2::StringPiece probe(after.data(), after.size());
    const bool has_digit = host.find_first_of("0123456789") != std::string_view::npos;
    bool ok = (after.empty() && has_digit) || RE2::PartialMatch(host, p.ipv4) ||
              RE2::Consume(&probe, p.re(kNcclHeader)) || RE2::Consume(&probe, p.nccl_test_msg);
    if (ok) {
      if (src.host.empty()) src.host = std::string(host);
      return took(in, rest);
    }
  }
  return {};
}

}  // namespace

LineSource parse_line_source(std::string_view line) {
  const auto& p = prefixes();
  LineSource src;
  std::size_t pos = 0;
  // Prefixes nest in launcher order (Ray > torchrun > NCCL), but real logs vary; peel
  // whatever matches until nothing does. Bounded so adversarial input cannot loop long.
  for (int round = 0; round < 12 && pos < line.size(); ++round) {
    std::string_view rest = line.substr(pos);
    const std::uint32_t may = p.candidates(rest);
    Peeled got = peel_launcher(p, rest, may, src);
    if (!got.matched) got = peel_timestamp(rest, may, src);
    if (!got.matched) got = peel_log_header(p, rest, may, src);
    if (!got.matched) got = peel_nccl(p, rest, may, src);
    if (!got.matched) got = peel_rank_or_host(p, rest, may, src);
    if (!got.matched) break;
    pos += got.length;
    if (got.last) break;
  }
  src.body = pos;
  if (src.level == NcclLevel::kNone && src.severity == Severity::kUnknown) {
    // Within the first bytes only: a prefix is short, and a message may quote NCCL's words.
    constexpr std::size_t kPrefixBytes = 160;
    const std::string_view head = line.substr(pos, kPrefixBytes);
    re2::StringPiece level;
    if (head.find("] NCCL ") != std::string_view::npos &&
        RE2::PartialMatch(head, p.nccl_level_inside, &level)) {
      src.level = nccl_level(sv(level));
      src.severity = nccl_severity(src.level);
    }
  }
  return src;
}

}  // namespace ff::analysis
