// Metamorphic test over the corpus: a log keeps its diagnosis however it reaches us. Every
// case of a corpus directory is diagnosed as it is (with the job's outcome, as
// ff_corpus_test gives it), then after each transformation below, which launchers, log
// collectors, terminals and forums apply to real logs; the top diagnosis's category and
// initiating line must stay the same. The transformations are written from the tools' own
// output formats (srun --label, mpirun --tag-output, horovodrun, torchx, kubectl logs --timestamps,
// docker compose, journald), not from anything firstfault reads.
//
//   ff_metamorphic_test [--only NAME] [--min F] [--healthy-run LOG] [--healthy] CORPUS_DIR
//     Prints, per transformation, how many cases kept their diagnosis and the ones that did
//     not; fails when the share kept by any transformation is below F (default 1.0).
//     --healthy-run: the healthy log the "embedded" transformation surrounds each case with
//     (5,000 lines before and after, repeated as needed).
//     --healthy: CORPUS_DIR holds logs of jobs that worked (<case>/log.txt, no expected.json,
//     as tests/healthy): each is diagnosed without an outcome, and must stay without a
//     diagnosis after every transformation (a paste must not make a false alarm).
//     --write DIR: also writes each transformed log that changed its diagnosis to
//     DIR/<case>.<transformation>.txt, to see what the analysis was given.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/analyze.hpp"
#include "analysis/line_source.hpp"
#include "cli/rule_set.hpp"
#include "corpus_case.hpp"
#include "percent.hpp"
#include "test_args.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using ff::test::read_file;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    pos = nl + 1;
  }
  return lines;
}

std::string join(const std::vector<std::string>& lines, const char* eol = "\n") {
  std::string out;
  for (const auto& l : lines) {
    out += l;
    out += eol;
  }
  return out;
}

// The same line, or one holding the other (a carried line holds its prefix; a pasted line
// may have lost one); two empty lines (no diagnosis) are the same.
bool same_line(const std::string& a, const std::string& b) {
  if (ff::test::trim(a).empty() || ff::test::trim(b).empty())
    return ff::test::trim(a).empty() && ff::test::trim(b).empty();
  return ff::test::same_line(a, b);
}

// The task label a launcher would print for each line: the process that wrote it. A line
// that names its rank gets that rank; one that names only a host and pid gets a label of its
// own; a line that names no writer (a traceback's middle) continues the line before it, as
// its writer's output does.
std::vector<int> task_labels(const std::vector<std::string>& lines) {
  std::vector<int> labels;
  std::map<std::string, int> others;
  int last = 0;
  for (const auto& l : lines) {
    auto src = ff::analysis::parse_line_source(l);
    if (src.rank) {
      last = *src.rank;
    } else if (!src.host.empty() || src.pid) {
      std::string key = src.host + ":" + (src.pid ? std::to_string(*src.pid) : "");
      last = others.emplace(key, 100000 + static_cast<int>(others.size())).first->second;
    }
    labels.push_back(last);
  }
  return labels;
}

// Cuts every line longer than `width` into rows of `width` bytes, as a terminal does. With
// `padded`, every row is filled with spaces to the width, as a copy of a terminal's screen
// (tmux, screen, a console's selection) keeps the blanks after each line's end.
std::string fold(const std::vector<std::string>& lines, std::size_t width, bool padded = false) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    for (std::size_t i = 0; i < l.size() || i == 0; i += width) {
      out.push_back(l.substr(i, width));
      if (padded) out.back().resize(width, ' ');
      if (l.empty()) break;
    }
  }
  return join(out);
}

using Transform = std::function<std::string(const std::string&)>;

struct Named {
  std::string name;
  Transform apply;
  // What the transformation puts in front of each line (a regex), taken out of the
  // initiating line before it is compared: a line that was wrapped before it was carried
  // holds the carrier's prefix again where its pieces were joined.
  std::string inserted;
};

std::vector<Named> transformations(const std::vector<std::string>& healthy) {
  std::vector<Named> t;
  // A launcher's tag before every line, naming the task that printed it (task_labels): the
  // tag is `before` + the task's number + `after`.
  const auto tagged = [](std::string before, std::string after) -> Transform {
    return [before, after](const std::string& text) {
      auto lines = split_lines(text);
      auto labels = task_labels(lines);
      for (std::size_t i = 0; i < lines.size(); ++i)
        lines[i] = before + std::to_string(labels[i]) + after + lines[i];
      return join(lines);
    };
  };
  t.push_back({"srun --label", tagged("", ": "), "\\d+: "});
  t.push_back({"mpirun --tag-output", tagged("[1,", "]<stderr>:"), "\\[1,\\d+\\]<stderr>:"});
  // horovodrun's own tag (horovod/runner/common/util/safe_shell_exec.py:
  // "{time}[{rank}]<{stream}>:" with time.asctime() under --prefix-output-with-timestamp).
  t.push_back({"horovodrun --prefix-output-with-timestamp",
               tagged("Tue Jun  1 12:25:59 2021[", "]<stderr>:"),
               "Tue Jun  1 12:25:59 2021\\[\\d+\\]<stderr>:"});
  // TorchX's "{role}/{replica} " (torchx/cli/cmd_log.py) before torchrun's "[defaultN]:"
  // (torchx's dist.ddp runs torchrun with --tee): NeMo-Run's local executor writes this.
  t.push_back({"torchx log over torchrun --tee", tagged("trainer/0 [default", "]:"),
               "trainer/0 \\[default\\d+\\]:"});
  t.push_back({"kubectl logs --timestamps",
               [](const std::string& text) {
                 auto lines = split_lines(text);
                 for (std::size_t i = 0; i < lines.size(); ++i) {
                   char stamp[64];
                   std::snprintf(stamp, sizeof stamp, "2025-03-04T05:%02zu:%02zu.%09zuZ ",
                                 (i / 60000) % 60, (i / 1000) % 60, (i % 1000) * 1000000);
                   lines[i] = stamp + lines[i];
                 }
                 return join(lines);
               },
               "2025-03-04T\\S+Z "});
  t.push_back({"docker compose",
               [](const std::string& text) {
                 auto lines = split_lines(text);
                 for (auto& l : lines) l = "trainer-1  | " + l;
                 return join(lines);
               },
               "trainer-1  \\| "});
  t.push_back({"journald",
               [](const std::string& text) {
                 auto lines = split_lines(text);
                 for (auto& l : lines) l = "Mar 04 05:06:07 gpu-node-17 python3[48213]: " + l;
                 return join(lines);
               },
               "Mar 04 05:06:07 gpu-node-17 python3\\[48213\\]: "});
  t.push_back({"CRLF", [](const std::string& text) { return join(split_lines(text), "\r\n"); }});
  t.push_back({"ANSI colour", [](const std::string& text) {
                 auto lines = split_lines(text);
                 for (auto& l : lines) l = "\x1b[1;31m" + l + "\x1b[0m";
                 return join(lines);
               }});
  // rsyslog's traditional file format (the day padded with a space) with the colour's ESC
  // bytes written as "#033", as rsyslog stores control bytes it receives.
  t.push_back({"syslog, colour escaped as #033",
               [](const std::string& text) {
                 auto lines = split_lines(text);
                 for (auto& l : lines)
                   l = "Mar  4 05:06:07 gpu-node-17 python3[48213]: #033[1;31m" + l + "#033[0m";
                 return join(lines);
               },
               "Mar  4 05:06:07 gpu-node-17 python3\\[48213\\]: "});
  for (std::size_t w : {80, 120, 160})
    t.push_back({"hard wrap at " + std::to_string(w),
                 [w](const std::string& text) { return fold(split_lines(text), w); }});
  // tqdm redraws its bar with "\r" and ends it only when it closes; a paste that lost the
  // "\r" has the bar in front of the line written next (tqdm/std.py format_meter).
  t.push_back({"tqdm bar glued before each line",
               [](const std::string& text) {
                 auto lines = split_lines(text);
                 for (auto& l : lines)
                   if (!l.empty())
                     l = "Tokenizing:  92%|#########2| 3289/3591 [29:58<02:45, 1.83it/s]" + l;
                 return join(lines);
               },
               "Tokenizing:  92%\\|#########2\\| 3289/3591 \\[29:58<02:45, 1\\.83it/s\\]"});
  t.push_back({"terminal screen copy at 160 (rows padded)",
               [](const std::string& text) { return fold(split_lines(text), 160, true); }});
  t.push_back({"Markdown quote", [](const std::string& text) {
                 auto lines = split_lines(text);
                 for (auto& l : lines) l = "> " + l;
                 return join(lines);
               }});
  t.push_back({"four-space indent", [](const std::string& text) {
                 auto lines = split_lines(text);
                 for (auto& l : lines) l = "    " + l;
                 return join(lines);
               }});
  // A test harness or a CI step that prints the job's output indented (two spaces here).
  t.push_back({"two-space indent (harness)", [](const std::string& text) {
                 auto lines = split_lines(text);
                 for (auto& l : lines)
                   if (!l.empty()) l = "  " + l;
                 return join(lines);
               }});
  // Copied from a rendered page or a chat: every space a non-breaking one (U+00A0).
  t.push_back({"non-breaking spaces (pasted from a page)", [](const std::string& text) {
                 std::string out;
                 out.reserve(text.size() * 2);
                 for (char c : text) out += c == ' ' ? std::string("\xC2\xA0") : std::string(1, c);
                 return out;
               }});
  t.push_back({"inside a healthy run", [healthy](const std::string& text) {
                 std::vector<std::string> out;
                 for (std::size_t i = 0; i < 5000 && !healthy.empty(); ++i)
                   out.push_back(healthy[i % healthy.size()]);
                 for (auto& l : split_lines(text)) out.push_back(std::move(l));
                 for (std::size_t i = 0; i < 5000 && !healthy.empty(); ++i)
                   out.push_back(healthy[(i + 5000) % healthy.size()]);
                 return join(out);
               }});
  return t;
}

struct Verdict {
  std::string category = "none";
  std::string line;
};

Verdict diagnose(const ff::analysis::Catalog& catalog, const std::string& text,
                 const ff::analysis::JobOutcome& outcome) {
  ff::analysis::LogInput in{"log.txt", text};
  auto a = ff::analysis::analyze(catalog, std::span(&in, 1), outcome);
  Verdict v;
  if (!a.diagnoses.empty()) {
    v.category = a.diagnoses.front().category;
    v.line = a.events[a.diagnoses.front().initiating].text;
  }
  return v;
}

// DIR/<case>.<transformation>.txt, the transformation's name made a file name.
void write_transformed(const fs::path& dir, const std::string& name, const std::string& how,
                       const std::string& text) {
  std::string file = name + ".";
  for (char ch : how) file += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '-';
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::ofstream out(dir / (file + ".txt"), std::ios::binary);
  out << text;
  if (!out) std::cerr << "ff_metamorphic_test: cannot write " << (dir / file).string() << "\n";
}

int usage() {
  std::cerr << "usage: ff_metamorphic_test [--only NAME] [--min F] [--healthy-run LOG] "
               "[--write DIR] CORPUS_DIR\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, only, healthy_path, write_dir;
  bool healthy_cases = false;
  double min = 1.0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else if (a == "--min" || a.rfind("--min=", 0) == 0) {
      const char* v = ff::test::flag_value(argc, argv, i, "--min");
      if (!v || !ff::test::parse_fraction(v, min)) return usage();
    } else if (a == "--healthy-run" && i + 1 < argc) {
      healthy_path = argv[++i];
    } else if (a == "--healthy") {
      healthy_cases = true;
    } else if (a == "--write" && i + 1 < argc) {
      write_dir = argv[++i];
    } else if (!a.empty() && a[0] != '-' && dir.empty()) {
      dir = a;
    } else {
      return usage();
    }
  }
  if (dir.empty() || !fs::is_directory(dir)) return usage();
  std::vector<std::string> healthy;
  if (!healthy_path.empty()) {
    if (!fs::is_regular_file(healthy_path)) {
      std::cerr << "ff_metamorphic_test: " << healthy_path << ": not a file\n";
      return 2;
    }
    healthy = split_lines(read_file(healthy_path));
  }
  auto loaded = ff::cli::load_catalog({});
  for (const auto& p : loaded.problems) std::cerr << "rule problem: " << p.to_string() << "\n";

  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && fs::exists(e.path() / (healthy_cases ? "log.txt" : "expected.json")))
      cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());

  auto all = transformations(healthy);
  std::vector<Named> chosen;
  for (auto& t : all)
    if ((only.empty() || t.name == only) && (t.name != "inside a healthy run" || !healthy.empty()))
      chosen.push_back(std::move(t));
  if (chosen.empty()) {
    std::cerr << "ff_metamorphic_test: no transformation named '" << only << "'\n";
    return 2;
  }
  std::map<std::string, std::vector<std::string>> changed;
  for (const auto& c : cases) {
    ff::analysis::JobOutcome outcome;
    if (!healthy_cases)
      outcome = ff::test::case_outcome(json::parse(read_file(c / "expected.json")));
    std::string log = read_file(c / "log.txt");
    Verdict base = diagnose(loaded.catalog, log, outcome);
    // A healthy log has no diagnosis to keep: one it has already is a false alarm.
    if (healthy_cases && base.category != "none") {
      for (const auto& t : chosen)
        changed[t.name].push_back(c.filename().string() + ": a diagnosis before any change (" +
                                  base.category + ")");
      continue;
    }
    for (const auto& t : chosen) {
      const std::string transformed = t.apply(log);
      Verdict v = diagnose(loaded.catalog, transformed, outcome);
      bool kept = v.category == base.category && same_line(v.line, base.line);
      if (!kept && v.category == base.category && !t.inserted.empty()) {
        std::regex anywhere(t.inserted), at_start("^(?:" + t.inserted + ")");
        kept = same_line(std::regex_replace(v.line, at_start, ""), base.line) ||
               same_line(std::regex_replace(v.line, anywhere, ""), base.line);
      }
      if (kept) continue;
      if (!write_dir.empty())
        write_transformed(write_dir, c.filename().string(), t.name, transformed);
      changed[t.name].push_back(
          c.filename().string() + ": " + base.category + " -> " + v.category +
          (v.category == base.category ? " (another line: " + v.line.substr(0, 120) + ")" : ""));
    }
  }
  const int n = static_cast<int>(cases.size());
  bool pass = n > 0;
  for (const auto& t : chosen) {
    const auto& bad = changed[t.name];
    int kept = n - static_cast<int>(bad.size());
    bool ok = n > 0 && kept >= min * n - 1e-9;
    pass = pass && ok;
    std::cout << (ok ? "ok   " : "FAIL ") << t.name << ": " << kept << "/" << n << " kept ("
              << ff::test::percent(kept, n) << ")\n";
    for (const auto& b : bad) std::cout << "       " << b << "\n";
  }
  std::cout << (pass ? "metamorphic: PASS" : "metamorphic: FAIL") << "\n";
  return pass ? 0 : 1;
}
