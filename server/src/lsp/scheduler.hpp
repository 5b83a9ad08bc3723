// Where work runs. One main loop (an asio io_context on its own thread) owns the server's
// state and consumes one queue: the client's messages (posted by the reader thread, in
// arrival order), the analysis thread's results, the workers' results and the timers'
// expiries all arrive there as posted functions, and each runs to its end before the next.
// The protocol adapter (LspServer) owns the scheduler and lends it to the AnalysisServer, so
// the adapter's dispatch runs on a thread of its own, not on one a layer below owns. One
// analysis thread (an asio thread_pool of size 1) runs the analyses, so a long scan never
// delays a hover; worker threads (a pool of two) run the other slow work: topology
// discovery, folder reads, fix computation, a one-off analysis of a selection, file-system
// probes. The stdin reader is the caller's thread and only frames, parses and marks
// cancellations. Debounce and watch timers are asio timers on the main loop.
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
  // Stops the main loop, then waits for the analysis and worker threads' current jobs.
  // Those may still post() to the main loop: the post is accepted and never runs, so the
  // scheduler must still exist while they finish (call this before destroying what their
  // jobs point to). Idempotent.
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
  // Runs `f` on the main loop, after everything posted before it.
  void post(std::function<void()> f) { boost::asio::post(io_, std::move(f)); }
  // Runs `f` on the analysis thread.
  void post_analysis(std::function<void()> f) { boost::asio::post(pool_, std::move(f)); }
  // Runs `f` on a worker thread (slow work that is not the document analysis).
  void post_work(std::function<void()> f) { boost::asio::post(workers_, std::move(f)); }
  bool on_main_loop() const { return std::this_thread::get_id() == thread_.get_id(); }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::thread_pool pool_;
  boost::asio::thread_pool workers_;
  std::thread thread_;
};

}  // namespace ff::lsp
