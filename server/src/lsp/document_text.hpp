// Document text shared between the main loop, which edits it, and the analysis thread,
// which reads snapshots of it. A snapshot (Text) is a prefix of a buffer: (buffer, length).
// A buffer is append-only: bytes once inside some snapshot's length are never written again,
// and the buffer never moves. Appending at the end of a document (a growing log) therefore
// writes in place, past the end of every snapshot, when the buffer has spare capacity; only
// when it has none, or for any other edit, is the text copied into a new buffer. Readers
// never see a byte being written: they read only below their length, the writer only above.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace ff::lsp {

class TextBuffer {
 public:
  // Adopts the string and its spare capacity (which appends then fill).
  explicit TextBuffer(std::string text);
  TextBuffer(const TextBuffer&) = delete;
  TextBuffer& operator=(const TextBuffer&) = delete;

  // The bytes; fixed for the buffer's life, safe to read below any snapshot's length from
  // any thread.
  const char* data() const { return data_; }
  // Writer side (the thread that edits the document; it alone calls these).
  std::size_t size() const { return text_.size(); }
  std::size_t capacity() const { return text_.capacity(); }
  // Writes `more` after the end in place; false (nothing written) when it does not fit.
  bool append(std::string_view more);

 private:
  std::string text_;
  const char* data_;  // text_.data(), never reallocated
};

// One version of a document's text: immutable, cheap to copy, shared across threads.
class Text {
 public:
  Text() = default;
  Text(std::shared_ptr<const TextBuffer> buffer, std::size_t size)
      : buffer_(std::move(buffer)), size_(size) {}
  // A new buffer holding `s` (for tests and whole-text edits).
  static Text of(std::string s);

  std::string_view view() const {
    return buffer_ ? std::string_view(buffer_->data(), size_) : std::string_view();
  }
  operator std::string_view() const { return view(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::shared_ptr<const TextBuffer>& buffer() const { return buffer_; }

  // True when this text is `older` with bytes appended (or unchanged): both are prefixes
  // of the same buffer. Tells "the document only grew" without comparing bytes.
  bool extends(const Text& older) const {
    return buffer_ && buffer_ == older.buffer_ && size_ >= older.size_;
  }
  // The same text: the same prefix of the same buffer.
  friend bool operator==(const Text& a, const Text& b) {
    return a.buffer_ == b.buffer_ && a.size_ == b.size_;
  }

 private:
  std::shared_ptr<const TextBuffer> buffer_;
  std::size_t size_ = 0;
};

// Capacity to give a buffer of `size` bytes so that a growing log is rarely copied again
// (capacity never touched costs address space, not memory).
std::size_t text_capacity_for(std::size_t size);

// An empty string with capacity text_capacity_for(size) whose pages are already faulted in
// (where the kernel can do it in one call). Prepared on another thread while a big message
// is still arriving, it saves the document's copy most of its cost: for a 100 MB didOpen,
// writing the text into fresh memory took 65 ms, into prepared memory 20.
std::string prepared_text_storage(std::size_t size);

}  // namespace ff::lsp
