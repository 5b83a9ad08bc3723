// The one reply a JSON-RPC request gets (clangd's ReplyOnce). The protocol adapter wraps
// every request it takes in one and moves it along while the request waits (for an
// analysis, or behind other requests at shutdown). A second reply is a bug: it is logged,
// counted and not sent. Destroyed without a reply, it answers with an error, so no path can
// leave a request unanswered. Protocol thread only.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ff::lsp {

class ReplyOnce {
 public:
  // Where the reply goes (the protocol adapter). Private: only a ReplyOnce sends replies.
  class Sink {
   public:
    virtual ~Sink() = default;

   private:
    friend class ReplyOnce;
    virtual void send_result(const nlohmann::json& id, nlohmann::json result) = 0;
    virtual void send_error(const nlohmann::json& id, int code, const std::string& message) = 0;
    virtual void count_replied_twice() = 0;  // the bug, counted
  };

  ReplyOnce(Sink& sink, nlohmann::json id, std::string method);
  ReplyOnce(ReplyOnce&& o) noexcept;
  ReplyOnce& operator=(ReplyOnce&& o) noexcept;
  ReplyOnce(const ReplyOnce&) = delete;
  ReplyOnce& operator=(const ReplyOnce&) = delete;
  ~ReplyOnce();
  void result(nlohmann::json r);
  void error(int code, const std::string& message);
  const nlohmann::json& id() const { return id_; }
  const std::string& method() const { return method_; }

 private:
  bool claim();           // false (and logged) when already replied
  Sink* sink_ = nullptr;  // null once moved from
  nlohmann::json id_;
  std::string method_;
  bool replied_ = false;
};

}  // namespace ff::lsp
