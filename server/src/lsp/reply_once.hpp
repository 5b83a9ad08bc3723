// The handle to one request of the request table (clangd's ReplyOnce): the protocol adapter
// takes it when it dispatches the request and moves it along while the request waits (for
// an analysis, a worker, the requests before a shutdown). The table sends at most one reply
// per request (request_table.hpp); this handle counts a second answer through it as the bug
// it is (logged, not sent). Destroyed without an answer, it answers with an error, unless
// the table answered the request meanwhile (cancelled, or abandoned at exit): no path can
// leave a request unanswered. Main loop only.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "lsp/cancel_token.hpp"

namespace ff::lsp {

class RequestTable;

// A request's place in the table, in arrival order.
using RequestSeq = std::uint64_t;

class ReplyOnce {
 public:
  ReplyOnce(RequestTable& table, RequestSeq seq, nlohmann::json id, std::string method,
            CancelToken token);
  ReplyOnce(ReplyOnce&& o) noexcept;
  ReplyOnce& operator=(ReplyOnce&& o) noexcept;
  ReplyOnce(const ReplyOnce&) = delete;
  ReplyOnce& operator=(const ReplyOnce&) = delete;
  ~ReplyOnce();

  void result(nlohmann::json r);
  void error(int code, const std::string& message);
  // The result, sent once every request started before this one is answered (shutdown's).
  void result_after_earlier(nlohmann::json r);

  const nlohmann::json& id() const { return id_; }
  const std::string& method() const { return method_; }
  const CancelToken& token() const { return token_; }

 private:
  bool claim();                    // false (and counted) when already answered
  RequestTable* table_ = nullptr;  // null once moved from
  RequestSeq seq_ = 0;
  nlohmann::json id_;
  std::string method_;
  CancelToken token_;
  bool replied_ = false;
};

}  // namespace ff::lsp
