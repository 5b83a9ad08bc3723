// firstfault: one binary, a verb per job. See `firstfault --help`.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/heap_prefault.hpp"

namespace {

const char* kHelp =
    "firstfault " FF_VERSION
    " - finds where a distributed GPU job failed, not just where it died.\n"
    "\n"
    "Usage: firstfault <command> [options]\n"
    "\n"
    "Commands:\n"
    "  analyze FILE|DIR|-...   diagnose logs: root cause, initiating rank, collateral, fix\n"
    "  watch FILE|DIR|-...     follow a running job's logs; name the first fault as it shows,\n"
    "                          optionally run a command (scancel, a notification) on it\n"
    "  topo                    GPU/NIC topology report and per-rank NCCL_IB_HCA binding\n"
    "  rules list|show|lint|test|doc|export-patterns\n"
    "                          inspect and check the failure catalog\n"
    "  lsp                     run the language server on stdin/stdout\n"
    "\n"
    "Run 'firstfault <command> --help' for a command's options.\n"
    "firstfault reads local files only and never opens a network connection.\n";

}  // namespace

int main(int argc, char** argv) {
#ifdef FF_PORTABLE
  // The static binary carries hwloc with every component it uses (Linux, PCI through sysfs,
  // XML, x86). hwloc's plugins on the host are shared objects linked to a shared libhwloc
  // and glibc: loading them into a static binary cannot work, so none is looked for.
  ::setenv("HWLOC_PLUGINS_PATH", "", 1);
#endif
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kHelp;
    return ff::cli::kExitUsage;
  }
  const std::string verb = args.front();
  std::vector<std::string> rest(args.begin() + 1, args.end());
  // The verbs that load the catalog fill about 2 MB of heap at once (heap_prefault.hpp).
  if (verb == "analyze" || verb == "rules" || verb == "lsp" || verb == "watch")
    ff::cli::prefault_heap(std::size_t{3} << 20);
  try {
    if (verb == "analyze") return ff::cli::run_analyze(rest);
    if (verb == "rules") return ff::cli::run_rules(rest);
    if (verb == "topo") return ff::cli::run_topo(rest);
    if (verb == "lsp") return ff::cli::run_lsp(rest);
    if (verb == "watch") return ff::cli::run_watch(rest);
  } catch (const std::bad_alloc&) {
    std::cerr << "firstfault " << verb << ": out of memory\n";
    return ff::cli::kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "firstfault " << verb << ": internal error: " << e.what() << "\n";
    return ff::cli::kExitFailure;
  }
  if (verb == "--help" || verb == "-h" || verb == "help") {
    std::cout << kHelp;
    return ff::cli::kExitOk;
  }
  if (verb == "--version" || verb == "-V") {
    std::cout << "firstfault " FF_VERSION "\n";
    return ff::cli::kExitOk;
  }
  std::cerr << "firstfault: unknown command '" << verb << "'\n\n" << kHelp;
  return ff::cli::kExitUsage;
}
