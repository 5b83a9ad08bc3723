// Layer 1: JSON-RPC 2.0 framing over a byte stream (the LSP base protocol).
//
// FrameParser is pure (bytes in, frames out) so it can be unit-tested; StdioTransport owns
// file descriptors 0 and 1: it writes the server's messages to one and reads the client's
// from the other, handing them to a MessageReceiver (the protocol adapter), so the adapter
// never touches a file descriptor. The parser never buffers an oversized body: a Content-Length
// above the limit is reported and that many bytes are skipped as they arrive, so memory stays
// bounded whatever the client sends. Broken headers are reported and the parser
// resynchronises on the next "Content-Length:". A body is read straight into a string with
// kBodyPadding spare bytes of capacity, the padding simdjson's parser reads past the end, so
// the reader thread parses it where it lies (no copy of a 100 MB didOpen).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ff::lsp {

inline constexpr std::size_t kDefaultMaxMessage = 64u << 20;  // 64 MiB
inline constexpr std::size_t kMaxHeaderBytes = 8192;
// Spare capacity after every message body (jsonio::kPadding, simdjson's; checked where the
// body is parsed).
inline constexpr std::size_t kBodyPadding = 64;

// What was wrong with the bytes where a message was expected. The reader answers each with
// a JSON-RPC error whose code depends on it (MessageReader: kTooLarge is an invalid request,
// the rest a parse error).
enum class FrameError {
  kNone,
  kNoHeader,         // a body (JSON) without a Content-Length header
  kHeaderTooLong,    // no end of the header section within kMaxHeaderBytes
  kMalformedHeader,  // a header line that is not "Name: value"
  kInvalidLength,    // a Content-Length that is not a number
  kNoContentLength,  // a header section without Content-Length
  kTooLarge,         // a Content-Length above the limit: the body is skipped
};

struct Frame {
  enum class Kind { kMessage, kError };
  Kind kind = Kind::kMessage;
  std::string body;   // the message body (kMessage), with kBodyPadding spare capacity
  FrameError problem = FrameError::kNone;  // what was wrong (kError)
  std::string error;  // the problem in words, for the client and the log (kError)
};

class FrameParser {
 public:
  explicit FrameParser(std::size_t max_message = kDefaultMaxMessage) : max_(max_message) {}

  // Appends bytes; complete frames (and errors) are appended to `out` in stream order.
  void feed(std::string_view bytes, std::vector<Frame>& out);
  // True when bytes of an unfinished message are pending (for the EOF log line).
  bool mid_message() const { return !buf_.empty() || skip_ > 0 || body_len_ != kNoBody; }
  std::size_t buffered() const { return buf_.size() + body_.size(); }
  // The length of the body being read, once its header has been; 0 between messages. And
  // how much of it has arrived.
  std::size_t body_expected() const { return body_len_ == kNoBody ? 0 : body_len_; }
  std::size_t body_received() const { return body_len_ == kNoBody ? 0 : body_.size(); }

 private:
  static constexpr std::size_t kNoBody = static_cast<std::size_t>(-1);
  void parse(std::vector<Frame>& out);
  bool resync();  // drops bytes up to the next "Content-Length:"; false if none buffered
  // Appends what `bytes` holds of the pending body to body_ and emits the frame once the
  // body is complete; returns the number of bytes taken.
  std::size_t fill_body(std::string_view bytes, std::vector<Frame>& out);

  std::size_t max_;
  std::string buf_;
  std::size_t body_len_ = kNoBody;  // header parsed, waiting for this many body bytes
  std::string body_;                // the pending body, reserved at body_len_ + kBodyPadding
  std::size_t skip_ = 0;            // bytes of an oversized body still to discard
  bool hunting_ = false;            // after an error: looking for the next header
};

std::string frame(std::string_view body);

// A message body at least this long is worth preparing memory for while it arrives
// (MessageReceiver::prepare_for_body).
inline constexpr std::size_t kPrepareBodyBytes = std::size_t{1} << 20;

// Who takes the messages a transport reads: the protocol adapter (LspServer), called on the
// reader thread only, one call at a time.
class MessageReceiver {
 public:
  virtual ~MessageReceiver() = default;
  // The frames (or framing errors) of one read, in stream order; their bodies may be
  // released.
  virtual void on_frames(std::vector<Frame>& frames) = 0;
  // A body of `size` bytes (kPrepareBodyBytes or more) is really arriving: memory for it
  // may be made ready on another thread meanwhile.
  virtual void prepare_for_body(std::size_t size) = 0;
  // A message ended: what was prepared and no message took is given back.
  virtual void drop_prepared() = 0;
};

// Where the server's messages go: the one thing the protocol adapter knows of its
// connection. Any thread writes; each write is one whole message, never interleaved.
class Transport {
 public:
  virtual ~Transport() = default;
  // One message body (unframed JSON); false, and nothing written, once the peer is gone.
  virtual bool write(std::string_view body) = 0;
  virtual bool closed() const = 0;
};

// Framed messages on file descriptors (fd 1 out and fd 0 in for `firstfault lsp`). A
// vanished client (EPIPE or any write error) makes every later write a no-op and calls
// `on_closed` once.
class StdioTransport final : public Transport {
 public:
  explicit StdioTransport(int out_fd = 1, int in_fd = 0) : fd_(out_fd), in_fd_(in_fd) {}
  void set_on_closed(std::function<void()> f) { on_closed_ = std::move(f); }
  bool write(std::string_view body) override;
  bool closed() const override { return closed_; }
  // The reading side, run on the reader thread: blocks in read(in_fd), frames what arrives
  // (messages longer than `max_message` are refused as framing errors) and hands each read's
  // frames to `to`, until end of input or a read error. A blocking read, not an epoll
  // watch: stdin may be a regular file or /dev/null, which epoll refuses.
  void read_until_eof(MessageReceiver& to, std::size_t max_message = kDefaultMaxMessage);

 private:
  int fd_;
  int in_fd_;
  std::mutex mu_;
  std::atomic<bool> closed_{false};
  std::function<void()> on_closed_;
};

// In memory, for protocol tests that run the server in process (clangd's LSPClient): each
// message body, unframed, is handed to a sink, one at a time. It has no reading side: the
// test is the reader, giving frames to LspServer::on_frames() as read_until_eof would.
class MemoryTransport final : public Transport {
 public:
  using Sink = std::function<void(std::string_view body)>;
  explicit MemoryTransport(Sink sink) : sink_(std::move(sink)) {}
  bool write(std::string_view body) override;
  bool closed() const override { return false; }

 private:
  Sink sink_;
  std::mutex mu_;
};

}  // namespace ff::lsp
