#include "lsp/draft_store.hpp"

#include <utility>

#include "lsp/log_files.hpp"

namespace ff::lsp {

void DraftStore::open(const std::string& uri, const std::string& language_id, std::int64_t version,
                      std::string text) {
  Document d;
  d.language_id = language_id;
  d.version = version;
  d.log = looks_like_log(uri, language_id);
  // The string is adopted as the buffer, spare capacity and all: no copy of the text.
  d.buffer = std::make_shared<TextBuffer>(std::move(text));
  d.text = Text(d.buffer, d.buffer->size());
  docs_[uri] = std::move(d);
}

const LineIndex& DraftStore::index_of(const Document& d) {
  if (!d.indexed) {
    d.index.reset(d.text.view());
    d.indexed = true;
  }
  return d.index;
}

void DraftStore::index_all() const {
  for (const auto& [uri, d] : docs_) index_of(d);
}

void DraftStore::append(Document& d, std::string_view more) {
  std::size_t size = d.text.size();
  // In place when the buffer ends where this document does (it always does: a document is
  // its buffer's only writer) and has room; snapshots taken before keep their length.
  if (d.buffer->size() != size || !d.buffer->append(more)) {
    std::string grown;
    grown.reserve(text_capacity_for(size + more.size()));
    grown.append(d.text.view()).append(more);
    d.buffer = std::make_shared<TextBuffer>(std::move(grown));
  }
  d.text = Text(d.buffer, size + more.size());
  if (d.indexed) d.index.extend(d.text.view());
}

void DraftStore::replace(Document& d, std::size_t b, std::size_t e, std::string_view with) {
  // Not an append: a new buffer, so that no snapshot's bytes change.
  std::string_view old = d.text.view();
  std::string text;
  text.reserve(text_capacity_for(old.size() - (e - b) + with.size()));
  text.append(old.substr(0, b)).append(with).append(old.substr(e));
  d.buffer = std::make_shared<TextBuffer>(std::move(text));
  d.text = Text(d.buffer, d.buffer->size());
  d.indexed = false;  // indexed again when next needed
}

bool DraftStore::change(const std::string& uri, std::int64_t version,
                        const std::vector<ContentChange>& changes, Encoding encoding) {
  auto it = docs_.find(uri);
  if (it == docs_.end() || version < it->second.version) return false;
  Document& d = it->second;
  for (const auto& c : changes) {
    if (!c.range) {
      replace(d, 0, d.text.size(), c.text);
      continue;
    }
    std::string_view text = d.text.view();
    const LineIndex& index = index_of(d);
    std::size_t b = index.offset(text, c.range->start, encoding);
    std::size_t e = index.offset(text, c.range->end, encoding);
    if (e < b) std::swap(b, e);
    if (b == text.size())
      append(d, c.text);
    else
      replace(d, b, e, c.text);
  }
  d.version = version;
  return true;
}

bool DraftStore::append(const std::string& uri, std::int64_t version, std::string_view more) {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return false;
  append(it->second, more);
  it->second.version = version;
  return true;
}

bool DraftStore::is_log(const std::string& uri) const {
  auto it = docs_.find(uri);
  return it != docs_.end() && it->second.log;
}

std::optional<std::int64_t> DraftStore::version(const std::string& uri) const {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return it->second.version;
}

std::optional<std::string> DraftStore::text(const std::string& uri) const {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return std::string(it->second.text.view());
}

std::optional<DocumentSnapshot> DraftStore::snapshot(const std::string& uri) const {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  return DocumentSnapshot{uri, it->second.version, it->second.text};
}

std::optional<std::string_view> DraftStore::line(const std::string& uri, std::uint32_t n) const {
  auto it = docs_.find(uri);
  if (it == docs_.end()) return std::nullopt;
  const LineIndex& index = index_of(it->second);
  if (n >= index.lines()) return std::nullopt;
  return index.line(it->second.text.view(), n);
}

std::vector<DocumentSnapshot> DraftStore::log_snapshots() const {
  std::vector<DocumentSnapshot> out;
  for (const auto& [uri, d] : docs_)
    if (d.log) out.push_back({uri, d.version, d.text});
  return out;
}

std::vector<DocumentSnapshot> DraftStore::source_snapshots() const {
  std::vector<DocumentSnapshot> out;
  for (const auto& [uri, d] : docs_)
    if (!d.log) out.push_back({uri, d.version, d.text});
  return out;
}

std::set<std::string> DraftStore::log_uris() const {
  std::set<std::string> out;
  for (const auto& [uri, d] : docs_)
    if (d.log) out.insert(uri);
  return out;
}

}  // namespace ff::lsp
