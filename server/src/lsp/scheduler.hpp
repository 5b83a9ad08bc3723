// Where work runs. One protocol thread (an asio io_context) runs the protocol adapter and
// the AnalysisServer's bookkeeping, handling every message in arrival order; one analysis
// thread (an asio thread_pool of size 1) runs the analyses, so a long scan never delays a
// hover; worker threads (a pool of two) run the other slow work: topology discovery, folder
// reads, fix computation, a one-off analysis of a selection. The stdin reader is the
// caller's thread and only frames, parses and cancels. Debounce timers are asio timers on
// the protocol thread. Results come back to the protocol thread with post().
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <functional>
#include <thread>

namespace ff::lsp {

class Scheduler {
 public:
  Scheduler() : work_(boost::asio::make_work_guard(io_)), pool_(1), workers_(2) {
    thread_ = std::thread([this] { io_.run(); });
  }
  ~Scheduler() { shutdown(); }
  // Stops the protocol thread, then waits for the analysis and worker threads' current
  // jobs. Those may still post() to the protocol thread: the post is accepted and never runs, so
  // the scheduler must still exist while it finishes (call this before destroying it).
  void shutdown() {
    work_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
    pool_.stop();
    pool_.join();
    workers_.stop();
    workers_.join();
  }
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  boost::asio::io_context& io() { return io_; }
  // Runs `f` on the protocol thread, after everything posted before it.
  void post(std::function<void()> f) { boost::asio::post(io_, std::move(f)); }
  // Runs `f` on the analysis thread.
  void post_analysis(std::function<void()> f) { boost::asio::post(pool_, std::move(f)); }
  // Runs `f` on a worker thread (slow work that is not the document analysis).
  void post_work(std::function<void()> f) { boost::asio::post(workers_, std::move(f)); }
  bool on_protocol_thread() const { return std::this_thread::get_id() == thread_.get_id(); }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::thread_pool pool_;
  boost::asio::thread_pool workers_;
  std::thread thread_;
};

}  // namespace ff::lsp
