#include <algorithm>
#include <map>
#include <set>

#include "fix/generators.hpp"
#include "fix/shell_parse.hpp"
#include "topology/binding.hpp"

namespace ff::fix {

bool BindingTable::has_numa() const {
  return std::any_of(ranks.begin(), ranks.end(), [](const RankHca& r) { return r.numa >= 0; });
}
bool BindingTable::usable() const {
  return std::any_of(ranks.begin(), ranks.end(), [](const RankHca& r) { return !r.hca.empty(); });
}

BindingTable binding_table(const topology::Recommendation& r, const std::string& source) {
  BindingTable b;
  b.source = source;
  std::vector<std::string> hcas, ifs;
  for (const auto& rb : r.ranks) {
    RankHca e;
    e.local_rank = rb.local_rank;
    e.hca = rb.nccl_ib_hca;
    if (e.hca.empty() && !rb.hca.empty()) e.hca = "=" + rb.hca + ":" + std::to_string(rb.port);
    e.numa = rb.numa_node;
    b.ranks.push_back(e);
    if (!rb.hca.empty()) {
      std::string item = rb.hca + ":" + std::to_string(rb.port);
      if (std::find(hcas.begin(), hcas.end(), item) == hcas.end()) hcas.push_back(item);
    }
    if (!rb.socket_ifname.empty() &&
        std::find(ifs.begin(), ifs.end(), rb.socket_ifname) == ifs.end())
      ifs.push_back(rb.socket_ifname);
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "=" : ",") + x;
    return s;
  };
  b.node_hca = join(hcas);
  b.socket_ifname = join(ifs);
  return b;
}

const char* to_string(FileKind k) {
  switch (k) {
    case FileKind::Shell:
      return "shell";
    case FileKind::Python:
      return "python";
    case FileKind::Compose:
      return "compose";
    case FileKind::Kubernetes:
      return "kubernetes";
    case FileKind::Unknown:
      return "unknown";
  }
  return "?";
}

namespace {

bool ends_with(std::string_view s, std::string_view suf) {
  return s.size() >= suf.size() && s.substr(s.size() - suf.size()) == suf;
}

bool spawns_ranks(Launcher k) {
  return k == Launcher::Srun || k == Launcher::Mpirun || k == Launcher::Torchrun ||
         k == Launcher::Deepspeed;
}

// The end of `w` plus the blanks after it (for deleting a word).
std::size_t after_blanks(std::string_view t, std::size_t p) {
  while (p < t.size() && (t[p] == ' ' || t[p] == '\t')) ++p;
  return p;
}

// A standalone assignment line for `var`: `VAR=x`, `export VAR=x`, `declare -x VAR=x`.
// Returns the index of the word holding the assignment, or npos.
std::size_t standalone_assignment(const ShellCommand& c, std::string_view var) {
  std::string pre = std::string(var) + "=";
  std::size_t i = 0;
  if (!c.words.empty() && (c.words[0].value == "export" || c.words[0].value == "declare")) {
    i = 1;
    while (i < c.words.size() && c.words[i].value.size() > 1 && c.words[i].value[0] == '-') ++i;
  } else if (command_word(c) != c.words.size()) {
    return std::string::npos;
  }
  for (; i < c.words.size(); ++i)
    if (c.words[i].value.substr(0, pre.size()) == pre) return i;
  return std::string::npos;
}

std::string dq_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\' || c == '$' || c == '`') out += '\\';
    out += c;
  }
  return out;
}

// Where a block goes for a command: the start of its first line.
std::size_t line_start(std::string_view text, std::size_t pos) {
  while (pos > 0 && text[pos - 1] != '\n') --pos;
  return pos;
}

// The first line a generated block can go after: past the shebang, the leading comments
// (#SBATCH / #PBS headers) and `set -...` lines, with the lines a backslash continues them
// onto (a block between the two would end the command early).
std::size_t header_end(std::string_view text) {
  auto lines = split_lines(text);
  std::size_t pos = 0;
  bool continued = false;
  for (const auto& l : lines) {
    auto t = trim(l.text);
    if (continued || t.empty() || t[0] == '#' || t.substr(0, 4) == "set ") {
      continued = !t.empty() && t[0] != '#' && t.back() == '\\';
      pos = l.next;
      continue;
    }
    break;
  }
  return pos;
}

}  // namespace

std::string shell_env_word(const EnvVar& v) {
  if (v.kind == EnvKind::kValue) return v.name + "=" + shell_quote(v.value);
  // Inside "${NAME:-word}" a backslash also keeps a `}` from closing the expansion (bash,
  // dash and POSIX sh alike).
  std::string word;
  for (char c : v.value) {
    if (c == '"' || c == '\\' || c == '$' || c == '`' || c == '}') word += '\\';
    word += c;
  }
  return v.name + "=\"${" + v.name + ":-" + word + "}\"";
}

namespace {
// The variable a generated block line's word sets: NAME=value, or the kDefault form
// NAME="${NAME:-value}" read back from the word's raw text.
EnvVar block_env_var(std::string_view raw, const Word& w) {
  auto eq = w.value.find('=');
  EnvVar v{w.value.substr(0, eq), w.value.substr(eq + 1)};
  std::string head = v.name + "=\"${" + v.name + ":-";
  if (raw.size() > head.size() + 2 && raw.substr(0, head.size()) == head &&
      raw.substr(raw.size() - 2) == "}\"") {
    std::string_view word = raw.substr(head.size(), raw.size() - head.size() - 2);
    v.value.clear();
    for (std::size_t i = 0; i < word.size(); ++i)
      v.value += word[i] == '\\' && i + 1 < word.size() ? word[++i] : word[i];
    v.kind = EnvKind::kDefault;
  }
  return v;
}
}  // namespace

namespace {
// A variable on an mpirun line: passed already (-x / -env / --env, bare or with a value) it
// takes `word` in place, unless `keep` (a default leaves a section's own choice); every
// `:`-separated MPMD section that does not pass it gets `-x word` after its start (the
// rank-scoped lint asks for -x in every section); -genv anywhere covers every section.
void mpirun_env(std::string_view text, const ShellCommand& c, const Stage& st,
                const std::string& var, const std::string& word, bool keep,
                std::vector<TextEdit>& edits) {
  const auto& w = c.words;
  const std::string pre = var + "=";
  std::vector<std::size_t> after = {st.cmd};  // the word each section's -x goes after
  std::vector<bool> passes = {false};
  bool global = false;
  for (std::size_t i = st.cmd + 1; i < w.size(); ++i) {
    if (w[i].value == ":") {
      after.push_back(i);
      passes.push_back(false);
      continue;
    }
    std::string_view prev = w[i - 1].value;
    if (!(w[i].value == var || w[i].value.substr(0, pre.size()) == pre)) continue;
    if (prev == "-genv") {
      global = true;
    } else if (prev == "-x" || prev == "-e" || prev == "--env") {
      passes.back() = true;
      if (!keep) add_edit(edits, text, w[i].begin, w[i].end, word);
    } else if (prev == "-env") {
      passes.back() = true;  // MPICH's -env NAME VALUE: left as it is
    }
  }
  if (global) return;
  for (std::size_t s = 0; s < after.size(); ++s)
    if (!passes[s]) {
      std::size_t at = w[after[s]].end;
      edits.push_back({at, at, " -x " + word});
    }
}
}  // namespace

FileKind detect_file_kind(std::string_view path, std::string_view text) {
  std::string_view first = text.substr(0, text.find('\n'));
  if (ends_with(path, ".py") ||
      (first.substr(0, 2) == "#!" && first.find("python") != std::string_view::npos))
    return FileKind::Python;
  if (ends_with(path, ".yaml") || ends_with(path, ".yml")) {
    for (const auto& l : split_lines(text)) {
      if (l.text.substr(0, 9) == "services:") return FileKind::Compose;
      if (l.text.substr(0, 5) == "kind:") return FileKind::Kubernetes;
    }
    return FileKind::Unknown;
  }
  if (ends_with(path, ".sh") || ends_with(path, ".bash") || ends_with(path, ".sbatch") ||
      ends_with(path, ".slurm") || ends_with(path, ".job") ||
      (first.substr(0, 2) == "#!" && first.find("sh") != std::string_view::npos))
    return FileKind::Shell;
  // No extension: a script when some line is a launch command.
  for (const auto& c : parse_shell(text))
    if (!launch_chain(c).empty()) return FileKind::Shell;
  return FileKind::Unknown;
}

std::string shell_rank_block(const BindingTable& b, std::string_view indent, bool numactl_var) {
  std::string in(indent), s;
  bool numa = b.has_numa();
  s += in + begin_marker(kHcaBlock) + "\n";
  s += in + "# One NIC per local rank, exact match with port (a bare mlx5_1 would also select\n";
  s += in + "# mlx5_10..17). From " + b.source + ". Generated by firstfault analyze --fix.\n";
  s += in +
       "ff_local_rank=\"${LOCAL_RANK:-${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${SLURM_"
       "LOCALID:-0}}}}\"\n";
  if (numa) s += in + "ff_numa_node=\n";
  s += in + "case \"$ff_local_rank\" in\n";
  for (const auto& r : b.ranks) {
    std::string body;
    if (!r.hca.empty()) body += "export NCCL_IB_HCA=" + shell_quote(r.hca) + ";";
    if (numa && r.numa >= 0) {
      if (!body.empty()) body += ' ';
      body += "ff_numa_node=" + std::to_string(r.numa) + ";";
    }
    if (body.empty()) body = ":;";
    body.pop_back();
    s += in + "  " + std::to_string(r.local_rank) + ") " + body + " ;;\n";
  }
  if (!b.node_hca.empty()) s += in + "  *) export NCCL_IB_HCA=" + shell_quote(b.node_hca) + " ;;\n";
  s += in + "esac\n";
  if (numa && numactl_var) {
    s += in + "ff_numactl=\n";
    s += in +
         "if [ -n \"$ff_numa_node\" ] && [ \"${FIRSTFAULT_NUMA:-1}\" != 0 ] && command -v numactl "
         ">/dev/null 2>&1; then\n";
    s += in + "  ff_numactl=\"numactl --cpunodebind=$ff_numa_node --membind=$ff_numa_node\"\n";
    s += in + "fi\n";
  }
  s += in + end_marker(kHcaBlock) + "\n";
  return s;
}

std::string wrapper_script(const BindingTable& b) {
  std::string s = "#!/bin/sh\n";
  s += "# firstfault-bind.sh: runs one local rank with the NIC (and NUMA node) closest to its "
       "GPU.\n";
  s += "# Put it in front of the program each rank runs:\n";
  s += "#   srun ... ./firstfault-bind.sh python train.py\n";
  s += "#   mpirun ... ./firstfault-bind.sh ./app\n";
  s += "#   torchrun --no_python ... ./firstfault-bind.sh python train.py\n";
  s += "# FIRSTFAULT_NUMA=0 skips the numactl binding. Regenerate with firstfault analyze --fix.\n";
  s += shell_rank_block(b, "", false);
  if (b.has_numa()) {
    s += "if [ -n \"$ff_numa_node\" ] && [ \"${FIRSTFAULT_NUMA:-1}\" != 0 ] && command -v numactl "
         ">/dev/null 2>&1; then\n";
    s += "  exec numactl --cpunodebind=\"$ff_numa_node\" --membind=\"$ff_numa_node\" \"$@\"\n";
    s += "fi\n";
  }
  s += "exec \"$@\"\n";
  return s;
}

namespace {

// srun --export=ALL,NCCL_IB_HCA=mlx5_1 without the NCCL_IB_HCA item ("ALL" when none is
// left): a comma list cannot carry NCCL's comma list.
std::string export_without_hca(const std::string& word) {
  std::string v = word.substr(9), outv;
  std::size_t pos = 0;
  while (pos <= v.size()) {
    std::size_t comma = v.find(',', pos);
    std::string item = v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item.substr(0, 12) != "NCCL_IB_HCA=") outv += (outv.empty() ? "" : ",") + item;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (outv.empty()) outv = "ALL";
  return outv;
}

// The state shell_binding_edits' phases share: the script, its launch lines, and where the
// per-rank block is (already there, or placed by an earlier phase).
struct BindingEdit {
  std::string_view text;
  const BindingTable& b;
  std::string eol;
  std::vector<ShellCommand> cmds;
  std::vector<BlockRange> blocks;
  std::string wrap;
  // Launch lines and whether any of them starts all local ranks.
  struct L {
    const ShellCommand* c;
    std::vector<Stage> chain;
  };
  std::vector<L> launches;
  bool spawning = false;
  BlockRange existing;
  bool have_block = false;
  bool block_placed = false;
  ShellBindResult res;

  void find_launches();
  void edit_assignments();
  bool assignment_becomes_block(const ShellCommand& c);
  void edit_hca_words(const ShellCommand& c, bool is_launch);
  void wrap_launches();
  void place_rank_block();
};

void BindingEdit::find_launches() {
  for (const auto& c : cmds) {
    if (in_generated_block(blocks, c.first_line)) continue;
    auto ch = launch_chain(c);
    if (ch.empty() || ch.front().kind == Launcher::Docker) continue;
    for (const auto& s : ch) spawning |= spawns_ranks(s.kind);
    launches.push_back({&c, std::move(ch)});
  }
}

// Existing assignments.
void BindingEdit::edit_assignments() {
  for (const auto& c : cmds) {
    if (in_generated_block(blocks, c.first_line)) continue;
    bool is_launch =
        std::any_of(launches.begin(), launches.end(), [&](const L& l) { return l.c == &c; });
    std::size_t k = standalone_assignment(c, "NCCL_IB_HCA");
    if (k != std::string::npos) {
      if (assignment_becomes_block(c)) continue;
      add_edit(res.edits, text, c.words[k].begin, c.words[k].end,
               "NCCL_IB_HCA=" + shell_quote(b.node_hca));
      continue;
    }
    edit_hca_words(c, is_launch);
  }
}

// A lone NCCL_IB_HCA assignment before the first launch line of a per-rank script: the
// per-rank block replaces it. False, changing nothing, when it cannot.
bool BindingEdit::assignment_becomes_block(const ShellCommand& c) {
  const ShellCommand* first_launch = launches.front().c;
  if (!spawning && !block_placed && c.first_line < first_launch->first_line &&
      c.first_line == c.last_line && c.indent == first_launch->indent &&
      c.words.size() == (c.words[0].value == "export" ? 2u : 1u)) {
    // The per-rank block takes the assignment's line, line end included whatever it
    // is (a CRLF line in an LF file too: the block then ends the way a later run
    // regenerates it). Only when nothing else follows on that line: what did would
    // end up after the end marker, inside its comment.
    std::size_t nl = std::min(text.find('\n', c.end), text.size());
    std::size_t le = nl < text.size() ? nl + 1 : nl;
    if (trim(text.substr(c.end, nl - c.end)).empty()) {
      add_edit(res.edits, text, line_start(text, c.begin), le,
               with_eol(shell_rank_block(b, c.indent, true), eol));
      block_placed = true;
      return true;
    }
  }
  return false;
}

// NCCL_IB_HCA in a command's words: a prefix assignment, mpirun's -x, srun's --export.
void BindingEdit::edit_hca_words(const ShellCommand& c, bool is_launch) {
  for (std::size_t i = 0; i < c.words.size(); ++i) {
    const Word& w = c.words[i];
    bool prefix = i < command_word(c) && w.value.substr(0, 12) == "NCCL_IB_HCA=";
    bool dash_x = i > 0 && c.words[i - 1].value == "-x" && w.value.substr(0, 12) == "NCCL_IB_HCA=";
    if (prefix && is_launch && !spawning) {
      add_edit(res.edits, text, w.begin, after_blanks(text, w.end), "");  // the block sets it
    } else if (prefix || dash_x) {
      add_edit(res.edits, text, w.begin, w.end, "NCCL_IB_HCA=" + shell_quote(b.node_hca));
    } else if (w.value.substr(0, 9) == "--export=" &&
               w.value.find("NCCL_IB_HCA=") != std::string::npos) {
      // srun --export=ALL,NCCL_IB_HCA=mlx5_1: drop the item (a comma list cannot carry
      // NCCL's comma list); the wrapper sets it per rank.
      add_edit(res.edits, text, w.begin, w.end,
               "--export=" + shell_quote(export_without_hca(w.value)));
    }
  }
}

// A launcher starts all local ranks: each runs through the wrapper, put in front of the
// program of the innermost stage that starts ranks.
void BindingEdit::wrap_launches() {
  for (const auto& l : launches) {
    const auto& w = l.c->words;
    bool done = std::any_of(w.begin(), w.end(), [](const Word& x) {
      return x.value.find("FIRSTFAULT_BIND") != std::string::npos ||
             x.value.find("firstfault-bind") != std::string::npos;
    });
    if (done) continue;
    // The innermost stage that starts ranks: srun torchrun ... -> torchrun.
    const Stage* s = nullptr;
    for (const auto& st : l.chain)
      if (spawns_ranks(st.kind)) s = &st;
    if (!s || s->program >= w.size()) continue;
    std::size_t at = w[s->program].begin;
    if (s->kind == Launcher::Torchrun || s->kind == Launcher::Deepspeed) {
      // --no_python: torchrun 1.10+ and deepspeed both accept the underscore spelling.
      std::string flag = "--no_python ";
      if (s->no_python) {
        res.edits.push_back({at, at, wrap});
      } else {
        res.edits.push_back({at, at, flag + wrap + "python " + (s->module ? "-m " : "")});
        if (s->module) {
          const Word& mw = w[s->module_word];
          res.edits.push_back({mw.begin, after_blanks(text, mw.end), ""});
        }
      }
    } else {
      res.edits.push_back({at, at, wrap});
    }
  }
  res.notes.push_back("each local rank runs through " + std::string(kWrapperName) +
                      ", which sets NCCL_IB_HCA for its rank (set FIRSTFAULT_BIND to move it)");
}

// Per-rank script: the block before the first launch line, numactl in front of it.
void BindingEdit::place_rank_block() {
  const ShellCommand& c = *launches.front().c;
  std::string blk = with_eol(shell_rank_block(b, have_block ? "" : c.indent, true), eol);
  if (have_block) {
    // Keep the indentation the block already has.
    auto lines = split_lines(text);
    std::string ind(leading_space(lines[existing.first_line].text));
    blk = with_eol(shell_rank_block(b, ind, true), eol);
    add_edit(res.edits, text, existing.begin, existing.end, blk);
  } else if (!block_placed) {
    std::size_t ls = line_start(text, c.begin);
    res.edits.push_back({ls, ls, blk});
  }
  if (b.has_numa()) {
    for (const auto& l : launches) {
      const auto& w = l.c->words;
      bool done = std::any_of(w.begin(), w.end(), [](const Word& x) {
        return x.value.find("ff_numactl") != std::string::npos;
      });
      if (done) continue;
      std::size_t cw = command_word(*l.c);
      if (cw < w.size()) res.edits.push_back({w[cw].begin, w[cw].begin, "$ff_numactl "});
    }
  }
}

}  // namespace

ShellBindResult shell_binding_edits(std::string_view text, const BindingTable& b,
                                    std::string_view wrapper_ref) {
  if (!b.usable()) return ShellBindResult();
  BindingEdit e{text,
                b,
                line_ending(text),
                parse_shell(text),
                generated_blocks(text),
                "\"${FIRSTFAULT_BIND:-" + dq_escape(wrapper_ref) + "}\" "};
  e.find_launches();
  e.res.found_target = !e.launches.empty();
  if (e.launches.empty()) return std::move(e.res);
  e.res.uses_wrapper = e.spawning;
  e.have_block = find_block(text, kHcaBlock, e.existing);
  e.block_placed = e.have_block;
  e.edit_assignments();
  if (e.spawning)
    e.wrap_launches();
  else
    e.place_rank_block();
  sort_edits(e.res.edits);
  return std::move(e.res);
}

GenResult shell_env_edits(std::string_view text, const EnvList& env) {
  GenResult res;
  if (env.empty()) return res;
  const std::string eol = line_ending(text);
  auto cmds = parse_shell(text);
  const auto blocks = generated_blocks(text);
  std::vector<std::pair<const ShellCommand*, std::vector<Stage>>> launches;
  for (const auto& c : cmds) {
    if (in_generated_block(blocks, c.first_line)) continue;
    auto ch = launch_chain(c);
    if (!ch.empty()) launches.push_back({&c, ch});
  }
  res.found_target = !launches.empty();
  EnvList for_block;
  for (const auto& ev : env) {
    const std::string& var = ev.name;
    const bool by_default = ev.kind == EnvKind::kDefault;
    std::string pre = var + "=", repl = shell_env_word(ev);
    bool handled = false;
    // Launchers that need the variable on their own line: mpirun -x, docker run -e.
    for (const auto& [c, ch] : launches) {
      for (const auto& st : ch) {
        if (st.kind != Launcher::Mpirun && st.kind != Launcher::Docker) continue;
        if (st.kind == Launcher::Mpirun) {
          // A default cannot be one -x word (mpirun takes it literally): the block sets it
          // in the launching shell and the bare name forwards that value.
          mpirun_env(text, *c, st, var, by_default ? var : repl, by_default, res.edits);
          handled = !by_default;
          break;
        }
        bool found = false;
        for (std::size_t i = st.cmd + 1; i + 1 < st.program && i + 1 < c->words.size(); ++i) {
          const Word& w = c->words[i + 1];
          std::string_view prev = c->words[i].value;
          if ((prev == "-x" || prev == "-e" || prev == "--env") &&
              (w.value == var || w.value.substr(0, pre.size()) == pre)) {
            // A default leaves what the line passes (its ranks' choice) as it is.
            if (!by_default) add_edit(res.edits, text, w.begin, w.end, repl);
            found = true;
          }
        }
        if (!found) {
          // docker run: as for mpirun, a default is forwarded by its bare name.
          std::size_t at = c->words[st.cmd + 1].end;
          res.edits.push_back({at, at, " -e " + (by_default ? var : repl)});
        }
        handled = !by_default;
        break;
      }
    }
    if (handled) continue;
    for (const auto& c : cmds) {
      if (by_default) break;  // existing assignments are some ranks' own: kept
      if (in_generated_block(blocks, c.first_line)) continue;
      std::size_t k = standalone_assignment(c, var);
      if (k != std::string::npos) {
        add_edit(res.edits, text, c.words[k].begin, c.words[k].end, repl);
        handled = true;
        continue;
      }
      for (std::size_t i = 0; i < command_word(c); ++i)
        if (c.words[i].value.substr(0, pre.size()) == pre) {
          add_edit(res.edits, text, c.words[i].begin, c.words[i].end, repl);
          handled = true;
        }
    }
    if (!handled) for_block.push_back(ev);
  }
  BlockRange existing;
  bool have_block = find_block(text, kEnvBlock, existing);
  if (!for_block.empty() || have_block) {
    // Merge with what the block already sets (the block is ours, so parse it plainly).
    EnvList vars;
    std::string ind;
    if (have_block) {
      auto lines = split_lines(text);
      ind = std::string(leading_space(lines[existing.first_line].text));
      auto inner = parse_shell(text.substr(existing.begin, existing.end - existing.begin));
      for (const auto& c : inner) {
        std::size_t i = c.words.size() > 0 && c.words[0].value == "export" ? 1 : 0;
        for (; i < c.words.size(); ++i) {
          const Word& w = c.words[i];
          if (w.value.find('=') == std::string::npos) continue;
          // Word offsets are relative to the block's text.
          std::string_view raw = text.substr(existing.begin + w.begin, w.end - w.begin);
          vars.push_back(block_env_var(raw, w));
        }
      }
    } else if (!launches.empty()) {
      ind = launches.front().first->indent;
    }
    merge_env(vars, for_block);
    std::string blk = ind + begin_marker(kEnvBlock) + "\n";
    blk += ind + "# Set by firstfault analyze --fix; see the diagnosis for why.\n";
    for (const auto& v : vars) blk += ind + "export " + shell_env_word(v) + "\n";
    blk += ind + end_marker(kEnvBlock) + "\n";
    blk = with_eol(blk, eol);
    if (have_block) {
      add_edit(res.edits, text, existing.begin, existing.end, blk);
    } else {
      std::size_t at =
          launches.empty() ? header_end(text) : line_start(text, launches.front().first->begin);
      if (at == text.size() && !text.empty() && text.back() != '\n') blk = eol + blk;
      res.edits.push_back({at, at, blk});
    }
  }
  sort_edits(res.edits);
  return res;
}

}  // namespace ff::fix
