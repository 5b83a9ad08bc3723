#include "cli/log_follower.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cli/input_files.hpp"

namespace ff::cli {

namespace {

long long mtime_ns(const struct stat& st) {
  return static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

// Directories are listed every few polls: a new log file is news within a fraction of a
// second, and listing is the only cost of following a folder that does not change.
constexpr unsigned kPollsPerListing = 5;

}  // namespace

LogFollower::~LogFollower() {
  for (auto& in : inputs_)
    if (!in.is_stdin) close_input(in);
}

bool LogFollower::add(const std::string& arg, std::string& error) {
  if (arg == "-") {
    for (const auto& in : inputs_)
      if (in.is_stdin) {
        error = "'-' (standard input) is given twice";
        return false;
      }
    Input in;
    in.name = "<stdin>";
    in.is_stdin = true;
    in.fd = STDIN_FILENO;
    inputs_.push_back(std::move(in));
    return true;
  }
  struct stat st {};
  if (::stat(arg.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      dirs_.push_back({arg, {}});
      std::vector<FollowNotice> ignored;
      poll_directories(ignored);
      return true;
    }
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)) {
      error = "is a device or socket, not a log file";
      return false;
    }
  }
  for (const auto& in : inputs_)
    if (in.name == arg) return true;  // named twice: followed once
  Input in;
  in.name = arg;
  inputs_.push_back(std::move(in));
  return true;
}

void LogFollower::read_whole(std::size_t i) {
  inputs_[i].whole = true;
  inputs_[i].size_seen = -1;  // read it whole at the next poll
}

bool LogFollower::all_ended() const {
  if (!dirs_.empty() || inputs_.empty()) return false;
  return std::all_of(inputs_.begin(), inputs_.end(), [](const Input& in) { return in.ended; });
}

int LogFollower::stdin_fd() const {
  for (const auto& in : inputs_)
    if (in.is_stdin && !in.ended) return in.fd;
  return -1;
}

void LogFollower::say(Input& in, const std::string& message, std::vector<FollowNotice>& notices) {
  if (in.said == message) return;
  in.said = message;
  notices.push_back({in.name, message});
}

void LogFollower::close_input(Input& in) {
  if (in.fd >= 0) ::close(in.fd);
  in.fd = -1;
}

char* LogFollower::ReadBuffer::room(std::size_t n) {
  if (size_ + n > capacity_) {
    std::size_t cap = std::max(size_ + n, capacity_ * 2);
    auto bigger = std::make_unique_for_overwrite<char[]>(cap);
    if (size_) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = cap;
  }
  return data_.get() + size_;
}

void LogFollower::ReadBuffer::reuse() {
  if (capacity_ > (std::size_t{1} << 20) && size_ < (std::size_t{256} << 10)) {
    data_.reset();
    capacity_ = 0;
  }
  size_ = 0;
}

bool LogFollower::read_more(Input& in, ReadBuffer& out, std::string& why) {
  // A file is read as far as its size said (and a little more, for what was appended since);
  // standard input in pipe-sized steps. The buffer grows only by what is read: zeroing room
  // that stays empty costs more than the scan at a watch's rates.
  constexpr std::size_t kStdinStep = std::size_t{64} << 10;
  while (out.size() < kMaxReadPerPoll) {
    std::size_t step = kStdinStep;
    if (!in.is_stdin) {
      // The size stat() gave this poll, then (for what was appended since) one more step.
      step = in.size > in.offset ? static_cast<std::size_t>(in.size - in.offset) : kStdinStep;
      step = std::min(step, kMaxReadPerPoll - out.size());
    }
    char* to = out.room(step);
    ssize_t n = in.is_stdin ? ::read(in.fd, to, step) : ::pread(in.fd, to, step, in.offset);
    if (n > 0) out.grew(static_cast<std::size_t>(n));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      why = std::strerror(errno);
      return false;
    }
    in.offset += n;
    if (n == 0) {
      if (in.is_stdin) in.ended = true;
      break;
    }
    // Standard input: one read per readiness, which never blocks; a file: up to the size its
    // stat gave (what is appended meanwhile is read at the next poll).
    if (in.is_stdin || static_cast<std::size_t>(n) < step || in.offset >= in.size) break;
  }
  return true;
}

void LogFollower::poll(const ChangeSink& sink, std::vector<FollowNotice>& notices) {
  if (!dirs_.empty() && polls_++ % kPollsPerListing == 0) poll_directories(notices);
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].ended) continue;
    if (inputs_[i].is_stdin)
      poll_stdin(i, sink, notices);
    else
      poll_file(i, sink, notices);
  }
}

void LogFollower::poll_stdin(std::size_t i, const ChangeSink& sink,
                             std::vector<FollowNotice>& notices) {
  Input& in = inputs_[i];
  ReadBuffer& got = buffer_;
  got.reuse();
  for (;;) {
    struct pollfd p {
      in.fd, POLLIN, 0
    };
    int r = ::poll(&p, 1, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || got.size() >= kMaxReadPerPoll) break;
    std::string why;
    if (!read_more(in, got, why)) {
      say(in, "cannot be read: " + why + "; it is read as ended", notices);
      in.ended = true;
    }
    if (in.ended) break;
  }
  if (got.size()) sink(FollowChange{i, FollowChange::Kind::kAppended, got.view()});
  if (in.ended) sink(FollowChange{i, FollowChange::Kind::kEnded, {}});
}

void LogFollower::poll_file(std::size_t i, const ChangeSink& sink,
                            std::vector<FollowNotice>& notices) {
  Input& in = inputs_[i];
  struct stat st {};
  const bool there = ::stat(in.name.c_str(), &st) == 0;
  const int stat_errno = there ? 0 : errno;
  if (there) in.size = st.st_size;
  if (there && S_ISDIR(st.st_mode)) {
    say(in, "is a directory now; watching for a file of that name", notices);
    close_input(in);
    return;
  }
  // Replaced (rotated) or deleted: what the old file still holds is read first, as tail -F
  // does, then the name is followed.
  const bool replaced = in.fd >= 0 && there && (st.st_dev != in.dev || st.st_ino != in.ino);
  if (in.fd >= 0 && (!there || replaced) && !in.whole) {
    ReadBuffer& last = buffer_;
    last.reuse();
    std::string why;
    read_more(in, last, why);
    if (last.size()) sink(FollowChange{i, FollowChange::Kind::kAppended, last.view()});
  }
  if (in.fd >= 0 && (!there || replaced)) close_input(in);
  if (!there) {
    const int err = stat_errno;
    if (err == ENOENT || err == ENOTDIR) {
      if (in.dev) in.gone = true;
      say(in,
          in.dev ? "was deleted; watching for it to come back"
                 : "does not exist (yet); "
                   "watching for it",
          notices);
    } else {
      say(in, std::string("cannot be read: ") + std::strerror(err) + "; trying again", notices);
    }
    return;
  }
  bool restart = false;
  if (in.fd < 0) {
    int fd = ::open(in.name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      say(in, std::string("cannot be opened: ") + std::strerror(errno) + "; trying again", notices);
      return;
    }
    struct stat fst {};
    if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
      ::close(fd);
      say(in, "is not a regular file; watching for one", notices);
      return;
    }
    // The file read before (opened again after a read error) goes on where it was; another
    // file under this name is a new one: its lines start again.
    const bool same = !in.gone && in.dev != 0 && fst.st_dev == in.dev && fst.st_ino == in.ino;
    restart = in.dev != 0 && !same;
    if (restart)
      say(in,
          replaced ? "was replaced (rotated); reading the new file from its start"
                   : "is back; reading it from its start",
          notices);
    else if (!in.said.empty())
      say(in, same ? "is readable again; going on" : "appeared; following it", notices);
    in.said.clear();
    in.gone = false;
    in.fd = fd;
    in.dev = fst.st_dev;
    in.ino = fst.st_ino;
    if (!same) in.offset = 0;
    st = fst;
    in.size = st.st_size;
  }
  if (in.whole) {
    if (st.st_size == in.size_seen && mtime_ns(st) == in.mtime_seen && !restart) return;
    in.size_seen = st.st_size;
    in.mtime_seen = mtime_ns(st);
    in.offset = 0;
    ReadBuffer& whole = buffer_;
    whole.reuse();
    std::string why;
    while (read_more(in, whole, why) && in.offset < st.st_size && whole.size() < kMaxReadPerPoll) {
    }
    sink(FollowChange{i, FollowChange::Kind::kWhole, whole.view()});
    return;
  }
  if (st.st_size < in.offset) {
    say(in, "was truncated; reading it again from its start", notices);
    in.offset = 0;
    restart = true;
  }
  ReadBuffer& got = buffer_;
  got.reuse();
  if (st.st_size > in.offset || restart) {
    std::string why;
    if (!read_more(in, got, why)) {
      say(in, "cannot be read: " + why + "; trying again", notices);
      close_input(in);  // opened again at the next poll, going on from `offset`
    }
  }
  if (got.size() || restart)
    sink(FollowChange{i, restart ? FollowChange::Kind::kRestarted : FollowChange::Kind::kAppended,
                      got.view()});
}

void LogFollower::poll_directories(std::vector<FollowNotice>& notices) {
  for (auto& d : dirs_) {
    std::vector<std::string> files;
    std::string why;
    if (!list_directory_inputs(d.path, files, why)) {
      std::string msg = "cannot be listed: " + why + "; trying again";
      if (d.said != msg) notices.push_back({d.path, msg});
      d.said = msg;
      continue;
    }
    d.said.clear();
    for (auto& f : files) {
      bool known = std::any_of(inputs_.begin(), inputs_.end(),
                               [&](const Input& in) { return in.name == f; });
      if (known) continue;
      Input in;
      in.name = std::move(f);
      inputs_.push_back(std::move(in));
    }
  }
}

}  // namespace ff::cli
