// The documents the language server holds (the client's open documents and the files it
// reads from disk): their texts, versions and line indexes, and snapshots of them. A text
// lives in an append-only buffer (document_text.hpp): an append at the end writes in place,
// past every snapshot taken before, so a snapshot is a prefix that never changes; any other
// edit copies into a new buffer. No analysis and no threads here: the main loop owns
// it, and other threads only read the snapshots it hands out.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lsp/analysis_run.hpp"
#include "lsp/document_text.hpp"
#include "lsp/text.hpp"

namespace ff::lsp {

struct ContentChange {
  std::optional<Range> range;  // none: the whole document
  std::string text;
};

class DraftStore {
 public:
  // open() leaves the line index to index_all() or to the first use, so that the caller can
  // start the analysis of a big document first and index it while the analysis thread
  // scans. The string is adopted as the document's buffer, spare capacity and all.
  void open(const std::string& uri, const std::string& language_id, std::int64_t version,
            std::string text);
  void index_all() const;
  // False (and nothing changed) for an unknown document or a version older than the one
  // held. Ranges are in `encoding`.
  bool change(const std::string& uri, std::int64_t version,
              const std::vector<ContentChange>& changes, Encoding encoding);
  // Appends at the end of a document (a file read from disk that grew); false for an
  // unknown document.
  bool append(const std::string& uri, std::int64_t version, std::string_view more);
  bool close(const std::string& uri) { return docs_.erase(uri) > 0; }

  bool is_open(const std::string& uri) const { return docs_.count(uri) > 0; }
  // Whether the document is open and a log (log_files.hpp).
  bool is_log(const std::string& uri) const;
  std::optional<std::int64_t> version(const std::string& uri) const;
  std::optional<std::string> text(const std::string& uri) const;  // a copy (tests)
  std::optional<DocumentSnapshot> snapshot(const std::string& uri) const;
  // Line `n` of a document's current text (without its end), none past its end or for an
  // unknown document.
  std::optional<std::string_view> line(const std::string& uri, std::uint32_t n) const;

  // Snapshots (cheap: no text is copied) of every log, and of every other document (the
  // launch scripts a fix may edit), in URI order; the URIs of the logs.
  std::vector<DocumentSnapshot> log_snapshots() const;
  std::vector<DocumentSnapshot> source_snapshots() const;
  std::set<std::string> log_uris() const;

 private:
  struct Document {
    std::string language_id;
    std::int64_t version = 0;
    bool log = false;                    // looks_like_log(uri, language_id)
    std::shared_ptr<TextBuffer> buffer;  // where the text lives; appended to in place
    Text text;                           // the current version: a prefix of `buffer`
    mutable LineIndex index;             // of `text`, once `indexed`
    mutable bool indexed = false;
  };
  static const LineIndex& index_of(const Document& d);
  static void append(Document& d, std::string_view more);
  static void replace(Document& d, std::size_t b, std::size_t e, std::string_view with);

  std::map<std::string, Document> docs_;
};

}  // namespace ff::lsp
