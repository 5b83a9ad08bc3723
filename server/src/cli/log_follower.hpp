// Following logs while a job writes them, the way `tail -F` does: files are read from their
// first byte and then as they grow; a file truncated or replaced under its name (log
// rotation) is read again from its start; a file deleted or unreadable is reported and
// looked for again; a directory's log files are followed, and so are the ones that appear in
// it later; "-" is standard input, read until it ends. No analysis here: bytes and notices
// out, for `firstfault watch`.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ff::cli {

// What happened to one input during a poll.
struct FollowChange {
  enum class Kind {
    kAppended,   // `bytes` were appended
    kRestarted,  // the input starts again (truncated or replaced); `bytes` are its first
    kWhole,      // an input read whole (read_whole): `bytes` are all of it, again
    kEnded,      // standard input reached its end (files never end: they may grow)
  };
  std::size_t input = 0;
  Kind kind = Kind::kAppended;
  // Valid only during the call that hands the change over: every input is read into one
  // buffer the follower keeps (a fresh buffer per read, or one per input, cost more in page
  // faults than the scan of what it held).
  std::string_view bytes;
};

// Something the user should know (a file deleted, unreadable, a new file found); each is
// said once, until the input's state changes again.
struct FollowNotice {
  std::string path;
  std::string message;
};

class LogFollower {
 public:
  // The most bytes read from one input per poll, so that one fast writer cannot delay the
  // others' news.
  static constexpr std::size_t kMaxReadPerPoll = std::size_t{8} << 20;

  LogFollower() = default;
  LogFollower(const LogFollower&) = delete;
  LogFollower& operator=(const LogFollower&) = delete;
  ~LogFollower();

  // Adds what an argument names. False, with `error`, for an argument that can never be
  // followed (a device, a socket, "-" twice). A path that does not exist yet is followed as
  // a file that may appear.
  bool add(const std::string& arg, std::string& error);

  // Takes each change as it is read; new inputs (files appearing in a followed directory)
  // are known (inputs(), name()) before their first change is handed over.
  using ChangeSink = std::function<void(const FollowChange&)>;
  // Reads what changed since the last poll, handing each change to `sink` at once. Never
  // blocks (standard input included).
  void poll(const ChangeSink& sink, std::vector<FollowNotice>& notices);

  // From now on input `i` is read whole whenever it changes (a summary, which its writer
  // replaces instead of appending to).
  void read_whole(std::size_t i);

  std::size_t inputs() const { return inputs_.size(); }
  const std::string& name(std::size_t i) const { return inputs_[i].name; }
  // True when every input has ended: only standard input ends, so only a watch of "-" alone.
  bool all_ended() const;
  // Standard input's descriptor while it is followed and open (to wait on), else -1.
  int stdin_fd() const;

 private:
  // Bytes read, in memory reused from poll to poll and never zeroed before a read: at a
  // watch's rates, a fresh or zero-filled buffer per read cost more than the scan.
  class ReadBuffer {
   public:
    // Room for `n` more bytes at the end (the bytes held are kept).
    char* room(std::size_t n);
    void grew(std::size_t n) { size_ += n; }
    // Emptied for the next read; memory grown by a burst is let go once reads are small
    // again, so the buffer does not keep kMaxReadPerPoll after one large read.
    void reuse();
    std::size_t size() const { return size_; }
    std::string_view view() const { return {data_.get(), size_}; }

   private:
    std::unique_ptr<char[]> data_;
    std::size_t capacity_ = 0, size_ = 0;
  };
  struct Input {
    std::string name;  // the path, or "<stdin>"
    bool is_stdin = false;
    bool whole = false;
    int fd = -1;
    dev_t dev = 0;
    ino_t ino = 0;
    // The name was seen absent after a file was read under it: whatever appears next is a new
    // file, even with the same inode number (tmpfs and ext4 reuse a freed one at once).
    bool gone = false;
    off_t offset = 0;
    off_t size = 0;        // the size the last stat() gave
    off_t size_seen = -1;  // whole inputs: size and modification time last read
    long long mtime_seen = -1;
    bool ended = false;
    std::string said;  // the last notice given, so it is not repeated
  };
  struct Directory {
    std::string path;
    std::string said;
  };

  void poll_file(std::size_t i, const ChangeSink& sink, std::vector<FollowNotice>& notices);
  void poll_stdin(std::size_t i, const ChangeSink& sink, std::vector<FollowNotice>& notices);
  void poll_directories(std::vector<FollowNotice>& notices);
  // Reads from the input's descriptor at its offset, at most kMaxReadPerPoll; false on a read
  // error (`why`).
  bool read_more(Input& in, ReadBuffer& out, std::string& why);
  void say(Input& in, const std::string& message, std::vector<FollowNotice>& notices);
  void close_input(Input& in);

  std::vector<Input> inputs_;
  std::vector<Directory> dirs_;
  ReadBuffer buffer_;  // every read, handed over before the next one
  unsigned polls_ = 0;
};

}  // namespace ff::cli
