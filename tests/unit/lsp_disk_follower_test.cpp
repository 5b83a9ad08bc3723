// Files read from disk and followed as they grow (lsp/disk_follower.hpp), alone: a fake
// DiskFileReader stands for the disk, a real Scheduler for the threads.
#include <atomic>
#include <catch2/catch.hpp>
#include <future>
#include <map>
#include <mutex>

#include "lsp/disk_follower.hpp"

using namespace ff::lsp;

namespace {

class FakeDisk : public DiskFileReader {
 public:
  void write(const std::string& path, std::string text) {
    std::lock_guard<std::mutex> lock(mu_);
    files_[path] = std::move(text);
  }
  Piece read_from(const std::string& path, std::size_t from) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = files_.find(path);
    if (it == files_.end()) throw std::runtime_error("no such file: " + path);
    const std::string& t = it->second;
    if (t.size() < from) from = 0;  // truncated or replaced: read whole
    return {t.substr(from), from, t.size(), false};
  }
  std::vector<std::string> list_inputs(const std::string& dir) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const auto& [path, text] : files_)
      if (path.rfind(dir + "/", 0) == 0) out.push_back(path);
    return out;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::string> files_;
};

// Runs `f` on the protocol thread and waits for it.
template <class F>
auto on_main_loop(Scheduler& s, F f) {
  std::promise<decltype(f())> done;
  s.post([&] { done.set_value(f()); });
  return done.get_future().get();
}

}  // namespace

TEST_CASE("disk follower: growth is read from the last offset, a shorter file whole", "[lsp]") {
  auto disk = std::make_shared<FakeDisk>();
  disk->write("/j/a.log", "one\n");
  Scheduler scheduler;
  std::mutex mu;
  std::vector<DiskFollower::Growth> grown;
  std::promise<void> two;
  DiskFollower follower(scheduler, disk, 10, [&](DiskFollower::Growth g) {
    std::lock_guard<std::mutex> lock(mu);
    grown.push_back(std::move(g));
    if (grown.size() == 2) two.set_value();
  });
  REQUIRE(follower.reads());
  auto piece = follower.read_file("/j/a.log")();
  CHECK(piece.bytes == "one\n");
  std::int64_t version = on_main_loop(scheduler, [&] {
    auto v = follower.adopt("file:///j/a.log", "/j/a.log", piece);
    follower.watch();
    return v;
  });
  CHECK(follower.bytes_read("file:///j/a.log") == 4);
  disk->write("/j/a.log", "one\ntwo\n");
  // Wait for the append to be seen before the file is replaced by a shorter one.
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!grown.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  disk->write("/j/a.log", "new\n");
  REQUIRE(two.get_future().wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  on_main_loop(scheduler, [&] {
    follower.stop();
    return 0;
  });
  std::lock_guard<std::mutex> lock(mu);
  CHECK(grown[0].uri == "file:///j/a.log");
  CHECK(grown[0].version == version + 1);
  CHECK_FALSE(grown[0].whole);
  CHECK(grown[0].bytes == "two\n");
  CHECK(grown[1].whole);
  CHECK(grown[1].bytes == "new\n");
  CHECK(grown[1].version == version + 2);
  scheduler.shutdown();
}

TEST_CASE("disk follower: a folder is read file by file and stops when told", "[lsp]") {
  auto disk = std::make_shared<FakeDisk>();
  disk->write("/j/rank0.log", "zero\n");
  disk->write("/j/rank1.log", "one\n");
  disk->write("/k/other.log", "other\n");
  Scheduler scheduler;
  DiskFollower follower(scheduler, disk, 1000, [](DiskFollower::Growth) {});
  std::atomic<int> reports{0};
  CancelToken stop;
  auto read =
      follower.read_folder("/j", stop, [&](std::size_t, std::size_t total, const std::string&) {
        CHECK(total == 2);
        ++reports;
      })();
  CHECK(read->paths == std::vector<std::string>{"/j/rank0.log", "/j/rank1.log"});
  REQUIRE(read->pieces.size() == 2);
  CHECK(read->pieces[1].bytes == "one\n");
  stop.cancel();
  CHECK_THROWS(follower.read_folder("/j", stop, nullptr)());
  on_main_loop(scheduler, [&] {
    CHECK_FALSE(follower.follows("file:///j/rank0.log"));
    follower.adopt("file:///j/rank0.log", "/j/rank0.log", read->pieces[0]);
    CHECK(follower.follows("file:///j/rank0.log"));
    CHECK(follower.forget("file:///j/rank0.log"));
    CHECK_FALSE(follower.forget("file:///j/rank0.log"));
    follower.stop();
    return 0;
  });
  for (int i = 0; i < 200 && reports.load() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(reports.load() == 2);
  scheduler.shutdown();
}
