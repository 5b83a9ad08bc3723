#include "fix/workspace_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ff::fix {

namespace fs = std::filesystem;

bool inside_workspace(const std::string& root, const std::string& path) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(root, ec), ec);
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) return false;
  auto ri = r.begin(), pi = p.begin();
  for (; ri != r.end(); ++ri, ++pi) {
    if (ri->empty()) continue;  // trailing slash
    if (pi == p.end() || *ri != *pi) return false;
  }
  return true;
}

bool read_text_file(const std::string& path, std::string& out, std::string& error) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    error = path + ": not a regular file";
    return false;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    error = path + ": cannot read: " + std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

bool write_file_atomic(const std::string& path, const std::string& content, int mode,
                       std::string& error) {
  fs::path p(path);
  std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  struct stat st;
  if (mode < 0) mode = ::stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 07777) : 0644;
  std::string tmpl = dir + "/." + p.filename().string() + ".firstfault-XXXXXX";
  std::string buf = tmpl;
  int fd = ::mkstemp(buf.data());
  if (fd < 0) {
    error = path + ": cannot create a temporary file in " + dir + ": " + std::strerror(errno);
    return false;
  }
  std::size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = path + ": write failed: " + std::strerror(errno);
      ::close(fd);
      ::unlink(buf.c_str());
      return false;
    }
    off += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0 || ::fsync(fd) != 0 || ::close(fd) != 0) {
    error = path + ": cannot finish writing: " + std::strerror(errno);
    ::unlink(buf.c_str());
    return false;
  }
  if (::rename(buf.c_str(), path.c_str()) != 0) {
    error = path + ": cannot replace: " + std::strerror(errno);
    ::unlink(buf.c_str());
    return false;
  }
  return true;
}

bool apply_workspace_edit(const std::string& root, const WorkspaceEdit& edit, std::string& error) {
  // Check everything before writing anything.
  for (const auto& f : edit.files) {
    if (!inside_workspace(root, f.path)) {
      error = f.path + ": outside the workspace " + root + "; not touched";
      return false;
    }
    std::error_code ec;
    if (f.create && fs::exists(f.path, ec)) {
      std::string cur, e;
      if (!read_text_file(f.path, cur, e) || cur.find("firstfault") == std::string::npos) {
        error = f.path + ": exists and was not written by firstfault; not replaced";
        return false;
      }
    }
  }
  for (const auto& f : edit.files) {
    if (f.create) {
      if (!write_file_atomic(f.path, f.content, f.executable ? 0755 : 0644, error)) return false;
      continue;
    }
    std::string cur;
    if (!read_text_file(f.path, cur, error)) return false;
    bool ok = true;
    std::string next = apply_text_edits(cur, f.edits, &ok);
    if (!ok) {
      error = f.path + ": the edits do not fit the file (changed since?)";
      return false;
    }
    if (next != cur && !write_file_atomic(f.path, next, -1, error)) return false;
  }
  return true;
}

}  // namespace ff::fix
