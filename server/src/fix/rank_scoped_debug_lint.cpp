#include "fix/rank_scoped_debug_lint.hpp"

#include <re2/re2.h>

#include <array>
#include <cstddef>
#include <string_view>

#include "fix/generators.hpp"

namespace ff::fix {

namespace {

// Past this many open conditionals the scan stops tracking new ones (their closers are
// still counted), and past this many warnings a file says nothing more: hostile input
// costs time linear in its size and a bounded report.
constexpr std::size_t kMaxDepth = 32;
constexpr std::size_t kMaxWarnings = 16;

enum Var : std::size_t { kDebug, kDebugFile, kDebugSubsys, kVars };
constexpr std::array<std::string_view, kVars> kVarNames = {"NCCL_DEBUG", "NCCL_DEBUG_FILE",
                                                           "NCCL_DEBUG_SUBSYS"};

int var_index(std::string_view name) {
  for (std::size_t i = 0; i < kVars; ++i)
    if (kVarNames[i] == name) return static_cast<int>(i);
  return -1;
}

// What the ranks without the variable lose.
std::string_view why(Var v) {
  switch (v) {
    case kDebug:
      return "the ranks without it print nothing NCCL-side when they fail, and the first fault "
             "can be on exactly the node that logged nothing";
    case kDebugFile:
      return "the other ranks' NCCL lines go to their stderr, not to the files that will be "
             "collected, and the first fault can be on exactly a node without a file";
    default:
      return "the other ranks log other subsystems, and the first fault can be on exactly a "
             "node that did not log what the others did";
  }
}

constexpr std::string_view kFix =
    "set it for every rank (in the launcher's environment for all nodes), with "
    "NCCL_DEBUG_FILE=nccl.%h.%p.log for one file per host and process";

// A condition on who this process is: a rank, a node index or a host name.
const RE2& shell_identity() {
  static const RE2 re(
      R"((\$\{?[A-Za-z0-9_]*(?i:rank|nodeid|procid|localid|hostname|nodename)[A-Za-z0-9_]*\}?|)"
      R"(\b(?:RANK|LOCAL_RANK|NODE_RANK|GROUP_RANK|SLURM_NODEID|SLURM_PROCID|SLURM_LOCALID|)"
      R"(OMPI_COMM_WORLD_RANK|OMPI_COMM_WORLD_LOCAL_RANK|PMIX_RANK|PMI_RANK)\b|)"
      R"((?:\$\(|`)\s*hostname[^)`]{0,20}[)`]?))");
  return re;
}
const RE2& python_identity() {
  static const RE2 re(
      R"(([A-Za-z_][A-Za-z0-9_]*(?i:rank|nodeid|procid|localid|hostname|nodename)[A-Za-z0-9_]*|)"
      R"(\b(?i:rank|hostname)\b|is_main_process|is_local_main_process|is_global_zero|)"
      R"(is_master|is_local_master))");
  return re;
}

// A shell word that sets a variable: `NCCL_DEBUG=v`, `export NCCL_DEBUG=v`, `-x NCCL_DEBUG=v`,
// `--export=ALL,NCCL_DEBUG=v`, `-e NCCL_DEBUG=v`, quoted or not.
const RE2& shell_assignment() {
  static const RE2 re(R"((?:^["']?|[,=])(NCCL_DEBUG(?:_FILE|_SUBSYS)?)=)");
  return re;
}
// A Python statement that sets one: os.environ["V"] = .., setdefault("V", ..), putenv,
// os.environ.update(V=..) / update({"V": ..}).
const RE2& python_assignment() {
  static const RE2 re(R"((?:environ\s*\[\s*["'](NCCL_DEBUG(?:_FILE|_SUBSYS)?)["']\s*\]\s*=[^=]|)"
                      R"((?:setdefault|putenv)\s*\(\s*["'](NCCL_DEBUG(?:_FILE|_SUBSYS)?)["']|)"
                      R"(update\s*\(.*?["']?\b(NCCL_DEBUG(?:_FILE|_SUBSYS)?)\b["']?\s*[:=]))");
  return re;
}

std::string identity_of(const RE2& re, std::string_view text) {
  re2::StringPiece in(text.data(), text.size());
  std::string m;
  if (!RE2::PartialMatch(in, re, &m)) return {};
  if (m.size() > 40) m.resize(40);
  return m;
}

// The conditionals of one file, innermost last, and which variables each branch sets. A
// variable set in every branch of a rank conditional that has a default branch (else, `*)`)
// is set for every rank; a conditional on something else (a debug flag) is the same on
// every rank, so what it sets counts as set where it stands.
class Scopes {
 public:
  explicit Scopes(std::string path) : path_(std::move(path)) {}

  enum Kind { kIf, kCase, kOneLine, kNone };

  void open(Kind kind, bool rank, std::string identity, std::size_t line) {
    if (stack_.size() >= kMaxDepth) {
      ++overflow_;
      return;
    }
    Chain c;
    c.kind = kind;
    c.line = line;
    stack_.push_back(std::move(c));
    mark_rank(rank, std::move(identity));
  }
  // The condition of the current branch (an elif) is on an identity.
  void mark_rank(bool rank, std::string identity) {
    if (overflow_ > 0 || stack_.empty() || !rank) return;
    auto& c = stack_.back();
    if (!c.rank) c.identity = std::move(identity);
    c.rank = true;
  }
  void branch(bool is_default) {
    if (overflow_ > 0 || stack_.empty()) return;
    auto& c = stack_.back();
    // A case's first pattern starts its first branch; every later one ends a branch.
    if (c.kind == kCase && !c.started)
      c.started = true;
    else
      end_branch(c);
    c.has_default = c.has_default || is_default;
  }
  void assign(Var v, std::size_t line) {
    if (overflow_ > 0) return;
    if (stack_.empty()) {
      everywhere_[v] = true;
      return;
    }
    auto& c = stack_.back();
    c.in_branch[v] = true;
    if (c.first_line[v] == 0) c.first_line[v] = line;
  }
  void close() {
    if (overflow_ > 0) {
      --overflow_;
      return;
    }
    if (stack_.empty()) return;
    Chain c = std::move(stack_.back());
    stack_.pop_back();
    end_branch(c);
    for (std::size_t v = 0; v < kVars; ++v) {
      if (c.first_line[v] == 0) continue;
      bool all = c.has_default && c.set_in[v] == c.branches;
      if (!c.rank || all)
        assign(static_cast<Var>(v), c.first_line[v]);
      else
        scoped_.push_back({static_cast<Var>(v), c.first_line[v], c.line, c.identity});
    }
  }
  Kind top() const { return overflow_ > 0 || stack_.empty() ? kNone : stack_.back().kind; }
  std::size_t depth() const { return stack_.size() + overflow_; }

  void warn(std::string w) {
    if (extra_.size() < kMaxWarnings) extra_.push_back(std::move(w));
  }

  std::vector<std::string> finish() {
    while (depth() > 0) close();
    std::vector<std::string> out = std::move(extra_);
    for (const auto& s : scoped_) {
      if (everywhere_[s.var] || out.size() >= kMaxWarnings) continue;
      out.push_back(path_ + ":" + std::to_string(s.line) + ": " + std::string(kVarNames[s.var]) +
                    " is set only under a condition on " + s.identity + " (line " +
                    std::to_string(s.cond_line) + "): " + std::string(why(s.var)) + "; " +
                    std::string(kFix));
    }
    return out;
  }

  const std::string& path() const { return path_; }

  // Passed to some MPMD sections only (warned about by mpmd_check, not by finish()).
  void some_sections(Var v) { some_sections_[v] = true; }

  // After finish(): where the variable is set.
  SettingScope scope(Var v) const {
    if (everywhere_[v]) return SettingScope::kEveryRank;
    if (some_sections_[v]) return SettingScope::kSomeRanks;
    for (const auto& s : scoped_)
      if (s.var == v) return SettingScope::kSomeRanks;
    return SettingScope::kNotSet;
  }

 private:
  struct Chain {
    Kind kind = kIf;
    bool rank = false;
    std::string identity;
    std::size_t line = 0;
    std::size_t branches = 0;
    bool has_default = false;
    bool started = false;  // a case: its first pattern was read
    std::array<bool, kVars> in_branch{};
    std::array<std::size_t, kVars> set_in{};
    std::array<std::size_t, kVars> first_line{};
  };
  struct Scoped {
    Var var;
    std::size_t line, cond_line;
    std::string identity;
  };
  static void end_branch(Chain& c) {
    ++c.branches;
    for (std::size_t v = 0; v < kVars; ++v) {
      if (c.in_branch[v]) ++c.set_in[v];
      c.in_branch[v] = false;
    }
  }

  std::string path_;
  std::vector<Chain> stack_;
  std::size_t overflow_ = 0;
  std::array<bool, kVars> everywhere_{};
  std::array<bool, kVars> some_sections_{};
  std::vector<Scoped> scoped_;
  std::vector<std::string> extra_;
};

// ---- shell ---------------------------------------------------------------------------

struct Token {
  enum Kind { kWord, kSep } kind;
  std::string_view text;  // raw, quotes included
  std::size_t line;       // 1-based, where it starts
};

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}
bool is_sep_char(char c) {
  return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '\n';
}

// Shell tokens: words (quotes, $(..), ${..} and `..` kept inside), separators (newline ; ;;
// & && | || ( )), comments and heredoc bodies dropped, backslash-newline joined.
std::vector<Token> shell_tokens(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0, line = 1, n = s.size();
  std::vector<std::pair<std::string, bool>> heredocs;  // delimiter, strip tabs (<<-)
  while (i < n) {
    char c = s[i];
    if (is_blank(c)) {
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < n && s[i + 1] == '\n') {
      i += 2;
      ++line;
      continue;
    }
    if (c == '#') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '\n') {
      out.push_back({Token::kSep, s.substr(i, 1), line});
      ++i;
      ++line;
      // Heredoc bodies start here: skip each up to its delimiter line.
      for (const auto& [delim, tabs] : heredocs) {
        while (i < n) {
          std::size_t e = s.find('\n', i);
          std::string_view l = s.substr(i, e == std::string_view::npos ? n - i : e - i);
          i = e == std::string_view::npos ? n : e + 1;
          ++line;
          if (tabs)
            while (!l.empty() && l.front() == '\t') l.remove_prefix(1);
          if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
          if (l == delim) break;
        }
      }
      heredocs.clear();
      continue;
    }
    if (is_sep_char(c)) {
      std::size_t len = 1;
      if ((c == ';' || c == '&' || c == '|') && i + 1 < n && (s[i + 1] == c)) len = 2;
      if (c == ';' && len == 2 && i + 2 < n && s[i + 2] == '&') len = 3;  // ;;&
      if (c == ';' && len == 1 && i + 1 < n && s[i + 1] == '&') len = 2;  // ;&
      out.push_back({Token::kSep, s.substr(i, len), line});
      i += len;
      continue;
    }
    // A word.
    std::size_t b = i, start_line = line;
    int depth = 0;  // inside $( .. ) / ${ .. }
    while (i < n) {
      char d = s[i];
      if (d == '\n') {
        if (depth == 0) break;
        ++line;
        ++i;
        continue;
      }
      if (depth == 0 && (is_blank(d) || is_sep_char(d))) break;
      if (d == '\\' && i + 1 < n) {
        if (s[i + 1] == '\n') ++line;
        i += 2;
        continue;
      }
      if (d == '\'' || d == '"' || d == '`') {
        std::size_t j = i + 1;
        while (j < n && s[j] != d) {
          if (s[j] == '\\' && d != '\'' && j + 1 < n) {
            if (s[j + 1] == '\n') ++line;
            ++j;
          } else if (s[j] == '\n') {
            ++line;
          }
          ++j;
        }
        i = j < n ? j + 1 : n;
        continue;
      }
      if (d == '$' && i + 1 < n && (s[i + 1] == '(' || s[i + 1] == '{')) {
        ++depth;
        i += 2;
        continue;
      }
      if (depth > 0 && (d == ')' || d == '}')) --depth;
      if (depth > 0 && d == '(') ++depth;
      ++i;
    }
    std::string_view w = s.substr(b, i - b);
    out.push_back({Token::kWord, w, start_line});
    // `<<EOF`, `<< 'EOF'`, `<<-EOF`: remember the delimiter (quotes removed).
    std::size_t h = w.find("<<");
    if (h != std::string_view::npos && w.substr(h, 3) != "<<<") {
      std::string_view rest = w.substr(h + 2);
      bool tabs = !rest.empty() && rest.front() == '-';
      if (tabs) rest.remove_prefix(1);
      if (rest.empty()) {  // the delimiter is the next word
        std::size_t j = i;
        while (j < n && is_blank(s[j])) ++j;
        std::size_t k = j;
        while (k < n && !is_blank(s[k]) && !is_sep_char(s[k])) ++k;
        rest = s.substr(j, k - j);
      }
      std::string d;
      for (char x : rest)
        if (x != '\'' && x != '"' && x != '\\') d += x;
      if (!d.empty() && heredocs.size() < kMaxDepth) heredocs.emplace_back(d, tabs);
    }
  }
  return out;
}

std::string_view basename(std::string_view w) {
  std::size_t s = w.rfind('/');
  return s == std::string_view::npos ? w : w.substr(s + 1);
}

std::string_view unquoted(std::string_view w) {
  if (w.size() >= 2 && (w.front() == '"' || w.front() == '\'') && w.back() == w.front())
    return w.substr(1, w.size() - 2);
  return w;
}

// The variables one simple command's words set (see shell_assignment), and -x / -env /
// -genv / -e / --env followed by a bare name (forwarded from the launcher's environment).
void command_sets(const std::vector<Token>& words, std::size_t from, std::size_t to,
                  std::array<bool, kVars>& set, std::array<std::size_t, kVars>& line,
                  bool* global = nullptr) {
  for (std::size_t i = from; i < to; ++i) {
    std::string_view w = words[i].text;
    int v = -1;
    re2::StringPiece in(w.data(), w.size());
    std::string name;
    if (RE2::PartialMatch(in, shell_assignment(), &name)) {
      v = var_index(name);
    } else if (i > from) {
      std::string_view opt = words[i - 1].text;
      if (opt == "-x" || opt == "-env" || opt == "-genv" || opt == "-e" || opt == "--env")
        v = var_index(unquoted(w));
      else if (opt == "-envlist" || opt == "-genvlist")
        for (std::size_t k = 0; k < kVars; ++k) {
          // A comma-separated list of names.
          std::string_view list = unquoted(w);
          std::size_t p = 0;
          while (p <= list.size()) {
            std::size_t e = list.find(',', p);
            if (e == std::string_view::npos) e = list.size();
            if (list.substr(p, e - p) == kVarNames[k]) {
              set[k] = true;
              if (line[k] == 0) line[k] = words[i].line;
              if (global && opt == "-genvlist") global[k] = true;
            }
            p = e + 1;
          }
        }
    }
    if (v < 0) continue;
    set[static_cast<std::size_t>(v)] = true;
    if (line[static_cast<std::size_t>(v)] == 0) line[static_cast<std::size_t>(v)] = words[i].line;
    if (global && i > from && words[i - 1].text == "-genv") global[v] = true;
  }
}

std::string plural(const std::string& list) {
  return list.find(',') == std::string::npos ? "section " : "sections ";
}

// mpirun/mpiexec with `:`-separated sections (MPMD): a variable passed with -x / -env in
// some sections but not others (-genv applies to every section: MPICH, Intel MPI).
// Returns the variables passed to some sections only.
std::array<bool, kVars> mpmd_check(Scopes& scopes, const std::vector<Token>& w) {
  std::array<bool, kVars> partial{};
  std::size_t cmd = 0;
  while (cmd < w.size() &&
         (w[cmd].text.find('=') != std::string_view::npos || w[cmd].text == "exec" ||
          w[cmd].text == "time" || w[cmd].text == "nohup" || w[cmd].text == "env"))
    ++cmd;
  if (cmd >= w.size()) return partial;
  std::string_view launcher = basename(w[cmd].text);
  if (launcher != "mpirun" && launcher != "mpiexec" && launcher != "orterun" &&
      launcher != "prterun" && launcher != "mpiexec.hydra")
    return partial;
  std::vector<std::pair<std::size_t, std::size_t>> sections;
  std::size_t b = cmd + 1;
  for (std::size_t i = b; i <= w.size(); ++i)
    if (i == w.size() || w[i].text == ":") {
      sections.emplace_back(b, i);
      b = i + 1;
    }
  if (sections.size() < 2) return partial;
  bool global[kVars] = {};
  std::vector<std::array<bool, kVars>> set(sections.size());
  std::array<std::size_t, kVars> line{};
  for (std::size_t s = 0; s < sections.size(); ++s)
    command_sets(w, sections[s].first, sections[s].second, set[s], line, global);
  for (std::size_t v = 0; v < kVars; ++v) {
    if (global[v] || line[v] == 0) continue;
    std::string with, without;
    for (std::size_t s = 0; s < sections.size(); ++s) {
      std::string& list = set[s][v] ? with : without;
      if (!list.empty()) list += ", ";
      list += std::to_string(s + 1);
    }
    if (without.empty()) continue;
    scopes.some_sections(static_cast<Var>(v));
    partial[v] = true;
    scopes.warn(scopes.path() + ":" + std::to_string(line[v]) + ": " + std::string(kVarNames[v]) +
                " is passed to MPMD " + plural(with) + with + " of " +
                std::to_string(sections.size()) + " only (" + plural(without) + without +
                (without.find(',') == std::string::npos ? " runs" : " run") +
                " without it): " + std::string(why(static_cast<Var>(v))) + "; " +
                std::string(kFix) + " (-x in every section, or -genv once)");
  }
  return partial;
}

// One pass over a script's tokens: the words of the simple command being read, or the
// if/elif condition or case header being read, and the scopes they open and close.
struct ShellScanner {
  explicit ShellScanner(Scopes& s) : scopes(s) {}

  Scopes& scopes;
  // Per simple command: its words; the state of an if/elif condition or a case header.
  std::vector<Token> words;
  enum { kCommand, kCondition, kCaseSubject, kCasePattern } mode = kCommand;
  std::string cond;  // the condition's text, for the identity
  std::size_t cond_line = 0;
  bool cond_elif = false;
  std::size_t parens = 0;  // `((` before a command: an arithmetic test
  bool test_cmd = false;   // the command is `[`, `[[`, `test`, `(( ))`
  std::string pattern;

  void scan(const std::vector<Token>& toks);
  void separator(const Token& t);
  void header_word(const std::vector<Token>& toks, std::size_t ti);
  bool command_start(const Token& t);
  void end_command(std::string_view sep);
  void rank_test();
};

void ShellScanner::scan(const std::vector<Token>& toks) {
  for (std::size_t ti = 0; ti < toks.size(); ++ti) {
    const Token& t = toks[ti];
    if (t.kind == Token::kSep)
      separator(t);
    else if (mode != kCommand)
      header_word(toks, ti);
    else if (!words.empty() || !command_start(t))
      words.push_back(t);
  }
  end_command("\n");
}

// A separator: inside a condition or case subject a blank; after a case pattern its `)`;
// otherwise the end of a command, save a `(` or `)` that only wraps one.
void ShellScanner::separator(const Token& t) {
  if (mode == kCondition || mode == kCaseSubject) {
    cond += ' ';
    return;
  }
  if (mode == kCasePattern) {
    if (t.text == ")") {
      // `*)` is the default branch.
      bool def = pattern.find('*') != std::string::npos &&
                 pattern.find_first_not_of("*| ") == std::string::npos;
      scopes.branch(def);
      mode = kCommand;
      pattern.clear();
    }
    return;
  }
  if (t.text == "(" && words.empty()) {
    ++parens;
    return;
  }
  if (t.text == ")" && parens > 0) {  // the end of `(( .. ))` or a subshell
    --parens;
    return;
  }
  end_command(t.text);
  parens = 0;
  if ((t.text == ";;" || t.text == ";&" || t.text == ";;&") && scopes.top() == Scopes::kCase)
    mode = kCasePattern;
}

// A word of a case pattern, a case subject or an if/elif condition: `esac`, `in` and `then`
// end them and open or close their scope.
void ShellScanner::header_word(const std::vector<Token>& toks, std::size_t ti) {
  std::string_view w = toks[ti].text;
  if (mode == kCasePattern) {
    if (w == "esac") {
      scopes.close();
      mode = kCommand;
    } else {
      pattern.append(w);
    }
    return;
  }
  if (mode == kCaseSubject) {
    if (w == "in") {
      std::string id = identity_of(shell_identity(), cond);
      scopes.open(Scopes::kCase, !id.empty(), id, cond_line);
      mode = kCasePattern;
      pattern.clear();
    } else {
      cond.append(w).push_back(' ');
    }
    return;
  }
  // kCondition: `then` ends the condition where a command could start.
  bool at_start = ti > 0 && toks[ti - 1].kind == Token::kSep;
  if (w == "then" && at_start) {
    std::string id = identity_of(shell_identity(), cond);
    if (cond_elif)
      scopes.mark_rank(!id.empty(), id);
    else
      scopes.open(Scopes::kIf, !id.empty(), id, cond_line);
    mode = kCommand;
  } else {
    cond.append(w).push_back(' ');
  }
}

// The first word of a command: a keyword that opens, splits or closes a scope (true: it is
// consumed), or the command's name, which says whether it is a test.
bool ShellScanner::command_start(const Token& t) {
  std::string_view w = t.text;
  if (w == "if" || w == "elif") {
    cond_elif = w == "elif";
    if (cond_elif) scopes.branch(false);
    cond.clear();
    cond_line = t.line;
    mode = kCondition;
    return true;
  }
  if (w == "else") {
    scopes.branch(true);
    return true;
  }
  if (w == "fi") {
    if (scopes.top() == Scopes::kOneLine) scopes.close();
    scopes.close();
    return true;
  }
  if (w == "case") {
    cond.clear();
    cond_line = t.line;
    mode = kCaseSubject;
    return true;
  }
  if (w == "esac") {
    scopes.close();
    return true;
  }
  if (w == "then" || w == "do" || w == "done" || w == "{" || w == "}" || w == "!" || w == "while" ||
      w == "until")
    return true;
  test_cmd = w == "[" || w == "[[" || w == "test" || parens >= 2;
  return false;
}

// A command ends: what it sets is assigned in the current scope, or a test before `&&` /
// `||` opens a one-line conditional.
void ShellScanner::end_command(std::string_view sep) {
  if (mode == kCommand && !words.empty()) {
    std::array<bool, kVars> set{};
    std::array<std::size_t, kVars> line{};
    if (!test_cmd) {
      command_sets(words, 0, words.size(), set, line);
      // A variable some MPMD sections run without is not set where this line stands.
      auto partial = mpmd_check(scopes, words);
      for (std::size_t v = 0; v < kVars; ++v)
        if (set[v] && !partial[v]) scopes.assign(static_cast<Var>(v), line[v]);
    } else if (sep == "&&" || sep == "||") {
      rank_test();
    }
  }
  words.clear();
  test_cmd = false;
  // A one-line conditional ends with its list; after `||` comes its other branch.
  if (sep != "&&" && sep != "||" && scopes.top() == Scopes::kOneLine)
    scopes.close();
  else if (sep == "||" && scopes.top() == Scopes::kOneLine)
    scopes.branch(true);
}

// `[ "$RANK" = 0 ] && export ...`: the rest of the list runs on some ranks.
void ShellScanner::rank_test() {
  std::string text;
  for (const auto& t : words) text.append(t.text).push_back(' ');
  std::string id = identity_of(shell_identity(), text);
  if (scopes.top() == Scopes::kOneLine)
    scopes.mark_rank(!id.empty(), id);  // `[ a ] && [ "$RANK" = 0 ] && ...`
  else
    scopes.open(Scopes::kOneLine, !id.empty(), id, words.front().line);
}

void shell_scan(const LaunchFile& f, Scopes& scopes) {
  std::vector<Token> toks = shell_tokens(f.text);
  ShellScanner(scopes).scan(toks);
}

// ---- python ---------------------------------------------------------------------------

void python_scan(const LaunchFile& f, Scopes& scopes) {
  struct Block {
    std::size_t indent;
  };
  std::vector<Block> ifs;  // the open if chains, by the indent of their `if`
  std::string_view text = f.text;
  std::size_t line_no = 0;
  std::string_view in_string;  // the open triple quote, if any

  auto statement = [&](std::string_view s, std::size_t line) {
    re2::StringPiece in(s.data(), s.size());
    std::string a, b, c;
    while (RE2::FindAndConsume(&in, python_assignment(), &a, &b, &c)) {
      int v = var_index(!a.empty() ? a : !b.empty() ? b : c);
      if (v >= 0) scopes.assign(static_cast<Var>(v), line);
      a.clear();
      b.clear();
      c.clear();
    }
  };
  // The body after a block header's colon on the same line, or "".
  auto after_colon = [](std::string_view s) -> std::string_view {
    int depth = 0;
    char quote = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (quote) {
        if (c == '\\')
          ++i;
        else if (c == quote)
          quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
        --depth;
      } else if (c == ':' && depth == 0) {
        std::string_view rest = s.substr(i + 1);
        while (!rest.empty() && is_blank(rest.front())) rest.remove_prefix(1);
        if (!rest.empty() && rest.front() == '#') rest = {};
        return rest;
      }
    }
    return {};
  };

  while (!text.empty()) {
    ++line_no;
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    // Docstrings and other triple-quoted text are not code.
    if (!in_string.empty()) {
      if (line.find(in_string) != std::string_view::npos) in_string = {};
      continue;
    }
    std::size_t indent = 0;
    while (indent < line.size() && (line[indent] == ' ' || line[indent] == '\t')) ++indent;
    std::string_view s = line.substr(indent);
    while (!s.empty() && (s.back() == '\r' || is_blank(s.back()))) s.remove_suffix(1);
    if (s.empty() || s.front() == '#') continue;
    for (std::string_view q : {"\"\"\"", "'''"}) {
      std::size_t p = s.find(q);
      if (p != std::string_view::npos && s.find(q, p + 3) == std::string_view::npos) {
        in_string = q;
        break;
      }
    }
    auto starts = [&](std::string_view kw) {
      return s.substr(0, kw.size()) == kw &&
             (s.size() == kw.size() || s[kw.size()] == ' ' || s[kw.size()] == '(' ||
              s[kw.size()] == ':' || s[kw.size()] == '\t');
    };
    bool continues = starts("elif") || starts("else");
    while (!ifs.empty() &&
           (indent < ifs.back().indent || (indent == ifs.back().indent && !continues))) {
      scopes.close();
      ifs.pop_back();
    }
    if (starts("if")) {
      std::string id = identity_of(python_identity(), s.substr(2));
      scopes.open(Scopes::kIf, !id.empty(), id, line_no);
      ifs.push_back({indent});
      statement(after_colon(s), line_no);
    } else if (continues && !ifs.empty() && indent == ifs.back().indent) {
      bool is_else = starts("else");
      scopes.branch(is_else);
      if (!is_else) {
        std::string id = identity_of(python_identity(), s.substr(4));
        scopes.mark_rank(!id.empty(), id);
      }
      statement(after_colon(s), line_no);
    } else {
      statement(s, line_no);
    }
  }
}

// Scans the file into `scopes` (finished); false for kinds the lint does not read.
bool scan(const LaunchFile& file, Scopes& scopes, std::vector<std::string>* warnings) {
  switch (detect_file_kind(file.path, file.text)) {
    case FileKind::Python:
      python_scan(file, scopes);
      break;
    case FileKind::Shell:
    case FileKind::Unknown:
      shell_scan(file, scopes);
      break;
    default:
      return false;
  }
  auto w = scopes.finish();
  if (warnings) *warnings = std::move(w);
  return true;
}

}  // namespace

std::vector<std::string> rank_scoped_debug_lint(const LaunchFile& file) {
  Scopes scopes(file.path);
  std::vector<std::string> out;
  scan(file, scopes, &out);
  return out;
}

SettingScope debug_setting_scope(const LaunchFile& file, std::string_view var) {
  int v = var_index(var);
  if (v < 0) return SettingScope::kNotSet;
  Scopes scopes(file.path);
  if (scan(file, scopes, nullptr)) return scopes.scope(static_cast<Var>(v));
  // A compose file's or pod spec's environment is every container's.
  FileKind k = detect_file_kind(file.path, file.text);
  if (k != FileKind::Compose && k != FileKind::Kubernetes) return SettingScope::kNotSet;
  static const RE2 named(R"(\b(NCCL_DEBUG(?:_FILE|_SUBSYS)?)\b)");
  re2::StringPiece in(file.text.data(), file.text.size());
  std::string name;
  while (RE2::FindAndConsume(&in, named, &name))
    if (name == var) return SettingScope::kEveryRank;
  return SettingScope::kNotSet;
}

}  // namespace ff::fix
