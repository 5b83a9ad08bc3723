#include "fix/edit.hpp"

#include <algorithm>

namespace ff::fix {

void add_edit(std::vector<TextEdit>& edits, std::string_view text, std::size_t b, std::size_t e,
              std::string repl) {
  if (text.substr(b, e - b) == repl) return;
  edits.push_back({b, e, std::move(repl)});
}

void sort_edits(std::vector<TextEdit>& edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const TextEdit& a, const TextEdit& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    return a.begin == a.end && b.begin != b.end;  // an insertion first
  });
}

std::string apply_text_edits(std::string_view text, std::vector<TextEdit> edits, bool* ok) {
  sort_edits(edits);
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  bool good = true;
  for (const auto& e : edits) {
    if (e.begin < pos || e.end < e.begin || e.end > text.size()) {
      good = false;
      continue;
    }
    out.append(text.substr(pos, e.begin - pos));
    out.append(e.text);
    pos = e.end;
  }
  out.append(text.substr(pos));
  if (ok) *ok = good;
  return out;
}

std::vector<TextEdit> edits_between(std::string_view before, std::string_view after) {
  if (before == after) return {};
  std::size_t p = 0;
  while (p < before.size() && p < after.size() && before[p] == after[p]) ++p;
  std::size_t s = 0;
  while (s < before.size() - p && s < after.size() - p &&
         before[before.size() - 1 - s] == after[after.size() - 1 - s])
    ++s;
  return {TextEdit{p, before.size() - s, std::string(after.substr(p, after.size() - s - p))}};
}

std::string line_ending(std::string_view text) {
  std::size_t lf = 0, crlf = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') {
      ++lf;
      if (i > 0 && text[i - 1] == '\r') ++crlf;
    }
  return crlf * 2 > lf ? "\r\n" : "\n";
}

std::string with_eol(std::string_view text, std::string_view eol) {
  if (eol == "\n") return std::string(text);
  std::string out;
  for (char c : text) {
    if (c == '\n')
      out += eol;
    else
      out += c;
  }
  return out;
}

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::size_t next = nl == std::string_view::npos ? text.size() : nl + 1;
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    if (end > pos && text[end - 1] == '\r') --end;
    lines.push_back(Line{pos, end, next, text.substr(pos, end - pos)});
    pos = next;
  }
  return lines;
}

std::string_view leading_space(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return line.substr(0, i);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string begin_marker(std::string_view id) {
  return "# >>> firstfault:" + std::string(id) + " >>>";
}
std::string end_marker(std::string_view id) {
  return "# <<< firstfault:" + std::string(id) + " <<<";
}

bool find_block(std::string_view text, std::string_view id, BlockRange& out) {
  const std::string b = begin_marker(id), e = end_marker(id);
  auto lines = split_lines(text);
  for (const auto& blk : generated_blocks(text))
    if (trim(lines[blk.first_line].text).substr(0, b.size()) == b &&
        trim(lines[blk.last_line].text).substr(0, e.size()) == e) {
      out = blk;
      return true;
    }
  return false;
}

namespace {

// The id of a marker line ("# >>> firstfault:ID >>>" with prefix "# >>> firstfault:" and
// suffix " >>>"; the suffix may be missing), or false when the line is no such marker.
bool marker_id(std::string_view line, std::string_view prefix, std::string_view suffix,
               std::string_view& id) {
  if (line.substr(0, prefix.size()) != prefix) return false;
  id = line.substr(prefix.size());
  if (id.size() >= suffix.size() && id.substr(id.size() - suffix.size()) == suffix)
    id.remove_suffix(suffix.size());
  return true;
}

}  // namespace

std::vector<BlockRange> generated_blocks(std::string_view text) {
  constexpr std::string_view kBegin = "# >>> firstfault:", kEnd = "# <<< firstfault:";
  std::vector<BlockRange> out;
  auto lines = split_lines(text);
  std::size_t open = std::string::npos;
  std::string_view open_id, id;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = trim(lines[i].text);
    if (marker_id(t, kBegin, " >>>", id)) {
      open = i;
      open_id = id;
    } else if (open != std::string::npos && marker_id(t, kEnd, " <<<", id) && id == open_id) {
      out.push_back({lines[open].begin, lines[i].next, open, i});
      open = std::string::npos;
    }
  }
  return out;
}

bool in_generated_block(const std::vector<BlockRange>& blocks, std::size_t line) {
  for (const auto& b : blocks)
    if (line >= b.first_line && line <= b.last_line) return true;
  return false;
}

}  // namespace ff::fix
