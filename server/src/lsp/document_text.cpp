#include "lsp/document_text.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "memory/populate.hpp"

namespace ff::lsp {

TextBuffer::TextBuffer(std::string text) : text_(std::move(text)), data_(text_.data()) {}

bool TextBuffer::append(std::string_view more) {
  if (more.size() > text_.capacity() - text_.size()) return false;
  // Within the capacity std::string does not reallocate; the bytes written (and its
  // terminator) lie past every existing snapshot.
  text_.append(more);
  if (text_.data() != data_) std::abort();  // would leave every reader dangling
  return true;
}

Text Text::of(std::string s) {
  std::size_t n = s.size();
  return Text(std::make_shared<const TextBuffer>(std::move(s)), n);
}

std::size_t text_capacity_for(std::size_t size) {
  // Half again, at least 64 KiB: the appends of a tailing log fit many times over.
  return size + std::max(size / 2, std::size_t{64} << 10);
}

std::string prepared_text_storage(std::size_t size) {
  std::string s;
  s.reserve(text_capacity_for(size));
  // All of it mapped; the text's own pages also touched (the spare room, for appends, not).
  memory::populate_for_write(s.data(), s.capacity());
  memory::touch_pages(s.data(), size);
  return s;
}

}  // namespace ff::lsp
