// Files the language server reads from disk itself (a log the editor does not synchronize, a
// folder's logs), through the DiskFileReader seam: their reading on a worker, and following
// them as they grow. A followed file is checked on a main-loop timer: what it grew by
// is read on a worker from the last offset and handed to `on_growth` (a file now shorter was
// truncated or replaced, and is handed over whole). Evidence files (Flight Recorder dumps,
// NCCL RAS output: held as the lines they were read as) are not followed.
//
// It knows nothing of documents or analyses: the AnalysisServer holds what it reads as
// documents and schedules their analysis. Threads: every call is made on the main loop,
// except the work functions read_file() and read_folder() return, which run on a worker.
#pragma once

#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lsp/cancel_token.hpp"
#include "lsp/disk_file_reader.hpp"
#include "lsp/scheduler.hpp"

namespace ff::lsp {

class DiskFollower {
 public:
  // A followed file's new bytes: the whole file again (`whole`), or what was appended.
  struct Growth {
    std::string uri;
    std::int64_t version = 0;  // the document's next version
    bool whole = false;
    std::string bytes;
  };
  using OnGrowth = std::function<void(Growth)>;
  // Main loop: a folder's file read (done of total).
  using FolderProgress =
      std::function<void(std::size_t done, std::size_t total, const std::string& file)>;
  struct FolderRead {
    std::vector<std::string> paths;
    std::vector<DiskFileReader::Piece> pieces;
    std::vector<std::string> problems;  // "PATH: what", from DiskFileReader::read_evidence
  };

  // `reader` may be null: then nothing can be read (reads() is false).
  DiskFollower(Scheduler& scheduler, std::shared_ptr<DiskFileReader> reader, int watch_ms,
               OnGrowth on_growth);
  DiskFollower(const DiskFollower&) = delete;
  DiskFollower& operator=(const DiskFollower&) = delete;

  bool reads() const { return reader_ != nullptr; }
  // Work for a worker: a file read whole (a dump or RAS output read for its conclusions),
  // and a folder's inputs read one after the other, `progress` posted to the main loop
  // after each, stopping (with an exception) before the next file once `token` is cancelled.
  std::function<DiskFileReader::Piece()> read_file(const std::string& path) const;
  std::function<std::shared_ptr<FolderRead>()> read_folder(const std::string& dir,
                                                           CancelToken token,
                                                           FolderProgress progress) const;

  // Follows a file read whole from `piece`; returns the version its document gets.
  std::int64_t adopt(const std::string& uri, const std::string& path,
                     const DiskFileReader::Piece& piece);
  bool follows(const std::string& uri) const { return files_.count(uri) > 0; }
  std::size_t bytes_read(const std::string& uri) const;
  // Stops following a file; false if it was not followed.
  bool forget(const std::string& uri) { return files_.erase(uri) > 0; }
  // Arms the growth check when a file is followed (again after each check).
  void watch();
  // Before the scheduler stops: the timer goes, reads that end later are dropped.
  void stop();

 private:
  struct File {
    std::string path;
    std::size_t offset = 0;  // bytes read so far
    std::int64_t version = 1;
    bool reading = false;   // a poll's read is on a worker
    bool evidence = false;  // held as the lines its evidence was read as: not polled
  };
  void poll();
  void on_piece(const std::string& uri, DiskFileReader::Piece piece);

  Scheduler& scheduler_;
  std::shared_ptr<DiskFileReader> reader_;
  int watch_ms_;
  OnGrowth on_growth_;
  std::unique_ptr<boost::asio::steady_timer> timer_;
  std::map<std::string, File> files_;
  bool armed_ = false;
  bool stopped_ = false;
};

}  // namespace ff::lsp
