#include "cli/input_files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cli/sigbus_guard.hpp"
#include "evidence/flight_recorder_dump.hpp"
#include "evidence/ras_report.hpp"
#include "report/summary.hpp"

namespace ff::cli {

namespace {

// Descriptors kept open for InputFile::read, across every open file (the language server
// opens files for as long as it runs): at most kKeptOpenAtMost.
constexpr int kKeptOpenAtMost = 64;
std::atomic<int> kept_open{0};

}  // namespace

InputFile::InputFile(std::string name, std::string_view text, void* map, std::size_t map_len,
                     std::string owned)
    : name_(std::move(name)), text_(text), map_(map), map_len_(map_len), owned_(std::move(owned)) {
  if (!map_) text_ = owned_;
  if (map_) guard_ = sigbus::protect(map_, map_len_);
}

InputFile::InputFile(InputFile&& o) noexcept
    : name_(std::move(o.name_)),
      map_(o.map_),
      map_len_(o.map_len_),
      owned_(std::move(o.owned_)),
      guard_(o.guard_),
      fd_(o.fd_) {
  text_ = map_ ? o.text_ : std::string_view(owned_);
  o.guard_ = -1;
  o.fd_ = -1;
  o.map_ = nullptr;
  o.map_len_ = 0;
  o.text_ = {};
}

InputFile::~InputFile() {
  sigbus::unprotect(guard_);
  if (map_) munmap(map_, map_len_);
  if (fd_ >= 0) {
    ::close(fd_);
    --kept_open;
  }
}

std::size_t InputFile::read(std::size_t offset, char* buffer, std::size_t len) const {
  if (fd_ < 0) return 0;
  std::size_t done = 0;
  while (done < len) {
    ssize_t n = ::pread(fd_, buffer + done, len - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

bool InputFile::truncated() const {
  return sigbus::faulted(guard_);
}

void InputFile::release(std::size_t begin, std::size_t end) const {
  if (!map_) return;
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t first = (begin + page - 1) / page * page;
  std::size_t last = std::min(end, map_len_) / page * page;
  if (first < last) ::madvise(static_cast<char*>(map_) + first, last - first, MADV_DONTNEED);
}

void InputFile::prefetch(std::size_t begin, std::size_t end) const {
  if (!map_) return;
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t first = begin / page * page;
  std::size_t last = std::min(end, map_len_);
  if (first >= last) return;
#ifdef MADV_POPULATE_READ
  if (::madvise(static_cast<char*>(map_) + first, last - first, MADV_POPULATE_READ) == 0) return;
#endif
  ::madvise(static_cast<char*>(map_) + first, last - first, MADV_WILLNEED);
}

bool looks_like_log(std::string_view f) {
  auto ends = [&](std::string_view s) {
    return f.size() >= s.size() && f.substr(f.size() - s.size()) == s;
  };
  return ends(".log") || ends(".out") || ends(".err") || ends(".txt") ||
         (f.rfind("slurm-", 0) == 0 && ends(".out"));
}

namespace {

// A file in a log directory without a log's name is still an input when its first bytes
// say it is evidence: a Flight Recorder dump (PyTorch names them <prefix><rank>, no
// extension) or, for *.json, ncclras output (`-f json`, monitor events) or a summary
// written by `analyze --summary` (report/summary.hpp).
bool is_evidence_file(const std::string& name, const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char buf[4096];
  ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n <= 0) return false;
  std::string_view head(buf, static_cast<std::size_t>(n));
  if (evidence::looks_like_flight_recorder_dump(head)) return true;
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 &&
         (evidence::looks_like_ras(head) || report::looks_like_summary(head));
}

bool read_fd(int fd, std::string& out, std::string& err) {
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = std::strerror(errno);
      return false;
    }
    if (n == 0) return true;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

std::string compressed_hint(std::string_view head) {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b)
    return "is gzip-compressed; decompress it first, e.g. zcat FILE | firstfault analyze -";
  if (head.size() >= 4 && head.substr(0, 4) == "\x28\xb5\x2f\xfd")
    return "is zstd-compressed; decompress it first, e.g. zstdcat FILE | firstfault analyze -";
  if (head.size() >= 3 && head.substr(0, 3) == "BZh")
    return "";  // "BZh" may be ordinary text; leave it alone
  if (head.size() >= 6 && head.substr(0, 6) ==
                              "\xfd"
                              "7zXZ\x00")
    return "is xz-compressed; decompress it first, e.g. xzcat FILE | firstfault analyze -";
  return "";
}

bool open_one(const std::string& path, std::vector<InputFile>& out, InputError& error) {
  if (path == "-") {
    std::string data, err;
    if (!read_fd(STDIN_FILENO, data, err)) {
      error = {"<stdin>", "cannot be read: " + err};
      return false;
    }
    if (auto hint = compressed_hint(data); !hint.empty()) {
      error = {"<stdin>", hint};
      return false;
    }
    out.emplace_back("<stdin>", std::string_view(), nullptr, 0, std::move(data));
    return true;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    error = {path, std::strerror(errno)};
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    std::string why;
    if (!list_directory_inputs(path, files, why)) {
      error = {path, why};
      return false;
    }
    if (files.empty()) {
      error = {path,
               "is a directory with no log files (*.log, *.out, *.err, *.txt), no Flight "
               "Recorder dumps and no ncclras JSON"};
      return false;
    }
    for (const auto& f : files)
      if (!open_one(f, out, error)) return false;
    return true;
  }
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)) {
    error = {path, "is a device or socket, not a log file"};
    return false;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = {path, std::strerror(errno)};
    return false;
  }
  if (S_ISFIFO(st.st_mode)) {
    std::string data, err;
    bool ok = read_fd(fd, data, err);
    ::close(fd);
    if (!ok) {
      error = {path, "cannot be read: " + err};
      return false;
    }
    out.emplace_back(path, std::string_view(), nullptr, 0, std::move(data));
    return true;
  }
  std::size_t len = static_cast<std::size_t>(st.st_size);
  if (len == 0) {
    ::close(fd);
    out.emplace_back(path, std::string_view(), nullptr, 0, std::string());
    return true;
  }
  void* map = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  // A big file is scanned through read() (InputFile::read); a bounded number are kept
  // open for it, so thousands of per-rank logs cannot exhaust the descriptors.
  constexpr std::size_t kReadFrom = std::size_t{8} << 20;
  bool keep = false;
  if (map != MAP_FAILED && len >= kReadFrom) {
    keep = ++kept_open <= kKeptOpenAtMost;
    if (!keep) --kept_open;
  }
  if (!keep) ::close(fd);
  if (map == MAP_FAILED) {
    // Some files (procfs, some network filesystems) cannot be mapped; read them instead.
    int fd2 = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    std::string data, err;
    if (fd2 < 0 || !read_fd(fd2, data, err)) {
      if (fd2 >= 0) ::close(fd2);
      error = {path, std::string("cannot be read: ") + std::strerror(map_errno)};
      return false;
    }
    ::close(fd2);
    out.emplace_back(path, std::string_view(), nullptr, 0, std::move(data));
    return true;
  }
  ::madvise(map, len, MADV_SEQUENTIAL);
  std::string_view text(static_cast<const char*>(map), len);
  if (auto hint = compressed_hint(text.substr(0, 8)); !hint.empty()) {
    ::munmap(map, len);
    if (keep) {
      ::close(fd);
      --kept_open;
    }
    error = {path, hint};
    return false;
  }
  out.emplace_back(path, text, map, len, std::string());
  if (keep) out.back().keep_open(fd);
  return true;
}

}  // namespace

bool list_directory_inputs(const std::string& dir, std::vector<std::string>& out,
                           std::string& error) {
  namespace fs = std::filesystem;
  out.clear();
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (!it->is_regular_file(ec2)) continue;
    std::string name = it->path().filename().string();
    if (looks_like_log(name) || is_evidence_file(name, it->path().string()))
      out.push_back(it->path().string());
  }
  if (ec) {
    error = ec.message();
    return false;
  }
  std::sort(out.begin(), out.end());
  return true;
}

bool open_inputs(const std::vector<std::string>& args, std::vector<InputFile>& out,
                 InputError& error) {
  out.reserve(out.size() + args.size());
  for (const auto& a : args)
    if (!open_one(a, out, error)) return false;
  return true;
}

}  // namespace ff::cli
