// The fix engine's own edit model: byte-range replacements in a file, whole files to create,
// and a set of those that is applied together. Plain data; no LSP types, no JSON, no I/O.
// fix_json.hpp converts it to JSON for `analyze --fix --format json`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ff::fix {

// Replace bytes [begin, end) of the original text with `text` (begin == end: an insertion).
struct TextEdit {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string text;
  bool operator==(const TextEdit&) const = default;
};

struct FileEdit {
  std::string path;  // as the caller gave it (the CLI passes paths inside the workspace)
  // create: the file is new (or one of ours to replace whole): `content` is its text and
  // `edits` is empty. Otherwise `edits` apply to the file's current text.
  bool create = false;
  std::string content;
  bool executable = false;  // for created files: mode 0755 instead of 0644
  std::vector<TextEdit> edits;
};

struct WorkspaceEdit {
  std::vector<FileEdit> files;
  bool empty() const { return files.empty(); }
};

// Appends the edit replacing [b, e) of `text` with `repl`, unless that is what is there
// already (a generator run on its own output adds nothing).
void add_edit(std::vector<TextEdit>& edits, std::string_view text, std::size_t b, std::size_t e,
              std::string repl);

// Puts edits in the order they apply: by start; at one offset, insertions before a
// replacement that starts there (the inserted text goes in front of the replaced text, so
// the two do not overlap); otherwise in the order given.
void sort_edits(std::vector<TextEdit>& edits);

// Applies non-overlapping edits (any order) to `text`. Overlapping edits: the later one in
// begin order is dropped and false is returned through `ok` when given.
std::string apply_text_edits(std::string_view text, std::vector<TextEdit> edits,
                             bool* ok = nullptr);

// The smallest edit list that turns `before` into `after`: one edit covering the changed
// middle (common prefix and suffix kept), or none when the texts are equal.
std::vector<TextEdit> edits_between(std::string_view before, std::string_view after);

// "\r\n" when most lines of `text` end that way, else "\n".
std::string line_ending(std::string_view text);
// Converts '\n' line ends of generated text to `eol`.
std::string with_eol(std::string_view text, std::string_view eol);

// One line of a text: [begin, end) without its line ending; `next` is where the next starts.
struct Line {
  std::size_t begin = 0, end = 0, next = 0;
  std::string_view text;
};
std::vector<Line> split_lines(std::string_view text);
std::string_view leading_space(std::string_view line);
std::string_view trim(std::string_view s);

// Marker comments around generated blocks: "# >>> firstfault:<id> >>>" ... "# <<< firstfault:<id>
// <<<".
std::string begin_marker(std::string_view id);
std::string end_marker(std::string_view id);
struct BlockRange {
  std::size_t begin = 0, end = 0;  // whole lines, end includes the last line ending
  std::size_t first_line = 0, last_line = 0;
};
// Every generated block, marker lines included, whatever its id: an end marker closes the
// nearest begin marker above it when both carry the same id; a begin marker never closed is
// not a block (a stray one must not turn the rest of the file into "ours", nor lines down
// to a real block). Ids must match so that a block written between a stray begin and a
// stray end cannot change what they enclose: with any end closing, `# >>> firstfault:x`
// ... `# <<< firstfault:y` enclosed a whole script until a block was inserted inside it,
// and the next --fix edited the lines that had been skipped (found by fuzz_fix).
std::vector<BlockRange> generated_blocks(std::string_view text);
// The first of those whose two markers both carry this id, if the text has one.
bool find_block(std::string_view text, std::string_view id, BlockRange& out);
bool in_generated_block(const std::vector<BlockRange>& blocks, std::size_t line);

}  // namespace ff::fix
