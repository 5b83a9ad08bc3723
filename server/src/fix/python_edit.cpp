#include <re2/re2.h>

#include <algorithm>
#include <functional>

#include "analysis/latin1_options.hpp"
#include "fix/generators.hpp"

namespace ff::fix {

namespace {

// RE2, as everywhere else: a launch file is input like any other, and std::regex recurses
// once per character, so one long line in a script (a 100 KB quoted value) overflowed the
// stack.
using analysis::latin1_options;

re2::StringPiece piece(std::string_view s) {
  return {s.data(), s.size()};
}

std::string py_str(std::string_view v) {
  std::string s = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') s += '\\';
    s += c;
  }
  return s + "\"";
}

// The line of the first init_process_group( call, or npos.
std::size_t init_line(const std::vector<Line>& lines) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    auto t = trim(lines[i].text);
    if (t.empty() || t[0] == '#') continue;
    auto p = t.find("init_process_group(");
    if (p == std::string_view::npos || t.substr(0, 4) == "def ") continue;
    auto hash = t.find('#');
    if (hash != std::string_view::npos && hash < p) continue;
    return i;
  }
  return std::string::npos;
}

bool has_import_os(const std::vector<Line>& lines) {
  static const RE2 re(R"(import\s+(.*,\s*)?os\s*(,.*)?(#.*)?)", latin1_options());
  for (const auto& l : lines)
    if (leading_space(l.text).empty() && RE2::FullMatch(piece(trim(l.text)), re)) return true;
  return false;
}

// Where `import os` goes: before the first top-level import that is not __future__, else
// after the shebang/coding comments and the module docstring.
std::size_t import_pos(std::string_view text, const std::vector<Line>& lines) {
  std::size_t after_future = std::string::npos;
  for (const auto& l : lines) {
    if (!leading_space(l.text).empty()) continue;
    auto t = l.text;
    if (t.substr(0, 23) == "from __future__ import ")
      after_future = l.next;
    else if ((t.substr(0, 7) == "import " || t.substr(0, 5) == "from "))
      return after_future == std::string::npos ? l.begin : after_future;
  }
  if (after_future != std::string::npos) return after_future;
  std::size_t i = 0;
  while (i < lines.size() && (trim(lines[i].text).empty() || trim(lines[i].text)[0] == '#')) ++i;
  if (i < lines.size()) {
    auto t = trim(lines[i].text);
    for (const char* q : {"\"\"\"", "'''"}) {
      if (t.substr(0, 3) != q) continue;
      std::size_t j = i;
      bool one_line = t.size() >= 6 && t.substr(t.size() - 3) == q;
      if (!one_line)
        for (j = i + 1; j < lines.size() && lines[j].text.find(q) == std::string_view::npos; ++j) {
        }
      return j < lines.size() ? lines[j].next : text.size();
    }
  }
  return i < lines.size() ? lines[i].begin : text.size();
}

// Inserts (or replaces) the block with id `id` before init_process_group(.
GenResult python_block(
    std::string_view text, std::string_view id,
    const std::function<std::string(const std::string& ind, const std::string& unit)>& body) {
  GenResult res;
  const std::string eol = line_ending(text);
  auto lines = split_lines(text);
  std::size_t at = init_line(lines);
  res.found_target = at != std::string::npos;
  if (!res.found_target) return res;
  std::string unit = "    ";
  for (const auto& l : lines) {
    auto ls = leading_space(l.text);
    if (!ls.empty() && !trim(l.text).empty()) {
      if (ls[0] == '\t') unit = "\t";
      break;
    }
  }
  BlockRange br;
  if (find_block(text, id, br)) {
    std::string ind(leading_space(lines[br.first_line].text));
    std::string blk = ind + begin_marker(id) + "\n" + body(ind, unit) + ind + end_marker(id) + "\n";
    add_edit(res.edits, text, br.begin, br.end, with_eol(blk, eol));
  } else {
    std::string ind(leading_space(lines[at].text));
    std::string blk = ind + begin_marker(id) + "\n" + body(ind, unit) + ind + end_marker(id) + "\n";
    res.edits.push_back({lines[at].begin, lines[at].begin, with_eol(blk, eol)});
  }
  if (!has_import_os(lines)) {
    std::size_t p = import_pos(text, lines);
    std::string imp = "import os\n";
    if (p == text.size() && !text.empty() && text.back() != '\n') imp = "\n" + imp;
    res.edits.push_back({p, p, with_eol(imp, eol)});
  }
  sort_edits(res.edits);
  return res;
}

}  // namespace

GenResult python_binding_edits(std::string_view text, const BindingTable& b) {
  if (!b.usable()) return {};
  auto res = python_block(text, kHcaBlock, [&](const std::string& ind, const std::string& unit) {
    std::string s =
        ind + "# One NIC per local rank, exact match with port; from " + b.source + ".\n";
    s += ind + "# Every local rank started by torchrun shares one environment, so pick it here.\n";
    s += ind + "_ff_hca = {";
    bool first = true;
    for (const auto& r : b.ranks) {
      if (r.hca.empty()) continue;
      if (!first) s += ", ";
      s += std::to_string(r.local_rank) + ": " + py_str(r.hca);
      first = false;
    }
    s += "}.get(int(os.environ.get(\"LOCAL_RANK\", \"0\")))\n";
    s += ind + "if _ff_hca:\n";
    s += ind + unit + "os.environ[\"NCCL_IB_HCA\"] = _ff_hca\n";
    return s;
  });
  // Other assignments of NCCL_IB_HCA would fight the block.
  static const RE2 assign(
      R"(^\s*os\.environ(\[\s*['"]NCCL_IB_HCA['"]\s*\]\s*=|\.setdefault\(\s*['"]NCCL_IB_HCA['"]))",
      latin1_options());
  auto lines = split_lines(text);
  const auto blocks = generated_blocks(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i].text;
    if (!RE2::PartialMatch(piece(l), assign) || in_generated_block(blocks, i)) continue;
    std::string ind(leading_space(l));
    res.edits.push_back({lines[i].begin, lines[i].end,
                         ind + "pass  # firstfault: the NCCL_IB_HCA block sets this per rank: " +
                             std::string(trim(l))});
  }
  sort_edits(res.edits);
  return res;
}

GenResult python_env_edits(std::string_view text, const EnvList& env) {
  if (env.empty()) return {};
  // Merge with the variables the block already sets.
  EnvList vars;
  BlockRange br;
  if (find_block(text, kEnvBlock, br)) {
    // The two forms the block is written in: os.environ["V"] = "x" and
    // os.environ.setdefault("V", "x") (kDefault).
    static const RE2 kv(
        R"re(os\.environ(?:\["([A-Za-z_][A-Za-z0-9_]*)"\] = |\.setdefault\("([A-Za-z_][A-Za-z0-9_]*)", )"((?:[^"\\]|\\.)*)")re",
        latin1_options());
    re2::StringPiece blk = piece(text.substr(br.begin, br.end - br.begin));
    std::string name, default_name, raw;
    while (RE2::FindAndConsume(&blk, kv, &name, &default_name, &raw)) {
      std::string v;
      for (std::size_t i = 0; i < raw.size(); ++i)
        v += raw[i] == '\\' && i + 1 < raw.size() ? raw[++i] : raw[i];
      if (name.empty())
        vars.push_back({default_name, v, EnvKind::kDefault});
      else
        vars.push_back({name, v});
    }
  }
  merge_env(vars, env);
  return python_block(text, kEnvBlock, [&](const std::string& ind, const std::string&) {
    std::string s = ind + "# Set by firstfault analyze --fix, before NCCL reads them.\n";
    for (const auto& v : vars)
      s += ind + (v.kind == EnvKind::kDefault
                      ? "os.environ.setdefault(\"" + v.name + "\", " + py_str(v.value) + ")\n"
                      : "os.environ[\"" + v.name + "\"] = " + py_str(v.value) + "\n");
    return s;
  });
}

}  // namespace ff::fix
