#include "fix/verify_command.hpp"

#include <cctype>

#include "fix/shell_parse.hpp"

namespace ff::fix {

namespace {

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == ' ' || c == '.' || c == '_' ||
         c == '-';
}

// The length of a placeholder at `at` ("<gpu>", "<host in NCCL_COMM_ID>"): words starting
// with a lower-case letter, between angle brackets. 0 when there is none: `2>&1`, `< file`, `<<EOF`
// and `<$x>` are the shell's.
std::size_t placeholder_at(std::string_view s, std::size_t at) {
  if (s[at] != '<' || at + 2 >= s.size() || !std::islower(static_cast<unsigned char>(s[at + 1])))
    return 0;
  std::size_t end = at + 1;
  while (end < s.size() && end - at <= 48 && name_char(s[end])) ++end;
  if (end >= s.size() || s[end] != '>' || s[end - 1] == ' ') return 0;
  return end + 1 - at;
}

std::string dir_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The value a diagnosis gives a placeholder's name, already quoted for the shell; nullopt
// when it gives none.
std::optional<std::string> value_of(std::string_view name, const VerifyFacts& f) {
  auto quoted = [](const std::string& v) -> std::optional<std::string> {
    if (v.empty()) return std::nullopt;
    return shell_quote(v);
  };
  if (name == "gpu") return f.gpu ? std::optional(std::to_string(*f.gpu)) : std::nullopt;
  if (name == "rank") return f.rank ? std::optional(std::to_string(*f.rank)) : std::nullopt;
  if (name == "pid" || name.rfind("pid of the ", 0) == 0)
    return f.pid ? std::optional(std::to_string(*f.pid)) : std::nullopt;
  if (name == "host") return quoted(f.host);
  if (name == "peer" || name == "peer ip" || name == "peer host") return quoted(f.peer);
  if (name == "job log" || name == "log") return quoted(f.log);
  if (name == "log dir") return f.log.empty() ? std::nullopt : quoted(dir_of(f.log));
  if (name == "logs" || name == "all rank logs") {
    if (f.logs.empty()) return std::nullopt;
    std::string all;
    for (const auto& l : f.logs) {
      // Appended piece by piece: GCC 12 -Wrestrict misfires on `(c ? "" : " ") + temporary`.
      if (!all.empty()) all += ' ';
      all += shell_quote(l);
    }
    return all;
  }
  return std::nullopt;
}

}  // namespace

FilledCommand fill_verify_command(std::string_view command, const VerifyFacts& facts) {
  FilledCommand out;
  for (std::size_t i = 0; i < command.size();) {
    std::size_t n = placeholder_at(command, i);
    if (n == 0) {
      out.text += command[i++];
      continue;
    }
    std::string_view written = command.substr(i, n);
    if (auto v = value_of(written.substr(1, n - 2), facts)) {
      out.text += *v;
    } else {
      out.text += written;
      out.missing.emplace_back(written);
    }
    i += n;
  }
  return out;
}

}  // namespace ff::fix
