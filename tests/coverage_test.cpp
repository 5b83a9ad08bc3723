// How much of what NCCL, PyTorch's distributed stack, DeepSpeed, Megatron-LM, vLLM, aws-ofi-nccl,
// RCCL and the launchers and runtimes around a job (Open MPI / PRRTE, Slurm, UCX) can print the
// built-in catalog recognises.
//
//   ff_coverage_test [--min F] [--subject nccl|pytorch|ofi|rccl|framework|launcher]
//                    [--verbose] [--no-builtin-rules] [--rules DIR]... MESSAGES_TSV...
//
// Each MESSAGES_TSV is a table of format strings taken from a producer's own source
// (tests/data/nccl-messages.tsv: NCCL's, with a few PyTorch rows at the end;
// tests/data/torch-messages.tsv: PyTorch c10d's and torchelastic's; tests/data/ofi-messages.tsv:
// aws-ofi-nccl's; tests/data/rccl-messages.tsv: RCCL's own, those NCCL does not print; see
// tests/data/README.md).
// Every row is rendered with plausible values (%d -> 3, %x -> 7f3a, %p -> 0x7f3a10, %s or {}
// -> a token that fits the text around it, {name} -> a call name, %% -> %) the way its
// producer prints it, and matched against the catalog:
//   - NCCL rows (level WARN) behind a real NCCL prefix; RCCL's rows (source_repo ROCm/rccl) the
//     same way, since RCCL prints through NCCL's logger;
//   - aws-ofi-nccl rows (source_repo aws/aws-ofi-nccl, format strings with the "NET/OFI " its
//     NCCL_OFI_WARN macro puts in front) behind the prefix NCCL's logger gives a plugin's WARN:
//     the function (__PRETTY_FUNCTION__: the name in C, "int name()" as a stand-in for C++'s
//     signature) and line in place of NCCL's own file:line ("[3] nccl_net_ofi_rdma_init:7978
//     NCCL WARN NET/OFI ...");
//   - PyTorch rows (levels ERROR, FATAL, WARNING, EXC): C++ log lines behind c10's glog-style
//     prefix ("[rank0]:[E1203 17:20:14.123456789 ProcessGroupNCCL.cpp:1316] "), Python log
//     lines behind torch's logging prefix ("E1203 17:20:14.123000 4242 torch/.../api.py:812] "),
//     exceptions as Python's last traceback line ("torch.distributed.DistBackendError: ...",
//     the result_code column naming the type; a type with an empty message prints alone);
//   - DeepSpeed, Megatron-LM and vLLM rows (tests/data/framework-messages.tsv, by source_repo)
//     behind their loggers' prefixes ("[2025-01-01 00:00:00,000] [ERROR] [launch.py:341:
//     sigkill_handler] ", "ERROR 01-01 00:00:00 [file.py:123] ", "WARNING:megatron.core.x:"),
//     exceptions as PyTorch's, print_rank_0 lines (level PRINT) bare.
// --rules and --no-builtin-rules measure a rules folder other than the built-in catalog.
//   - launcher rows (tests/data/launcher-messages.tsv: source_repo open-mpi/ompi,
//     openpmix/prrte, SchedMD/slurm, openucx/ucx) as render_launcher says: show_help banners
//     as lines between dashed rules, srun's and slurmstepd's "srun: error: " prefixes, UCX's
//     log format.
// The rule that speaks for a line is the hit with the highest analysis::line_precedence (as
// in the scan). A message is recognised when that rule's role is cause, symptom, finding or
// context (benign listings are context); a fallback rule (a generic error-level pattern) or no
// hit does not count. A message whose format string holds "\n" is printed as several lines,
// the first behind the prefix; it is recognised when one of them is.
//
// Prints the counts per source file, the unrecognised messages and the total of each set that
// has rows, and fails when the share of the --subject set (default nccl) recognised is below
// --min (a fraction; default 0.90). The other sets are reported only.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/catalog.hpp"
#include "analysis/rule.hpp"
#include "cli/rule_set.hpp"
#include "coverage_common.hpp"
#include "percent.hpp"
#include "test_args.hpp"

namespace {

using ff::analysis::Catalog;

struct Row {
  std::string repo, file, level, format, result_code;
};

using ff::test::ends_with;
using ff::test::has;
using ff::test::lower;
using ff::test::split;

// A value for %s that fits the words just before it.
std::string string_value(const std::string& before, const std::string& file) {
  std::string all = lower(before);
  std::string near = all.size() > 32 ? all.substr(all.size() - 32) : all;
  if ((ends_with(near, "'") || ends_with(near, ": ")) &&
      (has(near, "cuda error") || has(near, "cuda failure")))
    return "an illegal memory access was encountered";
  if (has(all, "nccl error in: ")) {
    if (ends_with(near, "error in: ")) return "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp";
    if (ends_with(near, ", ") && !has(near, "version"))
      return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
  }
  if (ends_with(near, "extend ") || ends_with(near, "segment ") ||
      ends_with(near, "shared memory "))
    return "/dev/shm/nccl-3a7f";
  if (ends_with(near, "call to ")) return "recv from";  // socket.cc: "Call to %s %s failed"
  if (ends_with(near, "guid ")) return "1";
  if (has(near, "signal ")) return "SIGABRT";
  if (ends_with(near, "allocate ") || ends_with(near, "capacity of ") ||
      ends_with(near, "of which ") || ends_with(near, "has ") || ends_with(near, "memory "))
    return "2.00 GiB";
  if (ends_with(near, "connect to ") || ends_with(near, "connecting to ")) return "10.0.0.5<43215>";
  if (ends_with(near, "while ")) return "creating";
  if (ends_with(near, "open ") && has(file, "gdr")) return "libgdrapi.so.2";
  if (ends_with(near, "dlsym failed on ")) return "gdr_open";
  if ((ends_with(near, "from ") || ends_with(near, " to ")) &&
      (has(all, "path") || has(all, "link") || has(all, "node")))
    return "GPU";  // topology node types
  if (has(near, "ifname") || has(near, "interface")) return "eth0";
  if (has(near, "file") || has(near, "path")) return "/tmp/nccl_topo.xml";
  if (ends_with(near, "failed: ") || ends_with(near, "failed : ") || ends_with(near, "error ") ||
      ends_with(near, "error: ") || ends_with(near, "error : ") || ends_with(near, "errno "))
    return "Input/output error";
  if (has(near, "addr") || has(near, "connect") || has(near, "peer") || has(near, "remote") ||
      has(file, "socket"))
    return "10.0.0.5<43215>";
  if (has(near, "coll") || has(near, "function") || has(near, "op ") || has(near, "optype"))
    return "AllReduce";
  if (has(near, "version")) return "2.21.5";
  if (has(near, "gpu") || has(near, "busid")) return "0000:3a:00.0";
  return "mlx5_0";
}

// A call name for {name}, by the wrapper the message comes from.
std::string call_name(const std::string& file) {
  if (has(file, "mlx5dv")) return "mlx5dv_create_qp";
  if (has(file, "ibv")) return "ibv_modify_qp";
  if (has(file, "nvml")) return "nvmlDeviceGetHandleByPciBusId";
  if (has(file, "gdr")) return "gdr_pin_buffer";
  return "posix_fallocate";
}

// A value for %s or {} in a PyTorch message, by the words just before and after it: what
// c10d, torchelastic and the rendezvous code put there. Empty: no PyTorch-specific value.
std::string torch_string_value(const std::string& before, const std::string& after) {
  std::string all = lower(before);
  std::string near = all.size() > 40 ? all.substr(all.size() - 40) : all;
  std::string next = lower(after.substr(0, 12));
  auto next_is = [&](const char* s) { return next.rfind(s, 0) == 0; };
  if (next_is("network")) return "";  // "The %snetwork addresses": "IPv4 " or nothing
  if (ends_with(near, "timed out after ")) return "600000ms";
  // DeepSpeed's, Megatron-LM's and vLLM's values (framework-messages.tsv).
  if (ends_with(near, "nccl==")) return "2.21.5";
  if (ends_with(near, "rank=") && next_is(" died")) return "[3]";
  if (ends_with(near, "access from ")) return "(0, 1)";
  if (ends_with(near, "valid gpu counts: ")) return "[8, 16, 32]";
  if (has(all, "disagreement between rank0") && ends_with(near, ": ")) return "[12, 40, 7]";
  if (next_is("/") || next_is(" gib")) return "20.5";
  if (ends_with(near, "worker ") && next_is(" pid")) return "VllmWorkerProcess";
  if (ends_with(near, "(") && next_is(", ")) return "master-0";  // (host, port)
  if (ends_with(near, "host ") && next_is(":")) return "master-0";
  if (ends_with(near, "connect to ") || ends_with(near, "bind to ") ||
      ends_with(near, "listen on ") || ends_with(near, "socket on "))
    return "[master-0]:29500";
  if (ends_with(near, "]:29500 "))
    return has(all, "bind") || has(all, "listen") ? "(errno: 98 - Address already in use)"
                                                  : "(errno: 113 - No route to host)";
  if (has(near, "gai error") && ends_with(near, " - ")) return "Name or service not known";
  if (ends_with(near, "addr=")) return "[node-3]:43212";
  if (ends_with(near, "remote=")) return "[master-0]:29500";
  if (ends_with(near, "): ") && has(near, "try="))
    return "The client socket has timed out after 600000ms while trying to connect to "
           "(master-0, 29500).";
  if (ends_with(near, "keys: ")) return "/default_pg/0//cuda//0";
  if (ends_with(near, "(") && near.size() >= 2 &&
      std::isdigit(static_cast<unsigned char>(near[near.size() - 2])))
    return "default_pg";  // "PG GUID 0(default_pg)"
  if (ends_with(near, "optype=")) return "ALLREDUCE";
  if (ends_with(near, "work "))
    return "WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1024, NumelOut=1024, "
           "Timeout(ms)=600000)";
  if (ends_with(near, "timeout in: ")) return "../torch/csrc/distributed/c10d/NCCLUtils.cpp";
  if (ends_with(near, ", ") && has(all, "timeout in: ") && !has(near, "version"))
    return "ncclInProgress";
  if (ends_with(near, "exitcode: ") || ends_with(near, "local_rank: ")) return "1";
  if (ends_with(near, "pid: ") || ends_with(near, "process ") || ends_with(near, "by pid "))
    return "4242";
  if (ends_with(near, "binary: ")) return "/usr/bin/python3";
  if (ends_with(near, "got signal: ")) return "15";
  if (ends_with(near, "signal ") || ends_with(near, "via ") || ends_with(near, "received "))
    return "SIGTERM";
  if (ends_with(near, "(") && has(near, "signal")) return "SIGABRT";
  if (ends_with(near, "node '")) return "node-3_4412_0";
  if (ends_with(near, "rendezvous '")) return "job42";
  if (ends_with(near, "error of type ")) return "RendezvousConnectionError";
  if (ends_with(near, "endpoint '")) return "master-0:abc";
  if (ends_with(near, "backend '")) return "etcd";
  if (ends_with(near, "port: ") || ends_with(near, "attempt: [")) return "29500";
  if (ends_with(near, "on ") && next_is(", port")) return "master-0";
  if (ends_with(near, " in ") && next_is(" state")) return "UNKNOWN";
  if (ends_with(near, "[") && next_is("] worker")) return "default";
  if (ends_with(near, "for key: ")) return "store_based_barrier_key:1";
  if (ends_with(near, "timeout=")) return "0:30:00";
  if (ends_with(near, "group ") || ends_with(near, "part of group "))
    return "<torch.distributed.distributed_c10d.ProcessGroup object at 0x7f3a10>";
  if (ends_with(near, "running ")) return "all_reduce";
  if (ends_with(near, "ranks ")) return "1, 3";
  if (ends_with(near, "variable ") && next_is(" is deprecated")) return "NCCL_ASYNC_ERROR_HANDLING";
  if (ends_with(near, "variable ")) return "MASTER_ADDR";
  if (ends_with(near, "use ") && has(all, "deprecated")) return "TORCH_NCCL_ASYNC_ERROR_HANDLING";
  if (ends_with(near, "handler for ")) return "foo";
  if (ends_with(near, "device type ")) return "cpu";
  if (ends_with(near, "backend ")) return "gloo";
  if (ends_with(near, "does not support ")) return "reduce_scatter";
  if (ends_with(near, "address for: ")) return "eth1";
  if (ends_with(near, "peer [") || ends_with(near, "error [") || ends_with(near, "timeout ["))
    return "10.0.0.5";
  if (ends_with(near, "future for ")) return "Flight recorder dump in heartbeatMonitor";
  if (ends_with(near, "due to ")) return "collective timeout or exception";
  if (ends_with(near, "time      : ")) return "2024-12-03_17:20:14";
  if (ends_with(near, "host      : ")) return "node-3";
  if (ends_with(near, "====\\n")) return "train.py";
  if (ends_with(near, "key '") || ends_with(near, "get('")) return "0";
  if (ends_with(near, "nccl version ")) return "2.21.5";
  if (ends_with(near, "error in: ")) return "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp";
  if (ends_with(near, "trace: ") || ends_with(near, "collectives: ")) return "1";
  // A nested message (a reason, the detail of an exception, NCCL's last error): a neutral
  // text, so a row is recognised for its own words, not for the message it quotes.
  return "<detail>";
}

// A value for %s in a launcher's or runtime's message (Open MPI / PRRTE help text, srun,
// slurmstepd, UCX), by the words just before and after it. `program`: what a help text's
// leading %s names (mpirun, prterun).
std::string launcher_string_value(const std::string& before, const std::string& after,
                                  const std::string& program) {
  std::string all = lower(before);
  std::string near = all.size() > 40 ? all.substr(all.size() - 40) : all;
  std::string next = lower(after.substr(0, 12));
  auto next_is = [&](const char* s) { return next.rfind(s, 0) == 0; };
  std::string line =
      near.substr(near.rfind("\\n") == std::string::npos ? 0 : near.rfind("\\n") + 2);
  if (line.empty() || ends_with(near, "signals sent by ") ||
      ends_with(near, "specifying -quiet on the ") || ends_with(near, "misspelling a ") ||
      ends_with(near, "remember that "))
    return next_is(": %s %s:") ? "gpu-node-03" : program;  // srun's "%s: %s %s:" starts with hosts
  if (next_is(" %s:")) return "task";                      // srun: "task" or "tasks"
  if (ends_with(near, ": task ")) return "3";
  if (ends_with(near, "task 3: ")) return "Segmentation fault";  // strsignal()
  if (ends_with(near, "segmentation fault")) return " (core dumped)";
  if (ends_with(near, "*** ")) return "JOB 871203";
  if (next_is(" job %s terminated")) return "Primary";  // "%s job %s terminated normally, but"
  if (ends_with(near, "primary job ")) return "";
  if (ends_with(near, "normally, but 1 ")) return "process returned\\na non-zero exit code";
  if (ends_with(near, "871203 on ") || ends_with(near, "terminated on ")) return "gpu-node-03";
  if (ends_with(near, " at ")) return "2025-03-14T06:21:09";
  if (ends_with(near, "due to signal ")) return "Terminated";
  if (ends_with(near, "oom_kill event")) return "s";
  if (ends_with(near, "caught signal 11 (")) return "Segmentation fault";
  if (ends_with(near, "segmentation fault: ")) return "address not mapped to object at address ";
  if (ends_with(near, "at address ")) return "0x8";
  if (ends_with(near, "error '")) return "Endpoint timeout";
  if (ends_with(near, "' on ")) return "rc_mlx5/mlx5_0:1";
  if (ends_with(near, "no ")) return "auxiliary";
  if (ends_with(near, "transport to ")) return "gpu-node-03";
  if (ends_with(near, " on ") && next_is(":")) return "mlx5_0";  // UCT_IB_IFACE_FMT: dev:port/type
  if (ends_with(near, ":1/")) return "IB";
  if (ends_with(near, "async event on ")) return "mlx5_0";
  if (ends_with(near, "communicator ")) return "MPI_COMM_WORLD";
  if (has(near, "node") || has(near, "host") || ends_with(near, "on ")) return "gpu-node-03";
  if (has(near, "process name: ") || has(near, "my name:") || ends_with(near, "proc: "))
    return "[prterun-gpu-node-01-4242@1,3]";
  if (has(near, "executable")) return "./train";
  if (has(near, "directory")) return "/scratch/run";
  if (ends_with(near, "error name: ")) return "Not found";
  return "<detail>";
}

// An integer for %d in a launcher's message where the words before it decide (a signal, an
// exit code, a rank); empty: the usual 3.
std::string launcher_int_value(const std::string& before) {
  std::string near = lower(before.size() > 24 ? before.substr(before.size() - 24) : before);
  if (ends_with(near, "signal ") || ends_with(near, "exited on\\n")) return "11";
  if (ends_with(near, "exit code ") || ends_with(near, "exit code:    ") ||
      ends_with(near, "normally, but "))
    return "1";
  if (ends_with(near, "mlx5_0:")) return "1";  // UCT_IB_IFACE_FMT: device:port/type
  return "";
}

// Renders a printf-style format string with plausible values ({} as in libfmt and Python is
// read as %s). A literal "\n" (backslash, n) in the TSV stays as it is; the caller splits on
// it. `values`: whose messages the row holds (NCCL's, PyTorch's, a launcher's), which decides
// the %s values; `program`: a launcher help text's own name.
enum class Values { kNccl, kTorch, kLauncher };
std::string render(const std::string& fmt, const std::string& file, Values values = Values::kNccl,
                   const std::string& program = "") {
  const bool torch = values == Values::kTorch;
  auto string_for = [&](const std::string& so_far, std::size_t next) {
    if (values == Values::kLauncher)
      return launcher_string_value(so_far, fmt.substr(next), program);
    return torch ? torch_string_value(so_far, fmt.substr(next)) : string_value(so_far, file);
  };
  std::string out;
  for (std::size_t i = 0; i < fmt.size();) {
    if (fmt.compare(i, 6, "{name}") == 0 && !torch) {
      out += call_name(file);
      i += 6;
      continue;
    }
    if (fmt.compare(i, 2, "{}") == 0) {
      out += string_for(out, i + 2);
      i += 2;
      continue;
    }
    if (fmt[i] != '%') {
      out += fmt[i++];
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out += '%';
      i += 2;
      continue;
    }
    std::size_t j = i + 1;
    while (j < fmt.size() && std::string("-+ #0").find(fmt[j]) != std::string::npos) ++j;
    while (j < fmt.size() && (std::isdigit(static_cast<unsigned char>(fmt[j])) || fmt[j] == '*'))
      ++j;
    if (j < fmt.size() && fmt[j] == '.') {
      ++j;
      while (j < fmt.size() && (std::isdigit(static_cast<unsigned char>(fmt[j])) || fmt[j] == '*'))
        ++j;
    }
    while (j < fmt.size() && std::string("hlzjtLq").find(fmt[j]) != std::string::npos) ++j;
    if (j >= fmt.size()) {
      out += fmt.substr(i);
      break;
    }
    char conv = fmt[j];
    switch (conv) {
      case 'd':
      case 'i':
      case 'u':
      case 'o': {
        std::string v = values == Values::kLauncher ? launcher_int_value(out) : "";
        out += v.empty() ? "3" : v;
        break;
      }
      case 'x':
      case 'X':
        out += "7f3a";
        break;
      case 'p':
        // Slurm's printf extensions: %ps a step id, %pJ a job id.
        if (values == Values::kLauncher && j + 1 < fmt.size() && fmt[j + 1] == 's') {
          out += "StepId=871203.0";
          ++j;
        } else if (values == Values::kLauncher && j + 1 < fmt.size() && fmt[j + 1] == 'J') {
          out += "JobId=871203";
          ++j;
        } else {
          out += "0x7f3a10";
        }
        break;
      case 's':
        out += string_for(out, j + 1);
        break;
      case 'f':
      case 'g':
      case 'e':
      case 'F':
      case 'G':
      case 'E':
        out += "1.5";
        break;
      case 'c':
        out += "x";
        break;
      case 'm':
        out += "Cannot allocate memory";
        break;
      default:
        out += fmt.substr(i, j - i + 1);
        break;
    }
    i = j + 1;
  }
  return out;
}

// The physical lines of a rendered message: the TSV writes a newline as "\n".
std::vector<std::string> physical_lines(const std::string& rendered) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t p = rendered.find("\\n", start);
    std::string piece =
        rendered.substr(start, p == std::string::npos ? std::string::npos : p - start);
    out.push_back(piece);
    if (p == std::string::npos) break;
    start = p + 2;
  }
  return out;
}

using ff::test::judge;
using ff::test::Verdict;

// "src/misc/socket.cc:123,456" -> "src/misc/socket.cc"; "x.cpp (fn)" -> "x.cpp".
std::string file_key(const std::string& file) {
  std::string k = file;
  std::size_t p = k.find_first_of(": (");
  if (p != std::string::npos) k = k.substr(0, p);
  return k.empty() ? file : k;
}

std::string basename_of(const std::string& path) {
  std::size_t p = path.rfind('/');
  return p == std::string::npos ? path : path.substr(p + 1);
}

struct Tally {
  int total = 0, recognised = 0;
};

struct Report {
  std::map<std::string, Tally> per_file;
  std::vector<std::string> unrecognised;
  Tally all;
};

void print_report(const std::string& title, const Report& rep) {
  std::cout << "\n== " << title << ": per source file (recognised/total)\n";
  for (const auto& [file, t] : rep.per_file)
    std::cout << "  " << std::left << std::setw(58) << file << std::right << std::setw(4)
              << t.recognised << "/" << std::left << std::setw(4) << t.total << std::right << " "
              << ff::test::percent(t.recognised, t.total) << "\n";
  std::cout << "\n== " << title << ": unrecognised (" << rep.unrecognised.size() << ")\n";
  for (const auto& u : rep.unrecognised) std::cout << "  " << u << "\n";
  std::cout << "\n== " << title << ": recognised " << rep.all.recognised << "/" << rep.all.total
            << " (" << ff::test::percent(rep.all.recognised, rep.all.total) << ")\n";
}

void add(Report& rep, const Row& row, const std::vector<std::string>& lines, const Verdict& v,
         bool verbose) {
  auto& t = rep.per_file[file_key(row.file)];
  ++t.total;
  ++rep.all.total;
  std::string shown;  // the first line with words (not show_help's dashed rule)
  for (const auto& l : lines)
    if (l.find_first_not_of("- ") != std::string::npos) {
      shown = l;
      break;
    }
  if (v.recognised) {
    ++t.recognised;
    ++rep.all.recognised;
    if (verbose)
      std::cout << "  ok   [" << v.winner << " " << v.role << "] " << shown.substr(0, 180) << "\n";
    return;
  }
  std::string why = v.winner.empty() ? "no rule" : v.role + " " + v.winner;
  rep.unrecognised.push_back(row.repo + " " + row.file + " [" + why + "]\n      " +
                             shown.substr(0, 220));
}

// The exception type as Python's last traceback line names it: c10's Dist*Error types are
// bound as torch.distributed.*.
std::string exception_name(const std::string& result_code) {
  if (result_code.rfind("Dist", 0) == 0) return "torch.distributed." + result_code;
  return result_code;
}

// The physical lines of a PyTorch row as its producer prints them.
std::vector<std::string> render_torch(const Row& row) {
  auto lines = physical_lines(render(row.format, row.file, Values::kTorch));
  std::string key = file_key(row.file);
  std::string base = basename_of(key);
  char severity = row.level == "FATAL" ? 'F' : row.level == "WARNING" ? 'W' : 'E';
  if (row.level == "EXC") {
    if (!row.result_code.empty()) {
      std::string name = exception_name(row.result_code);
      lines.front() = lines.front().empty() ? name : name + ": " + lines.front();
    }
  } else if (ends_with(base, ".cpp") || ends_with(base, ".hpp") || ends_with(base, ".cc")) {
    // c10's glog-style prefix as torchrun prints it for rank 0.
    lines.front() = std::string("[rank0]:[") + severity + "1203 17:20:14.123456789 " + base +
                    ":1316] " + lines.front();
  } else if (ends_with(base, ".py")) {
    // torch's logging format (torchelastic, distributed_c10d), relative path and pid.
    lines.front() =
        std::string(1, severity) + "1203 17:20:14.123000 4242 " + key + ":812] " + lines.front();
  }
  return lines;
}

bool is_torch_level(const std::string& level) {
  return level == "ERROR" || level == "FATAL" || level == "EXC" || level == "WARNING";
}

// The function the file column names ("megatron/core/rerun_state_machine.py:503
// (validate_result)" -> "validate_result"), else `otherwise`.
std::string function_of(const std::string& file, const std::string& otherwise = "<module>") {
  std::size_t open = file.find(" (");
  if (open == std::string::npos || !ends_with(file, ")")) return otherwise;
  return file.substr(open + 2, file.size() - open - 3);
}

// The line number the file column names ("src/x.cpp:123 (fn)"), else a plausible one.
std::string line_of(const std::string& file, const std::string& otherwise = "123") {
  std::size_t colon = file.find(':');
  if (colon != std::string::npos) {
    std::size_t end = file.find_first_not_of("0123456789", colon + 1);
    if (end != colon + 1) return file.substr(colon + 1, end - colon - 1);
  }
  return otherwise;
}

// The plugin's WARN prefix: NCCL's logger prints the filefunc the plugin passes
// (__PRETTY_FUNCTION__) and its line, "src/x.cpp:123 (fn)" in the file column.
std::string plugin_prefix(const Row& row) {
  std::string fn = function_of(row.file, "nccl_net_ofi_fn");
  std::string key = file_key(row.file);
  if (ends_with(key, ".cpp") || ends_with(key, ".hpp")) fn = "int " + fn + "()";
  return "node01:1234:1290 [3] " + fn + ":" + line_of(row.file, "1316") + " NCCL WARN ";
}

// DeepSpeed's, Megatron-LM's and vLLM's rows (tests/data/framework-messages.tsv).
bool is_framework_repo(const std::string& repo) {
  return repo.rfind("deepspeedai/DeepSpeed", 0) == 0 || repo.rfind("NVIDIA/Megatron-LM", 0) == 0 ||
         repo.rfind("vllm-project/vllm", 0) == 0;
}

// The physical lines of a framework row as its producer prints them: exceptions as Python's
// last traceback line (as render_torch does); DeepSpeed's logger ("[2025-01-01 00:00:00,000]
// [ERROR] [launch.py:341:sigkill_handler] "), vLLM's ("ERROR 01-01 00:00:00 [file.py:123] "),
// Megatron's (Python logging's default "WARNING:megatron.core.x:"; print_rank_0 lines, level
// PRINT, bare).
std::vector<std::string> render_framework(const Row& row) {
  if (row.level == "EXC") return render_torch(row);
  auto lines = physical_lines(render(row.format, row.file, Values::kTorch));
  std::string key = file_key(row.file);
  std::string base = basename_of(key);
  if (row.repo.rfind("deepspeedai/DeepSpeed", 0) == 0) {
    lines.front() = "[2025-01-01 00:00:00,000] [" + row.level + "] [" + base + ":" +
                    line_of(row.file) + ":" + function_of(row.file) + "] " + lines.front();
  } else if (row.repo.rfind("vllm-project/vllm", 0) == 0) {
    lines.front() =
        row.level + " 01-01 00:00:00 [" + base + ":" + line_of(row.file) + "] " + lines.front();
  } else if (row.level != "PRINT") {
    std::string logger = key.size() > 3 ? key.substr(0, key.size() - 3) : key;  // drop ".py"
    std::replace(logger.begin(), logger.end(), '/', '.');
    lines.front() = row.level + ":" + logger + ":" + lines.front();
  }
  return lines;
}

// Open MPI's, PRRTE's, Slurm's and UCX's rows (tests/data/launcher-messages.tsv).
bool is_launcher_repo(const std::string& repo) {
  for (const char* r : {"open-mpi/ompi", "openpmix/prrte", "SchedMD/slurm", "openucx/ucx"})
    if (repo.rfind(r, 0) == 0) return true;
  return false;
}

// The physical lines of a launcher's or runtime's row as its producer prints them:
//   - level HELP (Open MPI / PRRTE show_help topics): the topic's lines between the dashed
//     rules show_help prints, its leading %s the launcher's name (mpirun, prterun);
//   - levels "srun:error", "slurmstepd:info"...: Slurm's log prefix, the program's name and,
//     but for info and verbose, the level ("srun: error: ", "slurmstepd: error: ");
//   - levels FATAL, ERROR, WARN, DIAG (UCX's ucs_log): UCX's default log format
//     ("[1700000000.123456] [node01:12345:0]      ib_mlx5_log.c:190  UCX  ERROR ");
//   - level fatal_error (ucs_log_fatal_error, UCX's signal handler): "[node01:12345:0:12345] ".
std::vector<std::string> render_launcher(const Row& row) {
  std::string program = row.repo.rfind("openpmix/prrte", 0) == 0 ? "prterun" : "mpirun";
  auto lines = physical_lines(render(row.format, row.file, Values::kLauncher, program));
  std::size_t colon = row.level.find(':');
  if (row.level == "HELP") {
    const std::string rule(74, '-');
    lines.insert(lines.begin(), rule);
    lines.push_back(rule);
  } else if (colon != std::string::npos) {
    std::string level = row.level.substr(colon + 1);
    std::string prefix = row.level.substr(0, colon) + ": ";
    if (level != "info" && level != "verbose") prefix += level + ": ";
    lines.front() = prefix + lines.front();
  } else if (row.level == "fatal_error") {
    lines.front() = "[node01:12345:0:12345] " + lines.front();
  } else {
    std::string key = file_key(row.file);
    std::string base = basename_of(key);
    std::string line = line_of(row.file, "190");
    std::ostringstream prefix;
    prefix << "[1700000000.123456] [node01:12345:0] " << std::setw(17) << base << ":" << std::left
           << std::setw(4) << line << " UCX  " << std::setw(5) << row.level << " ";
    lines.front() = prefix.str() + lines.front();
  }
  return lines;
}

// The report a row belongs to, by the repository its source_repo names.
std::string subject_of(const Row& row) {
  if (is_launcher_repo(row.repo)) return "launcher";
  if (row.repo.rfind("aws/aws-ofi-nccl", 0) == 0) return "ofi";
  if (row.repo.rfind("ROCm/rccl", 0) == 0) return "rccl";
  if (is_framework_repo(row.repo)) return "framework";
  return is_torch_level(row.level) ? "pytorch" : "nccl";
}

// Reads one table into the reports, keyed by subject.
void measure(const std::string& tsv, const Catalog& catalog, std::map<std::string, Report>& reports,
             bool verbose) {
  const std::string nccl_prefix = "node01:1234:1290 [3] NCCL WARN ";
  for (const auto& f : ff::test::tsv_records(tsv)) {
    if (f.size() < 4) continue;
    Row row{f[0], f[1], f[2], f[3], f.size() > 4 ? f[4] : std::string()};
    std::string subject = subject_of(row);
    if (subject == "framework" || subject == "launcher") {
      auto lines = subject == "framework" ? render_framework(row) : render_launcher(row);
      add(reports[subject], row, lines, judge(catalog, lines), verbose);
    } else if (row.level == "WARN") {
      auto lines = physical_lines(render(row.format, row.file));
      lines.front() = (subject == "ofi" ? plugin_prefix(row) : nccl_prefix) + lines.front();
      add(reports[subject], row, lines, judge(catalog, lines), verbose);
    } else if (is_torch_level(row.level)) {
      auto lines = render_torch(row);
      add(reports[subject], row, lines, judge(catalog, lines), verbose);
    }
  }
}

int usage() {
  std::cerr << "usage: ff_coverage_test [--min F] "
               "[--subject nccl|pytorch|ofi|rccl|framework|launcher] [--verbose] "
               "[--no-builtin-rules] [--rules DIR]... MESSAGES_TSV...\n"
               "  F is a fraction in [0, 1] (default 0.90); the subject's rows decide\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  double min_share = 0.90;
  bool verbose = false;
  std::string subject = "nccl";
  std::vector<std::string> tsvs;
  std::vector<std::string> rule_dirs;
  bool builtin = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--min" || a.rfind("--min=", 0) == 0) {
      const char* v = ff::test::flag_value(argc, argv, i, "--min");
      if (!v || !ff::test::parse_fraction(v, min_share)) return usage();
    } else if (a == "--subject" && i + 1 < argc) {
      subject = argv[++i];
      if (subject != "nccl" && subject != "pytorch" && subject != "ofi" && subject != "rccl" &&
          subject != "framework" && subject != "launcher")
        return usage();
    } else if (a == "--verbose") {
      verbose = true;
    } else if (a == "--no-builtin-rules") {
      builtin = false;
    } else if (a == "--rules" && i + 1 < argc) {
      rule_dirs.push_back(argv[++i]);
    } else if (!a.empty() && a[0] == '-') {
      return usage();
    } else {
      if (!std::filesystem::is_regular_file(a)) return usage();
      tsvs.push_back(a);
    }
  }
  if (tsvs.empty()) return usage();

  auto loaded = ff::cli::load_catalog(rule_dirs, builtin);
  for (const auto& p : loaded.problems) std::cerr << "rule problem: " << p.to_string() << "\n";
  const Catalog& catalog = loaded.catalog;

  std::map<std::string, Report> reports;
  for (const auto& tsv : tsvs) measure(tsv, catalog, reports, verbose);

  struct Subject {
    const char* key;
    const char* title;
    const char* test;
  };
  const Subject subjects[] = {
      {"pytorch", "PyTorch ERROR/FATAL/WARNING/EXC rows", "torch_message_coverage"},
      {"ofi", "aws-ofi-nccl NET/OFI WARN rows", "ofi_message_coverage"},
      {"rccl", "RCCL's own WARN rows", "rccl_message_coverage"},
      {"framework", "DeepSpeed, Megatron-LM and vLLM rows", "framework_message_coverage"},
      {"launcher", "Open MPI / PRRTE / Slurm / UCX rows", "launcher_message_coverage"},
      {"nccl", "NCCL WARN rows", "nccl_warn_coverage"},
  };
  const char* name = "";
  for (const auto& s : subjects) {
    bool deciding = subject == s.key;
    if (deciding) name = s.test;
    if (deciding || reports[s.key].all.total > 0)
      print_report(std::string(s.title) + (deciding ? "" : " (reported only)"), reports[s.key]);
  }
  const Report& decides = reports[subject];
  double share =
      decides.all.total ? static_cast<double>(decides.all.recognised) / decides.all.total : 0.0;
  bool pass = decides.all.total > 0 && share + 1e-9 >= min_share;
  std::cout << "threshold " << min_share * 100 << "%: " << name
            << (pass ? ": PASS" : ": FAIL (below threshold)") << "\n";
  return pass ? 0 : 1;
}
