// A request's cancellation, shared by everyone who works on the request. The request table
// (request_table.hpp) sets it: when the client's $/cancelRequest is read, and when the server
// gives up every request at exit. The work reads it: a request that waits for an analysis is
// dropped instead of answered, a worker stops between the files of a folder, and a worker's
// result that comes after is dropped (the table answered the request already). Any thread.
#pragma once

#include <atomic>
#include <memory>

namespace ff::lsp {

class CancelToken {
 public:
  CancelToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  bool cancelled() const { return flag_->load(std::memory_order_acquire); }
  // Copies share the flag: whoever holds one sees the cancellation.
  void cancel() const { flag_->store(true, std::memory_order_release); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

}  // namespace ff::lsp
