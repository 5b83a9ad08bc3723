#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "analysis/analyze.hpp"
#include "cli/commands.hpp"
#include "cli/input_files.hpp"
#include "cli/rule_set.hpp"
#include "cli/scan_inputs.hpp"
#include "report/report.hpp"

namespace ff::cli {

namespace po = boost::program_options;

namespace {

const char* kUsage =
    "Usage: firstfault analyze [options] FILE|DIR|- ...\n"
    "\n"
    "Finds the root cause of a failed distributed job in its logs: the initiating rank and\n"
    "line, the collateral failures, the fix and the command that verifies it. Several files\n"
    "are one job (per-node logs are correlated); a directory means the log files in it\n"
    "(*.log, *.out, *.err, *.txt); '-' reads standard input.\n"
    "\n"
    "Exit status: 0 whether or not a failure is found; 2 for bad usage or unreadable input.\n"
    "\n"
    "Options";

}  // namespace

int run_analyze(const std::vector<std::string>& args) {
  po::options_description opts(kUsage);
  std::string format = "text", color = "auto";
  std::vector<std::string> rule_dirs, files;
  std::string strategy = "auto";
  unsigned threads = 0;
  opts.add_options()("help,h", "show this help")(
      "format,f", po::value(&format)->value_name("FMT"), "text (default), json or sarif")(
      "rules,r", po::value(&rule_dirs)->value_name("DIR")->composing(),
      "also load rules from DIR (repeatable); a rule with a built-in id replaces it")(
      "no-builtin-rules", "use only the rules given with --rules")(
      "color", po::value(&color)->value_name("WHEN"), "auto (default), always or never")(
      "threads,j", po::value(&threads)->value_name("N"), "scan files on N threads (default: one per core)");
  po::options_description hidden;
  // For benchmarks and tests: force the line-by-line or the prefiltered scan.
  hidden.add_options()("input", po::value(&files))("scan-strategy", po::value(&strategy));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
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
  if (format != "text" && format != "json" && format != "sarif") {
    std::cerr << "firstfault analyze: unknown --format '" << format << "' (text, json or sarif)\n";
    return kExitUsage;
  }
  if (color != "auto" && color != "always" && color != "never") {
    std::cerr << "firstfault analyze: unknown --color '" << color << "' (auto, always or never)\n";
    return kExitUsage;
  }
  if (files.empty()) {
    std::cerr << "firstfault analyze: no input; give a log file, a directory, or - for stdin\n"
                 "(see firstfault analyze --help)\n";
    return kExitUsage;
  }
  auto loaded = load_catalog(rule_dirs, !vm.count("no-builtin-rules"));
  for (const auto& p : loaded.problems) std::cerr << "firstfault: warning: " << p.to_string() << "\n";

  std::vector<InputFile> inputs;
  InputError err;
  if (!open_inputs(files, inputs, err)) {
    std::cerr << "firstfault analyze: " << err.path << ": " << err.message << "\n";
    return kExitUsage;
  }
  ScanOptions so;
  so.threads = threads;
  if (strategy == "every-line") so.strategy = analysis::ScanStrategy::kEveryLine;
  else if (strategy == "prefilter") so.strategy = analysis::ScanStrategy::kPrefilter;
  else if (strategy != "auto") {
    std::cerr << "firstfault analyze: unknown --scan-strategy '" << strategy << "'\n";
    return kExitUsage;
  }
  auto result = analyze_inputs(loaded.catalog, inputs, so);

  // Render fully before writing anything, so a failure never leaves half a document.
  std::string out;
  if (format == "json") {
    out = report::to_json(loaded.catalog, result).dump(2) + "\n";
  } else if (format == "sarif") {
    out = report::to_sarif(loaded.catalog, result).dump(2) + "\n";
  } else {
    report::TextOptions to;
    to.color = color == "always" || (color == "auto" && ::isatty(STDOUT_FILENO));
    out = report::to_text(loaded.catalog, result, to);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace ff::cli
