// How much of what NCCL can warn about the built-in catalog recognises.
//
//   ff_coverage_test [--min F] [--verbose] MESSAGES_TSV
//
// MESSAGES_TSV is tests/data/nccl-messages.tsv (format strings from NCCL's and PyTorch's
// sources; see tests/data/README.md). Every row whose level is WARN is rendered with
// plausible values (%d -> 3, %x -> 7f3a, %p -> 0x7f3a10, %s -> a token that fits the text
// around it, {name} -> a call name, %% -> %) behind a real NCCL prefix and matched against
// the catalog. The rule that speaks for the line is the hit with the highest
// analysis::line_precedence (as in the scan). A message is recognised when that rule's role
// is cause, symptom, finding or context (benign listings are context); a fallback rule (a
// generic error-level pattern) or no hit does not count. A message whose format string holds
// "\n" is printed as several lines, the first behind the prefix; it is recognised when one
// of them is.
//
// Prints the counts per source file, the unrecognised messages and the total, and fails when
// the WARN share recognised is below --min (a fraction; default 0.90). The PyTorch rows
// (levels ERROR, FATAL, EXC) are rendered the same way (glog prefix for C++ sources, bare
// text for exception messages) and reported, but do not decide the result.
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

namespace {

using ff::analysis::Catalog;

struct Row {
  std::string repo, file, level, format;
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

// Renders a printf-style format string with plausible values. A literal "\n" (backslash, n)
// in the TSV stays as it is; the caller splits on it.
std::string render(const std::string& fmt, const std::string& file) {
  std::string out;
  for (std::size_t i = 0; i < fmt.size();) {
    if (fmt.compare(i, 6, "{name}") == 0) {
      out += call_name(file);
      i += 6;
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
      case 'o':
        out += "3";
        break;
      case 'x':
      case 'X':
        out += "7f3a";
        break;
      case 'p':
        out += "0x7f3a10";
        break;
      case 's':
        out += string_value(out, file);
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
  std::string shown = lines.empty() ? std::string() : lines.front();
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

using ff::test::read_file;

int usage() {
  std::cerr << "usage: ff_coverage_test [--min F] [--verbose] MESSAGES_TSV\n"
               "  F is a fraction in [0, 1] (default 0.90)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  double min_share = 0.90;
  bool verbose = false;
  std::string tsv;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    const char* v = nullptr;
    if (a.rfind("--min=", 0) == 0)
      v = argv[i] + 6;
    else if (a == "--min" && i + 1 < argc)
      v = argv[++i];
    else if (a == "--min")
      return usage();
    if (v) {
      char* end = nullptr;
      min_share = std::strtod(v, &end);
      if (end == v || *end != '\0' || !(min_share >= 0.0 && min_share <= 1.0)) return usage();
    } else if (a == "--verbose") {
      verbose = true;
    } else if (!a.empty() && a[0] == '-') {
      return usage();
    } else if (tsv.empty()) {
      tsv = a;
    } else {
      return usage();
    }
  }
  if (tsv.empty() || !std::filesystem::is_regular_file(tsv)) return usage();

  auto loaded = ff::cli::load_catalog({});
  for (const auto& p : loaded.problems) std::cerr << "rule problem: " << p.to_string() << "\n";
  const Catalog& catalog = loaded.catalog;

  std::istringstream in(read_file(tsv));
  std::string line;
  bool header = true;
  Report nccl, torch;
  const std::string nccl_prefix = "node01:1234:1290 [3] NCCL WARN ";
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (header) {
      header = false;
      continue;
    }
    auto f = split(line, '\t');
    if (f.size() < 4) continue;
    Row row{f[0], f[1], f[2], f[3]};
    if (row.level == "WARN") {
      auto lines = physical_lines(render(row.format, row.file));
      lines.front() = nccl_prefix + lines.front();
      add(nccl, row, lines, judge(catalog, lines), verbose);
    } else if (row.level == "ERROR" || row.level == "FATAL" || row.level == "EXC") {
      auto lines = physical_lines(render(row.format, row.file));
      std::string key = file_key(row.file);
      std::string base = basename_of(key);
      if ((row.level == "ERROR" || row.level == "FATAL") &&
          (ends_with(base, ".cpp") || ends_with(base, ".hpp") || ends_with(base, ".cc"))) {
        // c10's glog-style prefix as torchrun prints it for rank 0.
        std::string prefix = std::string("[rank0]:[") + (row.level == "FATAL" ? "F" : "E") +
                             "1203 17:20:14.123456789 " + base + ":1316] ";
        lines.front() = prefix + lines.front();
      }
      add(torch, row, lines, judge(catalog, lines), verbose);
    }
  }

  print_report("PyTorch ERROR/FATAL/EXC rows (reported only)", torch);
  print_report("NCCL WARN rows", nccl);
  double share = nccl.all.total ? static_cast<double>(nccl.all.recognised) / nccl.all.total : 0.0;
  bool pass = nccl.all.total > 0 && share + 1e-9 >= min_share;
  std::cout << "threshold " << min_share * 100 << "%: "
            << (pass ? "nccl_warn_coverage: PASS" : "nccl_warn_coverage: FAIL (below threshold)")
            << "\n";
  return pass ? 0 : 1;
}
