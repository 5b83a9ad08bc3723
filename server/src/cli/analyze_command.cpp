#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

#include "analysis/analyze.hpp"
#include "analysis/stacks.hpp"
#include "cli/commands.hpp"
#include "cli/evidence_inputs.hpp"
#include "cli/input_files.hpp"
#include "cli/keep_until_exit.hpp"
#include "cli/machine_name.hpp"
#include "cli/rule_set.hpp"
#include "cli/scan_inputs.hpp"
#include "fix/fix_cli.hpp"
#include "jsonio/document_text.hpp"
#include "report/mask.hpp"
#include "report/report.hpp"
#include "report/summary.hpp"

namespace ff::cli {

namespace po = boost::program_options;

namespace {

const char* kUsage =
    "Usage: firstfault analyze [options] FILE|DIR|- ...\n"
    "\n"
    "Finds the root cause of a failed distributed job in its logs: the initiating rank and\n"
    "line, the collateral failures, the fix and the command that verifies it. Several files\n"
    "are one job (per-node logs are correlated); a directory means the log files in it\n"
    "(*.log, *.out, *.err, *.txt), the PyTorch Flight Recorder dumps (found by content;\n"
    "compared across ranks, docs/EVIDENCE.md) and ncclras JSON output; '-' reads standard\n"
    "input. NCCL RAS client output (ncclras text, -f json, -m monitor events) given as an\n"
    "input is read for the ranks it shows behind, missing or dead (docs/RAS.md).\n"
    "\n"
    "A job too big for one machine: run 'firstfault analyze --summary LOGS > node.json' on\n"
    "each node, then 'firstfault analyze *.json': summaries are inputs like logs, recognised\n"
    "by content, and give the diagnosis one run over all the logs gives (docs/SCALE.md).\n"
    "\n"
    "How the job ended is input too: a log alone cannot say that a job failed. With --failed,\n"
    "--hung or a non-zero --exit-code, observations that can explain the failure become\n"
    "ranked hypotheses, and a failure nothing in the log explains is reported as such, with\n"
    "what to capture next time. Without them a log with no failure evidence gets none.\n"
    "\n"
    "Exit status: 0 whether or not a failure is found; 2 for bad usage or unreadable input.\n"
    "\n"
    "Options";

// --failed, --hung, --exit-code into the outcome the diagnosis reads; false (and `err`) on a
// value that is no exit status.
bool read_outcome(const po::variables_map& vm, const std::string& exit_code,
                  analysis::JobOutcome& outcome, std::string& err) {
  if (vm.count("failed")) outcome.end = analysis::JobEnd::kFailed;
  if (vm.count("hung")) outcome.end = analysis::JobEnd::kHung;  // a hang is a failure too
  if (vm.count("exit-code")) {
    outcome.exit_code = analysis::parse_exit_code(exit_code);
    if (!outcome.exit_code) {
      err = "--exit-code '" + exit_code +
            "' is not an exit status (an integer from 0 to 255, or -1 to -64 for a signal as "
            "Python reports it)";
      return false;
    }
  }
  return true;
}

// What the command line asked for. The options write into it while they are parsed
// (po::notify), so it stays where it was made.
struct AnalyzeRequest {
  std::string format = "text", color = "auto";
  std::vector<std::string> rule_dirs, files;
  std::string strategy = "auto", exit_code;
  unsigned threads = 0;
  fix::FixCliOptions fixo;
  po::variables_map vm;
  analysis::JobOutcome outcome;
};

// The options --help shows (`opts`) and those it does not (`hidden`), bound to `rq`.
void define_options(po::options_description& opts, po::options_description& hidden,
                    AnalyzeRequest& rq) {
  opts.add_options()("help,h", "show this help")(
      "format,f", po::value(&rq.format)->value_name("FMT"),
      "text (default), json or sarif; with --fix: text (notes and a diff) or json")(
      "rules,r", po::value(&rq.rule_dirs)->value_name("DIR")->composing(),
      "also load rules from DIR (repeatable); a rule with a built-in id replaces it")(
      "no-builtin-rules", "use only the rules given with --rules")(
      "mask",
      "replace host, user and IP names, home paths and tokens with pseudonyms "
      "(host-1, user-1, ip-1, token-1) before printing")(
      "color", po::value(&rq.color)->value_name("WHEN"), "auto (default), always or never")(
      "threads,j", po::value(&rq.threads)->value_name("N"),
      "scan on N threads (default: one per core; a big file is split between them)")(
      "summary",
      "write a summary of the inputs (JSON, docs/JSON.md) instead of a diagnosis, "
      "to be merged with other nodes' summaries by a later analyze (docs/SCALE.md)");
  po::options_description outcome_opts("How the job ended (docs/OUTCOME.md)");
  outcome_opts.add_options()("failed", "the job failed: it crashed, exited non-zero or was killed")(
      "hung", "the job stopped making progress (a hang is a failure: implies --failed)")(
      "exit-code", po::value(&rq.exit_code)->value_name("N"),
      "the status the job's command ended with (137: SIGKILL, 139: SIGSEGV; -9 as Python "
      "prints it); non-zero implies --failed");
  opts.add(outcome_opts);
  // Quick fixes (docs/FIXES.md).
  po::options_description fix_opts("Fixes (see docs/FIXES.md)");
  fix_opts.add_options()("fix",
                         "print the fix as a unified diff of the launch files (after '#' notes); "
                         "--format json: a JSON document of the edits; --mask applies")(
      "apply", "with --fix: write the edits (atomically; permissions kept)")(
      "fix-file", po::value(&rq.fixo.files)->value_name("FILE")->composing(),
      "a launch file --fix may edit (sbatch/bash script, Python entry point, compose file, "
      "pod YAML); repeatable")(
      "topology", po::value(&rq.fixo.topology)->value_name("FILE"),
      "hwloc XML, NCCL topology XML or `nvidia-smi topo -m` output of a node")(
      "workspace", po::value(&rq.fixo.workspace)->value_name("DIR"),
      "root that edits must stay inside, also searched for topology files (default: .)");
  opts.add(fix_opts);
  // For benchmarks and tests: force the line-by-line or the prefiltered scan.
  hidden.add_options()("input", po::value(&rq.files))("scan-strategy", po::value(&rq.strategy))(
      "no-live-topology", "--fix: never probe this machine");
}

// Parses and checks the command line into `rq`: nothing when the analysis is to run, else
// the exit status to end with (--help, or bad usage after saying why).
std::optional<int> parse_request(const std::vector<std::string>& args, AnalyzeRequest& rq) {
  po::options_description opts(kUsage);
  po::options_description hidden;
  define_options(opts, hidden, rq);
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map& vm = rq.vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "firstfault analyze: " << e.what() << "\n(see firstfault analyze --help)\n";
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (rq.format != "text" && rq.format != "json" && rq.format != "sarif") {
    std::cerr << "firstfault analyze: unknown --format '" << rq.format
              << "' (text, json or sarif)\n";
    return kExitUsage;
  }
  if (rq.color != "auto" && rq.color != "always" && rq.color != "never") {
    std::cerr << "firstfault analyze: unknown --color '" << rq.color
              << "' (auto, always or never)\n";
    return kExitUsage;
  }
  // A summary is the input of a later analyze: what shapes a report has no place in it, and
  // a masked summary would carry pseudonyms no other node's summary shares.
  if (vm.count("summary")) {
    for (const char* o : {"format", "mask", "fix", "apply", "color", "failed", "hung", "exit-code"})
      if (vm.count(o)) {
        std::cerr << "firstfault analyze: --summary writes a summary, not a report; --" << o
                  << " belongs to the analyze that merges the summaries\n";
        return kExitUsage;
      }
  }
  if (std::string err; !read_outcome(vm, rq.exit_code, rq.outcome, err)) {
    std::cerr << "firstfault analyze: " << err << "\n";
    return kExitUsage;
  }
  if (rq.files.empty()) {
    std::cerr << "firstfault analyze: no input; give a log file, a directory, or - for stdin\n"
                 "(see firstfault analyze --help)\n";
    return kExitUsage;
  }
  return std::nullopt;
}

// Summaries written by `analyze --summary` on other nodes: read now (before the content
// checks for dumps and RAS output) and appended in their place when the job is scanned.
// False when one is not readable (after saying so).
bool take_summaries(const analysis::Catalog& catalog, std::vector<InputFile>& inputs,
                    std::vector<SummaryInput>& summaries) {
  std::vector<InputFile> logs;
  for (auto& in : inputs) {
    if (!report::looks_like_summary(in.text())) {
      logs.push_back(std::move(in));
      continue;
    }
    auto parsed = report::read_summary(catalog, in.text());
    if (auto* e = std::get_if<report::SummaryError>(&parsed)) {
      std::cerr << "firstfault analyze: " << in.name() << (e->place.empty() ? "" : ":") << e->place
                << ": not readable as a firstfault summary: " << e->message << "\n";
      return false;
    }
    summaries.push_back({logs.size(), std::move(std::get<report::Summary>(parsed))});
  }
  inputs = std::move(logs);
  return true;
}

// Flight Recorder dumps and NCCL RAS output are read as evidence and take their files'
// place as the lines the rules read (docs/EVIDENCE.md, docs/RAS.md). False when nothing
// usable is left of the input.
bool take_evidence(std::vector<InputFile>& inputs, bool have_summaries,
                   std::vector<report::RasInput>& ras) {
  const std::size_t given = inputs.size();
  EvidenceTexts ev = replace_evidence(inputs);
  // Unreadable dumps are left out with a warning; when nothing readable is left, the
  // input as a whole is unusable.
  bool usable = ev.dumps > 0 || ev.dump_problems.size() < given;
  for (const auto& p : ev.dump_problems)
    std::cerr << "firstfault analyze: " << (usable ? "warning: " : "") << p.path << ": "
              << p.message << "\n";
  if (!usable && !have_summaries) return false;
  for (const auto& p : ev.ras_problems)
    std::cerr << "firstfault analyze: warning: " << p.path << ":" << p.message << "\n";
  ras = std::move(ev.ras);
  return true;
}

// Node-local logs often have the same path on every node: where two inputs would have
// the same name, a summary's files are named after the machine that wrote it.
void name_summary_files(const std::vector<InputFile>& inputs,
                        std::vector<SummaryInput>& summaries) {
  std::map<std::string, std::size_t> uses;
  for (const auto& in : inputs) ++uses[in.name()];
  for (const auto& sm : summaries)
    for (const auto& f : sm.summary.files) ++uses[f.name];
  for (auto& sm : summaries)
    if (!sm.summary.machine.empty())
      for (auto& f : sm.summary.files)
        if (uses[f.name] > 1) f.name = sm.summary.machine + ":" + f.name;
}

// --fix and --apply: the fix for the diagnosis, printed (masked for sharing, like the
// report; the files written by --apply are not).
int print_fix(const analysis::Catalog& catalog, const analysis::Analysis& result,
              const std::vector<InputFile>& inputs, AnalyzeRequest& rq, report::Masker& masker,
              bool mask) {
  if (rq.format == "sarif") {
    std::cerr << "firstfault analyze: --fix prints text or json, not sarif\n";
    return kExitUsage;
  }
  rq.fixo.apply = rq.vm.count("apply") > 0;
  rq.fixo.live = !rq.vm.count("no-live-topology");
  std::vector<std::pair<std::string, std::string_view>> logs;
  for (const auto& in : inputs) logs.emplace_back(in.name(), in.text());
  std::string fix_out, fix_err;
  nlohmann::json doc;
  int rc = fix::run_fix(catalog, result, logs, rq.fixo, fix_out, fix_err,
                        rq.format == "json" ? &doc : nullptr);
  if (rc != 0) {
    std::cerr << "firstfault analyze: " << fix_err << "\n";
    return kExitUsage;
  }
  if (rq.format == "json") {
    if (mask) masker.mask(doc);
    fix_out = jsonio::document_text(doc);
  } else if (mask) {
    fix_out = masker.mask(fix_out);
  }
  std::fwrite(fix_out.data(), 1, fix_out.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

// The report in the format asked for. Rendered fully before anything is written, so a
// failure never leaves half a document.
void print_report(const analysis::Catalog& catalog, const analysis::Analysis& result,
                  const AnalyzeRequest& rq, const std::vector<report::RasInput>& ras,
                  std::vector<std::string_view> job_texts, report::Masker& masker, bool mask) {
  std::string out;
  if (rq.format == "json") {
    auto j = report::to_json(catalog, result);
    if (!ras.empty()) j["ras"] = report::ras_json(ras);
    if (mask) masker.mask(j);
    out = jsonio::document_text(j);
    keep_until_exit(std::move(j));
  } else if (rq.format == "sarif") {
    // columns in UTF-16 units of the raw lines
    std::vector<std::string_view> texts = std::move(job_texts);
    auto j = report::to_sarif(catalog, result, texts);
    if (mask) masker.mask(j);
    out = jsonio::document_text(j);
    keep_until_exit(std::move(j));
  } else {
    report::TextOptions to;
    to.color = rq.color == "always" || (rq.color == "auto" && ::isatty(STDOUT_FILENO));
    to.appendix = report::ras_text(ras, to.color);
    out = report::to_text(catalog, result, to);
    if (mask) out = masker.mask(out);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  keep_until_exit(std::move(out));
}

}  // namespace

int run_analyze(const std::vector<std::string>& args) {
  AnalyzeRequest rq;
  if (auto done = parse_request(args, rq)) return *done;
  const po::variables_map& vm = rq.vm;
  auto loaded = load_catalog(rq.rule_dirs, !vm.count("no-builtin-rules"));
  for (const auto& p : loaded.problems)
    std::cerr << "firstfault: warning: " << p.to_string() << "\n";

  std::vector<InputFile> inputs;
  InputError err;
  if (!open_inputs(rq.files, inputs, err)) {
    std::cerr << "firstfault analyze: " << err.path << ": " << err.message << "\n";
    return kExitUsage;
  }
  std::vector<SummaryInput> summaries;
  if (!take_summaries(loaded.catalog, inputs, summaries)) return kExitUsage;
  std::vector<report::RasInput> ras;
  if (!take_evidence(inputs, !summaries.empty(), ras)) return kExitUsage;
  name_summary_files(inputs, summaries);
  ScanOptions so;
  so.pieces.threads = rq.threads;
  if (rq.strategy == "every-line")
    so.strategy = analysis::ScanStrategy::kEveryLine;
  else if (rq.strategy == "prefilter")
    so.strategy = analysis::ScanStrategy::kPrefilter;
  else if (rq.strategy != "auto") {
    std::cerr << "firstfault analyze: unknown --scan-strategy '" << rq.strategy << "'\n";
    return kExitUsage;
  }
  so.file_spans = vm.count("summary") > 0;
  ScannedJob job = scan_job(loaded.catalog, inputs, std::move(summaries), so);
  if (vm.count("summary")) {
    if (!ras.empty())
      std::cerr << "firstfault analyze: warning: NCCL RAS output is not part of a summary; "
                   "give it to the analyze that merges the summaries\n";
    std::string out = report::write_summary(loaded.catalog, job.files, job.state, machine_name());
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    keep_until_exit(std::move(job));
    keep_until_exit(std::move(loaded));
    return kExitOk;
  }
  std::vector<std::string_view> job_texts = std::move(job.texts);
  // A job known to have failed: where each rank's progress and stack stopped
  // (analysis/stacks.hpp).
  if (rq.outcome.known_failure())
    analysis::compare_stopped_processes(loaded.catalog, job.scanned, job.state);
  auto result =
      analysis::diagnose(loaded.catalog, std::move(job.files), std::move(job.state), rq.outcome);
  const bool mask = vm.count("mask") > 0;
  report::Masker masker;
  if (mask) masker.add_hosts_from(result);
  if (vm.count("fix") || vm.count("apply"))
    return print_fix(loaded.catalog, result, inputs, rq, masker, mask);
  for (const auto& in : inputs)
    if (in.truncated())
      std::cerr << "firstfault analyze: warning: " << in.name()
                << ": shrank while being read; the lost part was read as empty\n";
  print_report(loaded.catalog, result, rq, ras, std::move(job_texts), masker, mask);
  keep_until_exit(std::move(result));
  keep_until_exit(std::move(loaded));
  return kExitOk;
}

}  // namespace ff::cli
