#include "topology/load_result.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ff::topology {

std::string InputError::to_string() const {
  std::string out = file;
  // Not `":" + std::to_string(line)`: GCC 12 at -O3 reports a false -Wrestrict (PR 105329).
  if (line > 0) out.append(":").append(std::to_string(line));
  out += ": ";
  if (!element.empty()) out += "<" + element + ">: ";
  out += message;
  for (char& c : out)
    if (c == '\n' || c == '\r') c = ' ';  // the CLI promises a one-line message
  return out;
}

std::optional<std::string> read_input_file(const std::string& path, InputError& err) {
  err = InputError{path, 0, "", ""};
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    err.message = std::strerror(errno);
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    err.message = "is a directory, expected a file";
    return std::nullopt;
  }
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > kMaxInputBytes) {
    err.message = "file is " + std::to_string(st.st_size / (1 << 20)) +
                  " MiB; inputs over 64 MiB are refused (is this the right file?)";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err.message = std::strerror(errno);
    return std::nullopt;
  }
  // Read in chunks so a pipe or /dev/zero cannot grow the buffer past the cap either.
  std::string data;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    data.append(buf, static_cast<std::size_t>(in.gcount()));
    if (data.size() > kMaxInputBytes) {
      err.message = "input exceeds 64 MiB; refused";
      return std::nullopt;
    }
  }
  return data;
}

}  // namespace ff::topology
