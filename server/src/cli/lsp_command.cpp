#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>
#include <csignal>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/lsp_disk_reader.hpp"
#include "cli/rule_set.hpp"
#include "lsp/lsp_server.hpp"

namespace ff::cli {

namespace po = boost::program_options;

namespace {

const char* kUsage =
    "Usage: firstfault lsp [options]\n"
    "\n"
    "Runs the firstfault language server (LSP 3.17) on stdin/stdout: diagnostics on open\n"
    "logs, hovers on flagged lines and NCCL_* variables, quick fixes, code lenses and\n"
    "commands. Logs go to stderr (or --log FILE), never to stdout. See docs/LSP.md.\n"
    "\n"
    "Options";

}  // namespace

int run_lsp(const std::vector<std::string>& args) {
  po::options_description opts(kUsage);
  std::string log_file, log_level = "info", docs_dir;
  std::vector<std::string> rule_dirs;
  int debounce = 50;
  std::size_t max_message = lsp::kDefaultMaxMessage;
  opts.add_options()("help,h", "show this help")("log", po::value(&log_file)->value_name("FILE"),
                                                 "write the server log to FILE instead of stderr")(
      "log-level", po::value(&log_level)->value_name("LEVEL"),
      "trace, debug, info (default), warn, error, off")(
      "rules,r", po::value(&rule_dirs)->value_name("DIR")->composing(),
      "also load rules from DIR (repeatable)")("no-builtin-rules",
                                               "use only the rules given with --rules")(
      "docs", po::value(&docs_dir)->value_name("DIR"),
      "the docs directory (for file:// catalog links)")(
      "debounce-ms", po::value(&debounce)->value_name("MS"),
      "edits closer together than MS are a burst: the first edit after MS of quiet is "
      "analysed at once, the rest when the burst pauses for MS (>= 50, default 50)")(
      "max-message-bytes", po::value(&max_message)->value_name("N"),
      "refuse JSON-RPC messages larger than N bytes (default 64 MiB)")(
      "stdio",
      "accepted for compatibility with clients that pass it (stdio is the only transport)");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "firstfault lsp: " << e.what() << "\n(see firstfault lsp --help)\n";
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  auto level = spdlog::level::from_str(log_level);
  if (level == spdlog::level::off && log_level != "off") {
    std::cerr << "firstfault lsp: unknown --log-level '" << log_level << "'\n";
    return kExitUsage;
  }
  try {
    std::shared_ptr<spdlog::logger> logger =
        log_file.empty() ? spdlog::stderr_color_mt("firstfault-lsp", spdlog::color_mode::never)
                         : spdlog::basic_logger_mt("firstfault-lsp", log_file);
    logger->set_level(level);
    logger->flush_on(spdlog::level::warn);
    spdlog::set_default_logger(logger);
  } catch (const spdlog::spdlog_ex& e) {
    std::cerr << "firstfault lsp: cannot open log: " << e.what() << "\n";
    return kExitUsage;
  }
  std::signal(SIGPIPE, SIG_IGN);
  auto loaded = load_catalog(rule_dirs, !vm.count("no-builtin-rules"));
  for (const auto& p : loaded.problems) spdlog::warn("rules: {}", p.to_string());
  lsp::ServerOptions so;
  so.docs_dir = docs_dir;
  so.debounce_ms = debounce;
  so.max_message = max_message;
  so.disk_reader = make_lsp_disk_reader();
  spdlog::info("firstfault lsp starting: {} rules", loaded.catalog.rules().size());
  return lsp::serve_stdio(loaded.catalog, so);
}

}  // namespace ff::cli
