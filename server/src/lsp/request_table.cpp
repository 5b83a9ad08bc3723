#include "lsp/request_table.hpp"

#include <spdlog/spdlog.h>

#include <utility>

#include "lsp/lsp_json.hpp"

namespace ff::lsp {

using json = nlohmann::json;

namespace {

json result_response(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json error_response(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json cancelled_response(const json& id) {
  return error_response(id, kRequestCancelled, "request cancelled");
}

}  // namespace

RequestSeq RequestTable::accept(const json& id, const std::string& method) {
  std::lock_guard<std::mutex> lock(mu_);
  RequestSeq seq = next_++;
  entries_.emplace(seq, Entry{id, id_key(id), method, CancelToken(), false, std::nullopt});
  return seq;
}

void RequestTable::mark_cancelled(const json& id) {
  std::string key = id_key(id);
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [seq, e] : entries_)
    if (e.key == key) e.token.cancel();
}

void RequestTable::reject(const json& id, int code, const std::string& message) {
  send_(error_response(id, code, message));
}

ReplyOnce RequestTable::start(RequestSeq seq) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = entries_.at(seq);
  e.started = true;
  return ReplyOnce(*this, seq, e.id, e.method, e.token);
}

void RequestTable::cancel(const json& id) {
  std::string key = id_key(id);
  std::vector<json> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      auto next = std::next(it);
      Entry& e = it->second;
      if (e.key == key) {
        e.token.cancel();
        if (e.started && !e.held) close_locked(it, cancelled_response(e.id), out);
      }
      it = next;
    }
  }
  send_all(out);
}

void RequestTable::abandon_started(const std::string& why) {
  std::vector<json> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      auto next = std::next(it);
      Entry& e = it->second;
      if (e.started && !e.held) {
        e.token.cancel();
        out.push_back(error_response(e.id, kRequestFailed, why));
        entries_.erase(it);
      }
      it = next;
    }
    release_held_locked(out);
  }
  send_all(out);
}

void RequestTable::answer(RequestSeq seq, json result) {
  std::vector<json> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(seq);
    if (it == entries_.end()) return;  // answered by the table meanwhile (cancelled, abandoned)
    const Entry& e = it->second;
    close_locked(
        it,
        e.token.cancelled() ? cancelled_response(e.id) : result_response(e.id, std::move(result)),
        out);
  }
  send_all(out);
}

void RequestTable::fail(RequestSeq seq, int code, const std::string& message) {
  std::vector<json> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(seq);
    if (it == entries_.end()) return;
    close_locked(it, error_response(it->second.id, code, message), out);
  }
  send_all(out);
}

void RequestTable::hold(RequestSeq seq, json result) {
  std::vector<json> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(seq);
    if (it == entries_.end()) return;
    it->second.held = std::move(result);
    release_held_locked(out);
  }
  send_all(out);
}

void RequestTable::fail_unanswered(RequestSeq seq, const std::string& method) {
  std::vector<json> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(seq);
    if (it == entries_.end()) return;  // the table answered it: nothing was left unanswered
    spdlog::error("{} (id {}) was never answered; replying with an error", method,
                  it->second.id.dump());
    close_locked(
        it, error_response(it->second.id, kInternalError, "server failed to reply to " + method),
        out);
  }
  send_all(out);
}

void RequestTable::close_locked(std::map<RequestSeq, Entry>::iterator it, json response,
                                std::vector<json>& out) {
  out.push_back(std::move(response));
  entries_.erase(it);
  release_held_locked(out);
}

void RequestTable::release_held_locked(std::vector<json>& out) {
  // A held answer is due once no request started before it is still open.
  for (auto it = entries_.begin(); it != entries_.end();) {
    Entry& e = it->second;
    if (!e.held) {
      if (e.started) return;
      ++it;
      continue;
    }
    out.push_back(e.token.cancelled() ? cancelled_response(e.id)
                                      : result_response(e.id, std::move(*e.held)));
    it = entries_.erase(it);
  }
}

void RequestTable::send_all(std::vector<json>& out) {
  for (auto& m : out) send_(m);
}

}  // namespace ff::lsp
