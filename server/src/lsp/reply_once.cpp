#include "lsp/reply_once.hpp"

#include <spdlog/spdlog.h>

#include <utility>

#include "lsp/lsp_json.hpp"
#include "lsp/request_table.hpp"

namespace ff::lsp {

ReplyOnce::ReplyOnce(RequestTable& table, RequestSeq seq, nlohmann::json id, std::string method,
                     CancelToken token)
    : table_(&table),
      seq_(seq),
      id_(std::move(id)),
      method_(std::move(method)),
      token_(std::move(token)) {}

ReplyOnce::ReplyOnce(ReplyOnce&& o) noexcept
    : table_(std::exchange(o.table_, nullptr)),
      seq_(o.seq_),
      id_(std::move(o.id_)),
      method_(std::move(o.method_)),
      token_(o.token_),
      replied_(o.replied_) {}

ReplyOnce& ReplyOnce::operator=(ReplyOnce&& o) noexcept {
  if (this != &o) {
    if (table_ && !replied_) table_->fail_unanswered(seq_, method_);
    table_ = std::exchange(o.table_, nullptr);
    seq_ = o.seq_;
    id_ = std::move(o.id_);
    method_ = std::move(o.method_);
    token_ = o.token_;
    replied_ = o.replied_;
  }
  return *this;
}

ReplyOnce::~ReplyOnce() {
  if (!table_ || replied_) return;
  try {
    table_->fail_unanswered(seq_, method_);
  } catch (...) {
  }
}

bool ReplyOnce::claim() {
  if (!table_) return false;
  if (replied_) {
    table_->count_replied_twice();
    spdlog::error("{} (id {}) answered twice; the second reply is dropped", method_, id_.dump());
    return false;
  }
  replied_ = true;
  return true;
}

void ReplyOnce::result(nlohmann::json r) {
  if (claim()) table_->answer(seq_, std::move(r));
}

void ReplyOnce::error(int code, const std::string& message) {
  if (claim()) table_->fail(seq_, code, message);
}

void ReplyOnce::result_after_earlier(nlohmann::json r) {
  if (claim()) table_->hold(seq_, std::move(r));
}

}  // namespace ff::lsp
