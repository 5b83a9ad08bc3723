#include "lsp/transport.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>

namespace ff::lsp {

namespace {

bool iequals_prefix(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char a = s[i], b = prefix[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
    if (a != b) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::size_t find_ci(std::string_view hay, std::string_view needle) {
  for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i)
    if (iequals_prefix(hay.substr(i), needle)) return i;
  return std::string_view::npos;
}

// A message's header section: the body's length, or what is wrong with it.
struct HeaderSection {
  std::size_t length = 0;
  FrameError problem = FrameError::kNone;
  std::string message;
};

HeaderSection read_header(std::string_view header) {
  HeaderSection out;
  bool has_length = false;
  while (!header.empty()) {
    std::size_t nl = header.find('\n');
    std::string_view line = trim(header.substr(0, nl));
    header = nl == std::string_view::npos ? std::string_view() : header.substr(nl + 1);
    if (line.empty()) continue;
    std::size_t colon = line.find(':');
    std::string_view name =
        colon == std::string_view::npos ? std::string_view() : trim(line.substr(0, colon));
    bool token = !name.empty();
    for (char c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') token = false;
    if (!token) {
      // Not a header: the rest of a body whose Content-Length was too short, usually.
      return {0, FrameError::kMalformedHeader, "malformed header line"};
    }
    if (iequals_prefix(name, "content-length") && name.size() == 14) {
      std::string_view value = trim(line.substr(colon + 1));
      auto r = std::from_chars(value.data(), value.data() + value.size(), out.length);
      if (r.ec != std::errc() || r.ptr != value.data() + value.size())
        return {0, FrameError::kInvalidLength,
                "invalid Content-Length '" + std::string(value.substr(0, 40)) + "'"};
      has_length = true;
    }
  }
  if (!has_length) return {0, FrameError::kNoContentLength, "header without Content-Length"};
  return out;
}

}  // namespace

void FrameParser::feed(std::string_view bytes, std::vector<Frame>& out) {
  if (skip_ > 0) {
    std::size_t n = std::min(skip_, bytes.size());
    skip_ -= n;
    bytes.remove_prefix(n);
  }
  // A body in progress takes its bytes directly, not through buf_ (one copy, no regrowth).
  if (body_len_ != kNoBody) {
    bytes.remove_prefix(fill_body(bytes, out));
    if (body_len_ != kNoBody) return;
  }
  buf_.append(bytes);
  parse(out);
}

std::size_t FrameParser::fill_body(std::string_view bytes, std::vector<Frame>& out) {
  std::size_t n = std::min(body_len_ - body_.size(), bytes.size());
  body_.append(bytes.data(), n);
  if (body_.size() == body_len_) {
    Frame f;
    f.body = std::move(body_);
    body_ = std::string();
    body_len_ = kNoBody;
    out.push_back(std::move(f));
  }
  return n;
}

bool FrameParser::resync() {
  std::size_t at = find_ci(buf_, "Content-Length:");
  if (at == std::string_view::npos) {
    // Keep a tail that could be the start of a split "Content-Length:".
    if (buf_.size() > 15) buf_.erase(0, buf_.size() - 15);
    hunting_ = true;
    return false;
  }
  buf_.erase(0, at);
  hunting_ = false;
  return true;
}

void FrameParser::parse(std::vector<Frame>& out) {
  for (;;) {
    if (skip_ > 0) {
      std::size_t n = std::min(skip_, buf_.size());
      buf_.erase(0, n);
      skip_ -= n;
      if (skip_ > 0) return;
    }
    if (hunting_ && !resync()) return;
    if (body_len_ != kNoBody) {
      std::size_t n = fill_body(buf_, out);
      buf_.erase(0, n);
      if (body_len_ != kNoBody) return;  // buf_ is empty: the rest arrives through feed()
      continue;
    }
    // Leading blank lines between messages are tolerated.
    std::size_t lead = 0;
    while (lead < buf_.size() && (buf_[lead] == '\r' || buf_[lead] == '\n')) ++lead;
    if (lead) buf_.erase(0, lead);
    if (buf_.empty()) return;
    // A body without header (a client sending raw JSON): report it, find the next header.
    if (buf_.front() == '{' || buf_.front() == '[') {
      out.push_back({Frame::Kind::kError,
                     {},
                     FrameError::kNoHeader,
                     "message without a Content-Length header"});
      if (!resync()) return;
      continue;
    }
    // The header ends at an empty line ("\r\n\r\n", tolerating bare "\n").
    std::size_t end = std::string::npos, sep = 0;
    for (std::size_t i = 0; i < buf_.size() && i < kMaxHeaderBytes; ++i) {
      if (buf_[i] != '\n') continue;
      std::size_t j = i + 1;
      if (j < buf_.size() && buf_[j] == '\r') ++j;
      if (j < buf_.size() && buf_[j] == '\n') {
        end = i;
        sep = j + 1;
        break;
      }
    }
    if (end == std::string::npos) {
      if (buf_.size() < kMaxHeaderBytes) return;
      out.push_back({Frame::Kind::kError,
                     {},
                     FrameError::kHeaderTooLong,
                     "header section longer than 8 KiB"});
      buf_.erase(0, 1);
      if (!resync()) return;
      continue;
    }
    HeaderSection header = read_header(std::string_view(buf_.data(), end));
    if (header.problem != FrameError::kNone) {
      out.push_back({Frame::Kind::kError, {}, header.problem, std::move(header.message)});
      // Garbage may hide the next real header: hunt from just after its first byte.
      buf_.erase(0, header.problem == FrameError::kMalformedHeader ? 1 : sep);
      if (!resync()) return;
      continue;
    }
    std::size_t length = header.length;
    buf_.erase(0, sep);
    if (length > max_) {
      out.push_back({Frame::Kind::kError,
                     {},
                     FrameError::kTooLarge,
                     "message of " + std::to_string(length) + " bytes exceeds the limit of " +
                         std::to_string(max_) + " bytes; skipped"});
      skip_ = length;
      continue;
    }
    body_len_ = length;
    body_.clear();
    body_.reserve(length + kBodyPadding);
  }
}

std::string frame(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

bool MemoryTransport::write(std::string_view body) {
  std::lock_guard<std::mutex> lock(mu_);
  sink_(body);
  return true;
}

bool StdioTransport::write(std::string_view body) {
  if (closed_) return false;
  std::string data = frame(body);
  std::lock_guard<std::mutex> lock(mu_);
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (!closed_.exchange(true) && on_closed_) on_closed_();
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void StdioTransport::read_until_eof(MessageReceiver& to, std::size_t max_message) {
  FrameParser parser(max_message);
  std::vector<Frame> frames;
  std::vector<char> buf(1 << 16);
  for (;;) {
    ssize_t n = ::read(in_fd_, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    frames.clear();
    parser.feed(std::string_view(buf.data(), static_cast<std::size_t>(n)), frames);
    to.on_frames(frames);
    if (!frames.empty()) to.drop_prepared();  // a message ended: what it did not take
    // Only for a body that is really arriving (a quarter of it is here): a header alone
    // commits no memory.
    if (std::size_t len = parser.body_expected();
        len >= kPrepareBodyBytes && parser.body_received() >= len / 4)
      to.prepare_for_body(len);
  }
  if (parser.mid_message()) spdlog::warn("end of input in the middle of a message");
}

}  // namespace ff::lsp
