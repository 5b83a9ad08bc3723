// `firstfault watch`: follows a running job's logs and names the first fault seconds after
// it is written, instead of after the watchdogs' timeouts and a human reading the logs.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "cli/commands.hpp"
#include "cli/fault_hook.hpp"
#include "cli/live_job.hpp"
#include "cli/log_follower.hpp"
#include "cli/machine_name.hpp"
#include "cli/rule_set.hpp"
#include "jsonio/document_text.hpp"
#include "report/mask.hpp"
#include "report/report.hpp"

namespace ff::cli {

namespace po = boost::program_options;

namespace {

const char* kUsage =
    "Usage: firstfault watch [options] FILE|DIR|- ...\n"
    "\n"
    "Follows a running job's logs and prints the diagnosis as soon as a root cause shows,\n"
    "then again each time it changes (a stronger cause appears). Files are read from their\n"
    "start and then as they grow; a truncated or rotated file is read again from its start,\n"
    "a deleted one is waited for; a directory's log files are followed, and new ones as they\n"
    "appear; '-' reads standard input until it ends (srun ... 2>&1 | firstfault watch -).\n"
    "Summaries other nodes' watches write (--summary-every) are inputs too: a head node's\n"
    "watch over them gives the whole job's verdict (docs/SCALE.md).\n"
    "\n"
    "With --on-fault, a command runs once, when a root cause of at least --min-confidence is\n"
    "found: the diagnosis as JSON on its standard input, FIRSTFAULT_CATEGORY, _RULE, _RANK,\n"
    "_HOST, _CONFIDENCE, _FILE, _LINE and _TITLE in its environment. A finding alone never\n"
    "runs it.\n"
    "\n"
    "Watching ends when standard input (the only input) ends, after --timeout or --idle, with\n"
    "--exit-on-fault once the fault is handled, or on SIGINT/SIGTERM.\n"
    "Exit status: 0 no root cause of at least --min-confidence was found; 3 one was found;\n"
    "2 bad usage.\n"
    "\n"
    "Options";

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) {
  g_stop = 1;
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// What identifies the cause a report names: printed again only when this changes.
std::string cause_key(const analysis::Analysis& a) {
  if (a.diagnoses.empty()) return {};
  const auto& d = a.diagnoses.front();
  const auto& e = a.events[d.initiating];
  return d.category + "\n" + std::to_string(d.rule) + "\n" + a.files[e.file].name + "\n" +
         std::to_string(e.line);
}

std::string confidence_text(double c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", c);
  return buf;
}

// The hook's environment: what a one-line shell command needs to act on.
std::vector<std::pair<std::string, std::string>> hook_env(const analysis::Catalog& catalog,
                                                          const analysis::Analysis& a) {
  const auto& d = a.diagnoses.front();
  const auto& e = a.events[d.initiating];
  const auto& r = catalog.rules()[d.rule];
  return {{"FIRSTFAULT_CATEGORY", d.category},
          {"FIRSTFAULT_RULE", r.id},
          {"FIRSTFAULT_RANK", e.source.rank ? std::to_string(*e.source.rank) : ""},
          {"FIRSTFAULT_HOST", e.source.host},
          {"FIRSTFAULT_CONFIDENCE", confidence_text(d.confidence)},
          {"FIRSTFAULT_FILE", a.files[e.file].name},
          {"FIRSTFAULT_LINE", std::to_string(e.line + 1)},
          {"FIRSTFAULT_TITLE", d.headline.empty() ? r.title : d.headline}};
}

bool write_all(const std::string& s) {
  return std::fwrite(s.data(), 1, s.size(), stdout) == s.size() && std::fflush(stdout) == 0;
}

// Written next to its final name and renamed over it, so a reader never sees half of one.
bool write_atomically(const std::string& path, const std::string& text, std::string& error) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      error = "cannot write " + tmp;
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    error = "cannot rename " + tmp + " to " + path + ": " + ec.message();
    std::filesystem::remove(tmp, ec);
    return false;
  }
  return true;
}

struct WatchOptions {
  std::string format = "text", color = "auto", on_fault, summary_out;
  double min_confidence = analysis::kLikelyConfidence;
  double hold = 0, summary_every = 0, timeout = 0, idle = 0;
  unsigned poll_ms = 100;
  bool exit_on_fault = false, mask = false;
};

// One watch: the loop, what it printed and what it did.
class Watch {
 public:
  Watch(const analysis::Catalog& catalog, LogFollower& follower, const WatchOptions& o)
      : catalog_(catalog), follower_(follower), o_(o), job_(catalog) {
    if (!o.on_fault.empty()) hook_.emplace(o.on_fault);
    color_ = o.color == "always" || (o.color == "auto" && ::isatty(STDOUT_FILENO));
  }

  int run() {
    start_ = last_growth_ = Clock::now();
    last_summary_ = start_;
    while (!g_stop) {
      bool busy = step();
      if (stopping()) break;
      if (!busy) wait();
    }
    // The inputs' last lines count even without a line end.
    for (std::size_t i = 0; i < job_.inputs(); ++i) job_.finish(i);
    reconsider();
    if (hold_until_) act();  // a hold cut short by the end still acts
    if (hook_ && hook_->running()) {
      if (auto how = hook_->ended(true)) notice("--on-fault command " + *how);
    }
    if (!o_.summary_out.empty()) write_summary();
    return found_ ? 3 : kExitOk;
  }

 private:
  void notice(const std::string& message) { std::cerr << "firstfault watch: " << message << "\n"; }

  // One poll: reads, scans, diagnoses when the evidence changed, acts. True when the
  // follower may have more to read at once.
  bool step() {
    std::vector<FollowNotice> notices;
    bool busy = false;
    follower_.poll(
        [&](const FollowChange& ch) {
          add_new_inputs();
          busy = busy || ch.bytes.size() >= LogFollower::kMaxReadPerPoll;
          if (!ch.bytes.empty()) last_growth_ = Clock::now();
          take(ch);
        },
        notices);
    add_new_inputs();
    for (const auto& n : notices) notice(n.path + ": " + n.message);
    // Context lines never change the cause (they are listed with it), and progress lines only
    // withdraw one: with no cause printed they change nothing; with one, they are weighed
    // at most a second late.
    if (job_.version() != seen_version_ ||
        (job_.context_version() != seen_context_ && !printed_key_.empty() &&
         seconds_since(last_diagnosis_) >= 1))
      reconsider();
    if (hold_until_ && Clock::now() >= *hold_until_) act();
    if (hook_ && hook_->running())
      if (auto how = hook_->ended()) notice("--on-fault command " + *how);
    if (o_.summary_every > 0 && seconds_since(last_summary_) >= o_.summary_every) {
      last_summary_ = Clock::now();
      if (job_.context_version() != summary_version_) write_summary();
    }
    return busy;
  }

  void add_new_inputs() {
    while (job_.inputs() < follower_.inputs()) {
      job_.add_input(follower_.name(job_.inputs()));
      kinds_.push_back(Kind::kUnknown);
    }
  }

  void take(const FollowChange& ch) {
    Kind& kind = kinds_[ch.input];
    using K = FollowChange::Kind;
    if (ch.kind == K::kEnded) {
      job_.finish(ch.input);
      return;
    }
    if (ch.kind == K::kWhole) {
      std::string error;
      if (!job_.replace_summary(ch.input, ch.bytes, error)) {
        // Half written by a writer that does not rename, or not a summary any more.
        if (said_[ch.input] != error)
          notice(follower_.name(ch.input) +
                 ": not readable as a firstfault summary (yet): " + error);
        said_[ch.input] = error;
      } else {
        said_.erase(ch.input);
      }
      return;
    }
    if (kind == Kind::kUnknown && !ch.bytes.empty()) {
      // A summary is recognised by its first bytes, as analyze recognises one; it is then
      // read whole whenever it changes.
      kind = report::looks_like_summary(ch.bytes) ? Kind::kSummary : Kind::kLog;
      if (kind == Kind::kSummary) {
        follower_.read_whole(ch.input);
        return;
      }
    }
    if (kind == Kind::kLog) job_.append(ch.input, ch.bytes, ch.kind == K::kRestarted);
  }

  // The evidence changed: diagnose again, print when the cause changed, arm the hook.
  void reconsider() {
    seen_version_ = job_.version();
    seen_context_ = job_.context_version();
    last_diagnosis_ = Clock::now();
    analysis::Analysis a = job_.diagnose();
    std::string key = cause_key(a);
    if (key != printed_key_) {
      print(a, printed_key_.empty() ? "found" : key.empty() ? "withdrawn" : "changed");
      printed_key_ = key;
    }
    const bool strong = !a.diagnoses.empty() && a.diagnoses.front().confidence >= o_.min_confidence;
    if (strong) found_ = true;
    if (strong && !acted_ && !hold_until_)
      hold_until_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(o_.hold));
    if (!strong) hold_until_.reset();  // the cause was withdrawn during the hold
    latest_ = std::move(a);
  }

  void print(const analysis::Analysis& a, const char* change) {
    ++printed_;
    const double t = seconds_since(start_);
    report::Masker masker;
    if (o_.mask) masker.add_hosts_from(a);
    std::string out;
    if (o_.format == "jsonl") {
      nlohmann::json j = report::to_json(catalog_, a);
      j["watch"] = {{"change", change}, {"sequence", printed_}, {"elapsed_s", t}};
      if (o_.mask) masker.mask(j);
      out = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    } else {
      char head[96];
      std::snprintf(head, sizeof head, "=== firstfault watch, %.1f s: root cause %s ===\n", t,
                    change);
      report::TextOptions to;
      to.color = color_;
      out = head;
      if (a.diagnoses.empty())
        out += "The earlier root cause no longer stands (later lines explain it).\n\n";
      else
        out += report::to_text(catalog_, a, to) + "\n";
      if (o_.mask) out = masker.mask(out);
    }
    if (!write_all(out)) g_stop = 1;  // nobody reads what we print any more
  }

  // The hold is over: the strongest cause now is the one acted on.
  void act() {
    hold_until_.reset();
    if (acted_ || latest_.diagnoses.empty() ||
        latest_.diagnoses.front().confidence < o_.min_confidence)
      return;
    acted_ = true;
    if (!hook_) return;
    nlohmann::json j = report::to_json(catalog_, latest_);
    std::string error;
    if (!hook_->start(jsonio::document_text(j), hook_env(catalog_, latest_), error))
      notice("--on-fault command could not run: " + error);
  }

  void write_summary() {
    summary_version_ = job_.context_version();
    std::string error;
    if (!write_atomically(o_.summary_out, job_.summary(machine_name()), error)) notice(error);
  }

  bool stopping() {
    if (follower_.all_ended()) return true;
    if (o_.timeout > 0 && seconds_since(start_) >= o_.timeout) return true;
    if (o_.idle > 0 && seconds_since(last_growth_) >= o_.idle) return true;
    if (o_.exit_on_fault && acted_ && !(hook_ && hook_->running())) return true;
    return false;
  }

  // Until the next poll, or sooner when standard input has more.
  void wait() {
    struct pollfd p {
      follower_.stdin_fd(), POLLIN, 0
    };
    ::poll(&p, p.fd >= 0 ? 1 : 0, static_cast<int>(o_.poll_ms));
  }

  enum class Kind { kUnknown, kLog, kSummary };

  const analysis::Catalog& catalog_;
  LogFollower& follower_;
  const WatchOptions& o_;
  LiveJob job_;
  std::vector<Kind> kinds_;
  std::map<std::size_t, std::string> said_;
  std::optional<FaultHook> hook_;
  bool color_ = false;
  Clock::time_point start_, last_growth_, last_summary_, last_diagnosis_;
  std::size_t seen_version_ = 0, seen_context_ = 0, summary_version_ = static_cast<std::size_t>(-1);
  std::string printed_key_;
  std::size_t printed_ = 0;
  analysis::Analysis latest_;
  std::optional<Clock::time_point> hold_until_;
  bool acted_ = false, found_ = false;
};

}  // namespace

int run_watch(const std::vector<std::string>& args) {
  WatchOptions o;
  std::vector<std::string> rule_dirs, inputs;
  po::options_description opts(kUsage);
  opts.add_options()("help,h", "show this help")(
      "format,f", po::value(&o.format)->value_name("FMT"),
      "text (default) or jsonl: one JSON document per line per change (docs/JSON.md)")(
      "on-fault", po::value(&o.on_fault)->value_name("CMD"),
      "run CMD (with /bin/sh) once when a root cause is found")(
      "min-confidence", po::value(&o.min_confidence)->value_name("X"),
      "the confidence (0 to 1) a cause needs for --on-fault and exit status 3 (default 0.5, "
      "what the report calls likely)")(
      "hold", po::value(&o.hold)->value_name("S"),
      "wait S seconds after the first cause for a stronger one before acting (default 0)")(
      "exit-on-fault", "stop watching once the fault is found and its command has run")(
      "summary-every", po::value(&o.summary_every)->value_name("S"),
      "write this node's summary to --summary-out every S seconds when it changed")(
      "summary-out", po::value(&o.summary_out)->value_name("FILE"),
      "where --summary-every writes (replaced atomically; also written at the end)")(
      "timeout", po::value(&o.timeout)->value_name("S"), "stop after S seconds")(
      "idle", po::value(&o.idle)->value_name("S"), "stop when no input grew for S seconds")(
      "poll-ms", po::value(&o.poll_ms)->value_name("MS"),
      "how often files are checked for growth (default 100)")(
      "rules,r", po::value(&rule_dirs)->value_name("DIR")->composing(),
      "also load rules from DIR (repeatable)")("no-builtin-rules",
                                               "use only the rules given with --rules")(
      "mask", "replace host, user and IP names with pseudonyms in what is printed")(
      "color", po::value(&o.color)->value_name("WHEN"), "auto (default), always or never");
  po::options_description hidden;
  hidden.add_options()("input", po::value(&inputs));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  auto usage = [](const std::string& m) {
    std::cerr << "firstfault watch: " << m << "\n(see firstfault watch --help)\n";
    return kExitUsage;
  };
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage(e.what());
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (o.format != "text" && o.format != "jsonl")
    return usage("unknown --format '" + o.format + "' (text or jsonl)");
  if (o.color != "auto" && o.color != "always" && o.color != "never")
    return usage("unknown --color '" + o.color + "' (auto, always or never)");
  if (!(o.min_confidence >= 0 && o.min_confidence <= 1))
    return usage("--min-confidence must be between 0 and 1");
  for (auto [name, v] : {std::pair{"hold", o.hold},
                         {"summary-every", o.summary_every},
                         {"timeout", o.timeout},
                         {"idle", o.idle}})
    if (!(v >= 0 && std::isfinite(v)))
      return usage(std::string("--") + name + " must be a number of seconds, 0 or more");
  if (o.poll_ms < 1 || o.poll_ms > 60000) return usage("--poll-ms must be from 1 to 60000");
  if ((o.summary_every > 0) != !o.summary_out.empty())
    return usage("--summary-every and --summary-out go together");
  o.exit_on_fault = vm.count("exit-on-fault") > 0;
  o.mask = vm.count("mask") > 0;
  if (inputs.empty()) return usage("no input; give log files, directories, or - for stdin");

  LogFollower follower;
  for (const auto& in : inputs)
    if (std::string error; !follower.add(in, error)) return usage(in + ": " + error);
  auto loaded = load_catalog(rule_dirs, !vm.count("no-builtin-rules"));
  for (const auto& p : loaded.problems)
    std::cerr << "firstfault: warning: " << p.to_string() << "\n";

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  Watch watch(loaded.catalog, follower, o);
  return watch.run();
}

}  // namespace ff::cli
