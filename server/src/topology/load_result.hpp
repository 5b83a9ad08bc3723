// Errors are values: every loader returns either a topology or an error that names the
// file and, where it can, the line or element. Nothing a file contains makes us throw.
#pragma once

#include <optional>
#include <string>

#include "topology/topology_model.hpp"

namespace ff::topology {

struct InputError {
  std::string file;
  int line = 0;         // 1-based; 0 when the problem is the file as a whole
  std::string element;  // XML element or table row, when that is the better pointer
  std::string message;
  std::string to_string() const;  // "FILE:LINE: message" (one line)
};

struct LoadResult {
  std::optional<Topology> topology;
  std::optional<InputError> error;
  bool ok() const { return topology.has_value(); }
  static LoadResult fail(InputError e) {
    LoadResult r;
    r.error = std::move(e);
    return r;
  }
  static LoadResult success(Topology t) {
    LoadResult r;
    r.topology = std::move(t);
    return r;
  }
};

// Inputs larger than this are refused: real topology files are kilobytes, NCCL logs of a
// big job a few megabytes; anything bigger is the wrong file.
inline constexpr std::size_t kMaxInputBytes = 64u << 20;

// Reads a whole file, refusing directories, unreadable files and anything over the cap.
std::optional<std::string> read_input_file(const std::string& path, InputError& err);

// Reads `path` (with read_input_file's limits and messages) and hands its text to `parse`,
// which every file loader of ours is built from.
template <typename Parse>
LoadResult load_file_with(const std::string& path, Parse parse) {
  InputError err;
  auto data = read_input_file(path, err);
  if (!data) return LoadResult::fail(err);
  return parse(*data, path);
}

}  // namespace ff::topology
