#include "lsp/disk_follower.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>

namespace ff::lsp {

DiskFollower::DiskFollower(Scheduler& scheduler, std::shared_ptr<DiskFileReader> reader,
                           int watch_ms, OnGrowth on_growth)
    : scheduler_(scheduler),
      reader_(std::move(reader)),
      watch_ms_(watch_ms),
      on_growth_(std::move(on_growth)),
      timer_(std::make_unique<boost::asio::steady_timer>(scheduler.io())) {}

std::function<DiskFileReader::Piece()> DiskFollower::read_file(const std::string& path) const {
  return [reader = reader_, path] {
    // A Flight Recorder dump or RAS output is read for its conclusions.
    std::vector<DiskFileReader::Piece> one{reader->read_from(path, 0)};
    for (const auto& p : reader->read_evidence({path}, one)) spdlog::warn("{}", p);
    return std::move(one.front());
  };
}

std::function<std::shared_ptr<DiskFollower::FolderRead>()> DiskFollower::read_folder(
    const std::string& dir, CancelToken token, FolderProgress progress) const {
  return [reader = reader_, &scheduler = scheduler_, dir, token, progress] {
    auto read = std::make_shared<FolderRead>();
    read->paths = reader->list_inputs(dir);
    for (std::size_t i = 0; i < read->paths.size(); ++i) {
      if (token.cancelled()) throw std::runtime_error("cancelled");  // answered already
      read->pieces.push_back(reader->read_from(read->paths[i], 0));
      if (progress)
        scheduler.post(
            [progress, i, n = read->paths.size(), p = read->paths[i]] { progress(i + 1, n, p); });
    }
    // One job: the dumps are compared across ranks, RAS output read for its ranks.
    read->problems = reader->read_evidence(read->paths, read->pieces);
    return read;
  };
}

std::int64_t DiskFollower::adopt(const std::string& uri, const std::string& path,
                                 const DiskFileReader::Piece& piece) {
  auto& f = files_[uri];
  f = File{path, piece.size, f.version + 1, false, piece.evidence};
  return f.version;
}

std::size_t DiskFollower::bytes_read(const std::string& uri) const {
  auto it = files_.find(uri);
  return it == files_.end() ? 0 : it->second.offset;
}

void DiskFollower::watch() {
  if (armed_ || files_.empty() || !timer_ || stopped_) return;
  armed_ = true;
  timer_->expires_after(std::chrono::milliseconds(std::max(10, watch_ms_)));
  timer_->async_wait([this](const boost::system::error_code& ec) {
    armed_ = false;
    if (ec || stopped_) return;
    poll();
    watch();
  });
}

void DiskFollower::stop() {
  stopped_ = true;
  timer_.reset();
}

void DiskFollower::poll() {
  for (auto& [uri, f] : files_) {
    if (f.reading || f.evidence) continue;
    f.reading = true;
    scheduler_.post_work([this, uri = uri, path = f.path, from = f.offset, reader = reader_] {
      try {
        auto piece = std::make_shared<DiskFileReader::Piece>(reader->read_from(path, from));
        scheduler_.post([this, uri, piece] { on_piece(uri, std::move(*piece)); });
      } catch (const std::exception& e) {
        spdlog::debug("{}", e.what());  // gone for now (rotated, deleted): tried again later
        scheduler_.post([this, uri] {
          if (auto it = files_.find(uri); it != files_.end()) it->second.reading = false;
        });
      }
    });
  }
}

void DiskFollower::on_piece(const std::string& uri, DiskFileReader::Piece piece) {
  auto it = files_.find(uri);
  if (it == files_.end() || stopped_) return;  // forgotten or opened by the client
  File& f = it->second;
  f.reading = false;
  if (piece.from == f.offset && piece.bytes.empty()) return;  // unchanged
  ++f.version;
  bool whole = piece.from == 0;
  if (whole) spdlog::info("{}: truncated or replaced; read again ({} bytes)", f.path, piece.size);
  f.offset = piece.size;
  on_growth_({uri, f.version, whole, std::move(piece.bytes)});
}

}  // namespace ff::lsp
