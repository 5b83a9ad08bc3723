// The client's requests that have no reply yet: the one place that knows them. Each entry is
// a request with its cancellation token (cancel_token.hpp), in arrival order, and each is
// answered exactly once, from here:
//   - the reader thread records a request as it is read (accept), and sets a request's token
//     as soon as its $/cancelRequest is read (mark_cancelled): the request may still be
//     queued behind slow work on the main loop, and must not start once it gets there;
//   - the main loop starts it (start: the ReplyOnce the adapter answers it through), and at
//     the $/cancelRequest answers a started one with RequestCancelled at once (cancel): a
//     request waiting for an analysis or a worker does not wait for it;
//   - a result for a request whose token is set is answered RequestCancelled instead (the
//     client gave up on it);
//   - an answer held until the requests started before it are answered (shutdown's) goes out
//     once they are;
//   - at exit, abandon_started answers every started request with RequestFailed, then the
//     held answers.
// Replies are sent by the main loop only, outside the table's lock, in the order they are
// made; the lock is shared with the reader thread's two calls only.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lsp/cancel_token.hpp"
#include "lsp/reply_once.hpp"

namespace ff::lsp {

class RequestTable {
 public:
  // Writes one JSON-RPC response (any thread; one whole message at a time).
  using Send = std::function<void(const nlohmann::json& message)>;
  explicit RequestTable(Send send) : send_(std::move(send)) {}
  RequestTable(const RequestTable&) = delete;
  RequestTable& operator=(const RequestTable&) = delete;

  // Reader thread: a request was read; its place in the table.
  RequestSeq accept(const nlohmann::json& id, const std::string& method);
  // Reader thread: $/cancelRequest for `id` was read: the token of each request with that id
  // not answered yet is set. Cancelling an unknown or answered request does nothing.
  void mark_cancelled(const nlohmann::json& id);
  // Any thread: the one reply of a message refused before it became a request (malformed);
  // `id` is null when it has none that can be trusted.
  void reject(const nlohmann::json& id, int code, const std::string& message);

  // Main loop: the request accepted as `seq` is dispatched; the handle that answers it.
  ReplyOnce start(RequestSeq seq);
  // Main loop, at $/cancelRequest: each started request with `id` is answered
  // RequestCancelled now, except a held answer, which goes out as RequestCancelled when due.
  void cancel(const nlohmann::json& id);
  // Main loop, at exit: every started request is answered RequestFailed with `why`, then
  // the held answers are sent.
  void abandon_started(const std::string& why);

  // Answers attempted on a request that was already answered (a bug; 0 in every test).
  std::size_t replied_twice() const { return replied_twice_; }

 private:
  friend class ReplyOnce;
  struct Entry {
    nlohmann::json id;
    std::string key;  // id_key(id)
    std::string method;
    CancelToken token;
    bool started = false;
    std::optional<nlohmann::json> held;  // a result waiting for the requests before it
  };
  // ReplyOnce's calls (main loop). Each sends nothing when the request is no longer open.
  void answer(RequestSeq seq, nlohmann::json result);
  void fail(RequestSeq seq, int code, const std::string& message);
  void hold(RequestSeq seq, nlohmann::json result);
  // A handle dropped unanswered: an error, logged, unless the table answered it already.
  void fail_unanswered(RequestSeq seq, const std::string& method);
  void count_replied_twice() { ++replied_twice_; }

  // Under the lock: the entry's response (RequestCancelled when its token is set) and the
  // held answers now due, appended to `out`; the entry is removed.
  void close_locked(std::map<RequestSeq, Entry>::iterator it, nlohmann::json response,
                    std::vector<nlohmann::json>& out);
  void release_held_locked(std::vector<nlohmann::json>& out);
  void send_all(std::vector<nlohmann::json>& out);

  Send send_;
  std::mutex mu_;
  std::map<RequestSeq, Entry> entries_;  // not answered yet, in arrival order
  RequestSeq next_ = 0;
  std::atomic<std::size_t> replied_twice_{0};
};

}  // namespace ff::lsp
