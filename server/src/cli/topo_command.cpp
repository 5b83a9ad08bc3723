#include <boost/program_options.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cli/commands.hpp"
#include "jsonio/document_text.hpp"
#include "topology/hwloc_loader.hpp"
#include "topology/nccl_log_topology.hpp"
#include "topology/nccl_topo_parser.hpp"
#include "topology/nvidia_smi_parser.hpp"
#include "topology/topo_report.hpp"

namespace ff::cli {

namespace po = boost::program_options;

namespace {

const char* kUsage =
    "Usage: firstfault topo [--xml F | --nvidia-smi F | --nccl-topo F | --from-log F]\n"
    "                       [--env NAME=VALUE]... [--format text|json]\n"
    "\n"
    "Shows which NIC each GPU talks through: the GPU x NIC path matrix (nvidia-smi's\n"
    "X/NV#/PIX/PXB/PHB/NODE/SYS), checks (remote NICs, shared NICs, NCCL_IB_HCA and\n"
    "NCCL_SOCKET_IFNAME, GPUDirect RDMA prerequisites) and a per-rank binding: HCA, NUMA\n"
    "node, CPUs and socket interface. Without an input file it inspects this machine; with\n"
    "one it describes the node the file came from (checks that need that machine are\n"
    "skipped). Never touches the network.\n"
    "\n"
    "Exit status: 0 whatever the findings; 2 for bad usage or unreadable input.\n"
    "\n"
    "Options";

// Variables the checks read. Live, they come from this process's environment.
const char* kEnvVars[] = {"NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "LOCAL_RANK",
                          "CUDA_VISIBLE_DEVICES"};

}  // namespace

int run_topo(const std::vector<std::string>& args) {
  po::options_description opts(kUsage);
  std::string xml, smi, nccl_topo, log, format = "text";
  std::vector<std::string> envs;
  opts.add_options()("help,h", "show this help")("xml", po::value(&xml)->value_name("FILE"),
                                                 "an hwloc XML export (lstopo node.xml)")(
      "nvidia-smi", po::value(&smi)->value_name("FILE"), "saved `nvidia-smi topo -m` output")(
      "nccl-topo", po::value(&nccl_topo)->value_name("FILE"),
      "an NCCL topology XML (NCCL_TOPO_DUMP_FILE)")("from-log", po::value(&log)->value_name("FILE"),
                                                    "an NCCL_DEBUG=INFO log")(
      "env", po::value(&envs)->value_name("NAME=VALUE")->composing(),
      "a variable of the job (NCCL_IB_HCA, NCCL_SOCKET_IFNAME, ...); repeatable")(
      "format,f", po::value(&format)->value_name("FMT"), "text (default) or json");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "firstfault topo: " << e.what() << " (see firstfault topo --help)\n";
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (format != "text" && format != "json") {
    std::cerr << "firstfault topo: unknown --format '" << format << "' (text or json)\n";
    return kExitUsage;
  }
  int inputs = !xml.empty() + !smi.empty() + !nccl_topo.empty() + !log.empty();
  if (inputs > 1) {
    std::cerr << "firstfault topo: give at most one of --xml, --nvidia-smi, --nccl-topo, "
                 "--from-log\n";
    return kExitUsage;
  }
  topology::CheckOptions copt;
  copt.live = inputs == 0;
  if (copt.live)
    for (const char* v : kEnvVars)
      if (const char* val = std::getenv(v)) copt.env[v] = val;
  for (const auto& e : envs) {
    auto eq = e.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "firstfault topo: --env '" << e << "' is not NAME=VALUE\n";
      return kExitUsage;
    }
    copt.env[e.substr(0, eq)] = e.substr(eq + 1);
  }

  topology::LoadResult loaded;
  if (!xml.empty())
    loaded = topology::load_hwloc_xml(xml);
  else if (!smi.empty())
    loaded = topology::load_nvidia_smi_file(smi);
  else if (!nccl_topo.empty())
    loaded = topology::load_nccl_topo_file(nccl_topo);
  else if (!log.empty())
    loaded = topology::load_nccl_log_file(log);
  else
    loaded = topology::load_live();
  if (!loaded.ok()) {
    std::cerr << "firstfault topo: " << loaded.error->to_string() << "\n";
    return kExitUsage;
  }
  auto analysis = topology::analyze_topology(std::move(*loaded.topology), copt);
  // Render fully before writing anything, so a failure never leaves half a document.
  std::string out = format == "json" ? jsonio::document_text(topology::render_json(analysis))
                                     : topology::render_text(analysis);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace ff::cli
