// Layer 4: where work runs. One protocol thread (an asio io_context) owns the FeatureServer
// and handles every message in arrival order; one analysis thread (an asio thread_pool of
// size 1) runs the analyses, so a long scan never delays a hover; the stdin reader is the
// caller's thread and only frames, parses and cancels. Debounce timers are asio timers on the
// protocol thread.
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
  Scheduler() : work_(boost::asio::make_work_guard(io_)), pool_(1) {
    thread_ = std::thread([this] { io_.run(); });
  }
  ~Scheduler() { shutdown(); }
  // Stops the protocol thread, then waits for the analysis thread's current job. That job
  // may still post() to the protocol thread: the post is accepted and never runs, so the
  // scheduler must still exist while it finishes (call this before destroying it).
  void shutdown() {
    work_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
    pool_.stop();
    pool_.join();
  }
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  boost::asio::io_context& io() { return io_; }
  // Runs `f` on the protocol thread, after everything posted before it.
  void post(std::function<void()> f) { boost::asio::post(io_, std::move(f)); }
  // Runs `f` on the analysis thread.
  void post_analysis(std::function<void()> f) { boost::asio::post(pool_, std::move(f)); }
  bool on_protocol_thread() const { return std::this_thread::get_id() == thread_.get_id(); }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::thread_pool pool_;
  std::thread thread_;
};

}  // namespace ff::lsp
