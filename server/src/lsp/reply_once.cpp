#include "lsp/reply_once.hpp"

#include <spdlog/spdlog.h>

#include <utility>

#include "lsp/lsp_json.hpp"

namespace ff::lsp {

ReplyOnce::ReplyOnce(Sink& sink, nlohmann::json id, std::string method)
    : sink_(&sink), id_(std::move(id)), method_(std::move(method)) {}

ReplyOnce::ReplyOnce(ReplyOnce&& o) noexcept
    : sink_(std::exchange(o.sink_, nullptr)),
      id_(std::move(o.id_)),
      method_(std::move(o.method_)),
      replied_(o.replied_) {}

ReplyOnce& ReplyOnce::operator=(ReplyOnce&& o) noexcept {
  if (this != &o) {
    if (sink_ && !replied_) error(kInternalError, "server failed to reply to " + method_);
    sink_ = std::exchange(o.sink_, nullptr);
    id_ = std::move(o.id_);
    method_ = std::move(o.method_);
    replied_ = o.replied_;
  }
  return *this;
}

ReplyOnce::~ReplyOnce() {
  if (!sink_ || replied_) return;
  spdlog::error("{} (id {}) was never answered; replying with an error", method_, id_.dump());
  try {
    error(kInternalError, "server failed to reply to " + method_);
  } catch (...) {
  }
}

bool ReplyOnce::claim() {
  if (!sink_) return false;
  if (replied_) {
    sink_->count_replied_twice();
    spdlog::error("{} (id {}) answered twice; the second reply is dropped", method_, id_.dump());
    return false;
  }
  replied_ = true;
  return true;
}

void ReplyOnce::result(nlohmann::json r) {
  if (claim()) sink_->send_result(id_, std::move(r));
}

void ReplyOnce::error(int code, const std::string& message) {
  if (claim()) sink_->send_error(id_, code, message);
}

}  // namespace ff::lsp
