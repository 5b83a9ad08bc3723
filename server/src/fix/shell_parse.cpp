#include "fix/shell_parse.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "fix/edit.hpp"

namespace ff::fix {

namespace {

bool blank(char c) {
  return c == ' ' || c == '\t';
}

// Skips a "$( ... )" or "` ... `" starting at i (pointing at '$' or '`'); returns the index
// after it. Quotes inside are honoured roughly.
std::size_t skip_subst(std::string_view t, std::size_t i) {
  if (t[i] == '`') {
    std::size_t j = i + 1;
    while (j < t.size() && t[j] != '`') j += t[j] == '\\' ? 2 : 1;
    return std::min(j + 1, t.size());
  }
  int depth = 0;
  std::size_t j = i + 1;  // at '(' (i is at '$')
  for (; j < t.size(); ++j) {
    char c = t[j];
    if (c == '\\') {
      ++j;
    } else if (c == '\'') {
      std::size_t q = t.find('\'', j + 1);
      j = q == std::string_view::npos ? t.size() - 1 : q;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth == 0) return j + 1;
    }
  }
  return t.size();
}

std::string strip_quotes(std::string_view w) {
  std::string out;
  for (std::size_t i = 0; i < w.size(); ++i) {
    char c = w[i];
    if (c == '\'') {
      std::size_t q = w.find('\'', i + 1);
      if (q == std::string_view::npos) q = w.size();
      out.append(w.substr(i + 1, q - i - 1));
      i = q;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < w.size() && w[j] != '"'; ++j) {
        if (w[j] == '\\' && j + 1 < w.size() &&
            std::string_view("\"\\$`").find(w[j + 1]) != std::string_view::npos)
          ++j;
        out += w[j];
      }
      i = j;
    } else if (c == '\\' && i + 1 < w.size()) {
      out += w[++i];
    } else {
      out += c;
    }
  }
  return out;
}

std::string base_name(std::string_view p) {
  auto s = p.rfind('/');
  return std::string(s == std::string_view::npos ? p : p.substr(s + 1));
}

bool is_python(std::string_view name) {
  if (name == "python" || name == "python3") return true;
  if (name.substr(0, 7) != "python3" || name.size() < 9 || name[7] != '.') return false;
  return std::all_of(name.begin() + 8, name.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// How many values an option word takes (0 or 1, 2 for mpirun's -mca).
int option_arity(Launcher l, const std::string& w) {
  if (w.find('=') != std::string::npos && w.substr(0, 2) == "--") return 0;
  static const std::set<std::string> srun_flags = {
      "--label",       "--unbuffered",     "--quiet",
      "--verbose",     "--exclusive",      "--overlap",
      "--pty",         "--disable-status", "--exact",
      "--overcommit",  "--oversubscribe",  "--multi-prog",
      "--no-allocate", "--spread-job",     "--use-min-nodes",
      "--whole",       "--hold",           "--help",
      "--no-kill",     "--preserve-env",   "--kill-on-bad-exit",
      "--test-only",   "--usage"};
  static const std::set<std::string> mpi_flags = {"--allow-run-as-root",
                                                  "--oversubscribe",
                                                  "-oversubscribe",
                                                  "--nooversubscribe",
                                                  "--tag-output",
                                                  "-tag-output",
                                                  "--timestamp-output",
                                                  "--report-bindings",
                                                  "-report-bindings",
                                                  "--display-map",
                                                  "-display-map",
                                                  "--display-allocation",
                                                  "--noprefix",
                                                  "--enable-recovery",
                                                  "--merge-stderr-to-stdout",
                                                  "-merge-stderr-to-stdout",
                                                  "--debug",
                                                  "--verbose",
                                                  "--quiet",
                                                  "-nolocal",
                                                  "--nolocal",
                                                  "-q",
                                                  "-v",
                                                  "-V",
                                                  "-d",
                                                  "-bind-to-core",
                                                  "--bind-to-core",
                                                  "-bind-to-socket",
                                                  "--bind-to-socket",
                                                  "-l",
                                                  "-prepend-rank",
                                                  "-print-all-exitcodes",
                                                  "-verbose"};
  static const std::set<std::string> mpi_two = {"-mca",  "--mca", "-gmca", "--gmca",
                                                "-genv", "-env",  "--env"};
  static const std::set<std::string> torch_flags = {
      "--standalone", "--no-python", "--no_python", "-m",     "--module", "--run-path",
      "--run_path",   "--use-env",   "--use_env",   "--help", "-h"};
  static const std::set<std::string> ds_flags = {"--no_python",
                                                 "--module",
                                                 "--no_local_rank",
                                                 "--force_multi",
                                                 "--elastic_training",
                                                 "--bind_cores_to_rank",
                                                 "--no_ssh_check",
                                                 "--save_pid",
                                                 "--no_ssh",
                                                 "--help",
                                                 "-h",
                                                 "--enable_each_rank_log"};
  switch (l) {
    case Launcher::Srun:
      if (w.substr(0, 2) == "--") return srun_flags.count(w) ? 0 : 1;
      if (w.size() > 2) return 0;  // -N2
      return std::string_view("lQuvKXOsZHhkE").find(w[1]) != std::string_view::npos ? 0 : 1;
    case Launcher::Mpirun:
      if (mpi_two.count(w)) return 2;
      return mpi_flags.count(w) ? 0 : 1;
    case Launcher::Torchrun:
      if (w.substr(0, 2) != "--" && w.size() > 2) return 0;  // -r3
      return torch_flags.count(w) ? 0 : 1;
    case Launcher::Deepspeed:
      return ds_flags.count(w) ? 0 : 1;
    case Launcher::Docker: {
      static const std::set<std::string> docker_flags = {
          "--rm",  "--privileged", "--init",        "--detach",         "--interactive",
          "--tty", "--read-only",  "--publish-all", "--no-healthcheck", "--oom-kill-disable",
          "--help"};
      if (w.substr(0, 2) == "--") return docker_flags.count(w) ? 0 : 1;
      return w.find_first_not_of("ditP", 1) == std::string::npos ? 0 : 1;  // -it, -d
    }
    default:
      return 0;
  }
}

bool is_launcher_word(const std::string& b, Launcher& kind) {
  if (b == "srun")
    kind = Launcher::Srun;
  else if (b == "mpirun" || b == "mpiexec" || b == "orterun" || b == "mpiexec.hydra")
    kind = Launcher::Mpirun;
  else if (b == "torchrun")
    kind = Launcher::Torchrun;
  else if (b == "deepspeed")
    kind = Launcher::Deepspeed;
  else
    return false;
  return true;
}

// Stages from word i on.
void chain_from(const ShellCommand& c, std::size_t i, std::vector<Stage>& out, int depth) {
  const auto& w = c.words;
  while (i < w.size() && is_assignment(w[i].value)) ++i;  // env VAR=x prog
  if (i >= w.size() || depth > 4) return;
  std::string b = base_name(w[i].value);
  Launcher kind;
  Stage s;
  s.cmd = i;
  if (b == "env") {
    std::size_t j = i + 1;
    while (j < w.size() && (is_assignment(w[j].value) || w[j].value == "-i")) ++j;
    chain_from(c, j, out, depth + 1);
    return;
  }
  if (b == "docker" && i + 1 < w.size() && w[i + 1].value == "run") {
    s.kind = Launcher::Docker;
    std::size_t k = i + 2;
    while (k < w.size() && w[k].value.size() > 1 && w[k].value[0] == '-')
      k += 1 + option_arity(Launcher::Docker, w[k].value);
    s.program = std::min(k, w.size());  // the image
    out.push_back(s);
    return;
  }
  std::size_t j = i + 1;
  if (is_python(b)) {
    // python [-u -O ...] -m torch.distributed.run|launch ...
    while (j < w.size() && w[j].value.size() > 1 && w[j].value[0] == '-' && w[j].value != "-m") ++j;
    if (j + 1 < w.size() && w[j].value == "-m" &&
        (w[j + 1].value == "torch.distributed.run" ||
         w[j + 1].value == "torch.distributed.launch")) {
      kind = Launcher::Torchrun;
      j += 2;
    } else {
      s.kind = Launcher::Program;
      s.program = i;
      out.push_back(s);
      return;
    }
  } else if (!is_launcher_word(b, kind)) {
    // A program: python scripts, executables by path, anything else the line runs.
    s.kind = Launcher::Program;
    s.program = i;
    out.push_back(s);
    return;
  }
  s.kind = kind;
  for (; j < w.size(); ++j) {
    const std::string& v = w[j].value;
    if (v == "--") {
      ++j;
      break;
    }
    if (v.size() < 2 || v[0] != '-') break;
    if ((kind == Launcher::Torchrun && (v == "-m" || v == "--module")) ||
        (kind == Launcher::Deepspeed && v == "--module")) {
      s.module = true;
      s.module_word = j;
    }
    if (v == "--no-python" || v == "--no_python") s.no_python = true;
    j += option_arity(kind, v);
  }
  s.program = std::min(j, w.size());
  out.push_back(s);
  if (kind == Launcher::Srun || kind == Launcher::Mpirun) chain_from(c, s.program, out, depth + 1);
}

}  // namespace

const char* to_string(Launcher l) {
  switch (l) {
    case Launcher::Srun:
      return "srun";
    case Launcher::Mpirun:
      return "mpirun";
    case Launcher::Torchrun:
      return "torchrun";
    case Launcher::Deepspeed:
      return "deepspeed";
    case Launcher::Docker:
      return "docker run";
    case Launcher::Program:
      return "program";
  }
  return "?";
}

bool is_assignment(std::string_view w) {
  auto eq = w.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  if (!(std::isalpha(static_cast<unsigned char>(w[0])) || w[0] == '_')) return false;
  return std::all_of(w.begin(), w.begin() + eq, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string shell_quote(std::string_view v) {
  bool safe = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_.,:/=@%+-").find(c) != std::string_view::npos;
  });
  if (safe) return std::string(v);
  std::string out = "'";
  for (char c : v) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

namespace {

// The heredoc whose body is being skipped: its delimiter (empty: none) and whether it was
// `<<-`, whose body lines may start with tabs.
struct Heredoc {
  std::string delim;
  bool tabs = false;
};

// Skips one line of a heredoc's body, ending the heredoc at its delimiter line. Returns
// where the next line starts.
std::size_t skip_heredoc_line(std::string_view t, std::size_t i, Heredoc& h) {
  std::size_t nl = t.find('\n', i);
  std::size_t e = nl == std::string_view::npos ? t.size() : nl;
  std::string_view l = t.substr(i, e - i);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  if (h.tabs)
    while (!l.empty() && l.front() == '\t') l.remove_prefix(1);
  if (l == h.delim) h.delim.clear();
  return nl == std::string_view::npos ? t.size() : nl + 1;
}

// Where the word starting at `ws` ends: quotes, escapes and substitutions are part of it.
std::size_t word_end(std::string_view t, std::size_t ws) {
  std::size_t p = ws;
  while (p < t.size()) {
    char d = t[p];
    if (blank(d) || d == '\n' || d == ';' || d == '|' || d == '&' || d == ')' ||
        (d == '(' && p == ws))
      break;
    if (d == '\r' && p + 1 < t.size() && t[p + 1] == '\n') break;
    if (d == '\\') {
      if (p + 1 < t.size() && t[p + 1] == '\n') break;  // continuation
      p += 2;
    } else if (d == '\'') {
      std::size_t q = t.find('\'', p + 1);
      p = q == std::string_view::npos ? t.size() : q + 1;
    } else if (d == '"') {
      std::size_t k = p + 1;
      while (k < t.size() && t[k] != '"') {
        if (t[k] == '\\')
          ++k;
        else if (t[k] == '$' && k + 1 < t.size() && t[k + 1] == '(')
          k = skip_subst(t, k) - 1;
        ++k;
      }
      p = std::min(k + 1, t.size());
    } else if ((d == '$' && p + 1 < t.size() && t[p + 1] == '(') || d == '`') {
      p = skip_subst(t, p);
    } else {
      ++p;
    }
  }
  return std::min(p, t.size());
}

// One logical line (continuations joined) from `i`: the first simple command's words into
// `c`, every word into `all_words`. Returns where the next line starts.
std::size_t read_line_words(std::string_view t, std::size_t i, ShellCommand& c,
                            std::vector<Word>& all_words, bool& heredoc_pending) {
  bool in_first = true;
  std::size_t p = i;
  while (p < t.size()) {
    char ch = t[p];
    if (ch == '\\' && p + 1 < t.size() &&
        (t[p + 1] == '\n' || (t[p + 1] == '\r' && p + 2 < t.size() && t[p + 2] == '\n'))) {
      p += t[p + 1] == '\n' ? 2 : 3;
      continue;
    }
    if (ch == '\n') {
      c.end = p > c.begin && t[p - 1] == '\r' ? p - 1 : p;
      return p + 1;
    }
    if (blank(ch) || ch == '\r') {
      ++p;
      continue;
    }
    if (ch == '#') {  // comment to end of line
      while (p < t.size() && t[p] != '\n') ++p;
      continue;
    }
    if (ch == ';' || ch == '|' || ch == '&' || ch == '(' || ch == ')') {
      if (!c.words.empty() || ch == ')') in_first = false;
      ++p;
      continue;
    }
    // A word.
    std::size_t ws = p;
    p = word_end(t, ws);
    Word w{ws, p, strip_quotes(t.substr(ws, p - ws))};
    if (w.value.substr(0, 2) == "<<" && w.value.substr(0, 3) != "<<<") heredoc_pending = true;
    if (in_first) c.words.push_back(w);
    all_words.push_back(std::move(w));
  }
  c.end = t.size();
  return t.size();
}

// Heredoc: "<<EOF", "<<-'EOF'", "<< EOF": the first one on the line starts the body skipped
// from the next line on.
void start_heredoc(const std::vector<Word>& all_words, Heredoc& h) {
  for (std::size_t k = 0; k < all_words.size(); ++k) {
    const std::string& v = all_words[k].value;
    if (v.substr(0, 2) != "<<" || v.substr(0, 3) == "<<<") continue;
    std::string d = v.substr(2);
    h.tabs = !d.empty() && d[0] == '-';
    if (h.tabs) d.erase(0, 1);
    if (d.empty() && k + 1 < all_words.size()) d = all_words[k + 1].value;
    h.delim = d;
    break;
  }
}

// Leading keywords do not count as the command.
void drop_leading_keywords(ShellCommand& c) {
  while (!c.words.empty()) {
    const std::string& v = c.words.front().value;
    if (v == "then" || v == "do" || v == "else" || v == "{" || v == "!" || v == "time" ||
        v == "nohup" || v == "exec" || v == "command")
      c.words.erase(c.words.begin());
    else
      break;
  }
}

// Line numbers from the byte offsets, not counted while parsing: that count missed
// newlines inside $( ) and after a backslash in double quotes, and an off-by-one there put
// later lines inside a generated block.
void number_lines(std::string_view t, std::vector<ShellCommand>& out) {
  std::size_t pos = 0, ln = 0;
  for (auto& c : out) {
    ln += static_cast<std::size_t>(std::count(t.begin() + pos, t.begin() + c.begin, '\n'));
    pos = c.begin;
    c.first_line = ln;
    c.last_line =
        ln + static_cast<std::size_t>(std::count(t.begin() + c.begin, t.begin() + c.end, '\n'));
  }
}

}  // namespace

std::vector<ShellCommand> parse_shell(std::string_view t) {
  std::vector<ShellCommand> out;
  std::size_t i = 0;
  Heredoc heredoc;  // delimiter we are skipping to
  while (i < t.size()) {
    if (!heredoc.delim.empty()) {
      i = skip_heredoc_line(t, i, heredoc);
      continue;
    }
    ShellCommand c;
    c.begin = i;
    std::size_t ls = i;
    while (ls < t.size() && blank(t[ls])) ++ls;
    c.indent = std::string(t.substr(i, ls - i));
    std::vector<Word> all_words;
    bool heredoc_pending = false;
    i = read_line_words(t, i, c, all_words, heredoc_pending);
    if (heredoc_pending) start_heredoc(all_words, heredoc);
    drop_leading_keywords(c);
    if (!c.words.empty()) out.push_back(std::move(c));
  }
  number_lines(t, out);
  return out;
}

std::size_t command_word(const ShellCommand& c) {
  std::size_t i = 0;
  while (i < c.words.size() && is_assignment(c.words[i].value)) ++i;
  return i;
}

std::vector<Stage> launch_chain(const ShellCommand& c) {
  std::vector<Stage> out;
  std::size_t i = command_word(c);
  if (i >= c.words.size()) return out;
  static const std::set<std::string> not_programs = {"export",
                                                     "set",
                                                     "unset",
                                                     "cd",
                                                     "echo",
                                                     "printf",
                                                     "source",
                                                     ".",
                                                     "if",
                                                     "fi",
                                                     "for",
                                                     "while",
                                                     "done",
                                                     "case",
                                                     "esac",
                                                     "local",
                                                     "declare",
                                                     "readonly",
                                                     "trap",
                                                     "return",
                                                     "exit",
                                                     "mkdir",
                                                     "rm",
                                                     "cp",
                                                     "mv",
                                                     "module",
                                                     "ml",
                                                     "conda",
                                                     "cat",
                                                     "sleep",
                                                     "wait",
                                                     "shift",
                                                     "[",
                                                     "[[",
                                                     "test",
                                                     "true",
                                                     "false",
                                                     "ulimit",
                                                     "umask",
                                                     "hostname",
                                                     "nvidia-smi",
                                                     "scontrol",
                                                     "sinfo",
                                                     "squeue",
                                                     "ls",
                                                     "pwd",
                                                     "date",
                                                     "tee",
                                                     "grep",
                                                     "sed",
                                                     "awk",
                                                     "head",
                                                     "tail",
                                                     "touch",
                                                     "chmod",
                                                     "ln",
                                                     "pip",
                                                     "pip3",
                                                     "eval",
                                                     "let",
                                                     "function",
                                                     "}",
                                                     "elif",
                                                     "select",
                                                     "until",
                                                     "alias",
                                                     "shopt",
                                                     "srun_args",
                                                     "git",
                                                     "wget",
                                                     "curl",
                                                     "tar",
                                                     "python3-config",
                                                     "which",
                                                     "command",
                                                     "type",
                                                     "basename",
                                                     "dirname",
                                                     "realpath",
                                                     "readlink",
                                                     "kill",
                                                     "numactl"};
  std::string b = base_name(c.words[i].value);
  if (not_programs.count(b) || b.find('(') != std::string::npos || b.empty() || b.back() == ')')
    return out;
  bool known = false;
  Launcher k;
  if (is_launcher_word(b, k) || is_python(b) || b == "docker") known = true;
  const std::string& v = c.words[i].value;
  // A program run by path (./app, /opt/x/bin/train, $HOME/bin/run) or a python script.
  if (!known && v.find('/') == std::string::npos && v.find('$') == std::string::npos) return out;
  if (b == "docker" && !(i + 1 < c.words.size() && c.words[i + 1].value == "run")) return out;
  chain_from(c, i, out, 0);
  return out;
}

}  // namespace ff::fix
