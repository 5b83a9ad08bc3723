// The fix engine's file I/O, kept apart from the pure core: reading the launch files the
// caller named, refusing anything outside the workspace root, and writing edits atomically
// (temporary file in the same directory, then rename; the file keeps its permissions).
#pragma once

#include <string>

#include "fix/edit.hpp"

namespace ff::fix {

// Whether `path` is inside `root` (both resolved; symlinks followed as far as they exist).
bool inside_workspace(const std::string& root, const std::string& path);

// Reads a whole file. False with a one-line `error` ("cannot read ...") when it fails.
bool read_text_file(const std::string& path, std::string& out, std::string& error);

// Writes `content` to `path` atomically. `mode` < 0: keep the existing file's mode (0644
// for a new one).
bool write_file_atomic(const std::string& path, const std::string& content, int mode,
                       std::string& error);

// Applies every file edit under `root`. Created files that exist already are replaced only
// when they are ours (they carry the firstfault marker). Stops at the first failure and
// names the file in `error`.
bool apply_workspace_edit(const std::string& root, const WorkspaceEdit& edit, std::string& error);

}  // namespace ff::fix
