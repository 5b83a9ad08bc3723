// Just enough shell syntax to find and edit launch lines: logical lines (backslash
// continuations, quotes spanning lines), words with their byte ranges, comments, heredoc
// bodies, and the launcher chain of a command (srun -> torchrun -> python train.py).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ff::fix {

struct Word {
  std::size_t begin = 0, end = 0;  // byte range in the file (quotes included)
  std::string value;               // with quotes and escapes removed (no expansion)
};

// One logical line and the words of its first simple command (up to ; && || | &).
struct ShellCommand {
  std::size_t first_line = 0, last_line = 0;  // 0-based physical lines
  std::size_t begin = 0, end = 0;             // bytes of the logical line (no final newline)
  std::vector<Word> words;
  std::string indent;  // leading blanks of the first physical line
};

// Every logical line that has a command, in order; comment-only lines and heredoc bodies
// are skipped.
std::vector<ShellCommand> parse_shell(std::string_view text);

enum class Launcher { Srun, Mpirun, Torchrun, Deepspeed, Docker, Program };
const char* to_string(Launcher l);

// One level of a launch command: the launcher word and the first word it runs.
struct Stage {
  Launcher kind = Launcher::Program;
  std::size_t cmd = 0;      // index in ShellCommand::words of the launcher (or program)
  std::size_t program = 0;  // first word of what it runs (== words.size(): nothing)
  // torchrun / deepspeed: the script is a module (-m / --module at `module_word`), or the
  // program runs without python (--no-python / --no_python).
  bool module = false, no_python = false;
  std::size_t module_word = 0;
};

// The launcher chain of a command: [] when its command word is not a launcher or a program
// we recognise (python, an executable path). `first` is the index of the command word
// after assignments and exec/time/nohup/env.
std::vector<Stage> launch_chain(const ShellCommand& c);
std::size_t command_word(const ShellCommand& c);

bool is_assignment(std::string_view word);  // NAME=VALUE
// A value for the shell: bare when it is only safe characters, else single-quoted.
std::string shell_quote(std::string_view v);

}  // namespace ff::fix
